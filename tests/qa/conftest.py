"""QA fixtures: repo paths, subprocess runner, numpy references for the LLTM cell."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests import _support
from tests._support import REPO, subprocess_env  # noqa: F401  (used by the tests)

PORT = Path(__file__).resolve().parent / "tutorial_port"


def run_python(code: str, *, timeout: float = 300, cwd=None, **env: str):
    """Run `code` in a fresh interpreter with the package under test; returns CompletedProcess."""
    return _support.run_python(code, timeout=timeout, cwd=cwd, **env)


def np_sigmoid(z):
    return 1 / (1 + np.exp(-z))


def np_elu(z):
    return np.where(z > 0, z, np.expm1(z))


def lltm_forward_ref(x, W, b, h, c):
    """The LLTM forward in numpy: (h', C', i, o, c~, X, G)."""
    S = h.shape[1]
    X = np.concatenate([h, x], axis=1)
    G = X @ W.T + b
    i, o, cc = np_sigmoid(G[:, :S]), np_sigmoid(G[:, S : 2 * S]), np_elu(G[:, 2 * S :])
    C = c + cc * i
    H = np.tanh(C) * o
    return H, C, i, o, cc, X, G


def lltm_backward_ref(dh, dC, x, W, b, h, c):
    """Gradients of sum(dh * h' + dC * C') w.r.t. (x, W, b (as given), h, c) in numpy."""
    S = h.shape[1]
    H, C, i, o, cc, X, G = lltm_forward_ref(x, W, b, h, c)
    t = np.tanh(C)
    d_o = t * dh
    d_C = (1 - t * t) * o * dh + dC
    d_i = cc * d_C
    d_cc = i * d_C
    gi, go, gc = G[:, :S], G[:, S : 2 * S], G[:, 2 * S :]
    dG = np.concatenate(
        [
            d_i * np_sigmoid(gi) * (1 - np_sigmoid(gi)),
            d_o * np_sigmoid(go) * (1 - np_sigmoid(go)),
            d_cc * np.where(gc > 0, 1.0, np.exp(gc)),
        ],
        axis=1,
    )
    dW = dG.T @ X
    db = dG.sum(0).reshape(b.shape)
    dX = dG @ W
    return dX[:, S:], dW, db, dX[:, :S], d_C
