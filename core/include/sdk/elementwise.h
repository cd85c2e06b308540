// sdk/elementwise.h: elementwise ops beyond the op tables, as free functions over the C ABI:
// div with a rounding mode, activations with parameters, nan_to_num, lerp, addcmul,
// addcdiv, clamp with tensor bounds, isclose/allclose, and torch's aliases.
#ifndef SDK_ELEMENTWISE_H_
#define SDK_ELEMENTWISE_H_

#include <optional>
#include <string_view>

#include "sdk/math.h"
#include "sdk/ops.h"

namespace sdk {
namespace detail {

// torch's rounding_mode strings as sdk_rounding_mode codes.
inline int32_t rounding_mode_code(std::optional<std::string_view> mode) {
  if (!mode) return SDK_ROUNDING_NONE;
  if (*mode == "trunc") return SDK_ROUNDING_TRUNC;
  if (*mode == "floor") return SDK_ROUNDING_FLOOR;
  throw_error(
      SDK_ERROR_VALUE,
      concat("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
             std::string(mode->data(), mode->size()), "'"));
}

inline sdk_scalar opt_float(const std::optional<double>& v) {
  return v ? Scalar(*v).raw() : Scalar::none().raw();
}

}  // namespace detail

// ---- aliases of table ops (torch's other names) ----------------------------------------
#define SDK_DETAIL_DEFINE_ALIAS(alias, name)                                                    \
  inline Tensor alias(const Tensor& self) { return name(self); }                                \
  inline Tensor& alias##_out(Tensor& out, const Tensor& self) { return name##_out(out, self); } \
  inline const Tensor& alias##_(const Tensor& self) { return name##_(self); }
SDK_DETAIL_DEFINE_ALIAS(sgn, sign)
SDK_DETAIL_DEFINE_ALIAS(fix, trunc)
SDK_DETAIL_DEFINE_ALIAS(arcsin, asin)
SDK_DETAIL_DEFINE_ALIAS(arccos, acos)
SDK_DETAIL_DEFINE_ALIAS(arctan, atan)
SDK_DETAIL_DEFINE_ALIAS(arcsinh, asinh)
SDK_DETAIL_DEFINE_ALIAS(arccosh, acosh)
SDK_DETAIL_DEFINE_ALIAS(arctanh, atanh)
#undef SDK_DETAIL_DEFINE_ALIAS
inline Tensor true_divide(const Tensor& self, const Tensor& other) { return div(self, other); }
inline Tensor true_divide(const Tensor& self, const Scalar& other) { return div(self, other); }
inline Tensor arctan2(const Tensor& self, const Tensor& other) { return atan2(self, other); }

// ---- division with a rounding mode -------------------------------------------------------
/*! \brief self / other: true division (nullopt), or rounded "trunc" (toward zero) or
 *  "floor" (toward -inf); rounded integer division keeps the integer dtype. */
inline Tensor div(const Tensor& self, const Tensor& other,
                  std::optional<std::string_view> rounding_mode) {
  SDK_DETAIL_RETURN(
      "div", sdk_div_rounding(self.get(), other.get(), detail::rounding_mode_code(rounding_mode),
                              nullptr, &r_));
}
inline Tensor div(const Tensor& self, const Scalar& other,
                  std::optional<std::string_view> rounding_mode) {
  SDK_DETAIL_RETURN(
      "div", sdk_div_rounding_scalar(self.get(), other.raw(), 0,
                                     detail::rounding_mode_code(rounding_mode), nullptr, &r_));
}
inline Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                       std::optional<std::string_view> rounding_mode) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_div_rounding(self.get(), other.get(),
                                        detail::rounding_mode_code(rounding_mode), out.get(), &r),
                       "div_out");
  return detail::finish_out(out, r);
}
inline Tensor divide(const Tensor& self, const Tensor& other,
                     std::optional<std::string_view> rounding_mode) {
  return div(self, other, rounding_mode);
}

