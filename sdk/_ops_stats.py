"""Statistics composed of sdk ops (torch names and arguments): the NaN-ignoring reductions,
aminmax, quantiles, cov/corrcoef, trapezoid integration, gradient, logcumsumexp, dist, trace,
renorm.
Each is differentiable through the ops it is made of."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

from sdk import _C, _ops_math, _ops_reduce, _ops_shape, _ops_sort
from sdk._dtype import int64
from sdk._ops_common import TensorBase, tensor_arg, wrap_dim, wrap_dims
from sdk._ops_elementwise import _floating

Tensor = Any  # the public class lives in sdk._tensor; annotations only

aminmax_result = namedtuple("aminmax", ["min", "max"])
nanmedian_result = namedtuple("nanmedian", ["values", "indices"])

_where = _ops_math.where
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


# ------------------------------------------------------------------------------ NaN-aware


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """sum, with NaN counted as zero."""
    tensor_arg(input, "nansum")
    x = _where(input.isnan(), 0, input) if input.dtype.is_floating_point else input
    return _ops_reduce.sum(x, dim, keepdim, dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """mean over the non-NaN elements (NaN where there is none)."""
    tensor_arg(input, "nanmean")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point dtype but got {input.dtype.name}"
        )
    x = input if dtype is None else input.to(dtype)
    count = _ops_reduce.sum(~x.isnan(), dim, keepdim).to(x.dtype)
    return nansum(x, dim, keepdim) / count


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of the non-NaN elements: of all (a 0-dim tensor) without dim, else
    (values, indices) along dim; NaN where every element is NaN."""
    tensor_arg(input, "nanmedian")
    if dim is None:
        flat = input.reshape(-1)
        if flat.numel() == 0:
            return _C.full((), math.nan, input.dtype)
        return _lower_median(flat, 0, False)[0]
    d = wrap_dim(dim, input.ndim, "nanmedian")
    values, indices = _lower_median(input.reshape(1) if input.ndim == 0 else input, d, keepdim)
    if input.ndim == 0:
        values, indices = values.reshape(()), indices.reshape(())
    return nanmedian_result(values, indices)


def _lower_median(x: Tensor, d: int, keepdim: bool) -> tuple:
    s = _ops_sort.sort(x, d)  # NaN sorts last
    valid = _ops_reduce.sum(~x.isnan(), d, keepdim=True)
    k = ((valid - 1).clamp(min=0) // 2).to(int64)
    values, indices = s.values.gather(d, k), s.indices.gather(d, k)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return values, indices


# ------------------------------------------------------------------------------ extremes


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """(min, max) of all elements, or along dim."""
    tensor_arg(input, "aminmax")
    if input.numel() == 0:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity"
        )
    if dim is None:
        dims = tuple(range(input.ndim))
        lo, hi = _ops_reduce.amin(input, dims, keepdim), _ops_reduce.amax(input, dims, keepdim)
        return aminmax_result(lo, hi)
    d = wrap_dim(dim, input.ndim, "aminmax")
    return aminmax_result(_ops_reduce.amin(input, d, keepdim), _ops_reduce.amax(input, d, keepdim))


# ------------------------------------------------------------------------------ quantiles


def quantile(
    input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
    interpolation: str = "linear",
) -> Tensor:  # fmt: skip
    """The q-th quantiles along dim (all elements flattened without dim); NaN where a row
    holds a NaN. A 1-D q puts its dim first in the result."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(
    input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
    interpolation: str = "linear",
) -> Tensor:  # fmt: skip
    """quantile over the non-NaN elements (NaN where a row has none)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def _q_values(op: str, input: Tensor, q: Any) -> tuple[list, bool]:
    if isinstance(q, TensorBase):
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        values, vector = [float(v) for v in q.reshape(-1).tolist()], q.ndim == 1
    elif isinstance(q, (int, float)) and not isinstance(q, bool):
        values, vector = [float(q)], False
    else:
        raise TypeError(f"{op}(): argument 'q' must be a float or a Tensor")
    if any(not 0 <= v <= 1 for v in values):
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    return values, vector


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan):
    tensor_arg(input, op)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}() input tensor must be either float or double dtype, got {input.dtype.name}"
        )
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
            f"Got {interpolation}"
        )
    qs, vector = _q_values(op, input, q)
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    x = input.reshape(-1) if dim is None else input.reshape(1) if input.ndim == 0 else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim, op)
    rows = _ops_sort.sort(x, d).values.movedim(d, -1)  # NaN last
    nans = _ops_reduce.sum(rows.isnan(), -1, keepdim=True)
    n = rows.shape[-1]
    last = ((n - 1 - nans) if ignore_nan else nans * 0 + (n - 1)).to(rows.dtype)
    positions = [last * v for v in qs]
    if not ignore_nan:  # a row holding a NaN reads its last element, a NaN (as torch does)
        positions = [_where(nans > 0, last, p) for p in positions]
    outs = [_pick(rows, p, interpolation) for p in positions]
    outs = [_shape_back(o, input, dim, d, keepdim) for o in outs]
    return _ops_shape.stack(outs) if vector else outs[0]


