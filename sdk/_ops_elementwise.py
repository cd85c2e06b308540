"""Elementwise functions beyond the op tables (torch names and arguments), with autograd hooks:
nan_to_num, lerp, addcmul, addcdiv, clamp with tensor bounds, isclose/allclose, the activations
with parameters (softplus, leaky_relu, hardtanh, relu6) and torch's aliases of table ops."""

from __future__ import annotations

from typing import Any, Callable

from sdk import _C, _ops_math
from sdk._dtype import bool_, float64, get_default_dtype
from sdk._ops_common import (
    TensorBase,
    check_inplace,
    full_scalar,
    needs_grad,
    record,
    tensor_arg,
    write_inplace,
)
from sdk._ops_math import _number
from sdk._ops_shape import broadcast_tensors

Tensor = Any  # the public class lives in sdk._tensor; annotations only
Number = Any

_M = _ops_math

# ------------------------------------------------------------------------------ aliases

sgn = _M.sign
fix = _M.trunc
arcsin, arccos, arctan = _M.asin, _M.acos, _M.atan
arcsinh, arccosh, arctanh = _M.asinh, _M.acosh, _M.atanh
arctan2 = _M.atan2


def _no_out_grad(op: str, *args: Any) -> None:
    if needs_grad(*args):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )


# ------------------------------------------------------------------------------ nan_to_num


