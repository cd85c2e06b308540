"""Neural-network building blocks: Module, Parameter, layers, losses, init, functional.

Layers live in one file per kind, as in torch.nn.modules (linear, conv, pooling, normalization,
activation, loss, rnn, transformer, container, ...); each file's __all__ is exported here, so a
new layer is added in its kind's file alone."""

from __future__ import annotations

from . import (
    activation,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    functional,
    init,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
    utils,
)
from .activation import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import Module
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .parameter import Parameter
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403

_KINDS = (activation, container, conv, distance, dropout, flatten, fold, linear, loss, normalization,
          padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling)  # fmt: skip
__all__ = ["functional", "init", "utils", "Module", "Parameter"]
__all__ += [name for kind in _KINDS for name in kind.__all__]
