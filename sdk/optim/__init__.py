"""Optimizers (SGD, Adam, AdamW, RAdam, NAdam, RMSprop, Adagrad, LBFGS) over an Optimizer base, and learning-rate
schedulers (sdk.optim.lr_scheduler); updates run in place under no_grad.

Layering rule: optim imports sdk's tensors and nn only through their public names."""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "RAdam", "NAdam", "LBFGS",
           "lr_scheduler"]  # fmt: skip
