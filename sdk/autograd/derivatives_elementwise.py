"""Backward formulas of the elementwise ops (arithmetic, comparisons' masks, activations);
their rows are in derivatives.DERIVATIVES. Same contract as derivatives.py."""

from __future__ import annotations

import math
from typing import Any, Callable

import sdk
from sdk import _ops_elementwise
from sdk._ops_special import i1  # noqa: F401  (i0's derivative, in derivatives.py)
from sdk.autograd.derivatives_struct import _unb
from sdk.autograd.derivatives_util import _mask_keep

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
