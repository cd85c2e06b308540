// core/src/softmax.cpp: softmax and log_softmax along one dim (max-shifted, float types only).
//
// Along the last dim each row is contiguous: max, exp-and-sum, then scale (or
// subtract), each pass a SIMD loop over the row; rows go to threads, and a
// row too long for one thread is itself split in three parallel passes.
// Along another dim the slab (r x inner) is walked row by row over blocks of
// columns, with a running max and sum per column, so every access stays
// contiguous.
#include <cmath>
#include <memory>

#include "kernel_util.h"
#include "vec_math.h"
#include "vec_simd.h"

namespace sdk::detail::k2 {
namespace {

// Rows at least this long are split across threads when there are fewer rows than threads.
constexpr int64_t kSplitRow = int64_t(1) << 16;
// Columns handled together along a non-last dim (their max and sum stay in L1).
constexpr int64_t kColBlock = 1024;
// Elements of work below which a parallel task is not worth a thread.
constexpr int64_t kGrain = 32768;

// Sum of e^(x[i] - m), stored to y unless y is null; block sums kept in double.
inline double exp_sum(const float* x, float* y, int64_t n, float m) {
  return vs::exp_shift_sum(x, y, n, m);
}
inline double exp_sum(const double* x, double* y, int64_t n, double m) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = std::exp(x[i] - m);
    if (y) y[i] = v;
    s += v;
  }
  return s;
}
inline void scale(const float* x, float* y, int64_t n, float s) { vs::scale_row(x, y, n, s); }
inline void scale(const double* x, double* y, int64_t n, double s) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s;
}
inline void subtract(const float* x, float* y, int64_t n, float s) { vs::sub_row(x, y, n, s); }
inline void subtract(const double* x, double* y, int64_t n, double s) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] - s;
}

// Max of a row (NaN if any is NaN). Rows are often short: the AVX-512 form's masked tail
// beats minmax_contig's scalar remainder of up to 63 elements.
inline float row_max(const float* x, int64_t n) {
#if defined(__x86_64__)
  if (vs::has_avx512()) return vs::extremum_avx512<false>(x, n);
#endif
  return minmax_contig<false>(x, n);
}
inline double row_max(const double* x, int64_t n) { return minmax_contig<false>(x, n); }

// The shift of a row whose max is m: an all -inf row keeps 0 (0/0 gives NaN, as in torch).
template <typename A>
inline A shift_of(A m) {
  return (std::isinf(m) && m < 0) ? A(0) : m;
}

// y from x given the row's shift m and its sum of e^(x - m) (already in y unless kLog).
template <bool kLog, typename A>
inline void finish_row(const A* x, A* y, int64_t n, A m, double sum) {
  if constexpr (kLog) {
    subtract(x, y, n, static_cast<A>(double(m) + std::log(sum)));
  } else {
    scale(y, y, n, static_cast<A>(1.0 / sum));
  }
}

// One contiguous row of n: y = softmax(x) or log_softmax(x), computed in A.
template <bool kLog, typename A>
void softmax_row(const A* __restrict x, A* __restrict y, int64_t n) {
  A m = row_max(x, n);
  if (m != m) {  // a NaN anywhere makes the whole row NaN, as in torch
    for (int64_t i = 0; i < n; ++i) y[i] = A(NAN);
    return;
  }
  m = shift_of(m);
  finish_row<kLog>(x, y, n, m, exp_sum(x, kLog ? nullptr : y, n, m));
}

