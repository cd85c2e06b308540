// sdk/half.h: sdk::Half and sdk::BFloat16, 16-bit floats that convert to/from float on host and
// device.
#ifndef SDK_HALF_H_
#define SDK_HALF_H_

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
// torch's Half.h and BFloat16.h bring CUDA's own 16-bit types (__half, __nv_bfloat16) and their
// intrinsics to every CUDA source that includes torch's headers
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "sdk/macros.h"

namespace sdk {
namespace detail {

SDK_DEVICE_INLINE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

SDK_DEVICE_INLINE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

// IEEE binary16 from float, rounding to nearest even; NaN stays NaN, overflow gives inf.
SDK_DEVICE_INLINE uint16_t half_from_float(float value) {
  uint32_t f = float_bits(value);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t mag = f & 0x7fffffffu;
  if (mag >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));
  if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (mag < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 puts round(|x| * 2^24) (the subnormal's
    // mantissa) in the low bits, rounded to nearest even by the FPU itself.
    float shifted = bits_float(mag) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(shifted) - 0x3f000000u));
  }
  uint32_t odd = (mag >> 13) & 1u;
  mag += 0xc8000fffu + odd;  // rebias exponent 127 -> 15, round half to even
  return static_cast<uint16_t>(sign | (mag >> 13));
}

SDK_DEVICE_INLINE float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return bits_float(float_bits(v) | sign);
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

SDK_DEVICE_INLINE uint16_t bfloat16_from_float(float value) {
  uint32_t f = float_bits(value);
  if ((f & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((f >> 16) | 0x40u);  // quiet NaN
  f += 0x7fffu + ((f >> 16) & 1u);                    // round half to even
  return static_cast<uint16_t>(f >> 16);
}

SDK_DEVICE_INLINE float bfloat16_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

/*! \brief IEEE 754 binary16. Arithmetic happens in float through the implicit conversions. */
struct alignas(2) Half {
  uint16_t x;  // the raw bits

  struct from_bits_t {};
  Half() = default;
  SDK_HOST_DEVICE Half(float value) : x(detail::half_from_float(value)) {}
  SDK_HOST_DEVICE constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  SDK_HOST_DEVICE operator float() const { return detail::half_to_float(x); }
  static SDK_HOST_DEVICE constexpr Half from_bits(uint16_t bits) {
    return Half(bits, from_bits_t());
  }

  SDK_HOST_DEVICE Half& operator+=(float o) { return *this = Half(float(*this) + o); }
  SDK_HOST_DEVICE Half& operator-=(float o) { return *this = Half(float(*this) - o); }
  SDK_HOST_DEVICE Half& operator*=(float o) { return *this = Half(float(*this) * o); }
  SDK_HOST_DEVICE Half& operator/=(float o) { return *this = Half(float(*this) / o); }
};

/*! \brief bfloat16: the upper 16 bits of a float32. */
struct alignas(2) BFloat16 {
  uint16_t x;  // the raw bits

  struct from_bits_t {};
  BFloat16() = default;
  SDK_HOST_DEVICE BFloat16(float value) : x(detail::bfloat16_from_float(value)) {}
  SDK_HOST_DEVICE constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  SDK_HOST_DEVICE operator float() const { return detail::bfloat16_to_float(x); }
  static SDK_HOST_DEVICE constexpr BFloat16 from_bits(uint16_t bits) {
    return BFloat16(bits, from_bits_t());
  }

  SDK_HOST_DEVICE BFloat16& operator+=(float o) { return *this = BFloat16(float(*this) + o); }
  SDK_HOST_DEVICE BFloat16& operator-=(float o) { return *this = BFloat16(float(*this) - o); }
  SDK_HOST_DEVICE BFloat16& operator*=(float o) { return *this = BFloat16(float(*this) * o); }
  SDK_HOST_DEVICE BFloat16& operator/=(float o) { return *this = BFloat16(float(*this) / o); }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit float types must be 2 bytes");

// torch's arithmetic of the 16-bit floats: two of them, or one and an int, give the 16-bit type
// (so `cond ? T(0) : a / b` has one type in a kernel templated on T); with a float or a double
// the result is that wider type. Each mix is spelled out: with only the conversions, `h / h`
// would be a float and `h + 1.0f` ambiguous once the 16-bit overloads exist.
#define SDK_DETAIL_HALF_ARITH(H, op)                                                             \
  SDK_HOST_DEVICE inline H operator op(H a, H b) { return H(float(a) op float(b)); }             \
  SDK_HOST_DEVICE inline float operator op(H a, float b) { return float(a) op b; }               \
  SDK_HOST_DEVICE inline float operator op(float a, H b) { return a op float(b); }               \
  SDK_HOST_DEVICE inline double operator op(H a, double b) { return double(float(a)) op b; }     \
  SDK_HOST_DEVICE inline double operator op(double a, H b) { return a op double(float(b)); }     \
  SDK_HOST_DEVICE inline H operator op(H a, int b) { return a op H(static_cast<float>(b)); }     \
  SDK_HOST_DEVICE inline H operator op(int a, H b) { return H(static_cast<float>(a)) op b; }     \
  SDK_HOST_DEVICE inline H operator op(H a, int64_t b) { return a op H(static_cast<float>(b)); } \
  SDK_HOST_DEVICE inline H operator op(int64_t a, H b) { return H(static_cast<float>(a)) op b; }
#define SDK_DETAIL_HALF_TYPE_ARITH(H)                                   \
  SDK_DETAIL_HALF_ARITH(H, +)                                           \
  SDK_DETAIL_HALF_ARITH(H, -)                                           \
  SDK_DETAIL_HALF_ARITH(H, *)                                           \
  SDK_DETAIL_HALF_ARITH(H, /)                                           \
  SDK_HOST_DEVICE inline H operator-(H a) { return H(-float(a)); }      \
  SDK_HOST_DEVICE inline H& operator+=(H& a, H b) { return a = a + b; } \
  SDK_HOST_DEVICE inline H& operator-=(H& a, H b) { return a = a - b; } \
  SDK_HOST_DEVICE inline H& operator*=(H& a, H b) { return a = a * b; } \
  SDK_HOST_DEVICE inline H& operator/=(H& a, H b) { return a = a / b; }
SDK_DETAIL_HALF_TYPE_ARITH(Half)
SDK_DETAIL_HALF_TYPE_ARITH(BFloat16)
#undef SDK_DETAIL_HALF_TYPE_ARITH
#undef SDK_DETAIL_HALF_ARITH

#if defined(__CUDACC__)
// torch's __ldg of its 16-bit floats (a load through the read-only cache), found by
// argument-dependent lookup from a kernel's unqualified __ldg(p); the using-declaration keeps
// CUDA's own overloads visible to code inside namespace sdk.
using ::__ldg;
__device__ inline Half __ldg(const Half* p) {
  return Half::from_bits(::__ldg(reinterpret_cast<const unsigned short*>(p)));
}
__device__ inline BFloat16 __ldg(const BFloat16* p) {
  return BFloat16::from_bits(::__ldg(reinterpret_cast<const unsigned short*>(p)));
}
#endif

}  // namespace sdk

#endif  // SDK_HALF_H_
