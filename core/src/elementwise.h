// core/src/elementwise.h: shared pieces of the elementwise ops: casts, `out` handling, loops.
#pragma once

#include <cstring>
#include <type_traits>

#include "dtype.h"
#include "tensor_iter.h"
#include "vec_math.h"

// Hot contiguous loops are compiled for AVX2 and AVX-512 besides the baseline;
// the loader picks one at run time (ifunc), so one binary runs on any x86-64.
// The AVX2 copy targets x86-64-v3 (AVX2 with FMA, every AVX2 CPU since 2013) where gcc can
// dispatch on it (gcc 12): a plain "avx2" copy has no fused multiply-add, and the polynomials
// of vec_math.h took 1.3x as long without it (exact GELU 1.66 -> 2.27 ms per 1M on Zen). A CPU
// that reports AVX2 without the rest of x86-64-v3 (no shipped one does; a hypervisor's custom
// model might) gets the baseline copy of these loops; vec_simd.h's AVX2 loops still run there.
#if defined(SDK_MULTIVERSION)
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define SDK_MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "avx512f", "default")))
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SDK_MULTIVERSION __attribute__((target_clones("avx2", "avx512f", "default")))
#else
#define SDK_MULTIVERSION
#endif

namespace sdk::detail {

template <typename T>
constexpr bool kIsHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// Element types whose contiguous loops get the multiversioned instantiations.
template <typename T>
constexpr bool kVectorize = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                            std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

// Value conversion between element types (bool is "!= 0"; halves go through float).
template <typename To, typename From>
SDK_INLINE To cast_to(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kIsHalfLike<From>) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != From(0);
    }
  } else if constexpr (kIsHalfLike<To>) {
    if constexpr (kIsHalfLike<From>) {
      return To(static_cast<float>(v));
    } else {
      return To(static_cast<float>(v));
    }
  } else if constexpr (kIsHalfLike<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// torch's casting rule for out=: no float -> integer, no non-bool -> bool.
inline bool can_cast(sdk_dtype from, sdk_dtype to) {
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (is_complex(from) && !is_complex(to)) return false;
  if (from != SDK_BOOL && to == SDK_BOOL) return false;
  return true;
}

inline bool shares_storage(const TensorImpl& a, const TensorImpl& b) {
  return a.storage == b.storage;
}
// Same elements in the same order: in-place elementwise use is then safe.
inline bool same_view(const TensorImpl& a, const TensorImpl& b) {
  if (a.storage != b.storage || a.offset != b.offset || a.dtype != b.dtype || a.ndim != b.ndim) {
    return false;
  }
  for (int64_t d = 0; d < a.ndim; ++d) {
    if (a.sizes[d] != b.sizes[d]) return false;
    if (a.sizes[d] > 1 && a.strides[d] != b.strides[d]) return false;
  }
  return true;
}
// ValueError when several elements of t share memory (an expanded tensor).
void check_no_internal_overlap(const TensorImpl& t, const char* op);

// Copy src (broadcast to dst's shape) into dst, casting; does not bump versions.
void copy_into(TensorImpl& dst, const TensorImpl& src);
// Fresh contiguous copy of t (same dtype when dtype < 0).
Ref contiguous_copy(const TensorImpl& t, sdk_dtype dtype = -1);
// t itself if it already has `dtype`, else a cast copy.
Ref cast_if_needed(const TensorImpl& t, sdk_dtype dtype);

// Where an op writes: the user's `out`, or a fresh tensor. When out's dtype
// differs from the computed dtype, the op computes into `target` and
// finish() casts into out. Inputs that overlap out without being the very
// same view are copied first (fix_alias), so in place with a broadcast
// alias reads the old values.
struct OutPlan {
  Ref target;  // the kernel's output
  Ref user;    // out as given (may be null)
  bool cast_back = false;

  void prepare(const char* op, sdk_tensor* out, int64_t nd, const int64_t* sz, sdk_dtype dtype,
               std::initializer_list<const TensorImpl*> layout_inputs);
  // Replace `in` by a copy when it overlaps the user's out differently.
  void fix_alias(Ref& in) const;
  const TensorImpl* fix_alias(const TensorImpl* in, Ref& holder) const;
  // Cast back into out if needed, bump its version, hand out the result.
  void finish(sdk_tensor** result);
};

// ----- loops ---------------------------------------------------------------

template <typename To, typename Ti, typename F>
SDK_MULTIVERSION void mv_unary(To* o, const Ti* a, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
}
template <typename To, typename Ti, typename F>
SDK_MULTIVERSION void mv_binary_vv(To* o, const Ti* a, const Ti* b, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}
template <typename To, typename Ti, typename F>
SDK_MULTIVERSION void mv_binary_vs(To* o, const Ti* a, Ti b, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b);
}
template <typename To, typename Ti, typename F>
SDK_MULTIVERSION void mv_binary_sv(To* o, Ti a, const Ti* b, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a, b[i]);
}