def nan_to_num(
    input: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """NaN, +inf and -inf replaced by nan, posinf and neginf (defaults: 0 and the dtype's
    largest and lowest finite values); integer tensors come back as a copy."""
    tensor_arg(input, "nan_to_num")
    args = (
        _number(nan, "nan_to_num", "nan", True),
        _number(posinf, "nan_to_num", "posinf", True),
        _number(neginf, "nan_to_num", "neginf", True),
    )
    if out is not None:
        _no_out_grad("nan_to_num", input)
        return _C.nan_to_num(input, *args, out)
    r = _C.nan_to_num(input, *args)
    if needs_grad(input):
        record("nan_to_num", (input,), r)
    return r


def nan_to_num_(
    self: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    args = (
        _number(nan, "nan_to_num_", "nan", True),
        _number(posinf, "nan_to_num_", "posinf", True),
        _number(neginf, "nan_to_num_", "neginf", True),
    )
    return _inplace("nan_to_num_", self, (), lambda: _C.nan_to_num(self, *args, self))


def _inplace(op: str, self: Tensor, others: tuple, write: Callable[[], Any], **attrs: Any):
    """Run an in-place write and record it when autograd needs it (see write_inplace)."""
    tensor_arg(self, op, "self")
    if needs_grad(self, *others):
        check_inplace(self)
        write_inplace(op, self, others, write, **attrs)
    else:
        write()
    return self


# ------------------------------------------------------------------------------ ternary ops


def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Tensor | None = None) -> Tensor:
    """input + weight * (end - input); weight a number or a tensor (all broadcast)."""
    tensor_arg(input, "lerp")
    tensor_arg(end, "lerp", "end")
    if not isinstance(weight, TensorBase):
        weight = _number(weight, "lerp", "weight")
    if out is not None:
        _no_out_grad("lerp", input, end, weight)
        return _C.lerp(input, end, weight, out)
    r = _C.lerp(input, end, weight)
    if needs_grad(input, end, weight):
        record("lerp", (input, end, weight), r)
    return r


def lerp_(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    if not isinstance(weight, TensorBase):
        weight = _number(weight, "lerp_", "weight")
    return _inplace("lerp_", self, (end, weight), lambda: _C.lerp(self, end, weight, self))


def _make_addc(name: str) -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    raw = getattr(_C, name)
    op_symbol = "*" if name == "addcmul" else "/"

    def op(
        input: Tensor,
        tensor1: Tensor,
        tensor2: Tensor,
        *,
        value: Number = 1,
        out: Tensor | None = None,
    ) -> Tensor:
        value = _number(value, name, "value")
        if out is not None:
            _no_out_grad(name, input, tensor1, tensor2)
            return raw(input, tensor1, tensor2, value, out)
        r = raw(input, tensor1, tensor2, value)
        if needs_grad(input, tensor1, tensor2):
            record(name, (input, tensor1, tensor2), r, value=value)
        return r

    def op_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> Tensor:
        value = _number(value, name + "_", "value")
        return _inplace(
            name + "_", self, (tensor1, tensor2),
            lambda: raw(self, tensor1, tensor2, value, self), value=value,
        )  # fmt: skip

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"input + value * tensor1 {op_symbol} tensor2, broadcast (torch.{name})."
    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = f"In-place {name} (Tensor.{name}_)."
    return op, op_


addcmul, addcmul_ = _make_addc("addcmul")
addcdiv, addcdiv_ = _make_addc("addcdiv")


# ------------------------------------------------------------------------------ closeness


def isclose(
    input: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise, or equal (infinities only equal
    themselves; NaNs are close to NaNs with equal_nan). Same dtypes; shapes broadcast."""
    tensor_arg(input, "isclose")
    if not isinstance(other, TensorBase):  # a number: compared in input's dtype when it fits
        v = _number(other, "isclose", "other")
        if isinstance(v, float) and not input.dtype.is_floating_point:
            input = _C.to_dtype(input, get_default_dtype(), False)
        other = full_scalar(v, input.dtype)
    return _C.isclose(input, other, rtol, atol, equal_nan)


def allclose(
    input: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """True when isclose holds everywhere."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


# ------------------------------------------------------------------------------ activations


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, or x where beta * x > threshold."""
    beta = _number(beta, "softplus", "beta")
    threshold = _number(threshold, "softplus", "threshold")
    r = _C.softplus(input, beta, threshold)
    if needs_grad(input):
        record("softplus", (input,), r, beta=beta, threshold=threshold)
    return r


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x."""
    negative_slope = _number(negative_slope, "leaky_relu", "negative_slope")
    if inplace:
        return _inplace(
            "leaky_relu_", input, (), lambda: _C.leaky_relu(input, negative_slope, input),
            negative_slope=negative_slope,
        )  # fmt: skip
    r = _C.leaky_relu(input, negative_slope)
    if needs_grad(input):
        record("leaky_relu", (input,), r, negative_slope=negative_slope)
    return r


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """clamp(x, min_val, max_val) keeping x's dtype; the gradient passes strictly inside."""
    tensor_arg(input, "hardtanh")
    if input.dtype.name == "bool":
        raise TypeError("hardtanh(): bool tensors are not supported")
    if min_val > max_val:
        raise ValueError(
            f"hardtanh(): min_val ({min_val}) cannot be greater than max_val ({max_val})"
        )
    if inplace:
        return _inplace(
            "hardtanh_", input, (), lambda: _C.clamp(input, min_val, max_val, input),
            min_val=min_val, max_val=max_val,
        )  # fmt: skip
    r = _C.clamp(input, min_val, max_val, _C.empty_like(input, None, True))
    if needs_grad(input):
        record("hardtanh", (input,), r, min_val=min_val, max_val=max_val)
    return r


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """hardtanh(x, 0, 6) (integer bounds: integer tensors keep their dtype)."""
    return hardtanh(input, 0, 6, inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place elu (F.elu(..., inplace=True))."""
    alpha = _number(alpha, "elu_", "alpha")
    return _inplace("elu_", input, (), lambda: _C.elu(input, alpha, input), alpha=float(alpha))


_silu_ = _M._make_unary_("silu")
_mish_ = _M._make_unary_("mish")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return _silu_(input) if inplace else _M.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return _mish_(input) if inplace else _M.mish(input)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    x = tensor_arg(input, "hardshrink")
    return _ops_math.where(x.abs() > _number(lambd, "hardshrink", "lambd"), x, 0.0)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    x = tensor_arg(input, "softshrink")
    lam = _number(lambd, "softshrink", "lambd")
    if lam < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lam}.")
    return _ops_math.where(x > lam, x - lam, _ops_math.where(x < -lam, x + lam, 0.0))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight one value or one per channel (dim 1, or dim 0
    of a 1-d input)."""
    tensor_arg(input, "prelu")
    tensor_arg(weight, "prelu", "weight")
    n = weight.numel()
    if n != 1:
        ch = 1 if input.ndim >= 2 else 0
        if weight.ndim != 1 or input.ndim == 0 or input.shape[ch] != n:
            raise RuntimeError(
                f"prelu: mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {n} and channel size = {input.shape[ch] if input.ndim else 1}."
            )
        weight = weight.reshape(n, *([1] * (input.ndim - ch - 1)))
    return _ops_math.where(input > 0, input, weight * input)


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise maximum, ignoring NaN (NaN only where both are NaN)."""
    a, b = tensor_arg(input, "fmax", "input"), tensor_arg(other, "fmax", "other")
    return _ops_math.where(b.isnan() | (a >= b), a, b)  # ties and the gradient go to input


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise minimum, ignoring NaN (NaN only where both are NaN)."""
    a, b = tensor_arg(input, "fmin", "input"), tensor_arg(other, "fmin", "other")
    return _ops_math.where(b.isnan() | (a <= b), a, b)  # ties and the gradient go to input


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    p = tensor_arg(input, "logit", "input")
    if eps is not None:
        p = p.clamp(eps, 1 - eps)
    return (p / (1 - p)).log()


# ------------------------------------------------------------------------------ compositions

# torch's elementwise functions that compose table ops: their gradients come from the parts.


def _floating(input: Tensor) -> Tensor:
    """input, or input as the default float dtype when it is integral or bool. A complex
    input is refused (these compositions are of real ops): converting would drop its
    imaginary part."""
    if input.dtype.is_complex:
        raise TypeError(f"not implemented for {input.dtype.name} (a real-valued op)")
    return input if input.dtype.is_floating_point else input.to(get_default_dtype())


def _assign(op: str, self: Tensor, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """The in-place form of a composed op: compute on self's old value, then copy the
    result in; a result dtype that self cannot hold is refused, as torch refuses it."""
    tensor_arg(self, op, "self")
    r = compute(self.clone() if needs_grad(self) else self)
    if r.dtype.is_floating_point and not self.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}(): result type {r.dtype.name} can't be cast to the desired output type "
            f"{self.dtype.name}"
        )
    return self.copy_(r)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians (integers become the default float dtype)."""
    return _floating(tensor_arg(input, "deg2rad")) * (3.141592653589793 / 180.0)


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees (integers become the default float dtype)."""
    return _floating(tensor_arg(input, "rad2deg")) * (180.0 / 3.141592653589793)


def deg2rad_(self: Tensor) -> Tensor:
    return _assign("deg2rad_", self, deg2rad)


def rad2deg_(self: Tensor) -> Tensor:
    return _assign("rad2deg_", self, rad2deg)


def signbit(input: Tensor) -> Tensor:
    """True where the sign bit is set (-0.0 and negative NaN included for floats)."""
    tensor_arg(input, "signbit")
    if input.dtype.is_floating_point:
        return _M.copysign(_C.full((), 1.0, input.dtype), input) < 0
    return input < 0


def sinc(input: Tensor) -> Tensor:
    """sin(pi x) / (pi x), 1 at x == 0 (a gradient of 0 there)."""
    x = _floating(tensor_arg(input, "sinc"))
    zero = x == 0
    px = _ops_math.where(zero, 1.0, x) * 3.141592653589793
    return _ops_math.where(zero, 1.0, px.sin() / px)


def sinc_(self: Tensor) -> Tensor:
    return _assign("sinc_", self, sinc)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log2(2**input + 2**other), without overflow."""
    ln2 = 0.6931471805599453
    a, b = tensor_arg(input, "logaddexp2"), tensor_arg(other, "logaddexp2", "other")
    return _M.logaddexp(_floating(a) * ln2, _floating(b) * ln2) / ln2


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where input < 0, values where input == 0, 1 where input > 0 (same dtypes)."""
    tensor_arg(input, "heaviside")
    tensor_arg(values, "heaviside", "values")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    x, v = input.detach(), values.detach()  # a step: no derivative (torch has none either)
    return _ops_math.where(x == 0, v, (x > 0).to(x.dtype))


def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    return _assign("heaviside_", self, lambda s: heaviside(s, values))


def float_power(input: Any, exponent: Any) -> Tensor:
    """input ** exponent computed in float64 (either may be a number)."""
    if not isinstance(input, TensorBase) and not isinstance(exponent, TensorBase):
        raise TypeError("float_power(): one of 'input' and 'exponent' must be a Tensor")
    base = input.to(float64) if isinstance(input, TensorBase) else float(input)
    exp = exponent.to(float64) if isinstance(exponent, TensorBase) else exponent
    if not isinstance(base, TensorBase):
        base = full_scalar(base, float64)
    return _M.pow(base, exp)


def float_power_(self: Tensor, exponent: Any) -> Tensor:
    if self.dtype.name != "float64":
        raise RuntimeError(
            "the base given to float_power_ has dtype "
            f"{self.dtype.name} but the operation's result requires dtype float64"
        )
    return _assign("float_power_", self, lambda s: float_power(s, exponent))


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2 ** other (a floating result)."""
    tensor_arg(input, "ldexp")
    tensor_arg(other, "ldexp", "other")
    return _floating(input) * _M.exp2(_floating(other))


def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    return _assign("ldexp_", self, lambda s: ldexp(s, other))


def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    return _assign("logit_", self, lambda s: logit(s, eps))


def _integral(op: str, a: Any, b: Any) -> tuple[Tensor, Tensor]:
    tensor_arg(a, op)
    tensor_arg(b, op, "other")
    for t in (a, b):
        if t.dtype.is_floating_point or t.dtype.name == "bool":
            raise RuntimeError(f"\"{op}_cpu\" not implemented for '{t.dtype.name}'")
    return a, b


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor, elementwise, of integer tensors (gcd(0, 0) == 0)."""
    a, b = _integral("gcd", input, other)
    a, b = (t.contiguous() for t in broadcast_tensors(a.abs(), b.abs()))
    while bool((b != 0).any()):  # Euclid, on every element at once
        nonzero = b != 0
        rest = _M.fmod(a, b.clamp(min=1))
        a, b = _ops_math.where(nonzero, b, a), _ops_math.where(nonzero, rest, b)
    return a


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple, elementwise, of integer tensors (0 where either is 0)."""
    a, b = _integral("lcm", input, other)
    g = gcd(a, b)
    return _ops_math.where(g == 0, 0, (_M.floor_divide(a, g.clamp(min=1)) * b).abs())


def gcd_(self: Tensor, other: Tensor) -> Tensor:
    return self.copy_(gcd(self, other))


def lcm_(self: Tensor, other: Tensor) -> Tensor:
    return self.copy_(lcm(self, other))


def isreal(input: Tensor) -> Tensor:
    """True everywhere: every dtype here is real (no complex dtypes)."""
    return tensor_arg(input, "isreal").new_ones(input.shape, dtype=bool_)


def positive(input: Tensor) -> Tensor:
    """input itself (unary plus); refused for bool tensors, as torch refuses them."""
    tensor_arg(input, "positive")
    if input.dtype.name == "bool":
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )
    return input


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor of input's shape and dtype, every element value (torch.fill)."""
    tensor_arg(input, "fill")
    out = input.clone()
    return _M.fill_(out, value)
