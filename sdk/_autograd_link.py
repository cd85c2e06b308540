"""The lower layers' link to sdk.autograd, filled from above (dependency inversion).

sdk.autograd sits above the op modules and the Tensor class (its derivative formulas are
sdk ops), yet those record autograd nodes and forward requires_grad_(), backward(),
register_hook()... to it. So they depend on this slot, never on the package: sdk.autograd
installs itself here when it loads (install), as the core's autograd engine registers
itself with sdk_autograd_set_engine. autograd is heavy to import (numpy, ~100 ms) and
``import sdk`` does not load it: the namespace above registers how to load it on first
need (set_loader), so no module here or below names the package.
"""

from __future__ import annotations

from types import ModuleType
from typing import Callable

_autograd: ModuleType | None = None
_loader: Callable[[], object] | None = None


def install(module: ModuleType) -> None:
    """Called by sdk.autograd as it loads: the lower layers use `module` from now on."""
    global _autograd
    _autograd = module


def set_loader(loader: Callable[[], object]) -> None:
    """Called by the sdk namespace: how to load sdk.autograd the first time it is needed."""
    global _loader
    _loader = loader


def autograd() -> ModuleType:
    """The sdk.autograd package, loaded through the registered loader on first use."""
    if _autograd is None:
        if _loader is None:
            raise RuntimeError("sdk.autograd is needed before the sdk namespace finished loading")
        _loader()
        if _autograd is None:
            raise RuntimeError("loading sdk.autograd did not install it (sdk/_autograd_link.py)")
    return _autograd
