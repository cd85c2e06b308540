"""nn.functional activations: relu, sigmoid, tanh, elu, gelu, silu, mish, softplus,
leaky_relu, hardtanh, relu6, softmax, log_softmax."""

from __future__ import annotations

from typing import Any

import sdk
from sdk import _ops_elementwise as _elementwise

from .common import check_tensor

__all__ = [
    "relu",
    "sigmoid",
    "tanh",
    "elu",
    "gelu",
    "silu",
    "mish",
    "softplus",
    "leaky_relu",
    "hardtanh",
    "relu6",
    "softmax",
    "log_softmax",
    "prelu",
]


def relu(input: Any, inplace: bool = False) -> Any:
    return input.relu_() if inplace else sdk.relu(input)


def sigmoid(input: Any) -> Any:
    return sdk.sigmoid(input)


def tanh(input: Any) -> Any:
    return sdk.tanh(input)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    if inplace:
        return _elementwise.elu_(input, alpha)
    return sdk.elu(input, alpha=alpha)


def gelu(input: Any, approximate: str = "none") -> Any:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return sdk.gelu(input, approximate=approximate)


def silu(input: Any, inplace: bool = False) -> Any:
    """x * sigmoid(x)."""
    return _elementwise.silu(input, inplace)


def mish(input: Any, inplace: bool = False) -> Any:
    """x * tanh(softplus(x))."""
    return _elementwise.mish(input, inplace)


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """log(1 + exp(beta * x)) / beta, linear where beta * x > threshold."""
    return _elementwise.softplus(input, beta, threshold)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    """x if x > 0 else negative_slope * x."""
    return _elementwise.leaky_relu(input, negative_slope, inplace)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:
    """x clamped to [min_val, max_val]."""
    return _elementwise.hardtanh(input, min_val, max_val, inplace)


def relu6(input: Any, inplace: bool = False) -> Any:
    """min(max(x, 0), 6)."""
    return _elementwise.relu6(input, inplace)


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Any:
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return sdk.softmax(input, dim)


def log_softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Any:
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return sdk.log_softmax(input, dim)


def prelu(input: Any, weight: Any) -> Any:
    """max(0, x) + weight * min(0, x), weight one value or one per channel (dim 1, or dim 0
    of a 1-d input)."""
    check_tensor(input, "prelu")
    check_tensor(weight, "prelu", "weight")
    n = weight.numel()
    if n != 1:
        ch = 1 if input.ndim >= 2 else 0
        if weight.ndim != 1 or input.ndim == 0 or input.shape[ch] != n:
            raise RuntimeError(
                f"prelu: mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {n} and channel size = {input.shape[ch] if input.ndim else 1}."
            )
        weight = weight.reshape(n, *([1] * (input.ndim - ch - 1)))
    return sdk.where(input > 0, input, weight * input)
