"""Upsample: nn.functional.interpolate as a layer (torch.nn.modules.upsampling)."""

from __future__ import annotations

from typing import Any

from . import functional as F
from .module import Module

__all__ = ["Upsample"]


class Upsample(Module):
    """Resize (N, C, *spatial) input to `size` or by `scale_factor` with interpolate's modes
    (nearest, nearest-exact, linear, bilinear, area)."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:  # fmt: skip
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError("Upsample: exactly one of size and scale_factor must be given")
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) else (
            tuple(float(f) for f in scale_factor) if scale_factor is not None else None)  # fmt: skip
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Any) -> Any:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)  # fmt: skip

    def extra_repr(self) -> str:
        what = f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        return f"{what}, mode={self.mode!r}"