// A strided run of n elements (out at o, input at a, byte strides s[0] and s[1]) through
// block(in, out, k) on contiguous copies of up to 256 elements: the run computes, and rounds,
// exactly as a contiguous one would.
template <typename To, typename Ti, typename B>
SDK_INLINE void run_in_chunks(char* o, const char* a, const int64_t* s, int64_t n, const B& block) {
  Ti in[256];
  To out[256];
  for (int64_t i = 0; i < n; i += 256) {
    const int64_t k = n - i < 256 ? n - i : 256;
    for (int64_t j = 0; j < k; ++j) std::memcpy(&in[j], a + (i + j) * s[1], sizeof(Ti));
    block(static_cast<const Ti*>(in), static_cast<To*>(out), k);
    for (int64_t j = 0; j < k; ++j) std::memcpy(o + (i + j) * s[0], &out[j], sizeof(To));
  }
}

// Inner loop of a unary op To <- f(Ti): contiguous runs take the multiversioned path (unless
// kMulti is false: see Launch::unary_libm); so do strided ones when kChunked (Launch::unary).
template <typename To, typename Ti, bool kMulti = kVectorize<Ti>, bool kChunked = false, typename F>
SDK_INLINE void unary_loop(char** p, const int64_t* s, int64_t n, const F& f) {
  if (s[0] == sizeof(To) && s[1] == sizeof(Ti)) {
    if constexpr (kMulti) {
      mv_unary(reinterpret_cast<To*>(p[0]), reinterpret_cast<const Ti*>(p[1]), n, f);
    } else {
      To* o = reinterpret_cast<To*>(p[0]);
      const Ti* a = reinterpret_cast<const Ti*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    }
    return;
  }
  char* o = p[0];
  const char* a = p[1];
  if constexpr (kMulti && kChunked) {
    // Strided runs through the same multiversioned loop: its FMA-contracted polynomials round
    // differently from a baseline loop's, and a value's result must not depend on the layout
    // it came in (a transpose gives the transpose of the result).
    return run_in_chunks<To, Ti>(
        o, a, s, n, [&f](const Ti* in, To* out, int64_t k) { mv_unary(out, in, k, f); });
  }
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) {
    *reinterpret_cast<To*>(o) = f(*reinterpret_cast<const Ti*>(a));
  }
}

// Inner loop of a binary op To <- f(Ti, Ti), with stride-0 (scalar) fast paths (multiversioned
// unless kMulti is false: see Launch::unary_libm).
template <typename To, typename Ti, bool kMulti = kVectorize<Ti>, typename F>
SDK_INLINE void binary_loop(char** p, const int64_t* s, int64_t n, const F& f) {
  To* o = reinterpret_cast<To*>(p[0]);
  const Ti* a = reinterpret_cast<const Ti*>(p[1]);
  const Ti* b = reinterpret_cast<const Ti*>(p[2]);
  if (s[0] == sizeof(To)) {
    if (s[1] == sizeof(Ti) && s[2] == sizeof(Ti)) {
      if constexpr (kMulti) {
        mv_binary_vv(o, a, b, n, f);
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
      }
      return;
    }
    if (s[1] == sizeof(Ti) && s[2] == 0) {
      if constexpr (kMulti) {
        mv_binary_vs(o, a, *b, n, f);
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], *b);
      }
      return;
    }
    if (s[1] == 0 && s[2] == sizeof(Ti)) {
      if constexpr (kMulti) {
        mv_binary_sv(o, *a, b, n, f);
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = f(*a, b[i]);
      }
      return;
    }
  }
  char* po = p[0];
  const char* pa = p[1];
  const char* pb = p[2];
  for (int64_t i = 0; i < n; ++i, po += s[0], pa += s[1], pb += s[2]) {
    *reinterpret_cast<To*>(po) =
        f(*reinterpret_cast<const Ti*>(pa), *reinterpret_cast<const Ti*>(pb));
  }
}

