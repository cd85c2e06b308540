"""Public reductions (sum, mean, max with indices, var, softmax, ...) with autograd hooks."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from sdk import _C
from sdk._dtype import as_dtype, get_default_dtype
from sdk._ops_common import TensorBase, dtype_or_none, needs_grad, record, tensor_arg, wrap_dims
from sdk._ops_complex import reduce_complex
from sdk._ops_math import abs as _abs
from sdk._ops_math import eq, exp, log, maximum, minimum, sqrt, to_dtype
from sdk._ops_math import pow as _pow

Tensor = Any

# torch.return_types-like results: a tuple with .values and .indices.
max_result = namedtuple("max", ["values", "indices"])
min_result = namedtuple("min", ["values", "indices"])

# Codes of the C ABI's reduction table (SDK_REDUCE_OPS in sdk/c_api.h).
_SUM, _MEAN, _PROD, _AMAX, _AMIN, _ALL, _ANY, _SUMSQ = (
    _C.REDUCE_OPS[n] for n in ("sum", "mean", "prod", "amax", "amin", "all", "any", "sumsq")
)


_FLOAT32 = as_dtype("float32")


def _dims(input: Tensor, dim: Any, op: str) -> Any:
    tensor_arg(input, op)
    d = wrap_dims(dim, input.ndim, op)
    return None if d == () else d


def _reduce(code: int, op: str, input: Tensor, dim: Any, keepdim: bool, dtype: Any, out: Any):
    d = _dims(input, dim, op)
    if input.dtype.is_complex and code in (_SUM, _MEAN) and out is None:
        if dtype is not None and as_dtype(dtype) is not input.dtype:
            raise TypeError(f"{op}(): dtype= is not supported for {input.dtype.name} input")
        return reduce_complex(code, op, input, d, bool(keepdim))
    if out is not None:
        if needs_grad(input):
            raise RuntimeError(f"{op}(): out= does not support automatic differentiation")
        return _C.reduce(code, input, d, keepdim, dtype_or_none(dtype), out)
    r = _C.reduce(code, input, d, keepdim, dtype_or_none(dtype))
    if needs_grad(input):
        record(op, (input,), r, dim=d, keepdim=bool(keepdim))
    return r


def sum(
    input: Tensor,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """Sum over dim (an int, a tuple, or None for all dims)."""
    return _reduce(_SUM, "sum", input, dim, keepdim, dtype, out)


def mean(
    input: Tensor,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """Mean over dim (floating input, or give dtype)."""
    return _reduce(_MEAN, "mean", input, dim, keepdim, dtype, out)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Product over dim."""
    return _reduce(_PROD, "prod", input, dim, keepdim, dtype, None)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """Maximum values over dim (all dims by default)."""
    return _reduce(_AMAX, "amax", input, dim, keepdim, None, None)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """Minimum values over dim (all dims by default)."""
    return _reduce(_AMIN, "amin", input, dim, keepdim, None, None)


def _uint8_like(input: Any, r: Tensor) -> Tensor:
    """torch's all/any keep uint8 for uint8 inputs (bool for every other dtype)."""
    if getattr(input, "dtype", None) is not None and input.dtype.name == "uint8":
        return r.to(input.dtype)
    return r


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """True where every element over dim is nonzero."""
    r = _C.reduce(_ALL, input, _dims(input, dim, "all"), keepdim, None)
    return _uint8_like(input, r)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """True where some element over dim is nonzero."""
    r = _C.reduce(_ANY, input, _dims(input, dim, "any"), keepdim, None)
    return _uint8_like(input, r)


def _extremum(op: str, input: Tensor, dim: Any, keepdim: bool, other: Any) -> Any:
    tensor_arg(input, op)
    if isinstance(dim, TensorBase) or other is not None:
        return (maximum if op == "max" else minimum)(input, dim if other is None else other)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        r = _C.reduce(_AMAX if op == "max" else _AMIN, input, None, False, None)
        if needs_grad(input):
            record("amax" if op == "max" else "amin", (input,), r, dim=None, keepdim=False)
        return r
    d = wrap_dims(dim, input.ndim, op)[0]
    values, indices = _C.extremum_dim(input, d, keepdim, op == "min")
    if needs_grad(input):
        record(op, (input,), (values, indices), dim=d, keepdim=bool(keepdim))
    return (max_result if op == "max" else min_result)(values, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False, *, other: Any = None) -> Any:
    """max(input): the largest value; max(input, dim): (values, indices); max(a, b): maximum."""
    return _extremum("max", input, dim, keepdim, other)


def min(input: Tensor, dim: Any = None, keepdim: bool = False, *, other: Any = None) -> Any:
    """min(input): the smallest value; min(input, dim): (values, indices); min(a, b): minimum."""
    return _extremum("min", input, dim, keepdim, other)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the largest value (of the flattened input when dim is None)."""
    return _C.arg_extremum(input, False, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the smallest value (of the flattened input when dim is None)."""
    return _C.arg_extremum(input, True, dim, keepdim)


