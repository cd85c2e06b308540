"""sdk.nn.modules: every layer under one name, as torch.nn.modules (each lives in its kind's
file), and torch.nn.modules.utils' argument helpers (_pair & co.), which extensions import."""

from __future__ import annotations

from .. import *  # noqa: F403
from .. import __all__ as _nn_all

del functional, init  # noqa: F821  (sdk.nn's, bound by the star import; not layers)
from . import utils  # noqa: E402, F401  (torch.nn.modules.utils, in place of sdk.nn.utils)

__all__ = [name for name in _nn_all if name not in ("functional", "init", "utils")]
