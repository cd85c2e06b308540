"""Padding layers (torch.nn.modules.padding): Zero/Constant/Reflection/Replication/CircularPad
in 1, 2 and 3 dims, each one F.pad call."""

from __future__ import annotations

from typing import Any

from . import functional as F
from .module import Module

__all__ = [
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]


def _padding(padding: Any, n: int, cls: str) -> tuple:
    """An int pads every side; otherwise exactly 2 * n ints (last dim's left, right, ...)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * (2 * n)
    t = tuple(padding) if isinstance(padding, (tuple, list)) else None
    if (
        t is None
        or len(t) != 2 * n
        or not all(isinstance(p, int) and not isinstance(p, bool) for p in t)
    ):
        raise TypeError(
            f"{cls}: padding must be an int or a tuple of {2 * n} ints, got {padding!r}"
        )
    return t


class _Pad(Module):
    mode = "constant"
    dims = 1

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _padding(padding, self.dims, type(self).__name__)

    def forward(self, input: Any) -> Any:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Any) -> Any:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    dims = 1


class ConstantPad2d(_ConstantPad):
    dims = 2


class ConstantPad3d(_ConstantPad):
    dims = 3


class _ZeroPad(_ConstantPad):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad):
    dims = 1


class ZeroPad2d(_ZeroPad):
    dims = 2


class ZeroPad3d(_ZeroPad):
    dims = 3


class ReflectionPad1d(_Pad):
    mode, dims = "reflect", 1


class ReflectionPad2d(_Pad):
    mode, dims = "reflect", 2


class ReflectionPad3d(_Pad):
    mode, dims = "reflect", 3


class ReplicationPad1d(_Pad):
    mode, dims = "replicate", 1


class ReplicationPad2d(_Pad):
    mode, dims = "replicate", 2


class ReplicationPad3d(_Pad):
    mode, dims = "replicate", 3


class CircularPad1d(_Pad):
    mode, dims = "circular", 1


class CircularPad2d(_Pad):
    mode, dims = "circular", 2


class CircularPad3d(_Pad):
    mode, dims = "circular", 3
