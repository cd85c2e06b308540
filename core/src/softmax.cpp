// core/src/softmax.cpp: softmax and log_softmax along one dim (max-shifted, float types only).
#include <cmath>
#include <memory>

#include "kernel_util.h"
#include "vec_math.h"

namespace sdk::detail::k2 {
namespace {

#if defined(__SSE2__)
// e^x for x <= 0 (x - max in softmax), 4 lanes of SSE2: x = n*ln2 + r with
// |r| <= ln2/2, e^r by a degree-7 polynomial, 2^n from exponent bits in two
// halves so subnormal results stay right. Written with intrinsics because
// the compiler does not vectorise selects under the default trapping-math.
inline __m128 exp_nonpos_ps(__m128 x) {
  const __m128 kRound = _mm_set1_ps(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  x = _mm_max_ps(_mm_set1_ps(-104.0f), x);         // second operand: NaN passes through
  __m128 n =
      _mm_sub_ps(_mm_add_ps(_mm_mul_ps(x, _mm_set1_ps(1.44269504088896341f)), kRound), kRound);
  __m128 r = _mm_sub_ps(x, _mm_mul_ps(n, _mm_set1_ps(0.693145751953125f)));
  r = _mm_sub_ps(r, _mm_mul_ps(n, _mm_set1_ps(1.42860682030941723212e-6f)));
  __m128 p = _mm_set1_ps(1.0f / 5040.0f);
  const float coef[] = {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f};
  for (float c : coef) p = _mm_add_ps(_mm_mul_ps(p, r), _mm_set1_ps(c));
  __m128i ni = _mm_cvttps_epi32(n);
  __m128i h1 = _mm_srai_epi32(ni, 1);
  __m128i h2 = _mm_sub_epi32(ni, h1);
  const __m128i bias = _mm_set1_epi32(127);
  __m128 s1 = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(h1, bias), 23));
  __m128 s2 = _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(h2, bias), 23));
  __m128 res = _mm_mul_ps(_mm_mul_ps(p, s1), s2);
  return _mm_andnot_ps(_mm_cmple_ps(x, _mm_set1_ps(-103.97f)), res);  // underflow to 0
}
#endif

#if defined(__x86_64__)
// The same e^x for x <= 0, 8 lanes of AVX2 + FMA.
SDK_K2_AVX2 inline __m256 exp_nonpos_ps256(__m256 x) {
  const __m256 kRound = _mm256_set1_ps(12582912.0f);
  x = _mm256_max_ps(_mm256_set1_ps(-104.0f), x);
  __m256 n =
      _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), kRound), kRound);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860682030941723212e-6f), r);
  __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  __m256i ni = _mm256_cvttps_epi32(n);
  __m256i h1 = _mm256_srai_epi32(ni, 1);
  __m256i h2 = _mm256_sub_epi32(ni, h1);
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h1, bias), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h2, bias), 23));
  __m256 res = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  return _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-103.97f), _CMP_LE_OQ), res);
}

// y = e^(x - m) over the multiple-of-8 prefix; returns the count done.
SDK_K2_AVX2 inline int64_t exp_shifted_avx2(const float* x, float* y, int64_t n, float m) {
  const __m256 mv = _mm256_set1_ps(m);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, exp_nonpos_ps256(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv)));
  }
  return i;
}
#endif

// y[i] = e^(x[i] - m) for i < n.
inline void exp_shifted(const float* x, float* y, int64_t n, float m) {
  int64_t i = 0;
#if defined(__x86_64__)
  if (has_avx2()) i = exp_shifted_avx2(x, y, n, m);
#endif
#if defined(__SSE2__)
  const __m128 mv = _mm_set1_ps(m);
  for (; i + 4 <= n; i += 4)
    _mm_storeu_ps(y + i, exp_nonpos_ps(_mm_sub_ps(_mm_loadu_ps(x + i), mv)));
#endif
  for (; i < n; ++i) y[i] = vm::exp_f32(x[i] - m);
}
inline void exp_shifted(const double* x, double* y, int64_t n, double m) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - m);
}

// One contiguous row of n: y = softmax(x) or log_softmax(x), computed in A.
// Separate simple loops (max, exp, sum, scale) so each one vectorises.
template <bool kLog, typename A>
void softmax_row(const A* __restrict x, A* __restrict y, int64_t n) {
  A m = minmax_contig<false>(x, n);
  if (m != m) {  // a NaN anywhere makes the whole row NaN, as in torch
    for (int64_t i = 0; i < n; ++i) y[i] = A(NAN);
    return;
  }
  if (std::isinf(m) && m < 0) m = 0;  // all -inf: 0/0 gives NaN, as in torch
  exp_shifted(x, y, n, m);
  const A sum = sum_contig16(y, n);
  if constexpr (kLog) {
    const A shift = m + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  } else {
    const A inv = A(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

template <bool kLog, typename T>
void softmax_kernel(const T* base, T* out, int64_t outer, int64_t r, int64_t inner) {
  using A = typename OpMath<T>::type;
  constexpr bool kDirect = std::is_same_v<A, T>;
  const int64_t slab = r * inner;
  parallel_for(0, outer, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, slab)),
               [&](int64_t b, int64_t e) {
                 // Halves and strided (inner > 1) slabs go through a row buffer in A.
                 std::unique_ptr<A[]> xin, yout;
                 if (!kDirect || inner > 1) {
                   xin.reset(new A[r]);
                   yout.reset(new A[r]);
                 }
                 for (int64_t o = b; o < e; ++o) {
                   const T* xs = base + o * slab;
                   T* ys = out + o * slab;
                   for (int64_t j = 0; j < inner; ++j) {
                     if constexpr (kDirect) {
                       if (inner == 1) {
                         softmax_row<kLog, A>(xs, ys, r);
                         continue;
                       }
                     }
                     for (int64_t i = 0; i < r; ++i) xin[i] = convert<A>(xs[i * inner + j]);
                     softmax_row<kLog, A>(xin.get(), yout.get(), r);
                     for (int64_t i = 0; i < r; ++i) ys[i * inner + j] = convert<T>(yout[i]);
                   }
                 }
               });
}

Ref softmax_impl(const TensorImpl& x, int64_t dim, bool log, const char* op) {
  check_cpu(x, op, "x");
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating point input, got ", describe(x));
  int64_t d = wrap_dim(dim, x.ndim, op);
  Ref c = contiguous(x);
  Ref res = make_tensor(x.ndim, x.sizes, x.dtype, x.device());
  if (x.numel == 0) return res;
  int64_t outer = 1, r = 1, inner = 1;
  for (int64_t k = 0; k < x.ndim; ++k) {
    if (k < d) outer *= x.sizes[k];
    if (k == d) r = x.sizes[k];
    if (k > d) inner *= x.sizes[k];
  }
  SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
    const scalar_t* in = static_cast<const scalar_t*>(c->data());
    scalar_t* o = static_cast<scalar_t*>(res->data());
    if (log) {
      softmax_kernel<true>(in, o, outer, r, inner);
    } else {
      softmax_kernel<false>(in, o, outer, r, inner);
    }
  });
  return res;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_softmax(const sdk_tensor* x, int64_t dim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, "sdk_softmax", "x");
  check_not_null(result, "sdk_softmax", "result");
  set_result(result, softmax_impl(t, dim, false, "sdk_softmax"));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_log_softmax(const sdk_tensor* x, int64_t dim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, "sdk_log_softmax", "x");
  check_not_null(result, "sdk_log_softmax", "result");
  set_result(result, softmax_impl(t, dim, true, "sdk_log_softmax"));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
