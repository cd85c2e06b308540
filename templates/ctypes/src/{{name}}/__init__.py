"""{{name}}: the fused Mish activation as an sdk custom op, over the ctypes bridge.

Mish(x) = x * tanh(softplus(x)). Use ``mish(x)`` (differentiable) or the layer ``Mish()``.
"""

from __future__ import annotations

import glob
import os

import sdk
from cpp_extension import load_library

__all__ = ["MishFunction", "mish", "Mish"]

# The library built by setup.py next to this file (_lib.so, or _lib.abi3.so and the like when
# built with a Python suffix); its SDK_EXPORT functions become methods.
_HERE = os.path.dirname(os.path.abspath(__file__))
_found = sorted(glob.glob(os.path.join(glob.escape(_HERE), "_lib*.so")))
if not _found:
    raise ImportError(f"{__name__}: no compiled _lib*.so in {_HERE}; build it: pip install .")
_lib = load_library(_found[0], __name__)


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
