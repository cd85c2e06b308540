"""The LLTM op's forward and backward in sdk Python ops: the "py" backend of LLTMFunction.

Same interface as the compiled variants (a ``forward`` and a ``backward`` returning lists
in the C++ order), same steps as lltm.cpp, so any of them plugs into lltm.LLTMFunction.
"""

from __future__ import annotations

import sdk


def d_sigmoid(z):
    s = sdk.sigmoid(z)
    return (1 - s) * s


def d_tanh(z):
    return 1 - z.tanh().pow(2)


def d_elu(z, alpha: float = 1.0):
    e = z.exp()
    mask = (alpha * (e - 1)) < 0
    return (z > 0).type_as(z) + mask.type_as(z) * (alpha * e)


def forward(input, weights, bias, old_h, old_cell):
    """Returns [h', C', input_gate, output_gate, candidate_cell, X, gate_weights]."""
    with sdk.no_grad():
        X = sdk.cat([old_h, input], dim=1)
        gate_weights = sdk.addmm(bias, X, weights.t())
        gates = gate_weights.chunk(3, dim=1)
        input_gate = sdk.sigmoid(gates[0])
        output_gate = sdk.sigmoid(gates[1])
        candidate_cell = sdk.nn.functional.elu(gates[2], alpha=1.0)
        new_cell = old_cell + candidate_cell * input_gate
        new_h = sdk.tanh(new_cell) * output_gate
    return [new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights]


def backward(
    grad_h, grad_cell, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights, weights
):
    """Returns [d_old_h, d_input, d_weights, d_bias, d_old_cell]."""
    with sdk.no_grad():
        d_output_gate = sdk.tanh(new_cell) * grad_h
        d_tanh_new_cell = output_gate * grad_h
        d_new_cell = d_tanh(new_cell) * d_tanh_new_cell + grad_cell

        d_old_cell = d_new_cell
        d_candidate_cell = input_gate * d_new_cell
        d_input_gate = candidate_cell * d_new_cell

        gates = gate_weights.chunk(3, dim=1)
        d_input_gate = d_input_gate * d_sigmoid(gates[0])
        d_output_gate = d_output_gate * d_sigmoid(gates[1])
        d_candidate_cell = d_candidate_cell * d_elu(gates[2])

        d_gates = sdk.cat([d_input_gate, d_output_gate, d_candidate_cell], dim=1)
        d_weights = d_gates.t().mm(X)
        d_bias = d_gates.sum(dim=0, keepdim=True)

        d_X = d_gates.mm(weights)
        state_size = grad_h.shape[1]
        d_old_h = d_X[:, :state_size]
        d_input = d_X[:, state_size:]
    return [d_old_h, d_input, d_weights, d_bias, d_old_cell]
