"""nn.functional: stateless layers, activations and losses built from differentiable sdk ops."""

from __future__ import annotations

from typing import Any

import sdk
from sdk import _ops_elementwise as _elementwise
from sdk._ops_common import needs_grad, record

__all__ = [
    "conv3d",
    "conv_transpose2d",
    "grid_sample",
    "pairwise_distance",
    "linear",
    "relu",
    "sigmoid",
    "tanh",
    "elu",
    "gelu",
    "silu",
    "mish",
    "softplus",
    "leaky_relu",
    "hardtanh",
    "relu6",
    "softmax",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "cross_entropy",
    "dropout",
    "layer_norm",
    "conv1d",
    "conv2d",
    "embedding",
    "pad",
]


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    """input @ weight.T + bias (one fused addmm for 2-D input)."""
    if input.ndim == 2 and bias is not None:
        return sdk.addmm(bias, input, weight.t())
    out = sdk.matmul(input, weight.t())
    return out if bias is None else out + bias


def relu(input: Any, inplace: bool = False) -> Any:
    return input.relu_() if inplace else sdk.relu(input)


def sigmoid(input: Any) -> Any:
    return sdk.sigmoid(input)


def tanh(input: Any) -> Any:
    return sdk.tanh(input)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    if inplace:
        return _elementwise.elu_(input, alpha)
    return sdk.elu(input, alpha=alpha)


def gelu(input: Any, approximate: str = "none") -> Any:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return sdk.gelu(input, approximate=approximate)


def silu(input: Any, inplace: bool = False) -> Any:
    """x * sigmoid(x)."""
    return _elementwise.silu(input, inplace)


def mish(input: Any, inplace: bool = False) -> Any:
    """x * tanh(softplus(x))."""
    return _elementwise.mish(input, inplace)


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """log(1 + exp(beta * x)) / beta, linear where beta * x > threshold."""
    return _elementwise.softplus(input, beta, threshold)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    """x if x > 0 else negative_slope * x."""
    return _elementwise.leaky_relu(input, negative_slope, inplace)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:
    """x clamped to [min_val, max_val]."""
    return _elementwise.hardtanh(input, min_val, max_val, inplace)


def relu6(input: Any, inplace: bool = False) -> Any:
    """min(max(x, 0), 6)."""
    return _elementwise.relu6(input, inplace)


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Any:
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return sdk.softmax(input, dim)


def log_softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Any:
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return sdk.log_softmax(input, dim)


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    if tuple(input.shape) != tuple(target.shape):
        import warnings

        warnings.warn(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}). This will likely lead to incorrect results due to broadcasting.",
            stacklevel=2,
        )
    d = input - target
    return _reduce(d * d, reduction)


def _check_targets(input: Any, target: Any, fn: str) -> None:
    if input.ndim not in (1, 2):
        raise ValueError(f"{fn}: expected input of shape (N, C) or (C,), got {list(input.shape)}")
    if target.is_floating_point():
        raise TypeError(f"{fn}: class-index targets must be an integer tensor, got {target.dtype}")
    expect = tuple(input.shape[:1]) if input.ndim == 2 else ()
    if tuple(target.shape) != expect:
        raise ValueError(
            f"{fn}: target shape {list(target.shape)} does not match input shape "
            f"{list(input.shape)} (expected {list(expect)})"
        )


def nll_loss(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Any:
    """-input[n, target[n]] (weighted), over (N, C) log-probabilities and class indices."""
    _check_targets(input, target, "nll_loss")
    if input.ndim == 1:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    n_classes = input.shape[1]
    with sdk.no_grad():
        valid = target != ignore_index
        safe = target.masked_fill(valid.logical_not(), 0)
        t_np = sdk.testing._to_numpy(safe)
        if t_np.size and (t_np.min() < 0 or t_np.max() >= n_classes):
            raise IndexError(
                f"nll_loss: target {int(t_np.max() if t_np.max() >= n_classes else t_np.min())} is out of bounds for {n_classes} classes"
            )
        w = valid.to(input.dtype)
        if weight is not None:
            w = w * weight.index_select(0, safe)
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    loss = -(picked * w)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction)


def cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    """log_softmax over classes (dim 1, or 0 for 1-D input) + nll_loss; float targets are
    class probabilities."""
    dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, dim)
    if target.is_floating_point():  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise ValueError(
                f"cross_entropy: probability targets must have the input's shape {list(input.shape)}, got {list(target.shape)}"
            )
        if label_smoothing:
            n_classes = input.shape[dim]
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        lw = logp if weight is None else logp * (weight if dim == 0 else weight.unsqueeze(0))
        return _reduce(-(lw * target).sum(dim=dim), reduction)
    loss = nll_loss(logp, target, weight=weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return loss
    # Label smoothing mixes in the uniform distribution: eps/C * sum_c -logp_c.
    n_classes = input.shape[dim]
    with sdk.no_grad():
        tgt = target.unsqueeze(0) if input.ndim == 1 else target
        valid = (tgt != ignore_index).to(input.dtype)
    lp = logp.unsqueeze(0) if input.ndim == 1 else logp
    lw = lp if weight is None else lp * weight.unsqueeze(0)
    smooth = -(lw.sum(dim=1)) * valid
    if reduction == "mean":
        denom = (
            valid.sum()
            if weight is None
            else (weight.index_select(0, tgt.masked_fill(valid == 0, 0)) * valid).sum()
        )
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction)
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero each element with probability p and scale the rest by 1 / (1 - p) in training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0
    keep = (sdk.rand_like(input) >= p).to(input.dtype)
    return input * keep * (1.0 / (1.0 - p))


# ---- layers with fused kernels in the core (sdk_layer_norm, sdk_convolution) -------------------


def layer_norm(
    input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Any:
    """Normalize over the trailing dims `normalized_shape`: (x - mean) / sqrt(var + eps), then
    scale by weight and shift by bias (both shaped like normalized_shape, optional)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        raise sdk.InvalidArgumentError(
            f"layer_norm: normalized_shape {list(shape)} does not match the trailing dims of the "
            f"input of shape {list(input.shape)}"
        )
    out, mean, rstd = sdk._C.layer_norm(input, len(shape), weight, bias, float(eps))
    if needs_grad(input, weight, bias):
        record("layer_norm", (input, weight, bias), out, ndim=len(shape), eps=float(eps),
               mean=mean, rstd=rstd)  # fmt: skip
    return out


def _conv_args(name: str, n: int, input: Any, weight: Any, stride: Any, padding: Any,
               dilation: Any) -> tuple:  # fmt: skip
    """stride, padding and dilation as n-tuples; padding "valid"/"same" resolved."""

    def tup(v: Any, what: str) -> tuple:
        t = (v,) * n if isinstance(v, int) else tuple(v)
        if len(t) == 1 and n > 1:
            t = t * n
        if len(t) != n or not all(isinstance(x, int) for x in t):
            raise TypeError(f"{name}: {what} must be an int or {n} ints, got {v!r}")
        return t

    stride, dilation = tup(stride, "stride"), tup(dilation, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError(
                    f"{name}: padding='same' is not supported for strided convolutions"
                )
            total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            if any(t % 2 for t in total):  # asymmetric: pad one more at the end first
                extra = []
                for t in reversed(total):
                    extra += [0, t % 2]
                input = pad(input, extra)
            padding = tuple(t // 2 for t in total)
        else:
            raise ValueError(
                f"{name}: padding must be an int, a tuple, 'valid' or 'same', got {padding!r}"
            )
    return input, stride, tup(padding, "padding"), dilation


def _conv(name: str, n: int, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
          dilation: Any, groups: int) -> Any:  # fmt: skip
    input, stride, padding, dilation = _conv_args(name, n, input, weight, stride, padding, dilation)
    batched = input.ndim == n + 2
    if not batched and input.ndim == n + 1:
        input = input.unsqueeze(0)
    out = sdk._C.convolution(input, weight, bias, stride, padding, dilation, int(groups))
    if needs_grad(input, weight, bias):
        record("convolution", (input, weight, bias), out, stride=stride, padding=padding,
               dilation=dilation, groups=int(groups))  # fmt: skip
    return out if batched else out.squeeze(0)


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Any:  # fmt: skip
    """1-d cross-correlation of input (N, C_in, L) or (C_in, L) with weight (C_out, C_in / groups, k)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Any:  # fmt: skip
    """2-d cross-correlation of input (N, C_in, H, W) or (C_in, H, W) with weight
    (C_out, C_in / groups, kH, kW)."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def embedding(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Any:  # fmt: skip
    """Rows of weight (num_embeddings, dim) picked by the integer tensor input."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: max_norm, scale_grad_by_freq and sparse are not supported"
        )
    if input.dtype not in (sdk.int64, sdk.int32):
        raise TypeError(f"embedding: expected an int64 or int32 index tensor, got {input.dtype}")
    rows = sdk.index_select(weight, 0, input.reshape(-1))
    if padding_idx is not None:  # the padding row gets no gradient
        keep = (input.reshape(-1) != _wrap_index(padding_idx, weight.shape[0])).to(weight.dtype)
        rows = rows * keep.unsqueeze(1) + (rows * (1 - keep.unsqueeze(1))).detach()
    return rows.reshape(*input.shape, weight.shape[1])


