// core/src/elementwise_copy.cpp: casting copies, fill, `out` plumbing, and
// sdk_copy_/fill_/to_dtype.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

#include "bits.h"
#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {

void check_no_internal_overlap(const TensorImpl& t, const char* op) {
  for (int64_t d = 0; d < t.ndim; ++d) {
    if (t.sizes[d] > 1 && t.strides[d] == 0) {
      SDK_FAIL(SDK_ERROR_VALUE, op,
               ": cannot write into a tensor where several elements share one memory location "
               "(an expanded tensor of shape ",
               shape_str(t), "); clone it first");
    }
  }
}

void check_cpu(const TensorImpl& t, const char* op) {
  if (t.device().type != SDK_CPU) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, op, ": only CPU tensors are supported by this core");
  }
}

namespace {

#if defined(__SSE2__)
constexpr bool kSse2 = true;
#else
constexpr bool kSse2 = false;
#endif

// Element sizes moved in register blocks (4x4 of 4 bytes, 2x2 of 8 bytes).
template <typename T>
constexpr bool kHasBlock = kSse2 && (sizeof(T) == 4 || sizeof(T) == 8);

// One block through SSE registers: loads along src rows, stores along dst rows.
template <typename T>
inline void transpose_block(char* d, int64_t d1, const char* s, int64_t s0) {
#if defined(__SSE2__)
  if constexpr (sizeof(T) == 4) {
    __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(s));
    __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(s + s0));
    __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(s + 2 * s0));
    __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(s + 3 * s0));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(reinterpret_cast<float*>(d), r0);
    _mm_storeu_ps(reinterpret_cast<float*>(d + d1), r1);
    _mm_storeu_ps(reinterpret_cast<float*>(d + 2 * d1), r2);
    _mm_storeu_ps(reinterpret_cast<float*>(d + 3 * d1), r3);
  } else if constexpr (sizeof(T) == 8) {
    __m128d r0 = _mm_loadu_pd(reinterpret_cast<const double*>(s));
    __m128d r1 = _mm_loadu_pd(reinterpret_cast<const double*>(s + s0));
    _mm_storeu_pd(reinterpret_cast<double*>(d), _mm_unpacklo_pd(r0, r1));
    _mm_storeu_pd(reinterpret_cast<double*>(d + d1), _mm_unpackhi_pd(r0, r1));
  }
#endif
}

// Side of the square tiles a transposed plane is copied in (elements).
constexpr int64_t kTile = 32;

// Copy one row of square tiles of a plane, i1 in [a, a_end) (at most kTile rows):
// dst[i0, i1] = src[i0, i1], dst runs along i0 (unit stride), src along i1 (unit stride),
// `d1` and `s0` their other strides in bytes.
// Rationale: element by element, every source read of a transpose touches a new cache
// line and the line is gone before the next one along it is read; a tile keeps its lines
// in L1, and a register block turns four scalar loads and stores into one vector each.
template <typename T>
void transpose_tile_row(char* dst, const char* src, int64_t n0, int64_t a, int64_t a_end,
                        int64_t d1, int64_t s0) {
  constexpr int64_t isz = sizeof(T);
  constexpr int64_t kBlock = kHasBlock<T> ? 16 / isz : kTile + 1;  // never, without blocks
  const int64_t a_full = a + (a_end - a) / kBlock * kBlock;
  for (int64_t b = 0; b < n0; b += kTile) {
    const int64_t b_end = std::min(b + kTile, n0);
    const int64_t b_full = b + (b_end - b) / kBlock * kBlock;
    for (int64_t i0 = b; i0 < b_full; i0 += kBlock) {
      for (int64_t i1 = a; i1 < a_full; i1 += kBlock) {
        transpose_block<T>(dst + i1 * d1 + i0 * isz, d1, src + i0 * s0 + i1 * isz, s0);
      }
    }
    // What the blocks left (the tile's edges; all of it for 1- and 2-byte elements).
    for (int64_t i1 = a; i1 < a_end; ++i1) {
      T* d = reinterpret_cast<T*>(dst + i1 * d1);
      const char* s = src + i1 * isz;
      for (int64_t i0 = i1 < a_full ? b_full : b; i0 < b_end; ++i0) {
        d[i0] = *reinterpret_cast<const T*>(s + i0 * s0);
      }
    }
  }
}

