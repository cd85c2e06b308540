// The Autograd kernel: a C++ Function that keeps the input's shape and the window in saved_data
// (SymInts), saves the argmax it returns (non-differentiable), and calls the front-ends under
// the older guard.
#include <torch/autograd.h>
#include <torch/types.h>

#include "../window_max.h"

namespace corpus_vis {
namespace {

class WindowMaxFunction : public torch::autograd::Function<WindowMaxFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const torch::autograd::Variable& x, c10::SymInt k) {
    ctx->saved_data["input_shape"] = x.sym_sizes();
    ctx->saved_data["k"] = k;
    at::AutoNonVariableTypeMode g;
    auto result = window_max_symint(x, k);
    auto argmax = std::get<1>(result);
    ctx->save_for_backward({argmax});
    ctx->mark_non_differentiable({argmax});
    return {std::get<0>(result), argmax};
  }

  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx, const torch::autograd::variable_list& grad_output) {
    auto argmax = ctx->get_saved_variables()[0];
    auto shape = ctx->saved_data["input_shape"].toList();
    TORCH_CHECK(
        ctx->saved_data["k"].toSymInt() * grad_output[0].sym_size(1) == shape[1].get().toSymInt(),
        "window_max: the gradient's windows do not cover the input");
    auto grad_in =
        detail::_window_max_backward_symint(grad_output[0], argmax, shape[1].get().toSymInt());
    return {grad_in, torch::autograd::Variable()};
  }
};

std::tuple<at::Tensor, at::Tensor> window_max_autograd(const at::Tensor& x, c10::SymInt k) {
  auto result = WindowMaxFunction::apply(x, k);
  return std::make_tuple(result[0], result[1]);
}

}  // namespace

TORCH_LIBRARY_IMPL(corpus_vis, Autograd, m) {
  m.impl(TORCH_SELECTIVE_NAME("corpus_vis::window_max"), TORCH_FN(window_max_autograd));
}

}  // namespace corpus_vis
