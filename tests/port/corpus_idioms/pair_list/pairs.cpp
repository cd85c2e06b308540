// A neighbour-list op in the idiom of molecular-dynamics extensions: a schema string
// registered with TORCH_LIBRARY and a CPU kernel (a lambda) with TORCH_LIBRARY_IMPL, torch
// functions brought in by `using`, Scalar arguments read with to<T>(), distances through
// torch::frobenius_norm, pairs beyond the cutoff masked to -1 / NaN with index_put_.
#include <torch/extension.h>

#include <cmath>
#include <tuple>

using torch::arange;
using torch::frobenius_norm;
using torch::index_select;
using torch::Scalar;
using torch::Tensor;
using torch::indexing::Slice;

namespace {

std::tuple<Tensor, Tensor, Tensor> pairs_within(const Tensor& positions, const Scalar& cutoff) {
  TORCH_CHECK(positions.dim() == 2 && positions.size(1) == 3,
              "Expected \"positions\" to have shape (N, 3)");
  TORCH_CHECK(cutoff.to<double>() > 0, "Expected \"cutoff\" to be positive");
  const int64_t n = positions.size(0);
  // every pair i > j, row-major over the lower triangle
  Tensor rows = arange(n, positions.options().dtype(torch::kLong))
                    .repeat_interleave(arange(n, positions.options().dtype(torch::kLong)));
  std::vector<Tensor> cols;
  for (int64_t i = 0; i < n; ++i) cols.push_back(arange(i, rows.options()));
  Tensor columns = torch::cat(cols);
  Tensor neighbors = torch::vstack({rows, columns});
  Tensor deltas = index_select(positions, 0, rows) - index_select(positions, 0, columns);
  Tensor distances = frobenius_norm(deltas, 1);
  const Tensor mask = distances > cutoff;
  neighbors.index_put_({Slice(), mask}, -1);
  deltas = deltas.clone();
  distances = distances.clone();
  deltas.index_put_({mask, Slice()}, NAN);
  distances.index_put_({mask}, NAN);
  return {neighbors, deltas, distances};
}

// The norm over both dims at once, and over three (refused), through the same function.
Tensor whole_norm(const Tensor& x, int64_t ndims) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ndims; ++d) dims.push_back(d);
  return frobenius_norm(x, dims, /*keepdim=*/true);
}

}  // namespace

TORCH_LIBRARY(pair_list, m) {
  m.def(
      "pairs_within(Tensor positions, Scalar cutoff) -> (Tensor neighbors, Tensor deltas, "
      "Tensor distances)");
  m.def("whole_norm(Tensor x, int ndims) -> Tensor");
}

TORCH_LIBRARY_IMPL(pair_list, CPU, m) {
  m.impl("pairs_within", [](const Tensor& positions, const Scalar& cutoff) {
    return pairs_within(positions, cutoff);
  });
  m.impl("whole_norm", &whole_norm);
}
