"""complex64 and complex128 beyond the core's kernels: their views (view_as_real/complex, real,
imag), conj, Python complex numbers as operands and fill values, and complex sums, all composed
over the parts' view so that no other kernel compiles the complex types."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._dtype import TORCH_NAMES, as_dtype, get_default_dtype
from sdk._ops_common import TensorBase, needs_grad, tensor_arg

Tensor = Any

__all__ = ["view_as_real", "view_as_complex", "real", "imag", "conj", "conj_physical",
           "resolve_conj", "resolve_neg", "is_complex", "is_conj"]  # fmt: skip


def _no_grad(op: str, t: Any) -> None:
    # The SDK's autograd has no complex derivatives: refuse rather than record a wrong one.
    if needs_grad(t):
        raise RuntimeError(f"{op}(): complex tensors do not support automatic differentiation")


def is_complex(input: Tensor) -> bool:
    """Whether input's dtype is complex64 or complex128."""
    tensor_arg(input, "is_complex")
    return input.dtype.is_complex


def is_conj(input: Tensor) -> bool:
    """Always False: conj() makes a new tensor here, never a lazily conjugated view."""
    tensor_arg(input, "is_conj")
    return False


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor's memory as its parts' dtype, with a last dim of 2 (real, imaginary)."""
    tensor_arg(input, "view_as_real")
    _no_grad("view_as_real", input)
    return _C.view_as_real(input)


def view_as_complex(input: Tensor) -> Tensor:
    """The inverse of view_as_real: a float32/float64 tensor whose last dim has size 2 and
    stride 1 read as complex64/complex128 (shared memory)."""
    tensor_arg(input, "view_as_complex")
    _no_grad("view_as_complex", input)
    return _C.view_as_complex(input)


def _part(input: Tensor, index: int, op: str) -> Tensor:
    tensor_arg(input, op)
    if not input.dtype.is_complex:
        if index == 0:
            return input  # torch: real() of a real tensor is the tensor itself
        raise RuntimeError(f"{op}(): imag is not implemented for tensors with non-complex dtypes")
    _no_grad(op, input)
    return _C.select(_C.view_as_real(input), -1, index)


def real(input: Tensor) -> Tensor:
    """The real parts, as a view (a real tensor's real() is itself)."""
    return _part(input, 0, "real")


def imag(input: Tensor) -> Tensor:
    """The imaginary parts, as a view; complex tensors only."""
    return _part(input, 1, "imag")


def conj(input: Tensor) -> Tensor:
    """The complex conjugate. A new tensor (torch returns a lazily conjugated view; the SDK
    has no conjugate bit, so the values are written out); a real tensor is returned as is."""
    tensor_arg(input, "conj")
    if not input.dtype.is_complex:
        return input
    _no_grad("conj", input)
    out = _C.clone(input)
    imag_part = _C.select(_C.view_as_real(out), -1, 1)
    _C.unary(_NEG, imag_part, imag_part)
    return out


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate, written out (for a real tensor a copy, as torch)."""
    tensor_arg(input, "conj_physical")
    return conj(input) if input.dtype.is_complex else _C.clone(input)


def resolve_conj(input: Tensor) -> Tensor:
    """input itself: the SDK's conj() is never lazy, so nothing is left to resolve."""
    tensor_arg(input, "resolve_conj")
    return input


def resolve_neg(input: Tensor) -> Tensor:
    """input itself: the SDK has no lazy negation."""
    tensor_arg(input, "resolve_neg")
    return input


# ------------------------------------------------------------------ Python complex numbers


def complex_full(size: Any, value: complex, dtype: Any) -> Tensor:
    """A tensor of `size` and the complex `dtype` holding `value`."""
    d = as_dtype(dtype)
    if not d.is_complex:
        raise TypeError(f"a complex value ({value!r}) does not fit a {d.name} tensor")
    t = _C.full(size, float(value.real), d)
    fill_complex_(t, value)
    return t


def fill_complex_(t: Tensor, value: Any) -> Tensor:
    """Set every element of the complex tensor t to value (a number; a real one has imag 0)."""
    v = complex(value)
    if not t.dtype.is_complex:
        if v.imag != 0:
            raise TypeError(f"fill_(): a complex value ({value!r}) does not fit a {t.dtype.name} "
                            "tensor")  # fmt: skip
        return _C.fill_(t, v.real)
    parts = _C.view_as_real(t)
    _C.fill_(_C.select(parts, -1, 0), v.real)
    _C.fill_(_C.select(parts, -1, 1), v.imag)
    return t


def default_complex_dtype() -> Any:
    """torch's default complex dtype: complex128 when the default float is float64, else
    complex64."""
    return TORCH_NAMES["complex128" if get_default_dtype().name == "float64" else "complex64"]


def complex_scalar(v: complex, like: Any = None) -> Tensor:
    """A Python complex as a 0-dim tensor for a binary op with `like`. Beside a floating or
    complex tensor it is complex128 (the number exactly), and promotion then keeps the
    tensor's width (float32 * 1j is complex64, float64 * 1j complex128, as torch); beside any
    other it is the default complex dtype."""
    wide = isinstance(like, TensorBase) and (like.dtype.is_floating_point or like.dtype.is_complex)
    return complex_full((), v, TORCH_NAMES["complex128"] if wide else default_complex_dtype())


# ------------------------------------------------------------------ reductions


def reduce_complex(code: int, op: str, input: Tensor, dims: Any, keepdim: bool) -> Tensor:
    """sum or mean of a complex tensor: the reduction of its parts' view over the same dims
    (never the parts' dim), read back as complex."""
    _no_grad(op, input)
    dims = tuple(range(input.ndim)) if dims is None else tuple(dims)
    if not dims:  # nothing to reduce (a 0-dim input): the values, as a new tensor
        return _C.clone(input)
    r = _C.reduce(code, _C.view_as_real(input), dims, keepdim, None)
    return _C.view_as_complex(_C.contiguous(r))


_NEG = _C.UNARY_OPS["neg"]
