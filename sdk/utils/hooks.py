"""RemovableHandle: what the register_*_hook functions return (torch.utils.hooks)."""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["RemovableHandle"]

_ids = itertools.count()


class RemovableHandle:
    """Removes the hook it was returned for from its dict(s) on ``remove()`` (or on leaving a
    ``with`` block)."""

    def __init__(self, *hook_dicts: dict) -> None:
        self.id = next(_ids)
        self._dicts = hook_dicts

    def remove(self) -> None:
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
