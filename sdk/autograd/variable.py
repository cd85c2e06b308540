"""torch.autograd.Variable, which older extensions' glue still calls: since torch 0.4 every
tensor is a Variable, so Variable(t) is t detached (sharing its data), and isinstance(x,
Variable) holds for every tensor."""

from __future__ import annotations

import warnings
from typing import Any

from sdk import _C

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _C.TensorBase)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False): `data` detached, with requires_grad set."""

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, _C.TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with sdk.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out
