"""Convolution layers: Conv1d and Conv2d over nn.functional's convolutions."""

from __future__ import annotations

import math
from typing import Any

import sdk

from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d"]


class _ConvNd(Module):
    _n = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError(f"{type(self).__name__}: padding_mode {padding_mode!r} "
                                      "is not supported (only 'zeros')")  # fmt: skip
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        n = self._n
        tup = lambda v: (v,) * n if isinstance(v, int) else tuple(v)  # noqa: E731
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.dilation = tup(kernel_size), tup(stride), tup(dilation)
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.groups, self.padding_mode = groups, padding_mode
        kw = {} if dtype is None else {"dtype": dtype}
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(sdk.empty(shape, **kw))
        if bias:
            self.bias = Parameter(sdk.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")  # fmt: skip
        if self.padding not in (0, (0,) * self._n):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        return s + ("" if self.bias is not None else ", bias=False")


class Conv1d(_ConvNd):
    """1-d convolution layer over (N, C_in, L) or (C_in, L) input."""

    _n = 1

    def forward(self, input: Any) -> Any:
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)  # fmt: skip


class Conv2d(_ConvNd):
    """2-d convolution layer over (N, C_in, H, W) or (C_in, H, W) input."""

    _n = 2

    def forward(self, input: Any) -> Any:
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)  # fmt: skip
