// A C++ autograd Function keeping non-tensor state in ctx->saved_data: ints, a double, a
// bool, a string, an int list and an optional, read back by type in backward.
#include <torch/extension.h>

using torch::autograd::AutogradContext;
using torch::autograd::Variable;
using torch::autograd::variable_list;

class SumPower : public torch::autograd::Function<SumPower> {
 public:
  // sum(x ** power, dims) * scale, optionally plus `shift`.
  static Variable forward(AutogradContext* ctx, const Variable& x, std::vector<int64_t> dims,
                          int64_t power, double scale, c10::optional<double> shift, bool keepdim) {
    ctx->save_for_backward({x});
    ctx->saved_data["dims"] = dims;
    ctx->saved_data["power"] = power;
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["shift"] = shift;
    ctx->saved_data["keepdim"] = keepdim;
    ctx->saved_data["mode"] = std::string(keepdim ? "keep" : "drop");
    at::Tensor y = x.pow(power).sum(dims, keepdim) * scale;
    return shift.has_value() ? y + *shift : y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Variable x = ctx->get_saved_variables()[0];
    std::vector<int64_t> dims = ctx->saved_data["dims"].toIntVector();
    const int64_t power = ctx->saved_data["power"].toInt();
    const double scale = ctx->saved_data["scale"].toDouble();
    TORCH_CHECK(ctx->saved_data["shift"].isNone() ||
                    ctx->saved_data["shift"].toOptional<double>().has_value(),
                "shift lost its type");
    at::Tensor g = grads[0];
    if (ctx->saved_data["mode"].toStringRef() == "drop") {
      for (int64_t& d : dims) d = d < 0 ? d + x.dim() : d;
      std::sort(dims.begin(), dims.end());
      for (int64_t d : dims) g = g.unsqueeze(d);
    }
    TORCH_CHECK(ctx->saved_data["keepdim"].toBool() ==
                (ctx->saved_data["mode"].toStringRef() == "keep"));
    at::Tensor dx = g * scale * power * x.pow(power - 1);
    return {dx, Variable(), Variable(), Variable(), Variable(), Variable()};
  }
};

Variable sum_power(const Variable& x, std::vector<int64_t> dims, int64_t power, double scale,
                   c10::optional<double> shift, bool keepdim) {
  return SumPower::apply(x, dims, power, scale, shift, keepdim);
}

bool any_requires_grad(const std::vector<at::Tensor>& xs) {
  return torch::autograd::any_variable_requires_grad(xs);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("sum_power", &sum_power, py::arg("x"), py::arg("dims"), py::arg("power"),
        py::arg("scale") = 1.0, py::arg("shift") = py::none(), py::arg("keepdim") = false);
  m.def("any_requires_grad", &any_requires_grad);
}
