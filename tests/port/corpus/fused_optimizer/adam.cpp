// A fused Adam step that updates the parameter and its state in place (lerp_, addcmul_,
// addcdiv_), and the gradient clean-up an optimizer runs first (isnan, nan_to_num, clamp with
// tensor bounds, where, fmod, log2).
#include <torch/extension.h>

#include <cmath>
#include <tuple>

void adam_step(torch::Tensor param, const torch::Tensor& grad, torch::Tensor exp_avg,
               torch::Tensor exp_avg_sq, int64_t step, double lr, double beta1, double beta2,
               double eps) {
  TORCH_CHECK(step >= 1, "adam_step: step must be at least 1, got ", step);
  TORCH_CHECK(param.sizes() == grad.sizes(),
              "adam_step: param and grad shapes differ: ", param.sizes(), " vs ", grad.sizes());
  torch::NoGradGuard no_grad;
  exp_avg.lerp_(grad, 1 - beta1);
  exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
  const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(step));
  auto denom = (exp_avg_sq / bias_correction2).sqrt().add_(eps);
  param.addcdiv_(exp_avg, denom, -lr / bias_correction1);
}

// NaN becomes 0 and +-inf the dtype's extremes, then each element is clamped to its own
// [lo, hi]; the mask says where the NaNs were.
std::tuple<torch::Tensor, torch::Tensor> sanitize(const torch::Tensor& grad,
                                                  const torch::Tensor& lo,
                                                  const torch::Tensor& hi) {
  auto nan_mask = torch::isnan(grad);
  auto clean = torch::nan_to_num(grad, 0.0).clamp(lo, hi);
  return std::make_tuple(clean, nan_mask);
}

// Where log2(|x| + 1) falls within `period`; NaN inputs give -1.
torch::Tensor log_phase(const torch::Tensor& x, double period) {
  TORCH_CHECK(period > 0, "log_phase: period must be positive, got ", period);
  auto phase = at::fmod(at::log2(x.abs() + 1), period);
  return at::where(x.isnan(), at::full_like(x, -1.0), phase);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("adam_step", &adam_step, "one Adam step, in place", py::arg("param"), py::arg("grad"),
        py::arg("exp_avg"), py::arg("exp_avg_sq"), py::arg("step"), py::arg("lr") = 1e-3,
        py::arg("beta1") = 0.9, py::arg("beta2") = 0.999, py::arg("eps") = 1e-8);
  m.def("sanitize", &sanitize);
  m.def("log_phase", &log_phase, py::arg("x"), py::arg("period") = 1.0);
}
