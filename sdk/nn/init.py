"""Parameter initialisation (in place, without recording), with torch's formulas and defaults."""

from __future__ import annotations

import math
from typing import Any

import sdk
from sdk import _C
from sdk.grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "zeros_",
    "ones_",
    "constant_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "trunc_normal_",
    "orthogonal_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (torch's table)."""
    linear = (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    )
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Any) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:]) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Any, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Any, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Any:
    with no_grad():
        return (
            tensor.uniform_(a, b, generator=generator)
            if generator is not None
            else tensor.uniform_(a, b)
        )


def normal_(tensor: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Any:
    with no_grad():
        return (
            tensor.normal_(mean, std, generator=generator)
            if generator is not None
            else tensor.normal_(mean, std)
        )


def constant_(tensor: Any, val: float) -> Any:
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Any) -> Any:
    return constant_(tensor, 0.0)


def ones_(tensor: Any) -> Any:
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: Any,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Any:
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Any,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Any:
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def _check_tensor(tensor: Any, fn: str) -> None:
    if not isinstance(tensor, _C.TensorBase):
        raise TypeError(f"{fn}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


def trunc_normal_(tensor: Any, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Any:  # fmt: skip
    """Fill with N(mean, std^2) truncated to [a, b]: uniform draws between the normal CDF at
    a and at b, mapped back through the inverse CDF (sqrt(2) * erfinv(2u - 1))."""
    _check_tensor(tensor, "trunc_normal_")
    if not std > 0 or not a < b:
        raise ValueError(f"trunc_normal_: need std > 0 and a < b, got std={std}, a={a}, b={b}")

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    with no_grad():
        uniform_(tensor, 2 * lo - 1, 2 * hi - 1, generator)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
    return tensor


def orthogonal_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    """Fill a (rows, *) tensor with a (semi-)orthogonal matrix times gain: the Q of the QR
    decomposition of a normal random matrix, signs fixed by R's diagonal (numpy's QR)."""
    import numpy as np

    _check_tensor(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = sdk.empty(rows, cols, dtype=sdk.float64)
    normal_(flat, 0.0, 1.0, generator)
    m = flat.numpy()
    if rows < cols:
        m = m.T
    q, r = np.linalg.qr(m)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.copy_(sdk.tensor(q * gain, dtype=tensor.dtype).reshape(tensor.shape))
    return tensor
