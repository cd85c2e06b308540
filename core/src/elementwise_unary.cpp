// core/src/elementwise_unary.cpp: sdk_unary (all unary ops) and sdk_elu.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"
#include "op_names.h"
#include "special_math.h"
#include "vec_simd.h"

namespace sdk::detail {
namespace {

const char* unary_name(int op) { return unary_op_name(op); }

bool is_float_op(int op) {
  switch (op) {
    case SDK_EXP:
    case SDK_LOG:
    case SDK_SQRT:
    case SDK_RSQRT:
    case SDK_SIN:
    case SDK_COS:
    case SDK_TANH:
    case SDK_SIGMOID:
    case SDK_GELU:
    case SDK_RECIPROCAL:
    case SDK_LOG1P:
    case SDK_EXPM1:
    case SDK_ERF:
    case SDK_TAN:
    case SDK_ASIN:
    case SDK_ACOS:
    case SDK_ATAN:
    case SDK_SINH:
    case SDK_COSH:
    case SDK_ASINH:
    case SDK_ACOSH:
    case SDK_ATANH:
    case SDK_LOG2:
    case SDK_LOG10:
    case SDK_EXP2:
    case SDK_SILU:
    case SDK_MISH:
    case SDK_ERFC:
    case SDK_ERFINV:
      return true;
    default:
      return false;
  }
}

// The value tests (isnan, ...) read any dtype and give bool.
bool is_value_test(int op) { return op >= SDK_ISNAN && op <= SDK_ISNEGINF; }

struct UnaryTypes {
  sdk_dtype compute, result;
};

UnaryTypes unary_types(int op, sdk_dtype x) {
  const char* name = unary_name(op);
  if (is_value_test(op)) return {x, SDK_BOOL};
  if (is_float_op(op)) {
    sdk_dtype c = is_floating(x) ? x : SDK_FLOAT32;  // torch: ints give the default float
    return {c, c};
  }
  switch (op) {
    case SDK_NEG:
      SDK_TYPE_CHECK(x != SDK_BOOL, name,
                     ": negation of a bool tensor is not supported; use logical_not");
      return {x, x};
    case SDK_LOGICAL_NOT:
      return {x, SDK_BOOL};
    case SDK_FRAC:
      SDK_TYPE_CHECK(is_floating(x), name, ": only floating point tensors are supported, got ",
                     dtype_name(x));
      return {x, x};
    case SDK_BITWISE_NOT:
      SDK_TYPE_CHECK(!is_floating(x), name, ": only integer and bool tensors are supported, got ",
                     dtype_name(x));
      return {x, x};
    case SDK_SQUARE:
      if (x == SDK_BOOL) return {SDK_INT64, SDK_INT64};
      return {x, x};
    default:
      return {x, x};
  }
}

template <typename C>
SDK_INLINE C exp_c(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return vm::exp_f32(x);
  } else {
    return std::exp(x);
  }
}
template <typename C>
SDK_INLINE C tanh_c(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return vm::tanh_f32(x);
  } else {
    return std::tanh(x);
  }
}
template <typename C>
SDK_INLINE C sigmoid_c(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return vm::sigmoid_f32(x);
  } else {
    return C(1) / (C(1) + std::exp(-x));
  }
}

// float32 exp, tanh and sigmoid: the AVX-512 or AVX2 loops of vec_simd.h when the CPU has them
// (fused multiply-adds and one clamp per bound: the auto-vectorised AVX2 form has neither, and
// takes 1.4-1.6x as long). Strided runs go through a small buffer, so a value's result does not
// depend on the layout it came in.
#if defined(__x86_64__)
using SimdBlock = void (*)(const float*, float*, int64_t);
template <typename T>
bool float_simd_unary(const Launch& L, SimdBlock avx512, SimdBlock avx2) {
  if constexpr (std::is_same_v<T, float>) {
    const SimdBlock block = vs::has_avx512() ? avx512 : vs::has_avx2() ? avx2 : nullptr;
    if (!block) return false;
    L.run([block](char** p, const int64_t* s, int64_t m) {
      if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
        return block(reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]), m);
      }
      run_in_chunks<float, float>(p[0], p[1], s, m, block);
    });
    return true;
  }
  return false;
}
#endif

// x * tanh(softplus(x)) with tanh(log(1 + e)) = n / (n + 2), n = e (e + 2), e = exp(x): one
// exp, no cancellation for negative x; above 20 the factor rounds to 1.
template <typename C>
SDK_INLINE C mish_c(C x) {
  C e = exp_c(x < C(20) ? x : C(20));
  C n = e * (e + C(2));
  return x > C(20) ? x : x * n / (n + C(2));
}

