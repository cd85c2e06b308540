// {{name}}.cpp: the fused Mish op and its backward, registered as operators (SDK_LIBRARY).
//
// Mish(x) = x * tanh(softplus(x)).
//
// One pass over memory instead of the five ops (exp, log1p, tanh, mul, ...) a composition
// would run, which is what a custom op is for.
#include <Python.h>
#include <sdk/library.h>

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

sdk::Tensor mish_cpu(const sdk::Tensor& input) {
  check_floating(input, "input");
  auto x = input.contiguous();
  auto y = sdk::empty_like(x);
  SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "mish", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* out = y.data_ptr<scalar_t>();
    const int64_t n = x.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = mish(in[i]);
  });
  return y;
}

sdk::Tensor mish_backward_cpu(const sdk::Tensor& grad_output, const sdk::Tensor& input) {
  check_floating(input, "input");
  SDK_CHECK(grad_output.sizes() == input.sizes(), kOp, ": grad_output has shape ",
            grad_output.sizes(), " but input has shape ", input.sizes());
  SDK_CHECK(grad_output.scalar_type() == input.scalar_type(), kOp, ": grad_output dtype ",
            grad_output.dtype(), " differs from input dtype ", input.dtype());
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

// The operators: sdk.ops.{{name}}.mish and sdk.ops.{{name}}.mish_backward in Python.
SDK_LIBRARY({{name}}, m) {
  m.def("mish(Tensor input) -> Tensor");
  m.def("mish_backward(Tensor grad_output, Tensor input) -> Tensor");
}

// Their CPU kernels{{#cuda}} (the CUDA ones are in {{name}}_cuda.cu){{/cuda}}.
SDK_LIBRARY_IMPL({{name}}, CPU, m) {
  m.impl("mish", &mish_cpu);
  m.impl("mish_backward", &mish_backward_cpu);
}

// An empty module named _C: `import {{name}}._C` loads this library, which registers the
// operators. It uses only Python's limited API, so one wheel serves every Python 3.9+.
PyMODINIT_FUNC PyInit__C(void) {
  static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module_def);
}
