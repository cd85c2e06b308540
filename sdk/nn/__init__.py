"""Neural-network building blocks: Module, Parameter, layers, losses, init, functional."""

from __future__ import annotations

from . import functional, init, utils
from .activation import Hardtanh, LeakyReLU, Mish, ReLU6, SiLU, Softplus
from .modules import (
    ELU,
    GELU,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Identity,
    LayerNorm,
    Linear,
    LogSoftmax,
    Module,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "functional",
    "init",
    "utils",
    "Dropout",
    "Module",
    "Parameter",
    "Linear",
    "LayerNorm",
    "Conv1d",
    "Conv2d",
    "Embedding",
    "Identity",
    "Sequential",
    "ModuleList",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "ELU",
    "GELU",
    "SiLU",
    "Mish",
    "Softplus",
    "LeakyReLU",
    "Hardtanh",
    "ReLU6",
    "Softmax",
    "LogSoftmax",
    "MSELoss",
    "CrossEntropyLoss",
    "NLLLoss",
]
