// sdk/thc_numerics.h: THC's THCNumerics<T> (THC/THCNumerics.cuh, torch 1.10 and before), the
// static functions old kernels call on a scalar type (THCNumerics<T>::min(), ::lt, ::add,
// ::exp, ::isnan, ...), with ScalarConvert and scalar_cast from the same header. Host and
// device code; no CUDA needed. sdk/thc.h includes it, as THC/THC.h's users expect.
//
// The types are THC's: uint8_t, bool, int8_t, int16_t, int32_t, int64_t, Half, float, double.
// The limits are sdk::numeric_limits's (at::numeric_limits). Half computes in float and
// rounds the result back, as at::Half's conversions did. The functions are the union of THC's
// versions (later ones dropped log, neg, ceil, ...): a kernel of any of them compiles.
#ifndef SDK_THC_NUMERICS_H_
#define SDK_THC_NUMERICS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "sdk/half.h"
#include "sdk/macros.h"
#include "sdk/numeric_limits.h"
#include "sdk/util.h"  // sdk::bit_cast

namespace sdk {
namespace detail {

// What every THCNumerics<T> has: the limits and the comparisons.
template <typename T>
struct ThcOrdered {
  static SDK_DEVICE_INLINE T min() { return numeric_limits<T>::lowest(); }
  static SDK_DEVICE_INLINE T max() { return numeric_limits<T>::max(); }
  static SDK_DEVICE_INLINE T lower_bound() { return numeric_limits<T>::lower_bound(); }
  static SDK_DEVICE_INLINE T upper_bound() { return numeric_limits<T>::upper_bound(); }
  static SDK_DEVICE_INLINE bool lt(T a, T b) { return a < b; }
  static SDK_DEVICE_INLINE bool le(T a, T b) { return a <= b; }
  static SDK_DEVICE_INLINE bool gt(T a, T b) { return a > b; }
  static SDK_DEVICE_INLINE bool ge(T a, T b) { return a >= b; }
  static SDK_DEVICE_INLINE bool eq(T a, T b) { return a == b; }
  static SDK_DEVICE_INLINE bool ne(T a, T b) { return a != b; }
};

// Integers and bool: arithmetic in T (wrapping as T's conversion does), no NaN or infinity.
template <typename T>
struct ThcIntegralNumerics : ThcOrdered<T> {
  static SDK_DEVICE_INLINE bool eq_with_nan(T a, T b) { return a == b; }
  static SDK_DEVICE_INLINE T add(T a, T b) { return static_cast<T>(a + b); }
  static SDK_DEVICE_INLINE T sub(T a, T b) { return static_cast<T>(a - b); }
  static SDK_DEVICE_INLINE T mul(T a, T b) { return static_cast<T>(a * b); }
  static SDK_DEVICE_INLINE T div(T a, T b) { return static_cast<T>(a / b); }
  static SDK_DEVICE_INLINE T neg(T a) { return static_cast<T>(-a); }
  // |a|, the most negative value staying itself (two's complement), as THC's ::abs did.
  static SDK_DEVICE_INLINE T abs(T a) {
    if constexpr (std::is_signed_v<T>) {
      using U = std::make_unsigned_t<T>;
      return a < 0 ? static_cast<T>(static_cast<U>(0) - static_cast<U>(a)) : a;
    } else {
      return a;
    }
  }
  // a to the power b by squaring. THC asserted b >= 0; a negative b gives a^b's integer part
  // (1 for a == 1, +-1 for a == -1, else 0) instead of looping on garbage.
  static SDK_DEVICE_INLINE T pow(T a, T b) {
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) return a == 1 ? T(1) : a == -1 ? static_cast<T>(b % 2 == 0 ? 1 : -1) : T(0);
    }
    T result = 1;
    while (b) {
      if (b & 1) result = static_cast<T>(result * a);
      b = static_cast<T>(b / 2);
      a = static_cast<T>(a * a);
    }
    return result;
  }
  static SDK_DEVICE_INLINE bool isnan(T) { return false; }
  static SDK_DEVICE_INLINE bool isinf(T) { return false; }
};

// THC spelled exp10 with CUDA's exp10f / exp10; host compilers need not have them.
SDK_DEVICE_INLINE float thc_exp10(float x) {
#if defined(__CUDA_ARCH__)
  return ::exp10f(x);
#else
  return std::pow(10.0f, x);
#endif
}
SDK_DEVICE_INLINE double thc_exp10(double x) {
#if defined(__CUDA_ARCH__)
  return ::exp10(x);
#else
  return std::pow(10.0, x);
#endif
}

