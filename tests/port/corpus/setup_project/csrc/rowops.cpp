// Row operations of the rowops package: a normalization and a centered copy.
#include <torch/extension.h>

torch::Tensor normalize_rows(const torch::Tensor& x, double eps) {
  TORCH_CHECK(x.dim() == 2, "normalize_rows: expected 2 dims, got ", x.dim());
  auto norms = (x * x).sum({1}, /*keepdim=*/true).sqrt();
  return x / (norms + eps);
}

torch::Tensor center_rows(const torch::Tensor& x) { return x - x.mean({1}, /*keepdim=*/true); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("normalize_rows", &normalize_rows, py::arg("x"), py::arg("eps") = 1e-12);
  m.def("center_rows", &center_rows);
}