// A same-dtype copy whose iteration (dims innermost first, see TensorIter) has the
// destination contiguous along dim 0 and the source contiguous along dim 1: a transposed
// plane, repeated over the outer dims. Returns false for any other copy.
bool copy_transposed(const TensorIter& it) {
  const int64_t isz = it.itemsize[0];
  if (it.ndim < 2 || it.itemsize[1] != isz) return false;
  if (it.strides[0][0] != isz || it.strides[1][1] != isz || it.strides[0][1] == isz) return false;
  const int64_t n0 = it.shape[0], n1 = it.shape[1];
  if (n0 < 8 || n1 < 8) return false;  // a thin plane is already a few streams
  int64_t outer = 1;
  for (int d = 2; d < it.ndim; ++d) outer *= it.shape[d];
  // Work items: rows of tiles (kTile values of i1) across all outer dims.
  const int64_t strips = (n1 + kTile - 1) / kTile;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (kTile * n0));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    parallel_for(0, outer * strips, grain, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) {
        int64_t o = w / strips, rem = o;
        char* d = it.data[0];
        const char* s = it.data[1];
        for (int dim = 2; dim < it.ndim; ++dim) {
          const int64_t idx = rem % it.shape[dim];
          rem /= it.shape[dim];
          d += idx * it.strides[dim][0];
          s += idx * it.strides[dim][1];
        }
        const int64_t a = (w % strips) * kTile;
        transpose_tile_row<T>(d, s, n0, a, std::min(a + kTile, n1), it.strides[1][0],
                              it.strides[0][1]);
      }
    });
  };
  return dispatch_bits(isz, run);  // a same-dtype copy only moves bytes
}

// Inner dims of at most this many elements are copied two dims per loop call.
constexpr int64_t kSmallInner = 16;

// dst[i1, i0] = src[i1, i0] for i1 < n1, i0 < n0 (byte strides d1/s1 and d0/s0), n0 small.
// N > 0 fixes n0 at compile time (the common repeat counts), so the inner loop unrolls.
template <typename T, int64_t N>
void copy_small_rows(char* d, const char* s, int64_t n1, int64_t d1, int64_t s1, int64_t n0,
                     int64_t d0, int64_t s0) {
  const int64_t m = N > 0 ? N : n0;
  if (d0 == int64_t(sizeof(T)) && s0 == 0) {  // a broadcast inner dim: each value m times
    for (int64_t i1 = 0; i1 < n1; ++i1) {
      const T v = *reinterpret_cast<const T*>(s + i1 * s1);
      T* o = reinterpret_cast<T*>(d + i1 * d1);
      for (int64_t i0 = 0; i0 < m; ++i0) o[i0] = v;
    }
    return;
  }
  for (int64_t i1 = 0; i1 < n1; ++i1) {
    char* o = d + i1 * d1;
    const char* a = s + i1 * s1;
    for (int64_t i0 = 0; i0 < m; ++i0) {
      *reinterpret_cast<T*>(o + i0 * d0) = *reinterpret_cast<const T*>(a + i0 * s0);
    }
  }
}

// A same-dtype copy whose innermost dim (after coalescing) is short, e.g. a broadcast
// repeat dim: one loop call per inner run would cost more than the run itself, so the
// loop walks the two innermost dims together. Returns false for any other copy.
bool copy_small_inner(const TensorIter& it) {
  const int64_t isz = it.itemsize[0];
  if (it.ndim < 2 || it.itemsize[1] != isz || it.shape[0] > kSmallInner) return false;
  const int64_t n0 = it.shape[0], d0 = it.strides[0][0], s0 = it.strides[0][1];
  TensorIter outer = it;  // the iteration without dim 0: each step a row of n0 elements
  outer.ndim = it.ndim - 1;
  outer.numel = it.numel / n0;
  for (int d = 0; d < outer.ndim; ++d) {
    outer.shape[d] = it.shape[d + 1];
    for (int k = 0; k < it.nops; ++k) outer.strides[d][k] = it.strides[d + 1][k];
  }
  auto run = [&](auto tag, auto n_tag) {
    using T = decltype(tag);
    constexpr int64_t N = decltype(n_tag)::value;
    outer.for_each([&](char** p, const int64_t* s,
                       int64_t n) { copy_small_rows<T, N>(p[0], p[1], n, s[0], s[1], n0, d0, s0); },
                   std::max<int64_t>(1, kParallelGrain / n0));
  };
  auto with_n = [&](auto tag) {
    using C2 = std::integral_constant<int64_t, 2>;
    using C3 = std::integral_constant<int64_t, 3>;
    using C4 = std::integral_constant<int64_t, 4>;
    using C0 = std::integral_constant<int64_t, 0>;
    n0 == 2 ? run(tag, C2{}) : n0 == 3 ? run(tag, C3{}) : n0 == 4 ? run(tag, C4{}) : run(tag, C0{});
  };
  return dispatch_bits(isz, with_n);
}

