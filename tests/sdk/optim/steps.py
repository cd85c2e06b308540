"""What the optimizer tests share: run an optimizer over a fixed gradient sequence."""

from __future__ import annotations

import numpy as np

import sdk
from sdk import nn


def run_steps(make, grads, x0: np.ndarray) -> np.ndarray:
    """The parameter after `make([p]).step()` with p.grad set to each of `grads` in turn,
    starting from x0."""
    p = nn.Parameter(sdk.tensor(x0.copy()))
    opt = make([p])
    for g in grads:
        p.grad = sdk.tensor(g)
        opt.step()
    return p.detach().numpy().copy()