def _var_std(
    op: str, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any
) -> Tensor:
    if isinstance(dim, bool):  # var(input, unbiased) legacy form
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise TypeError(f"{op}(): give either unbiased or correction, not both")
    d = _dims(input, dim, op)
    r = _C.var_std(input, d, correction, keepdim, op == "std")
    if needs_grad(input):
        record(op, (input,), r, dim=d, correction=correction, keepdim=bool(keepdim))
    return r


def var(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """Variance over dim with Bessel's correction by default (correction=1)."""
    return _var_std("var", input, dim, unbiased, keepdim, correction)


def std(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """Standard deviation over dim (correction=1 by default)."""
    return _var_std("std", input, dim, unbiased, keepdim, correction)


def _softmax(op: str, input: Tensor, dim: Any, dtype: Any) -> Tensor:
    tensor_arg(input, op)
    if dim is None:
        raise TypeError(f"{op}() missing required argument 'dim'")
    d = wrap_dims(dim, input.ndim, op)[0]
    if dtype is not None:
        input = to_dtype(input, dtype_or_none(dtype))
    r = _C.softmax(input, d, op == "log_softmax")
    if needs_grad(input):
        record(op, (input,), r, dim=d)
    return r


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim."""
    return _softmax("softmax", input, dim, dtype)


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """log(softmax(x)) along dim, computed stably."""
    return _softmax("log_softmax", input, dim, dtype)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over dim, computed stably (composite: differentiable)."""
    if not input.dtype.is_floating_point:  # as torch: integers and bools give floats
        input = input.to(get_default_dtype())
    if input.numel() == 0:  # no max to subtract; sums of nothing give log(0) = -inf
        return log(sum(exp(input), dim, keepdim=keepdim))
    m = amax(input, dim, keepdim=True).detach()
    m = m.masked_fill(m.abs() == float("inf"), 0)
    r = log(sum(exp(input - m), dim, keepdim=True)) + m
    return r if keepdim else r.squeeze(wrap_dims(dim, input.ndim, "logsumexp"))


# ------------------------------------------------------------------------------ comparisons, norms


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and elements."""
    tensor_arg(input, "equal")
    tensor_arg(other, "equal", "other")
    return tuple(input.shape) == tuple(other.shape) and bool(all(eq(input, other)))


def norm(
    input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    """Vector p-norm over dim (all elements by default); 'fro' is the 2-norm."""
    tensor_arg(input, "norm")
    x = input if dtype is None else input.to(dtype)
    if not x.dtype.is_floating_point:
        raise TypeError(f"norm(): expected a floating point tensor, got {x.dtype}")
    if p in ("fro", 2, 2.0):
        # 16-bit floats square and add in float32 and round once, at the end, as torch's
        narrow = x.dtype.itemsize == 2
        if needs_grad(x):  # through the ops autograd knows
            w = to_dtype(x, _FLOAT32) if narrow else x
            n = sqrt(sum(w * w, dim, keepdim=keepdim))
        else:  # one pass, no x * x tensor (at 16M elements the copy cost 3.6x the reduction)
            n = sqrt(
                _C.reduce(_SUMSQ, x, _dims(x, dim, "norm"), keepdim, _FLOAT32 if narrow else None)
            )
        return to_dtype(n, x.dtype) if narrow else n
    a = _abs(x)
    if p == float("inf"):
        return amax(a, dim if dim is not None else (), keepdim=keepdim)
    if p == -float("inf"):
        return amin(a, dim if dim is not None else (), keepdim=keepdim)
    if p == 1:
        return sum(a, dim, keepdim=keepdim)
    if p == 0:
        return sum((a != 0).to(x.dtype), dim, keepdim=keepdim)
    if isinstance(p, str):
        raise _C.InvalidArgumentError(f"norm(): unsupported norm type {p!r} (vector norms only)")
    return _pow(sum(_pow(a, p), dim, keepdim=keepdim), 1.0 / p)


def var_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple:
    """(var, mean) over dim, as var() and mean() give them."""
    x = tensor_arg(input, "var_mean", "input")
    return var(x, dim, unbiased, keepdim, correction=correction), mean(x, dim, keepdim=keepdim)


def std_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple:
    """(std, mean) over dim, as std() and mean() give them."""
    x = tensor_arg(input, "std_mean", "input")
    return std(x, dim, unbiased, keepdim, correction=correction), mean(x, dim, keepdim=keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of non-zero elements (over dim, or all), as int64."""
    x = tensor_arg(input, "count_nonzero", "input")
    return sum(x.ne(0), dim)
