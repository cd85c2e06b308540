"""Special functions (lgamma, digamma, polygamma, mvlgamma, i0) and float decompositions
(frexp, nextafter) of torch, computed elementwise in float64 on the host with numpy (the core
has no kernel for them), with autograd rows for the differentiable ones.

The series used are accurate to a few ulps of float64: the recurrences move the argument
above a threshold where the asymptotic expansions' first omitted term is below 1e-17."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Callable

from sdk import _interop, _ops_math
from sdk._dtype import float64, get_default_dtype, int32
from sdk._ops_common import needs_grad, record, tensor_arg

Tensor = Any  # the public class lives in sdk._tensor; annotations only

frexp_result = namedtuple("frexp", ["mantissa", "exponent"])

# Bernoulli numbers B2, B4, ..., B16: the asymptotic series of digamma and Hurwitz zeta
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_SHIFT_LIMIT = 1e5  # a polygamma argument below -_SHIFT_LIMIT would need that many terms
_MAX_ORDER = 170  # 171! overflows float64


def _np() -> Any:
    import numpy  # lazy: import sdk stays free of numpy (the layering test checks it)

    return numpy


def _on_host(op: str, input: Tensor, fn: Callable[[Any], Any], dtype: Any = None) -> Tensor:
    """fn over input's values as a float64 array; the result in `dtype` (default: input's
    floating dtype, or the default float for integers) on input's device."""
    tensor_arg(input, op)
    if input.dtype.name.startswith("float8"):  # as the core's elementwise kernels refuse them
        raise RuntimeError(f"{op}(): not implemented for {input.dtype.name}; convert to float32")
    if input.dtype.is_complex:  # float64 on the host would drop the imaginary part
        raise TypeError(f"{op}(): not implemented for {input.dtype.name} (real dtypes only)")
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else get_default_dtype()
    host = input.detach().cpu().to(float64).contiguous()
    values = _np().array(_interop.numpy(host), dtype="float64")
    r = _interop.tensor(fn(values)).to(dtype)
    return r.to(input.device) if input.is_cuda else r


def _lgamma_scalar(v: float) -> float:
    if math.isfinite(v) and v <= 0 and v == int(v):
        return math.inf  # the poles, as torch gives them
    return math.lgamma(v)


def _lgamma_np(x: Any) -> Any:
    np = _np()
    # asarray: a 0-d input gives frompyfunc's result as a Python float
    return np.asarray(np.frompyfunc(_lgamma_scalar, 1, 1)(x), dtype="float64")


def _digamma_np(x: Any) -> Any:
    np = _np()
    x = np.array(x, dtype="float64", ndmin=1)
    reflect = x < 0.5  # psi(x) = psi(1 - x) - pi / tan(pi x)
    y = np.where(reflect, 1.0 - x, x)
    acc = np.zeros_like(y)
    while True:  # psi(y) = psi(y + 1) - 1 / y until y >= 10
        low = y < 10
        if not low.any():
            break
        acc -= np.where(low, 1.0 / np.where(low, y, 1.0), 0.0)
        y = np.where(low, y + 1.0, y)
    inv2 = 1.0 / (y * y)
    series, power = np.zeros_like(y), inv2.copy()
    for k, b in enumerate(_BERNOULLI[:7], start=1):
        series += b / (2 * k) * power
        power *= inv2
    r = acc + np.log(y) - 0.5 / y - series
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(reflect, r - math.pi / np.tan(math.pi * x), r)
    pole = (x <= 0) & (x == np.floor(x))
    r = np.where(pole & (x == 0), -math.inf, np.where(pole, math.nan, r))
    return r


def _hurwitz_zeta_np(s: int, x: Any) -> Any:
    """zeta(s, x) = sum_k (x + k) ** -s, for an integer s >= 2."""
    np = _np()
    x = np.array(x, dtype="float64", ndmin=1)
    if x.size and np.nanmin(x) < -_SHIFT_LIMIT:
        raise ValueError(
            f"polygamma(): arguments below {-_SHIFT_LIMIT:g} are not supported (the series "
            "would need that many terms)"
        )
    limit = 10.0 + 2 * s  # above it the asymptotic series' first omitted term is < 1e-17
    acc = np.zeros_like(x)
    y = x.copy()
    with np.errstate(divide="ignore"):
        while True:
            low = y < limit
            if not low.any():
                break
            acc += np.where(low, np.where(low, y, 1.0) ** -s, 0.0)
            y = np.where(low, y + 1.0, y)
    r = y ** (1 - s) / (s - 1) + 0.5 * y**-s
    rising, power, fact = float(s), y ** (-s - 1), 2.0
    for j, b in enumerate(_BERNOULLI, start=1):
        r += b / fact * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        power /= y * y
        fact *= (2 * j + 1) * (2 * j + 2)
    return acc + r


