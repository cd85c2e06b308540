"""nn.functional resampling: interpolate and grid_sample."""

from __future__ import annotations

import math
from typing import Any

import sdk

from ._pool_passes import BoxSum
from .common import check_tensor
from .pooling import _adaptive_dim

__all__ = ["interpolate", "grid_sample"]


_MODE_DIMS = {"linear": 1, "bilinear": 2}


def _source_coords(in_size: int, out_size: int, scale: float, mode: str,
                   align_corners: bool) -> Any:  # fmt: skip
    """float64 source coordinate of each output position (torch's pixel mapping)."""
    import numpy as np

    dst = np.arange(out_size, dtype=np.float64)
    if mode in ("nearest", "nearest-exact"):
        offset = 0.5 if mode == "nearest-exact" else 0.0
        return np.minimum(np.floor((dst + offset) * scale), in_size - 1)
    if align_corners:
        return dst * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    return np.maximum((dst + 0.5) * scale - 0.5, 0.0)


def _resize_dim(x: Any, dim: int, out_size: int, scale: float, mode: str,
                align_corners: bool) -> Any:  # fmt: skip
    """One spatial dim resized. Whole rows of the leading dim select quickly, so the last dim
    is moved to the front for the selects and back after (a view); nearest by a whole
    factor is a broadcast copy."""
    import numpy as np

    in_size = x.shape[dim]
    src = _source_coords(in_size, out_size, scale, mode, align_corners)
    if mode in ("nearest", "nearest-exact"):
        factor = out_size // in_size
        if out_size == factor * in_size and (src == np.arange(out_size) // factor).all():
            return _Repeat.apply(x, dim, factor)
        idx = sdk.tensor(src.astype(np.int64))
        if dim == x.ndim - 1:
            return _from_front(_to_front(x, dim).index_select(0, idx), dim)
        return x.index_select(dim, idx)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    w1 = src - i0
    front = dim == x.ndim - 1
    moved = _to_front(x, dim) if front else x
    d = 0 if front else dim
    shape = [1] * x.ndim
    shape[d] = out_size
    w1_t = sdk.tensor(w1, dtype=x.dtype).reshape(shape)
    a = moved.index_select(d, sdk.tensor(i0))
    b = moved.index_select(d, sdk.tensor(i1))
    out = sdk.lerp(a, b, w1_t)
    return _from_front(out, dim) if front else out


class _Repeat(sdk.autograd.Function):
    """Each entry of dim repeated factor times in place (nearest upsampling by a whole
    factor): a broadcast copy; its gradient is a box sum over each run of copies."""

    @staticmethod
    def forward(ctx: Any, x: Any, dim: int, factor: int) -> Any:
        ctx.dim, ctx.factor, ctx.size = dim, factor, x.shape[dim]
        shape = list(x.shape)
        shape.insert(dim + 1, factor)
        wide = x.unsqueeze(dim + 1).expand(*shape)
        return wide.reshape(*x.shape[:dim], x.shape[dim] * factor, *x.shape[dim + 1 :])

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple:
        k = ctx.factor
        return BoxSum.apply(grad, ctx.dim, k, k, 0, ctx.size), None, None


def _to_front(x: Any, dim: int) -> Any:
    """x with dim first, contiguous."""
    return x.permute(dim, *range(dim), *range(dim + 1, x.ndim)).contiguous()


def _from_front(x: Any, dim: int) -> Any:
    """The inverse of _to_front's permutation (a view)."""
    return x.permute(*range(1, dim + 1), 0, *range(dim + 1, x.ndim))


def interpolate(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Any:  # fmt: skip
    """Resize the spatial dims of (N, C, *spatial) input to `size` or by `scale_factor`:
    modes nearest, nearest-exact and area (any number of spatial dims), linear (1),
    bilinear (2)."""
    check_tensor(input, "interpolate")
    if mode not in ("nearest", "nearest-exact", "linear", "bilinear", "area"):
        raise NotImplementedError(
            f"interpolate: mode {mode!r} is not supported (nearest, nearest-exact, linear, "
            "bilinear, area)"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    n = input.ndim - 2
    if n < 1:
        raise ValueError(f"interpolate: expected input (N, C, *spatial), got {list(input.shape)}")
    if mode in _MODE_DIMS and _MODE_DIMS[mode] != n:
        raise NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {_MODE_DIMS[mode] + 2}D input"
        )
    if align_corners is not None and mode not in _MODE_DIMS:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear"
        )
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = input.shape[2:]
    if size is not None:
        sizes = (size,) * n if isinstance(size, int) else tuple(size)
        if len(sizes) != n or not all(isinstance(v, int) and v > 0 for v in sizes):
            raise ValueError(f"interpolate: size must be {n} positive ints, got {size!r}")
        scales = [i / o for i, o in zip(spatial, sizes)]
    else:
        factors = (
            (scale_factor,) * n if isinstance(scale_factor, (int, float)) else tuple(scale_factor)
        )
        if len(factors) != n or not all(isinstance(f, (int, float)) and f > 0 for f in factors):
            raise ValueError(
                f"interpolate: scale_factor must be {n} positive numbers, got {scale_factor!r}"
            )
        sizes = tuple(int(math.floor(i * f)) for i, f in zip(spatial, factors))
        if recompute_scale_factor:
            scales = [i / o for i, o in zip(spatial, sizes)]
        else:
            scales = [1.0 / f for f in factors]
    x = input
    for i in range(n):
        if mode == "area":  # adaptive average pooling to the new size
            x = _adaptive_dim(x, 2 + i, sizes[i])
        else:
            x = _resize_dim(x, 2 + i, sizes[i], scales[i], mode, bool(align_corners))
    return x if x is input else x.contiguous()


def _reflect(c: Any, twice_low: int, twice_high: int) -> Any:
    if twice_low == twice_high:
        return sdk.zeros_like(c)
    low, span = twice_low / 2.0, (twice_high - twice_low) / 2.0
    dist = (c - low).abs()
    extra = dist.fmod(span)
    even = (dist / span).floor().remainder(2).eq(0)
    return sdk.where(even, extra + low, low + span - extra)


def _source(g: Any, size: int, padding_mode: str, align_corners: bool) -> Any:
    c = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
    if padding_mode != "zeros":
        c = c.clamp(0, size - 1)
    return c


def _pick(input: Any, iy: Any, ix: Any) -> Any:
    n, c, h, w = input.shape
    inside = ix.ge(0).logical_and(ix.le(w - 1)).logical_and(iy.ge(0)).logical_and(iy.le(h - 1))
    flat = sdk.where(inside, iy * w + ix, 0).to(sdk.int64).reshape(n, 1, -1)
    got = input.reshape(n, c, h * w).gather(2, flat.expand(n, c, flat.shape[2]))
    return got.reshape(n, c, iy.shape[1], iy.shape[2]) * inside.unsqueeze(1).to(input.dtype)


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Any:  # fmt: skip
    """Sample (N, C, H, W) input at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1]: bilinear or
    nearest, zeros / border / reflection padding (bicubic and 5-d input are not implemented)."""
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"grid_sample: mode {mode!r} is not implemented")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be zeros, border or reflection, got "
                         f"{padding_mode!r}")  # fmt: skip
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[3] != 2 or grid.shape[0] != input.shape[0]:
        raise ValueError("grid_sampler(): expected 4D input (N, C, H, W) and grid (N, H_out, "
                         f"W_out, 2) with the same batch size, but got input with sizes "
                         f"{list(input.shape)} and grid with sizes {list(grid.shape)}")  # fmt: skip
    corners = bool(align_corners)
    ix = _source(grid.select(3, 0), input.shape[3], padding_mode, corners)
    iy = _source(grid.select(3, 1), input.shape[2], padding_mode, corners)
    if mode == "nearest":
        return _pick(input, iy.round(), ix.round())
    x0, y0 = ix.floor(), iy.floor()
    wx, wy = (ix - x0).unsqueeze(1), (iy - y0).unsqueeze(1)
    top = _pick(input, y0, x0) * (1 - wx) + _pick(input, y0, x0 + 1) * wx
    bottom = _pick(input, y0 + 1, x0) * (1 - wx) + _pick(input, y0 + 1, x0 + 1) * wx
    return top * (1 - wy) + bottom * wy
