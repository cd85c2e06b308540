// core/src/vec_simd.h: float32 exp/sigmoid/tanh loops and softmax row passes in AVX-512 and AVX2.
//
// The auto-vectorised forms in vec_math.h need a compare and a blend per
// clamp or special case; AVX-512's scalef builds 2^n * p with one rounding
// (overflow to inf, underflow through the subnormals, NaN passing through),
// which halves the instruction count of exp. Callers test has_avx512() /
// has_avx2() and fall back to vec_math.h otherwise. Only softmax.cpp and
// elementwise_unary.cpp include this (immintrin.h is a heavy header).
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu_features.h"
#include "vec_math.h"

namespace sdk::detail::vs {

#if defined(__x86_64__)
// gcc 12 warns inside its own avx512fintrin.h (the `__Y = __Y` of _mm512_undefined_ps) wherever
// an AVX-512 intrinsic is inlined; a known false positive, fixed in gcc 13.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define SDK_VS_AVX512 __attribute__((target("avx512f")))
#define SDK_VS_AVX2 __attribute__((target("avx2,fma")))

using sdk::detail::has_avx2;  // cpu_features.h (SDK_CPU_CAPABILITY caps them)
using sdk::detail::has_avx512;

// The sum of v's eight lanes as a tree: lane l plus l + 4, then l + 2, then l + 1.
SDK_VS_AVX2 inline float hsum256(__m256 v) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

// Eight rows at once: lane k of the result is hsum256(v[k]) (kMax false, the same sums of the
// same pairs) or v[k]'s max, a transpose folded in three steps.
template <bool kMax>
SDK_VS_AVX2 inline __m256 op256(__m256 a, __m256 b) {
  return kMax ? _mm256_max_ps(a, b) : _mm256_add_ps(a, b);
}
template <bool kMax>
SDK_VS_AVX2 inline __m256 fold_rows8(const __m256* v) {
  __m256 h[4];  // h[i] = [v[2i] lanes l op l+4 | v[2i+1] lanes l op l+4], l < 4
  for (int i = 0; i < 4; ++i) {
    h[i] = op256<kMax>(_mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x20),
                       _mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x31));
  }
  __m256 d[2];  // d[i] = lanes l op l+2 (l < 2) of rows 4i, 4i+2 | 4i+1, 4i+3
  for (int i = 0; i < 2; ++i) {
    d[i] = op256<kMax>(_mm256_shuffle_ps(h[2 * i], h[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                       _mm256_shuffle_ps(h[2 * i], h[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // lane 0 op lane 1: rows 0, 2, 4, 6 | 1, 3, 5, 7
  const __m256 e = op256<kMax>(_mm256_shuffle_ps(d[0], d[1], _MM_SHUFFLE(2, 0, 2, 0)),
                               _mm256_shuffle_ps(d[0], d[1], _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm256_permutevar8x32_ps(e, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// e^r for |r| <= ln2/2: degree-7 Taylor polynomial (truncation < 1e-8 relative).
SDK_VS_AVX512 inline __m512 exp_poly512(__m512 r) {
  __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
}

// e^x of x already clamped to [-104, 89] (or NaN): x = n ln2 + r, 2^n by scalef.
SDK_VS_AVX512 inline __m512 exp_clamped512(__m512 x) {
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(vm::kLog2e)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(vm::kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(vm::kLn2Lo), r);
  return _mm512_scalef_ps(exp_poly512(r), n);
}

// e^x for any x. max/min return their second operand when either is NaN, so
// NaN passes the clamps; -104 and 89 are past the underflow and overflow points.
SDK_VS_AVX512 inline __m512 exp512(__m512 x) {
  x = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
  x = _mm512_min_ps(_mm512_set1_ps(89.0f), x);
  return exp_clamped512(x);
}

// e^x for x <= 0 or NaN (softmax's x - max).
SDK_VS_AVX512 inline __m512 exp_nonpos512(__m512 x) {
  return exp_clamped512(_mm512_max_ps(_mm512_set1_ps(-104.0f), x));
}

// 1/(1+e) for e = e^{-|x|} in (0, 1], then e/(1+e) where x < 0 (accurate tiny results).
// rcp14 and one Newton step: about 2^-28 relative before the final rounding.
SDK_VS_AVX512 inline __m512 sigmoid512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 ax = _mm512_abs_ps(x);
  __m512 e = exp_nonpos512(_mm512_sub_ps(_mm512_setzero_ps(), ax));
  __m512 d = _mm512_add_ps(one, e);
  __m512 inv = _mm512_rcp14_ps(d);
  inv = _mm512_fmadd_ps(inv, _mm512_fnmadd_ps(d, inv, one), inv);
  __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  return _mm512_mask_mul_ps(inv, neg, e, inv);
}

// The constants of tanh512 and tanh256 (one reduction and one polynomial, two ISAs):
// -2/ln2; ln2/2 in two parts (the high one has 16 significant bits, so n times it is exact);
// Q's coefficients, lowest power first (scripts/fit_tanh_poly.py).
struct TanhConstants {
  float m2_over_ln2, ln2_hi_half, ln2_lo_half, q[5];
};
inline constexpr TanhConstants kTanh{
    -2.88539008177792681f,
    0.3465728759765625f,
    7.14303410154708616e-7f,
    {-0.9999999403953552f, 0.6666617393493652f, -0.33333760499954224f, 0.13386476039886475f,
     -0.04442405328154564f}};

// tanh|x| = m / (2 - m) with m = 1 - e^{-2|x|} in [0, 1) (no overflow; m ~ 2|x| near 0, so
// no cancellation), the sign of x put back at the end. With -2|x| = n ln2 - 2r, |r| <= ln2/4:
// m = (1 - 2^n) + 2^(n+1) h(r), h(r) = (1 - e^{-2r}) / 2 = r + r^2 Q(r). Q is a degree-4
// minimax fit of that relative error (below 2^-26 on |r| <= ln2/4; refit with
// scripts/fit_tanh_poly.py). Taking r from |x| itself and 2^(n+1) from scalef folds the
// "-2 *" of the older form into constants: 19 instructions in place of 23, and the result's
// error is the same (under 2.5 ulp, checked on every float32 in [0, 11]: the roundings of m,
// 2 - m and the division dominate, not the polynomial). |x| is clamped at 9.1, where m rounds
// to 1 (tanh is 1 in float); min_ps returns its second operand, so a NaN x passes through.
SDK_VS_AVX512 inline __m512 tanh512(__m512 x) {
  __m512 a = _mm512_min_ps(_mm512_set1_ps(9.1f), _mm512_abs_ps(x));
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(a, _mm512_set1_ps(kTanh.m2_over_ln2)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // r = |x| + n ln2/2 in two parts (n ln2_hi/2 is exact: ln2_hi has 16 significant bits).
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(kTanh.ln2_hi_half), a);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(kTanh.ln2_lo_half), r);
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(kTanh.q[4]), r, _mm512_set1_ps(kTanh.q[3]));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kTanh.q[2]));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kTanh.q[1]));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kTanh.q[0]));
  __m512 h = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r);
  __m512 s2 = _mm512_scalef_ps(_mm512_set1_ps(2.0f), n);  // 2^(n+1), exact
  __m512 m =
      _mm512_fmadd_ps(s2, h, _mm512_fnmadd_ps(s2, _mm512_set1_ps(0.5f), _mm512_set1_ps(1.0f)));
  __m512 y = _mm512_div_ps(m, _mm512_sub_ps(_mm512_set1_ps(2.0f), m));  // tanh|x|, +0 at 0
  // y >= 0 (or NaN): OR in the sign bit of x, so tanh(-0) = -0. (0xF8: y | (x & sign).)
  const __m512i sign = _mm512_set1_epi32(int(0x80000000u));
  return _mm512_castsi512_ps(
      _mm512_ternarylogic_epi32(_mm512_castps_si512(y), _mm512_castps_si512(x), sign, 0xF8));
}

