"""Public elementwise functions (torch names and arguments), with autograd hooks."""

from __future__ import annotations

import math
from typing import Any, Callable

from sdk import _C, _dtype
from sdk._ops_common import (
    TensorBase,
    check_inplace,
    full_scalar,
    needs_grad,
    operand,
    record,
    scalar_tensor,
    tensor_arg,
    write_inplace,
)
from sdk._ops_complex import complex_scalar, fill_complex_
from sdk._ops_shape import nonzero

Tensor = Any  # the public class lives in sdk._tensor; annotations only
Number = Any

_OK = (TensorBase, int, float)  # operand types the raw ops take as they are
_binary = _C.binary
_unary = _C.unary
_needs_grad = needs_grad

# The C ABI's op tables (SDK_UNARY_OPS, SDK_BINARY_OPS in sdk/c_api.h): torch name -> code,
# and their facts (SDK_UNARY_OP_FACTS, SDK_BINARY_OP_FACTS): torch name -> (differentiable,
# inplace, bool_result). Each op of a table is a function of this module and sdk, and a Tensor
# method, made from the tables below (_table_ops); tests/sdk/test_op_tables.py checks them.
UNARY: dict[str, int] = _C.UNARY_OPS
BINARY: dict[str, int] = _C.BINARY_OPS
FACTS: dict[str, tuple[bool, bool, bool]] = {**_C.UNARY_OP_FACTS, **_C.BINARY_OP_FACTS}
_ADD, _SUB, _MUL, _DIV = (BINARY[n] for n in ("add", "sub", "mul", "div"))
_GELU = UNARY["gelu"]


def differentiable(name: str) -> bool:
    """Whether the table op `name` has a derivative (a row of sdk/autograd/derivatives.py)."""
    return FACTS[name][0]


def has_inplace(name: str) -> bool:
    """Whether the table op `name` has an in-place form Tensor.<name>_."""
    return FACTS[name][1]


def _no_out_grad(op: str, *args: Any) -> None:
    if needs_grad(*args):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )


def _number(v: Any, op: str, arg: str, optional: bool = False) -> Any:
    """A Python number argument (a one-element tensor is read); TypeError otherwise."""
    if v is None and optional:
        return None
    if isinstance(v, TensorBase) and v.numel() == 1:
        return v.item()
    if isinstance(v, (int, float, bool)) or hasattr(v, "__float__"):
        return v
    kind = "a number or None" if optional else "a number"
    raise TypeError(f"{op}(): argument '{arg}' must be {kind}, not {type(v).__name__}")


# ------------------------------------------------------------------------------ unary