// A copy to or from an 8-bit float, converting through float as torch does (every other value
// converts to float first, and the 8-bit floats hold floats exactly): one kernel per direction
// and format between float8 and float32, the rest of the way by the generic copy.
void copy_float8(TensorImpl& dst, const TensorImpl& src, const TensorIter& it) {
  if (dst.dtype == src.dtype) {  // the bytes themselves
    for_each_erased(it, [](char** p, const int64_t* s, int64_t n) {
      unary_loop<uint8_t, uint8_t>(p, s, n, [](uint8_t v) { return v; });
    });
  } else if (dst.dtype == SDK_FLOAT32) {
    SDK_DISPATCH_FLOAT8(src.dtype, "copy", [&] {
      for_each_erased(it, [](char** p, const int64_t* s, int64_t n) {
        unary_loop<float, scalar_t>(p, s, n, [](scalar_t v) { return static_cast<float>(v); });
      });
    });
  } else if (src.dtype == SDK_FLOAT32) {
    SDK_DISPATCH_FLOAT8(dst.dtype, "copy", [&] {
      for_each_erased(it, [](char** p, const int64_t* s, int64_t n) {
        unary_loop<scalar_t, float>(p, s, n, [](float v) { return scalar_t(v); });
      });
    });
  } else {
    Ref tmp = make_tensor(dst.ndim, dst.sizes, SDK_FLOAT32, dst.device());
    copy_into(*tmp, src);
    copy_into(dst, *tmp);
  }
}

// Set while an explicit conversion (sdk_copy_, sdk_to_dtype) runs: only those may turn a
// complex tensor into a real one (its real part, as torch's .to()); an op that converts its
// input to a real compute dtype would drop the imaginary part silently, so it raises.
thread_local bool t_explicit_conversion = false;

struct ExplicitConversion {
  bool prev = t_explicit_conversion;
  ExplicitConversion() { t_explicit_conversion = true; }
  ~ExplicitConversion() { t_explicit_conversion = prev; }
  ExplicitConversion(const ExplicitConversion&) = delete;
  ExplicitConversion& operator=(const ExplicitConversion&) = delete;
};

// A copy with a complex side, src converted to dst's dtype first through a temporary when a
// kernel below does not take the pair: complex <-> complex, part type (float32 for complex64)
// -> complex, complex -> part type (the real part) and complex -> bool (either part non-zero,
// as torch). Every other dtype goes through the part type, as torch converts.
void copy_complex(TensorImpl& dst, const TensorImpl& src, const TensorIter& it) {
  const sdk_dtype via = is_complex(dst.dtype) ? complex_part(dst.dtype) : complex_part(src.dtype);
  const bool direct = (is_complex(dst.dtype) && (is_complex(src.dtype) || src.dtype == via)) ||
                      dst.dtype == via || dst.dtype == SDK_BOOL;
  if (!direct) {
    Ref tmp = make_tensor(dst.ndim, dst.sizes, via, dst.device());
    copy_into(*tmp, src);
    return copy_into(dst, *tmp);
  }
  if (is_complex(dst.dtype) && is_complex(src.dtype)) {
    SDK_DISPATCH_COMPLEX(dst.dtype, "copy", [&] {
      using To = scalar_t;
      SDK_DISPATCH_COMPLEX(src.dtype, "copy", [&] {
        for_each_erased(it, [](char** p, const int64_t* s, int64_t n) {
          unary_loop<To, scalar_t, false>(p, s, n, [](scalar_t v) { return To(v); });
        });
      });
    });
  } else if (is_complex(dst.dtype)) {
    SDK_DISPATCH_COMPLEX(dst.dtype, "copy", [&] {
      using P = typename scalar_t::value_type;
      for_each_erased(it, [](char** p, const int64_t* s, int64_t n) {
        unary_loop<scalar_t, P, false>(p, s, n, [](P v) { return scalar_t(v); });
      });
    });
  } else {
    const bool to_bool = dst.dtype == SDK_BOOL;
    SDK_DISPATCH_COMPLEX(src.dtype, "copy", [&] {
      using P = typename scalar_t::value_type;
      for_each_erased(it, [to_bool](char** p, const int64_t* s, int64_t n) {
        if (to_bool) {
          unary_loop<bool, scalar_t, false>(p, s, n,
                                            [](scalar_t v) { return static_cast<bool>(v); });
        } else {
          unary_loop<P, scalar_t, false>(p, s, n, [](scalar_t v) { return v.real(); });
        }
      });
    });
  }
}