inline __mmask16 tail_mask(int64_t k) { return static_cast<__mmask16>((1u << k) - 1u); }

// y[i] = f(x[i]) for i < n with a 16-lane kernel; the tail through masked loads and stores.
template <typename F>
SDK_VS_AVX512 inline void map512(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    _mm512_storeu_ps(y + i, f(a));
    _mm512_storeu_ps(y + i + 16, f(b));
  }
  for (; i < n; i += 16) {
    __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, k, f(_mm512_maskz_loadu_ps(k, x + i)));
  }
}

// The element functions of map512 (functors: a lambda's function-pointer thunk would
// lack the target attribute).
struct Exp512 {
  SDK_VS_AVX512 __m512 operator()(__m512 v) const { return exp512(v); }
};
struct Sigmoid512 {
  SDK_VS_AVX512 __m512 operator()(__m512 v) const { return sigmoid512(v); }
};
struct Tanh512 {
  SDK_VS_AVX512 __m512 operator()(__m512 v) const { return tanh512(v); }
};
struct Mul512 {
  __m512 s;
  SDK_VS_AVX512 __m512 operator()(__m512 v) const { return _mm512_mul_ps(v, s); }
};
struct Sub512 {
  __m512 s;
  SDK_VS_AVX512 __m512 operator()(__m512 v) const { return _mm512_sub_ps(v, s); }
};

