"""{{name}}: the fused Mish activation as an sdk custom op, over the ctypes bridge.

Mish(x) = x * tanh(softplus(x)). Use ``mish(x)`` (differentiable) or the layer ``Mish()``.
"""

from __future__ import annotations

import os

import sdk
from cpp_extension import load_library

__all__ = ["MishFunction", "mish", "Mish"]

# The library built by setup.py next to this file; its SDK_EXPORT functions become methods.
_HERE = os.path.dirname(os.path.abspath(__file__))
_lib = load_library(os.path.join(_HERE, "_lib.so"), __name__)


class MishFunction(sdk.autograd.Function):
    """Forward and backward both run in the C++ library."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return _lib.mish_forward(input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return _lib.mish_backward(grad_output, input)


def mish(input: sdk.Tensor) -> sdk.Tensor:
    """Mish(x) = x * tanh(softplus(x)), elementwise."""
    return MishFunction.apply(input)


class Mish(sdk.nn.Module):
    """Mish as a layer."""

    def forward(self, input: sdk.Tensor) -> sdk.Tensor:
        return mish(input)