// Fill the elements `it` walks with x.
template <typename T>
void fill_with(const TensorIter& it, T x) {
  for_each_erased(it, [x](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T)) {
      T* o = reinterpret_cast<T*>(p[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = x;
    } else {
      char* o = p[0];
      for (int64_t i = 0; i < n; ++i, o += s[0]) *reinterpret_cast<T*>(o) = x;
    }
  });
}

}  // namespace

void copy_into(TensorImpl& dst, const TensorImpl& src) {
  if (dst.numel == 0) return;
  const bool float8 = is_float8(dst.dtype) || is_float8(src.dtype);
  if (float8 && (cuda::is_cuda(dst) || cuda::is_cuda(src)) && dst.dtype != src.dtype) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, "copy: converting ", dtype_name(src.dtype), " to ",
             dtype_name(dst.dtype), " is not implemented on CUDA; convert on the CPU");
  }
  const bool complex = is_complex(dst.dtype) || is_complex(src.dtype);
  if (complex && (cuda::is_cuda(dst) || cuda::is_cuda(src))) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED,
             "copy: ", dtype_name(is_complex(dst.dtype) ? dst.dtype : src.dtype),
             " tensors are not implemented on CUDA; keep them on the CPU");
  }
  if (is_complex(src.dtype) && !is_complex(dst.dtype) && !t_explicit_conversion) {
    SDK_FAIL(SDK_ERROR_TYPE, "unsupported dtype ", dtype_name(src.dtype),
             ": this op takes no complex tensors (converting to ", dtype_name(dst.dtype),
             " would drop the imaginary part; take .real or .abs() first)");
  }
  if (cuda::is_cuda(dst) || cuda::is_cuda(src)) return cuda::copy_into(dst, src);
  if (dst.dtype == src.dtype && dst.contiguous && src.contiguous && same_shape(dst, src)) {
    std::memmove(dst.data(), src.data(), static_cast<size_t>(dst.numel * dst.itemsize()));
    return;
  }
  TensorIter it;
  it.build({&dst, &src}, "copy");
  if (dst.dtype == src.dtype && (copy_transposed(it) || copy_small_inner(it))) return;
  if (float8) return copy_float8(dst, src, it);
  if (complex) return copy_complex(dst, src, it);
  SDK_DISPATCH_ALL(dst.dtype, "copy", [&] {
    using To = scalar_t;
    SDK_DISPATCH_ALL(src.dtype, "copy", [&] {
      using Ti = scalar_t;
      for_each_erased(it, [](char** p, const int64_t* s, int64_t n) {
        unary_loop<To, Ti>(p, s, n, [](Ti v) { return cast_to<To>(v); });
      });
    });
  });
}

Ref contiguous_copy(const TensorImpl& t, sdk_dtype dtype) {
  Ref r = make_tensor(t.ndim, t.sizes, dtype < 0 ? t.dtype : dtype, t.device());
  copy_into(*r, t);
  return r;
}

Ref cast_if_needed(const TensorImpl& t, sdk_dtype dtype) {
  if (t.dtype == dtype) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  return contiguous_copy(t, dtype);
}

