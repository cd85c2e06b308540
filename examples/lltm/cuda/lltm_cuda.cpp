// lltm_cuda.cpp: Python bindings of the LLTM CUDA op, with the input checks.
//
// The kernels live in lltm_cuda_kernel.cu (compiled by nvcc); this file is plain C++ and
// only checks that every input is a contiguous CUDA tensor, all on one device, before
// handing it over.
#include <sdk/extension.h>

#include <vector>

// CUDA forward declarations (lltm_cuda_kernel.cu)

std::vector<sdk::Tensor> lltm_cuda_forward(sdk::Tensor input, sdk::Tensor weights, sdk::Tensor bias,
                                           sdk::Tensor old_h, sdk::Tensor old_cell);

std::vector<sdk::Tensor> lltm_cuda_backward(sdk::Tensor grad_h, sdk::Tensor grad_cell,
                                            sdk::Tensor new_cell, sdk::Tensor input_gate,
                                            sdk::Tensor output_gate, sdk::Tensor candidate_cell,
                                            sdk::Tensor X, sdk::Tensor gates, sdk::Tensor weights);

// C++ interface

#define CHECK_CUDA(x) SDK_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) SDK_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
  CHECK_CUDA(x);       \
  CHECK_CONTIGUOUS(x)

std::vector<sdk::Tensor> lltm_forward(sdk::Tensor input, sdk::Tensor weights, sdk::Tensor bias,
                                      sdk::Tensor old_h, sdk::Tensor old_cell) {
  CHECK_INPUT(input);
  CHECK_INPUT(weights);
  CHECK_INPUT(bias);
  CHECK_INPUT(old_h);
  CHECK_INPUT(old_cell);
  for (const auto* t : {&weights, &bias, &old_h, &old_cell}) {
    SDK_CHECK(t->device() == input.device(), "all inputs must be on ", input.device().str(),
              " (the device of input), got one on ", t->device().str());
  }

  return lltm_cuda_forward(input, weights, bias, old_h, old_cell);
}

std::vector<sdk::Tensor> lltm_backward(sdk::Tensor grad_h, sdk::Tensor grad_cell,
                                       sdk::Tensor new_cell, sdk::Tensor input_gate,
                                       sdk::Tensor output_gate, sdk::Tensor candidate_cell,
                                       sdk::Tensor X, sdk::Tensor gate_weights,
                                       sdk::Tensor weights) {
  CHECK_INPUT(grad_h);
  CHECK_INPUT(grad_cell);
  CHECK_INPUT(new_cell);
  CHECK_INPUT(input_gate);
  CHECK_INPUT(output_gate);
  CHECK_INPUT(candidate_cell);
  CHECK_INPUT(X);
  CHECK_INPUT(gate_weights);
  CHECK_INPUT(weights);
  for (const auto* t : {&grad_cell, &new_cell, &input_gate, &output_gate, &candidate_cell, &X,
                        &gate_weights, &weights}) {
    SDK_CHECK(t->device() == grad_h.device(), "all inputs must be on ", grad_h.device().str(),
              " (the device of grad_h), got one on ", t->device().str());
  }

  return lltm_cuda_backward(grad_h, grad_cell, new_cell, input_gate, output_gate, candidate_cell, X,
                            gate_weights, weights);
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("forward", &lltm_forward, "LLTM forward (CUDA)");
  m.def("backward", &lltm_backward, "LLTM backward (CUDA)");
}