SDK_VS_AVX512 inline void exp_avx512(const float* x, float* y, int64_t n) {
  map512(x, y, n, Exp512{});
}
SDK_VS_AVX512 inline void sigmoid_avx512(const float* x, float* y, int64_t n) {
  map512(x, y, n, Sigmoid512{});
}
SDK_VS_AVX512 inline void tanh_avx512(const float* x, float* y, int64_t n) {
  map512(x, y, n, Tanh512{});
}

// Sum of e^(x[i] - m), also stored to y when y is not null. Blocks of 4096 are
// summed in float lanes, the block sums in double: accurate for rows of any length.
SDK_VS_AVX512 inline double exp_shift_sum_avx512(const float* x, float* y, int64_t n, float m) {
  const __m512 mv = _mm512_set1_ps(m);
  double total = 0;
  for (int64_t b = 0; b < n; b += 4096) {
    const int64_t e = n - b < 4096 ? n : b + 4096;
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    int64_t i = b;
    for (; i + 32 <= e; i += 32) {
      __m512 v0 = exp_nonpos512(_mm512_sub_ps(_mm512_loadu_ps(x + i), mv));
      __m512 v1 = exp_nonpos512(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), mv));
      if (y) {
        _mm512_storeu_ps(y + i, v0);
        _mm512_storeu_ps(y + i + 16, v1);
      }
      acc0 = _mm512_add_ps(acc0, v0);
      acc1 = _mm512_add_ps(acc1, v1);
    }
    for (; i < e; i += 16) {
      __mmask16 k = e - i >= 16 ? __mmask16(0xFFFF) : tail_mask(e - i);
      __m512 v = exp_nonpos512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mv));
      if (y) _mm512_mask_storeu_ps(y + i, k, v);
      acc0 = _mm512_mask_add_ps(acc0, k, acc0, v);
    }
    total += double(_mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1)));
  }
  return total;
}

// y[i] = x[i] * s (in place when x == y) and y[i] = x[i] - s.
SDK_VS_AVX512 inline void scale_avx512(const float* x, float* y, int64_t n, float s) {
  map512(x, y, n, Mul512{_mm512_set1_ps(s)});
}
SDK_VS_AVX512 inline void sub_avx512(const float* x, float* y, int64_t n, float s) {
  map512(x, y, n, Sub512{_mm512_set1_ps(s)});
}

