// A C++ autograd Function: forward saves what backward needs; gradients flow back to Python.
#include <torch/extension.h>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class ScaledTanh : public torch::autograd::Function<ScaledTanh> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, double alpha) {
    auto y = torch::tanh(x);
    ctx->save_for_backward({y});
    ctx->saved_data["alpha"] = alpha;
    return y * alpha;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto y = saved[0];
    const double alpha = ctx->saved_data["alpha"].toDouble();
    return {grad_outputs[0] * alpha * (1 - y * y), torch::Tensor()};
  }
};

torch::Tensor scaled_tanh(const torch::Tensor& x, double alpha) {
  return ScaledTanh::apply(x, alpha);
}

torch::Tensor detached_twice(const torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  return x.detach() * 2;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scaled_tanh", &scaled_tanh, py::arg("x"), py::arg("alpha") = 1.0);
  m.def("detached_twice", &detached_twice);
}
