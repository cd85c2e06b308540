// core/src/kernel_util.h: shared helpers of the reduction, linalg, join and index kernels.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu_features.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#define SDK_K2_AVX2 __attribute__((target("avx2,fma")))
#define SDK_K2_AVX512 __attribute__((target("avx512f")))
// A loop that reads whole aligned vectors past a tensor's ends (never past the 64-byte lines
// holding its elements, so never into another page, and masks those lanes out): reads that
// AddressSanitizer would report, and ThreadSanitizer too when a neighbour's bytes change.
#define SDK_K2_NO_ASAN __attribute__((no_sanitize("address", "thread")))
#endif

#include "cuda/glue/cuda_glue.h"
#include "dtype.h"
#include "parallel.h"
#include "tensor_impl.h"

namespace sdk::detail {
// From elementwise_copy.cpp: dst = src broadcast to dst's shape, cast; CPU or CUDA.
void copy_into(TensorImpl& dst, const TensorImpl& src);
}  // namespace sdk::detail

namespace sdk::detail::k2 {

using Shape = std::vector<int64_t>;

inline std::string vec_str(const Shape& s) { return sizes_str(int64_t(s.size()), s.data()); }
inline Shape shape_of(const TensorImpl& t) { return Shape(t.sizes, t.sizes + t.ndim); }
inline const char* dname(sdk_dtype d) {
  const char* n = dtype_name(d);
  return n ? n : "?";
}

// torch's casting rule for out=: no float -> integral, no non-bool -> bool.
inline bool can_cast(sdk_dtype from, sdk_dtype to) {
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (is_complex(from) && !is_complex(to)) return false;
  if (from != SDK_BOOL && to == SDK_BOOL) return false;
  return true;
}

inline void check_cpu(const TensorImpl& t, const char* op, const char* arg) {
  SDK_REQUIRE(t.device().type == SDK_CPU, SDK_ERROR_NOT_IMPLEMENTED, op, ": argument '", arg,
              "' is on a CUDA device; only CPU tensors are supported");
}

// Convert one element between C++ element types (halves go through float).
template <typename To, typename From>
inline To convert(From v) {
  using M = typename OpMath<From>::type;
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<M>(v) != M(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(static_cast<M>(v)));
  } else {
    return static_cast<To>(static_cast<M>(v));
  }
}

