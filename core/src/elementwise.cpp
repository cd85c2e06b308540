// core/src/elementwise.cpp: binary ops (tensor-tensor and tensor-scalar) and div with a
// rounding mode.
#include "elementwise.h"

#include <cmath>

#include "cuda/glue/cuda_glue.h"
#include "op_names.h"

namespace sdk::detail {
namespace {

// Division rounded toward zero: an op of the binary kernels beyond the table, reached through
// sdk_div_rounding (the CUDA backend knows it by the same code).
constexpr int kDivTrunc = SDK_CUDA_OP_DIV_TRUNC;

bool is_comparison(int op) { return op >= SDK_EQ && op <= SDK_GE; }
bool is_logical(int op) { return op >= SDK_LOGICAL_AND && op <= SDK_LOGICAL_XOR; }
// Integer ops that divide: integer division by zero is an error.
bool is_int_division(int op) {
  return op == SDK_FLOOR_DIVIDE || op == SDK_REMAINDER || op == SDK_FMOD || op == kDivTrunc;
}

const char* binary_name(int op) { return op == kDivTrunc ? "div" : binary_op_name(op); }

struct BinaryTypes {
  sdk_dtype compute;
  sdk_dtype result;
};

// Compute and result dtypes of `op` on operands whose promoted dtype is `common`.
BinaryTypes binary_types(int op, sdk_dtype common) {
  const char* name = binary_name(op);
  switch (op) {
    case SDK_ADD:
    case SDK_MUL:
    case SDK_MAXIMUM:
    case SDK_MINIMUM:
      return {common, common};
    case SDK_SUB:
      SDK_TYPE_CHECK(common != SDK_BOOL,
                     "sub: subtraction of bool tensors is not supported; use logical_xor");
      return {common, common};
    case SDK_DIV:
    case SDK_ATAN2:
    case SDK_HYPOT:
    case SDK_COPYSIGN:
    case SDK_LOGADDEXP:
    case SDK_XLOGY: {
      sdk_dtype c = is_floating(common) ? common : SDK_FLOAT32;
      return {c, c};
    }
    case SDK_POW: {
      sdk_dtype c = common == SDK_BOOL ? SDK_INT64 : common;
      return {c, c};
    }
    case SDK_FLOOR_DIVIDE:
    case SDK_REMAINDER:
    case SDK_FMOD:
    case kDivTrunc:
      SDK_TYPE_CHECK(common != SDK_BOOL, name, ": not supported for bool tensors");
      return {common, common};
    case SDK_BITWISE_AND:
    case SDK_BITWISE_OR:
    case SDK_BITWISE_XOR:
      SDK_TYPE_CHECK(!is_floating(common), name,
                     ": only integer and bool tensors are supported, got ", dtype_name(common));
      return {common, common};
    default:
      if (is_comparison(op) || is_logical(op)) return {common, SDK_BOOL};
      SDK_FAIL(SDK_ERROR_VALUE, "sdk_binary: unknown op code ", op);
  }
}

template <typename T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  // unsigned and at least as wide as int: uint16 * uint16 would overflow int
  using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
  U result = 1, b = static_cast<U>(base);
  for (auto e = exp; e > 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<T>(result);
}

// Python's floor division and modulo for floats (signs follow the divisor).
template <typename C>
C py_fmod(C a, C b) {
  C m = std::fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(C(0), b);
  }
  return m;
}
template <typename C>
C py_floordiv(C a, C b) {
  if (b == 0) return a / b;
  C m = std::fmod(a, b);
  C div = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) div -= 1;
  if (div == 0) return std::copysign(C(0), a / b);
  C fl = std::floor(div);
  if (div - fl > C(0.5)) fl += 1;
  return fl;
}
// Integer versions: callers reject b == 0 beforehand; -1 avoids INT_MIN / -1 traps.
template <typename C>
C int_floordiv(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return static_cast<C>(0 - static_cast<std::make_unsigned_t<C>>(a));
    C q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return a / b;
  }
}
template <typename C>
C int_mod(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return 0;
    C r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    return a % b;
  }
}

