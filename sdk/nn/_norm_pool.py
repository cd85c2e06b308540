"""nn.functional: batch/group/RMS normalization, max/average/adaptive pooling and
interpolate, composed from differentiable sdk ops (strided slices, reductions, index_select)."""

from __future__ import annotations

import math
from typing import Any

import sdk

__all__ = [
    "batch_norm",
    "group_norm",
    "rms_norm",
    "max_pool1d",
    "max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "interpolate",
]


def check_tensor(x: Any, fn: str, name: str = "input") -> Any:
    if not isinstance(x, sdk._C.TensorBase):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _channel_shape(x: Any) -> list:
    """(1, C, 1, ...): per-channel values broadcast over (N, C, *)."""
    return [1, x.shape[1]] + [1] * (x.ndim - 2)


# ---- normalization ----------------------------------------------------------------------


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Any:  # fmt: skip
    """Normalize each channel of (N, C, *) input by the batch statistics (training, which
    also updates running_mean / running_var in place) or by the running ones."""
    check_tensor(input, "batch_norm")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # fmt: skip
        if t is not None:
            check_tensor(t, "batch_norm", name)
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected input of shape (N, C, *), got {list(input.shape)}")
    dims = (0, *range(2, input.ndim))
    shape = _channel_shape(input)
    use_batch = training or running_mean is None or running_var is None
    if use_batch:
        n = input.numel() // max(input.shape[1], 1)
        if n <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{list(input.shape)}"
            )
        mean = input.mean(dims)
        var = input.var(dims, correction=0)
        if training and running_mean is not None and running_var is not None:
            with sdk.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    out = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:  # fmt: skip
    """Normalize (N, C, *) input over each group of C / num_groups channels (and all of *)."""
    check_tensor(input, "group_norm")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            check_tensor(t, "group_norm", name)
    if input.ndim < 2:
        raise ValueError(f"group_norm: expected input of shape (N, C, *), got {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if not isinstance(num_groups, int) or num_groups <= 0 or c % num_groups:
        raise ValueError(
            f"group_norm: num_groups ({num_groups!r}) must be a positive int dividing the "
            f"number of channels ({c})"
        )
    g = input.reshape(n, num_groups, -1)
    mean = g.mean(-1, keepdim=True)
    var = g.var(-1, keepdim=True, correction=0)
    out = ((g - mean) * (var + eps).rsqrt()).reshape(input.shape)
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def rms_norm(input: Any, normalized_shape: Any, weight: Any = None,
             eps: float | None = None) -> Any:  # fmt: skip
    """x / sqrt(mean(x^2 over the trailing dims normalized_shape) + eps) * weight; eps None
    means finfo(input.dtype).eps."""
    check_tensor(input, "rms_norm")
    if weight is not None:
        check_tensor(weight, "rms_norm", "weight")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k > input.ndim or tuple(input.shape[input.ndim - k :]) != shape:
        raise ValueError(
            f"rms_norm: normalized_shape {list(shape)} does not match the trailing dims of the "
            f"input of shape {list(input.shape)}"
        )
    if eps is None:
        eps = sdk.finfo(input.dtype).eps
    dims = tuple(range(input.ndim - k, input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


# ---- pooling ----------------------------------------------------------------------------


def _tuple(v: Any, n: int, fn: str, what: str) -> tuple:
    t = (v,) * n if isinstance(v, int) else tuple(v) if isinstance(v, (tuple, list)) else None
    if t is not None and len(t) == 1:
        t = t * n
    if t is None or len(t) != n or not all(isinstance(x, int) and not isinstance(x, bool)
                                           for x in t):  # fmt: skip
        raise TypeError(f"{fn}: {what} must be an int or a tuple of {n} ints, got {v!r}")
    return t


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


def _windows(x: Any, n: int, k: tuple, s: tuple, p: tuple, d: tuple, fill: float,
             ceil_mode: bool, fn: str) -> tuple:  # fmt: skip
    """The k[0] * ... strided slices of x (padded with fill) whose elementwise max / sum over
    the window offsets is the pooled output; and the output's spatial size."""
    sizes = x.shape[-n:]
    outs = [_out_len(L, *a, ceil_mode) for L, *a in zip(sizes, k, s, p, d)]
    if any(o <= 0 for o in outs):
        raise ValueError(
            f"{fn}: output size is too small (input spatial size {list(sizes)}, "
            f"kernel {list(k)}, padding {list(p)}, dilation {list(d)})"
        )
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


def _batched(x: Any, n: int) -> tuple:
    return (x, True) if x.ndim == n + 2 else (x.unsqueeze(0), False)


def _max_pool(fn: str, n: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
              dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:  # fmt: skip
    k, s, p, d = _pool_args(fn, n, input, kernel_size, stride, padding, dilation)
    if not input.is_floating_point():
        raise TypeError(f"{fn}: expected a floating point input, got {input.dtype}")
    x, batched = _batched(input, n)
    parts, outs = _windows(x, n, k, s, p, d, -math.inf, ceil_mode, fn)
    if not return_indices:
        out = parts[0] if len(parts) == 1 else sdk.stack(parts, -1).max(-1)[0]
        return out if batched else out.squeeze(0)
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


def _avg_pool(fn: str, n: int, input: Any, kernel_size: Any, stride: Any, padding: Any,
              ceil_mode: bool, count_include_pad: bool, divisor_override: Any) -> Any:  # fmt: skip
    import numpy as np

    k, s, p, d = _pool_args(fn, n, input, kernel_size, stride, padding, 1)
    if not input.is_floating_point():
        raise TypeError(f"{fn}: expected a floating point input, got {input.dtype}")
    x, batched = _batched(input, n)
    parts, outs = _windows(x, n, k, s, p, d, 0.0, ceil_mode, fn)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
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


def _adaptive(fn: str, n: int, input: Any, output_size: Any, reduce: str) -> Any:
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
    x = input
    for i, o in enumerate(sizes):
        dim = x.ndim - n + i
        o = x.shape[dim] if o is None else o
        if not isinstance(o, int) or isinstance(o, bool) or o <= 0:
            raise ValueError(
                f"{fn}: output_size entries must be positive ints, got {output_size!r}"
            )
        if x.shape[dim] == 0:
            raise ValueError(f"{fn}: input has an empty spatial dim, shape {list(input.shape)}")
        x = _adaptive_dim(x, dim, o, reduce)
    return x


def adaptive_avg_pool1d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last dim to output_size windows."""
    return _adaptive("adaptive_avg_pool1d", 1, input, output_size, "mean")


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """Mean pooling of the last two dims to output_size (an int, or (H, W) with None to keep)."""
    return _adaptive("adaptive_avg_pool2d", 2, input, output_size, "mean")


def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    if return_indices:
        raise NotImplementedError("adaptive_max_pool1d: return_indices=True is not supported")
    return _adaptive("adaptive_max_pool1d", 1, input, output_size, "max")


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    if return_indices:
        raise NotImplementedError("adaptive_max_pool2d: return_indices=True is not supported")
    return _adaptive("adaptive_max_pool2d", 2, input, output_size, "max")


# ---- interpolate ------------------------------------------------------------------------

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
    import numpy as np

    in_size = x.shape[dim]
    src = _source_coords(in_size, out_size, scale, mode, align_corners)
    if mode in ("nearest", "nearest-exact"):
        return x.index_select(dim, sdk.tensor(src.astype(np.int64)))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    w1 = src - i0
    shape = [1] * x.ndim
    shape[dim] = out_size
    w1_t = sdk.tensor(w1, dtype=x.dtype).reshape(shape)
    a = x.index_select(dim, sdk.tensor(i0))
    b = x.index_select(dim, sdk.tensor(i1))
    return a + (b - a) * w1_t


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
            x = _adaptive_dim(x, 2 + i, sizes[i], "mean")
        else:
            x = _resize_dim(x, 2 + i, sizes[i], scales[i], mode, bool(align_corners))
    return x
