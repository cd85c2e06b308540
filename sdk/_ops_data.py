"""Data and counting functions (bucketize, searchsorted, histc, bincount, logspace, mode,
scalar_tensor) and the integer shifts (bitwise_left_shift, bitwise_right_shift), composed from
the ops below them, as sdk/ops_data.h and sdk/ops_bits.h have them."""

from __future__ import annotations

import builtins
import functools
import math
from collections import namedtuple
from typing import Any

from sdk import _C
from sdk._dtype import bool_, float32, float64, get_default_dtype, int8, int16, int32, int64, uint8
from sdk._interop import tensor as _tensor_from_data
from sdk._ops_common import TensorBase, tensor_arg, wrap_dim
from sdk._ops_creation import arange, full, linspace, zeros
from sdk._ops_math import floor_divide, ge, logical_and, lt, mul, where
from sdk._ops_scatter import take
from sdk._ops_shape import broadcast_tensors, cat, stack

Tensor = Any

mode_result = namedtuple("mode", ["values", "indices"])

# Values compared against a sorted sequence per chunk: the comparison is (chunk, M) booleans.
_COMPARE_CHUNK = 1 << 22


def _error(message: str) -> _C.InvalidArgumentError:
    return _C.InvalidArgumentError(message)


def _count_below(seq: Tensor, values: Tensor, right: bool) -> Tensor:
    """For 1-d sorted `seq` and any `values`: how many of seq are < value (<= when right)."""
    flat = values.reshape(-1)
    step = max(1, _COMPARE_CHUNK // max(1, seq.numel()))
    parts = []
    for start in range(0, max(flat.numel(), 1), step):
        chunk = flat[start : start + step].unsqueeze(-1)
        hits = seq.le(chunk) if right else seq.lt(chunk)
        parts.append(hits.sum(-1))
    counts = cat(parts) if len(parts) > 1 else parts[0]
    return counts[: flat.numel()].reshape(values.shape)


def bucketize(input: Tensor, boundaries: Tensor, *, out_int32: bool = False, right: bool = False):
    """The bucket of each input value among 1-d ascending `boundaries`: i with
    boundaries[i-1] < x <= boundaries[i] (right=False) or boundaries[i-1] <= x < boundaries[i]."""
    boundaries = tensor_arg(boundaries, "bucketize", "boundaries")
    if boundaries.dim() != 1:
        raise _error(
            f"bucketize: boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )
    scalar = not isinstance(input, TensorBase)
    values = full((), input, dtype=boundaries.dtype) if scalar else input
    out = _count_below(boundaries.detach(), values.detach(), right)
    return out.to(int32 if out_int32 else int64)


def searchsorted(
    sorted_sequence: Tensor,
    input: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
):
    """Insertion indices of input into sorted_sequence along its last dim (leading dims match
    input's, or sorted_sequence is 1-d); side="right" is right=True."""
    seq = tensor_arg(sorted_sequence, "searchsorted", "sorted_sequence").detach()
    if side is not None:
        if side not in ("left", "right"):
            raise _error(f"searchsorted: side can only be 'left' or 'right' but got {side!r}")
        if right and side == "left":
            raise _error("searchsorted: side and right can't be set to opposites, got side of left "
                         "while right was True")  # fmt: skip
        right = side == "right"
    if sorter is not None:
        seq = seq.gather(-1, tensor_arg(sorter, "searchsorted", "sorter").to(int64))
    scalar = not isinstance(input, TensorBase)
    values = full((), input, dtype=seq.dtype) if scalar else input.detach()
    if seq.dim() == 1:
        out = _count_below(seq, values, right)
    else:
        if scalar or values.shape[:-1] != seq.shape[:-1]:
            raise _error(
                "searchsorted: boundaries tensor should be 1 dimension or the first N-1 dimensions "
                f"of boundaries tensor and input value tensor must match, but we got boundaries "
                f"tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
            )
        rows = seq.reshape(-1, seq.shape[-1])
        vals = values.reshape(-1, values.shape[-1])
        out = stack([_count_below(rows[i], vals[i], right) for i in range(rows.shape[0])])
        out = out.reshape(values.shape)
    return out.to(int32 if out_int32 else int64)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0):  # noqa: A002
    """Counts of input in `bins` equal bins over [min, max] (the data's range when min == max);
    values outside are ignored. Float inputs; the result has the input's dtype."""
    x = tensor_arg(input, "histc", "input").detach()
    if not x.is_floating_point():
        raise _C.InvalidArgumentError(f"\"histogram_cpu\" not implemented for '{x.dtype}'")
    if bins <= 0:
        raise _error(f"histc: bins must be > 0, but got {bins}")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise _error(f"histc: max must be larger than min, got min {lo} and max {hi}")
    if lo == hi and x.numel() > 0:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    flat = x.reshape(-1).to(float64)
    inside = flat[flat.ge(lo).logical_and(flat.le(hi))]
    index = ((inside - lo) * (bins / (hi - lo))).floor().to(int64).clamp(0, bins - 1)
    counts = zeros(bins, dtype=float64, device=x.device)
    counts = counts.index_add(0, index, full(index.shape, 1.0, dtype=float64, device=x.device))
    return counts.to(x.dtype)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0):
    """Occurrences of each value 0..max of a 1-d non-negative integer tensor (at least minlength
    bins); with weights, their sums (float32 weights give float32, others float64)."""
    x = tensor_arg(input, "bincount", "input")
    bad = "bincount only supports 1-d non-negative integral inputs."
    if x.dim() != 1 or x.is_floating_point() or x.dtype.is_complex:
        raise _error(bad)
    if minlength < 0:
        raise _error("bincount: minlength should be >= 0")
    if x.numel() and int(x.min()) < 0:
        raise _error(bad)
    n = builtins.max(int(x.max()) + 1 if x.numel() else 0, minlength)
    index = x.to(int64)
    if weights is None:
        ones = full(x.shape, 1, dtype=int64, device=x.device)
        return zeros(n, dtype=int64, device=x.device).index_add(0, index, ones)
    w = tensor_arg(weights, "bincount", "weights")
    if w.shape != x.shape:
        raise _error("bincount: weights should be 1-d and have the same length as input")
    dtype = float32 if w.dtype == float32 else float64
    return zeros(n, dtype=dtype, device=x.device).index_add(0, index, w.to(dtype))


