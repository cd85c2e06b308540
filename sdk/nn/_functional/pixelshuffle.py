"""nn.functional.pixel_shuffle / pixel_unshuffle: channels <-> spatial blocks, one reshape,
permute and reshape each (differentiable as views)."""

from __future__ import annotations

from typing import Any

from .common import check_tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def _factor(v: Any, fn: str, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"{fn}(): argument '{name}' must be a positive int, got {v!r}")
    return v


def _check_input(input: Any, fn: str) -> None:
    check_tensor(input, fn)
    if input.ndim < 3:
        raise ValueError(f"{fn}(): input must have at least 3 dims (C, H, W), got {input.ndim}-d")


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """(*, C * r**2, H, W) -> (*, C, H * r, W * r), r = upscale_factor."""
    _check_input(input, "pixel_shuffle")
    r = _factor(upscale_factor, "pixel_shuffle", "upscale_factor")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(
            f"pixel_shuffle(): channels ({c}) must be divisible by upscale_factor**2 ({r * r})"
        )
    b = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(b), b, b + 3, b + 1, b + 4, b + 2)  # C, H, r, W, r
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """(*, C, H * r, W * r) -> (*, C * r**2, H, W), r = downscale_factor."""
    _check_input(input, "pixel_unshuffle")
    r = _factor(downscale_factor, "pixel_unshuffle", "downscale_factor")
    *batch, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(
            f"pixel_unshuffle(): height ({h}) and width ({w}) must be divisible by "
            f"downscale_factor ({r})"
        )
    b = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(b), b, b + 2, b + 4, b + 1, b + 3)  # C, r, r, H, W
    return x.reshape(*batch, c * r * r, h // r, w // r)
