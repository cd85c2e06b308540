"""Backward formulas of the shape, view, indexing and joining ops; their rows are in
derivatives.DERIVATIVES. Same contract as derivatives.py."""

from __future__ import annotations

from typing import Any

import sdk
from sdk import _C
from sdk.autograd.derivatives_struct import _unb
from sdk.autograd.derivatives_util import _shape, _zeros

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