def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **kwargs: Any,
):
    """`steps` values base ** linspace(start, end, steps), computed in float64."""
    exponents = linspace(float(start), float(end), steps, dtype=float64, device=device)
    out = (exponents * math.log(base)).exp() if base > 0 else float(base) ** exponents
    out = out.to(dtype if dtype is not None else _default_float())
    if requires_grad:
        out.requires_grad_(True)
    return out


def _default_float():
    return get_default_dtype()


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """(values, indices) of the most frequent value along dim: the smallest of equally frequent
    ones, and the last index where it occurs."""
    x = tensor_arg(input, "mode", "input")
    if x.dim() == 0:
        return mode_result(x.clone(), zeros((), dtype=int64, device=x.device))
    d = wrap_dim(dim, x.dim(), "mode")
    moved = x.detach().movedim(d, -1)
    if moved.shape[-1] == 0:
        raise _error(f"mode(): Expected reduction dim {d} to have non-zero size.")
    ordered = moved.sort(-1).values
    # count of each sorted value in its row; the first maximum is the smallest frequent value
    counts = ordered.unsqueeze(-1).eq(ordered.unsqueeze(-2)).sum(-1)
    pick = counts.argmax(-1, keepdim=True)
    values = ordered.gather(-1, pick)
    positions = arange(moved.shape[-1], device=x.device).expand(moved.shape)
    last = where(moved.eq(values), positions, -1).amax(-1, keepdim=True)
    values, last = values.squeeze(-1), last.squeeze(-1)
    if keepdim:
        values, last = values.unsqueeze(d), last.unsqueeze(d)
    return mode_result(values, last.to(int64))


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, **kwargs: Any):
    """A 0-d tensor holding s (the default float dtype unless dtype is given)."""
    return full((), s, dtype=dtype if dtype is not None else _default_float(), device=device)


# ---- integer shifts (torch's bitwise_left_shift / bitwise_right_shift) ----------------------
_SHIFT_DTYPES = (uint8, int8, int16, int32, int64)


def _shift_operands(input: Any, other: Any, name: str) -> tuple[Tensor, Tensor]:
    """input and the shift amounts, broadcast, in their common integer dtype (a Python int
    takes input's dtype, as a wrapped number does in torch)."""
    a = tensor_arg(input, name, "input")
    if isinstance(other, TensorBase):
        b = other
    elif isinstance(other, int) and not isinstance(other, bool):
        b = full((), other, dtype=a.dtype)
    else:
        raise TypeError(f"{name}(): the shift amount must be an integer or an integer tensor")
    if a.dtype not in _SHIFT_DTYPES or b.dtype not in _SHIFT_DTYPES:
        raise TypeError(
            f"{name}(): only integer tensors are supported, got {a.dtype} and {b.dtype}"
        )
    t = _C.promote_types(a.dtype, b.dtype)
    a, b = broadcast_tensors(a.to(t), b.to(t))
    return a, b