def _pick(rows: Tensor, pos: Tensor, interpolation: str) -> Tensor:
    """The value at fractional position pos (a column per row) of each sorted row."""
    pos = pos.clamp(min=0)  # an all-NaN row (nanquantile) reads its first NaN
    if interpolation == "nearest":
        pos = pos.round()
    lo, hi = pos.floor(), pos.ceil()
    below = rows.gather(-1, lo.to(int64))
    if interpolation in ("lower", "nearest"):
        return below
    above = rows.gather(-1, hi.to(int64))
    if interpolation == "higher":
        return above
    if interpolation == "midpoint":
        return below + (above - below) * 0.5
    return below + (above - below) * (pos - lo)


def _shape_back(o: Tensor, input: Tensor, dim: Any, d: int, keepdim: bool) -> Tensor:
    o = o.squeeze(-1)
    if dim is None:
        return o.reshape((1,) * input.ndim) if keepdim else o.reshape(())
    if input.ndim == 0:
        return o.reshape(())
    return o.unsqueeze(d) if keepdim else o


# ------------------------------------------------------------------------------ covariance


def cov(
    input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """The covariance matrix of the variables in input's rows (observations in columns)."""
    tensor_arg(input, "cov")
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")  # fmt: skip
    x = _floating(input.reshape(1, -1) if input.ndim < 2 else input)
    w = _cov_weights(x.shape[1], fweights, aweights)
    if w is None:
        w_sum = float(x.shape[1])
        avg = x.mean(1)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        norm = w_sum - (
            correction if aweights is None else correction * (w * aweights).sum() / w_sum
        )
    if isinstance(norm, TensorBase):
        norm = norm.clamp(min=0)
    else:
        norm = max(norm, 0.0)
    xm = x - avg.unsqueeze(1)
    c = (xm if w is None else xm * w).matmul(xm.t()) / norm
    return c.squeeze()


def _cov_weights(n: int, fweights: Any, aweights: Any) -> Any:
    w = None
    for name, v in (("fweights", fweights), ("aweights", aweights)):
        if v is None:
            continue
        tensor_arg(v, "cov", name)
        if v.ndim > 1 or v.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have one dimension of size {n}")
        if name == "fweights" and v.dtype.is_floating_point:
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if bool((v < 0).any()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = v if w is None else w * v
    return w


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of input's rows (cov normalized, clipped to [-1, 1])."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1)


# ------------------------------------------------------------------------------ integration


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoid rule along dim, with sample points x (a tensor) or spacing dx."""
    return _trapezoid("trapezoid", y, x, dx, dim, False)


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """trapezoid under its older name."""
    return _trapezoid("trapz", y, x, dx, dim, False)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoid rule along dim (one element fewer than y there)."""
    return _trapezoid("cumulative_trapezoid", y, x, dx, dim, True)


def _trapezoid(op, y, x, dx, dim, cumulative):
    tensor_arg(y, op, "y")
    if x is not None and dx is not None:
        raise TypeError(f"{op}(): pass either x or dx, not both")
    d = wrap_dim(dim, y.ndim, op)
    n = y.shape[d]
    if n == 0 or (n == 1 and not cumulative):
        shape = list(y.shape)
        del shape[d]
        return _floating(y).new_zeros(shape) if not cumulative else _floating(y)
    mids = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * 0.5
    if isinstance(x, TensorBase):
        if x.ndim == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
            step = _ops_shape.diff(x).reshape((n - 1,) + (1,) * (y.ndim - d - 1))
        else:
            step = _ops_shape.diff(x, dim=dim)
        mids = mids * step
    elif x is not None or dx is not None:
        mids = mids * (dx if dx is not None else x)
    mids = _floating(mids)
    return mids.cumsum(d) if cumulative else mids.sum(d)


# ------------------------------------------------------------------------------ others


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(input))) along dim, without overflow or underflow: a log2(n)-step
    prefix scan of logaddexp."""
    tensor_arg(input, "logcumsumexp")
    x = _floating(input)
    if x.ndim == 0:
        return x.clone()
    d = wrap_dim(dim, x.ndim, "logcumsumexp")
    n, step = x.shape[d], 1
    while step < n:
        head, tail = x.narrow(d, 0, step), x.narrow(d, step, n - step)
        x = _ops_shape.cat([head, _ops_math.logaddexp(tail, x.narrow(d, 0, n - step))], d)
        step *= 2
    return x


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other (broadcast)."""
    tensor_arg(input, "dist")
    tensor_arg(other, "dist", "other")
    return _ops_reduce.norm(input - other, p)


