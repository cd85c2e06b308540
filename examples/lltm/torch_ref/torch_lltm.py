"""The baseline: lltm_torch.cpp built with torch.utils.cpp_extension.load, wrapped like lltm.py.

Used by benchmark.py only when torch is importable; the SDK never depends on torch.
"""

from __future__ import annotations

import math
import os

import torch
from torch.utils.cpp_extension import load

_ext = None


def extension():
    global _ext
    if _ext is None:
        here = os.path.dirname(os.path.abspath(__file__))
        _ext = load(
            name="lltm_torch",
            sources=[os.path.join(here, "lltm_torch.cpp")],
            extra_cflags=["-O3"],
        )
    return _ext


class TorchLLTMFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weights, bias, old_h, old_cell):
        outputs = extension().forward(input, weights, bias, old_h, old_cell)
        new_h, new_cell = outputs[:2]
        ctx.save_for_backward(*outputs[1:], weights)
        return new_h, new_cell

    @staticmethod
    def backward(ctx, grad_h, grad_cell):
        d_old_h, d_input, d_weights, d_bias, d_old_cell = extension().backward(
            grad_h.contiguous(), grad_cell.contiguous(), *ctx.saved_tensors
        )
        return d_input, d_weights, d_bias, d_old_h, d_old_cell


class TorchLLTM(torch.nn.Module):
    def __init__(self, input_features: int, state_size: int) -> None:
        super().__init__()
        self.state_size = state_size
        self.weights = torch.nn.Parameter(torch.empty(3 * state_size, input_features + state_size))
        self.bias = torch.nn.Parameter(torch.empty(1, 3 * state_size))
        bound = 1.0 / math.sqrt(state_size)
        for weight in self.parameters():
            weight.data.uniform_(-bound, bound)

    def forward(self, input, state):
        return TorchLLTMFunction.apply(input, self.weights, self.bias, *state)