// C's remainder for integers (the sign of the dividend); b == 0 is rejected beforehand.
template <typename C>
C int_fmod(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return 0;  // INT_MIN % -1 traps
  }
  return static_cast<C>(a % b);
}
template <typename C>
C int_div_trunc(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return static_cast<C>(0 - static_cast<std::make_unsigned_t<C>>(a));
  }
  return static_cast<C>(a / b);
}

// log(e^a + e^b) without overflow; equal infinities pass through (inf - inf is NaN).
template <typename C>
C log_add_exp(C a, C b) {
  if (a == b && std::isinf(a)) return a;
  C m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// a * log(b), 0 where a == 0 unless b is NaN (torch's xlogy).
template <typename C>
C x_log_y(C a, C b) {
  if (b != b) return b;
  return a == C(0) ? C(0) : a * std::log(b);
}

// The ops added with ABI 1.3; false when `op` is none of them (or not for this type).
template <typename T, typename C>
bool binary_kernel_more(int op, const Launch& L) {
  constexpr bool kFloat = std::is_floating_point_v<C>;
  constexpr bool kBool = std::is_same_v<C, bool>;
  if constexpr (kFloat) {
    switch (op) {
      case SDK_FMOD:
        L.binary<T, T>([](C a, C b) { return std::fmod(a, b); });
        return true;
      case SDK_HYPOT:
        L.binary<T, T>([](C a, C b) { return std::hypot(a, b); });
        return true;
      case SDK_COPYSIGN:
        L.binary<T, T>([](C a, C b) { return std::copysign(a, b); });
        return true;
      case SDK_LOGADDEXP:
        L.binary<T, T>([](C a, C b) { return log_add_exp(a, b); });
        return true;
      case SDK_XLOGY:
        L.binary<T, T>([](C a, C b) { return x_log_y(a, b); });
        return true;
      case kDivTrunc:
        L.binary<T, T>([](C a, C b) { return std::trunc(a / b); });
        return true;
      default:
        return false;
    }
  } else if constexpr (!kBool) {
    switch (op) {
      case SDK_FMOD:
        L.binary<T, T>([](C a, C b) { return int_fmod<C>(a, b); });
        return true;
      case kDivTrunc:
        L.binary<T, T>([](C a, C b) { return int_div_trunc<C>(a, b); });
        return true;
      default:
        return false;
    }
  }
  return false;
}

template <typename C>
C nan_max(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename C>
C nan_min(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

// Run `op` with inputs and output of element type T (comparisons/logical: bool out).
template <typename T>
void binary_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  constexpr bool kFloat = std::is_floating_point_v<C>;
  switch (op) {
    case SDK_ADD:
      return L.binary<T, T>([](C a, C b) { return wrap_add(a, b); });
    case SDK_SUB:
      return L.binary<T, T>([](C a, C b) { return wrap_sub(a, b); });
    case SDK_MUL:
      return L.binary<T, T>([](C a, C b) { return wrap_mul(a, b); });
    case SDK_DIV:
      if constexpr (kFloat) return L.binary<T, T>([](C a, C b) { return a / b; });
      break;
    case SDK_ATAN2:
      if constexpr (kFloat) return L.binary<T, T>([](C a, C b) { return std::atan2(a, b); });
      break;
    case SDK_POW:
      if constexpr (kFloat) {
        return L.binary<T, T>([](C a, C b) { return std::pow(a, b); });
      } else if constexpr (!std::is_same_v<C, bool>) {
        return L.binary<T, T>([](C a, C b) { return int_pow<C>(a, b); });
      }
      break;
    case SDK_MAXIMUM:
      return L.binary<T, T>([](C a, C b) { return nan_max(a, b); });
    case SDK_MINIMUM:
      return L.binary<T, T>([](C a, C b) { return nan_min(a, b); });
    case SDK_EQ:
      return L.binary<bool, T>([](C a, C b) { return a == b; });
    case SDK_NE:
      return L.binary<bool, T>([](C a, C b) { return a != b; });
    case SDK_LT:
      return L.binary<bool, T>([](C a, C b) { return a < b; });
    case SDK_LE:
      return L.binary<bool, T>([](C a, C b) { return a <= b; });
    case SDK_GT:
      return L.binary<bool, T>([](C a, C b) { return a > b; });
    case SDK_GE:
      return L.binary<bool, T>([](C a, C b) { return a >= b; });
    case SDK_LOGICAL_AND:
      return L.binary<bool, T>([](C a, C b) { return (a != C(0)) && (b != C(0)); });
    case SDK_LOGICAL_OR:
      return L.binary<bool, T>([](C a, C b) { return (a != C(0)) || (b != C(0)); });
    case SDK_LOGICAL_XOR:
      return L.binary<bool, T>([](C a, C b) { return (a != C(0)) != (b != C(0)); });
    case SDK_FLOOR_DIVIDE:
      if constexpr (kFloat) {
        return L.binary<T, T>([](C a, C b) { return py_floordiv(a, b); });
      } else if constexpr (!std::is_same_v<C, bool>) {
        return L.binary<T, T>([](C a, C b) { return int_floordiv<C>(a, b); });
      }
      break;
    case SDK_REMAINDER:
      if constexpr (kFloat) {
        return L.binary<T, T>([](C a, C b) { return py_fmod(a, b); });
      } else if constexpr (!std::is_same_v<C, bool>) {
        return L.binary<T, T>([](C a, C b) { return int_mod<C>(a, b); });
      }
      break;
    case SDK_BITWISE_AND:
      if constexpr (!kFloat) return L.binary<T, T>([](C a, C b) { return a & b; });
      break;
    case SDK_BITWISE_OR:
      if constexpr (!kFloat) return L.binary<T, T>([](C a, C b) { return a | b; });
      break;
    case SDK_BITWISE_XOR:
      if constexpr (!kFloat) return L.binary<T, T>([](C a, C b) { return a ^ b; });
      break;
    default:
      if (binary_kernel_more<T, C>(op, L)) return;
      break;
  }
  SDK_FAIL(SDK_ERROR_TYPE, binary_name(op), ": unsupported dtype ", dtype_name(dtype_of<T>()));
}

// Exponents that pow(tensor, scalar) computes without std::pow, as torch does.
bool pow_special_exponent(double e) {
  return e == 2 || e == 3 || e == 0.5 || e == -1 || e == -2 || e == 1 || e == 0;
}

// x ** e for a special exponent as a vectorizable unary loop; false if not handled.
// float32 x^3 and x^-2 go through double so the result is rounded once.
template <typename T>
bool pow_scalar_kernel(const Launch& L, double e) {
  using C = typename OpMath<T>::type;
  if constexpr (std::is_same_v<C, bool>) {
    return false;
  } else if constexpr (std::is_floating_point_v<C>) {
    constexpr bool kF32 = std::is_same_v<T, float>;
    if (e == 2) {
      L.unary<T, T>([](C x) { return x * x; });
    } else if (e == 3) {
      if constexpr (kF32) {
        L.unary<T, T>([](C x) {
          double d = x;
          return static_cast<float>(d * d * d);
        });
      } else {
        L.unary<T, T>([](C x) { return x * x * x; });
      }
    } else if (e == 0.5) {
      // sqrt, as torch and numpy do: pow(-0, 0.5) is -0 and pow(-inf, 0.5) NaN there too.
      L.unary<T, T>([](C x) { return std::sqrt(x); });
    } else if (e == -1) {
      L.unary<T, T>([](C x) { return C(1) / x; });
    } else if (e == -2) {
      if constexpr (kF32) {
        L.unary<T, T>([](C x) {
          double d = x;
          return static_cast<float>(1.0 / (d * d));
        });
      } else {
        L.unary<T, T>([](C x) { return C(1) / (x * x); });
      }
    } else if (e == 1) {
      L.unary<T, T>([](C x) { return x; });
    } else if (e == 0) {
      L.unary<T, T>([](C) { return C(1); });
    } else {
      return false;
    }
    return true;
  } else {
    // Wrapping products in an unsigned type at least as wide as int (no UB).
    using U = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
    if (e == 2) {
      L.unary<T, T>([](C x) {
        U u = static_cast<U>(x);
        return static_cast<C>(u * u);
      });
    } else if (e == 3) {
      L.unary<T, T>([](C x) {
        U u = static_cast<U>(x);
        return static_cast<C>(u * u * u);
      });
    } else if (e == 1) {
      L.unary<T, T>([](C x) { return x; });
    } else if (e == 0) {
      L.unary<T, T>([](C) { return C(1); });
    } else {
      return false;
    }
    return true;
  }
}

// True if any element of t is zero (integer division checks).
bool has_zero(const TensorImpl& t) {
  bool found = false;
  TensorIter it;
  it.build({&t}, "has_zero");
  SDK_DISPATCH_ALL(t.dtype, "has_zero", [&] {
    it.run_range(0, it.numel, [&](char** p, const int64_t* s, int64_t n) {
      const char* q = p[0];
      for (int64_t i = 0; i < n && !found; ++i, q += s[0])
        found = *reinterpret_cast<const scalar_t*>(q) == scalar_t(0);
    });
  });
  return found;
}

void check_int_division(int op, sdk_dtype compute, bool zero) {
  if (is_int_division(op) && !is_floating(compute) && zero) {
    SDK_FAIL(SDK_ERROR_RUNTIME, binary_name(op), ": integer division by zero");
  }
}

// out = op(a, b) for any op of the binary kernels (table codes and kDivTrunc).
void binary_tensors(int op, const TensorImpl& ta, const TensorImpl& tb, sdk_tensor* out,
                    sdk_tensor** result) {
  cuda::check_same_device(binary_name(op), {&ta, &tb});
  BinaryTypes ty =
      binary_types(op, promote_operands(ta.dtype, ta.ndim == 0, tb.dtype, tb.ndim == 0));
  int64_t sz[kIterMaxDims];
  int64_t nd;
  if (same_shape(ta, tb)) {
    nd = ta.ndim;
    for (int64_t d = 0; d < nd; ++d) sz[d] = ta.sizes[d];
  } else {
    const TensorImpl* both[2] = {&ta, &tb};
    nd = broadcast_shapes(binary_name(op), 2, both, sz);
  }
  if (!is_floating(ty.compute) && is_int_division(op)) {
    check_int_division(op, ty.compute, cuda::is_cuda(tb) ? cuda::has_zero(tb) : has_zero(tb));
  }
  OutPlan plan;
  plan.prepare(binary_name(op), out, nd, sz, ty.result, {&ta, &tb});
  Ref ha, hb;
  const TensorImpl* ia = &ta;
  const TensorImpl* ib = &tb;
  if (ia->dtype != ty.compute) ia = (ha = contiguous_copy(ta, ty.compute)).get();
  if (ib->dtype != ty.compute) ib = (hb = contiguous_copy(tb, ty.compute)).get();
  ia = plan.fix_alias(ia, ha);
  ib = plan.fix_alias(ib, hb);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::binary(op, o, *ia, *ib);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ia, ib}, it, binary_name(op));
    SDK_DISPATCH_ALL(ty.compute, binary_name(op), [&] { binary_kernel<scalar_t>(op, L); });
  }
  plan.finish(result);
}

