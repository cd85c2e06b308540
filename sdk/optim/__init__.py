"""Optimizers: SGD, Adam, AdamW over an Optimizer base; updates run in place under no_grad."""

from __future__ import annotations

from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
