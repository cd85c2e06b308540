"""The lower layers' one link to sdk.autograd, which they may not import (dependency inversion).

sdk.autograd sits above the op modules and the Tensor class (its derivative formulas are
sdk ops), yet those record autograd nodes and forward requires_grad_(), backward(),
register_hook()... to it. It is also heavy to import (numpy, ~100 ms), and ``import sdk``
does not load it. So the lower layers never import it: they depend on autograd() here,
which loads the package by name on first use. No import statement points up, so sdk's
import graph stays acyclic; tests/sdk/test_layers.py allows this load by name (and the
namespace's PEP 562 __getattr__) and no other.
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
