// tests/interop/jax_ops.cpp: SDK ops that tests/interop/test_jax.py calls from jax, one per kind
// of argument the FFI handler's plan carries (tensors, lists, scalars, strings, dtypes, writes).
#include <sdk/autograd.h>
#include <sdk/library.h>

#include <string>
#include <tuple>
#include <vector>

namespace jtc {

static void check_pair(const sdk::Tensor& a, const sdk::Tensor& b) {
  SDK_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape, got ", a.sizes(), " and ",
            b.sizes());
  SDK_CHECK(a.dtype() == sdk::kFloat && b.dtype() == sdk::kFloat, "a and b must be float32");
}

sdk::Tensor muladd(const sdk::Tensor& a, const sdk::Tensor& b, double c) {
  check_pair(a, b);
  return a * b + c;
}

// The out= form: jit calls it with XLA's result buffer as `out`.
sdk::Tensor muladd_out(const sdk::Tensor& a, const sdk::Tensor& b, double c, sdk::Tensor& out) {
  check_pair(a, b);
  SDK_CHECK(out.sizes() == a.sizes() && out.dtype() == sdk::kFloat, "out must match a");
  out.copy_(a * b + c);
  return out;
}

sdk::Tensor sum_dim(const sdk::Tensor& x, std::vector<int64_t> dim, bool keepdim) {
  return x.sum(dim, keepdim);
}

void add_(sdk::Tensor& x, const sdk::Tensor& y) { x.add_(y); }

std::tuple<sdk::Tensor, sdk::Tensor> halves(const sdk::Tensor& x) { return {x * 0.5, x * 2.0}; }

sdk::Tensor weighted_sum(std::vector<sdk::Tensor> xs, std::vector<double> weights) {
  SDK_CHECK(!xs.empty() && xs.size() == weights.size(), "one weight per tensor");
  sdk::Tensor total = xs[0] * weights[0];
  for (size_t i = 1; i < xs.size(); ++i) total = total + xs[i] * weights[i];
  return total;
}

// Multiplies by the length of `mode` (in bytes): strings cross the plan intact.
sdk::Tensor scale_by_text(const sdk::Tensor& x, std::string mode) {
  return x * static_cast<double>(mode.size());
}

sdk::Tensor cast(const sdk::Tensor& x, sdk::ScalarType dtype) { return x.to(dtype); }

// cube: its derivative is a C++ Autograd kernel (a Function that redispatches to the CPU one).
sdk::Tensor cube_cpu(const sdk::Tensor& x) { return x * x * x; }

struct CubeFn : sdk::autograd::Function<CubeFn> {
  static sdk::Tensor forward(sdk::autograd::AutogradContext* ctx, const sdk::Tensor& x) {
    sdk::AutoDispatchBelowADInplaceOrView guard;
    ctx->save_for_backward({x});
    static auto op = sdk::Dispatcher::singleton()
                         .findSchemaOrThrow("jtc::cube", "")
                         .typed<sdk::Tensor(const sdk::Tensor&)>();
    return op.call(x);
  }
  static sdk::autograd::variable_list backward(sdk::autograd::AutogradContext* ctx,
                                               sdk::autograd::variable_list g) {
    sdk::Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * x * x * 3.0};
  }
};

sdk::Tensor cube_autograd(const sdk::Tensor& x) { return CubeFn::apply(x); }

}  // namespace jtc

SDK_LIBRARY(jtc, m) {
  m.def("muladd(Tensor a, Tensor b, float c) -> Tensor");
  m.def("muladd.out(Tensor a, Tensor b, float c, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("sum_dim(Tensor x, int[1] dim, bool keepdim=False) -> Tensor");
  m.def("add_(Tensor(a!) x, Tensor y) -> ()");
  m.def("halves(Tensor x) -> (Tensor, Tensor)");
  m.def("weighted_sum(Tensor[] xs, float[] weights) -> Tensor");
  m.def("scale_by_text(Tensor x, str mode) -> Tensor");
  m.def("cast(Tensor x, ScalarType dtype) -> Tensor");
  m.def("cube(Tensor x) -> Tensor");
}

SDK_LIBRARY_IMPL(jtc, CPU, m) {
  m.impl("muladd", &jtc::muladd);
  m.impl("muladd.out", &jtc::muladd_out);
  m.impl("sum_dim", &jtc::sum_dim);
  m.impl("add_", &jtc::add_);
  m.impl("halves", &jtc::halves);
  m.impl("weighted_sum", &jtc::weighted_sum);
  m.impl("scale_by_text", &jtc::scale_by_text);
  m.impl("cast", &jtc::cast);
  m.impl("cube", &jtc::cube_cpu);
}

SDK_LIBRARY_IMPL(jtc, Autograd, m) { m.impl("cube", &jtc::cube_autograd); }
