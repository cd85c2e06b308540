"""nn.functional dropout variants: whole-channel (dropout3d) and self-normalizing
(alpha_dropout, feature_alpha_dropout); plain dropout lives in sdk.nn.functional."""

from __future__ import annotations

from typing import Any

import sdk

from .common import check_tensor

__all__ = ["dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# -SELU scale * SELU alpha: the value a dropped unit takes before the affine correction.
_ALPHA = 1.7580993408473766


def _check_p(fn: str, input: Any, p: float) -> None:
    check_tensor(input, fn)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{fn}: dropout probability has to be between 0 and 1, but got {p!r}")


def _keep_mask(input: Any, p: float, per_channel: bool) -> Any:
    """1 where a unit survives (probability 1 - p), one draw per (N, C) when per_channel."""
    shape = list(input.shape[:2]) + [1] * (input.ndim - 2) if per_channel else list(input.shape)
    return (sdk.rand(shape, dtype=input.dtype) >= p).to(input.dtype)


def _channel_dropout(fn: str, input: Any, p: float, training: bool, spatial: int) -> Any:
    _check_p(fn, input, p)
    if input.ndim not in (spatial + 1, spatial + 2):
        raise ValueError(
            f"{fn}: expected {spatial + 1}D (unbatched) or {spatial + 2}D input, got "
            f"{input.ndim}D input"
        )
    if not training or p == 0.0 or input.numel() == 0:
        return input
    batched = input.ndim == spatial + 2
    x = input if batched else input.unsqueeze(0)
    out = x * 0 if p == 1.0 else x * _keep_mask(x, p, True) * (1.0 / (1.0 - p))
    return out if batched else out.squeeze(0)


def dropout3d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p."""
    return _channel_dropout("dropout3d", input, p, training, 3)


def _alpha(fn: str, input: Any, p: float, training: bool, per_channel: bool) -> Any:
    _check_p(fn, input, p)
    if per_channel and input.ndim < 2:
        raise ValueError(f"{fn}: feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input * 0
    # Dropped units become -alpha; a and b restore zero mean and unit variance.
    keep = _keep_mask(input, p, per_channel)
    a = ((_ALPHA * _ALPHA * p + 1.0) * (1.0 - p)) ** -0.5
    shift = (keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p
    return input * (keep * a) + shift


def alpha_dropout(input: Any, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Any:  # fmt: skip
    """Dropout that keeps SELU activations' mean and variance: kept units become a * x + c,
    dropped ones a fixed negative value."""
    return _alpha("alpha_dropout", input, p, training, False)


def feature_alpha_dropout(input: Any, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Any:  # fmt: skip
    """alpha_dropout with one draw per (sample, channel) of (N, C, *) input."""
    return _alpha("feature_alpha_dropout", input, p, training, True)
