// core/src/reduce_dim.cpp: max/min with indices, argmax/argmin, var and std.
#include <cmath>
#include <memory>

#include "kernel_util.h"

namespace sdk::detail::k2 {
namespace {

// x viewed as contiguous (outer, r, inner) around `dim`.
struct Split {
  Ref c;
  int64_t outer = 1, r = 1, inner = 1;
};

Split split_at(const TensorImpl& x, int64_t dim) {
  Split s;
  s.c = contiguous(x);
  if (x.ndim == 0) return s;
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (d < dim) s.outer *= x.sizes[d];
    if (d == dim) s.r = x.sizes[d];
    if (d > dim) s.inner *= x.sizes[d];
  }
  return s;
}

template <typename A>
inline bool nan_of(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return v != v;
  } else {
    return false;
  }
}

// v replaces best: strictly better (first occurrence wins) or the first NaN.
template <bool kMin, typename A>
inline bool better(A v, A best) {
  if (nan_of(best)) return false;
  return kMin ? (v < best || nan_of(v)) : (v > best || nan_of(v));
}

#if defined(__x86_64__)
// find_first's vector part: the first i of whole vectors that matches, or where they end.
template <typename A>
SDK_K2_AVX2 int64_t find_first_avx2(const A* p, int64_t n, A m, bool nan) {
  constexpr int W = 32 / sizeof(A);
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    int bits;
    if constexpr (std::is_same_v<A, float>) {
      const __m256 v = _mm256_loadu_ps(p + i);
      bits = _mm256_movemask_ps(nan ? _mm256_cmp_ps(v, v, _CMP_UNORD_Q)
                                    : _mm256_cmp_ps(v, _mm256_set1_ps(m), _CMP_EQ_OQ));
    } else {
      const __m256d v = _mm256_loadu_pd(p + i);
      bits = _mm256_movemask_pd(nan ? _mm256_cmp_pd(v, v, _CMP_UNORD_Q)
                                    : _mm256_cmp_pd(v, _mm256_set1_pd(m), _CMP_EQ_OQ));
    }
    if (bits != 0) return i + __builtin_ctz(unsigned(bits));
  }
  return i;
}
#endif

#if defined(__x86_64__)
template <bool kMin>
SDK_K2_AVX2 inline __m256 ext256(__m256 a, __m256 b) {
  return kMin ? _mm256_min_ps(a, b) : _mm256_max_ps(a, b);
}

// One step of argext_f32_avx2: the 16 floats at q, which start at index `from`.
template <int kCmp>
SDK_K2_AVX2 inline void argext_step(const float* q, __m256i from, __m256& b0, __m256& b1,
                                    __m256i& k0, __m256i& k1, __m256& nan) {
  const __m256 v0 = _mm256_loadu_ps(q), v1 = _mm256_loadu_ps(q + 8);
  const __m256 m0 = _mm256_cmp_ps(v0, b0, kCmp), m1 = _mm256_cmp_ps(v1, b1, kCmp);
  b0 = _mm256_blendv_ps(b0, v0, m0);
  b1 = _mm256_blendv_ps(b1, v1, m1);
  const __m256 f = _mm256_castsi256_ps(from);
  k0 = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(k0), f, m0));
  k1 = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(k1), f, m1));
  nan = _mm256_or_ps(nan, _mm256_cmp_ps(v0, v1, _CMP_UNORD_Q));
}

// k + lane where b == m, INT32_MAX elsewhere.
SDK_K2_AVX2 inline __m256i index_if_eq(__m256 b, __m256 m, __m256i k, __m256i lane) {
  const __m256 none = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MAX));
  const __m256 kl = _mm256_castsi256_ps(_mm256_add_epi32(k, lane));
  return _mm256_castps_si256(_mm256_blendv_ps(none, kl, _mm256_cmp_ps(b, m, _CMP_EQ_OQ)));
}

