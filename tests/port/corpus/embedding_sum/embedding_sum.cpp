// An embedding-bag sum: index types dispatched separately from the value types, the V2
// dispatch macro, and the deprecated data<T>() accessor older extensions still use.
#include <ATen/Dispatch_v2.h>
#include <torch/extension.h>

template <typename scalar_t, typename index_t>
void bag_sum(const scalar_t* weight, const index_t* idx, scalar_t* out, int64_t bags,
             int64_t per_bag, int64_t dim, int64_t rows) {
  for (int64_t b = 0; b < bags; ++b) {
    for (int64_t k = 0; k < per_bag; ++k) {
      const index_t row = idx[b * per_bag + k];
      TORCH_CHECK(row >= 0 && row < rows, "embedding_sum: index ", row, " out of range");
      for (int64_t d = 0; d < dim; ++d) out[b * dim + d] += weight[row * dim + d];
    }
  }
}

at::Tensor embedding_sum(const at::Tensor& weight, const at::Tensor& indices) {
  TORCH_CHECK(weight.dim() == 2 && indices.dim() == 2, "embedding_sum: 2-d weight and indices");
  auto w = weight.contiguous();
  auto idx = indices.contiguous();
  auto out = at::zeros({idx.size(0), w.size(1)}, w.options());
  AT_DISPATCH_V2(w.scalar_type(), "embedding_sum", AT_WRAP([&] {
                   AT_DISPATCH_INDEX_TYPES(idx.scalar_type(), "embedding_sum_index", [&] {
                     bag_sum<scalar_t, index_t>(w.data<scalar_t>(), idx.data<index_t>(),
                                                out.data<scalar_t>(), idx.size(0), idx.size(1),
                                                w.size(1), w.size(0));
                   });
                 }),
                 AT_EXPAND(AT_FLOATING_TYPES));
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("embedding_sum", &embedding_sum); }
