"""{{name}}: the fused Mish activation as an sdk custom op.

Mish(x) = x * tanh(softplus(x)). Use ``mish(x)`` (differentiable) or the layer ``Mish()``.
"""

from __future__ import annotations

import sdk

from . import _C

__all__ = ["MishFunction", "mish", "Mish"]


class MishFunction(sdk.autograd.Function):
    """Forward and backward both run in the C++ extension."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return _C.forward(input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return _C.backward(grad_output.contiguous(), input)


def mish(input: sdk.Tensor) -> sdk.Tensor:
    """Mish(x) = x * tanh(softplus(x)), elementwise."""
    return MishFunction.apply(input)


class Mish(sdk.nn.Module):
    """Mish as a layer."""

    def forward(self, input: sdk.Tensor) -> sdk.Tensor:
        return mish(input)