void fill_tensor(TensorImpl& t, const sdk_scalar& v) {
  if (t.numel == 0) return;
  if (cuda::is_cuda(t)) {
    if (is_float8(t.dtype) || is_complex(t.dtype)) {
      SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, "fill_: ", dtype_name(t.dtype),
               " is not implemented on CUDA; fill on the CPU");
    }
    return cuda::fill(t, v);
  }
  TensorIter it;
  it.build({&t}, "fill_");
  if (is_complex(t.dtype)) {  // a real value: the imaginary part is zero
    SDK_DISPATCH_COMPLEX(t.dtype, "fill_", [&] {
      fill_with(it, scalar_t(scalar_as<typename scalar_t::value_type>(v)));
    });
    return;
  }
  if (is_float8(t.dtype)) {  // the value's one byte, stored as any byte is
    SDK_DISPATCH_FLOAT8(t.dtype, "fill_", [&] { fill_with(it, scalar_as<scalar_t>(v).x); });
    return;
  }
  SDK_DISPATCH_ALL(t.dtype, "fill_", [&] { fill_with(it, scalar_as<scalar_t>(v)); });
}

void check_scalar(const sdk_scalar& s, const char* op, const char* arg) {
  if (s.kind != SDK_SCALAR_BOOL && s.kind != SDK_SCALAR_INT && s.kind != SDK_SCALAR_FLOAT) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": argument '", arg, "' has unknown scalar kind ", s.kind);
  }
}

void check_fill_value(const sdk_scalar& v, sdk_dtype dtype, const char* op) {
  if (dtype == SDK_BOOL) return;  // any number is a truth value
  const bool is_float = v.kind == SDK_SCALAR_FLOAT;
  const double x = is_float ? v.f : static_cast<double>(v.i);
  bool fits = true;
  if (is_complex(dtype)) dtype = complex_part(dtype);  // the real part takes the value
  if (is_floating(dtype)) {
    double max = std::numeric_limits<double>::max();
    if (dtype == SDK_FLOAT16) max = 65504.0;
    if (dtype == SDK_BFLOAT16) max = 3.3895313892515355e38;
    if (dtype == SDK_FLOAT32) max = std::numeric_limits<float>::max();
    if (dtype == SDK_FLOAT8_E4M3FN) max = 448.0;
    if (dtype == SDK_FLOAT8_E4M3FNUZ) max = 240.0;
    if (dtype == SDK_FLOAT8_E5M2 || dtype == SDK_FLOAT8_E5M2FNUZ) max = 57344.0;
    // Only e5m2 of the 8-bit floats has an infinity (torch refuses inf for the others).
    const bool has_inf = !is_float8(dtype) || dtype == SDK_FLOAT8_E5M2;
    fits = std::isnan(x) || (std::isinf(x) ? has_inf : std::fabs(x) <= max);
  } else if (dtype == SDK_INT64) {
    fits = !is_float || (x >= -9223372036854775808.0 && x < 9223372036854775808.0);
  } else {
    int64_t lo = 0, hi = 0;
    switch (dtype) {
      case SDK_UINT8:
        lo = 0, hi = 255;
        break;
      case SDK_INT8:
        lo = -128, hi = 127;
        break;
      case SDK_INT16:
        lo = -32768, hi = 32767;
        break;
      default:
        lo = INT32_MIN, hi = INT32_MAX;
        break;  // SDK_INT32
    }
    // An int for uint8 may be negative down to -255 (it wraps), as torch allows.
    if (is_float) {
      fits = x >= static_cast<double>(lo) && x <= static_cast<double>(hi);
    } else {
      fits = v.i >= (dtype == SDK_UINT8 ? -hi : lo) && v.i <= hi;
    }
  }
  if (fits) return;
  const char* type = dtype_name(dtype);
  if (is_float)
    SDK_FAIL(SDK_ERROR_VALUE, op, ": value ", v.f, " cannot be converted to ", type,
             " without overflow");
  SDK_FAIL(SDK_ERROR_VALUE, op, ": value ", v.i, " cannot be converted to ", type,
           " without overflow");
}

