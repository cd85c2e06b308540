"""nn.functional convolutions: conv1d/2d (fused kernels), conv3d and conv_transpose1d/2d
(composed from conv2d)."""

from __future__ import annotations

from typing import Any

import sdk
from sdk._ops_common import needs_grad, record

from .common import _triple
from .padding import pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose1d"]


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


def _single(v: Any, name: str, what: str) -> int:
    t = _triple(v, 1, name, what)
    return t[0]


def conv_transpose1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Any:  # fmt: skip
    """The transpose of conv1d, weight (C_in, C_out / groups, k): conv_transpose2d over a
    height of one."""
    name = "conv_transpose1d"
    if input.ndim not in (2, 3) or weight.ndim != 3:
        raise ValueError(f"{name}: expected a 2-d or 3-d input and a 3-d weight, got shapes "
                         f"{list(input.shape)} and {list(weight.shape)}")  # fmt: skip
    s, p, op, d = (_single(v, name, w) for v, w in ((stride, "stride"), (padding, "padding"),
                   (output_padding, "output_padding"), (dilation, "dilation")))  # fmt: skip
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, s), (0, p),
                           (0, op), groups, (1, d))  # fmt: skip
    return out.squeeze(-2)
