// sdk/scatter.h: scatter ops over the C ABI (scatter, scatter_add, scatter_reduce, index_add,
// index_copy, index_fill, masked_select, masked_scatter, take, take_along_dim): free functions
// and the bodies of their Tensor methods, with torch's names and arguments
// (core/src/scatter.cpp; Python: sdk/_ops_scatter.py).
#ifndef SDK_SCATTER_H_
#define SDK_SCATTER_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
namespace detail {

// scatter_reduce's reduce names as the C ABI's reduction codes.
inline int32_t scatter_reduce_code(std::string_view reduce, const char* op) {
  if (reduce == "sum") return SDK_SUM;
  if (reduce == "prod") return SDK_PROD;
  if (reduce == "mean") return SDK_MEAN;
  if (reduce == "amax") return SDK_AMAX;
  if (reduce == "amin") return SDK_AMIN;
  throw_error(SDK_ERROR_VALUE,
              concat(op, ": reduce argument must be one of sum, prod, mean, amax, amin, got '",
                     std::string(reduce), "'"));
}

}  // namespace detail

inline Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor result = clone(self);
  detail::check_status(sdk_scatter_add_(result.get(), dim, index.get(), src.get()), "scatter_add");
  return result;
}
inline Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index,
                        const Tensor& source) {
  Tensor result = clone(self);
  detail::check_status(sdk_index_add_(result.get(), dim, index.get(), source.get()), "index_add");
  return result;
}
/*! \brief A copy of self with self[index[i][j]][j] = src[i][j] (dim 0). */
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  SDK_DETAIL_RETURN("scatter", sdk_scatter(self.get(), dim, index.get(), src.get(), nullptr, &r_));
}
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  SDK_DETAIL_RETURN("scatter",
                    sdk_scatter_value(self.get(), dim, index.get(), value.raw(), nullptr, &r_));
}
/*! \brief A copy of self where src is combined into self[index...] by reduce ("sum",
 *  "prod", "mean", "amax", "amin"); without include_self, hit positions start from src. */
inline Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor& src, std::string_view reduce, bool include_self = true) {
  const int32_t code = detail::scatter_reduce_code(reduce, "scatter_reduce");
  SDK_DETAIL_RETURN("scatter_reduce", sdk_scatter_reduce(self.get(), dim, index.get(), src.get(),
                                                         code, include_self ? 1 : 0, nullptr, &r_));
}
/*! \brief scatter with reduce "add" or "multiply" (torch's older form). */
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce) {
  if (reduce != "add" && reduce != "multiply") {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("scatter: reduce argument must be either add or "
                                       "multiply, got '",
                                       std::string(reduce), "'"));
  }
  return scatter_reduce(self, dim, index, src, reduce == "add" ? "sum" : "prod", true);
}
/*! \brief A copy of self with self.index_select(dim, index) replaced by source. */
inline Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& source) {
  SDK_DETAIL_RETURN("index_copy",
                    sdk_index_copy(self.get(), dim, index.get(), source.get(), nullptr, &r_));
}
/*! \brief A copy of self with the slices at index along dim set to value. */
inline Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                         const Scalar& value) {
  SDK_DETAIL_RETURN("index_fill",
                    sdk_index_fill(self.get(), dim, index.get(), value.raw(), nullptr, &r_));
}
inline Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& value) {
  return index_fill(self, dim, index, value.item());
}
/*! \brief The elements of self where mask is true (broadcast together), 1-D. */
inline Tensor masked_select(const Tensor& self, const Tensor& mask) {
  SDK_DETAIL_RETURN("masked_select", sdk_masked_select(self.get(), mask.get(), &r_));
}
/*! \brief A copy of self whose elements where mask is true take source's, in order. */
inline Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  SDK_DETAIL_RETURN("masked_scatter",
                    sdk_masked_scatter(self.get(), mask.get(), source.get(), nullptr, &r_));
}
/*! \brief self read as 1-D at index (negative from the end), shaped like index. */
inline Tensor take(const Tensor& self, const Tensor& index) {
  SDK_DETAIL_RETURN("take", sdk_take(self.get(), index.get(), &r_));
}
/*! \brief gather along dim with indices broadcast against self outside dim (the flattened
 *  self without dim). */
