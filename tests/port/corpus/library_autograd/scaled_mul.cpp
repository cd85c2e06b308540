// A registered op with a CPU kernel and an Autograd kernel. The Autograd kernel is a
// torch::autograd::Function that redispatches below autograd, saves its inputs, and computes
// in backward only the gradients needs_input_grad asks for.
#include <torch/extension.h>
#include <torch/library.h>

namespace corpus_agop {

at::Tensor scaled_mul_cpu(const at::Tensor& a, const at::Tensor& b, double scale) {
  TORCH_CHECK(a.sizes() == b.sizes(), "scaled_mul: shapes differ: ", a.sizes(), " vs ", b.sizes());
  return a * b * scale;
}

class ScaledMul : public torch::autograd::Function<ScaledMul> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& a,
                            const at::Tensor& b, double scale) {
    at::AutoDispatchBelowADInplaceOrView guard;
    static auto op = c10::Dispatcher::singleton()
                         .findSchemaOrThrow("corpus_agop::scaled_mul", "")
                         .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
    ctx->save_for_backward({a, b});
    ctx->saved_data["scale"] = scale;
    return op.call(a, b, scale);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    const double scale = ctx->saved_data["scale"].toDouble();
    at::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0)) grad_a = grad_outputs[0] * saved[1] * scale;
    if (ctx->needs_input_grad(1)) grad_b = grad_outputs[0] * saved[0] * scale;
    return {grad_a, grad_b, at::Tensor()};
  }
};

at::Tensor scaled_mul_autograd(const at::Tensor& a, const at::Tensor& b, double scale) {
  return ScaledMul::apply(a, b, scale);
}

TORCH_LIBRARY(corpus_agop, m) { m.def("scaled_mul(Tensor a, Tensor b, float scale) -> Tensor"); }

TORCH_LIBRARY_IMPL(corpus_agop, CPU, m) { m.impl("scaled_mul", &scaled_mul_cpu); }

TORCH_LIBRARY_IMPL(corpus_agop, Autograd, m) { m.impl("scaled_mul", &scaled_mul_autograd); }

}  // namespace corpus_agop
