// lltm.cpp: the tutorial's LLTM C++ op ported by renaming only (torch:: -> sdk::).
#include <sdk/extension.h>

#include <iostream>

// s'(z) = (1 - s'(z)) * s'(z)
sdk::Tensor d_sigmoid(sdk::Tensor z) {
  auto s = sdk::sigmoid(z);
  return (1 - s) * s;
}

// tanh'(z) = 1 - tanh^2(z)
sdk::Tensor d_tanh(sdk::Tensor z) { return 1 - z.tanh().pow(2); }

// elu'(z) = relu'(z) + { alpha * exp(z) if (alpha * (exp(z) - 1)) < 0, else 0}
sdk::Tensor d_elu(sdk::Tensor z, sdk::Scalar alpha = 1.0) {
  auto e = z.exp();
  auto mask = (alpha * (e - 1)) < 0;
  return (z > 0).type_as(z) + mask.type_as(z) * (alpha * e);
}

std::vector<sdk::Tensor> lltm_forward(sdk::Tensor input, sdk::Tensor weights, sdk::Tensor bias,
                                      sdk::Tensor old_h, sdk::Tensor old_cell) {
  auto X = sdk::cat({old_h, input}, /*dim=*/1);

  auto gate_weights = sdk::addmm(bias, X, weights.transpose(0, 1));
  auto gates = gate_weights.chunk(3, /*dim=*/1);

  auto input_gate = sdk::sigmoid(gates[0]);
  auto output_gate = sdk::sigmoid(gates[1]);
  auto candidate_cell = sdk::elu(gates[2], /*alpha=*/1.0);

  auto new_cell = old_cell + candidate_cell * input_gate;
  auto new_h = sdk::tanh(new_cell) * output_gate;

  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights};
}

std::vector<sdk::Tensor> lltm_backward(sdk::Tensor grad_h, sdk::Tensor grad_cell,
                                       sdk::Tensor new_cell, sdk::Tensor input_gate,
                                       sdk::Tensor output_gate, sdk::Tensor candidate_cell,
                                       sdk::Tensor X, sdk::Tensor gate_weights,
                                       sdk::Tensor weights) {
  auto d_output_gate = sdk::tanh(new_cell) * grad_h;
  auto d_tanh_new_cell = output_gate * grad_h;
  auto d_new_cell = d_tanh(new_cell) * d_tanh_new_cell + grad_cell;

  auto d_old_cell = d_new_cell;
  auto d_candidate_cell = input_gate * d_new_cell;
  auto d_input_gate = candidate_cell * d_new_cell;

  auto gates = gate_weights.chunk(3, /*dim=*/1);
  d_input_gate *= d_sigmoid(gates[0]);
  d_output_gate *= d_sigmoid(gates[1]);
  d_candidate_cell *= d_elu(gates[2]);

  auto d_gates = sdk::cat({d_input_gate, d_output_gate, d_candidate_cell}, /*dim=*/1);

  auto d_weights = d_gates.t().mm(X);
  auto d_bias = d_gates.sum(/*dim=*/0, /*keepdim=*/true);

  auto d_X = d_gates.mm(weights);
  const auto state_size = grad_h.size(1);
  auto d_old_h = d_X.slice(/*dim=*/1, 0, state_size);
  auto d_input = d_X.slice(/*dim=*/1, state_size);

  return {d_old_h, d_input, d_weights, d_bias, d_old_cell};
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("forward", &lltm_forward, "LLTM forward");
  m.def("backward", &lltm_backward, "LLTM backward");
}