void OutPlan::prepare(const char* op, sdk_tensor* out, int64_t nd, const int64_t* sz,
                      sdk_dtype dtype, std::initializer_list<const TensorImpl*> layout_inputs) {
  // The result lives on the inputs' device; all inputs (and out) must share it.
  sdk_device dev{SDK_CPU, 0};
  const TensorImpl* first = layout_inputs.size() ? *layout_inputs.begin() : nullptr;
  if (first) dev = first->device();
  for (const TensorImpl* t : layout_inputs) cuda::check_same_device(op, {first, t});
  if (!out) {
    target = empty_like_layout(nd, sz, dtype, dev, layout_inputs);
    return;
  }
  user = Ref::borrow(out);
  if (user->storage->read_only.load(std::memory_order_acquire)) {
    bool in_place = false;  // x.mul_(2) is mul with out == x: name it as the caller wrote it
    for (const TensorImpl* t : layout_inputs) in_place = in_place || same_view(*t, *user);
    fail_read_only(*user, in_place ? str(op, "_") : std::string(op), !in_place);
  }
  if (first) cuda::check_same_device(op, {first, user.get()});
  if (!same_shape(*user, nd, sz)) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": out has shape ", shape_str(*user),
             " but the result has shape ", sizes_str(nd, sz));
  }
  if (!can_cast(dtype, user->dtype)) {
    SDK_FAIL(SDK_ERROR_TYPE, op, ": result type ", dtype_name(dtype),
             " can't be cast to the out dtype ", dtype_name(user->dtype));
  }
  check_no_internal_overlap(*user, op);
  if (user->dtype == dtype) {
    target = user;
  } else {
    target = make_tensor(nd, sz, dtype, dev);
    cast_back = true;
  }
}

void OutPlan::fix_alias(Ref& in) const {
  if (user && !cast_back && shares_storage(*in, *user) && !same_view(*in, *user)) {
    in = contiguous_copy(*in);
  }
}

const TensorImpl* OutPlan::fix_alias(const TensorImpl* in, Ref& holder) const {
  if (user && !cast_back && shares_storage(*in, *user) && !same_view(*in, *user)) {
    holder = contiguous_copy(*in);
    return holder.get();
  }
  return in;
}

void OutPlan::finish(sdk_tensor** result) {
  if (user) {
    if (cast_back) copy_into(*user, *target);
    user->bump_version();
    set_result(result, user);
  } else {
    set_result(result, std::move(target));
  }
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_to_dtype(const sdk_tensor* t, sdk_dtype dtype, int32_t copy,
                                sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_to_dtype", "t");
  check_not_null(result, "sdk_to_dtype", "result");
  check_dtype(dtype, "sdk_to_dtype");
  if (x.dtype == dtype && !copy) {
    *result = Ref::borrow(t).release_handle();
  } else {
    // Keep a transposed input's layout, as torch's .to() does.
    Ref r = empty_like_layout(x.ndim, x.sizes, dtype, x.device(), {&x});
    ExplicitConversion explicit_conversion;
    copy_into(*r, x);
    *result = r.release_handle();
  }
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_fill_(sdk_tensor* t, sdk_scalar value) {
  SDK_SAFE_CALL_BEGIN;
  TensorImpl& x = const_cast<TensorImpl&>(checked(t, "sdk_fill_", "t"));
  check_writable(x, "fill_");
  check_scalar(value, "sdk_fill_", "value");
  check_fill_value(value, x.dtype, "fill_");
  fill_tensor(x, value);
  x.bump_version();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_copy_(sdk_tensor* dst, const sdk_tensor* src) {
  SDK_SAFE_CALL_BEGIN;
  TensorImpl& d = const_cast<TensorImpl&>(checked(dst, "sdk_copy_", "dst"));
  const TensorImpl& s = checked(src, "sdk_copy_", "src");
  check_writable(d, "copy_");
  check_no_internal_overlap(d, "sdk_copy_");
  int64_t sz[kIterMaxDims];
  const TensorImpl* both[2] = {&d, &s};
  int64_t nd = broadcast_shapes("sdk_copy_", 2, both, sz);
  if (!same_shape(d, nd, sz)) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_copy_: source of shape ", shape_str(s),
             " cannot be broadcast to the destination shape ", shape_str(d));
  }
  if (&d != &s && !same_view(d, s)) {
    ExplicitConversion explicit_conversion;
    if (shares_storage(d, s)) {
      Ref tmp = contiguous_copy(s);  // overlapping: read everything before writing
      copy_into(d, *tmp);
    } else {
      copy_into(d, s);
    }
  }
  d.bump_version();
  SDK_SAFE_CALL_END;
}

}  // extern "C"
