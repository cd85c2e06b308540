// sdk/sort.h: sorting ops over the C ABI (sort, argsort, topk, kthvalue, median):
// free functions and the bodies of their Tensor methods, with torch's names and arguments
// (core/src/sort.cpp; Python: sdk/_ops_sort.py).
#ifndef SDK_SORT_H_
#define SDK_SORT_H_

#include <cstdint>
#include <optional>
#include <tuple>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
/*! \brief (values, indices) sorted along dim; NaN above every number; always stable. */
inline std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1,
                                       bool descending = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_sort(self.get(), dim, descending ? 1 : 0, 0, &v, &i), "sort");
  return detail::pair_of(v, i);
}
inline std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                       bool descending = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(
      sdk_sort(self.get(), dim, descending ? 1 : 0, stable.value_or(false) ? 1 : 0, &v, &i),
      "sort");
  return detail::pair_of(v, i);
}
inline Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false) {
  return std::get<1>(sort(self, dim, descending));
}
inline Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending = false) {
  return std::get<1>(sort(self, stable, dim, descending));
}
/*! \brief (values, indices) of the k largest (or smallest) elements along dim. */
inline std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                       bool largest = true, bool sorted = true) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_topk(self.get(), k, dim, largest ? 1 : 0, sorted ? 1 : 0, &v, &i),
                       "topk");
  return detail::pair_of(v, i);
}
/*! \brief (values, indices) of the k-th smallest element (k from 1) along dim. */
inline std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                           bool keepdim = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_kthvalue(self.get(), k, dim, keepdim ? 1 : 0, &v, &i), "kthvalue");
  return detail::pair_of(v, i);
}
/*! \brief (values, indices) of the lower median along dim (NaN where a NaN is). */
inline std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_median_dim(self.get(), dim, keepdim ? 1 : 0, &v, &i), "median");
  return detail::pair_of(v, i);
}
/*! \brief The lower median of all elements (0-dim). */
inline Tensor median(const Tensor& self) {
  return std::get<0>(median(self.reshape({-1}), 0, false));
}

// ---- the Tensor methods of this file -------------------------------------------------
inline std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return sdk::sort(*this, dim, descending);
}
inline std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                               bool descending) const {
  return sdk::sort(*this, stable, dim, descending);
}
inline Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return sdk::argsort(*this, dim, descending);
}
inline std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest,
                                               bool sorted) const {
  return sdk::topk(*this, k, dim, largest, sorted);
}
inline std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return sdk::kthvalue(*this, k, dim, keepdim);
}
inline Tensor Tensor::median() const { return sdk::median(*this); }
inline std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return sdk::median(*this, dim, keepdim);
}

}  // namespace sdk

#endif  // SDK_SORT_H_
