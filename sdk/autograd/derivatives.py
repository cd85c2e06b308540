"""The derivative table: one entry per differentiable op name, its backward formula and what it saves.

Find an op's derivative by its public (torch) name in ``DERIVATIVES`` at the bottom.

Each entry is ``D(fn, saves=..., result=...)``:

- ``fn(g, n)`` returns one gradient (or None) per entry of ``n.inputs``, in order.
  ``g`` is the gradient of the output (a list with None holes for multi-output ops),
  ``n`` is the graph node: ``n.inputs`` (the operands as recorded: tensors or Python
  scalars), ``n.attrs`` (the op's keyword arguments, normalized), ``n.result`` (see
  below) and ``n.needs(i)`` (does input i want a gradient).
- ``saves``: indices of the inputs whose values the formula reads. Their version
  counter is checked before the formula runs (in-place modification raises). Inputs
  not listed are only used for their shape and dtype.
- ``result``: ``True`` keeps the output's value (version checked too); ``"shapes"``
  keeps the output shapes of a multi-output op; an int keeps that (non-differentiable)
  output, e.g. the indices of ``max(dim)``.

Formulas run under ``no_grad`` (unless ``create_graph=True``, in which case they record
like any user code, which gives higher-order derivatives for free). They use public
sdk ops only, and every result is reduced to the input's shape and dtype with ``_unb``
where broadcasting or type promotion may have happened.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import sdk
from sdk import _C, _ops_elementwise
from sdk.autograd import derivatives_struct as _st
from sdk.autograd.derivatives_struct import _sum_to, _unb

# --------------------------------------------------------------------------- helpers


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape)


def _expand_back(g: Any, x: Any, dim: Any, keepdim: bool) -> Any:
    """Gradient of a reduction over `dim` broadcast back to x's shape."""
    shape = _shape(x)
    if dim is None:
        if not keepdim:
            g = g.reshape((1,) * len(shape))
    elif not keepdim:
        for d in sorted(dim):
            g = g.unsqueeze(d)
    return g.expand(shape)


def _norm_dims(dim: Any, ndim: int) -> Any:
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(d % ndim if ndim else 0 for d in dim)


def _reduced_count(x: Any, dim: Any) -> int:
    shape = _shape(x)
    if dim is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dim)


def _zeros(shape: Any, like: Any) -> Any:
    return sdk.zeros(tuple(shape), dtype=like.dtype)


def _mask_keep(g: Any, mask: Any) -> Any:
    """g where mask, else 0 (no NaN from inf * 0)."""
    return g.masked_fill(mask.logical_not(), 0)


def _red(n: Any) -> tuple[Any, bool]:
    """(dims as a tuple of non-negative ints or None, keepdim) of a reduction node."""
    a = n.attrs
    return _norm_dims(a.get("dim"), n.inputs[0].ndim), bool(a.get("keepdim", False))


# --------------------------------------------------------------------------- elementwise


def _add(g, n):
    a, b = n.inputs[0], n.inputs[1]
    alpha = n.attrs.get("alpha", 1)
    gb = None
    if n.needs(1):
        gb = g if alpha == 1 else g * alpha
    return _unb(g, a), _unb(gb, b)


def _sub(g, n):
    a, b = n.inputs[0], n.inputs[1]
    alpha = n.attrs.get("alpha", 1)
    gb = None
    if n.needs(1):
        gb = -g if alpha == 1 else g * (-alpha)
    return _unb(g, a), _unb(gb, b)


def _rsub(g, n):  # rsub(self, other, alpha) = other - alpha * self
    a, b = n.inputs[0], n.inputs[1]
    alpha = n.attrs.get("alpha", 1)
    return _unb(g * (-alpha), a), _unb(g, b)


def _mul(g, n):
    a, b = n.inputs[0], n.inputs[1]
    return (_unb(g * b, a) if n.needs(0) else None), (_unb(g * a, b) if n.needs(1) else None)


def _div(g, n):
    a, b = n.inputs[0], n.inputs[1]
    if n.attrs.get("rounding_mode") is not None:  # floor/trunc division: zero almost everywhere
        return _unb(g * 0, a), _unb(g * 0, b)
    ga = _unb(g / b, a) if n.needs(0) else None
    gb = _unb(-g * a / (b * b), b) if n.needs(1) else None
    return ga, gb


def _div_(g, n):  # in place: self now holds the result
    a, b = n.inputs[0], n.inputs[1]
    if n.attrs.get("rounding_mode") is not None:
        return _unb(g * 0, a), _unb(g * 0, b)
    ga = _unb(g / b, a) if n.needs(0) else None
    gb = _unb(-g * n.result / b, b) if n.needs(1) else None
    return ga, gb


def _mul_(g, n):
    a, b = n.inputs[0], n.inputs[1]
    old = n.attrs.get("old")  # self before the write, kept when `other` needs grad
    if n.needs(1) and old is None:
        raise RuntimeError(
            "autograd: in-place mul_ cannot differentiate with respect to `other` "
            "(self's old value is gone); use the out-of-place a * b"
        )
    gb = _unb(g * old, b) if n.needs(1) else None
    return (_unb(g * b, a) if n.needs(0) else None), gb


