"""nn.functional pooling: max/average/adaptive pooling over strided windows of the input."""

from __future__ import annotations

import math
from typing import Any

import sdk

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


def _windows(x: Any, n: int, k: tuple, s: tuple, p: tuple, d: tuple, fill: float,
             ceil_mode: bool, fn: str) -> tuple:  # fmt: skip
    """The k[0] * ... strided slices of x (padded with fill) whose elementwise max / sum over
    the window offsets is the pooled output; and the output's spatial size."""
    sizes = x.shape[-n:]
    outs = _out_sizes(x, n, k, s, p, d, ceil_mode, fn)
    pads = []
    for L, o, ki, si, pi, di in reversed(list(zip(sizes, outs, k, s, p, d))):
        need = (o - 1) * si + di * (ki - 1) + 1  # extent the windows cover
        pads += [pi, max(need - L - pi, 0)]
    if any(pads):
        x = sdk.nn.functional.pad(x, pads, value=fill)
    offsets = [()]
    for ki, di in zip(k, d):
        offsets = [o + (j * di,) for o in offsets for j in range(ki)]
    lead = (slice(None),) * (x.ndim - n)
    parts = [
        x[lead + tuple(slice(o, o + (out - 1) * si + 1, si) for o, out, si in zip(off, outs, s))]
        for off in offsets
    ]
    return parts, outs


def _separable(x: Any, n: int, k: tuple, s: tuple, p: tuple, d: tuple, fill: float,
               ceil_mode: bool, fn: str, reduce: Any) -> Any:  # fmt: skip
    """A box reduction (max or sum) as a 1-d one along each spatial dim in turn, sum(k)
    window slices instead of prod(k); last dim first, so max ties resolve in scan order."""
    _out_sizes(x, n, k, s, p, d, ceil_mode, fn)  # the whole box is checked, not each pass
    out = x
    for i in reversed(range(n)):
        one = [j == i for j in range(n)]
        parts, _ = _windows(out, n, *(tuple(v[j] if one[j] else u for j in range(n))
                                      for v, u in ((k, 1), (s, 1), (p, 0), (d, 1))),
                            fill, ceil_mode, fn)  # fmt: skip
        out = parts[0] if len(parts) == 1 else reduce(parts)
    return out


def _sum(parts: list) -> Any:
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _batched(x: Any, n: int) -> tuple:
    return (x, True) if x.ndim == n + 2 else (x.unsqueeze(0), False)