// One pass over a float run (16 <= n < 2^31), without branches: each of 16 lanes keeps its
// best value and where the 16 floats that first reached it start (only a strictly better
// value replaces, so ties keep the first; one counter serves both vectors, each lane adds
// its own offset at the end). The rest after the last 16 is read as the run's last 16
// floats again: an element seen twice never beats itself, and the first time it was seen
// counts. The lanes then settle on the best value M and, among lanes holding M, the
// smallest index (of -0 and +0, the first). The block search's two passes and calls cost
// more than short rows' elements (rows of 64: 1.5x numpy's argmax; now about 0.5x). A fold
// of 32 floats that skips the updates when no lane improves (numpy's form) mispredicted its
// branch through rows of 1024, which ran 2x slower. Returns false when the run holds a NaN:
// the block search then finds the first one.
template <bool kMin>
SDK_K2_AVX2 bool argext_f32_avx2(const float* p, int64_t n, float& best, int64_t& at) {
  constexpr int kCmp = kMin ? _CMP_LT_OQ : _CMP_GT_OQ;
  __m256 b0 = _mm256_loadu_ps(p), b1 = _mm256_loadu_ps(p + 8);
  __m256i k0 = _mm256_setzero_si256(), k1 = k0, from = k0;
  __m256 nan = _mm256_cmp_ps(b0, b1, _CMP_UNORD_Q);
  const __m256i step = _mm256_set1_epi32(16);
  int64_t i = 16;
  for (; i + 16 <= n; i += 16) {
    from = _mm256_add_epi32(from, step);
    argext_step<kCmp>(p + i, from, b0, b1, k0, k1, nan);
  }
  if (i < n) {
    argext_step<kCmp>(p + n - 16, _mm256_set1_epi32(int32_t(n - 16)), b0, b1, k0, k1, nan);
  }
  if (_mm256_movemask_ps(nan) != 0) return false;
  __m256 m = ext256<kMin>(b0, b1);
  m = ext256<kMin>(m, _mm256_permute2f128_ps(m, m, 1));
  m = ext256<kMin>(m, _mm256_permute_ps(m, 0x4e));
  m = ext256<kMin>(m, _mm256_permute_ps(m, 0xb1));
  const __m256i lo = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i hi = _mm256_add_epi32(lo, _mm256_set1_epi32(8));
  __m256i j = _mm256_min_epi32(index_if_eq(b0, m, k0, lo), index_if_eq(b1, m, k1, hi));
  j = _mm256_min_epi32(j, _mm256_permute2x128_si256(j, j, 1));
  j = _mm256_min_epi32(j, _mm256_shuffle_epi32(j, 0x4e));
  j = _mm256_min_epi32(j, _mm256_shuffle_epi32(j, 0xb1));
  at = _mm256_cvtsi256_si32(j);
  best = p[at];  // of -0 and +0 (both equal to M), the one found first
  return true;
}
#endif

// The first i < n with p[i] == m, or the first NaN when `nan` (the caller knows there is one).
template <typename A>
int64_t find_first(const A* p, int64_t n, A m, bool nan) {
  int64_t i = 0;
#if defined(__x86_64__)
  if (has_avx2()) i = find_first_avx2(p, n, m, nan);
#endif
  while (i < n && (nan ? p[i] == p[i] : p[i] != m)) ++i;
  return i;
}

// Floats and doubles of a run are taken kScan at a time: the SIMD extremum of the block
// (minmax_contig, NaN if the block holds one), and a search for its first index only of a block
// that beats the best so far or holds a NaN. Random data rescans a few blocks; a rising run
// rescans each, from L1.
constexpr int64_t kScan = 1024;

// Index and value of the extremum of p[0, n) (contiguous), by the rule of better().
template <bool kMin, typename A, typename T>
void extremum_run(const T* p, int64_t n, A& best, int64_t& at) {
  if constexpr (std::is_same_v<A, T> && std::is_floating_point_v<T>) {
    int64_t first = 0;  // where the block search starts
#if defined(__x86_64__)
    // float32 on AVX2: the first block in one pass (all of a short row); later blocks are
    // searched only when they beat it, which on long runs costs less than one pass
    if constexpr (std::is_same_v<T, float>) {
      if (n >= 16 && !has_avx512() && has_avx2() &&
          argext_f32_avx2<kMin>(p, std::min(kScan, n), best, at)) {
        first = kScan;
      }
    }
#endif
    if (n >= 16) {
      for (int64_t b = first; b < n; b += kScan) {
        const int64_t len = std::min(kScan, n - b);
        const A m = minmax_contig<kMin>(p + b, len);
        const bool nan = m != m;
        if (b != 0 && !nan && !better<kMin>(m, best)) continue;
        at = b + find_first(p + b, len, m, nan);
        best = p[at];     // not m: of -0 and +0, the one found first
        if (nan) return;  // the first NaN wins
      }
      return;
    }
  }
  best = convert<A>(p[0]);
  at = 0;
  for (int64_t i = 1; i < n; ++i) {
    A v = convert<A>(p[i]);
    if (better<kMin>(v, best)) {
      best = v;
      at = i;
    }
  }
}

// Elements per piece when one long run is split across threads (fixed, so the answer is
// the same at any thread count; ties and NaNs resolve to the first, as serially).
constexpr int64_t kPiece = int64_t(1) << 16;

