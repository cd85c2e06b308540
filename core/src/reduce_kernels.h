// core/src/reduce_kernels.h: the loops of reduce.cpp (one TU includes it): the combine ops
// (sum, prod, max, min, all, any), the contiguous block and row reducers with their AVX2 and
// AVX-512 copies, and the mean's finish. reduce.cpp plans the walk and calls them.
#pragma once

#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>

#include "kernel_util.h"
#include "vec_simd.h"

namespace sdk::detail::k2 {
namespace {

template <typename T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

template <typename A>
struct SumOp {
  static constexpr int kMinMax = 0;
  static A init() { return A(0); }
  static A combine(A a, A b) { return wrap_add(a, b); }  // integers wrap, as torch's
};
template <typename A>
struct ProdOp {
  static constexpr int kMinMax = 0;
  static A init() { return A(1); }
  static A combine(A a, A b) { return wrap_mul(a, b); }
};
template <typename A>
struct MaxOp {
  static constexpr int kMinMax = 1;
  static A init() {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    return std::numeric_limits<A>::lowest();
  }
  static A combine(A a, A b) { return (b > a || is_nan(b)) ? b : a; }
};
template <typename A>
struct MinOp {
  static constexpr int kMinMax = -1;
  static A init() {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    return std::numeric_limits<A>::max();
  }
  static A combine(A a, A b) { return (b < a || is_nan(b)) ? b : a; }
};
// The sum of squares: elements enter squared (enter()), partial sums combine as SumOp's.
template <typename A>
struct SumSqOp : SumOp<A> {};
// An element as it enters a reduction (squared for SumSqOp).
template <typename Op, typename A>
inline A enter(A v) {
  if constexpr (std::is_same_v<Op, SumSqOp<A>>) {
    return wrap_mul(v, v);
  } else {
    return v;
  }
}
// The op that combines partial results of Op (rows of partial sums, not elements).
template <typename Op>
struct PartOf {
  using type = Op;
};
template <typename A>
struct PartOf<SumSqOp<A>> {
  using type = SumOp<A>;
};

struct AllOp {
  static constexpr int kMinMax = 0;
  static bool init() { return true; }
  static bool combine(bool a, bool b) { return a && b; }
};
struct AnyOp {
  static constexpr int kMinMax = 0;
  static bool init() { return false; }
  static bool combine(bool a, bool b) { return a || b; }
};
// The float sum of inputs converted to A before the reduction (reduce_cast): it must add in
// the order a loop over the original type did, which does not take sum_block_avx512 (that
// fold only serves inputs already of type A).
template <typename A>
struct SumCastOp : SumOp<A> {};

// Reduce n <= kBlock contiguous elements with 16 independent accumulators
// (vectorisable), combined pairwise at the end; fewer than 16 one by one (from 16 on, not
// 32: one by one, a product over rows of 16 waited on each multiply, 1.25x torch).
constexpr int64_t kBlock = 2048;
template <typename Op, typename A, typename T>
__attribute__((always_inline)) inline A reduce_block(const T* p, int64_t n) {
  constexpr int L = 16;
  if (n < L) {
    A acc = Op::init();
    for (int64_t i = 0; i < n; ++i) acc = Op::combine(acc, enter<Op>(convert<A>(p[i])));
    return acc;
  }
  // Each accumulator starts at init() and takes its first element like the others: copied
  // in, the first elements went to the stack in halves and back as whole vectors, a
  // store-to-load stall per call. (combine(init, x) is x, but for a sum's -0, which gives +0
  // as sum_block_avx2's zeroed accumulators do.)
  A acc[L];
  for (int j = 0; j < L; ++j) acc[j] = Op::init();
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int j = 0; j < L; ++j) acc[j] = Op::combine(acc[j], enter<Op>(convert<A>(p[i + j])));
  }
  for (; i < n; ++i) acc[0] = Op::combine(acc[0], enter<Op>(convert<A>(p[i])));
  // Unrolled whole, so acc stays in registers: as a loop the fold went through the stack,
  // with a store-to-load stall at each step (a product of 64-float rows ran 5x torch).
#pragma GCC unroll 4
  for (int w = L / 2; w >= 1; w /= 2) {
#pragma GCC unroll 8
    for (int j = 0; j < w; ++j) acc[j] = Op::combine(acc[j], acc[j + w]);
  }
  return acc[0];
}