def _polygamma_np(n: int, x: Any) -> Any:
    if n == 0:
        return _digamma_np(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.factorial(n) * _hurwitz_zeta_np(n + 1, x)


def _i1_np(x: Any) -> Any:
    """The modified Bessel function I1, by its power series (all terms of one sign)."""
    np = _np()
    x = np.array(x, dtype="float64", ndmin=1)
    half = x / 2
    term = half.copy()
    total = term.copy()
    k = 0
    while True:
        k += 1
        term = term * half * half / (k * (k + 1))
        total += term
        if not (np.abs(term) > 1e-17 * np.abs(total)).any():
            return total


def lgamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """log |Gamma(input)| (inf at the poles 0, -1, -2, ...)."""
    r = _on_host("lgamma", input, _lgamma_np)
    return _finish("lgamma", input, r, out)


def digamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """d/dx lgamma(x) (-inf at 0, nan at the negative integers)."""
    r = _on_host("digamma", input, _digamma_np)
    return _finish("digamma", input, r, out)


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The n-th derivative of digamma (n == 0 is digamma)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n > _MAX_ORDER:  # n! alone overflows float64 (and takes hours to form for huge n)
        raise ValueError(f"polygamma(): n = {n} is above {_MAX_ORDER}, where n! overflows float64")
    r = _on_host("polygamma", input, lambda x: _polygamma_np(n, x))
    return _finish("polygamma", input, r, out, n=n)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma of dimension p: sum_j lgamma(x - j / 2) + const."""
    tensor_arg(input, "mvlgamma")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not input.dtype.is_floating_point:
        raise RuntimeError("mvlgamma(): only floating inputs are supported")
    if not bool((input > (p - 1) / 2).all()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    # sum_j lgamma(x - j / 2) as one op over a trailing dim of p terms (a p that cannot be
    # allocated fails at once, where a loop would run p times)
    halves = _ops_math.mul(_interop.tensor(_np().arange(p, dtype="float64")), 0.5).to(input.dtype)
    total = lgamma(input.unsqueeze(-1) - halves).sum(-1)
    return total + p * (p - 1) / 4 * math.log(math.pi)


def i0(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind, order 0."""
    r = _on_host("i0", input, lambda x: _np().i0(x))
    return _finish("i0", input, r, out)


def i1(input: Tensor) -> Tensor:
    """I1, i0's derivative (torch.special.i1)."""
    return _on_host("i1", input, _i1_np)


def _finish(op: str, input: Tensor, r: Tensor, out: Tensor | None, **attrs: Any) -> Tensor:
    if out is not None:
        if needs_grad(input):
            raise RuntimeError(
                f"{op}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        return out.resize_(r.shape).copy_(r)
    if needs_grad(input):
        record(op, (input,), r, **attrs)
    return r


def _inplace(op: str, self: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """self overwritten with fn(self); gradients flow through the recorded out-of-place op."""
    tensor_arg(self, op, "self")
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}(): result type {get_default_dtype().name} can't be cast to the desired "
            f"output type {self.dtype.name}"
        )
    return self.copy_(fn(self.clone() if needs_grad(self) else self))


def lgamma_(self: Tensor) -> Tensor:
    return _inplace("lgamma_", self, lgamma)


def digamma_(self: Tensor) -> Tensor:
    return _inplace("digamma_", self, digamma)


def polygamma_(self: Tensor, n: int) -> Tensor:
    return _inplace("polygamma_", self, lambda s: polygamma(n, s))


def mvlgamma_(self: Tensor, p: int) -> Tensor:
    return _inplace("mvlgamma_", self, lambda s: mvlgamma(s, p))


def i0_(self: Tensor) -> Tensor:
    return _inplace("i0_", self, i0)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """Refused: the regularized incomplete gamma functions are not provided."""
    raise NotImplementedError(
        "igamma/igammac (torch.igamma, torch.special.gammainc) are not provided by the sdk; "
        "compute them with scipy.special.gammainc/gammaincc on tensor.numpy()"
    )


igammac = igamma


def frexp(input: Tensor) -> Any:
    """(mantissa, exponent) with input == mantissa * 2 ** exponent, |mantissa| in [0.5, 1)."""
    tensor_arg(input, "frexp")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"torch.frexp() only supports floating-point dtypes, got {input.dtype.name}"
        )
    exponents = _on_host("frexp", input, lambda x: _np().frexp(x)[1].astype("float64"))
    # mantissa = input * 2 ** -exponent, in two exact power-of-two steps (2 ** 1074 alone
    # would overflow for subnormals), differentiable through the products
    half = (exponents * 0.5).floor()
    mantissa = input * _ops_math.exp2(-half) * _ops_math.exp2(half - exponents)
    return frexp_result(mantissa, exponents.to(int32))


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next representable value after input towards other, in input's dtype."""
    tensor_arg(input, "nextafter")
    tensor_arg(other, "nextafter", "other")
    if input.dtype is not other.dtype or not input.dtype.is_floating_point:
        raise RuntimeError(
            "nextafter(): expected two floating tensors of one dtype, got "
            f"{input.dtype.name} and {other.dtype.name}"
        )
    np = _np()
    kind = {"float64": "float64", "float32": "float32", "float16": "float16"}.get(input.dtype.name)
    if kind is None:
        raise RuntimeError(f"\"nextafter_cpu\" not implemented for '{input.dtype.name}'")
    a, b = (np.asarray(_interop.numpy(t.detach().cpu().contiguous())) for t in (input, other))
    r = _interop.tensor(np.nextafter(a.astype(kind), b.astype(kind)))
    return r.to(input.device) if input.is_cuda else r


def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    return self.copy_(nextafter(self, other))
