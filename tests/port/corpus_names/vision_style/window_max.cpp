// The dispatcher front-end: C++ callers reach the op through its schema, whichever kernel runs.
#include "window_max.h"

#include <torch/types.h>

namespace corpus_vis {

std::tuple<at::Tensor, at::Tensor> window_max(const at::Tensor& x, int64_t k) {
  C10_LOG_API_USAGE_ONCE("corpus_vis.window_max");
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_vis::window_max", "")
                       .typed<decltype(window_max)>();
  return op.call(x, k);
}

// The SymInt form reaches the same schema: its sizes box as the schema's SymInt.
std::tuple<at::Tensor, at::Tensor> window_max_symint(const at::Tensor& x, c10::SymInt k) {
  C10_LOG_API_USAGE_ONCE("corpus_vis.window_max");
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_vis::window_max", "")
                       .typed<decltype(window_max_symint)>();
  return op.call(x, k);
}

namespace detail {

at::Tensor _window_max_backward(const at::Tensor& grad, const at::Tensor& argmax, int64_t length) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_vis::_window_max_backward", "")
                       .typed<decltype(_window_max_backward)>();
  return op.call(grad, argmax, length);
}

at::Tensor _window_max_backward_symint(const at::Tensor& grad, const at::Tensor& argmax,
                                       c10::SymInt length) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_vis::_window_max_backward", "")
                       .typed<decltype(_window_max_backward_symint)>();
  return op.call(grad, argmax, length);
}

}  // namespace detail

TORCH_LIBRARY_FRAGMENT(corpus_vis, m) {
  m.def(TORCH_SELECTIVE_SCHEMA("corpus_vis::window_max(Tensor x, SymInt k) -> (Tensor, Tensor)"));
  m.def(TORCH_SELECTIVE_SCHEMA(
      "corpus_vis::_window_max_backward(Tensor grad, Tensor argmax, SymInt length) -> Tensor"));
}

}  // namespace corpus_vis
