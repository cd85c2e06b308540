// sdk/expand_utils.h: broadcasting helpers and the memory-overlap query kernels check before
// writing in place, as torch's ATen/ExpandUtils.h and ATen/MemoryOverlap.h spell them.
#ifndef SDK_EXPAND_UTILS_H_
#define SDK_EXPAND_UTILS_H_

#include <cstdint>
#include <tuple>
#include <vector>

#include "sdk/maybe_owned.h"
#include "sdk/tensor.h"
#include "sdk/util.h"

namespace sdk {

/*! \brief The broadcast shape of a and b; ValueError naming both when they do not broadcast
 *  (at::infer_size). */
inline std::vector<int64_t> infer_size(IntArrayRef a, IntArrayRef b) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    SDK_CHECK_VALUE(x == y || x == 1 || y == 1, "The size of tensor a (", x,
                    ") must match the size of tensor b (", y, ") at non-singleton dimension ", i);
    out[i] = x == 1 ? y : x;
  }
  return out;
}
inline DimVector infer_size_dimvector(IntArrayRef a, IntArrayRef b) {
  std::vector<int64_t> s = infer_size(a, b);
  return DimVector(s.begin(), s.end());
}
/*! \brief `shape` with its one -1 replaced so that it holds `numel` elements, as view() and
 *  reshape() read it (ATen/InferSize.h's at::infer_size). */
inline std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel) {
  std::vector<int64_t> out(shape.begin(), shape.end());
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      SDK_CHECK_VALUE(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      SDK_CHECK_VALUE(out[i] >= 0, "invalid shape dimension ", out[i]);
      known *= out[i];
    }
  }
  const bool ok = infer < 0 ? known == numel : (known > 0 && numel % known == 0);
  SDK_CHECK_VALUE(ok, "shape '", shape, "' is invalid for input of size ", numel);
  if (infer >= 0) out[static_cast<size_t>(infer)] = numel / known;
  return out;
}
inline DimVector infer_size_dv(IntArrayRef shape, int64_t numel) {
  std::vector<int64_t> s = infer_size(shape, numel);
  return DimVector(s.begin(), s.end());
}
/*! \brief Whether `shape` broadcasts to `desired` (at::is_expandable_to). */
inline bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 1; i <= shape.size(); ++i) {
    const int64_t s = shape[shape.size() - i], d = desired[desired.size() - i];
    if (s != d && s != 1) return false;
  }
  return true;
}
/*! \brief `to_expand` expanded to `sizes`, borrowed when it has them already. */
inline MaybeOwned<Tensor> expand_size(const Tensor& to_expand, IntArrayRef sizes) {
  if (to_expand.sizes().equals(sizes)) return MaybeOwned<Tensor>::borrowed(to_expand);
  return MaybeOwned<Tensor>::owned(to_expand.expand(sizes));
}
// The results may borrow their argument: a temporary would be gone before they are read.
MaybeOwned<Tensor> expand_size(Tensor&& to_expand, IntArrayRef sizes) = delete;
/*! \brief `to_expand` expanded to the shape of `tensor` (which an in-place op writes). */
inline MaybeOwned<Tensor> expand_inplace(const Tensor& tensor, const Tensor& to_expand) {
  return expand_size(to_expand, tensor.sizes());
}
MaybeOwned<Tensor> expand_inplace(const Tensor& tensor, Tensor&& to_expand) = delete;
/*! \brief Both tensors expanded to their broadcast shape. */
inline std::tuple<MaybeOwned<Tensor>, MaybeOwned<Tensor>> expand_outplace(
    const Tensor& to_expand1, const Tensor& to_expand2) {
  std::vector<int64_t> shape = infer_size(to_expand1.sizes(), to_expand2.sizes());
  return std::make_tuple(expand_size(to_expand1, shape), expand_size(to_expand2, shape));
}

std::tuple<MaybeOwned<Tensor>, MaybeOwned<Tensor>> expand_outplace(
    Tensor&& to_expand1, const Tensor& to_expand2) = delete;
std::tuple<MaybeOwned<Tensor>, MaybeOwned<Tensor>> expand_outplace(const Tensor& to_expand1,
                                                                   Tensor&& to_expand2) = delete;
std::tuple<MaybeOwned<Tensor>, MaybeOwned<Tensor>> expand_outplace(Tensor&& to_expand1,
                                                                   Tensor&& to_expand2) = delete;

/*! \brief Whether a tensor's elements share memory with each other (at::MemOverlap). */
enum class MemOverlap { No, Yes, TooHard };
/*! \brief No for dense non-overlapping tensors, Yes when a dim of size > 1 has stride 0
 *  (expanded), TooHard otherwise (at::has_internal_overlap). */
inline MemOverlap has_internal_overlap(const Tensor& t) {
  if (t.is_non_overlapping_and_dense()) return MemOverlap::No;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0 && t.size(d) > 1) return MemOverlap::Yes;
  }
  return MemOverlap::TooHard;
}
/*! \brief Throws when writing to `t` would write one memory location twice. */
inline void assert_no_internal_overlap(const Tensor& t) {
  SDK_CHECK_VALUE(has_internal_overlap(t) != MemOverlap::Yes,
                  "unsupported operation: more than one element of the written-to tensor refers "
                  "to a single memory location. Please clone() the tensor before performing the "
                  "operation.");
}

/*! \brief The optional's tensor borrowed, or an owned undefined tensor
 *  (at::borrow_from_optional_tensor). */
inline MaybeOwned<Tensor> borrow_from_optional_tensor(const std::optional<Tensor>& opt) {
  return opt ? MaybeOwned<Tensor>::borrowed(*opt) : MaybeOwned<Tensor>::owned(std::in_place);
}

}  // namespace sdk

#endif  // SDK_EXPAND_UTILS_H_
