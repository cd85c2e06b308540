"""nn.functional activations: relu, sigmoid, tanh, elu, gelu, silu, mish, softplus,
leaky_relu, hardtanh, relu6, softmax, log_softmax, prelu, hardshrink, and the composites (logsigmoid,
selu, celu, hardswish, hardsigmoid, glu, softsign, tanhshrink, threshold, rrelu)."""

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
    "hardshrink",
    "softshrink",
    "logsigmoid",
    "selu",
    "celu",
    "hardswish",
    "hardsigmoid",
    "glu",
    "softsign",
    "tanhshrink",
    "threshold",
    "rrelu",
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


prelu = _elementwise.prelu  # (Tensor.prelu too)
hardshrink = _elementwise.hardshrink  # (Tensor.hardshrink too)
softshrink = _elementwise.softshrink


# The composites below are built from differentiable sdk ops, so autograd needs no new rules.

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _apply(fn: Any, input: Any, inplace: bool) -> Any:
    """fn(input), or (inplace) fn's result written into input, which is returned; fn reads a
    clone then, since autograd may have saved the input that the write changes."""
    if not inplace:
        return fn(input)
    src = input.clone() if input.requires_grad and sdk.is_grad_enabled() else input
    return input.copy_(fn(src))


def _float_arg(v: Any, fn: str, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{fn}(): argument '{name}' must be a number, not {type(v).__name__}")
    return float(v)


def logsigmoid(input: Any) -> Any:
    """log(sigmoid(x)) = -softplus(-x), which stays finite for large |x|."""
    check_tensor(input, "logsigmoid")
    return -_elementwise.softplus(-input, 1.0, 20.0)


def selu(input: Any, inplace: bool = False) -> Any:
    """scale * elu(x, alpha) with the self-normalizing constants."""
    check_tensor(input, "selu")
    return _apply(lambda x: sdk.elu(x, alpha=_SELU_ALPHA) * _SELU_SCALE, input, inplace)


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """x if x > 0 else alpha * (exp(x / alpha) - 1), i.e. alpha * elu(x / alpha)."""
    check_tensor(input, "celu")
    alpha = _float_arg(alpha, "celu", "alpha")
    if alpha == 0:
        raise ValueError("celu(): argument 'alpha' must not be 0")
    return _apply(lambda x: sdk.elu(x / alpha, alpha=1.0) * alpha, input, inplace)


def hardswish(input: Any, inplace: bool = False) -> Any:
    """x * relu6(x + 3) / 6 (relu6 passes no gradient at its ends, so at -3 and 3 the
    gradient is 0 and 1, as torch's)."""
    check_tensor(input, "hardswish")
    return _apply(lambda x: x * (_elementwise.relu6(x + 3.0) / 6.0), input, inplace)


def hardsigmoid(input: Any, inplace: bool = False) -> Any:
    """relu6(x + 3) / 6."""
    check_tensor(input, "hardsigmoid")
    return _apply(lambda x: _elementwise.relu6(x + 3.0) / 6.0, input, inplace)


def glu(input: Any, dim: int = -1) -> Any:
    """a * sigmoid(b), a and b the two halves of input along dim."""
    check_tensor(input, "glu")
    if input.ndim == 0:
        raise ValueError("glu(): input must have at least one dimension (got a 0-d tensor)")
    if isinstance(dim, bool) or not isinstance(dim, int) or not -input.ndim <= dim < input.ndim:
        raise IndexError(
            f"glu(): argument 'dim' ({dim!r}) is out of range for {input.ndim}-d input"
        )
    n = input.shape[dim]
    if n % 2:
        raise ValueError(f"glu(): halving dimension must be even, but dim {dim} has size {n}")
    a, b = input.narrow(dim, 0, n // 2), input.narrow(dim, n // 2, n // 2)
    return a * sdk.sigmoid(b)


def softsign(input: Any) -> Any:
    """x / (1 + |x|)."""
    check_tensor(input, "softsign")
    return input / (input.abs() + 1.0)


def tanhshrink(input: Any) -> Any:
    """x - tanh(x)."""
    check_tensor(input, "tanhshrink")
    return input - sdk.tanh(input)


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Any:
    """x where x > threshold, else value (the gradient passes where x > threshold)."""
    check_tensor(input, "threshold")
    _float_arg(threshold, "threshold", "threshold")
    _float_arg(value, "threshold", "value")
    return _apply(lambda x: sdk.where(x > threshold, x, value), input, inplace)


def rrelu(input: Any, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Any:  # fmt: skip
    """x if x >= 0 else a * x: in training a is drawn uniformly from [lower, upper] per element,
    in eval a = (lower + upper) / 2."""
    check_tensor(input, "rrelu")
    lower, upper = _float_arg(lower, "rrelu", "lower"), _float_arg(upper, "rrelu", "upper")
    if lower > upper:
        raise ValueError(f"rrelu(): argument 'lower' ({lower}) must not exceed 'upper' ({upper})")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    with sdk.no_grad():
        slope = sdk.empty_like(input).uniform_(lower, upper)
    return _apply(lambda x: sdk.where(x >= 0, x, x * slope), input, inplace)