// Run a contiguous same-shape unary/binary op directly (no iterator set-up):
// the hot path for small tensors; splits across threads when large.
template <typename Loop>
SDK_INLINE void run_flat(int nops, char** data, const int64_t* isz, int64_t n, const Loop& loop) {
  if (n < 2 * kParallelGrain) {
    loop(data, isz, n);
    return;
  }
  parallel_for(0, n, kParallelGrain, [&](int64_t b, int64_t e) {
    char* p[kIterMaxOps];
    for (int k = 0; k < nops; ++k) p[k] = data[k] + b * isz[k];
    loop(p, isz, e - b);
  });
}

// A loop over one inner run reached through a pointer, and the iterator walk that calls it:
// compiled once in each file, not once (or twice, with threads) per op and dtype.
using LoopFn = void (*)(const void* ctx, char** p, const int64_t* s, int64_t n);
SDK_COMPILED_ONCE inline void for_each_fn(const TensorIter& it, LoopFn fn, const void* ctx,
                                          int64_t grain) {
  it.for_each([fn, ctx](char** p, const int64_t* s, int64_t m) { fn(ctx, p, s, m); }, grain);
}
template <typename Loop>
LoopFn loop_fn() {
  return [](const void* ctx, char** p, const int64_t* s, int64_t m) {
    (*static_cast<const Loop*>(ctx))(p, s, m);
  };
}
// it.for_each(loop, grain) with the walk compiled once.
template <typename Loop>
void for_each_erased(const TensorIter& it, const Loop& loop, int64_t grain = kParallelGrain) {
  for_each_fn(it, loop_fn<Loop>(), &loop, grain);
}

// How a kernel reaches its operands: a flat contiguous run (hot path, no
// iterator set-up) or a TensorIter over arbitrary strides.
struct Launch {
  bool flat = false;
  int nops = 0;
  char* data[kIterMaxOps];
  int64_t isz[kIterMaxOps];
  int64_t n = 0;
  TensorIter* it = nullptr;