// Max (kMin false) or min of x[0, n), n >= 1; NaN when any element is NaN (tracked on the
// side: max_ps/min_ps drop a NaN in their first operand). The head up to the first 64-byte
// line is one masked load from the line start (the lanes before x are not read), so the loop's
// loads never straddle two lines; the tail is a masked load, not a scalar loop. Max and min
// are exact, so where the loads start changes no value; only which of -0 and +0 a zero result
// carries can follow the lanes (max_ps keeps its second operand on a tie), as in minmax_contig.
template <bool kMin>
SDK_VS_AVX512 inline __m512 pick512(__m512 a, __m512 b) {
  return kMin ? _mm512_min_ps(a, b) : _mm512_max_ps(a, b);
}
template <bool kMin>
SDK_VS_AVX512 inline float extremum_avx512(const float* x, int64_t n) {
  const __m512 fill = _mm512_set1_ps(kMin ? __builtin_inff() : -__builtin_inff());

  __m512 m0 = fill, m1 = fill, m2 = fill, m3 = fill;  // four: max's latency, not loads, limits
  __mmask16 nan = 0;
  int64_t i = 0;
  const auto addr = reinterpret_cast<uintptr_t>(x);
  if (const int64_t o = addr % 4 ? 0 : int64_t(addr % 64 / 4); o != 0 && n >= 64) {
    const __mmask16 k = static_cast<__mmask16>(0xFFFFu << o);
    __m512 v = _mm512_mask_loadu_ps(fill, k, reinterpret_cast<const float*>(addr - 4 * o));
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    m0 = v;
    i = 16 - o;
  }
  for (; i + 64 <= n; i += 64) {
    __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    __m512 c = _mm512_loadu_ps(x + i + 32), d = _mm512_loadu_ps(x + i + 48);
    nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(c, d, _CMP_UNORD_Q);
    m0 = pick512<kMin>(m0, a);
    m1 = pick512<kMin>(m1, b);
    m2 = pick512<kMin>(m2, c);
    m3 = pick512<kMin>(m3, d);
  }
  for (; i < n; i += 16) {
    __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : tail_mask(n - i);
    __m512 v = _mm512_mask_loadu_ps(fill, k, x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    m0 = pick512<kMin>(m0, v);
  }
  if (nan) return __builtin_nanf("");
  m0 = pick512<kMin>(pick512<kMin>(m0, m1), pick512<kMin>(m2, m3));
  return kMin ? _mm512_reduce_min_ps(m0) : _mm512_reduce_max_ps(m0);
}

// y[j] = e^(x[j] - m[j]) and s[j] += y[j]: one row of a softmax over a non-last dim.
SDK_VS_AVX512 inline void exp_sub_acc_avx512(const float* x, const float* m, float* y, float* s,
                                             int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : tail_mask(n - i);
    __m512 v = exp_nonpos512(
        _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), _mm512_maskz_loadu_ps(k, m + i)));
    _mm512_mask_storeu_ps(y + i, k, v);
    _mm512_mask_storeu_ps(s + i, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, s + i), v));
  }
}

// The AVX2 e^x of x already clamped to [-104, 89] (or NaN): x = n ln2 + r as in exp512, 2^n
// from exponent bits in two halves (no scalef in AVX2), so subnormal results stay right and
// x near 89 overflows to inf in the last multiply.
SDK_VS_AVX2 inline __m256 exp_scaled256(__m256 n, __m256 r);
SDK_VS_AVX2 inline __m256 exp_clamped256(__m256 x) {
  const __m256 kRound = _mm256_set1_ps(vm::kRoundShifter);
  __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(vm::kLog2e), kRound), kRound);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(vm::kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(vm::kLn2Lo), r);
  return exp_scaled256(n, r);
}

// e^r for |r| <= ln2/2 (a little more is fine): vm::exp_scaled's degree-7 polynomial.
SDK_VS_AVX2 inline __m256 exp_poly256(__m256 r) {
  __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  return _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
}

// vm::exp_scaled in AVX2: e^r by the polynomial, times 2^n in two halves.
SDK_VS_AVX2 inline __m256 exp_scaled256(__m256 n, __m256 r) {
  const __m256 p = exp_poly256(r);
  __m256i ni = _mm256_cvttps_epi32(n);
  __m256i h1 = _mm256_srai_epi32(ni, 1);
  __m256i h2 = _mm256_sub_epi32(ni, h1);
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h1, bias), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h2, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

// e^x for x <= 0 (or NaN; exp256 also passes x up to 89, which exp_clamped256 takes):
// results below the underflow point are zeroed.
SDK_VS_AVX2 inline __m256 exp_nonpos256(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(-104.0f), x);  // second operand: NaN passes through
  return _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-103.97f), _CMP_LE_OQ),
                          exp_clamped256(x));
}

// e^x for any x: the clamps keep NaN (max/min return their second operand), +inf becomes 89,
// whose e^x overflows to inf, and -inf becomes -104, zeroed with everything past underflow.
SDK_VS_AVX2 inline __m256 exp256(__m256 x) {
  x = _mm256_min_ps(_mm256_set1_ps(89.0f), x);
  return exp_nonpos256(x);
}

