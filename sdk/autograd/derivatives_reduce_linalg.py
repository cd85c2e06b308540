"""Backward formulas of the reductions, softmax, linear algebra, einsum and the layers with
fused backward kernels; their rows are in derivatives.DERIVATIVES. Same contract as
derivatives.py."""

from __future__ import annotations

from typing import Any

import sdk
from sdk import _C
from sdk.autograd.derivatives_struct import _sum_to, _unb
from sdk.autograd.derivatives_util import (
    _expand_back,
    _mask_keep,
    _red,
    _reduced_count,
    _shape,
    _zeros,
)

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