def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's main diagonal."""
    tensor_arg(input, "trace")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along dim rescaled to p-norm maxnorm where its norm exceeds it."""
    tensor_arg(input, "renorm")
    if not p > 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (p = {p})")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim < 2:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    d = wrap_dim(dim, input.ndim, "renorm")
    others = wrap_dims([i for i in range(input.ndim) if i != d], input.ndim, "renorm")
    norms = _ops_reduce.norm(input, p, others, keepdim=True)
    return input * _where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def renorm_(self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    return self.copy_(renorm(self.clone(), p, dim, maxnorm))


def frobenius_norm(input: Tensor, dim: Any = (-2, -1), keepdim: bool = False) -> Tensor:
    """The 2-norm of the elements over dim (torch's deprecated name for vector_norm(2))."""
    tensor_arg(input, "frobenius_norm")
    return _ops_reduce.norm(input, 2, dim, keepdim)


# ------------------------------------------------------------------------------ gradient


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple:
    """The derivative of input's samples along each dim (all, or those listed): central
    differences inside, one-sided ones of edge_order (1 or 2) at the ends; spacing is one
    step for every dim, a step per dim, or a 1-D tensor of coordinates per dim."""
    tensor_arg(input, "gradient")
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, "
                           f"got {edge_order}")  # fmt: skip
    dims = list(range(input.ndim)) if dim is None else list(wrap_dims(dim, input.ndim, "gradient"))
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a "
                           f"list of length {len(dims)}, but got a list of length {len(steps)}")  # fmt: skip
    x = _floating(input)
    for d in dims:
        if x.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    return tuple(_derivative(x, d, s, edge_order) for d, s in zip(dims, steps))


def _along(t: Tensor, d: int, ndim: int) -> Tensor:
    """A 1-D tensor shaped to broadcast along dim d of an ndim tensor."""
    return t.reshape([-1 if i == d else 1 for i in range(ndim)])


def _derivative(x: Tensor, d: int, step: Any, edge_order: int) -> Tensor:
    n = x.shape[d]
    if isinstance(step, TensorBase):
        if step.ndim != 1 or step.shape[0] != n:
            raise RuntimeError(f"torch.gradient expected each tensor in spacing to be 1-D with "
                               f"{n} elements along dim {d}")  # fmt: skip
        h = _along(_ops_shape.diff(step.to(x.dtype)), d, x.ndim)  # n - 1 steps
    else:
        h = x.new_full([n - 1 if i == d else 1 for i in range(x.ndim)], float(step))
    f = lambda start, length: x.narrow(d, start, length)  # noqa: E731
    hl, hr = h.narrow(d, 0, n - 2), h.narrow(d, 1, n - 2)
    inner = (hl * hl * f(2, n - 2) - hr * hr * f(0, n - 2) + (hr * hr - hl * hl) * f(1, n - 2)) / (
        hl * hr * (hl + hr)
    )
    if edge_order == 1:
        first = (f(1, 1) - f(0, 1)) / h.narrow(d, 0, 1)
        last = (f(n - 1, 1) - f(n - 2, 1)) / h.narrow(d, n - 2, 1)
    else:
        a, b = h.narrow(d, 0, 1), h.narrow(d, 1, 1)
        first = (-(2 * a + b) / (a * (a + b)) * f(0, 1) + (a + b) / (a * b) * f(1, 1)
                 - a / (b * (a + b)) * f(2, 1))  # fmt: skip
        a, b = h.narrow(d, n - 3, 1), h.narrow(d, n - 2, 1)
        last = (b / (a * (a + b)) * f(n - 3, 1) - (a + b) / (a * b) * f(n - 2, 1)
                + (2 * b + a) / (b * (a + b)) * f(n - 1, 1))  # fmt: skip
    return _ops_shape.cat([first, inner, last], d)