// acc[j] = combine(acc[j], row[j]) for j < m: vectorised across the row.
template <typename Op, typename A, typename T>
__attribute__((always_inline)) inline void combine_row_body(A* __restrict acc,
                                                            const T* __restrict row, int64_t m) {
  for (int64_t j = 0; j < m; ++j) acc[j] = Op::combine(acc[j], enter<Op>(convert<A>(row[j])));
}

// The same for four rows at once: a quarter of the accumulator loads and stores.
template <typename Op, typename A, typename T>
__attribute__((always_inline)) inline void combine_rows4_body(A* __restrict acc,
                                                              const T* __restrict r0,
                                                              const T* __restrict r1,
                                                              const T* __restrict r2,
                                                              const T* __restrict r3, int64_t m) {
  for (int64_t j = 0; j < m; ++j) {
    A a = Op::combine(enter<Op>(convert<A>(r0[j])), enter<Op>(convert<A>(r1[j])));
    A b = Op::combine(enter<Op>(convert<A>(r2[j])), enter<Op>(convert<A>(r3[j])));
    acc[j] = Op::combine(acc[j], Op::combine(a, b));
  }
}

// Baseline and AVX2 copies of the two leaf loops, picked at run time.
template <typename Op, typename A, typename T>
A reduce_block_base(const T* p, int64_t n) {
  return reduce_block<Op, A>(p, n);
}
template <typename Op, typename A, typename T>
void combine_row_base(A* __restrict acc, const T* __restrict row, int64_t m) {
  combine_row_body<Op>(acc, row, m);
}
template <typename Op, typename A, typename T>
void combine_rows4_base(A* acc, const T* const* rows, int64_t m) {
  combine_rows4_body<Op>(acc, rows[0], rows[1], rows[2], rows[3], m);
}
#if defined(__x86_64__)
template <typename Op, typename A, typename T>
SDK_K2_AVX2 A reduce_block_avx2(const T* p, int64_t n) {
  return reduce_block<Op, A>(p, n);
}
template <typename Op, typename A, typename T>
SDK_K2_AVX2 void combine_row_avx2(A* __restrict acc, const T* __restrict row, int64_t m) {
  combine_row_body<Op>(acc, row, m);
}
template <typename Op, typename A, typename T>
SDK_K2_AVX2 void combine_rows4_avx2(A* acc, const T* const* rows, int64_t m) {
  combine_rows4_body<Op>(acc, rows[0], rows[1], rows[2], rows[3], m);
}
#endif

