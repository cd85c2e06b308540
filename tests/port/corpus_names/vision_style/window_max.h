// Front-end declarations of a registered op with a C++ autograd kernel, laid out as detection
// libraries lay out theirs: a header, a dispatcher front-end, a CPU kernel, an Autograd kernel.
#pragma once

#include <ATen/ATen.h>

namespace corpus_vis {

// Max over non-overlapping windows of `k` along each row, and where each max was (int32).
std::tuple<at::Tensor, at::Tensor> window_max(const at::Tensor& x, int64_t k);
std::tuple<at::Tensor, at::Tensor> window_max_symint(const at::Tensor& x, c10::SymInt k);

namespace detail {

at::Tensor _window_max_backward(const at::Tensor& grad, const at::Tensor& argmax, int64_t length);
at::Tensor _window_max_backward_symint(const at::Tensor& grad, const at::Tensor& argmax,
                                       c10::SymInt length);

}  // namespace detail
}  // namespace corpus_vis