def _make_unary(name: str) -> Callable[..., Tensor]:
    code = UNARY[name]
    diff = differentiable(name)

    def op(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        if out is not None:
            _no_out_grad(name, input)
            return _C.unary(code, input, out)
        r = _C.unary(code, input)
        if diff and needs_grad(input):
            record(name, (input,), r)
        return r

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (torch.{name})."
    return op


def _make_unary_(name: str) -> Callable[[Tensor], Tensor]:
    code = UNARY[name]

    def op_(self: Tensor) -> Tensor:
        if needs_grad(self):
            check_inplace(self)
            write_inplace(name + "_", self, (), lambda: _C.unary(code, self, self))
        else:
            _C.unary(code, self, self)
        return self

    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = f"In-place {name} (Tensor.{name}_)."
    return op_


_TANH = UNARY["tanh"]
_GELU_BETA = math.sqrt(2.0 / math.pi)


def _gelu_tanh(x: Tensor) -> Tensor:
    """x (1 + tanh(beta (x + 0.044715 x^3))) / 2, torch's order of operations, in one buffer:
    the raw ops record no nodes (gelu records one) and write in place after the first. The
    half types compute in float32 and round once, as torch does (step by step in float16,
    1 + tanh cancelled the negative tail to 2000 ulp)."""
    dtype = x.dtype
    if dtype in (_dtype.float16, _dtype.bfloat16):
        x = _C.to_dtype(x, _dtype.float32)
    t = _binary(_MUL, x, x)
    for op, other in ((_MUL, x), (_MUL, 0.044715), (_ADD, x), (_MUL, _GELU_BETA)):
        _binary(op, t, other, t)
    _unary(_TANH, t, t)
    for op, other in ((_ADD, 1.0), (_MUL, x), (_MUL, 0.5)):
        _binary(op, t, other, t)
    return t if t.dtype is dtype else _C.to_dtype(t, dtype)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU: exact (erf) form, or the tanh approximation with approximate='tanh'."""
    if approximate == "tanh":
        if not (isinstance(input, TensorBase) and input.is_floating_point()):
            inner = (input + 0.044715 * input * input * input) * _GELU_BETA
            return 0.5 * input * (1.0 + _MADE["tanh"](inner))
        r = _gelu_tanh(input)
        if needs_grad(input):
            record("gelu", (input,), r, approximate="tanh")
        return r
    if approximate != "none":
        raise _C.InvalidArgumentError(
            f"gelu(): approximate must be 'none' or 'tanh', got {approximate!r}"
        )
    r = _C.unary(_GELU, input)
    if needs_grad(input):
        record("gelu", (input,), r)
    return r


def elu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    r = _C.elu(input, alpha)
    if needs_grad(input):
        record("elu", (input,), r, alpha=float(alpha))
    return r


# ------------------------------------------------------------------------------ binary


def _operands(name: str, input: Any, other: Any) -> tuple:
    if isinstance(input, complex):  # a Python complex: a 0-dim tensor that promotes as torch's
        input = complex_scalar(input, other)
    if isinstance(other, complex):
        other = complex_scalar(other, input)
    if not isinstance(input, _OK):
        input = operand(input, name, "input")
    if not isinstance(other, _OK):
        other = operand(other, name, "other")
    return input, other


def _make_binary(name: str) -> Callable[..., Tensor]:
    code = BINARY[name]
    diff = differentiable(name)

    def op(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
        if out is None and isinstance(input, TensorBase) and isinstance(other, _OK):
            r = _binary(code, input, other)
            if diff and needs_grad(input, other):
                record(name, (input, other), r)
            return r
        input, other = _operands(name, input, other)
        if out is not None:
            if diff:
                _no_out_grad(name, input, other)
            return _C.binary(code, input, other, out)
        r = _C.binary(code, input, other)
        if diff and needs_grad(input, other):
            record(name, (input, other), r)
        return r

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} with broadcasting (torch.{name})."
    return op


def _make_binary_(name: str) -> Callable[..., Tensor]:
    code = BINARY[name]

    def op_(self: Tensor, other: Any, *, alpha: Number = 1) -> Tensor:
        if isinstance(other, complex):
            other = complex_scalar(other, self)
        if not isinstance(other, _OK):
            other = operand(other, name + "_", "other")
        g = needs_grad(self, other)
        if g:
            check_inplace(self)
        if alpha != 1:
            if name not in ("add", "sub"):
                raise TypeError(f"{name}_() got an unexpected keyword argument 'alpha'")
            other = (
                _C.binary(_MUL, other, alpha) if isinstance(other, TensorBase) else other * alpha
            )
        attrs = {"alpha": alpha} if alpha != 1 else {}
        if g and name == "mul" and isinstance(other, TensorBase) and other._requires_grad:
            attrs["old"] = _C.clone(self)  # d/d(other) needs self's value before the write
        if g:
            write_inplace(name + "_", self, (other,), lambda: _C.binary(code, self, other, self),
                          **attrs)  # fmt: skip
        else:
            _C.binary(code, self, other, self)
        return self

    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = f"In-place {name} (Tensor.{name}_)."
    return op_


# ------------------------------------------------------------------------------ the tables' ops

# Ops of the tables written out in this module because they take more arguments (gelu's
# approximate, add's and sub's alpha, div's rounding_mode); every other op's function, and its
# in-place form where its facts allow one, is made here from the tables.
_WRITTEN_OUT = {"gelu", "add", "sub", "div", "div_"}


def _table_ops() -> dict[str, Callable[..., Tensor]]:
    ops: dict[str, Callable[..., Tensor]] = {}
    for table, make, make_ in (
        (UNARY, _make_unary, _make_unary_),
        (BINARY, _make_binary, _make_binary_),
    ):
        for name in table:
            ops[name] = make(name)
            if has_inplace(name):
                ops[name + "_"] = make_(name)
    return {name: fn for name, fn in ops.items() if name not in _WRITTEN_OUT}


_MADE = _table_ops()
globals().update(_MADE)
# Every table op's function and in-place function (made above or written out here), by name:
# sdk binds the functions, Tensor all of them (sdk/_tensor.py).
TABLE_FUNCTIONS = (*UNARY, *BINARY)
TABLE_INPLACE = tuple(name + "_" for name in TABLE_FUNCTIONS if has_inplace(name))

negative = _MADE["neg"]
multiply = _MADE["mul"]
greater, greater_equal, less, less_equal, not_equal = (
    _MADE[n] for n in ("gt", "ge", "lt", "le", "ne")
)


def add(input: Any, other: Any, *, alpha: Number = 1, out: Tensor | None = None) -> Tensor:
    """input + alpha * other, with broadcasting."""
    if (
        out is None
        and alpha.__class__ is int
        and alpha == 1
        and isinstance(input, TensorBase)
        and isinstance(other, _OK)
    ):
        r = _binary(_ADD, input, other)  # the common case, kept to one raw call
        if needs_grad(input, other):
            record("add", (input, other), r)
        return r
    return _add_sub("add", input, other, alpha, out)


def sub(input: Any, other: Any, *, alpha: Number = 1, out: Tensor | None = None) -> Tensor:
    """input - alpha * other, with broadcasting."""
    return _add_sub("sub", input, other, alpha, out)


subtract = sub


def _add_sub(name: str, input: Any, other: Any, alpha: Any, out: Any) -> Tensor:
    input, other = _operands(name, input, other)
    if out is not None:
        _no_out_grad(name, input, other)
    if alpha == 1 and not isinstance(alpha, float):
        r = _C.binary(_ADD if name == "add" else _SUB, input, other, out)
    elif isinstance(other, TensorBase) and isinstance(input, TensorBase):
        r = _C.add_scaled(input, other, alpha if name == "add" else -alpha, out)
    elif isinstance(other, TensorBase):  # number +/- alpha * tensor
        scaled = _C.binary(_MUL, other, alpha if name == "add" else -alpha)
        r = _C.binary(_ADD, scaled, input, out)
    else:
        r = _C.binary(_ADD if name == "add" else _SUB, input, other * alpha, out)
    if out is None and needs_grad(input, other):
        if alpha == 1:
            record(name, (input, other), r)
        else:
            record(name, (input, other), r, alpha=alpha)
    return r


def rsub(input: Tensor, other: Any, *, alpha: Number = 1) -> Tensor:
    """other - alpha * input."""
    tensor_arg(input, "rsub")
    r = _C.binary(_SUB, other, input if alpha == 1 else _C.binary(_MUL, input, alpha))
    if needs_grad(input, other):
        record("rsub", (input, other), r, alpha=alpha)
    return r


def div(
    input: Any, other: Any, *, rounding_mode: str | None = None, out: Tensor | None = None
) -> Tensor:
    """True division, or rounded with rounding_mode 'floor' / 'trunc'."""
    input, other = _operands("div", input, other)
    if rounding_mode is None:
        if out is not None:
            _no_out_grad("div", input, other)
            return _C.binary(_DIV, input, other, out)
        r = _C.binary(_DIV, input, other)
        if needs_grad(input, other):
            record("div", (input, other), r)
        return r
    mode = _rounding_code(rounding_mode)
    if out is not None:
        _no_out_grad("div", input, other)
        return _C.div_rounding(input, other, mode, out)
    r = _C.div_rounding(input, other, mode)
    if needs_grad(input, other):  # rounded quotients have zero gradient almost everywhere
        record("div", (input, other), r, rounding_mode=rounding_mode)
    return r


def _rounding_code(rounding_mode: Any) -> int:
    """torch's rounding_mode string as the C ABI's code (sdk_rounding_mode)."""
    if rounding_mode == "trunc":
        return 1
    if rounding_mode == "floor":
        return 2
    raise _C.InvalidArgumentError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
    )


divide = true_divide = div


def _weak_scalar(v: Any, like: Any) -> Any:
    """A Python number as a 0-dim tensor of the dtype torch's scalar rule gives it next to
    tensor `like` (a float keeps a floating `like`'s dtype, an int an integral one's)."""
    if isinstance(v, TensorBase):
        return v
    if not isinstance(like, TensorBase):
        return scalar_tensor(v)
    d = like.dtype
    if isinstance(v, bool) or (isinstance(v, int) and d.name != "bool"):
        return full_scalar(v, d)
    if isinstance(v, float) and d.is_floating_point:
        return full_scalar(v, d)
    return scalar_tensor(v)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """condition ? input : other (numbers allowed); where(condition) is nonzero(as_tuple=True)."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    tensor_arg(condition, "where", "condition")
    a = input if isinstance(input, TensorBase) else operand(input, "where", "input")
    b = other if isinstance(other, TensorBase) else operand(other, "where", "other")
    a, b = _weak_scalar(a, b), _weak_scalar(b, a)
    r = _C.where(condition, a, b)
    if needs_grad(input, other):
        record("where", (condition, input, other), r)
    return r


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """input with value where mask (bool, broadcast) is True."""
    v = value.item() if isinstance(value, TensorBase) else value
    r = _C.masked_fill(input, mask, v)
    if needs_grad(input, value):
        if isinstance(value, TensorBase):
            record("masked_fill", (input, mask, value), r)
        else:
            record("masked_fill", (input, mask), r, value=value)
    return r


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    g = needs_grad(self, value)
    if g:
        check_inplace(self)
    v = value.item() if isinstance(value, TensorBase) else value
    _C.masked_fill(self, mask, v, self)
    if g:
        record("masked_fill_", (self, mask), self, value=v)
    return self


# clamp with a tensor bound


def _bound(v: Any, input: Tensor) -> Any:
    """A clamp bound next to a tensor bound: None, a tensor, or a number as a 0-dim tensor
    of the dtype a Python number gets next to `input` (it promotes like a scalar)."""
    if v is None or isinstance(v, TensorBase):
        return v
    v = _number(v, "clamp", "min/max")
    d = input.dtype
    if isinstance(v, bool) or (isinstance(v, int) and d.name != "bool"):
        return full_scalar(v, d)
    if isinstance(v, float) and d.is_floating_point:
        return full_scalar(v, d)
    return scalar_tensor(v)


def clamp_tensor(input: Tensor, min: Any, max: Any, out: Tensor | None) -> Tensor:
    """clamp with a tensor bound (the other a tensor, a number or None)."""
    lo, hi = _bound(min, input), _bound(max, input)
    if out is not None:
        _no_out_grad("clamp", input, lo, hi)
        return _C.clamp_tensor(input, lo, hi, out)
    r = _C.clamp_tensor(input, lo, hi)
    if needs_grad(input, lo, hi):
        record("clamp", (input, lo, hi), r)
    return r


def clamp_tensor_(self: Tensor, min: Any, max: Any) -> Tensor:
    lo, hi = _bound(min, self), _bound(max, self)
    if not needs_grad(self, lo, hi):
        _C.clamp_tensor(self, lo, hi, self)
        return self
    check_inplace(self)
    old = self.clone()  # recorded: the bounds' gradients need self's value before the write
    _C.clamp_tensor(self, lo, hi, self)
    record("clamp", (old, lo, hi), self)
    return self


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None) -> Tensor:
    """Limit values to [min, max]; either bound may be None (numbers or tensors)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):
        return clamp_tensor(input, min, max, out)
    if out is not None:
        _no_out_grad("clamp", input)
        return _C.clamp(input, min, max, out)
    r = _C.clamp(input, min, max)
    if needs_grad(input):
        record("clamp", (input, min, max), r)
    return r


clip = clamp


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    g = needs_grad(self)
    if g:
        check_inplace(self)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):
        return clamp_tensor_(self, min, max)
    _C.clamp(self, min, max, self)
    if g:
        record("clamp_", (self,), self, min=min, max=max)
    return self


# ------------------------------------------------------------------------------ in place


_div_ = _make_binary_("div")  # div_ without rounding_mode


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """In-place div (Tensor.div_), optionally rounded ('trunc' or 'floor')."""
    if rounding_mode is None:
        return _div_(self, other)
    mode = _rounding_code(rounding_mode)
    if not isinstance(other, _OK):
        other = operand(other, "div_", "other")
    if needs_grad(self, other):
        check_inplace(self)
        write_inplace("div_", self, (other,), lambda: _C.div_rounding(self, other, mode, self),
                      rounding_mode=rounding_mode)  # fmt: skip
    else:
        _C.div_rounding(self, other, mode, self)
    return self


true_divide_ = _div_


def fill_(self: Tensor, value: Any) -> Tensor:
    """Set every element to value (a number or a one-element tensor)."""
    g = needs_grad(self, value)
    if g:
        check_inplace(self)
    v = value.item() if isinstance(value, TensorBase) else value
    if isinstance(v, complex) or self.dtype.is_complex:
        fill_complex_(self, v)
        return self
    _C.fill_(self, v)
    if g:
        record("fill_", (self, value), self)
    return self


def zero_(self: Tensor) -> Tensor:
    g = needs_grad(self)
    if g:
        check_inplace(self)
    _C.fill_(self, 0)
    if g:
        record("zero_", (self,), self)
    return self


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy src (broadcast, cast) into self."""
    if not isinstance(src, TensorBase):
        src = operand(src, "copy_", "src")
        if not isinstance(src, TensorBase):
            src = scalar_tensor(src)
    g = needs_grad(self, src)
    if g:
        check_inplace(self)
    _C.copy_(self, src)
    if g:
        record("copy_", (self, src), self)
    return self