def shift_base(value: Any, amounts: Tensor) -> Tensor:
    """The Python int of `value << tensor` / `value >> tensor` as a 0-d tensor of the amounts'
    dtype (a wrapped number, as in torch)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"unsupported operand type(s) for a shift: '{type(value).__name__}' and 'Tensor'"
        )
    return full((), value, dtype=amounts.dtype)


def bitwise_left_shift(input: Tensor, other: Any) -> Tensor:
    """input << other elementwise in the promoted integer dtype, wrapping as torch: a shift
    below 0 or of the bit width or more gives 0."""
    a, b = _shift_operands(input, other, "bitwise_left_shift")
    bits = a.dtype.itemsize * 8
    ok = logical_and(ge(b, 0), lt(b, bits))
    factor = take(_powers(a.dtype), where(ok, b, 0).to(int64))
    return where(ok, mul(a, factor), 0).to(a.dtype)


def bitwise_right_shift(input: Tensor, other: Any) -> Tensor:
    """input >> other elementwise in the promoted integer dtype: arithmetic for signed dtypes
    (rounds toward -inf); a shift below 0 or of the bit width or more gives the sign (-1 or
    0) of a signed value and 0 of an unsigned one."""
    a, b = _shift_operands(input, other, "bitwise_right_shift")
    bits = a.dtype.itemsize * 8
    unsigned = a.dtype is uint8
    ok = logical_and(ge(b, 0), lt(b, bits))
    s = where(ok, b, 0 if unsigned else bits - 1).to(int64)
    # two halves, so that each divisor is a positive power of two below 2**(bits-1)
    high = floor_divide(s, 2)
    low = s - high
    powers = _powers(a.dtype)
    out = floor_divide(floor_divide(a, take(powers, high)), take(powers, low))
    return where(ok, out, 0).to(a.dtype) if unsigned else out


@functools.cache
def _powers(dtype: Any) -> Tensor:
    """2**k for k in [0, bits) in `dtype`, wrapped (the top one is the minimum); one tensor
    per dtype, read only by take()."""
    bits = dtype.itemsize * 8
    signed = dtype is not uint8
    vals = [(1 << k) - ((1 << bits) if signed and k == bits - 1 else 0) for k in range(bits)]
    return _tensor_from_data(vals, dtype=dtype)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:  # fmt: skip
    """Whether each of elements occurs in test_elements (either may be a number), as bools
    of elements' shape; NaN occurs nowhere."""
    if not isinstance(elements, TensorBase) and not isinstance(test_elements, TensorBase):
        raise TypeError("isin(): one of 'elements' and 'test_elements' must be a Tensor")
    e = elements if isinstance(elements, TensorBase) else _tensor_from_data(elements)
    t = test_elements if isinstance(test_elements, TensorBase) else _tensor_from_data(
        test_elements)  # fmt: skip
    common = _C.promote_types(e.dtype, t.dtype)
    flat = t.detach().reshape(-1).to(common)
    values = e.detach().reshape(-1).to(common)
    if flat.numel() == 0:
        found = e.new_zeros(e.shape, dtype=bool_)
    else:
        ordered = flat.sort().values
        pos = searchsorted(ordered, values).clamp(max=flat.numel() - 1)
        found = ordered.index_select(0, pos).eq(values).reshape(e.shape)
    return found.logical_not() if invert else found


def bitwise_left_shift_(self: Tensor, other: Any) -> Tensor:
    """In-place bitwise_left_shift (the result keeps self's dtype)."""
    return self.copy_(bitwise_left_shift(self, other).to(self.dtype))


def bitwise_right_shift_(self: Tensor, other: Any) -> Tensor:
    """In-place bitwise_right_shift (the result keeps self's dtype)."""
    return self.copy_(bitwise_right_shift(self, other).to(self.dtype))


histogram_result = namedtuple("histogram", ["hist", "bin_edges"])


def histogram(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False) -> Any:  # fmt: skip
    """(hist, bin_edges) of a float input: `bins` equal bins over range (the data's range by
    default, widened by 1/2 each side when it is one value) or the given increasing edges;
    bins are closed on the left, the last one on both sides; values outside are ignored.
    weight sums weights instead of counting; density divides by the total and the widths."""
    x = tensor_arg(input, "histogram", "input").detach()
    if not x.is_floating_point():
        raise _C.InvalidArgumentError(f"torch.histogram: input tensor and bins tensors should "
                                      f"have the same dtype, got {x.dtype}")  # fmt: skip
    edges = _histogram_edges(x, bins, range)
    n = edges.numel() - 1
    flat = x.reshape(-1)
    inside = flat.ge(edges[0]).logical_and(flat.le(edges[-1]))
    index = (searchsorted(edges, flat, right=True) - 1).clamp(0, n - 1)
    w = full(flat.shape, 1.0, dtype=x.dtype) if weight is None else weight.reshape(-1).to(x.dtype)
    w = where(inside, w, 0.0)
    hist = zeros(n, dtype=x.dtype, device=x.device).index_add(0, index, w)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return histogram_result(hist, edges)


def _histogram_edges(x: Tensor, bins: Any, range: Any) -> Tensor:  # noqa: A002
    if isinstance(bins, TensorBase):
        if bins.ndim != 1 or bins.numel() < 2:
            raise _error("torch.histogram(): bins must be a 1D tensor of at least 2 edges")
        return bins.to(x.dtype)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins <= 0:
        raise _error(f"torch.histogram(): bins must be > 0, but got {bins}")
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
    elif x.numel():
        lo, hi = float(x.min()), float(x.max())
    else:
        lo, hi = 0.0, 0.0
    if lo > hi:
        raise _error(f"torch.histogram(): min should not exceed max, got min {lo} max {hi}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, bins + 1, dtype=x.dtype)
