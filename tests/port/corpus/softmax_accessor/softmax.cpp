// Row-wise softmax over accessors, dispatched on the floating types.
#include <torch/extension.h>

#include <algorithm>
#include <cmath>

template <typename scalar_t>
void softmax_rows(at::TensorAccessor<scalar_t, 2> in, at::TensorAccessor<scalar_t, 2> out) {
  for (int64_t r = 0; r < in.size(0); ++r) {
    scalar_t top = in[r][0];
    for (int64_t c = 1; c < in.size(1); ++c) top = std::max(top, in[r][c]);
    scalar_t total = 0;
    for (int64_t c = 0; c < in.size(1); ++c) {
      out[r][c] = std::exp(in[r][c] - top);
      total += out[r][c];
    }
    for (int64_t c = 0; c < in.size(1); ++c) out[r][c] /= total;
  }
}

at::Tensor row_softmax(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 2, "row_softmax: expected a 2-d tensor, got ", x.dim(), " dims");
  auto input = x.contiguous();
  auto output = at::empty_like(input);
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "row_softmax", [&] {
    softmax_rows<scalar_t>(input.accessor<scalar_t, 2>(), output.accessor<scalar_t, 2>());
  });
  return output;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("row_softmax", &row_softmax); }