// out = op(a, s), or op(s, a) when scalar_first.
void binary_with_scalar(int op, const TensorImpl& ta, const sdk_scalar& s, bool scalar_first,
                        sdk_tensor* out, sdk_tensor** result) {
  check_scalar(s, binary_name(op), "scalar");
  // torch: a Python scalar lifts the category (int -> float) but never the width.
  BinaryTypes ty = binary_types(op, promote_with_scalar(ta.dtype, s.kind));
  bool int_compute = !is_floating(ty.compute);
  if (int_compute && is_int_division(op)) {
    check_int_division(op, ty.compute,
                       scalar_first ? (cuda::is_cuda(ta) ? cuda::has_zero(ta) : has_zero(ta))
                                    : scalar_as<int64_t>(s) == 0);
  }
  if (int_compute && op == SDK_POW && !scalar_first && scalar_as<int64_t>(s) < 0) {
    SDK_FAIL(SDK_ERROR_VALUE, "pow: integers to negative integer powers are not allowed");
  }
  OutPlan plan;
  plan.prepare(binary_name(op), out, ta.ndim, ta.sizes, ty.result, {&ta});
  Ref ha;
  const TensorImpl* ia = &ta;
  if (ia->dtype != ty.compute) ia = (ha = contiguous_copy(ta, ty.compute)).get();
  ia = plan.fix_alias(ia, ha);
  alignas(16) char buf[16];
  SDK_DISPATCH_ALL(ty.compute, binary_name(op),
                   [&] { *reinterpret_cast<scalar_t*>(buf) = scalar_as<scalar_t>(s); });
  TensorImpl& o = *plan.target;
  if (op == SDK_POW && !scalar_first && o.numel > 0 && !cuda::is_cuda(o) &&
      pow_special_exponent(scalar_as<double>(s))) {
    bool done = false;
    TensorIter it;
    Launch L = make_launch(o, {ia}, it, "pow");
    SDK_DISPATCH_ALL(ty.compute, "pow",
                     [&] { done = pow_scalar_kernel<scalar_t>(L, scalar_as<double>(s)); });
    if (done) {
      plan.finish(result);
      return;
    }
  }
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::binary_scalar(op, o, *ia, s, ty.compute, scalar_first);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ia}, it, binary_name(op));
    insert_constant(L, scalar_first ? 1 : 2, buf);
    SDK_DISPATCH_ALL(ty.compute, binary_name(op), [&] { binary_kernel<scalar_t>(op, L); });
  }
  plan.finish(result);
}

