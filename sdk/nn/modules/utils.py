"""torch.nn.modules.utils' helpers, which extensions' Python glue imports to read layer
arguments: _pair(3) == (3, 3), _pair((1, 2)) == (1, 2)."""

from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any, Callable

__all__: list[str] = []  # private names, as in torch: imported by name


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A parser: an iterable becomes a tuple as it is, anything else is repeated n times."""

    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """(a, b) -> (b, b, a, a) for n=2: per-dimension padding in F.pad's last-first order."""
    return tuple(x for x in reversed(t) for _ in range(n))