// sigmoid as sigmoid512: 1/(1+e) for e = e^{-|x|}, then e/(1+e) where x's sign bit is set
// (blendv reads that bit; for -0 both forms are 0.5). A true division: rcp_ps has 12 bits,
// and one Newton step from there leaves the result about an ulp worse.
SDK_VS_AVX2 inline __m256 sigmoid256(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 e = exp_nonpos256(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)));  // e^{-|x|}
  __m256 inv = _mm256_div_ps(one, _mm256_add_ps(one, e));
  return _mm256_blendv_ps(inv, _mm256_mul_ps(e, inv), x);
}

// tanh as tanh512 (same reduction and polynomial, so the same error bound); 2^(n+1) from
// exponent bits: |x| <= 9.1 keeps n in [-27, 0], a normal power of two.
SDK_VS_AVX2 inline __m256 tanh256(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 a = _mm256_min_ps(_mm256_set1_ps(9.1f), _mm256_andnot_ps(sign, x));
  __m256 n = _mm256_round_ps(_mm256_mul_ps(a, _mm256_set1_ps(kTanh.m2_over_ln2)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(kTanh.ln2_hi_half), a);
  r = _mm256_fmadd_ps(n, _mm256_set1_ps(kTanh.ln2_lo_half), r);
  __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(kTanh.q[4]), r, _mm256_set1_ps(kTanh.q[3]));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kTanh.q[2]));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kTanh.q[1]));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kTanh.q[0]));
  __m256 h = _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, r);
  __m256i e2 = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(128));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(e2, 23));  // 2^(n+1), exact
  __m256 m =
      _mm256_fmadd_ps(s2, h, _mm256_fnmadd_ps(s2, _mm256_set1_ps(0.5f), _mm256_set1_ps(1.0f)));
  __m256 y = _mm256_div_ps(m, _mm256_sub_ps(_mm256_set1_ps(2.0f), m));  // tanh|x|, +0 at 0
  return _mm256_or_ps(y, _mm256_and_ps(x, sign));
}

// vm::gelu_f32 in AVX2, with the same R, threshold and reduction but fewer instructions
// (40 a vector; the auto-vectorised gelu_f32 took 57 and 1.3x torch's time):
// - w = x erfc(|v|) / 2 (v = x / sqrt 2) is (e^{-x^2/2} 2^64) ((x/2) R(u)) 2^-64: the scale
//   2^(n+64) is a normal float for every n in range, so the products before the last are
//   normal too (for tiny x as well) and the last rounds once, also where w is subnormal
//   (the scalar form rounds e^{-a^2} there, then twice more);
// - x^2/2 = h + l exactly: a product and its FMA remainder (the scalar form splits x);
// - the result is x - w for x >= 0 and w below (where x's sign bit is set);
// - |x| is compared with the threshold times sqrt 2. Past it (and for infinities, whose x^2
//   is not finite) the exponential is masked to 0; x is clamped at 20 first so that +inf
//   gives inf - 0, while -inf gives 0 * -inf = NaN, as the scalar form and torch do.
SDK_VS_AVX2 inline __m256 gelu256(__m256 x) {
  const __m256 two_m64 = _mm256_set1_ps(5.42101086242752217e-20f);  // 2^-64
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 hx = _mm256_mul_ps(_mm256_min_ps(_mm256_set1_ps(20.0f), x), _mm256_set1_ps(0.5f));
  const __m256 h = _mm256_mul_ps(hx, x);
  const __m256 l = _mm256_fmsub_ps(hx, x, h);  // h + l = x^2 / 2
  const __m256 u =
      _mm256_div_ps(one, _mm256_fmadd_ps(ax, _mm256_set1_ps(0.5f * vm::kSqrtHalf), one));
  __m256 r = _mm256_set1_ps(vm::kErfcR[9]);
#pragma GCC unroll 9
  for (int i = 8; i >= 0; --i) r = _mm256_fmadd_ps(r, u, _mm256_set1_ps(vm::kErfcR[i]));
  // e^{-(h + l)} as vm::exp_neg_hilo_f32, n ln2 off h before l joins, with n = round(-h
  // log2 e) (l is below h's last bit) and 2^(n+64) from nr's bits, n sitting in the low
  // mantissa bits of nr = 1.5 * 2^23 + n
  const __m256 kRound = _mm256_set1_ps(vm::kRoundShifter);
  const __m256 nr = _mm256_fmadd_ps(h, _mm256_set1_ps(-vm::kLog2e), kRound);
  const __m256 n = _mm256_sub_ps(nr, kRound);
  __m256 t = _mm256_fnmsub_ps(n, _mm256_set1_ps(vm::kLn2Hi), h);
  t = _mm256_sub_ps(_mm256_fnmadd_ps(n, _mm256_set1_ps(vm::kLn2Lo), t), l);
  const int32_t kBits = 0x4b400000;  // the bits of kRoundShifter
  const __m256i scale = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_castps_si256(nr), _mm256_set1_epi32(127 + 64 - kBits)), 23);
  __m256 e = _mm256_mul_ps(exp_poly256(t), _mm256_castsi256_ps(scale));
  const __m256 past =
      _mm256_cmp_ps(ax, _mm256_set1_ps(vm::kErfcZeroFrom * 1.41421356237309505f), _CMP_GT_OQ);
  e = _mm256_andnot_ps(past, e);
  const __m256 w = _mm256_mul_ps(_mm256_mul_ps(e, _mm256_mul_ps(r, hx)), two_m64);
  return _mm256_blendv_ps(_mm256_sub_ps(x, w), w, x);
}

