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

// The reduction x = n ln2 + r shared by the exp forms: n = round(x log2 e) by adding and
// removing 1.5 * 2^23 (exact for |v| < 2^22: plain adds vectorize on every x86-64, a rounding
// builtin does not), ln2 in two parts, the high one with few mantissa bits so n * hi is exact.
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693145751953125f;
inline constexpr float kLn2Lo = 1.42860682030941723212e-6f;
inline constexpr float kRoundShifter = 12582912.0f;
inline constexpr float kExpUnderflow = -103.972076416f;  // e^x rounds to 0 in float below this

// e^(n ln2 + r) for |r| <= ln2/2 (a little more is fine) and integral n in [-150, 128]: e^r by
// a degree-7 Taylor polynomial (truncation < 1e-8 relative), 2^n built from exponent bits in
// two halves so results down to the subnormal range stay exact.
SDK_INLINE float exp_scaled(float n, float r) {
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
  return p * s1 * s2;
}

// e^x: the reduction above, then exp_scaled.
SDK_INLINE float exp_f32(float x) {
  float xc = select(__builtin_isgreater(x, 89.0f), 89.0f, x);
  xc = select(__builtin_isless(xc, -104.0f), -104.0f, xc);
  float n = (xc * kLog2e + kRoundShifter) - kRoundShifter;
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float res = exp_scaled(n, r);
  res = select(__builtin_isgreater(x, 88.72283935546875f), __builtin_inff(), res);
  res = select(__builtin_isless(x, kExpUnderflow), 0.0f, res);
  return select(__builtin_isunordered(x, x), x, res);
}

// e^x for x <= 0 (or NaN), the case of softmax (x - max) and sigmoid (-|x|):
// no overflow handling, so fewer selects than exp_f32.
SDK_INLINE float exp_nonpos_f32(float x) {
  float xc = select(__builtin_isless(x, -104.0f), -104.0f, x);
  float n = (xc * kLog2e + kRoundShifter) - kRoundShifter;
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float res = exp_scaled(n, r);
  return select(__builtin_isless(x, kExpUnderflow), 0.0f, res);
}

