"""nn.Parameter: a leaf tensor that Modules register as a learnable parameter."""

from __future__ import annotations

from typing import Any

import sdk
from sdk import _C
from sdk._tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A Tensor that requires grad by default and is registered when assigned to a Module.

    ``Parameter(data)`` shares ``data``'s storage (no copy) and starts a fresh leaf.
    """

    __slots__ = ()

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = sdk.empty(0)
        t = _C._alias(data)  # new object on the same storage, no autograd state
        t.__class__ = cls  # same C layout (__slots__ = ()): a class swap, not a copy
        if requires_grad:
            from sdk.autograd.graph import set_requires_grad  # lazy: sdk.autograd is heavy

            set_requires_grad(t, True)
        return t

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(_C.clone(_C._alias(self)), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto: Any) -> Any:
        raise TypeError("sdk tensors are not pickled; use sdk.save / sdk.load")