def _wrap_index(i: int, n: int) -> int:
    if not -n <= i < n:
        raise IndexError(f"padding_idx {i} is out of range for {n} embeddings")
    return i % n


def pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
    """Pad (or, with negative values, crop) the last len(pad) // 2 dims: pad = (last_left,
    last_right, second_last_left, ...), filled with `value` (0). Only mode="constant"."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported (only 'constant')")
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"pad: padding of length {len(pad)} does not fit a {input.ndim}-d input")
    fill = 0 if value is None else value
    x = input
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0 or hi < 0:  # crop
            start, stop = max(-lo, 0), x.shape[d] - max(-hi, 0)
            if stop < start:
                raise ValueError(
                    f"pad: padding {pad} leaves no elements in dim {d} of {input.shape[d]}"
                )
            x = x.narrow(d, start, stop - start)

        parts = [_pad_block(x, d, lo, fill)] if lo > 0 else []
        parts.append(x)
        if hi > 0:
            parts.append(_pad_block(x, d, hi, fill))
        if len(parts) > 1:
            x = sdk.cat(parts, d)
    return input.clone() if x is input else x


def _pad_block(x: Any, d: int, n: int, fill: Any) -> Any:
    """A block of `fill` shaped like x with n entries along dim d."""
    shape = list(x.shape)
    shape[d] = n
    return sdk.full(shape, fill, dtype=x.dtype, device=x.device)


# ---- conv3d, conv_transpose2d (over conv2d), pairwise_distance, grid_sample -----------------


def _triple(v: Any, n: int, name: str, what: str) -> tuple:
    t = (v,) * n if isinstance(v, int) else tuple(v)
    if len(t) == 1:
        t = t * n
    if len(t) != n or not all(isinstance(x, int) for x in t):
        raise TypeError(f"{name}: {what} must be an int or {n} ints, got {v!r}")
    return t


def conv3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Any:  # fmt: skip
    """3-d cross-correlation of (N, C, D, H, W) or (C, D, H, W) input: a sum of conv2d over the
    kernel's depth, one output plane at a time."""
    if input.ndim not in (4, 5) or weight.ndim != 5:
        raise ValueError(f"conv3d: expected a 4-d or 5-d input and a 5-d weight, got shapes "
                         f"{list(input.shape)} and {list(weight.shape)}")  # fmt: skip
    s, p, d = (_triple(v, 3, "conv3d", w) for v, w in
               ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))  # fmt: skip
    if min(s) < 1 or min(d) < 1 or min(p) < 0:
        raise ValueError("conv3d: stride and dilation must be positive and padding non-negative")
    x = input if input.ndim == 5 else input.unsqueeze(0)
    if p[0]:
        x = pad(x, (0, 0, 0, 0, p[0], p[0]))
    kd = weight.shape[2]
    span = d[0] * (kd - 1) + 1
    if x.shape[2] < span:
        raise ValueError(f"conv3d: the padded input depth {x.shape[2]} is smaller than the "
                         f"dilated kernel depth {span}")  # fmt: skip
    planes = []
    for o in range((x.shape[2] - span) // s[0] + 1):
        acc = None
        for k in range(kd):
            part = conv2d(x.select(2, o * s[0] + k * d[0]), weight.select(2, k),
                          bias if k == 0 else None, s[1:], p[1:], d[1:], groups)  # fmt: skip
            acc = part if acc is None else acc + part
        planes.append(acc)
    out = sdk.stack(planes, 2)
    return out if input.ndim == 5 else out.squeeze(0)


def _spread(x: Any, dim: int, step: int) -> Any:
    """x with step - 1 zeros between neighbours along dim (no in-place writes: autograd-safe)."""
    if step == 1 or x.shape[dim] == 0:
        return x
    z = (
        sdk.zeros_like(x)
        .unsqueeze(dim + 1)
        .expand(*x.shape[: dim + 1], step - 1, *x.shape[dim + 1 :])
    )
    inter = sdk.cat([x.unsqueeze(dim + 1), z], dim + 1)
    shape = list(x.shape)
    shape[dim] *= step
    return inter.reshape(shape).narrow(dim, 0, (x.shape[dim] - 1) * step + 1)


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:  # fmt: skip
    """The transpose (gradient) of conv2d, weight (C_in, C_out / groups, kH, kW): conv2d of the
    stride-spread, padded input with the flipped, transposed weight."""
    name = "conv_transpose2d"
    if input.ndim not in (3, 4) or weight.ndim != 4:
        raise ValueError(f"{name}: expected a 3-d or 4-d input and a 4-d weight, got shapes "
                         f"{list(input.shape)} and {list(weight.shape)}")  # fmt: skip
    s, p, op, d = (_triple(v, 2, name, w) for v, w in ((stride, "stride"), (padding, "padding"),
                   (output_padding, "output_padding"), (dilation, "dilation")))  # fmt: skip
    x = input if input.ndim == 4 else input.unsqueeze(0)
    if groups < 1 or weight.shape[0] % groups or x.shape[1] != weight.shape[0]:
        raise ValueError(f"{name}: input has {x.shape[1]} channels, weight expects "
                         f"{weight.shape[0]} (divisible by groups={groups})")  # fmt: skip
    for i in range(2):
        if s[i] < 1 or d[i] < 1 or p[i] < 0 or op[i] < 0 or not (op[i] < s[i] or op[i] < d[i]):
            raise ValueError(f"{name}: bad stride {s}, padding {p}, output_padding {op} or "
                             f"dilation {d}")  # fmt: skip
    x = _spread(_spread(x, 2, s[0]), 3, s[1])
    edges = []
    for i in (1, 0):  # pad lists the last dim first
        edge = d[i] * (weight.shape[2 + i] - 1) - p[i]
        edges += [edge, edge + op[i]]
    cin, cout = weight.shape[0], weight.shape[1] * groups
    kh, kw = weight.shape[2], weight.shape[3]
    w = weight.reshape(groups, cin // groups, weight.shape[1], kh, kw).transpose(1, 2)
    w = w.reshape(cout, cin // groups, kh, kw).flip((2, 3))
    out = conv2d(pad(x, edges), w, bias, 1, 0, d, groups)
    return out if input.ndim == 4 else out.squeeze(0)


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Any:  # fmt: skip
    """The p-norm of x1 - x2 + eps over the last dim (inputs broadcast)."""
    diff = (x1 - x2 + eps).abs()
    if p == float("inf"):
        return diff.amax(-1, keepdim=keepdim)
    if p == 0:
        return diff.ne(0).to(diff.dtype).sum(-1, keepdim=keepdim)
    return (diff**p).sum(-1, keepdim=keepdim) ** (1.0 / p)


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


# ---- composed from the ops above (own modules to keep this file short) --------------------------

from ._loss_attention import *  # noqa: E402, F403
from ._loss_attention import __all__ as _loss_attention_all  # noqa: E402
from ._norm_pool import *  # noqa: E402, F403
from ._norm_pool import __all__ as _norm_pool_all  # noqa: E402

__all__ += _norm_pool_all + _loss_attention_all
