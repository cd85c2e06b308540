"""sdk.interop: an SDK op library used from other frameworks, built once.

``sdk.interop.torch.register(ns)`` makes every op of SDK library `ns` a torch operator
(``torch.ops.<ns>.<op>``: autograd, torch.compile, opcheck); ``sdk.interop.jax`` does the
same for JAX. Each submodule imports its framework only when called: sdk never depends on
torch or jax. Calls of ``sdk.ops.<ns>.<op>`` with a framework's arrays return that
framework's arrays without any registration (sdk/_op_frameworks.py).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["torch", "jax"]


def __getattr__(name: str) -> Any:  # PEP 562: load a bridge on first use
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
