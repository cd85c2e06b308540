// Optional and list arguments through pybind11: c10::optional, at::IntArrayRef,
// std::vector<int64_t>, and lists of tensors in and out.
#include <torch/extension.h>

#include <vector>

torch::Tensor affine(const torch::Tensor& x, const c10::optional<torch::Tensor>& bias,
                     at::IntArrayRef reduce_dims, c10::optional<double> scale) {
  auto out = x.sum(reduce_dims, /*keepdim=*/true) * scale.value_or(1.0);
  if (bias.has_value()) {
    out = out + bias.value();
  }
  return out;
}

std::vector<torch::Tensor> split_rows(const torch::Tensor& x, std::vector<int64_t> sizes) {
  int64_t total = 0;
  for (auto s : sizes) total += s;
  TORCH_CHECK(total == x.size(0), "split_rows: sizes add up to ", total, ", not ", x.size(0));
  return x.split_with_sizes(sizes, 0);
}

torch::Tensor stack_sum(std::vector<torch::Tensor> parts) {
  TORCH_CHECK(!parts.empty(), "stack_sum: no tensors");
  auto total = torch::zeros_like(parts[0]);
  for (const auto& p : parts) total.add_(p);
  return total;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("affine", &affine, py::arg("x"), py::arg("bias") = py::none(),
        py::arg("reduce_dims") = std::vector<int64_t>{0}, py::arg("scale") = py::none());
  m.def("split_rows", &split_rows);
  m.def("stack_sum", &stack_sum);
}
