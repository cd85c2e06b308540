// sdk/numeric_limits.h: torch's at::numeric_limits (lowest, max, lower_bound, upper_bound of
// each dtype, usable in host and device code), at::scalar_value_type, and at::_isnan /
// at::_isinf of ATen/NumericUtils.h.
#ifndef SDK_NUMERIC_LIMITS_H_
#define SDK_NUMERIC_LIMITS_H_

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "sdk/complex.h"
#include "sdk/float8.h"
#include "sdk/half.h"
#include "sdk/macros.h"

namespace sdk {

/*! \brief Limits of a dtype for reductions: lowest()/max() are the finite extremes,
 *  lower_bound()/upper_bound() the identities of max/min (-inf/+inf for floating types, the
 *  extremes for integers). Plain functions (not std::numeric_limits) so kernels can call
 *  them without relaxed constexpr. */
template <typename T>
struct numeric_limits {};

// Integer types and bool: the bounds are the extremes.
#define SDK_DETAIL_INT_LIMITS(T, LO, HI)                    \
  template <>                                               \
  struct numeric_limits<T> {                                \
    static SDK_DEVICE_INLINE T lowest() { return LO; }      \
    static SDK_DEVICE_INLINE T max() { return HI; }         \
    static SDK_DEVICE_INLINE T lower_bound() { return LO; } \
    static SDK_DEVICE_INLINE T upper_bound() { return HI; } \
  };
SDK_DETAIL_INT_LIMITS(bool, false, true)
SDK_DETAIL_INT_LIMITS(uint8_t, 0, UINT8_MAX)
SDK_DETAIL_INT_LIMITS(int8_t, INT8_MIN, INT8_MAX)
SDK_DETAIL_INT_LIMITS(int16_t, INT16_MIN, INT16_MAX)
SDK_DETAIL_INT_LIMITS(int32_t, INT32_MIN, INT32_MAX)
SDK_DETAIL_INT_LIMITS(int64_t, INT64_MIN, INT64_MAX)
#undef SDK_DETAIL_INT_LIMITS

// Floating types: the bounds are the infinities; the 16-bit types are built from their bits.
#define SDK_DETAIL_FLOAT_LIMITS(T, LO, HI, NEG_INF, POS_INF)     \
  template <>                                                    \
  struct numeric_limits<T> {                                     \
    static SDK_DEVICE_INLINE T lowest() { return LO; }           \
    static SDK_DEVICE_INLINE T max() { return HI; }              \
    static SDK_DEVICE_INLINE T lower_bound() { return NEG_INF; } \
    static SDK_DEVICE_INLINE T upper_bound() { return POS_INF; } \
  };
SDK_DETAIL_FLOAT_LIMITS(float, -FLT_MAX, FLT_MAX, -__builtin_huge_valf(), __builtin_huge_valf())
SDK_DETAIL_FLOAT_LIMITS(double, -DBL_MAX, DBL_MAX, -__builtin_huge_val(), __builtin_huge_val())
SDK_DETAIL_FLOAT_LIMITS(Half, Half::from_bits(0xFBFF), Half::from_bits(0x7BFF),
                        Half::from_bits(0xFC00), Half::from_bits(0x7C00))
SDK_DETAIL_FLOAT_LIMITS(BFloat16, BFloat16::from_bits(0xFF7F), BFloat16::from_bits(0x7F7F),
                        BFloat16::from_bits(0xFF80), BFloat16::from_bits(0x7F80))
// The 8-bit floats: only e5m2 has infinities; the bounds of the others are their extremes.
SDK_DETAIL_FLOAT_LIMITS(Float8_e5m2, Float8_e5m2::from_bits(0xFB), Float8_e5m2::from_bits(0x7B),
                        Float8_e5m2::from_bits(0xFC), Float8_e5m2::from_bits(0x7C))
SDK_DETAIL_FLOAT_LIMITS(Float8_e4m3fn, Float8_e4m3fn::from_bits(0xFE),
                        Float8_e4m3fn::from_bits(0x7E), Float8_e4m3fn::from_bits(0xFE),
                        Float8_e4m3fn::from_bits(0x7E))
SDK_DETAIL_FLOAT_LIMITS(Float8_e5m2fnuz, Float8_e5m2fnuz::from_bits(0xFF),
                        Float8_e5m2fnuz::from_bits(0x7F), Float8_e5m2fnuz::from_bits(0xFF),
                        Float8_e5m2fnuz::from_bits(0x7F))
SDK_DETAIL_FLOAT_LIMITS(Float8_e4m3fnuz, Float8_e4m3fnuz::from_bits(0xFF),
                        Float8_e4m3fnuz::from_bits(0x7F), Float8_e4m3fnuz::from_bits(0xFF),
                        Float8_e4m3fnuz::from_bits(0x7F))
#undef SDK_DETAIL_FLOAT_LIMITS

/*! \brief The real type of a scalar type (at::scalar_value_type): float for complex<float>,
 *  and every other scalar type its own. */
template <typename T>
struct scalar_value_type {
  using type = T;
};
template <typename T>
struct scalar_value_type<complex<T>> {
  using type = T;
};

/*! \brief Whether `v` is NaN, for every dtype in host and device code (at::_isnan): false
 *  for integers and bool; the 16- and 8-bit floats are tested as float. */
template <typename T>
SDK_DEVICE_INLINE bool _isnan(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else if constexpr (std::is_same_v<T, double>) {
    return v != v;
  } else {
    const float x = static_cast<float>(v);
    return x != x;
  }
}

/*! \brief Whether `v` is +inf or -inf (at::_isinf): false for integers, bool and NaN. Uses
 *  only arithmetic, so no math header decides between host and device. */
template <typename T>
SDK_DEVICE_INLINE bool _isinf(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const F x = static_cast<F>(v);
    return x == x && x - x != x - x;  // inf - inf is NaN; a finite x gives 0
  }
}

}  // namespace sdk

#endif  // SDK_NUMERIC_LIMITS_H_