// One long row split into `nc` pieces, each pass parallel; partial results are combined in
// piece order, so the result depends only on the thread count.
template <bool kLog, typename A>
void softmax_row_split(const A* x, A* y, int64_t n, int64_t nc) {
  std::vector<A> part_max(nc);
  std::vector<double> part_sum(nc);
  const int64_t step = ((n + nc - 1) / nc + 15) & ~int64_t(15);
  auto each = [&](const auto& fn) {
    parallel_for(0, nc, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t lo = std::min(n, c * step), hi = std::min(n, lo + step);
        if (hi > lo) fn(c, lo, hi - lo);
      }
    });
  };
  for (int64_t c = 0; c < nc; ++c) part_max[c] = -INFINITY;
  each([&](int64_t c, int64_t lo, int64_t len) { part_max[c] = row_max(x + lo, len); });
  A m = part_max[0];
  for (int64_t c = 1; c < nc; ++c)
    m = (part_max[c] > m || part_max[c] != part_max[c]) ? part_max[c] : m;
  if (m != m) {
    each([&](int64_t, int64_t lo, int64_t len) { std::fill(y + lo, y + lo + len, A(NAN)); });
    return;
  }
  m = shift_of(m);
  each([&](int64_t c, int64_t lo, int64_t len) {
    part_sum[c] = exp_sum(x + lo, kLog ? nullptr : y + lo, len, m);
  });
  double sum = 0;
  for (int64_t c = 0; c < nc; ++c) sum += part_sum[c];
  each([&](int64_t, int64_t lo, int64_t len) { finish_row<kLog>(x + lo, y + lo, len, m, sum); });
}

// Rows of at most 128 floats, eight at a time (vec_simd.h); false where it does not apply.
template <bool kLog>
inline bool short_rows(const float* x, float* y, int64_t rows, int64_t r, const float* x_end) {
#if defined(__x86_64__)
  if (vs::has_avx2()) return vs::softmax_short_rows_avx2<kLog>(x, y, rows, r, x_end);
#endif
  return false;
}
template <bool kLog>
inline bool short_rows(const double*, double*, int64_t, int64_t, const double*) {
  return false;
}

// Softmax of `rows` contiguous rows of r (the last dim).
template <bool kLog, typename T>
void softmax_rows(const T* base, T* out, int64_t rows, int64_t r) {
  using A = typename OpMath<T>::type;
  constexpr bool kDirect = std::is_same_v<A, T>;
  if constexpr (kDirect) {
    const int64_t nt = max_concurrency();
    if (rows < nt && r >= kSplitRow && !in_parallel_region()) {
      const int64_t nc = std::min<int64_t>(nt, r / (kSplitRow / 2));
      for (int64_t o = 0; o < rows; ++o) softmax_row_split<kLog>(base + o * r, out + o * r, r, nc);
      return;
    }
  }
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, r)),
               [&](int64_t b, int64_t e) {
                 if constexpr (kDirect) {
                   if (short_rows<kLog>(base + b * r, out + b * r, e - b, r, base + rows * r))
                     return;
                   for (int64_t o = b; o < e; ++o)
                     softmax_row<kLog, A>(base + o * r, out + o * r, r);
                 } else {  // halves: through a row buffer in float
                   std::unique_ptr<A[]> xin(new A[r]), yout(new A[r]);
                   for (int64_t o = b; o < e; ++o) {
                     for (int64_t i = 0; i < r; ++i) xin[i] = convert<A>(base[o * r + i]);
                     softmax_row<kLog, A>(xin.get(), yout.get(), r);
                     for (int64_t i = 0; i < r; ++i) out[o * r + i] = convert<T>(yout[i]);
                   }
                 }
               });
}

inline float exp_np(float v) { return vm::exp_nonpos_f32(v); }
inline double exp_np(double v) { return std::exp(v); }

