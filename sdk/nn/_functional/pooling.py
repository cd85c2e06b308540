"""nn.functional pooling: max/average/adaptive pooling over strided windows of the input."""

from __future__ import annotations

import functools
from typing import Any

import sdk

from . import _pool_passes as _passes
from .common import _tuple, check_tensor

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
]


def _pool_args(fn: str, n: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
               dilation: Any) -> tuple:  # fmt: skip
    check_tensor(input, fn)
    if input.ndim not in (n + 1, n + 2):
        raise ValueError(
            f"{fn}: expected a {n + 1}-d or {n + 2}-d input, got shape {list(input.shape)}"
        )
    k = _tuple(kernel_size, n, fn, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _tuple(stride, n, fn, "stride")
    p = _tuple(padding, n, fn, "padding")
    d = _tuple(dilation, n, fn, "dilation")
    if any(v <= 0 for v in k + s + d):
        raise ValueError(f"{fn}: kernel_size, stride and dilation must be positive")
    if any(pi < 0 or pi > ki // 2 for pi, ki in zip(p, k)):
        raise ValueError(f"{fn}: pad should be at most half of kernel size, got {p} for {k}")
    return k, s, p, d


def _out_len(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:  # the last window must start inside
        out -= 1
    return out


def _out_sizes(x: Any, n: int, k: tuple, s: tuple, p: tuple, d: tuple, ceil_mode: bool,
               fn: str) -> list:  # fmt: skip
    sizes = x.shape[-n:]
    outs = [_out_len(L, *a, ceil_mode) for L, *a in zip(sizes, k, s, p, d)]
    if any(o <= 0 for o in outs):
        raise ValueError(
            f"{fn}: output size is too small (input spatial size {list(sizes)}, "
            f"kernel {list(k)}, padding {list(p)}, dilation {list(d)})"
        )
    return outs


def _batched(x: Any, n: int) -> tuple:
    return (x, True) if x.ndim == n + 2 else (x.unsqueeze(0), False)


def _max_pool(fn: str, n: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
              dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:  # fmt: skip
    """A box max as a max along each dim in turn (last dim first, so ties go to the first
    maximum in scan order), carrying the maxima's flat positions when needed."""
    k, s, p, d = _pool_args(fn, n, input, kernel_size, stride, padding, dilation)
    if not input.is_floating_point():
        raise TypeError(f"{fn}: expected a floating point input, got {input.dtype}")
    x, batched = _batched(input, n)
    outs = _out_sizes(x, n, k, s, p, d, ceil_mode, fn)
    tables = [
        _passes.strided_windows(x.shape[i - n], k[i], s[i], p[i], d[i], outs[i]) for i in range(n)
    ]
    out, idx = _passes.take_max(x, n, tables, return_indices)
    if not batched:
        out, idx = out.squeeze(0), None if idx is None else idx.squeeze(0)
    return (out, idx.contiguous()) if return_indices else out


def max_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    """Max over sliding windows of the last dim of (N, C, L) or (C, L) input."""
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)  # fmt: skip


def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    """Max over sliding windows of the last two dims of (N, C, H, W) or (C, H, W) input."""
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)  # fmt: skip


def max_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:  # fmt: skip
    """Max over sliding windows of the last three dims of (N, C, D, H, W) or (C, D, H, W)
    input; indices (return_indices) are flat positions d * H * W + h * W + w."""
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)  # fmt: skip


def _avg_pool(fn: str, n: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
              ceil_mode: bool, count_include_pad: bool, divisor_override: Any) -> Any:  # fmt: skip
    import numpy as np

    k, s, p, d = _pool_args(fn, n, input, kernel_size, stride, padding, 1)
    if not input.is_floating_point():
        raise TypeError(f"{fn}: expected a floating point input, got {input.dtype}")
    x, batched = _batched(input, n)
    outs = _out_sizes(x, n, k, s, p, d, ceil_mode, fn)
    total = x
    for i in reversed(range(n)):  # a box sum, dim by dim
        total = _passes.BoxSum.apply(total, x.ndim - n + i, k[i], s[i], p[i], outs[i])
    if divisor_override is not None:
        if not isinstance(divisor_override, int) or divisor_override == 0:
            raise ValueError(f"{fn}: divisor_override must be a non-zero int")
        out = total / divisor_override
    else:
        # Each window's divisor: its extent clipped to the padded input (count_include_pad)
        # or to the input itself; a product over the spatial dims.
        div = np.ones(())
        for size, o, ki, si, pi in zip(x.shape[-n:], outs, k, s, p):
            start = np.arange(o) * si - pi
            end = np.minimum(start + ki, size + pi)
            count = (
                end - start if count_include_pad else np.minimum(end, size) - np.maximum(start, 0)
            )
            div = np.multiply.outer(div, count)
        out = total / sdk.tensor(div, dtype=x.dtype)
    return out if batched else out.squeeze(0)


def avg_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Any:  # fmt: skip
    """Mean over sliding windows of the last dim of (N, C, L) or (C, L) input."""
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)  # fmt: skip