#if defined(__x86_64__)
// float/double sums of up to kBlock elements in AVX-512, reading whole 64-byte lines: a load
// that straddles two lines costs two, which slows sums of L2-sized arrays that do not start on
// a line by half. The result does not depend on the address: element i is added into partial
// sum (i mod 4W) (W lanes of four accumulators, four for the adds' latency) in increasing i
// from +0, then the 4W partials are folded in a fixed order. Loading from the line start
// p - o puts element i into slot (i + o) mod 4W instead, the same partials rotated by o, and
// the fold rotates them back first. The lanes before p and past p + n are masked off (a masked
// lane is not read, so no fault); they add +0, which changes no partial (none is ever -0).
#if defined(__GNUC__) && !defined(__clang__)  // gcc 12's false positive, as in kernel_util.h
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <typename A>
struct Zmm;
template <>
struct Zmm<float> {
  using V = __m512;
  using M = __mmask16;
  static constexpr int W = 16;
  SDK_K2_AVX512 static V zero() { return _mm512_setzero_ps(); }
  SDK_K2_AVX512 static V load(const float* p) { return _mm512_loadu_ps(p); }
  SDK_K2_AVX512 static V load_mask(const float* p, M k) { return _mm512_maskz_loadu_ps(k, p); }
  SDK_K2_AVX512 static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // Lanes o .. o + W - 1 of the concatenation (a, b), 0 <= o < W.
  SDK_K2_AVX512 static V shift(V a, V b, int64_t o) {
    const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    return _mm512_permutex2var_ps(a, _mm512_add_epi32(iota, _mm512_set1_epi32(int(o))), b);
  }
  SDK_K2_AVX512 static float total(V a) { return _mm512_reduce_add_ps(a); }
};
template <>
struct Zmm<double> {
  using V = __m512d;
  using M = __mmask8;
  static constexpr int W = 8;
  SDK_K2_AVX512 static V zero() { return _mm512_setzero_pd(); }
  SDK_K2_AVX512 static V load(const double* p) { return _mm512_loadu_pd(p); }
  SDK_K2_AVX512 static V load_mask(const double* p, M k) { return _mm512_maskz_loadu_pd(k, p); }
  SDK_K2_AVX512 static V add(V a, V b) { return _mm512_add_pd(a, b); }
  SDK_K2_AVX512 static V shift(V a, V b, int64_t o) {
    const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    return _mm512_permutex2var_pd(a, _mm512_add_epi64(iota, _mm512_set1_epi64(o)), b);
  }
  SDK_K2_AVX512 static double total(V a) { return _mm512_reduce_add_pd(a); }
};

// The lanes l of the vector at line-relative element v with lo <= v + l < hi.
template <typename A>
SDK_K2_AVX512 inline typename Zmm<A>::M lanes_in(int64_t v, int64_t lo, int64_t hi) {
  constexpr int W = Zmm<A>::W;
  const int64_t a = std::min<int64_t>(W, std::max<int64_t>(0, lo - v));
  const int64_t b = std::min<int64_t>(W, std::max<int64_t>(0, hi - v));
  return static_cast<typename Zmm<A>::M>(((1u << b) - 1u) & ~((1u << a) - 1u));
}

// a[j] += the in-range lanes of the vector at line-relative element v + jW, j < 4.
template <typename A>
SDK_K2_AVX512 inline void add_group_masked(typename Zmm<A>::V* a, const A* q, int64_t v, int64_t lo,
                                           int64_t hi) {
  using Z = Zmm<A>;
  for (int j = 0; j < 4; ++j) {
    a[j] = Z::add(a[j], Z::load_mask(q + v + j * Z::W, lanes_in<A>(v + j * Z::W, lo, hi)));
  }
}

