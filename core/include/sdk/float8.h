// sdk/float8.h: sdk::Float8_e4m3fn, Float8_e5m2, Float8_e4m3fnuz and Float8_e5m2fnuz, 8-bit
// floats that convert to/from float on host and device with torch's rounding and overflow rules.
#ifndef SDK_FLOAT8_H_
#define SDK_FLOAT8_H_

#include <cstdint>

#include "sdk/half.h"
#include "sdk/macros.h"

namespace sdk {
namespace detail {

/*! \brief What an 8-bit format does with its top codes and with overflow. */
enum Float8Kind {
  kFloat8Ieee = 0,       // e5m2: top exponent is inf/NaN as in IEEE; overflow gives inf
  kFloat8FiniteNan = 1,  // e4m3fn: S.1111.111 is NaN, no inf; overflow (and inf) saturate to max
  kFloat8Fnuz = 2        // *fnuz: 0x80 is the one NaN, no inf, no -0; overflow gives NaN
};

/*! \brief The largest finite code of a format (the sign bit clear). */
template <int M, int Kind>
SDK_DEVICE_INLINE constexpr uint32_t float8_max_code() {
  return Kind == kFloat8Ieee ? ((0x7fu >> M) << M) - 1u : Kind == kFloat8FiniteNan ? 0x7eu : 0x7fu;
}

/*! \brief The float of an 8-bit code with M mantissa bits and exponent bias Bias (exact). */
template <int M, int Bias, int Kind>
SDK_DEVICE_INLINE float float8_to_float(uint8_t x) {
  const uint32_t sign = static_cast<uint32_t>(x & 0x80u) << 24;
  const uint32_t mag = x & 0x7fu;
  if (Kind == kFloat8Fnuz && x == 0x80u) return bits_float(0x7fc00000u);
  if (mag > float8_max_code<M, Kind>()) {  // the codes above the largest finite
    const bool inf = Kind == kFloat8Ieee && mag == float8_max_code<M, Kind>() + 1u;
    return bits_float(sign | (inf ? 0x7f800000u : 0x7fc00000u));
  }
  const uint32_t exp = mag >> M, man = mag & ((1u << M) - 1u);
  if (exp == 0) {  // zero or subnormal: man * 2^(1 - Bias - M), exact in float
    const float v = static_cast<float>(man) * bits_float((127u + 1u - Bias - M) << 23);
    return bits_float(float_bits(v) | sign);
  }
  return bits_float(sign | ((exp + 127u - Bias) << 23) | (man << (23 - M)));
}

/*! \brief The 8-bit code of a float, rounded to nearest even; NaN, inf and overflow follow the
 *  format's Kind (torch's rules: e4m3fn saturates, e5m2 gives inf, fnuz gives its NaN). */
template <int M, int Bias, int Kind>
SDK_DEVICE_INLINE uint8_t float8_from_float(float value) {
  const uint32_t f = float_bits(value);
  const uint32_t sign = (f >> 24) & 0x80u;
  const uint32_t mag = f & 0x7fffffffu;
  if (mag > 0x7f800000u) return static_cast<uint8_t>(Kind == kFloat8Fnuz ? 0x80u : sign | 0x7fu);
  uint32_t code;
  if (mag < ((127u + 1u - Bias) << 23)) {
    // Below the smallest normal: scale so the smallest subnormal is 1; adding 2^23 makes the
    // FPU itself round the scaled value to an integer, half to even.
    const float scaled = bits_float(mag) * bits_float((127u + Bias + M - 1u) << 23);
    code = float_bits(scaled + 8388608.0f) - 0x4b000000u;
  } else {
    const uint32_t odd = (mag >> (23 - M)) & 1u;
    code = ((mag + (1u << (22 - M)) - 1u + odd) >> (23 - M)) - ((127u - Bias) << M);
  }
  if (code > float8_max_code<M, Kind>()) {
    if (Kind == kFloat8Fnuz) return 0x80u;
    code = Kind == kFloat8Ieee ? float8_max_code<M, Kind>() + 1u : float8_max_code<M, Kind>();
  }
  if (Kind == kFloat8Fnuz && code == 0) return 0;  // no negative zero
  return static_cast<uint8_t>(sign | code);
}

/*! \brief An 8-bit float of the format (M, Bias, Kind). Arithmetic happens in float through the
 *  implicit conversions, as for sdk::Half. */
template <int M, int Bias, int Kind>
struct alignas(1) Float8 {
  uint8_t x;  // the raw bits

  struct from_bits_t {};
  Float8() = default;
  SDK_HOST_DEVICE Float8(float value) : x(float8_from_float<M, Bias, Kind>(value)) {}
  SDK_HOST_DEVICE constexpr Float8(uint8_t bits, from_bits_t) : x(bits) {}
  SDK_HOST_DEVICE operator float() const { return float8_to_float<M, Bias, Kind>(x); }
  static SDK_HOST_DEVICE constexpr Float8 from_bits(uint8_t bits) {
    return Float8(bits, from_bits_t());
  }
  /*! \brief The tag of the bits constructor, torch's spelling: T(0x7e, T::from_bits()). */
  static SDK_HOST_DEVICE constexpr from_bits_t from_bits() { return from_bits_t(); }
  SDK_HOST_DEVICE bool isnan() const {
    return Kind == kFloat8Fnuz ? x == 0x80u
                               : (x & 0x7fu) > float8_max_code<M, Kind>() + (Kind == kFloat8Ieee);
  }
  SDK_HOST_DEVICE bool isinf() const {
    return Kind == kFloat8Ieee && (x & 0x7fu) == float8_max_code<M, Kind>() + 1u;
  }

  SDK_HOST_DEVICE Float8& operator+=(float o) { return *this = Float8(float(*this) + o); }
  SDK_HOST_DEVICE Float8& operator-=(float o) { return *this = Float8(float(*this) - o); }
  SDK_HOST_DEVICE Float8& operator*=(float o) { return *this = Float8(float(*this) * o); }
  SDK_HOST_DEVICE Float8& operator/=(float o) { return *this = Float8(float(*this) / o); }
};

}  // namespace detail

/*! \brief float8 e4m3fn: 4 exponent bits (bias 7), 3 mantissa bits, NaN but no inf. */
using Float8_e4m3fn = detail::Float8<3, 7, detail::kFloat8FiniteNan>;
/*! \brief float8 e5m2: 5 exponent bits (bias 15), 2 mantissa bits, IEEE inf and NaN. */
using Float8_e5m2 = detail::Float8<2, 15, detail::kFloat8Ieee>;
/*! \brief float8 e4m3fnuz: bias 8, one NaN (0x80), no inf, no negative zero. */
using Float8_e4m3fnuz = detail::Float8<3, 8, detail::kFloat8Fnuz>;
/*! \brief float8 e5m2fnuz: bias 16, one NaN (0x80), no inf, no negative zero. */
using Float8_e5m2fnuz = detail::Float8<2, 16, detail::kFloat8Fnuz>;

static_assert(sizeof(Float8_e4m3fn) == 1 && sizeof(Float8_e5m2fnuz) == 1,
              "8-bit float types must be 1 byte");

}  // namespace sdk

#endif  // SDK_FLOAT8_H_
