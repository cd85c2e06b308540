// The dispatcher front-end: C++ callers reach the op through its schema, whichever kernel runs.
#include "window_max.h"

#include <torch/types.h>

namespace corpus_vis {

std::tuple<at::Tensor, at::Tensor> window_max(const at::Tensor& x, int64_t k) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_vis::window_max", "")
                       .typed<decltype(window_max)>();
  return op.call(x, k);
}

namespace detail {

at::Tensor _window_max_backward(const at::Tensor& grad, const at::Tensor& argmax, int64_t length) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_vis::_window_max_backward", "")
                       .typed<decltype(_window_max_backward)>();
  return op.call(grad, argmax, length);
}

}  // namespace detail

TORCH_LIBRARY_FRAGMENT(corpus_vis, m) {
  m.def(TORCH_SELECTIVE_SCHEMA("corpus_vis::window_max(Tensor x, int k) -> (Tensor, Tensor)"));
  m.def(TORCH_SELECTIVE_SCHEMA(
      "corpus_vis::_window_max_backward(Tensor grad, Tensor argmax, int length) -> Tensor"));
}

}  // namespace corpus_vis