template <typename A>
SDK_K2_AVX512 A sum_block_avx512(const A* p, int64_t n) {
  using Z = Zmm<A>;
  using V = typename Z::V;
  constexpr int W = Z::W;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  // o: elements between the line start and p (0 when p is not even element-aligned).
  const int64_t o = addr % sizeof(A) ? 0 : int64_t(addr % 64 / sizeof(A));
  // Only read through masks that exclude [q, p) (an integer step back, not pointer arithmetic
  // outside the array).
  const A* q = reinterpret_cast<const A*>(addr - uintptr_t(o) * sizeof(A));
  const int64_t end = n + o;
  V a[4] = {Z::zero(), Z::zero(), Z::zero(), Z::zero()};
  int64_t v = 0;
  if (end >= 4 * W) {  // a whole first group: only its first vector starts before p
    a[0] = Z::add(a[0], Z::load_mask(q, static_cast<typename Z::M>(~0u << o)));
    a[1] = Z::add(a[1], Z::load(q + W));
    a[2] = Z::add(a[2], Z::load(q + 2 * W));
    a[3] = Z::add(a[3], Z::load(q + 3 * W));
    for (v = 4 * W; v + 4 * W <= end; v += 4 * W) {
      a[0] = Z::add(a[0], Z::load(q + v));
      a[1] = Z::add(a[1], Z::load(q + v + W));
      a[2] = Z::add(a[2], Z::load(q + v + 2 * W));
      a[3] = Z::add(a[3], Z::load(q + v + 3 * W));
    }
  }
  if (v < end) add_group_masked<A>(a, q, v, o, end);
  if (o == 0) return Z::total(Z::add(Z::add(a[0], a[1]), Z::add(a[2], a[3])));
  // Rotate back: partial jW + l sits in lane (l + o) mod W of a[j] or, past the lane count,
  // of a[j + 1] (o < W: a line is one vector). In registers: a memory round trip would read
  // each vector from two stores, which the store buffer cannot forward.
  const V c0 = Z::shift(a[0], a[1], o), c1 = Z::shift(a[1], a[2], o);
  const V c2 = Z::shift(a[2], a[3], o), c3 = Z::shift(a[3], a[0], o);
  return Z::total(Z::add(Z::add(c0, c1), Z::add(c2, c3)));
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The same fold in AVX2 (W lanes of four accumulators, whole 64-byte lines, the result
// independent of the address): numpy's buffers start 16 bytes into a line, and the unaligned
// loads of reduce_block_avx2 (two accumulators) ran a row sum at 0.6-0.9x this speed. A line
// holds two vectors here, so the first group's four vectors all take masks (o can exceed W).
// No rotation back: the fold below gives the same value wherever the loads started.
template <typename A>
struct Ymm;
template <>
struct Ymm<float> {
  using V = __m256;
  static constexpr int W = 8;
  SDK_K2_AVX2 static V zero() { return _mm256_setzero_ps(); }
  SDK_K2_AVX2 static V load(const float* p) { return _mm256_load_ps(p); }
  SDK_K2_AVX2 static V load_mask(const float* p, __m256i k) { return _mm256_maskload_ps(p, k); }
  // The whole vector at p, lanes outside k zeroed: see add_group_masked_avx2.
  SDK_K2_AVX2 SDK_K2_NO_ASAN static V load_and(const float* p, __m256i k) {
    return _mm256_and_ps(_mm256_load_ps(p), _mm256_castsi256_ps(k));
  }
  SDK_K2_AVX2 static V add(V a, V b) { return _mm256_add_ps(a, b); }
  // Slot s plus slot s + L/2 on cycles of L = 8, 4 and 2 slots.
  SDK_K2_AVX2 static float halves(V v) { return vs::hsum256(v); }
  // halves() of v[0..7] at once, into out[0..7]: the same sums of the same pairs, with eight
  // rows in the lanes.
  SDK_K2_AVX2 static void halves_rows(const V* v, float* out) {
    _mm256_storeu_ps(out, vs::fold_rows8<false>(v));
  }
  // The lanes l with lo <= v + l < hi, as maskload's mask (element indices fit 32 bits: the
  // caller's n is at most kBlock).
  SDK_K2_AVX2 static __m256i lanes_in(int64_t v, int64_t lo, int64_t hi) {
    const __m256i idx =
        _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int(v)));
    return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(int(lo)), idx),
                               _mm256_cmpgt_epi32(_mm256_set1_epi32(int(hi)), idx));
  }
};
template <>
struct Ymm<double> {
  using V = __m256d;
  static constexpr int W = 4;
  SDK_K2_AVX2 static V zero() { return _mm256_setzero_pd(); }
  SDK_K2_AVX2 static V load(const double* p) { return _mm256_load_pd(p); }
  SDK_K2_AVX2 static V load_mask(const double* p, __m256i k) { return _mm256_maskload_pd(p, k); }
  // The whole vector at p, lanes outside k zeroed: see add_group_masked_avx2.
  SDK_K2_AVX2 SDK_K2_NO_ASAN static V load_and(const double* p, __m256i k) {
    return _mm256_and_pd(_mm256_load_pd(p), _mm256_castsi256_pd(k));
  }
  SDK_K2_AVX2 static V add(V a, V b) { return _mm256_add_pd(a, b); }
  SDK_K2_AVX2 static double halves(V v) {
    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  }
  SDK_K2_AVX2 static void halves_rows(const V* v, double* out) {  // four rows, as float's
    const V h01 = _mm256_add_pd(_mm256_permute2f128_pd(v[0], v[1], 0x20),
                                _mm256_permute2f128_pd(v[0], v[1], 0x31));
    const V h23 = _mm256_add_pd(_mm256_permute2f128_pd(v[2], v[3], 0x20),
                                _mm256_permute2f128_pd(v[2], v[3], 0x31));
    // lane 0 + lane 1 of each row: rows 0, 2 | 1, 3
    const V e = _mm256_add_pd(_mm256_unpacklo_pd(h01, h23), _mm256_unpackhi_pd(h01, h23));
    _mm256_storeu_pd(out, _mm256_permute4x64_pd(e, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  SDK_K2_AVX2 static __m256i lanes_in(int64_t v, int64_t lo, int64_t hi) {
    const __m256i idx = _mm256_add_epi64(_mm256_setr_epi64x(0, 1, 2, 3), _mm256_set1_epi64x(v));
    return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(lo), idx),
                               _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), idx));
  }
};