// e^x - 1 for x clamped to [-87, 88.75] (or NaN), accurate near 0: x = n*ln2 + r, e^r - 1 =
// r + r^2 q(r) (degree-8 Taylor), then 2^n (e^r - 1) + (2^n - 1). n stops at 127 (2^128 is
// not a float), so r reaches 0.7 near the top, where the truncation is still under 0.1 ulp;
// x past 88.72 overflows to inf in the last add. For n == 0 this is the polynomial alone (no
// cancellation); otherwise both terms have the result's sign (n >= 1, or n <= -1 where the
// sum is at least 0.29 in magnitude), so the add costs at most half an ulp.
SDK_INLINE float expm1_clamped_f32(float xc) {
  float n = (xc * kLog2e + kRoundShifter) - kRoundShifter;
  n = select(__builtin_isgreater(n, 127.0f), 127.0f, n);
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
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

// e^x - 1 for x <= 0 (or NaN); e^-87 - 1 rounds to -1.
SDK_INLINE float expm1_nonpos_f32(float x) {
  return expm1_clamped_f32(select(__builtin_isless(x, -87.0f), -87.0f, x));
}

// e^x - 1 for any x (NaN passes both clamps: its comparisons are false; -0 stays -0).
SDK_INLINE float expm1_f32(float x) {
  float xc = select(__builtin_isless(x, -87.0f), -87.0f, x);
  xc = select(__builtin_isgreater(xc, 88.75f), 88.75f, xc);
  return select(x == 0.0f, x, expm1_clamped_f32(xc));
}

// log x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log x = e ln2 + log(1 + f), f = m - 1
// (exact), log(1 + f) = f - f^2/2 + f^3 Q(f) (minimax, scripts/fit_vec_math_poly.py); ln2 in
// two parts, e ln2_hi exact. Subnormals are scaled by 2^23 first. Within 1.5 ulp.
SDK_INLINE float log_f32(float x) {
  const bool sub = __builtin_isless(x, 1.17549435e-38f);
  const float xs = select(sub, x * 8388608.0f, x);
  const uint32_t u = float_to_bits(xs);
  const bool high = (u & 0x007fffffu) > 0x3504f3u;  // m > sqrt(2): take m/2, e + 1
  float m = bits_to_float((u & 0x007fffffu) | (high ? 0x3f000000u : 0x3f800000u));
  const int32_t e = int32_t(u >> 23) - (high ? 126 : 127) - (sub ? 23 : 0);
  const float ef = static_cast<float>(e);
  const float f = m - 1.0f;
  const float z = f * f;
  float q = 0.06746643781661987f;
  q = q * f - 0.11675656586885452f;
  q = q * f + 0.11888163536787033f;
  q = q * f - 0.1240558847784996f;
  q = q * f + 0.14219552278518677f;
  q = q * f - 0.1666799634695053f;
  q = q * f + 0.2000211924314499f;
  q = q * f - 0.25000008940696716f;
  q = q * f + 0.3333331346511841f;
  float y = f * z * q - 0.5f * z + ef * -2.12194440e-4f;
  float res = (f + y) + ef * 0.693359375f;
  res = select(__builtin_isless(x, 0.0f), __builtin_nanf(""), res);
  res = select(x == 0.0f, -__builtin_inff(), res);
  return select(__builtin_isunordered(x, x) || x == __builtin_inff(), x, res);
}

// log(1 + x) = log u + (x - (u - 1)) / u for u = 1 + x rounded: the second term is the
// rounding error of u, so the sum keeps log_f32's accuracy. Where u is 1 the result is x itself
// (which keeps -0), where u is 0 or inf it is log u (-inf, inf).
SDK_INLINE float log1p_f32(float x) {
  const float u = 1.0f + x;
  const float lu = log_f32(u);
  const float res = lu + (x - (u - 1.0f)) / u;
  const bool edge = u == 0.0f || u == __builtin_inff();
  return select(u == 1.0f, x, select(edge, lu, res));
}

// x^2 = hi + lo with hi exact: x split into its top 12 significant bits and the rest, whose
// products are exact in float except the small lo. Past about 1e19 hi is inf (callers clamp).
SDK_INLINE void square_split(float x, float* hi, float* lo) {
  const float xh = bits_to_float(float_to_bits(x) & 0xfffff000u);
  const float xl = x - xh;
  *hi = xh * xh;
  *lo = (2.0f * xh) * xl + xl * xl;
}

// e^-(hi + lo) for hi >= 0 exact and lo small, hi + lo at most 103.9 (erfc_large's range;
// past it the result is meaningless, and the clamp only keeps n a valid int32): the reduction
// subtracts n ln2 from hi (exact by Sterbenz) before lo joins, so the rounding of a square
// does not scale the error by it.
SDK_INLINE float exp_neg_hilo_f32(float hi, float lo) {
  const float s = -(hi + lo);
  const float sc = select(__builtin_isless(s, -104.0f), -104.0f, s);
  const float n = (sc * kLog2e + kRoundShifter) - kRoundShifter;
  float r = (-hi - n * kLn2Hi) - n * kLn2Lo;
  r = r - lo;
  return exp_scaled(n, r);
}

// erf(a) / a for 0 <= a < 0.75 and erfc(a) for a >= 0 (0 past kErfcZeroFrom): the pieces of
// erf_f32 and gelu_f32. erfc(a) = e^{-a^2} R(1 / (1 + a/2)), R a degree-9 minimax fit on
// [0, 10] (scripts/fit_vec_math_poly.py); a^2 from square_split keeps the tail relative.
SDK_INLINE float erf_over_x_small(float a) {
  const float z = a * a;
  float p = -0.0006749526364728808f;
  p = p * z + 0.0051143476739525795f;
  p = p * z - 0.026834625750780106f;
  p = p * z + 0.11283376812934875f;
  p = p * z - 0.3761261999607086f;
  return p * z + 1.1283791065216064f;
}
// R's coefficients, lowest power first (vec_simd.h's gelu256 evaluates the same R).
inline constexpr float kErfcR[10] = {
    -6.011335699440679e-06f, 0.28222137689590454f,  0.2810984253883362f,  0.24979354441165924f,
    0.1812497228384018f,     0.017078043892979622f, 0.22119039297103882f, -0.44147711992263794f,
    0.26390281319618225f,    -0.055051229894161224f};
// Past this a, erfc(a) is taken as 0: e^{-a^2} is below e^{-103.8}, where 1 - erfc(a) (erf)
// is 1 and (a sqrt 2) erfc(a) / 2 (GELU's negative tail) rounds to 0 in float, so neither
// result changes, and up to it -a^2 stays above the point where e^x underflows (no clamp
// there). NaN compares false and goes through.
inline constexpr float kErfcZeroFrom = 10.19f;
SDK_INLINE float erfc_large(float a, float a2_hi, float a2_lo) {
  const float u = 1.0f / (1.0f + 0.5f * a);
  float r = kErfcR[9];
#pragma GCC unroll 9
  for (int i = 8; i >= 0; --i) r = r * u + kErfcR[i];
  return select(__builtin_isgreater(a, kErfcZeroFrom), 0.0f, exp_neg_hilo_f32(a2_hi, a2_lo) * r);
}

// erf x: a P(a^2) below 0.75, 1 - erfc(a) above, x's sign put back. Within 3 ulp (R's float
// evaluation, u's rounding mostly, costs 2 of them).
SDK_INLINE float erf_f32(float x) {
  const float a = __builtin_fabsf(x);
  float hi, lo;
  square_split(a, &hi, &lo);
  const float r =
      select(__builtin_isless(a, 0.75f), a * erf_over_x_small(a), 1.0f - erfc_large(a, hi, lo));
  return __builtin_copysignf(r, x);
}

// The exact GELU, x (1 + erf(v)) / 2 with v = x / sqrt 2: 1 + erf(v) is 2 - erfc(v) for v >= 0
// and erfc(-v) below, with no cancellation: the negative tail stays accurate to the last
// subnormal (1 + erf(v) rounds it away by x = -5). Near 0 erfc's absolute error is all the sum
// needs, so no small-|v| branch. v^2 is x^2 / 2 from square_split (exact halving), so the
// tail's exponent is not rounded first. Within 7 ulp everywhere.
inline constexpr float kSqrtHalf = 0.70710678118654752440f;
SDK_INLINE float gelu_f32(float x) {
  const float a = __builtin_fabsf(x * kSqrtHalf);
  float hi, lo;
  square_split(x, &hi, &lo);
  const float c = erfc_large(a, 0.5f * hi, 0.5f * lo);
  const float one_plus = select(__builtin_isless(x, 0.0f), c, 2.0f - c);
  return 0.5f * x * one_plus;
}

// sin x (quarter 0) or cos x = sin(x + pi/2) (quarter 1) for |x| <= kTrigMax: x = n pi/2 + r in
// double (pi/2 in two parts, the first with 33 significant bits, so n times it is exact for
// |n| < 2^20 and r keeps its relative accuracy even where x nears a multiple of pi/2), r then
// rounded to float (|r| <= pi/4): sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2)
// (minimax, scripts/fit_vec_math_poly.py), picked and signed by n + quarter mod 4. Within 1
// ulp. Past kTrigMax (and for inf and NaN) the result is meaningless: the caller takes libm's.
inline constexpr float kTrigMax = 262144.0f;
SDK_INLINE float sin_quarter_f32(float x, int32_t quarter) {
  const double kShifter = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  const double xd = static_cast<double>(select(__builtin_fabsf(x) <= kTrigMax, x, 0.0f));
  const double n = (xd * 0.6366197723675814 + kShifter) - kShifter;
  const float r = static_cast<float>((xd - n * 1.5707963267341256) - n * 6.077100506506192e-11);
  const int32_t q = static_cast<int32_t>(n) + quarter;
  const float z = r * r;
  const float sn = r + (r * z) * ((-0.0001951521699083969f * z + 0.00833216030150652f) * z -
                                  0.16666655242443085f);
  const float cs =
      (1.0f - 0.5f * z) +
      (z * z) * ((2.4433082217001356e-05f * z - 0.0013887315290048718f) * z + 0.04166664555668831f);
  const float v = select((q & 1) != 0, cs, sn);
  const float res = bits_to_float(float_to_bits(v) ^ (static_cast<uint32_t>(q & 2) << 30));
  return select(x == 0.0f && quarter == 0, x, res);  // sin(-0) = -0
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
