// core/src/vec_math.h: branch-free float32 exp/expm1/tanh/sigmoid/elu that auto-vectorize.
//
// std::exp does not vectorize with gcc (no -ffast-math / libmvec), so these are
// written as straight-line arithmetic with selects; each is within ~1-2 ulp.
#pragma once

#include <cstdint>
#include <cstring>

#define SDK_INLINE inline __attribute__((always_inline))

namespace sdk::detail::vm {

SDK_INLINE float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

SDK_INLINE uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Branch-free select through bit masks. A plain `c ? a : b` lets gcc sink the
// unused side's arithmetic under a condition, and with trapping math it will
// then not vectorize that without AVX-512 masks; bitwise blends always do.
SDK_INLINE float select(bool c, float a, float b) {
  uint32_t m = 0u - static_cast<uint32_t>(c);
  return bits_to_float((float_to_bits(a) & m) | (float_to_bits(b) & ~m));
}

// e^x: x = n*ln2 + r with |r| <= ln2/2, e^r by a degree-7 Taylor polynomial
// (truncation < 1e-8 relative), 2^n built from exponent bits in two halves so
// results down to the subnormal range stay exact.
SDK_INLINE float exp_f32(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693145751953125f;  // few mantissa bits: n * hi is exact
  const float kLn2Lo = 1.42860682030941723212e-6f;
  float xc = select(__builtin_isgreater(x, 89.0f), 89.0f, x);
  xc = select(__builtin_isless(xc, -104.0f), -104.0f, xc);
  // Round to nearest by adding and removing 1.5 * 2^23 (exact for |v| < 2^22):
  // plain adds vectorize on every x86-64, a rounding builtin does not.
  const float kShifter = 12582912.0f;
  float n = (xc * kLog2e + kShifter) - kShifter;
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t h1 = ni >> 1;
  int32_t h2 = ni - h1;
  float s1 = bits_to_float(static_cast<uint32_t>(h1 + 127) << 23);
  float s2 = bits_to_float(static_cast<uint32_t>(h2 + 127) << 23);
  float res = p * s1 * s2;
  res = select(__builtin_isgreater(x, 88.72283935546875f), __builtin_inff(), res);
  res = select(__builtin_isless(x, -103.972076416f), 0.0f, res);
  return select(__builtin_isunordered(x, x), x, res);
}

// e^x for x <= 0 (or NaN), the case of softmax (x - max) and sigmoid (-|x|):
// no overflow handling, so fewer selects than exp_f32.
SDK_INLINE float exp_nonpos_f32(float x) {
  const float kShifter = 12582912.0f;
  float xc = select(__builtin_isless(x, -104.0f), -104.0f, x);
  float n = (xc * 1.44269504088896341f + kShifter) - kShifter;
  float r = xc - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t h1 = ni >> 1;
  int32_t h2 = ni - h1;
  float s1 = bits_to_float(static_cast<uint32_t>(h1 + 127) << 23);
  float s2 = bits_to_float(static_cast<uint32_t>(h2 + 127) << 23);
  float res = p * s1 * s2;
  return select(__builtin_isless(x, -103.972076416f), 0.0f, res);
}

// e^x - 1 for x <= 0 (or NaN), accurate near 0: x = n*ln2 + r, |r| <= ln2/2,
// e^r - 1 = r + r^2 * q(r) (degree-8 Taylor, < 0.3 ulp truncation), then
// 2^n * (e^r - 1) + (2^n - 1). For n == 0 this is the polynomial alone (no
// cancellation); for n <= -1 both terms have the result's sign and the sum
// is at least 0.29 in magnitude, so it adds at most half an ulp.
SDK_INLINE float expm1_nonpos_f32(float x) {
  const float kShifter = 12582912.0f;
  float xc = select(__builtin_isless(x, -87.0f), -87.0f, x);  // e^-87 - 1 rounds to -1
  float n = (xc * 1.44269504088896341f + kShifter) - kShifter;
  float r = xc - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723212e-6f;
  float q = 1.0f / 40320.0f;
  q = q * r + 1.0f / 5040.0f;
  q = q * r + 1.0f / 720.0f;
  q = q * r + 1.0f / 120.0f;
  q = q * r + 1.0f / 24.0f;
  q = q * r + 1.0f / 6.0f;
  q = q * r + 0.5f;
  float p = r + (r * r) * q;
  float s = bits_to_float(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
  return s * p + (s - 1.0f);
}

// tanh(x) = -m / (m + 2) with m = e^{-2|x|} - 1 in (-1, 0]: no overflow for any
// |x|, no cancellation near 0 (m ~ -2|x|); sign restored at the end. <= 2 ulp.
SDK_INLINE float tanh_f32(float x) {
  float m = expm1_nonpos_f32(-2.0f * __builtin_fabsf(x));
  return __builtin_copysignf(-m / (m + 2.0f), x);
}

// sigmoid via e = e^{-|x|} (never overflows): 1/(1+e) for x >= 0, e/(1+e)
// below, which keeps the tiny results of very negative x accurate.
SDK_INLINE float sigmoid_f32(float x) {
  float e = exp_nonpos_f32(-__builtin_fabsf(x));
  float inv = 1.0f / (1.0f + e);
  return select(__builtin_isless(x, 0.0f), e * inv, inv);
}

// elu(x) = alpha * (e^x - 1) for x < 0, else x (so -0 and NaN pass through).
SDK_INLINE float elu_f32(float x, float alpha) {
  float m = expm1_nonpos_f32(select(__builtin_isgreater(x, 0.0f), 0.0f, x));
  return select(__builtin_isless(x, 0.0f), alpha * m, x);
}

}  // namespace sdk::detail::vm