// The lanes in [lo, hi) of the group of 4 vectors at line-relative element v: masks, and which
// vectors hold any (the others are not read).
template <typename A>
struct GroupMask {
  __m256i k[4];
  bool read[4];
  SDK_K2_AVX2 void set(int64_t v, int64_t lo, int64_t hi) {
    for (int j = 0; j < 4; ++j) {
      const int64_t u = v + j * Ymm<A>::W;
      k[j] = Ymm<A>::lanes_in(u, lo, hi);
      read[j] = u < hi && u + Ymm<A>::W > lo;
    }
  }
};

// How sum_lanes_avx2 walks n elements that start o elements into a 64-byte line: a masked
// first group when it starts before them, whole groups, a masked last group. Rows whose
// stride is a multiple of 64 bytes share one plan: on rows of 16 floats, working out the
// masks per row cost more than the row.
template <typename A>
struct LinePlan {
  static constexpr int64_t G = 4 * Ymm<A>::W;  // a group: four vectors, whole lines
  int64_t o = 0, body = 0, body_end = 0;       // whole groups in [body, body_end)
  bool head = false, tail = false;
  GroupMask<A> first, last;
  LinePlan() = default;
  SDK_K2_AVX2 LinePlan(int64_t o_, int64_t n) : o(o_) {
    const int64_t end = n + o;
    if (o != 0 && end >= G) {  // the first group, which starts before the row
      head = true;
      first.set(0, o, end);
      body = G;
    }
    body_end = body + (end - body) / G * G;
    if (body_end < end) {
      tail = true;
      last.set(body_end, o, end);
    }
  }
};

// a[j] += the lanes of group m's masks in the vector at q + v + jW (+0 in the others, as a
// maskload gives). On a line-aligned q this is a plain aligned load, masked after: AMD's
// maskload waits on memory instead of overlapping it, which ran a sum of 64-float rows 6x
// slower and stalled every 2048-element block at its edges. A vector with a lane in the row
// lies in a 64-byte line that holds an element of the tensor, so its read cannot fault; a
// vector with none is not read. It does read bytes outside the tensor, hence no sanitizer
// checks in load_and. A misaligned q (floats off a 4-byte boundary) keeps maskload.
template <typename A>
SDK_K2_AVX2 inline void add_group_masked_avx2(typename Ymm<A>::V* a, const A* q, int64_t v,
                                              const GroupMask<A>& m, bool aligned) {
  using Y = Ymm<A>;
  for (int j = 0; j < 4; ++j) {
    const A* p = q + v + j * Y::W;
    typename Y::V x = Y::zero();
    if (!aligned) {
      x = Y::load_mask(p, m.k[j]);
    } else if (m.read[j]) {
      x = Y::load_and(p, m.k[j]);
    }
    a[j] = Y::add(a[j], x);
  }
}

