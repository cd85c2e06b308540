"""{{name}}: the fused Mish activation as registered sdk operators.

Mish(x) = x * tanh(softplus(x)). Use ``mish(x)`` (differentiable), the layer ``Mish()``, or
the operator itself, ``sdk.ops.{{name}}.mish``.
"""

from __future__ import annotations

import sdk
import sdk.library

from . import _C  # noqa: F401  (loading the library registers its operators)

__all__ = ["mish", "Mish"]


def _setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def _backward(ctx, grad_output):
    (input,) = ctx.saved_tensors
    return sdk.ops.{{name}}.mish_backward(grad_output, input)


# the operator's derivative, used whenever its input requires grad
sdk.library.register_autograd("{{name}}::mish", _backward, setup_context=_setup_context)


def mish(input: sdk.Tensor) -> sdk.Tensor:
    """Mish(x) = x * tanh(softplus(x)), elementwise."""
    return sdk.ops.{{name}}.mish(input)


class Mish(sdk.nn.Module):
    """Mish as a layer."""

    def forward(self, input: sdk.Tensor) -> sdk.Tensor:
        return mish(input)
