"""Reverse-mode automatic differentiation: backward(), grad(), custom Functions, gradcheck.

The graph is built by the ops themselves (see ``graph.record``); derivative formulas
live in one table (``derivatives.DERIVATIVES``); ``engine`` runs backward.
"""

from __future__ import annotations

import sys

from sdk import _autograd_link
from sdk.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

from . import derivatives, engine, function, graph
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node
from .variable import Variable

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "Node",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "derivatives",
    "engine",
    "function",
    "graph",
]

_autograd_link.install(sys.modules[__name__])  # the lower layers reach autograd through it