// a[j] += the aligned vectors at q + v + jW, group by group for v in [v, v_end); returns v_end.
template <typename A>
SDK_K2_AVX2 inline int64_t add_groups_aligned(typename Ymm<A>::V* a, const A* q, int64_t v,
                                              int64_t v_end) {
  using Y = Ymm<A>;
  constexpr int W = Y::W;
  for (; v < v_end; v += 4 * W) {
    a[0] = Y::add(a[0], Y::load(q + v));
    a[1] = Y::add(a[1], Y::load(q + v + W));
    a[2] = Y::add(a[2], Y::load(q + v + 2 * W));
    a[3] = Y::add(a[3], Y::load(q + v + 3 * W));
  }
  return v_end;
}

// sum_block_avx2 before its last fold (W lanes, each the sum of its slots), of the row at q + o
// walked by `plan`; q is the start of the row's first line (the row's floats 4-byte aligned).
template <typename A>
SDK_K2_AVX2 inline typename Ymm<A>::V sum_lanes_planned(const A* q, const LinePlan<A>& plan) {
  using Y = Ymm<A>;
  using V = typename Y::V;
  V a[4] = {Y::zero(), Y::zero(), Y::zero(), Y::zero()};
  if (plan.head) add_group_masked_avx2<A>(a, q, 0, plan.first, true);
  add_groups_aligned<A>(a, q, plan.body, plan.body_end);
  if (plan.tail) add_group_masked_avx2<A>(a, q, plan.body_end, plan.last, true);
  // Partial k (the elements i = k mod 4W) sits in slot (k + o) mod 4W. Each step of the fold
  // adds slot s to slot s + L/2 of a cycle of L slots, which pairs partial k with k + L/2
  // whatever o is: a rotation of the cycle changes where a pair's sum lands, not its value.
  return Y::add(Y::add(a[0], a[2]), Y::add(a[1], a[3]));
}

// The line offset (in elements) of p: whole 64-byte lines from p - o, unless p is misaligned.
template <typename A>
inline int64_t line_offset(const A* p) {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  return addr % sizeof(A) ? 0 : int64_t(addr % 64 / sizeof(A));
}

// sum_block_avx2 before its last fold: W lanes, each the sum of its slots. The walk of
// sum_lanes_planned with the masks made as it goes: a LinePlan built per 2048-element block
// (both edge groups' masks, through memory) made whole-tensor sums about 12% slower.
template <typename A>
SDK_K2_AVX2 inline typename Ymm<A>::V sum_lanes_avx2(const A* p, int64_t n) {
  using Y = Ymm<A>;
  using V = typename Y::V;
  constexpr int W = Y::W;
  const int64_t o = line_offset(p);
  const A* q = p - o;
  const int64_t end = n + o;
  V a[4] = {Y::zero(), Y::zero(), Y::zero(), Y::zero()};
  int64_t v = 0;
  const bool aligned = reinterpret_cast<uintptr_t>(p) % sizeof(A) == 0;
  GroupMask<A> m;
  if (o != 0 && end >= 4 * W) {
    m.set(0, o, end);
    add_group_masked_avx2<A>(a, q, 0, m, aligned);
    v = 4 * W;
  }
  if (aligned) v = add_groups_aligned<A>(a, q, v, v + (end - v) / (4 * W) * (4 * W));
  for (; v < end; v += 4 * W) {
    m.set(v, o, end);
    add_group_masked_avx2<A>(a, q, v, m, aligned);
  }
  return Y::add(Y::add(a[0], a[2]), Y::add(a[1], a[3]));
}
template <typename A>
SDK_K2_AVX2 A sum_block_avx2(const A* p, int64_t n) {
  return Ymm<A>::halves(sum_lanes_avx2<A>(p, n));
}
#endif