def _max_pool(fn: str, n: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
              dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:  # fmt: skip
    k, s, p, d = _pool_args(fn, n, input, kernel_size, stride, padding, dilation)
    if not input.is_floating_point():
        raise TypeError(f"{fn}: expected a floating point input, got {input.dtype}")
    x, batched = _batched(input, n)
    if not return_indices:  # a box max is a max along each dim in turn
        out = _separable(x, n, k, s, p, d, -math.inf, ceil_mode, fn,
                         lambda parts: sdk.stack(parts, -1).max(-1)[0])  # fmt: skip
        return out if batched else out.squeeze(0)
    parts, outs = _windows(x, n, k, s, p, d, -math.inf, ceil_mode, fn)
    out, which = sdk.stack(parts, -1).max(-1)
    idx = sdk.tensor(_flat_positions(x.shape[-n:], outs, k, s, p, d))  # (*outs, K)
    idx = idx.expand(*out.shape, idx.shape[-1]).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    return (out, idx) if batched else (out.squeeze(0), idx.squeeze(0))


def _flat_positions(sizes: Any, outs: list, k: tuple, s: tuple, p: tuple, d: tuple) -> Any:
    """int64 (*outs, prod(k)): the flat input position (h * W + w for 2-d) of each window
    element, window offsets in the order _windows stacks them."""
    import numpy as np

    pos = np.zeros((1,), dtype=np.int64)  # grows to (*outs, K)
    for size, o, ki, si, pi, di in zip(sizes, outs, k, s, p, d):
        coord = (np.arange(o) * si - pi)[:, None] + (np.arange(ki) * di)[None, :]  # (o, ki)
        lead = pos.ndim - 1
        pos = pos.reshape(pos.shape[:-1] + (1, pos.shape[-1], 1)) * size + coord.reshape(
            (1,) * lead + (o, 1, ki)
        )
        pos = pos.reshape(pos.shape[:-2] + (-1,))
    return pos


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
    total = _separable(x, n, k, s, p, d, 0.0, ceil_mode, fn, _sum)  # a box sum, dim by dim
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


def _adaptive_dim(x: Any, dim: int, out: int, reduce: str) -> Any:
    """Adaptive pooling along one dim: window i covers [floor(i*L/out), ceil((i+1)*L/out))."""
    import numpy as np

    size = x.shape[dim]
    if out == size:
        return x
    if size % out == 0:
        shape = list(x.shape)
        shape[dim : dim + 1] = [out, size // out]
        g = x.reshape(shape)
        return g.mean(dim + 1) if reduce == "mean" else g.amax(dim + 1)
    i = np.arange(out, dtype=np.int64)
    lo, hi = (i * size) // out, -((-(i + 1) * size) // out)
    if reduce == "mean":  # one product with the (size, out) averaging matrix
        cols = np.arange(size)[:, None]
        avg = ((cols >= lo) & (cols < hi)) / (hi - lo)
        moved = x.movedim(dim, -1)
        return sdk.matmul(moved, sdk.tensor(avg, dtype=x.dtype)).movedim(-1, dim)
    parts = [  # the k-th element of every window (windows shorter than k repeat their last)
        x.index_select(dim, sdk.tensor(np.minimum(lo + k, hi - 1)))
        for k in range(int((hi - lo).max()))
    ]
    return parts[0] if len(parts) == 1 else sdk.stack(parts, -1).amax(-1)


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


def _adaptive(fn: str, n: int, input: Any, output_size: Any, reduce: str) -> Any:
    x = input
    for i, o in enumerate(_adaptive_sizes(fn, n, input, output_size)):
        x = _adaptive_dim(x, x.ndim - n + i, o, reduce)
    return x


def _adaptive_positions(sizes: Any, outs: list) -> Any:
    """int64 (*outs, K): the flat input position of each element of each adaptive window, in
    scan order; shorter windows repeat their last element (the max and its first index stay)."""
    import numpy as np

    pos = np.zeros((1,), dtype=np.int64)
    for size, o in zip(sizes, outs):
        i = np.arange(o)
        lo, hi = (i * size) // o, -((-(i + 1) * size) // o)
        coord = np.minimum(lo[:, None] + np.arange(int((hi - lo).max()))[None, :], hi[:, None] - 1)
        lead = pos.ndim - 1
        pos = pos.reshape(pos.shape[:-1] + (1, pos.shape[-1], 1)) * size + coord.reshape(
            (1,) * lead + coord.shape[:1] + (1, coord.shape[1])
        )
        pos = pos.reshape(pos.shape[:-2] + (-1,))
    return pos


def _adaptive_max_with_indices(fn: str, n: int, input: Any, output_size: Any) -> tuple:
    """Adaptive max pooling and the flat spatial index of each maximum."""
    outs = _adaptive_sizes(fn, n, input, output_size)
    pos = _adaptive_positions(input.shape[-n:], outs)
    lead = list(input.shape[:-n])
    flat = input.reshape(*lead, -1)
    picked = flat.index_select(-1, sdk.tensor(pos.reshape(-1)))
    out, which = picked.reshape(*lead, *outs, pos.shape[-1]).max(-1)
    idx = sdk.tensor(pos).expand(*out.shape, pos.shape[-1]).gather(-1, which.unsqueeze(-1))
    return out, idx.squeeze(-1)


def adaptive_avg_pool1d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last dim to output_size windows."""
    return _adaptive("adaptive_avg_pool1d", 1, input, output_size, "mean")


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last two dims to output_size (an int, or (H, W) with None to keep)."""
    return _adaptive("adaptive_avg_pool2d", 2, input, output_size, "mean")


def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    if return_indices:
        return _adaptive_max_with_indices("adaptive_max_pool1d", 1, input, output_size)
    return _adaptive("adaptive_max_pool1d", 1, input, output_size, "max")


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    if return_indices:
        return _adaptive_max_with_indices("adaptive_max_pool2d", 2, input, output_size)
    return _adaptive("adaptive_max_pool2d", 2, input, output_size, "max")


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last three dims to output_size (an int, or (D, H, W) with None to
    keep a dim)."""
    return _adaptive("adaptive_avg_pool3d", 3, input, output_size, "mean")


def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of the last three dims to output_size."""
    if return_indices:
        return _adaptive_max_with_indices("adaptive_max_pool3d", 3, input, output_size)
    return _adaptive("adaptive_max_pool3d", 3, input, output_size, "max")
