// Operators over lists of tensors registered with tags, selective-build names and a Python
// fake-kernel stub; the optional-tensor list arrives as a c10::List.
#include <ATen/ATen.h>
#include <ATen/core/List.h>
#include <torch/library.h>

namespace {

// Sum of the present tensors, each scaled by its weight (None entries are skipped).
at::Tensor masked_weighted_sum(const c10::List<std::optional<at::Tensor>>& xs,
                               const c10::List<double>& weights) {
  TORCH_CHECK(xs.size() == weights.size(), "masked_weighted_sum: ", xs.size(), " tensors but ",
              weights.size(), " weights");
  at::Tensor total;
  for (const auto i : c10::irange(xs.size())) {
    const std::optional<at::Tensor> x = xs.get(i);
    if (!x.has_value()) continue;
    at::Tensor term = *x * weights.get(i);
    total = total.defined() ? total + term : term;
  }
  TORCH_CHECK(total.defined(), "masked_weighted_sum: every tensor is None");
  return total;
}

// The sizes of each tensor along `dim`.
std::vector<int64_t> sizes_along(at::TensorList xs, int64_t dim) {
  std::vector<int64_t> out;
  for (const at::Tensor& x : xs) out.push_back(x.size(dim));
  return out;
}

}  // namespace

TORCH_LIBRARY(corpus_lists, m) {
  m.impl_abstract_pystub("corpus_lists_fake");
  m.def(TORCH_SELECTIVE_SCHEMA(
            "corpus_lists::masked_weighted_sum(Tensor?[] xs, float[] weights) -> Tensor"),
        {at::Tag::pt2_compliant_tag});
  m.def("sizes_along(Tensor[] xs, int dim) -> int[]", {at::Tag::pt2_compliant_tag});
}

TORCH_LIBRARY_IMPL(corpus_lists, CPU, m) {
  m.impl(TORCH_SELECTIVE_NAME("corpus_lists::masked_weighted_sum"), &masked_weighted_sum);
  m.impl("sizes_along", &sizes_along);
}
