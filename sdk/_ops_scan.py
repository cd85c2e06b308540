"""Public scan functions (cumsum, cumprod, their in-place forms, cummax, cummin) with autograd
hooks: the core's scan family (core/src/scan.cpp)."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from sdk import _C
from sdk._ops_common import (
    check_inplace,
    dtype_or_none,
    needs_grad,
    record,
    record_pair,
    tensor_arg,
    wrap_dim,
    write_inplace,
)

Tensor = Any

# torch.return_types-like results: tuples with .values and .indices.
cummax_result = namedtuple("cummax", ["values", "indices"])
cummin_result = namedtuple("cummin", ["values", "indices"])


def _scan(op: str, input: Tensor, dim: int, dtype: Any, out: Any) -> Tensor:
    tensor_arg(input, op)
    d = wrap_dim(dim, input.ndim, op)
    if out is not None:
        if needs_grad(input):
            raise RuntimeError(f"{op}(): out= does not support automatic differentiation")
        return getattr(_C, op)(input, d, dtype_or_none(dtype), out)
    r = getattr(_C, op)(input, d, dtype_or_none(dtype))
    if needs_grad(input):
        record(op, (input,), r, dim=d)
    return r


def cumsum(input: Tensor, dim: int, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """Running sum along dim; integer and bool inputs give int64 unless dtype is given."""
    return _scan("cumsum", input, dim, dtype, out)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None, out: Tensor | None = None) -> Tensor:
    """Running product along dim; integer and bool inputs give int64 unless dtype is given."""
    return _scan("cumprod", input, dim, dtype, out)


def _scan_(op: str, self: Tensor, dim: int, dtype: Any) -> Tensor:
    tensor_arg(self, op + "_")
    d = wrap_dim(dim, self.ndim, op + "_")

    def write() -> Any:
        return getattr(_C, op)(self, d, dtype_or_none(dtype), self)

    if not needs_grad(self):
        return write()
    check_inplace(self)
    return write_inplace(op + "_", self, (), write, dim=d)


def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place cumsum (the result is cast back to self's dtype)."""
    return _scan_("cumsum", self, dim, dtype)


def cumprod_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place cumprod (the result is cast back to self's dtype)."""
    return _scan_("cumprod", self, dim, dtype)


def _cum_extremum(op: str, input: Tensor, dim: int, kind: Any) -> Any:
    tensor_arg(input, op)
    d = wrap_dim(dim, input.ndim, op)
    values, indices = getattr(_C, op)(input, d)
    return record_pair(op, input, values, indices, kind, dim=d)


def cummax(input: Tensor, dim: int) -> Any:
    """(values, indices) of the running max along dim (the last index of equal values)."""
    return _cum_extremum("cummax", input, dim, cummax_result)


def cummin(input: Tensor, dim: int) -> Any:
    """(values, indices) of the running min along dim (the last index of equal values)."""
    return _cum_extremum("cummin", input, dim, cummin_result)