// The floating math ops added with ABI 1.3 (trigonometric, hyperbolic, logarithms, ...).
template <typename T, typename C>
bool unary_float_more(int op, const Launch& L) {
  constexpr C kInf = std::numeric_limits<C>::infinity();
  switch (op) {
    case SDK_TAN:
      L.unary_libm<T, T>([](C x) { return std::tan(x); });
      return true;
    case SDK_ASIN:
      L.unary_libm<T, T>([](C x) { return std::asin(x); });
      return true;
    case SDK_ACOS:
      L.unary_libm<T, T>([](C x) { return std::acos(x); });
      return true;
    case SDK_ATAN:
      L.unary_libm<T, T>([](C x) { return std::atan(x); });
      return true;
    case SDK_SINH:
      L.unary_libm<T, T>([](C x) { return std::sinh(x); });
      return true;
    case SDK_COSH:
      L.unary_libm<T, T>([](C x) { return std::cosh(x); });
      return true;
    case SDK_ASINH:
      L.unary_libm<T, T>([](C x) { return std::asinh(x); });
      return true;
    case SDK_ACOSH:
      L.unary_libm<T, T>([](C x) { return std::acosh(x); });
      return true;
    case SDK_ATANH:
      L.unary_libm<T, T>([](C x) { return std::atanh(x); });
      return true;
    case SDK_LOG2:
      L.unary_libm<T, T>([](C x) { return std::log2(x); });
      return true;
    case SDK_LOG10:
      L.unary_libm<T, T>([](C x) { return std::log10(x); });
      return true;
    case SDK_EXP2:
      L.unary_libm<T, T>([](C x) { return std::exp2(x); });
      return true;
    case SDK_TRUNC:
      L.unary<T, T>([](C x) { return std::trunc(x); });
      return true;
    case SDK_FRAC:  // torch's x - trunc(x): NaN for infinities
      L.unary<T, T>([](C x) { return x - std::trunc(x); });
      return true;
    case SDK_ISNAN:
      L.unary<bool, T>([](C x) { return x != x; });
      return true;
    case SDK_ISINF:
      L.unary<bool, T>([kInf](C x) { return std::fabs(x) == kInf; });
      return true;
    case SDK_ISFINITE:
      L.unary<bool, T>([kInf](C x) { return std::fabs(x) < kInf; });
      return true;
    case SDK_ISPOSINF:
      L.unary<bool, T>([kInf](C x) { return x == kInf; });
      return true;
    case SDK_ISNEGINF:
      L.unary<bool, T>([kInf](C x) { return x == -kInf; });
      return true;
    case SDK_SILU:
      L.unary<T, T>([](C x) { return x * sigmoid_c(x); });
      return true;
    case SDK_MISH:
      L.unary<T, T>([](C x) { return mish_c(x); });
      return true;
    case SDK_ERFC:
      L.unary_libm<T, T>([](C x) { return std::erfc(x); });
      return true;
    case SDK_ERFINV:
      L.unary<T, T>([](C x) { return static_cast<C>(special::erfinv(static_cast<double>(x))); });
      return true;
    default:
      return false;
  }
}

// Integer and bool inputs of the ops above that keep them (trunc). (The value tests of
// integers need no loop: sdk_unary fills their result.)
template <typename T, typename C>
bool unary_int_more(int op, const Launch& L) {
  if (op == SDK_TRUNC) {
    L.unary<T, T>([](C x) { return x; });
    return true;
  }
  return false;
}

// float32 sin (kQuarter 0) and cos (1): vm::sin_quarter_f32 through the multiversioned loop,
// then libm for the elements past its range (|x| > kTrigMax, inf, NaN). A contiguous run with
// none of those (a vectorizable scan finds out) goes straight through, in place or not; the
// rest goes through run_in_chunks, whose copies keep the input for the libm pass.
inline bool in_trig_range(float x) { return std::fabs(x) <= vm::kTrigMax; }
template <int32_t kQuarter>
void trig_run(char** p, const int64_t* s, int64_t m) {
  const auto f = [](float x) { return vm::sin_quarter_f32(x, kQuarter); };
  if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
    const float* x = reinterpret_cast<const float*>(p[1]);
    bool past = false;
    for (int64_t i = 0; i < m; ++i) past |= !in_trig_range(x[i]);
    if (!past) return mv_unary(reinterpret_cast<float*>(p[0]), x, m, f);
  }
  run_in_chunks<float, float>(p[0], p[1], s, m, [&f](const float* in, float* out, int64_t k) {
    mv_unary(out, in, k, f);
    for (int64_t j = 0; j < k; ++j) {
      if (!in_trig_range(in[j])) out[j] = kQuarter ? std::cos(in[j]) : std::sin(in[j]);
    }
  });
}
template <typename T>
bool float_trig(const Launch& L, int op) {
  if constexpr (std::is_same_v<T, float>) {
    if (op == SDK_SIN) {
      L.run([](char** p, const int64_t* s, int64_t m) { trig_run<0>(p, s, m); });
    } else {
      L.run([](char** p, const int64_t* s, int64_t m) { trig_run<1>(p, s, m); });
    }
    return true;
  }
  return false;
}