// ---- activations with parameters ---------------------------------------------------------
/*! \brief log(1 + exp(beta * x)) / beta, linear where beta * x > threshold. */
inline Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20) {
  SDK_DETAIL_RETURN("softplus",
                    sdk_softplus(self.get(), beta.toDouble(), threshold.toDouble(), nullptr, &r_));
}
inline Tensor& softplus_out(Tensor& out, const Tensor& self, const Scalar& beta = 1,
                            const Scalar& threshold = 20) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_softplus(self.get(), beta.toDouble(), threshold.toDouble(), out.get(), &r),
      "softplus_out");
  return detail::finish_out(out, r);
}
/*! \brief x if x > 0 else negative_slope * x. */
inline Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01) {
  SDK_DETAIL_RETURN("leaky_relu",
                    sdk_leaky_relu(self.get(), negative_slope.toDouble(), nullptr, &r_));
}
inline const Tensor& leaky_relu_(const Tensor& self, const Scalar& negative_slope = 0.01) {
  return detail::finish_inplace(
      self, sdk_leaky_relu(self.get(), negative_slope.toDouble(), self.get(), nullptr),
      "leaky_relu_");
}
inline Tensor& leaky_relu_out(Tensor& out, const Tensor& self,
                              const Scalar& negative_slope = 0.01) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_leaky_relu(self.get(), negative_slope.toDouble(), out.get(), &r),
                       "leaky_relu_out");
  return detail::finish_out(out, r);
}
/*! \brief clamp(x, min_val, max_val), keeping x's dtype. */
inline Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1) {
  if (self.scalar_type() == kBool) {
    detail::throw_error(SDK_ERROR_TYPE, "hardtanh: bool tensors are not supported");
  }
  Tensor out = empty_like(self);
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_clamp(self.get(), min_val.raw(), max_val.raw(), out.get(), &r),
                       "hardtanh");
  sdk_tensor_release(r);
  return out;
}
inline const Tensor& hardtanh_(const Tensor& self, const Scalar& min_val = -1,
                               const Scalar& max_val = 1) {
  if (self.scalar_type() == kBool) {
    detail::throw_error(SDK_ERROR_TYPE, "hardtanh_: bool tensors are not supported");
  }
  return detail::finish_inplace(
      self, sdk_clamp(self.get(), min_val.raw(), max_val.raw(), self.get(), nullptr), "hardtanh_");
}
/*! \brief hardtanh(x, 0, 6). */
inline Tensor relu6(const Tensor& self) { return hardtanh(self, 0, 6); }
inline const Tensor& relu6_(const Tensor& self) { return hardtanh_(self, 0, 6); }
/*! \brief NaN, +inf and -inf replaced (defaults: 0 and the dtype's finite extremes). */
inline Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                         std::optional<double> posinf = std::nullopt,
                         std::optional<double> neginf = std::nullopt) {
  SDK_DETAIL_RETURN("nan_to_num",
                    sdk_nan_to_num(self.get(), detail::opt_float(nan), detail::opt_float(posinf),
                                   detail::opt_float(neginf), nullptr, &r_));
}
inline Tensor& nan_to_num_out(Tensor& out, const Tensor& self,
                              std::optional<double> nan = std::nullopt,
                              std::optional<double> posinf = std::nullopt,
                              std::optional<double> neginf = std::nullopt) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_nan_to_num(self.get(), detail::opt_float(nan), detail::opt_float(posinf),
                                      detail::opt_float(neginf), out.get(), &r),
                       "nan_to_num_out");
  return detail::finish_out(out, r);
}

