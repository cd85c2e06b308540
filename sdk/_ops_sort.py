"""Public sorting functions (sort, argsort, topk, kthvalue, median) with autograd hooks, and
unique (built on sort)."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from sdk import _C
from sdk._dtype import bool_
from sdk._ops_common import (
    TensorBase,
    needs_grad,
    record,
    record_pair,
    tensor_arg,
    wrap_dim,
)
from sdk._ops_shape import cat

Tensor = Any

# torch.return_types-like results: tuples with .values and .indices.
sort_result = namedtuple("sort", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])
kthvalue_result = namedtuple("kthvalue", ["values", "indices"])
median_result = namedtuple("median", ["values", "indices"])


def _int(x: Any, op: str, arg: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        if hasattr(x, "__index__") and not isinstance(x, (bool, TensorBase)):
            return x.__index__()
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type(x).__name__}")
    return x


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """(values, indices) of input sorted along dim; NaN sorts above every number. The sort is
    always stable (equal values keep their order), whatever `stable` says."""
    tensor_arg(input, "sort")
    d = wrap_dim(dim, input.ndim, "sort")
    values, indices = _C.sort(input, d, bool(descending), bool(stable))
    return record_pair("sort", input, values, indices, sort_result, dim=d)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """The indices that sort input along dim (sort(...).indices)."""
    tensor_arg(input, "argsort")
    d = wrap_dim(dim, input.ndim, "argsort")
    return _C.sort(input, d, bool(descending), bool(stable))[1]


def msort(input: Tensor) -> Tensor:
    """input sorted along dim 0."""
    return sort(input, 0).values


def topk(
    input: Tensor, k: int, dim: int | None = None, largest: bool = True, sorted: bool = True
) -> Any:
    """(values, indices) of the k largest (or smallest) elements along dim (the last dim
    when None)."""
    tensor_arg(input, "topk")
    d = wrap_dim(-1 if dim is None else dim, input.ndim, "topk")
    values, indices = _C.topk(input, _int(k, "topk", "k"), d, bool(largest), bool(sorted))
    return record_pair("topk", input, values, indices, topk_result, dim=d)


def kthvalue(input: Tensor, k: int, dim: int | None = None, keepdim: bool = False) -> Any:
    """(values, indices) of the k-th smallest element (k counts from 1) along dim (the last
    dim when None)."""
    tensor_arg(input, "kthvalue")
    d = wrap_dim(-1 if dim is None else dim, input.ndim, "kthvalue")
    values, indices = _C.kthvalue(input, _int(k, "kthvalue", "k"), d, bool(keepdim))
    return record_pair(
        "kthvalue", input, values, indices, kthvalue_result, dim=d, keepdim=bool(keepdim)
    )


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median: of all elements (a 0-dim tensor) without dim, else (values,
    indices) along dim. NaN when there is a NaN (torch's median)."""
    tensor_arg(input, "median")
    if dim is None:
        if input.numel() == 0:
            return _C.full((), float("nan"), input.dtype)
        flat = _C.reshape(input, (-1,))
        values, indices = _C.median_dim(flat, 0, False)
        if needs_grad(input):
            record("median", (input,), (values, indices), dim=None, keepdim=False)
        return values
    d = wrap_dim(dim, input.ndim, "median")
    values, indices = _C.median_dim(input, d, bool(keepdim))
    return record_pair(
        "median", input, values, indices, median_result, dim=d, keepdim=bool(keepdim)
    )


def _flag(value: Any, op: str, arg: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{arg}' must be bool, not {type(value).__name__}")
    return value


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:  # fmt: skip
    """The distinct elements of input, ascending (sorted=False gives the same order); with
    return_inverse each element's position among them (input's shape), with return_counts
    how often each occurs. Not differentiable (as torch). NaNs are all distinct."""
    tensor_arg(input, "unique")
    _flag(sorted, "unique", "sorted")
    inverse_wanted = _flag(return_inverse, "unique", "return_inverse")
    counts_wanted = _flag(return_counts, "unique", "return_counts")
    if dim is not None:
        raise NotImplementedError("unique(): dim= (unique slices) is not supported; flatten first")
    flat = input.detach().reshape(-1)
    values, order = flat.sort()
    first = values.new_ones((min(flat.numel(), 1),), dtype=bool_)
    starts = cat((first, values[1:] != values[:-1])) if flat.numel() else first
    group = starts.cumsum(0) - 1  # which distinct value each sorted element is
    distinct = values.masked_select(starts)
    out = [distinct]
    if inverse_wanted:
        inverse = order.new_zeros((flat.numel(),)).scatter_(0, order, group)
        out.append(inverse.reshape(tuple(input.shape)))
    if counts_wanted:
        counts = order.new_zeros((distinct.numel(),))
        out.append(counts.scatter_add_(0, group, group.new_ones((flat.numel(),))))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:  # fmt: skip
    """input with each run of equal consecutive elements (or slices along dim) kept once;
    with return_inverse the run each element belongs to, with return_counts each run's
    length. Not differentiable (as torch)."""
    tensor_arg(input, "unique_consecutive")
    inverse_wanted = _flag(return_inverse, "unique_consecutive", "return_inverse")
    counts_wanted = _flag(return_counts, "unique_consecutive", "return_counts")
    x = input.detach()
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = wrap_dim(dim, x.ndim, "unique_consecutive")
    n = x.shape[d] if x.ndim else 1
    starts = x.new_ones((min(n, 1),), dtype=bool_)
    if n > 1:
        changed = x.narrow(d, 1, n - 1) != x.narrow(d, 0, n - 1)
        others = [i for i in range(changed.ndim) if i != d]
        starts = cat((starts, changed.any(others) if others else changed))
    group = starts.long().cumsum(0) - 1
    kept = starts.nonzero().reshape(-1)
    out = [x.index_select(d, kept)]
    if inverse_wanted:
        out.append(group.reshape(tuple(input.shape)) if dim is None else group)
    if counts_wanted:
        ends = cat((kept[1:], kept.new_full((min(kept.numel(), 1),), n)))
        out.append(ends - kept)
    return out[0] if len(out) == 1 else tuple(out)