// A single long run (outer == 1, inner == 1): pieces on threads, combined in order.
template <bool kMin, typename T>
void extremum_long(const T* p, int64_t r, T* values, int64_t* indices) {
  using A = typename OpMath<T>::type;
  const int64_t np = (r + kPiece - 1) / kPiece;
  std::unique_ptr<A[]> best(new A[np]);
  std::unique_ptr<int64_t[]> at(new int64_t[np]);
  parallel_for(0, np, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      extremum_run<kMin>(p + k * kPiece, std::min(kPiece, r - k * kPiece), best[k], at[k]);
    }
  });
  A v = best[0];
  int64_t i = at[0];
  for (int64_t k = 1; k < np; ++k) {
    if (better<kMin>(best[k], v)) {
      v = best[k];
      i = k * kPiece + at[k];
    }
  }
  if (values) values[0] = convert<T>(v);
  indices[0] = i;
}

// values (may be null) and indices of the extremum over r for each (outer, inner).
template <bool kMin, typename T>
void extremum_kernel(const Split& s, T* values, int64_t* indices) {
  using A = typename OpMath<T>::type;
  const T* base = static_cast<const T*>(s.c->data());
  const int64_t r = s.r, inner = s.inner;
  if (s.outer == 1 && inner == 1 && r >= 2 * kPiece && max_concurrency() > 1) {
    return extremum_long<kMin>(base, r, values, indices);
  }
  parallel_for(0, s.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, r * inner)),
               [&](int64_t b, int64_t e) {
                 std::unique_ptr<A[]> best(new A[inner]);
                 std::unique_ptr<int64_t[]> bi(new int64_t[inner]);
                 for (int64_t o = b; o < e; ++o) {
                   const T* p = base + o * r * inner;
                   if (inner == 1) {
                     extremum_run<kMin>(p, r, best[0], bi[0]);
                   } else {
                     for (int64_t j = 0; j < inner; ++j) {
                       best[j] = convert<A>(p[j]);
                       bi[j] = 0;
                     }
                     for (int64_t i = 1; i < r; ++i) {
                       const T* row = p + i * inner;
                       for (int64_t j = 0; j < inner; ++j) {
                         A v = convert<A>(row[j]);
                         if (better<kMin>(v, best[j])) {
                           best[j] = v;
                           bi[j] = i;
                         }
                       }
                     }
                   }
                   for (int64_t j = 0; j < inner; ++j) {
                     if (values) values[o * inner + j] = convert<T>(best[j]);
                     indices[o * inner + j] = bi[j];
                   }
                 }
               });
}

Shape reduced_shape(const TensorImpl& x, int64_t dim, bool keepdim) {
  Shape s;
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (d != dim) {
      s.push_back(x.sizes[d]);
    } else if (keepdim) {
      s.push_back(1);
    }
  }
  return s;
}

// Shared body of max_dim/min_dim/argmax/argmin over one dim.
void extremum(const TensorImpl& x, int64_t dim, bool keepdim, bool is_min, bool want_values,
              Ref& values, Ref& indices, const char* op) {
  check_cpu(x, op, "x");
  int64_t d = wrap_dim(dim, x.ndim, op);
  Shape shape = reduced_shape(x, d, keepdim);
  int64_t rsize = x.ndim == 0 ? 1 : x.sizes[d];
  int64_t outn = 1;
  for (int64_t s : shape) outn *= s;
  SDK_VALUE_CHECK(rsize > 0 || outn == 0, op, ": cannot reduce over dim ", dim,
                  " of size 0 (input of shape ", shape_str(x), ")");
  if (want_values) values = make_tensor(shape, x.dtype, x.device());
  indices = make_tensor(shape, SDK_INT64, x.device());
  if (outn == 0) return;
  Split s = split_at(x, d);
  SDK_DISPATCH_ALL(x.dtype, op, [&] {
    scalar_t* v = want_values ? static_cast<scalar_t*>(values->data()) : nullptr;
    int64_t* ix = static_cast<int64_t*>(indices->data());
    if (is_min) {
      extremum_kernel<true, scalar_t>(s, v, ix);
    } else {
      extremum_kernel<false, scalar_t>(s, v, ix);
    }
  });
}

// Sum of p[i] (mean == 0, squares false) or of (p[i] - mean)^2 over [0, n), in double with
// eight accumulators: a single one would wait on each add's latency.
template <bool kSquares, typename T>
double sum_d(const T* p, int64_t n, double mean) {
  double acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) {
      double v = convert<double>(p[i + j]) - mean;
      acc[j] += kSquares ? v * v : v;
    }
  }
  for (; i < n; ++i) {
    double v = convert<double>(p[i]) - mean;
    acc[0] += kSquares ? v * v : v;
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// sum_d over a row in pieces of kPiece, on threads when the row is long; pieces are
// combined in order, so the result does not depend on the thread count.
template <bool kSquares, typename T>
double sum_d_pieces(const T* p, int64_t n, double mean, bool parallel) {
  const int64_t np = (n + kPiece - 1) / kPiece;
  std::vector<double> part(np);
  auto run = [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      part[k] = sum_d<kSquares>(p + k * kPiece, std::min(kPiece, n - k * kPiece), mean);
    }
  };
  parallel ? parallel_for(0, np, 1, run) : run(0, np);
  double s = 0;
  for (double v : part) s += v;
  return s;
}