// Walk every element of an N-d shape for K operands with their own strides
// (in bytes). fn(ptrs[K], n_inner, inner_strides[K]) handles one run of the
// innermost dim. Dims are coalesced first.
template <int K, typename F>
void nd_loop(int64_t ndim, const int64_t* sizes, const int64_t* const* byte_strides,
             char* const* bases, const F& fn) {
  // Coalesce: drop size-1 dims and merge dims that are contiguous for every operand.
  std::vector<int64_t> sz;
  std::vector<std::array<int64_t, K>> st;
  for (int64_t d = 0; d < ndim; ++d) {
    if (sizes[d] == 0) return;
    if (sizes[d] == 1) continue;
    std::array<int64_t, K> s;
    for (int k = 0; k < K; ++k) s[k] = byte_strides[k][d];
    if (!sz.empty()) {
      bool merge = true;
      for (int k = 0; k < K; ++k) merge = merge && st.back()[k] == s[k] * sizes[d];
      if (merge) {
        sz.back() *= sizes[d];
        st.back() = s;
        continue;
      }
    }
    sz.push_back(sizes[d]);
    st.push_back(s);
  }
  char* p[K];
  for (int k = 0; k < K; ++k) p[k] = bases[k];
  if (sz.empty()) {
    int64_t zero[K] = {};
    fn(p, int64_t(1), zero);
    return;
  }
  int64_t nd = int64_t(sz.size());
  int64_t inner = sz.back();
  int64_t inner_st[K];
  for (int k = 0; k < K; ++k) inner_st[k] = st.back()[k];
  std::vector<int64_t> idx(nd, 0);
  while (true) {
    fn(p, inner, inner_st);
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < sz[d]) {
        for (int k = 0; k < K; ++k) p[k] += st[d][k];
        break;
      }
      for (int k = 0; k < K; ++k) p[k] -= st[d][k] * (sz[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Strides in bytes of t.
inline Shape byte_strides(const TensorImpl& t) {
  Shape s(t.ndim);
  int64_t isz = t.itemsize();
  for (int64_t d = 0; d < t.ndim; ++d) s[d] = t.strides[d] * isz;
  return s;
}

// dst = src for tensors of one dtype and shape, any strides: bytes moved by element size (a
// memcpy per contiguous run), so one loop serves every dtype.
inline void copy_same_dtype(const TensorImpl& src, TensorImpl& dst) {
  Shape ss = byte_strides(src), ds = byte_strides(dst);
  const int64_t* strides[2] = {ds.data(), ss.data()};
  char* bases[2] = {static_cast<char*>(dst.data()), static_cast<char*>(src.data())};
  const int64_t isz = dst.itemsize();
  nd_loop<2>(
      dst.ndim, dst.sizes, strides, bases, [isz](char* const* p, int64_t n, const int64_t* st) {
        if (st[0] == isz && st[1] == isz) {
          std::memcpy(p[0], p[1], size_t(n * isz));
          return;
        }
        auto run = [&](auto tag) {
          using T = decltype(tag);
          char* d = p[0];
          const char* s = p[1];
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<T*>(d + i * st[0]) = *reinterpret_cast<const T*>(s + i * st[1]);
        };
        switch (isz) {
          case 1:
            return run(uint8_t());
          case 2:
            return run(uint16_t());
          case 4:
            return run(uint32_t());
          case 8:
            return run(uint64_t());
          default:  // complex128
            for (int64_t i = 0; i < n; ++i)
              std::memcpy(p[0] + i * st[0], p[1] + i * st[1], size_t(isz));
        }
      });
}

// dst[...] = cast(src[...]); same shape, any strides and dtypes. Does not bump versions. A
// cast goes to the elementwise copy (elementwise_copy.cpp), whose 100 dtype pairs are compiled
// there once, not again in every kernel file that includes this header.
inline void cast_copy(const TensorImpl& src, TensorImpl& dst) {
  if (src.dtype == dst.dtype && !cuda::is_cuda(src) && !cuda::is_cuda(dst))
    return copy_same_dtype(src, dst);
  detail::copy_into(dst, src);
}

// A contiguous tensor holding t (t itself when already contiguous).
inline Ref contiguous(const TensorImpl& t) {
  if (t.contiguous) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  Ref r = make_tensor(t.ndim, t.sizes, t.dtype, t.device());
  cast_copy(t, *r);
  return r;
}

// t cast to dtype (t itself when it already has it), contiguous if `contig`.
inline Ref to_dtype(const TensorImpl& t, sdk_dtype dtype, bool contig) {
  if (t.dtype == dtype && (!contig || t.contiguous)) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  Ref r = make_tensor(t.ndim, t.sizes, dtype, t.device());
  cast_copy(t, *r);
  return r;
}

// Check that `out` can receive a result of this shape and dtype.
inline void check_out(const TensorImpl& o, const Shape& shape, sdk_dtype dtype, const char* op) {
  check_writable(o, op, true);
  SDK_VALUE_CHECK(shape_of(o) == shape, op, ": out has shape ", shape_str(o),
                  " but the result has shape ", vec_str(shape));
  SDK_TYPE_CHECK(can_cast(dtype, o.dtype), op, ": result type ", dname(dtype),
                 " can't be cast to the desired output type ", dname(o.dtype));
}

// Deliver `res` through the out= convention: with `out`, check shape and
// casting, copy into it and bump its version; returns the tensor to hand back.
inline Ref finish_out(Ref res, sdk_tensor* out, const char* op) {
  if (!out) return res;
  TensorImpl& o = *to_impl(out);
  check_writable(o, op, res.get() != &o);
  if (res.get() != &o) {
    check_out(o, shape_of(*res), res->dtype, op);
    cuda::check_same_device(op, {res.get(), &o});
    cast_copy(*res, o);
  }
  o.bump_version();
  return Ref::borrow(out);
}

// Parse the dims argument into a mask over x's dims.
inline std::vector<bool> dims_mask(const TensorImpl& x, int64_t ndims, const int64_t* dims,
                                   const char* op) {
  std::vector<bool> mask(x.ndim, dims == nullptr || ndims == 0);
  if (dims == nullptr || ndims == 0) return mask;
  SDK_VALUE_CHECK(ndims > 0, op, ": ndims must be >= 0, got ", ndims);
  std::vector<bool> seen(std::max<int64_t>(x.ndim, 1), false);
  for (int64_t i = 0; i < ndims; ++i) {
    int64_t d = wrap_dim(dims[i], x.ndim, op);
    SDK_VALUE_CHECK(!seen[d], op, ": dim ", dims[i], " appears multiple times in the list of dims");
    seen[d] = true;
    if (x.ndim > 0) mask[d] = true;
  }
  return mask;
}

// ---------------------------------------------------------------------------
// Contiguous float/double kernels shared by reductions and softmax.
// ---------------------------------------------------------------------------

// Sum of n contiguous values with 16 independent accumulators (vectorises).
template <typename A>
inline A sum_contig16(const A* p, int64_t n) {
  A acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int j = 0; j < 16; ++j) acc[j] += p[i + j];
  }
  for (; i < n; ++i) acc[0] += p[i];
  for (int w = 8; w >= 1; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

#if defined(__SSE2__)
struct SseF {
  using V = __m128;
  static constexpr int W = 4;
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static V max(V a, V b) { return _mm_max_ps(a, b); }
  static V min(V a, V b) { return _mm_min_ps(a, b); }
  static V unord(V a) { return _mm_cmpunord_ps(a, a); }
  static V orv(V a, V b) { return _mm_or_ps(a, b); }
  static int any(V a) { return _mm_movemask_ps(a); }
  static void store(float* p, V a) { _mm_storeu_ps(p, a); }
};
struct SseD {
  using V = __m128d;
  static constexpr int W = 2;
  static V load(const double* p) { return _mm_loadu_pd(p); }
  static V max(V a, V b) { return _mm_max_pd(a, b); }
  static V min(V a, V b) { return _mm_min_pd(a, b); }
  static V unord(V a) { return _mm_cmpunord_pd(a, a); }
  static V orv(V a, V b) { return _mm_or_pd(a, b); }
  static int any(V a) { return _mm_movemask_pd(a); }
  static void store(double* p, V a) { _mm_storeu_pd(p, a); }
};
#endif

#if defined(__x86_64__)
// gcc 12 warns inside its own avx512fintrin.h (the `__Y = __Y` of _mm512_undefined_ps) wherever
// a masked AVX-512 max/min is inlined; the warning is a known false positive, fixed in gcc 13.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// Run-time choice of the loops below (cpu_features.h, SDK_CPU_CAPABILITY caps it).
using sdk::detail::has_avx2;
using sdk::detail::has_avx512;

// Horizontal max/min and NaN masks of the AVX2 and AVX-512 registers.
#define SDK_K2_LANES(NAME, TARGET, A, V, W, ST)                                 \
  template <bool kMin>                                                          \
  TARGET A NAME(V v) {                                                          \
    A lanes[W];                                                                 \
    ST(lanes, v);                                                               \
    A r = lanes[0];                                                             \
    for (int j = 1; j < W; ++j) {                                               \
      r = kMin ? (lanes[j] < r ? lanes[j] : r) : (lanes[j] > r ? lanes[j] : r); \
    }                                                                           \
    return r;                                                                   \
  }
SDK_K2_LANES(lanes_avx2_f, SDK_K2_AVX2, float, __m256, 8, _mm256_storeu_ps)
SDK_K2_LANES(lanes_avx2_d, SDK_K2_AVX2, double, __m256d, 4, _mm256_storeu_pd)
SDK_K2_LANES(lanes_avx512_f, SDK_K2_AVX512, float, __m512, 16, _mm512_storeu_ps)
SDK_K2_LANES(lanes_avx512_d, SDK_K2_AVX512, double, __m512d, 8, _mm512_storeu_pd)
#undef SDK_K2_LANES
SDK_K2_AVX2 inline __m256 unord_avx2(__m256 a, __m256 b) {
  return _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
}
SDK_K2_AVX2 inline __m256d unord_avx2(__m256d a, __m256d b) {
  return _mm256_cmp_pd(a, b, _CMP_UNORD_Q);
}
SDK_K2_AVX2 inline bool any_avx2(__m256 m) { return _mm256_movemask_ps(m) != 0; }
SDK_K2_AVX2 inline bool any_avx2(__m256d m) { return _mm256_movemask_pd(m) != 0; }
SDK_K2_AVX512 inline uint32_t unord_avx512(__m512 a, __m512 b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
}
SDK_K2_AVX512 inline uint32_t unord_avx512(__m512d a, __m512d b) {
  return _mm512_cmp_pd_mask(a, b, _CMP_UNORD_Q);
}
inline bool any_avx512(uint32_t m) { return m != 0; }

// Max (kMin false) or min over a prefix of p, 4 vectors of W per step; sets
// `done` to the count consumed and `nan` when a NaN was seen. Requires
// n >= 4 W. NaNs are caught pairwise: an unordered compare of v0 with v1 is
// true where either is NaN, and the plain max/min below ignore them.
#define SDK_K2_MINMAX(NAME, TARGET, A, V, W, LD, MAXI, MINI, M, UNORD, OR, ANY, LANES)      \
  template <bool kMin>                                                                      \
  TARGET A NAME(const A* p, int64_t n, int64_t& done, bool& nan) {                          \
    V a0 = LD(p), a1 = LD(p + W), a2 = LD(p + 2 * W), a3 = LD(p + 3 * W);                   \
    M nv = OR(UNORD(a0, a1), UNORD(a2, a3));                                                \
    int64_t i = 4 * W;                                                                      \
    for (; i + 4 * W <= n; i += 4 * W) {                                                    \
      V v0 = LD(p + i), v1 = LD(p + i + W), v2 = LD(p + i + 2 * W), v3 = LD(p + i + 3 * W); \
      if (kMin) {                                                                           \
        a0 = MINI(a0, v0), a1 = MINI(a1, v1), a2 = MINI(a2, v2), a3 = MINI(a3, v3);         \
      } else {                                                                              \
        a0 = MAXI(a0, v0), a1 = MAXI(a1, v1), a2 = MAXI(a2, v2), a3 = MAXI(a3, v3);         \
      }                                                                                     \
      nv = OR(nv, OR(UNORD(v0, v1), UNORD(v2, v3)));                                        \
    }                                                                                       \
    done = i;                                                                               \
    nan = ANY(nv);                                                                          \
    return LANES<kMin>(kMin ? MINI(MINI(a0, a1), MINI(a2, a3))                              \
                            : MAXI(MAXI(a0, a1), MAXI(a2, a3)));                            \
  }
#define SDK_K2_OR_MASK(a, b) ((a) | (b))
SDK_K2_MINMAX(minmax_avx2, SDK_K2_AVX2, float, __m256, 8, _mm256_loadu_ps, _mm256_max_ps,
              _mm256_min_ps, __m256, unord_avx2, _mm256_or_ps, any_avx2, lanes_avx2_f)
SDK_K2_MINMAX(minmax_avx2, SDK_K2_AVX2, double, __m256d, 4, _mm256_loadu_pd, _mm256_max_pd,
              _mm256_min_pd, __m256d, unord_avx2, _mm256_or_pd, any_avx2, lanes_avx2_d)
SDK_K2_MINMAX(minmax_avx512, SDK_K2_AVX512, float, __m512, 16, _mm512_loadu_ps, _mm512_max_ps,
              _mm512_min_ps, uint32_t, unord_avx512, SDK_K2_OR_MASK, any_avx512, lanes_avx512_f)
SDK_K2_MINMAX(minmax_avx512, SDK_K2_AVX512, double, __m512d, 8, _mm512_loadu_pd, _mm512_max_pd,
              _mm512_min_pd, uint32_t, unord_avx512, SDK_K2_OR_MASK, any_avx512, lanes_avx512_d)
#undef SDK_K2_OR_MASK
#undef SDK_K2_MINMAX
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

// Max (kMin false) or min of n >= 1 contiguous floats/doubles; NaN if any is
// NaN (the SIMD max ignores NaN, so NaNs are tracked on the side).
template <bool kMin, typename A>
inline A minmax_contig(const A* p, int64_t n) {
  int64_t i = 0;
  A r = p[0];
  bool nan = false;
  auto take = [&](A v) {
    nan = nan || v != v;
    r = kMin ? (v < r ? v : r) : (v > r ? v : r);
  };
#if defined(__x86_64__)
  if (n >= 128 && (has_avx512() || has_avx2())) {
    // Start the vector loop on a cache line (numpy's buffers are 16-byte
    // aligned): a load across two lines costs two.
    int64_t head = int64_t((64 - reinterpret_cast<uintptr_t>(p) % 64) % 64) / int64_t(sizeof(A));
    if (reinterpret_cast<uintptr_t>(p) % sizeof(A) != 0) head = 0;
    for (; i < head; ++i) take(p[i]);
    int64_t done = 0;
    bool body_nan = false;
    take(has_avx512() ? minmax_avx512<kMin>(p + head, n - head, done, body_nan)
                      : minmax_avx2<kMin>(p + head, n - head, done, body_nan));
    nan = nan || body_nan;
    i = head + done;
  }
#endif
#if defined(__SSE2__)
  using S = std::conditional_t<std::is_same_v<A, float>, SseF, SseD>;
  constexpr int W = S::W;
  if (n >= 4 * W && i == 0) {
    typename S::V a0 = S::load(p), a1 = S::load(p + W), a2 = S::load(p + 2 * W),
                  a3 = S::load(p + 3 * W);
    typename S::V nv =
        S::orv(S::orv(S::unord(a0), S::unord(a1)), S::orv(S::unord(a2), S::unord(a3)));
    for (i = 4 * W; i + 4 * W <= n; i += 4 * W) {
      typename S::V v0 = S::load(p + i), v1 = S::load(p + i + W), v2 = S::load(p + i + 2 * W),
                    v3 = S::load(p + i + 3 * W);
      if (kMin) {
        a0 = S::min(a0, v0), a1 = S::min(a1, v1), a2 = S::min(a2, v2), a3 = S::min(a3, v3);
      } else {
        a0 = S::max(a0, v0), a1 = S::max(a1, v1), a2 = S::max(a2, v2), a3 = S::max(a3, v3);
      }
      nv = S::orv(nv,
                  S::orv(S::orv(S::unord(v0), S::unord(v1)), S::orv(S::unord(v2), S::unord(v3))));
    }
    a0 = kMin ? S::min(S::min(a0, a1), S::min(a2, a3)) : S::max(S::max(a0, a1), S::max(a2, a3));
    A lanes[W];
    S::store(lanes, a0);
    r = lanes[0];
    for (int j = 1; j < W; ++j)
      r = kMin ? (lanes[j] < r ? lanes[j] : r) : (lanes[j] > r ? lanes[j] : r);
    nan = S::any(nv) != 0;
  }
#endif
  for (; i < n; ++i) take(p[i]);
  return nan ? A(NAN) : r;
}

}  // namespace sdk::detail::k2
