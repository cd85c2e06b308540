"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d over nn.functional's convolutions."""

from __future__ import annotations

import math
from typing import Any

import sdk

from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    _n = 0
    _transposed = False  # weight (in, out / groups, *k) rather than (out, in / groups, *k)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {sorted(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")  # fmt: skip
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        n = self._n
        tup = lambda v: (v,) * n if isinstance(v, int) else tuple(v)  # noqa: E731
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.dilation = tup(kernel_size), tup(stride), tup(dilation)
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.groups, self.padding_mode = groups, padding_mode
        # F.pad's (last dim first, both sides) form of the padding, for the non-zero modes
        if self.padding == "same":
            pairs = []
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                pairs += [total // 2, total - total // 2]
        elif self.padding == "valid":
            pairs = [0] * (2 * n)
        else:
            pairs = [p for p in reversed(self.padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = tuple(pairs)
        kw = {} if dtype is None else {"dtype": dtype}
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(sdk.empty(shape, **kw))
        if bias:
            self.bias = Parameter(sdk.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def _conv_forward(self, conv: Any, input: Any) -> Any:
        """conv(input) with this layer's parameters; a padding_mode other than zeros pads
        with F.pad first, as torch does."""
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding: Any = 0
        else:
            padding = self.padding
        return conv(input, self.weight, self.bias, self.stride, padding, self.dilation,
                    self.groups)  # fmt: skip

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
        s += "" if self.bias is not None else ", bias=False"
        return s + ("" if self.padding_mode == "zeros" else f", padding_mode={self.padding_mode}")


class Conv1d(_ConvNd):
    """1-d convolution layer over (N, C_in, L) or (C_in, L) input."""

    _n = 1

    def forward(self, input: Any) -> Any:
        return self._conv_forward(F.conv1d, input)


class Conv2d(_ConvNd):
    """2-d convolution layer over (N, C_in, H, W) or (C_in, H, W) input."""

    _n = 2

    def forward(self, input: Any) -> Any:
        return self._conv_forward(F.conv2d, input)


class Conv3d(_ConvNd):
    """3-d convolution layer over (N, C_in, D, H, W) or (C_in, D, H, W) input."""

    _n = 3

    def forward(self, input: Any) -> Any:
        return self._conv_forward(F.conv3d, input)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple, got "
                             f"{padding!r}")  # fmt: skip
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)  # fmt: skip
        n = self._n
        self.output_padding = (
            (output_padding,) * n if isinstance(output_padding, int) else tuple(output_padding)
        )

    def _output_padding(self, input: Any, output_size: Any) -> tuple:
        """output_padding, or the one that gives output_size (its last n entries)."""
        if output_size is None:
            return self.output_padding
        n = self._n
        want = tuple(output_size)[-n:]
        if len(want) != n:
            raise ValueError(f"{type(self).__name__}: output_size must have {n} or more "
                             f"entries, got {output_size}")  # fmt: skip
        pads = []
        for i in range(n):
            size = input.shape[input.ndim - n + i]
            least = ((size - 1) * self.stride[i] - 2 * self.padding[i]
                     + self.dilation[i] * (self.kernel_size[i] - 1) + 1)  # fmt: skip
            extra = want[i] - least
            if not 0 <= extra < max(self.stride[i], self.dilation[i]):
                raise ValueError(f"requested an output size of {list(want)}, but valid sizes "
                                 f"along dim {i} are {least} to "
                                 f"{least + max(self.stride[i], self.dilation[i]) - 1}")  # fmt: skip
            pads.append(extra)
        return tuple(pads)


class ConvTranspose1d(_ConvTransposeNd):
    """The transpose of Conv1d (its gradient), over (N, C_in, L) or (C_in, L) input."""

    _n = 1

    def forward(self, input: Any, output_size: Any = None) -> Any:
        op = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op,
                                  self.groups, self.dilation)  # fmt: skip


class ConvTranspose2d(_ConvTransposeNd):
    """The transpose of Conv2d (its gradient), over (N, C_in, H, W) or (C_in, H, W) input."""

    _n = 2

    def forward(self, input: Any, output_size: Any = None) -> Any:
        op = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op,
                                  self.groups, self.dilation)  # fmt: skip