  // The loop is compiled once, as the body of a function reached through a pointer; the
  // drivers (flat split, iterator walk, threads) are compiled once for every loop. Inlined
  // into each driver, every op's loop was compiled up to six times: most of the core's
  // compile time (benchmarks/results/MEASUREMENTS.md, "First build of the core").
  template <typename Loop>
  void run(const Loop& loop) const {
    run_erased(loop_fn<Loop>(), &loop);
  }
  SDK_COMPILED_ONCE void run_erased(LoopFn fn, const void* ctx) const {
    if (!flat) return for_each_fn(*it, fn, ctx, kParallelGrain);
    auto loop = [fn, ctx](char** p, const int64_t* s, int64_t m) { fn(ctx, p, s, m); };
    char* d[kIterMaxOps];
    for (int k = 0; k < nops; ++k) d[k] = data[k];
    run_flat(nops, d, isz, n, loop);
  }
  // To <- fc(C a, C b), where C is the math type of Ti (float for halves). kMulti: the
  // contiguous runs take the multiversioned loops (see unary_libm for why not always).
  template <typename To, typename Ti, bool kMulti = kVectorize<Ti>, typename FC>
  void binary(const FC& fc) const {
    using C = typename OpMath<Ti>::type;
    auto f = [fc](Ti a, Ti b) { return cast_to<To>(fc(static_cast<C>(a), static_cast<C>(b))); };
    run([f](char** p, const int64_t* s, int64_t m) { binary_loop<To, Ti, kMulti>(p, s, m, f); });
  }
  // binary() for an fc whose work is a libm call or an integer division (see unary_libm).
  template <typename To, typename Ti, typename FC>
  void binary_libm(const FC& fc) const {
    binary<To, Ti, false>(fc);
  }
  // To <- fc(C a).
  template <typename To, typename Ti, bool kMulti = kVectorize<Ti>, typename FC>
  void unary(const FC& fc) const {
    using C = typename OpMath<Ti>::type;
    auto f = [fc](Ti a) { return cast_to<To>(fc(static_cast<C>(a))); };
    // Float ops: strided runs chunked (unary_loop), so they round as contiguous ones do.
    constexpr bool kChunked = std::is_floating_point_v<Ti>;
    run([f](char** p, const int64_t* s, int64_t m) {
      unary_loop<To, Ti, kMulti, kChunked>(p, s, m, f);
    });
  }
  // To <- fc(C a) where fc's work is a call into libm (sin, log, erf, ...): with no vector
  // math library (-ffast-math's) such a loop is the same scalar calls for every ISA, so it
  // is compiled once instead of once per target_clones ISA (the core's compile time).
  template <typename To, typename Ti, typename FC>
  void unary_libm(const FC& fc) const {
    unary<To, Ti, false>(fc);
  }
};

// NOT_IMPLEMENTED for tensors that are not on the CPU.
void check_cpu(const TensorImpl& t, const char* op);
// ValueError for an unknown scalar kind.
void check_scalar(const sdk_scalar& s, const char* op, const char* arg);
// ValueError when `v` does not fit `dtype` (an integer out of range, NaN or inf into an
// integer, a finite float beyond the float type's range), as torch's fill_/full/masked_fill.
void check_fill_value(const sdk_scalar& v, sdk_dtype dtype, const char* op);
void fill_tensor(TensorImpl& t, const sdk_scalar& v);
// sdk_unary on a complex tensor: neg, and abs (real result); a TypeError naming the op
// otherwise (elementwise_complex.cpp).
void unary_complex(int op, const TensorImpl& tx, sdk_tensor* out, sdk_tensor** result);
// Same shape and contiguous for out and every input: a flat loop suffices.
inline bool all_flat(const TensorImpl& out, std::initializer_list<const TensorImpl*> ins) {
  if (!out.contiguous) return false;
  for (const TensorImpl* t : ins)
    if (!t->contiguous || !same_shape(*t, out)) return false;
  return true;
}
// A Launch over out and inputs: flat when possible, else the iterator `it`.
inline Launch make_launch(TensorImpl& out, std::initializer_list<const TensorImpl*> ins,
                          TensorIter& it, const char* op) {
  Launch L;
  L.nops = 1 + static_cast<int>(ins.size());
  if (all_flat(out, ins)) {
    L.flat = true;
    L.n = out.numel;
    L.data[0] = static_cast<char*>(out.data());
    L.isz[0] = out.itemsize();
    int k = 1;
    for (const TensorImpl* t : ins) {
      L.data[k] = static_cast<char*>(t->data());
      L.isz[k++] = t->itemsize();
    }
  } else {
    const TensorImpl* ops[kIterMaxOps];
    ops[0] = &out;
    int k = 1;
    for (const TensorImpl* t : ins) ops[k++] = t;
    it.build(L.nops, ops, op);
    L.it = &it;
  }
  return L;
}
// Add a constant operand (a scalar in memory, stride 0) at position pos.
inline void insert_constant(Launch& L, int pos, char* p) {
  if (L.flat) {
    for (int k = L.nops; k > pos; --k) {
      L.data[k] = L.data[k - 1];
      L.isz[k] = L.isz[k - 1];
    }
    L.data[pos] = p;
    L.isz[pos] = 0;
  } else {
    L.it->insert_constant(pos, p);
  }
  ++L.nops;
}
}  // namespace sdk::detail
