"""Independent LLTM references: the cell in sdk Python ops (autograd) and in plain numpy.

Both follow the cell's formulas (examples/lltm/README.md) directly, not the C++ code, so that
agreeing with them means something. The numpy backward is written out by hand.
"""

from __future__ import annotations

import numpy as np

import sdk


def sdk_cell(input, weights, bias, old_h, old_cell):
    """LLTM forward in sdk ops; autograd records it, so backward comes for free."""
    X = sdk.cat([old_h, input], dim=1)
    gate_weights = sdk.addmm(bias, X, weights.t())
    gates = gate_weights.chunk(3, dim=1)
    input_gate = sdk.sigmoid(gates[0])
    output_gate = sdk.sigmoid(gates[1])
    candidate_cell = sdk.nn.functional.elu(gates[2])
    new_cell = old_cell + candidate_cell * input_gate
    new_h = sdk.tanh(new_cell) * output_gate
    return new_h, new_cell


class PythonLLTM(sdk.nn.Module):
    """The cell as a Module in pure sdk Python ops (the benchmark's "py" variant)."""

    def __init__(self, input_features: int, state_size: int) -> None:
        super().__init__()
        self.input_features = input_features
        self.state_size = state_size
        self.weights = sdk.nn.Parameter(sdk.empty(3 * state_size, input_features + state_size))
        self.bias = sdk.nn.Parameter(sdk.empty(1, 3 * state_size))
        bound = 1.0 / self.state_size**0.5
        for p in self.parameters():
            p.data.uniform_(-bound, bound)

    def forward(self, input, state):
        old_h, old_cell = state
        return sdk_cell(input, self.weights, self.bias, old_h, old_cell)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _elu(z: np.ndarray) -> np.ndarray:
    return np.where(z > 0, z, np.expm1(np.minimum(z, 0.0)))


def _d_elu(z: np.ndarray) -> np.ndarray:
    # [z > 0] + [e^z - 1 < 0] * e^z: 0 at z == 0 exactly, as the tutorial's d_elu gives.
    e = np.exp(z)
    return (z > 0).astype(z.dtype) + ((e - 1.0) < 0).astype(z.dtype) * e


def numpy_forward(x, weights, bias, old_h, old_cell):
    """Returns (h', C', i, o, c~, X, G) as numpy arrays, like the C++ forward."""
    X = np.concatenate([old_h, x], axis=1)
    G = X @ weights.T + bias
    S = old_h.shape[1]
    gi, go, gc = G[:, :S], G[:, S : 2 * S], G[:, 2 * S :]
    i, o, c = _sigmoid(gi), _sigmoid(go), _elu(gc)
    new_cell = old_cell + c * i
    new_h = np.tanh(new_cell) * o
    return new_h, new_cell, i, o, c, X, G


def numpy_backward(grad_h, grad_cell, x, weights, bias, old_h, old_cell):
    """Returns (d_old_h, d_input, dW, db, d_old_cell), the C++ backward's order."""
    _, new_cell, i, o, c, X, G = numpy_forward(x, weights, bias, old_h, old_cell)
    S = old_h.shape[1]
    t = np.tanh(new_cell)
    d_o = t * grad_h
    d_new_cell = (1.0 - t * t) * (o * grad_h) + grad_cell
    d_c = i * d_new_cell
    d_i = c * d_new_cell
    si, so = _sigmoid(G[:, :S]), _sigmoid(G[:, S : 2 * S])
    dG = np.concatenate([d_i * si * (1 - si), d_o * so * (1 - so), d_c * _d_elu(G[:, 2 * S :])], 1)
    dW = dG.T @ X
    db = dG.sum(axis=0, keepdims=True)
    dX = dG @ weights
    return dX[:, :S], dX[:, S:], dW, db, d_new_cell
