// sdk/scan.h: scans over the C ABI (cumsum, cumprod, their _out and in-place forms, cummax,
// cummin): free functions and the bodies of their Tensor methods, with torch's names and
// arguments (core/src/scan.cpp; Python: sdk/_ops_scan.py).
#ifndef SDK_SCAN_H_
#define SDK_SCAN_H_

#include <cstdint>
#include <optional>
#include <tuple>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
/*! \brief Running sum along dim (integer and bool inputs give int64 unless dtype is given). */
inline Tensor cumsum(const Tensor& self, int64_t dim,
                     std::optional<ScalarType> dtype = std::nullopt) {
  SDK_DETAIL_RETURN("cumsum", sdk_cumsum(self.get(), dim, detail::opt_dtype(dtype), nullptr, &r_));
}
inline Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<ScalarType> dtype = std::nullopt) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_cumsum(self.get(), dim, detail::opt_dtype(dtype), out.get(), &r),
                       "cumsum_out");
  return detail::finish_out(out, r);
}
/*! \brief Running product along dim (dtype as cumsum). */
inline Tensor cumprod(const Tensor& self, int64_t dim,
                      std::optional<ScalarType> dtype = std::nullopt) {
  SDK_DETAIL_RETURN("cumprod",
                    sdk_cumprod(self.get(), dim, detail::opt_dtype(dtype), nullptr, &r_));
}
inline Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim,
                           std::optional<ScalarType> dtype = std::nullopt) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_cumprod(self.get(), dim, detail::opt_dtype(dtype), out.get(), &r),
                       "cumprod_out");
  return detail::finish_out(out, r);
}
/*! \brief (values, indices) of the running max along dim (the last index of equal values). */
inline std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_cummax(self.get(), dim, &v, &i), "cummax");
  return detail::pair_of(v, i);
}
/*! \brief (values, indices) of the running min along dim. */
inline std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_cummin(self.get(), dim, &v, &i), "cummin");
  return detail::pair_of(v, i);
}

// ---- the Tensor methods of this file -------------------------------------------------
inline Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return sdk::cumsum(*this, dim, dtype);
}
inline const Tensor& Tensor::cumsum_(int64_t dim, std::optional<ScalarType> dtype) const {
  return detail::finish_inplace(
      *this, sdk_cumsum(get(), dim, detail::opt_dtype(dtype), get(), nullptr), "cumsum_");
}
inline Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return sdk::cumprod(*this, dim, dtype);
}
inline const Tensor& Tensor::cumprod_(int64_t dim, std::optional<ScalarType> dtype) const {
  return detail::finish_inplace(
      *this, sdk_cumprod(get(), dim, detail::opt_dtype(dtype), get(), nullptr), "cumprod_");
}
inline std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return sdk::cummax(*this, dim);
}
inline std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return sdk::cummin(*this, dim);
}

}  // namespace sdk

#endif  // SDK_SCAN_H_