// Two-pass variance of each contiguous row of length r (in double).
template <typename T>
void var_kernel(const T* base, int64_t rows, int64_t r, double correction, bool take_sqrt, T* out) {
  const double div = std::max(0.0, double(r) - correction);
  // Fewer rows than threads: each long row is split across the threads instead.
  const bool split = rows < max_concurrency() && r >= 2 * kPiece;
  auto one = [&](int64_t o) {
    const T* p = base + o * r;
    const double mean = sum_d_pieces<false>(p, r, 0.0, split) / double(r);
    const double v = sum_d_pieces<true>(p, r, mean, split) / div;
    out[o] = convert<T>(take_sqrt ? std::sqrt(v) : v);
  };
  if (split) {
    for (int64_t o = 0; o < rows; ++o) one(o);
    return;
  }
  parallel_for(0, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, r)),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) one(o);
               });
}

Ref var_impl(const TensorImpl& x, int64_t ndims, const int64_t* dims, double correction,
             bool keepdim, bool take_sqrt, const char* op) {
  check_cpu(x, op, "x");
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating point input, got ", describe(x));
  std::vector<bool> mask = dims_mask(x, ndims, dims, op);
  // Kept dims first, then reduced ones: each output is one contiguous row.
  Shape sz, st, shape;
  int64_t rows = 1, r = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < x.ndim; ++d) {
      if (mask[d] != (pass == 1)) continue;
      sz.push_back(x.sizes[d]);
      st.push_back(x.strides[d]);
      (pass ? r : rows) *= x.sizes[d];
    }
  }
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (!mask[d]) {
      shape.push_back(x.sizes[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  Ref res = make_tensor(shape, x.dtype, x.device());
  if (rows == 0) return res;
  Ref v = make_view(x, int64_t(sz.size()), sz.data(), st.data(), x.offset);
  Ref c = contiguous(*v);
  SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
    var_kernel<scalar_t>(static_cast<const scalar_t*>(c->data()), rows, r, correction, take_sqrt,
                         static_cast<scalar_t*>(res->data()));
  });
  return res;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

namespace {
sdk_status max_min_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim, sdk_tensor** values,
                       sdk_tensor** indices, bool is_min) {
  const char* op = is_min ? "sdk_min_dim" : "sdk_max_dim";
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(values, op, "values");
  check_not_null(indices, op, "indices");
  Ref v, i;
  extremum(t, dim, keepdim != 0, is_min, true, v, i, op);
  *values = v.release_handle();
  *indices = i.release_handle();
  SDK_SAFE_CALL_END;
}
}  // namespace

extern "C" {

SDK_API sdk_status sdk_max_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim,
                               sdk_tensor** values, sdk_tensor** indices) {
  return max_min_dim(x, dim, keepdim, values, indices, false);
}

SDK_API sdk_status sdk_min_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim,
                               sdk_tensor** values, sdk_tensor** indices) {
  return max_min_dim(x, dim, keepdim, values, indices, true);
}

SDK_API sdk_status sdk_arg_extremum(const sdk_tensor* x, int32_t is_min, int32_t dim_given,
                                    int64_t dim, int32_t keepdim, sdk_tensor** result) {
  const char* op = is_min ? "sdk_argmin" : "sdk_argmax";
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(result, op, "result");
  Ref v, i;
  if (dim_given) {
    extremum(t, dim, keepdim != 0, is_min != 0, false, v, i, op);
  } else {
    // Over the flattened tensor (row-major order); keepdim keeps ndim ones.
    Ref c = contiguous(t);
    int64_t n = t.numel;
    Ref flat = make_view(*c, 1, &n, nullptr, c->offset);
    extremum(*flat, 0, false, is_min != 0, false, v, i, op);
    Shape ones(keepdim ? t.ndim : 0, 1);
    i = make_view(*i, int64_t(ones.size()), ones.data(), nullptr, i->offset);
  }
  set_result(result, std::move(i));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_var(const sdk_tensor* x, int64_t ndims, const int64_t* dims,
                           double correction, int32_t keepdim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, "sdk_var", "x");
  check_not_null(result, "sdk_var", "result");
  set_result(result, var_impl(t, ndims, dims, correction, keepdim != 0, false, "sdk_var"));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_std(const sdk_tensor* x, int64_t ndims, const int64_t* dims,
                           double correction, int32_t keepdim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, "sdk_std", "x");
  check_not_null(result, "sdk_std", "result");
  set_result(result, var_impl(t, ndims, dims, correction, keepdim != 0, true, "sdk_std"));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