inline Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                             std::optional<int64_t> dim = std::nullopt) {
  if (!dim) return gather(self.reshape({-1}), 0, indices.reshape({-1}));
  const int64_t n = self.dim();
  if (indices.dim() != n) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("take_along_dim: input and indices should have the same "
                                       "number of dimensions, got ",
                                       n, " and ", indices.dim()));
  }
  const int64_t d = *dim < 0 ? *dim + n : *dim;
  std::vector<int64_t> xs(self.sizes().begin(), self.sizes().end());
  std::vector<int64_t> is(indices.sizes().begin(), indices.sizes().end());
  for (int64_t k = 0; k < n; ++k) {
    if (k == d) continue;
    const int64_t m = xs[k] == 1 ? is[k] : xs[k];
    xs[k] = is[k] = m;
  }
  return gather(self.expand(xs), d, indices.expand(is));
}

// ---- the Tensor methods of this file -------------------------------------------------
inline Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return sdk::scatter_add(*this, dim, index, src);
}
inline const Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index,
                                          const Tensor& src) const {
  return detail::finish_inplace(*this, sdk_scatter_add_(get(), dim, index.get(), src.get()),
                                "scatter_add_");
}
inline Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source) const {
  return sdk::index_add(*this, dim, index, source);
}
inline const Tensor& Tensor::index_add_(int64_t dim, const Tensor& index,
                                        const Tensor& source) const {
  return detail::finish_inplace(*this, sdk_index_add_(get(), dim, index.get(), source.get()),
                                "index_add_");
}
inline Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return sdk::scatter(*this, dim, index, src);
}
inline Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return sdk::scatter(*this, dim, index, value);
}
inline const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return detail::finish_inplace(
      *this, sdk_scatter(get(), dim, index.get(), src.get(), get(), nullptr), "scatter_");
}
inline const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_scatter_value(get(), dim, index.get(), value.raw(), get(), nullptr), "scatter_");
}
inline const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                                      std::string_view reduce) const {
  if (reduce != "add" && reduce != "multiply") {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("scatter_: reduce argument must be either add or "
                                       "multiply, got '",
                                       std::string(reduce), "'"));
  }
  return scatter_reduce_(dim, index, src, reduce == "add" ? "sum" : "prod", true);
}
inline Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                                     std::string_view reduce, bool include_self) const {
  return sdk::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
inline const Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                             std::string_view reduce, bool include_self) const {
  const int32_t code = detail::scatter_reduce_code(reduce, "scatter_reduce_");
  return detail::finish_inplace(*this,
                                sdk_scatter_reduce(get(), dim, index.get(), src.get(), code,
                                                   include_self ? 1 : 0, get(), nullptr),
                                "scatter_reduce_");
}
inline Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return sdk::index_copy(*this, dim, index, source);
}
inline const Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index,
                                         const Tensor& source) const {
  return detail::finish_inplace(
      *this, sdk_index_copy(get(), dim, index.get(), source.get(), get(), nullptr), "index_copy_");
}
inline Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return sdk::index_fill(*this, dim, index, value);
}
inline const Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index,
                                         const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_index_fill(get(), dim, index.get(), value.raw(), get(), nullptr), "index_fill_");
}
inline Tensor Tensor::masked_select(const Tensor& mask) const {
  return sdk::masked_select(*this, mask);
}
inline Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return sdk::masked_scatter(*this, mask, source);
}
inline const Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  return detail::finish_inplace(*this,
                                sdk_masked_scatter(get(), mask.get(), source.get(), get(), nullptr),
                                "masked_scatter_");
}
inline Tensor Tensor::take(const Tensor& index) const { return sdk::take(*this, index); }
inline Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return sdk::take_along_dim(*this, indices, dim);
}

}  // namespace sdk

#endif  // SDK_SCATTER_H_
