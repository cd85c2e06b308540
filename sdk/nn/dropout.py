"""Dropout layers: Dropout, Dropout3d, AlphaDropout, FeatureAlphaDropout (identity in eval)."""

from __future__ import annotations

from typing import Any

from . import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout3d(Dropout):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input in training."""

    def forward(self, input: Any) -> Any:
        return F.dropout3d(input, self.p, self.training)


class AlphaDropout(Dropout):
    """Dropout that keeps SELU activations' mean and variance, in training."""

    def forward(self, input: Any) -> Any:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """alpha dropout of whole channels of (N, C, *) input, in training."""

    def forward(self, input: Any) -> Any:
        return F.feature_alpha_dropout(input, self.p, self.training)
