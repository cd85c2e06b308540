"""Helpers the backward formulas share: shapes, reduced dims, masks (see derivatives.py)."""

from __future__ import annotations

import math
from typing import Any

import sdk

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
