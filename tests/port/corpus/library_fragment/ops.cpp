// TORCH_LIBRARY with an inferred schema, a fragment, optional and list arguments, and a
// kernel given with torch::dispatch.
#include <torch/extension.h>

#include <vector>

at::Tensor scale_shift(const at::Tensor& x, double scale, c10::optional<at::Tensor> shift) {
  auto y = x * scale;
  return shift.has_value() ? y + *shift : y;
}

at::Tensor sum_over(const at::Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  return x.sum(dims, keepdim);
}

at::Tensor weighted_sum(at::TensorList xs, std::vector<double> weights) {
  TORCH_CHECK(xs.size() == weights.size(), "weighted_sum: ", xs.size(), " tensors but ",
              weights.size(), " weights");
  auto total = torch::zeros_like(xs[0]);
  for (size_t i = 0; i < xs.size(); ++i) total = total + xs[i] * weights[i];
  return total;
}

TORCH_LIBRARY(corpus_frag, m) {
  m.def("scale_shift(Tensor x, float scale, Tensor? shift=None) -> Tensor");
  m.def("sum_over", &sum_over);
}

TORCH_LIBRARY_FRAGMENT(corpus_frag, m) {
  m.def("weighted_sum(Tensor[] xs, float[] weights) -> Tensor");
  m.impl("weighted_sum", torch::dispatch(c10::DispatchKey::CPU, TORCH_FN(weighted_sum)));
}

TORCH_LIBRARY_IMPL(corpus_frag, CPU, m) { m.impl("scale_shift", &scale_shift); }