def _setitem_(g, n):  # t[idx] = value: t's gradient outside idx, value's from inside
    idx = n.attrs["idx"]
    gt = gv = None
    if n.needs(0):
        gt = g.clone()
        gt[idx] = 0
    if n.needs(1):
        gv = _unb(g[idx], n.inputs[1])
    return gt, gv


def _atan2(g, n):
    a, b = n.inputs[0], n.inputs[1]
    den = a * a + b * b
    ga = _unb(g * b / den, a) if n.needs(0) else None
    gb = _unb(-g * a / den, b) if n.needs(1) else None
    return ga, gb


def _remainder(g, n):  # a - b * floor(a / b): d/da = 1, d/db = -floor(a / b)
    a, b = n.inputs[0], n.inputs[1]
    ga = _unb(g, a) if n.needs(0) else None
    gb = _unb(-g * (a // b), b) if n.needs(1) else None
    return ga, gb


def _as_tensor(v: Any, like: Any) -> Any:
    """A Python number as a 0-dim tensor of like's dtype (formulas read operands as tensors)."""
    return v if hasattr(v, "shape") else sdk.full((), v, dtype=like.dtype)


def _fmod(g, n):  # a - b * trunc(a / b): d/da = 1, d/db = -trunc(a / b)
    a, b = n.inputs[0], n.inputs[1]
    ga = _unb(g, a) if n.needs(0) else None
    gb = _unb(-g * sdk.div(a, b, rounding_mode="trunc"), b) if n.needs(1) else None
    return ga, gb


def _hypot(g, n):
    a, b = n.inputs[0], n.inputs[1]
    r = n.result
    ga = _unb(g * a / r, a) if n.needs(0) else None
    gb = _unb(g * b / r, b) if n.needs(1) else None
    return ga, gb


def _copysign(g, n):  # |a| with b's sign: d/da = sign(a) * sign(result), 0 at a == 0
    a, b = n.inputs[0], n.inputs[1]
    ga = None
    if n.needs(0):
        ratio = n.result / a
        ga = _unb(g * ratio.masked_fill(a == 0, 0), a)
    return ga, (_unb(g * 0, b) if n.needs(1) else None)


def _logaddexp(g, n):
    a, b = _as_tensor(n.inputs[0], g), _as_tensor(n.inputs[1], g)
    ga = _unb(g * (a - n.result).exp(), n.inputs[0]) if n.needs(0) else None
    gb = _unb(g * (b - n.result).exp(), n.inputs[1]) if n.needs(1) else None
    return ga, gb


def _xlogy(g, n):  # d/da = log(b) (0 where a == 0 and b <= 0), d/db = a / b
    a, b = n.inputs[0], n.inputs[1]
    ga = gb = None
    if n.needs(0):
        ga = _unb(g * sdk.xlogy((a != 0).to(g.dtype), _as_tensor(b, g)), a)
    if n.needs(1):
        gb = _unb(g * a / b, b)
    return ga, gb


def _lerp(g, n):  # input + w * (end - input)
    a, b, w = n.inputs
    ga = _unb(g * (1 - w), a) if n.needs(0) else None
    gb = _unb(g * w, b) if n.needs(1) else None
    gw = _unb(g * (b - a), w) if n.needs(2) else None
    return ga, gb, gw


def _addcmul(g, n):
    _, t1, t2 = n.inputs
    v = n.attrs.get("value", 1)
    gs = _unb(g, n.inputs[0]) if n.needs(0) else None
    g1 = _unb(g * (t2 * v), t1) if n.needs(1) else None
    g2 = _unb(g * (t1 * v), t2) if n.needs(2) else None
    return gs, g1, g2


def _addcdiv(g, n):
    _, t1, t2 = n.inputs
    v = n.attrs.get("value", 1)
    gs = _unb(g, n.inputs[0]) if n.needs(0) else None
    g1 = _unb(g * v / t2, t1) if n.needs(1) else None
    g2 = _unb(-g * v * t1 / (t2 * t2), t2) if n.needs(2) else None
    return gs, g1, g2


def _softplus(g, n):  # sigmoid(beta * x) below the threshold, 1 above
    x = n.inputs[0]
    beta, threshold = n.attrs.get("beta", 1.0), n.attrs.get("threshold", 20.0)
    bx = x * beta
    return (sdk.where(bx > threshold, g, g * bx.sigmoid()),)


def _leaky_relu(g, n):
    x = n.inputs[0]
    return (sdk.where(x > 0, g, g * n.attrs.get("negative_slope", 0.01)),)


def _hardtanh(g, n):  # passes strictly inside (min_val, max_val), as torch
    x = n.inputs[0]
    inside = (x > n.attrs.get("min_val", -1.0)).logical_and(x < n.attrs.get("max_val", 1.0))
    return (_mask_keep(g, inside),)


def _silu(g, n):
    x = n.inputs[0]
    s = x.sigmoid()
    return (g * s * (1 + x * (1 - s)),)


def _mish(g, n):
    x = n.inputs[0]
    t = _ops_elementwise.softplus(x).tanh()
    return (g * (t + x * x.sigmoid() * (1 - t * t)),)


def _not_implemented(name: str) -> Callable:
    """A row whose backward refuses, naming the op: the forward still runs and records, as
    torch's does (floor_divide's result requires grad; its backward raises)."""

    def fn(g, n):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented")

    return fn


def _pow(g, n):
    a, b = n.inputs[0], n.inputs[1]
    ga = gb = None
    if n.needs(0):
        if not hasattr(b, "shape"):  # scalar exponent
            ga = g * 0 if b == 0 else g * b * a ** (b - 1)
        else:
            ga = g * b * a ** (b - 1)
            ga = ga.masked_fill(b == 0, 0)
        ga = _unb(ga, a)
    if n.needs(1):
        if not hasattr(a, "shape"):  # scalar base
            gb = (
                g * n.result * math.log(a)
                if a > 0
                else (g * n.result * math.log(a) if a else g * 0)
            )
        else:
            term = n.result * a.log()
            term = term.masked_fill((a == 0).logical_and(b >= 0), 0)
            gb = g * term
        gb = _unb(gb, b)
    return ga, gb


def _maximum_like(g, n, greater: bool):
    a, b = n.inputs[0], n.inputs[1]
    eq = a == b
    half = g.masked_fill(eq.logical_not(), 0) * 0.5
    win = (a > b) if greater else (a < b)
    ga = _unb(_mask_keep(g, win) + half, a) if n.needs(0) else None
    gb = _unb(_mask_keep(g, (a < b) if greater else (a > b)) + half, b) if n.needs(1) else None
    return ga, gb


def _where(g, n):
    cond, a, b = n.inputs
    ga = _unb(_mask_keep(g, cond), a) if n.needs(1) else None
    gb = _unb(g.masked_fill(cond, 0), b) if n.needs(2) else None
    return None, ga, gb


def _masked_fill(g, n):
    x, mask = n.inputs[0], n.inputs[1]
    gx = _unb(g.masked_fill(mask, 0), x)
    gv = None
    if len(n.inputs) > 2 and n.needs(2):
        gv = _unb(_mask_keep(g, mask).sum(), n.inputs[2])
    return (gx, None) + ((gv,) if len(n.inputs) > 2 else ())


def _clamp(g, n):
    x = n.inputs[0]
    lo = n.inputs[1] if len(n.inputs) > 1 else n.attrs.get("min")
    hi = n.inputs[2] if len(n.inputs) > 2 else n.attrs.get("max")
    keep = None
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        keep = (x <= hi) if keep is None else keep.logical_and(x <= hi)
    gx = g if keep is None else _mask_keep(g, keep)
    out = [_unb(gx, x)]
    if len(n.inputs) > 1:
        out.append(_unb(_mask_keep(g, x < lo), lo) if lo is not None and n.needs(1) else None)
    if len(n.inputs) > 2:
        out.append(_unb(_mask_keep(g, x > hi), hi) if hi is not None and n.needs(2) else None)
    return tuple(out)


def _clamp_(g, n):  # in place: only the result is left; inside the open interval passes
    r = n.result
    lo, hi = n.attrs.get("min"), n.attrs.get("max")
    keep = None
    if lo is not None:
        keep = r > lo
    if hi is not None:
        keep = (r < hi) if keep is None else keep.logical_and(r < hi)
    return ((g if keep is None else _mask_keep(g, keep)),)


def _elu(g, n):
    x = n.inputs[0]
    alpha = n.attrs.get("alpha", 1.0)
    scale = n.attrs.get("scale", 1.0)
    input_scale = n.attrs.get("input_scale", 1.0)
    neg = g * (alpha * scale * input_scale) * (x * input_scale).exp()
    pos = g * scale
    return (sdk.where(x > 0, pos, neg),)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gelu(g, n):
    x = n.inputs[0]
    if n.attrs.get("approximate", "none") == "tanh":
        x2 = x * x
        t = ((x + 0.044715 * x2 * x) * _SQRT_2_OVER_PI).tanh()
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x2)
        return (g * d,)
    cdf = 0.5 * (1 + (x * (1 / math.sqrt(2.0))).erf())
    pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
    return (g * (cdf + x * pdf),)


def _relu(g, n):
    return (_mask_keep(g, n.result > 0),)


# --------------------------------------------------------------------------- reductions


def _sum(g, n):
    dim, keepdim = _red(n)
    x = n.inputs[0]
    return (_unb(_expand_back(g, x, dim, keepdim), x),)


def _mean(g, n):
    dim, keepdim = _red(n)
    x = n.inputs[0]
    return (_unb(_expand_back(g, x, dim, keepdim) / _reduced_count(x, dim), x),)


def _prod(g, n):
    # Correct with zeros: a slice with one zero passes the product of the others to it;
    # a slice with two or more zeros has zero gradient everywhere.
    dim, keepdim = _red(n)
    x = n.inputs[0]
    dims = tuple(range(x.ndim)) if dim is None else dim
    ge = _expand_back(g, x, dim, keepdim)
    if not dims:
        return (ge,)
    shape = _shape(x)
    z = x == 0
    nonzero = x.masked_fill(z, 1)
    p1 = _prod_multi(nonzero, dims).expand(shape)
    nz = z.sum(dim=dims, keepdim=True).expand(shape)
    at_zero = p1.masked_fill(nz != 1, 0)
    elsewhere = (p1 / nonzero).masked_fill(nz != 0, 0)
    return (ge * sdk.where(z, at_zero, elsewhere),)


def _prod_multi(x, dims):
    for d in dims:
        x = x.prod(dim=d, keepdim=True)
    return x


def _extremum_all(g, n):
    """amax/amin/max()/min(): the gradient is shared evenly among tied extrema."""
    x = n.inputs[0]
    if n.attrs.get("dim") is None and "keepdim" not in n.attrs:
        dim, keepdim = None, False
    else:
        dim, keepdim = _red(n)
    r = _expand_back(n.result, x, dim, keepdim)
    mask = x == r
    count = mask.sum(dim=dim, keepdim=True) if dim is not None else mask.sum()
    ge = _expand_back(g, x, dim, keepdim)
    return (_mask_keep(ge, mask) / count.to(g.dtype),)


def _extremum(g, n):
    """max/min: with dim the output is (values, indices) and the gradient goes to the index."""
    x = n.inputs[0]
    if not isinstance(g, list):  # full reduction: one output
        return _extremum_all(g, n)
    gv = g[0]
    if gv is None:
        return (None,)
    dim = n.attrs["dim"]
    dim = dim[0] if isinstance(dim, tuple) else dim
    idx = n.result
    if not n.attrs.get("keepdim", False):
        gv = gv.unsqueeze(dim)
        idx = idx.unsqueeze(dim)
    out = _zeros(_shape(x), gv)
    out.scatter_add_(dim, idx, gv)
    return (out,)


def _var_std(g, n, std: bool):
    dim, keepdim = _red(n)
    x = n.inputs[0]
    corr = n.attrs.get("correction")
    if corr is None:
        corr = 1 if n.attrs.get("unbiased", True) else 0
    count = _reduced_count(x, dim) - corr
    centered = x - (x.mean(dim=dim, keepdim=True) if dim is not None else x.mean())
    ge = _expand_back(g, x, dim, keepdim)
    if not std:
        return (ge * centered * (2.0 / count),)
    r = _expand_back(n.result, x, dim, keepdim)
    out = ge * centered / (r * count)
    return (out.masked_fill(r == 0, 0),)


def _softmax(g, n):
    dim = n.attrs["dim"]
    r = n.result
    gr = g * r
    return (_unb(gr - r * gr.sum(dim=dim, keepdim=True), n.inputs[0]),)


def _log_softmax(g, n):
    dim = n.attrs["dim"]
    return (_unb(g - n.result.exp() * g.sum(dim=dim, keepdim=True), n.inputs[0]),)


# --------------------------------------------------------------------------- linear algebra


def _mm(g, n):
    a, b = n.inputs
    return (g.mm(b.t()) if n.needs(0) else None), (a.t().mm(g) if n.needs(1) else None)


def _addmm(g, n):
    bias, a, b = n.inputs[:3]
    beta, alpha = n.attrs.get("beta", 1), n.attrs.get("alpha", 1)
    gbias = _unb(g if beta == 1 else g * beta, bias) if n.needs(0) else None
    ga = gb = None
    if n.needs(1):
        ga = g.mm(b.t())
        ga = ga if alpha == 1 else ga * alpha
    if n.needs(2):
        gb = a.t().mm(g)
        gb = gb if alpha == 1 else gb * alpha
    return gbias, ga, gb


def _bmm(g, n):
    a, b = n.inputs
    ga = g.bmm(b.transpose(1, 2)) if n.needs(0) else None
    gb = a.transpose(1, 2).bmm(g) if n.needs(1) else None
    return ga, gb


def _mv(g, n):
    a, x = n.inputs
    ga = g.unsqueeze(1) * x.unsqueeze(0) if n.needs(0) else None
    gx = a.t().mv(g) if n.needs(1) else None
    return ga, gx


def _dot(g, n):
    a, b = n.inputs
    return (g * b if n.needs(0) else None), (g * a if n.needs(1) else None)


def _matmul(g, n):
    a, b = n.inputs
    if a.ndim == 1 and b.ndim == 1:
        return _dot(g, n)
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    g2 = g.unsqueeze(-2) if a.ndim == 1 else g
    g2 = g2.unsqueeze(-1) if b.ndim == 1 else g2
    ga = gb = None
    if n.needs(0):
        ga = _sum_to(sdk.matmul(g2, b2.transpose(-1, -2)), _shape(a2)).reshape(_shape(a))
    if n.needs(1):
        gb = _sum_to(sdk.matmul(a2.transpose(-1, -2), g2), _shape(b2)).reshape(_shape(b))
    return ga, gb


# --------------------------------------------------------------------------- shape and views


def _permute(g, n):
    dims = n.attrs["dims"]
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return (g.permute(tuple(inv)),)


def _reshape_back(g, n):
    return (g.reshape(_shape(n.inputs[0])),)


def _transpose(g, n):
    return (g.transpose(n.attrs["dim0"], n.attrs["dim1"]),)


def _placed(g, n, dim: int, start: int, stop: int, step: int, keep_dim: bool) -> Any:
    """Zeros of the input's shape with g written at start:stop:step of dim (index if not keep_dim)."""
    out = _zeros(_shape(n.inputs[0]), g)
    if not _C.is_grad_enabled():  # fast path: write through a view
        sl = slice(start, stop, step) if keep_dim else start
        out[(slice(None),) * dim + (sl,)] = g
        return out
    # create_graph: a recorded, differentiable scatter into a fresh tensor
    index = sdk.arange(start, stop, step)
    out.index_add_(dim, index, g if keep_dim else g.unsqueeze(dim))
    return out


def _narrow(g, n):
    a = n.attrs
    dim, start = a["dim"], a["start"]
    return (_placed(g, n, dim, start, start + a["length"], 1, True),)


def _select(g, n):
    a = n.attrs
    return (_placed(g, n, a["dim"], a["index"], a["index"] + 1, 1, False),)


def _slice(g, n):
    a = n.attrs
    step = a.get("step", 1) or 1
    size = n.inputs[0].shape[a["dim"]]
    start, stop, step = slice(a.get("start"), a.get("end"), step).indices(size)
    return (_placed(g, n, a["dim"], start, max(stop, start), step, True),)


def _index(g, n):
    """Advanced indexing x[indices]: scatter-add g back (repeated indices accumulate)."""
    x = n.inputs[0]
    indices = n.inputs[1:]
    if len(indices) == 1 and isinstance(indices[0], (tuple, list)):
        indices = tuple(indices[0])
    out = _zeros(_shape(x), g)
    out.index_put_(tuple(indices), g, accumulate=True)
    return (out,) + (None,) * (len(n.inputs) - 1)


def _index_select(g, n):
    x, dim, index = n.inputs[0], n.attrs["dim"], n.inputs[-1]
    out = _zeros(_shape(x), g)
    out.index_add_(dim, index, g)
    return (out,) + (None,) * (len(n.inputs) - 1)


def _gather(g, n):
    x, dim, index = n.inputs[0], n.attrs["dim"], n.inputs[-1]
    out = _zeros(_shape(x), g)
    out.scatter_add_(dim, index, g)
    return (out,) + (None,) * (len(n.inputs) - 1)


def _cat(g, n):
    dim = n.attrs.get("dim", 0)
    out, start = [], 0
    for x in n.inputs:
        size = x.shape[dim] if x.ndim else 0
        if x.ndim == 1 and x.shape[0] == 0:  # torch skips empty 1-D inputs of cat
            out.append(None)
            continue
        out.append(g.narrow(dim, start, size) if n.needs(len(out)) else None)
        start += size
    return tuple(out)


def _stack(g, n):
    dim = n.attrs.get("dim", 0)
    return tuple(g.select(dim, i) if n.needs(i) else None for i in range(len(n.inputs)))


def _join_pieces(g, n, stack: bool):
    """Backward of chunk/split/unbind: fill missing pieces with zeros and join."""
    dim = n.attrs.get("dim", 0)
    shapes = n.result
    pieces = [
        gi if gi is not None else sdk.zeros(s, dtype=n.inputs[0].dtype) for gi, s in zip(g, shapes)
    ]
    return ((sdk.stack(pieces, dim) if stack else sdk.cat(pieces, dim)),)


def _to(g, n):
    x = n.inputs[0]
    return ((g.to(x.dtype) if g.dtype != x.dtype else g),)


def _fill(g, n):
    rest = tuple(
        g.sum() if hasattr(v, "shape") and n.needs(i + 1) else None
        for i, v in enumerate(n.inputs[1:])
    )
    return (g * 0,) + rest


def _index_put_(g, n):
    """self[idx] = values (or += with accumulate): inputs are (self, *indices, values)."""
    idx = tuple(n.inputs[1:-1])
    values = n.inputs[-1]
    gself = g if n.attrs.get("accumulate") else g.index_put(idx, _zeros((), g))
    gv = _unb(g[idx], values) if n.needs(len(n.inputs) - 1) else None
    return (gself,) + (None,) * len(idx) + (gv,)


def _scatter_add_(g, n):
    dim = n.attrs["dim"]
    return g, None, (g.gather(dim, n.inputs[1]) if n.needs(2) else None)


def _index_add_(g, n):
    dim, alpha = n.attrs["dim"], n.attrs.get("alpha", 1)
    gs = None
    if n.needs(2):
        gs = g.index_select(dim, n.inputs[1])
        gs = _unb(gs if alpha == 1 else gs * alpha, n.inputs[2])
    return g, None, gs


def _copy_(g, n):
    return g * 0, _unb(g, n.inputs[1])


def _pass(g, n):
    return (g,)


def _none(g, n):
    return (None,) * len(n.inputs)


# --------------------------------------------------------------------------- the table


# ---- einsum


def _einsum_terms(equation: str, ndims: list) -> tuple:
    """Operand and output subscripts of an einsum with "..." spelled out in letters the
    equation does not use (right-aligned, as the ellipsis broadcasts) and the implicit output
    made explicit."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    used = set(eq)
    spare = [c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in used]
    max_ell = max((nd - len(t.replace("...", "")) for t, nd in zip(terms, ndims)), default=0)
    ell = "".join(spare[:max_ell])
    out = []
    for t, nd in zip(terms, ndims):
        k = nd - len(t.replace("...", ""))
        out.append(t.replace("...", ell[max_ell - k :]) if "..." in t else t)
    if arrow:
        res = rhs.replace("...", ell)
    else:
        letters = "".join(out)
        res = ell + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell)
        )
    return out, res


def _einsum(g, n):
    ins = n.inputs
    terms, res = _einsum_terms(n.attrs["equation"], [x.ndim for x in ins])
    grads = []
    for i, x in enumerate(ins):
        if not n.needs(i):
            grads.append(None)
            continue
        t = terms[i]
        if len(set(t)) != len(t):
            raise NotImplementedError(
                f"autograd: einsum '{n.attrs['equation']}': the gradient of an operand with a "
                "repeated subscript (a diagonal) is not supported"
            )
        others = [terms[j] for j in range(len(ins)) if j != i]
        avail = set(res).union(*others)
        target = "".join(c for c in t if c in avail)
        gi = sdk.einsum(",".join([res, *others]) + "->" + target, g,
                        *[ins[j] for j in range(len(ins)) if j != i])  # fmt: skip
        if target != t:  # subscripts only this operand had were summed: broadcast back
            for pos, c in enumerate(t):
                if c not in avail:
                    gi = gi.unsqueeze(pos)
            kept = tuple(s if c in avail else 1 for s, c in zip(_shape(x), t))
            gi = _sum_to(gi, kept).expand(_shape(x))
        grads.append(_unb(gi, x))
    return tuple(grads)


# ---- layers with fused backward kernels (sdk_layer_norm_backward, sdk_convolution_backward)


def _mask(n: Any) -> int:
    """output_mask of a fused backward: which of (input, weight, bias) want a gradient."""
    return sum(1 << i for i in range(3) if n.needs(i))


def _layer_norm(g, n):
    x, w, b = n.inputs
    a = n.attrs
    if not sdk.is_grad_enabled():
        return _C.layer_norm_backward(g, x, a["mean"], a["rstd"], a["ndim"], w, _mask(n))
    # create_graph: the same formula from differentiable ops, so it records
    dims = tuple(range(x.ndim - a["ndim"], x.ndim))
    lead = tuple(range(x.ndim - a["ndim"]))
    mean = x.mean(dims, keepdim=True)
    rstd = ((x - mean) ** 2).mean(dims, keepdim=True).add(a["eps"]).rsqrt()
    xh = (x - mean) * rstd
    dxh = g if w is None else g * w
    gx = None
    if n.needs(0):
        gx = rstd * (dxh - dxh.mean(dims, keepdim=True) - xh * (dxh * xh).mean(dims, keepdim=True))
    gw = (g * xh).sum(lead) if n.needs(1) and lead else (g * xh) if n.needs(1) else None
    gb = (g.sum(lead) if lead else g) if n.needs(2) else None
    return gx, gw, gb


def _convolution(g, n):
    if sdk.is_grad_enabled():
        raise NotImplementedError(
            "autograd: double backward (create_graph=True) through conv1d/conv2d is not supported"
        )
    x, w, _ = n.inputs
    a = n.attrs
    return _C.convolution_backward(
        g, x, w, a["stride"], a["padding"], a["dilation"], a["groups"], _mask(n)
    )


class D:
    """One derivative: formula, saved inputs, what of the output is kept (see module doc)."""

    __slots__ = ("fn", "saves", "result", "name", "op", "view")

    def __init__(self, fn: Callable, saves: tuple[int, ...] = (), result: Any = False) -> None:
        self.fn = fn
        self.saves = saves
        self.result = result
        self.name = ""  # set from the table key below
        self.op = ""
        self.view = False  # output shares the input's storage (set from VIEW_OPS)


_X = (0,)  # saves the first input
_XY = (0, 1)

DERIVATIVES: dict[str, D] = {
    # arithmetic (broadcasting: _unb sums the gradient back to each input's shape)
    "add": D(_add),
    "sub": D(_sub),
    "rsub": D(_rsub),
    "mul": D(_mul, saves=_XY),
    "div": D(_div, saves=_XY),
    "true_divide": D(_div, saves=_XY),
    "pow": D(_pow, saves=_XY, result=True),
    "neg": D(lambda g, n: (-g,)),
    "maximum": D(lambda g, n: _maximum_like(g, n, True), saves=_XY),
    "minimum": D(lambda g, n: _maximum_like(g, n, False), saves=_XY),
    "atan2": D(_atan2, saves=_XY),
    "remainder": D(_remainder, saves=_XY),
    "floor_divide": D(_not_implemented("floor_divide")),
    "fmod": D(_fmod, saves=_XY),
    "hypot": D(_hypot, saves=_XY, result=True),
    "copysign": D(_copysign, saves=(0,), result=True),
    "logaddexp": D(_logaddexp, saves=_XY, result=True),
    "xlogy": D(_xlogy, saves=_XY),
    "lerp": D(_lerp, saves=(0, 1, 2)),
    "addcmul": D(_addcmul, saves=(1, 2)),
    "addcdiv": D(_addcdiv, saves=(1, 2)),
    "setitem_": D(_setitem_),
    "where": D(_where, saves=(0,)),
    "masked_fill": D(_masked_fill, saves=(1,)),
    "clamp": D(_clamp, saves=(0, 1, 2)),
    "clip": D(_clamp, saves=(0, 1, 2)),
    # unary math
    "exp": D(lambda g, n: (g * n.result,), saves=_X, result=True),
    "log": D(lambda g, n: (g / n.inputs[0],), saves=_X),
    "sqrt": D(lambda g, n: (g / (2 * n.result),), result=True),
    "rsqrt": D(lambda g, n: (g * -0.5 * n.result * n.result * n.result,), result=True),
    "sin": D(lambda g, n: (g * n.inputs[0].cos(),), saves=_X),
    "cos": D(lambda g, n: (g * -n.inputs[0].sin(),), saves=_X),
    "tanh": D(lambda g, n: (g * (1 - n.result * n.result),), result=True),
    "sigmoid": D(lambda g, n: (g * n.result * (1 - n.result),), result=True),
    "relu": D(_relu, result=True),
    "elu": D(_elu, saves=_X),
    "gelu": D(_gelu, saves=_X),
    "abs": D(lambda g, n: (g * n.inputs[0].sign(),), saves=_X),
    "square": D(lambda g, n: (g * 2 * n.inputs[0],), saves=_X),
    "reciprocal": D(lambda g, n: (g * -(n.result * n.result),), result=True),
    "log1p": D(lambda g, n: (g / (n.inputs[0] + 1),), saves=_X),
    "expm1": D(lambda g, n: (g * (n.result + 1),), result=True),
    "erf": D(
        lambda g, n: (g * (2 / math.sqrt(math.pi)) * (-(n.inputs[0] * n.inputs[0])).exp(),),
        saves=_X,
    ),
    "sign": D(lambda g, n: (g * 0,)),
    "floor": D(lambda g, n: (g * 0,)),
    "ceil": D(lambda g, n: (g * 0,)),
    "round": D(lambda g, n: (g * 0,)),
    "trunc": D(lambda g, n: (g * 0,)),
    "frac": D(_pass),
    "tan": D(lambda g, n: (g * (1 + n.result * n.result),), result=True),
    "asin": D(lambda g, n: (g * (1 - n.inputs[0] * n.inputs[0]).rsqrt(),), saves=_X),
    "acos": D(lambda g, n: (-g * (1 - n.inputs[0] * n.inputs[0]).rsqrt(),), saves=_X),
    "atan": D(lambda g, n: (g / (1 + n.inputs[0] * n.inputs[0]),), saves=_X),
    "sinh": D(lambda g, n: (g * n.inputs[0].cosh(),), saves=_X),
    "cosh": D(lambda g, n: (g * n.inputs[0].sinh(),), saves=_X),
    "asinh": D(lambda g, n: (g * (n.inputs[0] * n.inputs[0] + 1).rsqrt(),), saves=_X),
    "acosh": D(lambda g, n: (g * (n.inputs[0] * n.inputs[0] - 1).rsqrt(),), saves=_X),
    "atanh": D(lambda g, n: (g / (1 - n.inputs[0] * n.inputs[0]),), saves=_X),
    "log2": D(lambda g, n: (g / (n.inputs[0] * math.log(2.0)),), saves=_X),
    "log10": D(lambda g, n: (g / (n.inputs[0] * math.log(10.0)),), saves=_X),
    "exp2": D(lambda g, n: (g * n.result * math.log(2.0),), result=True),
    "erfc": D(
        lambda g, n: (g * (-2 / math.sqrt(math.pi)) * (-(n.inputs[0] * n.inputs[0])).exp(),),
        saves=_X,
    ),
    "erfinv": D(
        lambda g, n: (g * (math.sqrt(math.pi) / 2) * (n.result * n.result).exp(),), result=True
    ),
    "silu": D(_silu, saves=_X),
    "mish": D(_mish, saves=_X),
    "softplus": D(_softplus, saves=_X),
    "leaky_relu": D(_leaky_relu, saves=_X),
    "hardtanh": D(_hardtanh, saves=_X),
    "nan_to_num": D(lambda g, n: (_mask_keep(g, n.inputs[0].isfinite()),), saves=_X),
    # reductions
    "sum": D(_sum),
    "mean": D(_mean),
    "prod": D(_prod, saves=_X),
    "amax": D(_extremum_all, saves=_X, result=True),
    "amin": D(_extremum_all, saves=_X, result=True),
    "max": D(_extremum, saves=_X, result=1),
    "min": D(_extremum, saves=_X, result=1),
    "var": D(lambda g, n: _var_std(g, n, False), saves=_X),
    "std": D(lambda g, n: _var_std(g, n, True), saves=_X, result=True),
    "softmax": D(_softmax, result=True),
    "log_softmax": D(_log_softmax, result=True),
    # linear algebra
    "mm": D(_mm, saves=_XY),
    "addmm": D(_addmm, saves=(1, 2)),
    "layer_norm": D(_layer_norm, saves=_XY),
    "einsum": D(_einsum, saves=tuple(range(32))),
    "convolution": D(_convolution, saves=_XY),
    "bmm": D(_bmm, saves=_XY),
    "matmul": D(_matmul, saves=_XY),
    "mv": D(_mv, saves=_XY),
    "dot": D(_dot, saves=_XY),
    # views and shape
    "view": D(_reshape_back),
    "reshape": D(_reshape_back),
    "flatten": D(_reshape_back),
    "squeeze": D(_reshape_back),
    "unsqueeze": D(_reshape_back),
    "view_as": D(lambda g, n: (g.reshape(_shape(n.inputs[0])), None)),
    "reshape_as": D(lambda g, n: (g.reshape(_shape(n.inputs[0])), None)),
    "transpose": D(_transpose),
    "swapaxes": D(_transpose),
    "t": D(lambda g, n: (g.t(),)),
    "permute": D(_permute),
    "expand": D(lambda g, n: (_unb(g, n.inputs[0]),)),
    "expand_as": D(lambda g, n: (_unb(g, n.inputs[0]), None)),
    "broadcast_to": D(lambda g, n: (_unb(g, n.inputs[0]),)),
    "contiguous": D(_pass),
    "clone": D(_pass),
    "alias": D(_pass),
    "to": D(_to),
    "type": D(_to),
    "float": D(_to),
    "double": D(_to),
    "half": D(_to),
    "bfloat16": D(_to),
    # slicing, joining, indexing
    "narrow": D(_narrow),
    "select": D(_select),
    "slice": D(_slice),
    "index": D(_index, saves=tuple(range(1, 9))),
    "index_select": D(_index_select, saves=(1, 2)),
    "gather": D(_gather, saves=(1, 2)),
    "cat": D(_cat),
    "concat": D(_cat),
    "concatenate": D(_cat),
    "stack": D(_stack),
    "chunk": D(lambda g, n: _join_pieces(g, n, False), result="shapes"),
    "split": D(lambda g, n: _join_pieces(g, n, False), result="shapes"),
    "split_with_sizes": D(lambda g, n: _join_pieces(g, n, False), result="shapes"),
    "unbind": D(lambda g, n: _join_pieces(g, n, True), result="shapes"),
    # in place (input 0 is self; it now holds the result)
    "add_": D(_add),
    "sub_": D(_sub),
    "mul_": D(_mul_, saves=(1,)),
    "div_": D(_div_, saves=(1,), result=True),
    "neg_": D(lambda g, n: (-g,)),
    "exp_": D(lambda g, n: (g * n.result,), result=True),
    "tanh_": D(lambda g, n: (g * (1 - n.result * n.result),), result=True),
    "sigmoid_": D(lambda g, n: (g * n.result * (1 - n.result),), result=True),
    "relu_": D(_relu, result=True),
    "clamp_": D(_clamp_, result=True),
    "masked_fill_": D(_masked_fill, saves=(1,)),
    "sqrt_": D(lambda g, n: (g / (2 * n.result),), result=True),
    "rsqrt_": D(lambda g, n: (g * -0.5 * n.result * n.result * n.result,), result=True),
    "reciprocal_": D(lambda g, n: (g * -(n.result * n.result),), result=True),
    "expm1_": D(lambda g, n: (g * (n.result + 1),), result=True),
    "sign_": D(lambda g, n: (g * 0,)),
    "floor_": D(lambda g, n: (g * 0,)),
    "ceil_": D(lambda g, n: (g * 0,)),
    "round_": D(lambda g, n: (g * 0,)),
    "index_put_": D(_index_put_, saves=tuple(range(1, 9))),
    "scatter_add_": D(_scatter_add_, saves=(1,)),
    "index_add_": D(_index_add_, saves=(1,)),
    "fill_": D(_fill),
    "zero_": D(_fill),
    "copy_": D(_copy_),
    # sorting, scans, scatter/index and reordering (formulas in derivatives_struct.py)
    "sort": D(_st.by_indices, result=1),
    "topk": D(_st.by_indices, result=1),
    "kthvalue": D(_st.by_indices, result=1),
    "median": D(_st.by_indices, result=1),
    "cummax": D(_st.by_indices, result=1),
    "cummin": D(_st.by_indices, result=1),
    "cumsum": D(_st.cumsum),
    "cumprod": D(_st.cumprod, saves=_X, result=True),
    "scatter": D(_st.scatter, saves=(1,)),
    "scatter_": D(_st.scatter, saves=(1,)),
    "scatter_reduce": D(_st.scatter_reduce, saves=(0, 1, 2), result=True),
    "index_copy": D(_st.index_copy, saves=(1,)),
    "index_copy_": D(_st.index_copy, saves=(1,)),
    "index_fill": D(_st.index_fill, saves=(1,)),
    "index_fill_": D(_st.index_fill, saves=(1,)),
    "masked_select": D(_st.masked_select, saves=(1,)),
    "masked_scatter": D(_st.masked_scatter, saves=(1,)),
    "masked_scatter_": D(_st.masked_scatter, saves=(1,)),
    "take": D(_st.take, saves=(1,)),
    "flip": D(_st.flip),
    "roll": D(_st.roll),
    "tril": D(_st.tril),
    "triu": D(_st.triu),
    "tril_": D(_st.tril),
    "triu_": D(_st.triu),
    "diagonal": D(_st.diagonal),
    "unfold": D(_st.unfold),
    "diag_embed": D(_st.diag_embed),
    "repeat_interleave": D(_st.repeat_interleave, saves=(1,)),
    "as_strided": D(_st.as_strided),
}

# Ops whose output is a view of input 0: autograd refuses in-place writes through such a
# view, and uses of a view after its base was modified in place (both would need the
# base's history rewritten, which this engine does not do).
VIEW_OPS = {
    "view", "reshape", "flatten", "squeeze", "unsqueeze", "view_as", "reshape_as", "transpose",
    "swapaxes", "t", "permute", "expand", "expand_as", "broadcast_to", "alias", "narrow",
    "select", "slice", "chunk", "split", "split_with_sizes", "unbind", "diagonal", "unfold",
    "as_strided",
}  # fmt: skip

for _name, _d in DERIVATIVES.items():
    _d.view = _name in VIEW_OPS
    _d.op = _name
    _d.name = "".join(p.capitalize() for p in _name.strip("_").split("_")) + "Backward0"