// y[i] = f(x[i]) for i < n with an 8-lane kernel; the tail through masked loads and stores.
template <typename F>
SDK_VS_AVX2 inline void map256(const float* x, float* y, int64_t n, F f) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    _mm256_storeu_ps(y + i, f(a));
    _mm256_storeu_ps(y + i + 8, f(b));
  }
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (; i < n; i += 8) {
    __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n - i < 8 ? n - i : 8)), lanes);
    _mm256_maskstore_ps(y + i, k, f(_mm256_maskload_ps(x + i, k)));
  }
}

struct Exp256 {
  SDK_VS_AVX2 __m256 operator()(__m256 v) const { return exp256(v); }
};
struct Sigmoid256 {
  SDK_VS_AVX2 __m256 operator()(__m256 v) const { return sigmoid256(v); }
};
struct Tanh256 {
  SDK_VS_AVX2 __m256 operator()(__m256 v) const { return tanh256(v); }
};
struct Gelu256 {
  SDK_VS_AVX2 __m256 operator()(__m256 v) const { return gelu256(v); }
};
SDK_VS_AVX2 inline void exp_avx2(const float* x, float* y, int64_t n) { map256(x, y, n, Exp256{}); }
SDK_VS_AVX2 inline void gelu_avx2(const float* x, float* y, int64_t n) {
  map256(x, y, n, Gelu256{});
}
SDK_VS_AVX2 inline void sigmoid_avx2(const float* x, float* y, int64_t n) {
  map256(x, y, n, Sigmoid256{});
}
SDK_VS_AVX2 inline void tanh_avx2(const float* x, float* y, int64_t n) {
  map256(x, y, n, Tanh256{});
}