// Softmax over the r rows of one block of len columns (row stride `inner`); m, s: len
// accumulators in A, sd: len doubles, buf: len elements of scratch for halves.
template <bool kLog, typename T, typename A>
void softmax_cols(const T* x, T* y, int64_t r, int64_t inner, int64_t len, A* m, A* s, double* sd,
                  A* buf) {
  constexpr bool kDirect = std::is_same_v<A, T>;
  constexpr bool kStore = kDirect && std::is_same_v<A, float> && !kLog;
  auto row = [&](int64_t i) -> const A* {
    if constexpr (kDirect) {
      return x + i * inner;
    } else {
      for (int64_t j = 0; j < len; ++j) buf[j] = convert<A>(x[i * inner + j]);
      return buf;
    }
  };
  const A* p0 = row(0);
  std::copy(p0, p0 + len, m);
  for (int64_t i = 1; i < r; ++i) {
    const A* p = row(i);
    for (int64_t j = 0; j < len; ++j) m[j] = (p[j] > m[j] || p[j] != p[j]) ? p[j] : m[j];
  }
  for (int64_t j = 0; j < len; ++j) m[j] = shift_of(m[j]);
  std::fill(sd, sd + len, 0.0);
  // Float partial sums over at most 256 rows at a time, then into doubles: accurate for any r.
  for (int64_t i0 = 0; i0 < r; i0 += 256) {
    std::fill(s, s + len, A(0));
    for (int64_t i = i0; i < std::min(r, i0 + 256); ++i) {
      if constexpr (kStore) {
        vs::exp_sub_acc(x + i * inner, m, y + i * inner, s, len);
      } else {
        const A* p = row(i);
        for (int64_t j = 0; j < len; ++j) s[j] += exp_np(p[j] - m[j]);
      }
    }
    for (int64_t j = 0; j < len; ++j) sd[j] += double(s[j]);
  }
  if constexpr (kLog) {
    for (int64_t j = 0; j < len; ++j) s[j] = static_cast<A>(double(m[j]) + std::log(sd[j]));
    for (int64_t i = 0; i < r; ++i) {
      const A* p = row(i);
      T* q = y + i * inner;
      for (int64_t j = 0; j < len; ++j) q[j] = convert<T>(p[j] - s[j]);
    }
  } else {
    for (int64_t j = 0; j < len; ++j) s[j] = static_cast<A>(1.0 / sd[j]);
    for (int64_t i = 0; i < r; ++i) {
      T* q = y + i * inner;
      if constexpr (kStore) {
        for (int64_t j = 0; j < len; ++j) q[j] *= s[j];
      } else {
        const A* p = row(i);
        for (int64_t j = 0; j < len; ++j) q[j] = convert<T>(exp_np(p[j] - m[j]) * s[j]);
      }
    }
  }
}

// Softmax along a dim that is not the last: outer slabs of r x inner, in column blocks.
template <bool kLog, typename T>
void softmax_inner(const T* base, T* out, int64_t outer, int64_t r, int64_t inner) {
  using A = typename OpMath<T>::type;
  int64_t cb = std::min(kColBlock, inner);
  const int64_t nt = max_concurrency();
  if (outer * ((inner + cb - 1) / cb) < nt && r * inner >= kGrain) {
    cb = std::min(cb, std::max<int64_t>(16, ((inner + nt - 1) / nt + 15) & ~int64_t(15)));
  }
  const int64_t nb = (inner + cb - 1) / cb;
  const int64_t per_task = std::max<int64_t>(1, r * cb);
  parallel_for(0, outer * nb, std::max<int64_t>(1, kGrain / per_task), [&](int64_t b, int64_t e) {
    std::unique_ptr<A[]> m(new A[cb]), s(new A[cb]), buf(new A[cb]);
    std::unique_ptr<double[]> sd(new double[cb]);
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / nb, j0 = (t % nb) * cb, len = std::min(cb, inner - j0);
      const int64_t off = o * r * inner + j0;
      softmax_cols<kLog, T, A>(base + off, out + off, r, inner, len, m.get(), s.get(), sd.get(),
                               buf.get());
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
    if (inner == 1) {
      log ? softmax_rows<true>(in, o, outer, r) : softmax_rows<false>(in, o, outer, r);
    } else {
      log ? softmax_inner<true>(in, o, outer, r, inner)
          : softmax_inner<false>(in, o, outer, r, inner);
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
