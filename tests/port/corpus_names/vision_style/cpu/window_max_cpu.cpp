// CPU kernels of window_max and its backward, registered two ways: a selective name with
// TORCH_FN, and a bare name with a plain function.
#include <ATen/ATen.h>
#include <torch/library.h>

namespace corpus_vis {
namespace {

template <typename scalar_t>
void window_max_rows(const scalar_t* x, int64_t rows, int64_t length, int64_t k, scalar_t* out,
                     int* argmax) {
  const int64_t windows = length / k;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t w = 0; w < windows; ++w) {
      int best = static_cast<int>(w * k);
      for (int64_t i = w * k + 1; i < (w + 1) * k; ++i) {
        if (x[r * length + i] > x[r * length + best]) best = static_cast<int>(i);
      }
      out[r * windows + w] = x[r * length + best];
      argmax[r * windows + w] = best;
    }
  }
}

std::tuple<at::Tensor, at::Tensor> window_max_cpu(const at::Tensor& x, int64_t k) {
  TORCH_CHECK(x.device().is_cpu(), "window_max: x must be a CPU tensor");
  TORCH_CHECK(x.dim() == 2, "window_max: x should be 2-D, got ", x.dim(), "D");
  TORCH_CHECK(k > 0 && x.size(1) % k == 0, "window_max: length ", x.size(1),
              " is not a multiple of ", k);
  auto x_ = x.contiguous();
  at::Tensor out = at::empty({x.size(0), x.size(1) / k}, x.options());
  at::Tensor argmax = at::empty({x.size(0), x.size(1) / k}, x.options().dtype(at::kInt));
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "window_max_cpu", [&] {
    window_max_rows<scalar_t>(x_.data_ptr<scalar_t>(), x.size(0), x.size(1), k,
                              out.data_ptr<scalar_t>(), argmax.data_ptr<int>());
  });
  return std::make_tuple(out, argmax);
}

at::Tensor window_max_backward_cpu(const at::Tensor& grad, const at::Tensor& argmax,
                                   int64_t length) {
  at::TensorArg grad_t{grad, "grad", 1}, argmax_t{argmax, "argmax", 2};
  at::CheckedFrom c = "window_max_backward_cpu";
  at::checkSameSize(c, grad_t, argmax_t);
  at::Tensor grad_in = at::zeros({grad.size(0), length}, grad.options());
  auto grad_ = grad.contiguous(), argmax_ = argmax.contiguous();
  AT_DISPATCH_FLOATING_TYPES(grad.scalar_type(), "window_max_backward_cpu", [&] {
    const scalar_t* g = grad_.data_ptr<scalar_t>();
    const int* where = argmax_.data_ptr<int>();
    scalar_t* gi = grad_in.data_ptr<scalar_t>();
    for (int64_t r = 0; r < grad.size(0); ++r) {
      for (int64_t w = 0; w < grad.size(1); ++w) {
        gi[r * length + where[r * grad.size(1) + w]] += g[r * grad.size(1) + w];
      }
    }
  });
  return grad_in;
}

}  // namespace

TORCH_LIBRARY_IMPL(corpus_vis, CPU, m) {
  m.impl(TORCH_SELECTIVE_NAME("corpus_vis::window_max"), TORCH_FN(window_max_cpu));
  m.impl("_window_max_backward", window_max_backward_cpu);
}

}  // namespace corpus_vis