// The binary op of a rounding mode (sdk_rounding_mode).
int rounding_op(int32_t mode) {
  switch (mode) {
    case SDK_ROUNDING_NONE:
      return SDK_DIV;
    case SDK_ROUNDING_TRUNC:
      return kDivTrunc;
    case SDK_ROUNDING_FLOOR:
      return SDK_FLOOR_DIVIDE;
    default:
      SDK_FAIL(SDK_ERROR_VALUE, "div: unknown rounding mode code ", mode,
               " (expected 0 for None, 1 for 'trunc', 2 for 'floor')");
  }
}

}  // namespace

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_binary(int32_t op, const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_binary", "a");
  const TensorImpl& tb = checked(b, "sdk_binary", "b");
  if (!out) check_not_null(result, "sdk_binary", "result");
  if (op < 0 || op >= kBinaryOps) SDK_FAIL(SDK_ERROR_VALUE, "sdk_binary: unknown op code ", op);
  binary_tensors(op, ta, tb, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_binary_scalar(int32_t op, const sdk_tensor* a, sdk_scalar s,
                                     int32_t scalar_first, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_binary_scalar", "a");
  if (!out) check_not_null(result, "sdk_binary_scalar", "result");
  if (op < 0 || op >= kBinaryOps) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_binary_scalar: unknown op code ", op);
  }
  binary_with_scalar(op, ta, s, scalar_first != 0, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_div_rounding(const sdk_tensor* a, const sdk_tensor* b, int32_t rounding_mode,
                                    sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_div_rounding", "a");
  const TensorImpl& tb = checked(b, "sdk_div_rounding", "b");
  if (!out) check_not_null(result, "sdk_div_rounding", "result");
  binary_tensors(rounding_op(rounding_mode), ta, tb, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_div_rounding_scalar(const sdk_tensor* a, sdk_scalar s, int32_t scalar_first,
                                           int32_t rounding_mode, sdk_tensor* out,
                                           sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_div_rounding_scalar", "a");
  if (!out) check_not_null(result, "sdk_div_rounding_scalar", "result");
  binary_with_scalar(rounding_op(rounding_mode), ta, s, scalar_first != 0, out, result);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
