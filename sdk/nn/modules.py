"""sdk.nn.modules: every layer under one name, as torch.nn.modules (each lives in its kind's file)."""

from __future__ import annotations

from . import *  # noqa: F403
from . import __all__ as _nn_all

__all__ = [name for name in _nn_all if name not in ("functional", "init", "utils")]
