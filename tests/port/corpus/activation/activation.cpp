// Activations as a pybind11 module: plain tensor math, TORCH_CHECK, py::arg defaults.
#include <torch/extension.h>

torch::Tensor scaled_tanh(const torch::Tensor& x, double alpha) {
  TORCH_CHECK(x.is_floating_point(), "scaled_tanh: expected a floating tensor, got ",
              x.scalar_type());
  return torch::tanh(x) * alpha;
}

torch::Tensor leaky(const torch::Tensor& x, double slope) {
  return torch::where(x > 0, x, x * slope);
}

torch::Tensor softsign(torch::Tensor x) { return x / (x.abs() + 1); }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "activations";
  m.def("scaled_tanh", &scaled_tanh, "alpha * tanh(x)", py::arg("x"), py::arg("alpha") = 1.0);
  m.def("leaky", &leaky, py::arg("x"), py::arg("slope") = 0.01);
  m.def("softsign", &softsign);
}
