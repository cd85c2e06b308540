// CPU ops on torch's diff and bitwise shifts, with the headers and names extensions use
// around them (VariableTypeUtils.h included by habit, a TensorBase view of a tensor).
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/extension.h>

#include <tuple>

// The n-th difference along dim with a row of `before` in front (torch::diff's prepend).
torch::Tensor nth_diff(const torch::Tensor& x, int64_t n, int64_t dim,
                       const torch::Tensor& before) {
  return x.diff(n, dim, before);
}

// Both shifts of integer tensors, the method and the free function.
std::tuple<torch::Tensor, torch::Tensor> shifts(const torch::Tensor& a, const torch::Tensor& s) {
  return std::make_tuple(a.bitwise_left_shift(s), at::bitwise_right_shift(a, s));
}

// Sum of a contiguous float64 tensor read through its TensorBase.
double base_sum(const torch::Tensor& x) {
  const at::TensorBase& base = x;
  TORCH_CHECK(base.is_contiguous() && base.scalar_type() == at::kDouble, "base_sum: float64");
  const double* p = base.data_ptr<double>();
  double total = 0;
  for (int64_t i = 0; i < base.numel(); ++i) total += p[i];
  return total;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("nth_diff", &nth_diff);
  m.def("shifts", &shifts);
  m.def("base_sum", &base_sum);
}
