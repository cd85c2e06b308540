"""Activation modules (ReLU, PReLU, Tanh, Sigmoid, ELU, GELU, SiLU, Mish, Softplus, LeakyReLU,
Hardtanh, ReLU6, Softmax, LogSoftmax, LogSigmoid, SELU, CELU, Hardswish, Hardsigmoid, GLU,
Softsign, Tanhshrink, Threshold, RReLU)."""

from __future__ import annotations

from typing import Any

import sdk

from . import functional as F
from .module import Module
from .parameter import Parameter

__all__ = [
    "ReLU",
    "PReLU",
    "Tanh",
    "Sigmoid",
    "ELU",
    "GELU",
    "SiLU",
    "Mish",
    "Softplus",
    "LeakyReLU",
    "Hardtanh",
    "ReLU6",
    "Softmax",
    "LogSoftmax",
    "LogSigmoid",
    "SELU",
    "CELU",
    "Hardswish",
    "Hardsigmoid",
    "GLU",
    "Softsign",
    "Tanhshrink",
    "Threshold",
    "RReLU",
]


class _Activation(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class ReLU(_Activation):
    def forward(self, input: Any) -> Any:
        return F.relu(input)


class Tanh(Module):
    def forward(self, input: Any) -> Any:
        return F.tanh(input)


class Sigmoid(Module):
    def forward(self, input: Any) -> Any:
        return F.sigmoid(input)


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, input: Any) -> Any:
        return F.elu(input, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Any) -> Any:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.silu(input, inplace=self.inplace)


class Mish(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.mish(input, inplace=self.inplace)


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Any) -> Any:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise ValueError(
                f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})"
            )
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input: Any) -> Any:
        return F.relu6(input, self.inplace)


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Any:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input: Any) -> Any:
        return F.log_softmax(input, self.dim)


class PReLU(Module):
    """max(0, x) + weight * min(0, x) with a learnable weight: one value, or one per channel
    (num_parameters), initialized to `init`."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if (
            isinstance(num_parameters, bool)
            or not isinstance(num_parameters, int)
            or num_parameters < 1
        ):
            raise ValueError(
                f"PReLU: num_parameters must be a positive int, got {num_parameters!r}"
            )
        self.num_parameters, self.init = num_parameters, init
        kw = {} if dtype is None else {"dtype": dtype}
        self.weight = Parameter(sdk.full((num_parameters,), float(init), **kw))
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        with sdk.no_grad():
            self.weight.fill_(self.init)

    def forward(self, input: Any) -> Any:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class LogSigmoid(Module):
    def forward(self, input: Any) -> Any:
        return F.logsigmoid(input)


class Softsign(Module):
    def forward(self, input: Any) -> Any:
        return F.softsign(input)


class Tanhshrink(Module):
    def forward(self, input: Any) -> Any:
        return F.tanhshrink(input)


class SELU(_Activation):
    def forward(self, input: Any) -> Any:
        return F.selu(input, self.inplace)


class Hardswish(_Activation):
    def forward(self, input: Any) -> Any:
        return F.hardswish(input, self.inplace)


class Hardsigmoid(_Activation):
    def forward(self, input: Any) -> Any:
        return F.hardsigmoid(input, self.inplace)


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Any) -> Any:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class GLU(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Any) -> Any:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Any) -> Any:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}"


class RReLU(Module):
    """Randomized leaky ReLU: negative slopes drawn from U(lower, upper) in training, their
    mean in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Any) -> Any:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}"