// Floating types: T's arithmetic, the functions computed in C (float for Half).
template <typename T, typename C>
struct ThcFloatingNumerics : ThcOrdered<T> {
  // Equal bits: NaNs of the same payload compare equal, -0 and +0 do not.
  static SDK_DEVICE_INLINE bool eq_with_nan(T a, T b) {
    using Bits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                    std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
    return bit_cast<Bits>(a) == bit_cast<Bits>(b);
  }
#define SDK_DETAIL_THC_UNARY(name, expr) \
  static SDK_DEVICE_INLINE T name(T a) { \
    const C x = static_cast<C>(a);       \
    return static_cast<T>(expr);         \
  }
  SDK_DETAIL_THC_UNARY(exp, std::exp(x))
  SDK_DETAIL_THC_UNARY(exp10, thc_exp10(x))
  SDK_DETAIL_THC_UNARY(expm1, std::expm1(x))
  SDK_DETAIL_THC_UNARY(log, std::log(x))
  SDK_DETAIL_THC_UNARY(log10, std::log10(x))
  SDK_DETAIL_THC_UNARY(log1p, std::log1p(x))
  SDK_DETAIL_THC_UNARY(log2, std::log2(x))
  SDK_DETAIL_THC_UNARY(lgamma, std::lgamma(x))
  SDK_DETAIL_THC_UNARY(cos, std::cos(x))
  SDK_DETAIL_THC_UNARY(sin, std::sin(x))
  SDK_DETAIL_THC_UNARY(tan, std::tan(x))
  SDK_DETAIL_THC_UNARY(acos, std::acos(x))
  SDK_DETAIL_THC_UNARY(asin, std::asin(x))
  SDK_DETAIL_THC_UNARY(atan, std::atan(x))
  SDK_DETAIL_THC_UNARY(cosh, std::cosh(x))
  SDK_DETAIL_THC_UNARY(sinh, std::sinh(x))
  SDK_DETAIL_THC_UNARY(tanh, std::tanh(x))
  SDK_DETAIL_THC_UNARY(acosh, std::acosh(x))
  SDK_DETAIL_THC_UNARY(asinh, std::asinh(x))
  SDK_DETAIL_THC_UNARY(erf, std::erf(x))
  SDK_DETAIL_THC_UNARY(erfc, std::erfc(x))
  SDK_DETAIL_THC_UNARY(sqrt, std::sqrt(x))
  SDK_DETAIL_THC_UNARY(rsqrt, C(1) / std::sqrt(x))
  SDK_DETAIL_THC_UNARY(abs, std::fabs(x))
  SDK_DETAIL_THC_UNARY(neg, -x)
  SDK_DETAIL_THC_UNARY(ceil, std::ceil(x))
  SDK_DETAIL_THC_UNARY(floor, std::floor(x))
  SDK_DETAIL_THC_UNARY(trunc, std::trunc(x))
  SDK_DETAIL_THC_UNARY(round, std::round(x))
  SDK_DETAIL_THC_UNARY(frac, x - std::trunc(x))
  SDK_DETAIL_THC_UNARY(cinv, C(1) / x)
#undef SDK_DETAIL_THC_UNARY
#define SDK_DETAIL_THC_BINARY(name, expr)                 \
  static SDK_DEVICE_INLINE T name(T a, T b) {             \
    const C x = static_cast<C>(a), y = static_cast<C>(b); \
    return static_cast<T>(expr);                          \
  }
  SDK_DETAIL_THC_BINARY(add, x + y)
  SDK_DETAIL_THC_BINARY(sub, x - y)
  SDK_DETAIL_THC_BINARY(mul, x* y)
  SDK_DETAIL_THC_BINARY(div, x / y)
  SDK_DETAIL_THC_BINARY(pow, std::pow(x, y))
  SDK_DETAIL_THC_BINARY(atan2, std::atan2(x, y))
#undef SDK_DETAIL_THC_BINARY
  static SDK_DEVICE_INLINE bool isnan(T a) { return std::isnan(static_cast<C>(a)); }
  static SDK_DEVICE_INLINE bool isinf(T a) { return std::isinf(static_cast<C>(a)); }
};

}  // namespace detail
}  // namespace sdk

/*! \brief THC's scalar functions of type T (THCNumerics<T>::add(a, b), ::min(), ...). */
template <typename T>
struct THCNumerics {};
template <>
struct THCNumerics<uint8_t> : sdk::detail::ThcIntegralNumerics<uint8_t> {};
template <>
struct THCNumerics<bool> : sdk::detail::ThcIntegralNumerics<bool> {};
template <>
struct THCNumerics<int8_t> : sdk::detail::ThcIntegralNumerics<int8_t> {};
template <>
struct THCNumerics<int16_t> : sdk::detail::ThcIntegralNumerics<int16_t> {};
template <>
struct THCNumerics<int32_t> : sdk::detail::ThcIntegralNumerics<int32_t> {};
template <>
struct THCNumerics<int64_t> : sdk::detail::ThcIntegralNumerics<int64_t> {};
template <>
struct THCNumerics<sdk::Half> : sdk::detail::ThcFloatingNumerics<sdk::Half, float> {};
template <>
struct THCNumerics<float> : sdk::detail::ThcFloatingNumerics<float, float> {};
template <>
struct THCNumerics<double> : sdk::detail::ThcFloatingNumerics<double, double> {};

/*! \brief THC's conversion of a scalar to another type: ScalarConvert<In, Out>::to(v). */
template <typename In, typename Out>
struct ScalarConvert {
  static SDK_DEVICE_INLINE Out to(const In v) { return static_cast<Out>(v); }
};

/*! \brief scalar_cast<T>(u): ScalarConvert<U, T>::to(u). */
template <typename T, typename U>
SDK_DEVICE_INLINE T scalar_cast(U u) {
  return ScalarConvert<U, T>::to(u);
}

#endif  // SDK_THC_NUMERICS_H_