def to_dtype(input: Tensor, dtype: Any, copy: bool = False) -> Tensor:
    """Cast (the same object when the dtype already matches and copy is False)."""
    r = _C.to_dtype(input, dtype, copy)
    if r is not input and needs_grad(input):
        if r.dtype.is_floating_point:
            record("to", (input,), r, dtype=r.dtype)
    return r


# ------------------------------------------------------------------ arithmetic slot fallbacks


def _inplace(method: str) -> Callable[[Tensor, Any], Tensor]:
    def f(a: Tensor, b: Any) -> Tensor:
        return getattr(a, method)(b)

    return f


FALLBACKS = {
    "add": add,
    "sub": lambda a, b: rsub(b, a) if not isinstance(a, TensorBase) and is_number(a) else sub(a, b),
    "mul": _MADE["mul"],
    "div": div,
    "floor_divide": _MADE["floor_divide"],
    "remainder": _MADE["remainder"],
    "pow": _MADE["pow"],
    "neg": _MADE["neg"],
    "abs": _MADE["abs"],
    "iadd": _inplace("add_"),
    "isub": _inplace("sub_"),
    "imul": _inplace("mul_"),
    "idiv": _inplace("div_"),
    "ifloordiv": _inplace("floor_divide_"),
    "imod": _inplace("remainder_"),
    "ipow": _inplace("pow_"),
    "bitwise_and": _MADE["bitwise_and"],
    "bitwise_or": _MADE["bitwise_or"],
    "bitwise_xor": _MADE["bitwise_xor"],
    "iand": _inplace("bitwise_and_"),
    "ior": _inplace("bitwise_or_"),
    "ixor": _inplace("bitwise_xor_"),
}


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float, bool))


# ------------------------------------------------------------------------------ value tests


def clamp_min(input: Tensor, min: Any) -> Tensor:
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    return clamp(input, max=max)
