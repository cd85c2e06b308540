// {{name}}.cpp: the fused Mish op and its backward, bound with pybind11.
//
// Mish(x) = x * tanh(softplus(x)).
//
// One pass over memory instead of the five ops (exp, log1p, tanh, mul, ...) a composition
// would run, which is what a custom op is for.
#include <sdk/extension.h>

#include <cmath>
#include <cstdint>

namespace {

constexpr const char* kOp = "{{name}}";

// softplus(x) = log(1 + e^x), without overflow for large x.
template <typename T>
T softplus(T x) {
  return x > T(20) ? x : std::log1p(std::exp(x));
}

template <typename T>
T mish(T x) {
  return x * std::tanh(softplus(x));
}

// d/dx [x tanh(sp(x))] = tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x)
template <typename T>
T mish_grad(T x) {
  const T t = std::tanh(softplus(x));
  const T s = T(1) / (T(1) + std::exp(-x));
  return t + x * (T(1) - t * t) * s;
}

void check_floating(const sdk::Tensor& t, const char* what) {
  SDK_CHECK(t.is_floating_point(), kOp, ": ", what, " must be a floating-point tensor, got dtype ",
            t.dtype());
}

}  // namespace

{{#cuda}}
#ifdef WITH_CUDA
sdk::Tensor mish_forward_cuda(const sdk::Tensor& input);
sdk::Tensor mish_backward_cuda(const sdk::Tensor& grad_output, const sdk::Tensor& input);
#endif

{{/cuda}}
sdk::Tensor mish_forward(const sdk::Tensor& input) {
  check_floating(input, "input");
{{#cuda}}
#ifdef WITH_CUDA
  if (input.is_cuda()) return mish_forward_cuda(input.contiguous());
#endif
{{/cuda}}
  auto x = input.contiguous();
  auto y = sdk::empty_like(x);
  SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "mish_forward", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* out = y.data_ptr<scalar_t>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = mish(in[i]);
  });
  return y;
}

sdk::Tensor mish_backward(const sdk::Tensor& grad_output, const sdk::Tensor& input) {
  check_floating(input, "input");
  SDK_CHECK(grad_output.sizes() == input.sizes(), kOp, ": grad_output has shape ",
            grad_output.sizes(), " but input has shape ", input.sizes());
  SDK_CHECK(grad_output.scalar_type() == input.scalar_type(), kOp, ": grad_output dtype ",
            grad_output.dtype(), " differs from input dtype ", input.dtype());
{{#cuda}}
#ifdef WITH_CUDA
  if (input.is_cuda()) return mish_backward_cuda(grad_output.contiguous(), input.contiguous());
#endif
{{/cuda}}
  auto x = input.contiguous();
  auto g = grad_output.contiguous();
  auto dx = sdk::empty_like(x);
  SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "mish_backward", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    const scalar_t* grad = g.data_ptr<scalar_t>();
    scalar_t* out = dx.data_ptr<scalar_t>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = grad[i] * mish_grad(in[i]);
  });
  return dx;
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.doc() = "the fused Mish activation";
  m.def("forward", &mish_forward, "Mish forward: x * tanh(softplus(x))", pybind11::arg("input"));
  m.def("backward", &mish_backward, "Mish backward: grad_output * mish'(input)",
        pybind11::arg("grad_output"), pybind11::arg("input"));
}