// ---- ternary ops ---------------------------------------------------------------------------
/*! \brief self + weight * (end - self), broadcast; one floating dtype. */
inline Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  SDK_DETAIL_RETURN("lerp", sdk_lerp_scalar(self.get(), end.get(), weight.raw(), nullptr, &r_));
}
inline Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  SDK_DETAIL_RETURN("lerp", sdk_lerp(self.get(), end.get(), weight.get(), nullptr, &r_));
}
inline Tensor& lerp_out(Tensor& out, const Tensor& self, const Tensor& end, const Scalar& weight) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_lerp_scalar(self.get(), end.get(), weight.raw(), out.get(), &r),
                       "lerp_out");
  return detail::finish_out(out, r);
}
inline Tensor& lerp_out(Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_lerp(self.get(), end.get(), weight.get(), out.get(), &r), "lerp_out");
  return detail::finish_out(out, r);
}
/*! \brief self + value * tensor1 * tensor2, broadcast. */
inline Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                      const Scalar& value = 1) {
  SDK_DETAIL_RETURN(
      "addcmul", sdk_addcmul(self.get(), tensor1.get(), tensor2.get(), value.raw(), nullptr, &r_));
}
inline Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& tensor1,
                           const Tensor& tensor2, const Scalar& value = 1) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_addcmul(self.get(), tensor1.get(), tensor2.get(), value.raw(), out.get(), &r),
      "addcmul_out");
  return detail::finish_out(out, r);
}
/*! \brief self + value * tensor1 / tensor2, broadcast (not for two integer tensors). */
inline Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                      const Scalar& value = 1) {
  SDK_DETAIL_RETURN(
      "addcdiv", sdk_addcdiv(self.get(), tensor1.get(), tensor2.get(), value.raw(), nullptr, &r_));
}
inline Tensor& addcdiv_out(Tensor& out, const Tensor& self, const Tensor& tensor1,
                           const Tensor& tensor2, const Scalar& value = 1) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_addcdiv(self.get(), tensor1.get(), tensor2.get(), value.raw(), out.get(), &r),
      "addcdiv_out");
  return detail::finish_out(out, r);
}
/*! \brief min(max(self, min), max) with tensor bounds (broadcast, promoted); an absent
 *  bound is open. */
inline Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
                    const std::optional<Tensor>& max = std::nullopt) {
  const Tensor* lo = min && min->defined() ? &*min : nullptr;
  const Tensor* hi = max && max->defined() ? &*max : nullptr;
  SDK_DETAIL_RETURN("clamp", sdk_clamp_tensor(self.get(), lo ? lo->get() : nullptr,
                                              hi ? hi->get() : nullptr, nullptr, &r_));
}
inline Tensor& clamp_out(Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max = std::nullopt) {
  const Tensor* lo = min && min->defined() ? &*min : nullptr;
  const Tensor* hi = max && max->defined() ? &*max : nullptr;
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_clamp_tensor(self.get(), lo ? lo->get() : nullptr,
                                        hi ? hi->get() : nullptr, out.get(), &r),
                       "clamp_out");
  return detail::finish_out(out, r);
}
inline const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min,
                            const std::optional<Tensor>& max = std::nullopt) {
  return self.clamp_(min, max);
}
inline const Tensor& clamp_(const Tensor& self, const std::optional<Scalar>& min,
                            const std::optional<Scalar>& max = std::nullopt) {
  return self.clamp_(min, max);
}
inline Tensor clamp_min(const Tensor& self, const Tensor& min) {
  return clamp(self, min, std::nullopt);
}
inline Tensor clamp_max(const Tensor& self, const Tensor& max) {
  return clamp(self, std::nullopt, max);
}
inline Tensor clip(const Tensor& self, const std::optional<Scalar>& min,
                   const std::optional<Scalar>& max = std::nullopt) {
  return clamp(self, min, max);
}
inline Tensor clip(const Tensor& self, const std::optional<Tensor>& min,
                   const std::optional<Tensor>& max = std::nullopt) {
  return clamp(self, min, max);
}
/*! \brief condition ? self : other for two numbers (float32 when either is a float). */
inline Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  ScalarType t = self.isFloatingPoint() || other.isFloatingPoint() ? kFloat
                 : self.isBoolean() && other.isBoolean()           ? kBool
                                                                   : kLong;
  TensorOptions o = condition.options().dtype(t);
  return where(condition, full({}, self, o), full({}, other, o));
}

// ---- closeness -----------------------------------------------------------------------------
/*! \brief Bool tensor: |self - other| <= atol + rtol * |other|, or equal (NaNs equal each
 *  other with equal_nan); same dtypes, broadcast. */
inline Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05,
                      double atol = 1e-08, bool equal_nan = false) {
  SDK_DETAIL_RETURN("isclose",
                    sdk_isclose(self.get(), other.get(), rtol, atol, equal_nan ? 1 : 0, &r_));
}
/*! \brief isclose everywhere. */
inline bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05,
                     double atol = 1e-08, bool equal_nan = false) {
  return isclose(self, other, rtol, atol, equal_nan).all().cpu().item<bool>();
}

}  // namespace sdk

#endif  // SDK_ELEMENTWISE_H_