template <typename Op, typename A, typename T>
inline void combine_row(A* __restrict acc, const T* __restrict row, int64_t m) {
#if defined(__x86_64__)
  if (has_avx2()) return combine_row_avx2<Op>(acc, row, m);
#endif
  combine_row_base<Op>(acc, row, m);
}

template <typename Op, typename A, typename T>
inline void combine_rows4(A* acc, const T* const* rows, int64_t m) {
#if defined(__x86_64__)
  if (has_avx2()) return combine_rows4_avx2<Op>(acc, rows, m);
#endif
  combine_rows4_base<Op>(acc, rows, m);
}

// The reductions of floats into their own type with kernels of their own in reduce_contig:
// max/min (NaN-aware) and sums; every other block goes through reduce_block.
template <typename Op, typename A, typename T>
constexpr bool kFloatExtremum =
    Op::kMinMax != 0 && std::is_same_v<A, T> && std::is_floating_point_v<A>;
template <typename Op, typename A, typename T>
constexpr bool kFloatSum =
    std::is_same_v<Op, SumOp<A>> && std::is_same_v<A, T> && std::is_floating_point_v<A>;

// Reduce n contiguous elements: blocks of kBlock, halves combined pairwise
// above that, which keeps float32 sums accurate (error grows with log n, as
// in a pairwise sum). Float max/min use the NaN-aware SIMD kernel.
template <typename Op, typename A, typename T>
A reduce_contig(const T* p, int64_t n) {
  if constexpr (kFloatExtremum<Op, A, T>) {
    if (n == 0) return Op::init();
#if defined(__x86_64__)
    // float rows: a masked tail instead of minmax_contig's scalar remainder (up to 63 elements).
    if constexpr (std::is_same_v<A, float>) {
      if (has_avx512()) return vs::extremum_avx512<(Op::kMinMax < 0)>(p, n);
    }
#endif
    return minmax_contig<(Op::kMinMax < 0)>(p, n);
  }
  if (n > kBlock) {
    // Left half first (a call's arguments may be evaluated right to left): reading the
    // blocks backwards defeats the prefetchers, 1.3x slower from DRAM.
    const int64_t h = (n / 2) & ~int64_t(15);
    const A lo = reduce_contig<Op, A>(p, h);
    return Op::combine(lo, reduce_contig<Op, A>(p + h, n - h));
  }
#if defined(__x86_64__)
  if constexpr (kFloatSum<Op, A, T>) {
    if (has_avx512()) return sum_block_avx512<A>(p, n);
    if (has_avx2()) return sum_block_avx2<A>(p, n);
  }
  if (has_avx2()) return reduce_block_avx2<Op, A>(p, n);
#endif
  return reduce_block_base<Op, A>(p, n);
}

template <typename A>
inline A finish(A v, bool mean, int64_t count) {
  if constexpr (std::is_floating_point_v<A>) {
    if (mean) return v / static_cast<A>(count);
  }
  return v;
}

#if defined(__x86_64__)
// sum_rows_avx2's batches of W rows, row i walked by plan_of(i); returns the rows done.
template <typename A, typename PlanOf>
SDK_K2_AVX2 inline int64_t sum_rows_planned(const A* p, int64_t rs, int64_t rows, A* out,
                                            int64_t os, bool mean, int64_t count, PlanOf plan_of) {
  using Y = Ymm<A>;
  int64_t r = 0;
  for (; r + Y::W <= rows; r += Y::W) {
    typename Y::V v[Y::W];
    A sums[Y::W];
    for (int k = 0; k < Y::W; ++k) {
      const LinePlan<A>& plan = plan_of(r + k);
      v[k] = sum_lanes_planned<A>(p + (r + k) * rs - plan.o, plan);
    }
    Y::halves_rows(v, sums);
    for (int k = 0; k < Y::W; ++k) out[(r + k) * os] = finish(sums[k], mean, count);
  }
  return r;
}

