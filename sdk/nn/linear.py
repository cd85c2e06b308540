"""Linear layers: Identity and Linear (torch.nn.modules.linear)."""

from __future__ import annotations

import math
from typing import Any

import sdk

from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Identity", "Linear"]


class Identity(Module):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Linear(Module):
    """y = x @ weight.T + bias; weight (out, in) and bias init U(-1/sqrt(in), 1/sqrt(in))."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        kw = {} if dtype is None else {"dtype": dtype}
        self.weight = Parameter(sdk.empty(out_features, in_features, **kw))
        if bias:
            self.bias = Parameter(sdk.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        if device is not None:
            self.to(device)  # cpu, or a clear error for devices Modules do not support

    def reset_parameters(self) -> None:
        # kaiming_uniform_(a=sqrt(5)) gives bound 1/sqrt(fan_in), torch's default.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Any) -> Any:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