// exp_shift_sum over the multiple-of-8 prefix in AVX2; returns the count done.
SDK_VS_AVX2 inline int64_t exp_shift_sum_avx2(const float* x, float* y, int64_t n, float m,
                                              double* total) {
  const __m256 mv = _mm256_set1_ps(m);
  int64_t i = 0;
  double sum = 0;
  for (int64_t b = 0; b + 8 <= n; b += 4096) {
    const int64_t e = n - b < 4096 ? (n & ~int64_t(7)) : b + 4096;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (i = b; i + 16 <= e; i += 16) {
      __m256 v0 = exp_nonpos256(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
      __m256 v1 = exp_nonpos256(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), mv));
      if (y) {
        _mm256_storeu_ps(y + i, v0);
        _mm256_storeu_ps(y + i + 8, v1);
      }
      acc0 = _mm256_add_ps(acc0, v0);
      acc1 = _mm256_add_ps(acc1, v1);
    }
    for (; i + 8 <= e; i += 8) {
      __m256 v = exp_nonpos256(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
      if (y) _mm256_storeu_ps(y + i, v);
      acc0 = _mm256_add_ps(acc0, v);
    }
    // a tree in registers: a chain of seven adds through memory was a third of a 16-float row
    sum += double(hsum256(_mm256_add_ps(acc0, acc1)));
  }
  *total += sum;
  return i;
}
// Vector k < NV of a row of r floats, 8 (NV - 1) < r <= 8 NV, lanes past the row -inf. The
// last vector reads on into the next row while that stays inside x (x_end), else masked.
template <int NV>
SDK_VS_AVX2 inline __m256 row_vec(const float* row, int k, __m256i tail, const float* x_end) {
  if (k + 1 < NV) return _mm256_loadu_ps(row + 8 * k);
  const float* p = row + 8 * k;
  const __m256 v = p + 8 <= x_end ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, tail);
  return _mm256_blendv_ps(_mm256_set1_ps(-__builtin_inff()), v, _mm256_castsi256_ps(tail));
}

// A row's last vector: whole where the next row follows in this range, else masked.
SDK_VS_AVX2 inline void store_last(float* p, __m256 v, __m256i tail, bool spill) {
  if (spill) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, tail, v);
  }
}

// Softmax (kLog false) or log_softmax of nrows <= 8 contiguous rows of r floats (8 (NV - 1) <
// r <= 8 NV, `tail` the last vector's lanes inside a row), eight rows at a time: their maxima
// and sums fold into one vector each (fold_rows8), so the horizontal steps, the division and
// the log are shared, where the row passes spend more on them than on a short row. The sums
// are the row passes' (the same pairs in the same order), and so is the division: softmax
// has their bits when r is a multiple of 8; log_softmax takes the log in float, as torch.
// The exps wait in a buffer of whole vectors, not in y: a reload of y from overlapping
// unaligned stores misses store forwarding, a stall per row. A row's last vector is written
// whole: its lanes past the row land in the next row, which is written after it; the last row
// of the range (`ends`: another thread's rows may follow) writes with a mask. A NaN makes its
// row NaN through the exp and the sum even where max_ps drops it, as in softmax_row.
template <bool kLog, int NV>
SDK_VS_AVX2 void softmax_rows8_avx2(const float* x, float* y, int nrows, int64_t r, __m256i tail,
                                    const float* x_end, bool ends) {
  auto spill = [&](int j) { return !(ends && j + 1 == nrows); };
  __m256 part[8];
  alignas(32) float buf[kLog ? 8 : 64 * NV];  // softmax's e^(x - max), rows apart
  for (int j = 0; j < nrows; ++j) {
    __m256 m = row_vec<NV>(x + j * r, 0, tail, x_end);
    for (int k = 1; k < NV; ++k) m = _mm256_max_ps(m, row_vec<NV>(x + j * r, k, tail, x_end));
    part[j] = m;
  }
  for (int j = nrows; j < 8; ++j) part[j] = part[0];  // lanes of rows not there: unused
  __m256 mx = fold_rows8<true>(part);
  // an all -inf row shifts by 0: 0/0, NaN, as in torch
  mx = _mm256_blendv_ps(mx, _mm256_setzero_ps(),
                        _mm256_cmp_ps(mx, _mm256_set1_ps(-__builtin_inff()), _CMP_EQ_OQ));
  for (int j = 0; j < nrows; ++j) {
    const __m256 mj = _mm256_permutevar8x32_ps(mx, _mm256_set1_epi32(j));
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (int k = 0; k < NV; ++k) {
      const __m256 e = exp_nonpos256(_mm256_sub_ps(row_vec<NV>(x + j * r, k, tail, x_end), mj));
      if (!kLog) _mm256_store_ps(buf + (j * NV + k) * 8, e);
      if (k % 2 == 0) acc0 = _mm256_add_ps(acc0, e);
      if (k % 2 == 1) acc1 = _mm256_add_ps(acc1, e);
    }
    part[j] = _mm256_add_ps(acc0, acc1);
  }
  for (int j = nrows; j < 8; ++j) part[j] = part[0];
  const __m256 sum = fold_rows8<false>(part);
  if constexpr (kLog) {
    alignas(32) float mf[8], sf[8];
    _mm256_store_ps(mf, mx);
    _mm256_store_ps(sf, sum);
    for (int l = 0; l < 8; ++l) mf[l] += vm::log_f32(sf[l]);
    const __m256 shift = _mm256_load_ps(mf);
    for (int j = 0; j < nrows; ++j) {
      const __m256 sj = _mm256_permutevar8x32_ps(shift, _mm256_set1_epi32(j));
      for (int k = 0; k + 1 < NV; ++k)
        _mm256_storeu_ps(y + j * r + 8 * k, _mm256_sub_ps(_mm256_loadu_ps(x + j * r + 8 * k), sj));
      store_last(y + j * r + 8 * (NV - 1),
                 _mm256_sub_ps(row_vec<NV>(x + j * r, NV - 1, tail, x_end), sj), tail, spill(j));
    }
  } else {
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), sum);  // fl(1 / sum), as in double
    for (int j = 0; j < nrows; ++j) {
      const __m256 ij = _mm256_permutevar8x32_ps(inv, _mm256_set1_epi32(j));
      for (int k = 0; k + 1 < NV; ++k)
        _mm256_storeu_ps(y + j * r + 8 * k,
                         _mm256_mul_ps(_mm256_load_ps(buf + (j * NV + k) * 8), ij));
      store_last(y + j * r + 8 * (NV - 1),
                 _mm256_mul_ps(_mm256_load_ps(buf + (j * NV + NV - 1) * 8), ij), tail, spill(j));
    }
  }
}

