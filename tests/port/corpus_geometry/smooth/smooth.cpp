// A per-channel one-pole smoother in the stable ABI's idiom: accessors built from data_ptr,
// sizes and strides, a dispatch over the floating types, channels in parallel, and an
// in-place output declared in the schema.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/Dispatch_v2.h>
#include <torch/headeronly/core/TensorAccessor.h>

namespace {
using torch::stable::Tensor;

template <typename T, size_t N>
torch::headeronly::HeaderOnlyTensorAccessor<T, N> view(const Tensor& t) {
  return torch::headeronly::HeaderOnlyTensorAccessor<T, N>(reinterpret_cast<T*>(t.data_ptr()),
                                                           t.sizes().data(), t.strides().data());
}

template <typename scalar_t>
void smooth_kernel(torch::headeronly::HeaderOnlyTensorAccessor<scalar_t, 2> x,
                   torch::headeronly::HeaderOnlyTensorAccessor<scalar_t, 2> y, double pole) {
  const int64_t frames = x.size(1);
  torch::stable::parallel_for(0, x.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      scalar_t state = 0;
      for (int64_t t = 0; t < frames; ++t) {
        state = static_cast<scalar_t>(pole * state + (1.0 - pole) * x[c][t]);
        y[c][t] = state;
      }
    }
  });
}

Tensor smooth_cpu(Tensor x, double pole, Tensor out) {
  STD_TORCH_CHECK(x.dim() == 2, "smooth: x must be (channels, frames)");
  STD_TORCH_CHECK(out.dim() == 2 && out.size(0) == x.size(0) && out.size(1) == x.size(1),
                  "smooth: out must have x's shape");
  STD_TORCH_CHECK(out.scalar_type() == x.scalar_type(), "smooth: out must have x's dtype");
  THO_DISPATCH_V2(x.scalar_type(), "smooth_cpu", AT_WRAP([&] {
                    smooth_kernel<scalar_t>(view<scalar_t, 2>(x), view<scalar_t, 2>(out), pole);
                  }),
                  AT_FLOATING_TYPES);
  return out;
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(geometry_smooth, m) {
  m.def("smooth(Tensor x, float pole, Tensor(a!) out) -> Tensor(a!)");
}

STABLE_TORCH_LIBRARY_IMPL(geometry_smooth, CPU, m) { m.impl("smooth", TORCH_BOX(&smooth_cpu)); }