def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Any = None) -> Any:  # fmt: skip
    """Mean over sliding windows of the last two dims of (N, C, H, W) or (C, H, W) input."""
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)  # fmt: skip


def avg_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Any = None) -> Any:  # fmt: skip
    """Mean over sliding windows of the last three dims of (N, C, D, H, W) or (C, D, H, W)
    input."""
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)  # fmt: skip


def _adaptive_dim(x: Any, dim: int, out: int) -> Any:
    """Adaptive mean pooling along one dim: window i covers [floor(i*L/out), ceil((i+1)*L/out)).
    One product with the (L, out) averaging matrix, over dim in place (no transpose)."""
    size = x.shape[dim]
    if out == size:
        return x
    if size % out == 0:
        shape = list(x.shape)
        shape[dim : dim + 1] = [out, size // out]
        return x.reshape(shape).mean(dim + 1)
    avg = _averaging_matrix(size, out, str(x.dtype))
    if avg.dtype != x.dtype or avg.device != x.device:
        avg = avg.to(device=x.device, dtype=x.dtype)
    if dim == x.ndim - 1:
        return sdk.matmul(x, avg)
    rest = x.shape[dim + 1 :]
    flat = x.reshape(*x.shape[:dim], size, -1)
    return sdk.matmul(avg.t(), flat).reshape(*x.shape[:dim], out, *rest)


@functools.lru_cache(maxsize=128)
def _averaging_matrix(size: int, out: int, dtype: str) -> Any:
    """(size, out): column i averages window i (dtype names the result's dtype)."""
    import numpy as np

    i = np.arange(out, dtype=np.int64)
    lo, hi = (i * size) // out, -((-(i + 1) * size) // out)
    cols = np.arange(size)[:, None]
    avg = ((cols >= lo) & (cols < hi)) / (hi - lo)
    return sdk.tensor(avg, dtype=getattr(sdk, dtype.rsplit(".", 1)[-1]))


def _adaptive_sizes(fn: str, n: int, input: Any, output_size: Any) -> list:
    """The n output sizes (None keeps the input's size), checked against the input."""
    check_tensor(input, fn)
    if input.ndim not in (n + 1, n + 2):
        raise ValueError(
            f"{fn}: expected a {n + 1}-d or {n + 2}-d input, got shape {list(input.shape)}"
        )
    sizes = (
        (output_size,) * n
        if isinstance(output_size, int) or output_size is None
        else tuple(output_size)
    )
    if len(sizes) != n:
        raise TypeError(f"{fn}: output_size must be an int or {n} ints, got {output_size!r}")
    out = []
    for L, o in zip(input.shape[-n:], sizes):
        o = L if o is None else o
        if not isinstance(o, int) or isinstance(o, bool) or o <= 0:
            raise ValueError(
                f"{fn}: output_size entries must be positive ints, got {output_size!r}"
            )
        if L == 0:
            raise ValueError(f"{fn}: input has an empty spatial dim, shape {list(input.shape)}")
        out.append(o)
    return out


def _adaptive(fn: str, n: int, input: Any, output_size: Any) -> Any:
    x = input
    for i, o in enumerate(_adaptive_sizes(fn, n, input, output_size)):
        x = _adaptive_dim(x, x.ndim - n + i, o)
    return x


def _adaptive_max(fn: str, n: int, input: Any, output_size: Any, return_indices: bool) -> Any:
    """Adaptive max pooling (and the flat spatial index of each maximum): a max along each
    dim in turn, last dim first."""
    outs = _adaptive_sizes(fn, n, input, output_size)
    tables = [_passes.adaptive_windows(input.shape[i - n], outs[i]) for i in range(n)]
    out, idx = _passes.take_max(input, n, tables, return_indices)
    return (out, idx.contiguous()) if return_indices else out


def adaptive_avg_pool1d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last dim to output_size windows."""
    return _adaptive("adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last two dims to output_size (an int, or (H, W) with None to keep)."""
    return _adaptive("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, return_indices)


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last three dims to output_size (an int, or (D, H, W) with None to
    keep a dim)."""
    return _adaptive("adaptive_avg_pool3d", 3, input, output_size)


def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of the last three dims to output_size."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)
