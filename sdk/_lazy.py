"""The lower layers' one link to sdk.autograd, which they may not import (dependency inversion).

sdk.autograd sits above the op modules and the Tensor class (its derivative formulas are
sdk ops), yet those record autograd nodes and forward requires_grad_(), backward(),
register_hook()... to it. It is also heavy to import (numpy, ~100 ms), and ``import sdk``
does not load it. So the lower layers never import it: they call autograd() here, which
loads the package by name on first use (importing it registers nothing else; the modules
are found by name, so the import graph of sdk stays acyclic; tests/sdk/test_layers.py
allows this by-name load here and nowhere else).
"""

from __future__ import annotations

import importlib
from types import ModuleType

_autograd: ModuleType | None = None


def autograd() -> ModuleType:
    """The sdk.autograd package, imported on first use."""
    global _autograd
    if _autograd is None:
        _autograd = importlib.import_module("sdk.autograd")
    return _autograd