// sum_block_avx2 of each row, W rows folded together: a row of 64 floats has fewer elements
// than the fold's latency in cycles.
template <typename A>
SDK_K2_AVX2 void sum_rows_avx2(const A* p, int64_t rs, int64_t n, int64_t rows, A* out, int64_t os,
                               bool mean, int64_t count) {
  int64_t r = 0;
  // Row i starts at line offset (i mod P)'s: P plans serve them all, P = 1 when the stride
  // is whole lines (the plan then stays in registers), at most 64 / sizeof(A), a power of 2.
  const int64_t P = 64 / std::gcd<int64_t>(rs * int64_t(sizeof(A)) % 64, 64);
  if (reinterpret_cast<uintptr_t>(p) % sizeof(A) == 0 && rows >= 2 * P) {
    if (P == 1) {
      const LinePlan<A> plan(line_offset(p), n);
      r = sum_rows_planned<A>(p, rs, rows, out, os, mean, count,
                              [&](int64_t) -> const auto& { return plan; });
    } else {
      LinePlan<A> plans[64 / sizeof(A)];
      for (int64_t i = 0; i < P; ++i) plans[i] = LinePlan<A>(line_offset(p + i * rs), n);
      r = sum_rows_planned<A>(p, rs, rows, out, os, mean, count,
                              [&](int64_t i) -> const auto& { return plans[i & (P - 1)]; });
    }
  }
  // the rest, and every row of a misaligned p or of fewer than 2P rows: one at a time
  for (; r < rows; ++r) out[r * os] = finish(sum_block_avx2<A>(p + r * rs, n), mean, count);
}
#endif

#if defined(__x86_64__)
// reduce_rows's loop for rows that reduce_contig takes through reduce_block_avx2 (n <= kBlock,
// neither a float sum nor a float extremum): the same block, inlined, without the call and
// dispatch per row (a product over rows of 64 ran 1.15-1.6x torch through them).
template <typename Op, typename A, typename T>
SDK_K2_AVX2 void reduce_rows_avx2(const T* p, int64_t rs, int64_t n, int64_t rows, A* out,
                                  int64_t os, bool mean, int64_t count) {
  for (int64_t r = 0; r < rows; ++r) {
    out[r * os] = finish(reduce_block<Op, A>(p + r * rs, n), mean, count);
  }
}
#endif

// out[r * os] = the reduction of row r, the n contiguous elements at p + r * rs, for r < rows:
// reduce_contig's value, in one loop. On short rows the call and dispatch per row cost more
// than the row (a 1M x 64 float sum over its rows ran 1.3x torch).
template <typename Op, typename A, typename T>
void reduce_rows(const T* p, int64_t rs, int64_t n, int64_t rows, A* out, int64_t os, bool mean,
                 int64_t count) {
#if defined(__x86_64__)
  if constexpr (kFloatSum<Op, A, T>) {
    if (n <= kBlock && !has_avx512() && has_avx2()) {
      return sum_rows_avx2<A>(p, rs, n, rows, out, os, mean, count);
    }
  }
  if constexpr (!kFloatExtremum<Op, A, T> && !kFloatSum<Op, A, T>) {
    if (n <= kBlock && has_avx2())
      return reduce_rows_avx2<Op, A>(p, rs, n, rows, out, os, mean, count);
  }
#endif
  for (int64_t r = 0; r < rows; ++r)
    out[r * os] = finish(reduce_contig<Op, A>(p + r * rs, n), mean, count);
}

}  // namespace
}  // namespace sdk::detail::k2
