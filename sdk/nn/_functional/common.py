"""nn.functional's argument checks shared by every kind."""

from __future__ import annotations

from typing import Any

import sdk

__all__ = ["check_tensor"]


def check_tensor(x: Any, fn: str, name: str = "input") -> Any:
    if not isinstance(x, sdk._C.TensorBase):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _tuple(v: Any, n: int, fn: str, what: str) -> tuple:
    t = (v,) * n if isinstance(v, int) else tuple(v) if isinstance(v, (tuple, list)) else None
    if t is not None and len(t) == 1:
        t = t * n
    if t is None or len(t) != n or not all(isinstance(x, int) and not isinstance(x, bool)
                                           for x in t):  # fmt: skip
        raise TypeError(f"{fn}: {what} must be an int or a tuple of {n} ints, got {v!r}")
    return t


def _triple(v: Any, n: int, name: str, what: str) -> tuple:
    t = (v,) * n if isinstance(v, int) else tuple(v)
    if len(t) == 1:
        t = t * n
    if len(t) != n or not all(isinstance(x, int) for x in t):
        raise TypeError(f"{name}: {what} must be an int or {n} ints, got {v!r}")
    return t


def _wrap_index(i: int, n: int) -> int:
    if not -n <= i < n:
        raise IndexError(f"padding_idx {i} is out of range for {n} embeddings")
    return i % n