template <bool kLog, int NV>
SDK_VS_AVX2 void softmax_short_avx2(const float* x, float* y, int64_t rows, int64_t r,
                                    const float* x_end) {
  const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(r - 8 * (NV - 1))),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int64_t o = 0; o < rows; o += 8) {
    const int n = rows - o < 8 ? int(rows - o) : 8;
    softmax_rows8_avx2<kLog, NV>(x + o * r, y + o * r, n, r, tail, x_end, o + n == rows);
  }
}

// softmax_rows8_avx2 over `rows` rows of r in [1, 128], x_end the end of x; false for longer
// rows (there one row is long enough for the row passes' own loops).
template <bool kLog, int NV = 1>
SDK_VS_AVX2 inline bool softmax_short_rows_avx2(const float* x, float* y, int64_t rows, int64_t r,
                                                const float* x_end) {
  if constexpr (NV > 16) {
    return false;
  } else {
    if (r > 8 * NV) return softmax_short_rows_avx2<kLog, NV + 1>(x, y, rows, r, x_end);
    softmax_short_avx2<kLog, NV>(x, y, rows, r, x_end);
    return true;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// Portable fallbacks (and tails) of the row passes above.
inline double exp_shift_sum(const float* x, float* y, int64_t n, float m) {
  int64_t i = 0;
  double total = 0;
#if defined(__x86_64__)
  if (has_avx512()) return exp_shift_sum_avx512(x, y, n, m);
  if (has_avx2()) i = exp_shift_sum_avx2(x, y, n, m, &total);
#endif
  float part = 0;
  for (; i < n; ++i) {
    float v = vm::exp_nonpos_f32(x[i] - m);
    if (y) y[i] = v;
    part += v;
  }
  return total + double(part);
}
inline void scale_row(const float* x, float* y, int64_t n, float s) {
#if defined(__x86_64__)
  if (has_avx512()) return scale_avx512(x, y, n, s);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s;
}
inline void sub_row(const float* x, float* y, int64_t n, float s) {
#if defined(__x86_64__)
  if (has_avx512()) return sub_avx512(x, y, n, s);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - s;
}
inline void exp_sub_acc(const float* x, const float* m, float* y, float* s, int64_t n) {
#if defined(__x86_64__)
  if (has_avx512()) return exp_sub_acc_avx512(x, m, y, s, n);
#endif
  for (int64_t j = 0; j < n; ++j) {
    y[j] = vm::exp_nonpos_f32(x[j] - m[j]);
    s[j] += y[j];
  }
}

}  // namespace sdk::detail::vs
