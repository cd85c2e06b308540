"""The LLTM autograd Function and Module over any backend: pybind11, ctypes or pure Python.

A backend is anything with ``forward(input, weights, bias, old_h, old_cell)`` returning
[h', C', i, o, c~, X, G] and ``backward(grad_h, grad_cell, C', i, o, c~, X, G, W)`` returning
[d_old_h, d_input, dW, db, d_old_cell]: the module built from lltm.cpp, the ctypes library
built from lltm_ctypes.cpp, or lltm_py. ``load_backend(variant)`` builds/loads one.
"""

from __future__ import annotations

import math
import os
from types import ModuleType
from typing import Any

import sdk

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("cpp", "ctypes", "py")
_loaded: dict[str, Any] = {}


def load_backend(variant: str = "cpp", verbose: bool = False) -> Any:
    """Build (once per process; cached on disk by cpp_extension) and return a backend."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown LLTM variant {variant!r}; expected one of {VARIANTS}")
    if variant not in _loaded:
        if variant == "py":
            import lltm_py

            _loaded[variant] = lltm_py
        else:
            from cpp_extension import load

            source = "lltm.cpp" if variant == "cpp" else "lltm_ctypes.cpp"
            ext = load(
                name=f"lltm_{variant}",
                sources=[os.path.join(HERE, source)],
                extra_cflags=["-O3"],
                verbose=verbose,
                is_python_module=variant == "cpp",
            )
            _loaded[variant] = ext if variant == "cpp" else CtypesBackend(ext)
    return _loaded[variant]


class CtypesBackend:
    """The C-ABI library's exported lltm_forward / lltm_backward under the backend names."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.forward = lib.lltm_forward
        self.backward = lib.lltm_backward


class LLTMFunction(sdk.autograd.Function):
    """(input, weights, bias, old_h, old_cell, backend) -> (h', C'), backward by the backend."""

    @staticmethod
    def forward(ctx, input, weights, bias, old_h, old_cell, backend: ModuleType):
        outputs = backend.forward(input, weights, bias, old_h, old_cell)
        new_h, new_cell = outputs[:2]
        ctx.backend = backend
        ctx.save_for_backward(*outputs[1:], weights)
        return new_h, new_cell

    @staticmethod
    def backward(ctx, grad_h, grad_cell):
        d_old_h, d_input, d_weights, d_bias, d_old_cell = ctx.backend.backward(
            grad_h, grad_cell, *ctx.saved_tensors
        )
        return d_input, d_weights, d_bias, d_old_h, d_old_cell, None


class LLTM(sdk.nn.Module):
    """One LLTM cell: forward(input, (h, C)) -> (h', C')."""

    def __init__(self, input_features: int, state_size: int, backend: Any = "cpp") -> None:
        super().__init__()
        self.input_features = input_features
        self.state_size = state_size
        self.backend = load_backend(backend) if isinstance(backend, str) else backend
        self.weights = sdk.nn.Parameter(sdk.empty(3 * state_size, input_features + state_size))
        self.bias = sdk.nn.Parameter(sdk.empty(1, 3 * state_size))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.state_size)
        for weight in self.parameters():
            weight.data.uniform_(-bound, bound)

    def forward(self, input, state):
        return LLTMFunction.apply(input, self.weights, self.bias, *state, self.backend)
