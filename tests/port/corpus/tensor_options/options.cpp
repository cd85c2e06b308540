// Creating tensors that follow an input: TensorOptions (dtype, device, requires_grad),
// new_zeros/new_ones/new_full, toType and is_same_size; integer bucketing with div's
// rounding modes.
#include <torch/extension.h>

#include <string>
#include <vector>

// Per-feature state for a [N, F] input: mean and variance in the input's dtype, an int64
// count, and a learnable float32 scale that is a leaf requiring grad.
std::vector<torch::Tensor> init_state(const torch::Tensor& x) {
  TORCH_CHECK(x.dim() == 2, "init_state: expected [N, F], got ", x.sizes());
  const int64_t features = x.size(1);
  auto mean = x.new_zeros({features});
  auto var = x.new_ones({features});
  auto count = x.new_full({1}, x.size(0), torch::kLong);
  auto options = torch::TensorOptions().dtype(torch::kFloat32).device(x.device());
  auto scale = torch::ones({features}, options.requires_grad(true));
  return {mean, var, count, scale};
}

// Bucket index of each value in buckets of `width` starting at `lo` (floor division).
torch::Tensor bucketize_uniform(const torch::Tensor& x, double lo, double width) {
  TORCH_CHECK(width > 0, "bucketize_uniform: width must be positive, got ", width);
  return at::div(x - lo, width, "floor").toType(at::kLong);
}

// a / b elementwise with torch's rounding modes (None: true division); b is cast to a's dtype.
torch::Tensor divide_as(const torch::Tensor& a, const torch::Tensor& b,
                        c10::optional<std::string> rounding_mode) {
  TORCH_CHECK(a.is_same_size(b), "divide_as: shapes differ: ", a.sizes(), " vs ", b.sizes());
  return at::div(a, b.toType(a.scalar_type()), rounding_mode);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("init_state", &init_state);
  m.def("bucketize_uniform", &bucketize_uniform, py::arg("x"), py::arg("lo") = 0.0,
        py::arg("width") = 1.0);
  m.def("divide_as", &divide_as, py::arg("a"), py::arg("b"), py::arg("rounding_mode") = py::none());
}