// Ops with a branch-free float32 form in vec_math.h, which vectorizes (the float and 16-bit
// types compute in float): that through the multiversioned loops; double through libm.
template <typename T, typename C, typename F32, typename Libm>
void float_or_libm(const Launch& L, F32 f32, Libm libm) {
  if constexpr (std::is_same_v<C, float>) {
    L.unary<T, T>(f32);
  } else {
    L.unary_libm<T, T>(libm);
  }
}

// The float ops of unary_kernel; *done is false when `op` is not one of them.
template <typename T, typename C>
void unary_float(int op, const Launch& L, bool* done) {
  *done = true;
  switch (op) {
    case SDK_EXP:
#if defined(__x86_64__)
      if (float_simd_unary<T>(L, vs::exp_avx512, vs::exp_avx2)) return;
#endif
      return L.unary<T, T>([](C x) { return exp_c(x); });
    case SDK_LOG:
      return float_or_libm<T, C>(
          L, [](float x) { return vm::log_f32(x); }, [](C x) { return std::log(x); });
    case SDK_SQRT:
      return L.unary<T, T>([](C x) { return std::sqrt(x); });
    case SDK_RSQRT:
      return L.unary<T, T>([](C x) { return C(1) / std::sqrt(x); });
    case SDK_SIN:
      if (float_trig<T>(L, op)) return;
      return L.unary_libm<T, T>([](C x) { return std::sin(x); });
    case SDK_COS:
      if (float_trig<T>(L, op)) return;
      return L.unary_libm<T, T>([](C x) { return std::cos(x); });
    case SDK_TANH:
#if defined(__x86_64__)
      if (float_simd_unary<T>(L, vs::tanh_avx512, vs::tanh_avx2)) return;
#endif
      return L.unary<T, T>([](C x) { return tanh_c(x); });
    case SDK_SIGMOID:
#if defined(__x86_64__)
      if (float_simd_unary<T>(L, vs::sigmoid_avx512, vs::sigmoid_avx2)) return;
#endif
      return L.unary<T, T>([](C x) { return sigmoid_c(x); });
    case SDK_GELU:
#if defined(__x86_64__)  // AVX-512 CPUs keep the auto-vectorised 16-lane loop (no gelu512 yet)
      if (float_simd_unary<T>(L, nullptr, vs::gelu_avx2)) return;
#endif
      return float_or_libm<T, C>(
          L, [](float x) { return vm::gelu_f32(x); },
          [](C x) { return C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440))); });
    case SDK_RECIPROCAL:
      return L.unary<T, T>([](C x) { return C(1) / x; });
    case SDK_LOG1P:
      return float_or_libm<T, C>(
          L, [](float x) { return vm::log1p_f32(x); }, [](C x) { return std::log1p(x); });
    case SDK_EXPM1:
      return float_or_libm<T, C>(
          L, [](float x) { return vm::expm1_f32(x); }, [](C x) { return std::expm1(x); });
    case SDK_ERF:
      return float_or_libm<T, C>(
          L, [](float x) { return vm::erf_f32(x); }, [](C x) { return std::erf(x); });
    case SDK_FLOOR:
      return L.unary<T, T>([](C x) { return std::floor(x); });
    case SDK_CEIL:
      return L.unary<T, T>([](C x) { return std::ceil(x); });
    case SDK_ROUND:  // half to even, like torch and numpy
      return L.unary<T, T>([](C x) { return std::nearbyint(x); });
    case SDK_SIGN:
      return L.unary<T, T>([](C x) { return x > 0 ? C(1) : (x < 0 ? C(-1) : x); });
    case SDK_ABS:
      return L.unary<T, T>([](C x) { return std::fabs(x); });
    case SDK_RELU:
      return L.unary<T, T>([](C x) { return x < 0 ? C(0) : x; });
    default:
      *done = unary_float_more<T, C>(op, L);
  }
}

