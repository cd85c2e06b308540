"""The Python side of muladd_ops: functions over sdk.ops.muladd_ops, and their derivatives.

The operators themselves are registered by the C++ library (csrc/muladd.cpp, csrc/muladd.cu);
this module gives them torch-style Python functions and registers how to differentiate them.
"""

from __future__ import annotations

import sdk
import sdk.library

__all__ = ["mymuladd", "mymul", "myadd_out"]


def mymuladd(a: sdk.Tensor, b: sdk.Tensor, c: float) -> sdk.Tensor:
    """a * b + c (a and b float32 tensors of one shape)."""
    return sdk.ops.muladd_ops.mymuladd.default(a, b, c)


def mymul(a: sdk.Tensor, b: sdk.Tensor) -> sdk.Tensor:
    """a * b."""
    return sdk.ops.muladd_ops.mymul.default(a, b)


def myadd_out(a: sdk.Tensor, b: sdk.Tensor, out: sdk.Tensor) -> None:
    """Writes a + b into out."""
    sdk.ops.muladd_ops.myadd_out.default(a, b, out)


def _setup_context(ctx, inputs, output):
    a, b, *_ = inputs
    saved_b = b if ctx.needs_input_grad[0] else None
    saved_a = a if ctx.needs_input_grad[1] else None
    ctx.save_for_backward(saved_a, saved_b)


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = sdk.ops.muladd_ops.mymul.default(grad, b) if ctx.needs_input_grad[0] else None
    grad_b = sdk.ops.muladd_ops.mymul.default(grad, a) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


# mymuladd's derivative: d/da = grad * b, d/db = grad * a (c is not differentiated)
sdk.library.register_autograd("muladd_ops::mymuladd", _backward, setup_context=_setup_context)


def _mul_backward(ctx, grad):
    grad_a, grad_b, _ = _backward(ctx, grad)
    return grad_a, grad_b


sdk.library.register_autograd("muladd_ops::mymul", _mul_backward, setup_context=_setup_context)


# Shape functions: the outputs' shapes and dtypes without running the kernels (meta tensors,
# opcheck, and torch.compile / jax.jit once sdk.interop registers the library there).
# myadd_out returns nothing, so it needs none.
sdk.library.register_fake("muladd_ops::mymuladd", lambda a, b, c: sdk.empty_like(a))
sdk.library.register_fake("muladd_ops::mymul", lambda a, b: sdk.empty_like(a))