// The integer and bool ops of unary_kernel; *done is false when `op` is not one of them.
template <typename T, typename C>
void unary_int(int op, const Launch& L, bool* done) {
  constexpr bool kBool = std::is_same_v<C, bool>;
  *done = true;
  switch (op) {
    case SDK_FLOOR:
    case SDK_CEIL:
    case SDK_ROUND:
      return L.unary<T, T>([](C x) { return x; });
    case SDK_SIGN:
      if constexpr (kBool)
        return L.unary<T, T>([](C x) { return x; });
      else
        return L.unary<T, T>([](C x) { return C((x > 0) - (x < 0)); });
    case SDK_ABS:
      if constexpr (kBool || std::is_unsigned_v<C>)
        return L.unary<T, T>([](C x) { return x; });
      else
        return L.unary<T, T>([](C x) { return x < 0 ? C(-x) : x; });
    case SDK_RELU:
      if constexpr (kBool || std::is_unsigned_v<C>)
        return L.unary<T, T>([](C x) { return x; });
      else
        return L.unary<T, T>([](C x) { return x < 0 ? C(0) : x; });
    case SDK_BITWISE_NOT:
      if constexpr (kBool)
        return L.unary<T, T>([](C x) { return !x; });
      else
        return L.unary<T, T>([](C x) { return C(~x); });
    default:
      *done = unary_int_more<T, C>(op, L);
  }
}

template <typename T>
void unary_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  constexpr bool kBool = std::is_same_v<C, bool>;
  bool done = false;
  if constexpr (std::is_floating_point_v<C>)
    unary_float<T, C>(op, L, &done);
  else
    unary_int<T, C>(op, L, &done);
  if (done) return;
  if constexpr (!kBool) {
    if (op == SDK_NEG) return L.unary<T, T>([](C x) { return C(-x); });
    if (op == SDK_SQUARE) return L.unary<T, T>([](C x) { return C(x * x); });
  }
  if (op == SDK_LOGICAL_NOT) return L.unary<bool, T>([](C x) { return !(x != C(0)); });
  SDK_FAIL(SDK_ERROR_TYPE, unary_name(op), ": unsupported dtype ", dtype_name(dtype_of<T>()));
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_unary(int32_t op, const sdk_tensor* x, sdk_tensor* out,
                             sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& tx = checked(x, "sdk_unary", "x");
  if (!out) check_not_null(result, "sdk_unary", "result");
  if (op < 0 || op >= kUnaryOps) SDK_FAIL(SDK_ERROR_VALUE, "sdk_unary: unknown op code ", op);
  if (is_complex(tx.dtype)) {
    unary_complex(op, tx, out, result);
    return SDK_OK;
  }
  const char* name = unary_name(op);
  UnaryTypes ty = unary_types(op, tx.dtype);
  OutPlan plan;
  plan.prepare(name, out, tx.ndim, tx.sizes, ty.result, {&tx});
  Ref hx;
  const TensorImpl* ix = &tx;
  if (ix->dtype != ty.compute) ix = (hx = contiguous_copy(tx, ty.compute)).get();
  ix = plan.fix_alias(ix, hx);
  TensorImpl& o = *plan.target;
  if (is_value_test(op) && !is_floating(ty.compute)) {  // integers: finite, never NaN
    sdk_scalar v{};
    v.kind = SDK_SCALAR_BOOL;
    v.i = op == SDK_ISFINITE;
    fill_tensor(o, v);
  } else if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::unary(op, o, *ix);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ix}, it, name);
    SDK_DISPATCH_ALL(ty.compute, name, [&] { unary_kernel<scalar_t>(op, L); });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_elu(const sdk_tensor* x, double alpha, sdk_tensor* out,
                           sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& tx = checked(x, "sdk_elu", "x");
  if (!out) check_not_null(result, "sdk_elu", "result");
  sdk_dtype c = is_floating(tx.dtype) ? tx.dtype : SDK_FLOAT32;
  OutPlan plan;
  plan.prepare("elu", out, tx.ndim, tx.sizes, c, {&tx});
  Ref hx;
  const TensorImpl* ix = &tx;
  if (ix->dtype != c) ix = (hx = contiguous_copy(tx, c)).get();
  ix = plan.fix_alias(ix, hx);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::unary_params(SDK_CUDA_OP_ELU, o, *ix, true, alpha, false, 0.0);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ix}, it, "elu");
    SDK_DISPATCH_FLOATING(c, "elu", [&] {
      using C = typename OpMath<scalar_t>::type;
      C al = static_cast<C>(alpha);
      if constexpr (std::is_same_v<C, float>) {
        L.unary<scalar_t, scalar_t>([al](C v) { return vm::elu_f32(v, al); });
      } else {
        L.unary<scalar_t, scalar_t>([al](C v) { return v > 0 ? v : al * std::expm1(v); });
      }
    });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
