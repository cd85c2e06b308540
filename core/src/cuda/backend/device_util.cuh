// core/src/cuda/backend/device_util.cuh: typed loads/stores of runtime-typed operands, the
// index-to-offset walk and the element math shared by the elementwise and reduction kernels.
//
// Kernels are templated on the math type only (float, double, int64); element types are
// read and written by a switch on the operand's dtype. That keeps the number of kernel
// instantiations (and the backend's build time) small at the cost of a uniform branch.
#pragma once

// Host-and-device under nvcc; plain inline host code otherwise (the host-side test backend
// runs the same element math).
#if defined(__CUDACC__)
#define SDK_HD __host__ __device__ __forceinline__
#else
#define SDK_HD inline
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../../special_math.h"
#include "../backend_api.h"

namespace sdk::cuda {

#if !defined(__CUDACC__)
using std::acos;
using std::acosh;
using std::asin;
using std::asinh;
using std::atan;
using std::atan2;
using std::atanh;
using std::ceil;
using std::copysign;
using std::cos;
using std::cosh;
using std::erf;
using std::erfc;
using std::exp;
using std::exp2;
using std::expm1;
using std::fabs;
using std::floor;
using std::fmod;
using std::hypot;
using std::log;
using std::log10;
using std::log1p;
using std::log2;
using std::pow;
using std::rint;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;
using std::trunc;
#endif

// +inf of the math type (INFINITY is usable in device code, numeric_limits is not).
template <typename C>
SDK_HD C inf_of() {
  return static_cast<C>(INFINITY);
}

// Inverse error function: CUDA's own on the device, the core's (special_math.h) on the host.
template <typename C>
SDK_HD C erfinv_of(C x) {
#if defined(__CUDA_ARCH__)
  return erfinv(x);
#else
  return static_cast<C>(::sdk::special::erfinv(static_cast<double>(x)));
#endif
}

template <typename C>
SDK_HD C load_as(const char* p, int dtype) {
  switch (dtype) {
    case SDK_BOOL:
      return static_cast<C>(*reinterpret_cast<const bool*>(p) ? 1 : 0);
    case SDK_UINT8:
      return static_cast<C>(*reinterpret_cast<const uint8_t*>(p));
    case SDK_INT8:
      return static_cast<C>(*reinterpret_cast<const int8_t*>(p));
    case SDK_INT16:
      return static_cast<C>(*reinterpret_cast<const int16_t*>(p));
    case SDK_INT32:
      return static_cast<C>(*reinterpret_cast<const int32_t*>(p));
    case SDK_INT64:
      return static_cast<C>(*reinterpret_cast<const int64_t*>(p));
    case SDK_FLOAT16:
      return static_cast<C>(__half2float(*reinterpret_cast<const __half*>(p)));
    case SDK_BFLOAT16:
      return static_cast<C>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
    case SDK_FLOAT32:
      return static_cast<C>(*reinterpret_cast<const float*>(p));
    default:
      return static_cast<C>(*reinterpret_cast<const double*>(p));
  }
}

template <typename C>
SDK_HD void store_as(char* p, int dtype, C v) {
  switch (dtype) {
    case SDK_BOOL:
      *reinterpret_cast<bool*>(p) = v != C(0);
      break;
    case SDK_UINT8:
      *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT8:
      *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT16:
      *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT32:
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT64:
      *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v);
      break;
    case SDK_FLOAT16:
      *reinterpret_cast<__half*>(p) = __float2half_rn(static_cast<float>(v));
      break;
    case SDK_BFLOAT16:
      *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(static_cast<float>(v));
      break;
    case SDK_FLOAT32:
      *reinterpret_cast<float*>(p) = static_cast<float>(v);
      break;
    default:
      *reinterpret_cast<double*>(p) = static_cast<double>(v);
      break;
  }
}

SDK_HD int64_t elem_size(int dtype) {
  switch (dtype) {
    case SDK_BOOL:
    case SDK_UINT8:
    case SDK_INT8:
      return 1;
    case SDK_INT16:
    case SDK_FLOAT16:
    case SDK_BFLOAT16:
      return 2;
    case SDK_INT32:
    case SDK_FLOAT32:
      return 4;
    default:
      return 8;
  }
}

SDK_HD bool is_float_dtype(int dtype) { return dtype >= SDK_FLOAT16 && dtype <= SDK_FLOAT64; }

// Operand k of element `idx`: a scalar's value, else a load at the strided offset.
template <typename C>
SDK_HD C operand_value(const sdk_cuda_operand& o, int64_t off) {
  if (o.is_scalar) return is_float_dtype(o.dtype) ? static_cast<C>(o.f) : static_cast<C>(o.i);
  return load_as<C>(o.data + off, o.dtype);
}

// Byte offsets of every operand for linear index idx (row-major over sizes).
SDK_HD void element_offsets(const sdk_cuda_iter& it, int64_t idx, int64_t* off) {
  for (int k = 0; k < SDK_CUDA_MAX_OPERANDS; ++k) off[k] = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    int64_t size = it.sizes[d];
    int64_t i = idx % size;
    idx /= size;
    for (int k = 0; k < it.nops; ++k) off[k] += i * it.ops[k].strides[d];
  }
}

// ---- element math shared by the kernels (and the host-side test backend)

template <typename C>
SDK_HD C unary_float_rest(int op, C x, const sdk_cuda_iter& it);

// One float op of SDK_UNARY_OPS (and the backend's parametrized ones) on one element; the ops
// from log2 on are unary_float_rest's (one switch would pass 80 lines).
template <typename C>
SDK_HD C unary_float(int op, C x, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_NEG:
      return -x;
    case SDK_ABS:
      return fabs(x);
    case SDK_EXP:
      return exp(x);
    case SDK_LOG:
      return log(x);
    case SDK_SQRT:
      return sqrt(x);
    case SDK_RSQRT:
      return C(1) / sqrt(x);
    case SDK_SIN:
      return sin(x);
    case SDK_COS:
      return cos(x);
    case SDK_TANH:
      return tanh(x);
    case SDK_SIGMOID:
      return C(1) / (C(1) + exp(-x));
    case SDK_RELU:
      return x < C(0) ? C(0) : x;  // NaN stays NaN
    case SDK_GELU:
      return C(0.5) * x * (C(1) + erf(x * C(0.70710678118654752440)));
    case SDK_LOGICAL_NOT:
      return x == C(0) ? C(1) : C(0);
    case SDK_SIGN:
      return x != x ? x : C((x > C(0)) - (x < C(0)));
    case SDK_RECIPROCAL:
      return C(1) / x;
    case SDK_SQUARE:
      return x * x;
    case SDK_LOG1P:
      return log1p(x);
    case SDK_EXPM1:
      return expm1(x);
    case SDK_FLOOR:
      return floor(x);
    case SDK_CEIL:
      return ceil(x);
    case SDK_ROUND:
      return rint(x);  // half to even
    case SDK_ERF:
      return erf(x);
    case SDK_TAN:
      return tan(x);
    case SDK_ASIN:
      return asin(x);
    case SDK_ACOS:
      return acos(x);
    case SDK_ATAN:
      return atan(x);
    case SDK_SINH:
      return sinh(x);
    case SDK_COSH:
      return cosh(x);
    case SDK_ASINH:
      return asinh(x);
    case SDK_ACOSH:
      return acosh(x);
    case SDK_ATANH:
      return atanh(x);
    default:
      return unary_float_rest(op, x, it);
  }
}

template <typename C>
SDK_HD C unary_float_rest(int op, C x, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_LOG2:
      return log2(x);
    case SDK_LOG10:
      return log10(x);
    case SDK_EXP2:
      return exp2(x);
    case SDK_TRUNC:
      return trunc(x);
    case SDK_FRAC:
      return x - trunc(x);
    case SDK_ISNAN:
      return x != x ? C(1) : C(0);
    case SDK_ISINF:
      return fabs(x) == inf_of<C>() ? C(1) : C(0);
    case SDK_ISFINITE:
      return fabs(x) < inf_of<C>() ? C(1) : C(0);
    case SDK_ISPOSINF:
      return x == inf_of<C>() ? C(1) : C(0);
    case SDK_ISNEGINF:
      return x == -inf_of<C>() ? C(1) : C(0);
    case SDK_SILU:
      return x / (C(1) + exp(-x));
    case SDK_MISH: {  // x * tanh(softplus(x)) = x * n / (n + 2), n = e^x (e^x + 2)
      C e = exp(x < C(20) ? x : C(20));
      C n = e * (e + C(2));
      return x > C(20) ? x : x * n / (n + C(2));
    }
    case SDK_ERFC:
      return erfc(x);
    case SDK_ERFINV:
      return erfinv_of(x);
    case SDK_CUDA_OP_ELU:
      return x > C(0) ? x : C(it.p0) * expm1(x);
    case SDK_CUDA_OP_SOFTPLUS: {
      C bx = x * C(it.p0);
      return bx > C(it.p1) ? x : log1p(exp(bx)) / C(it.p0);
    }
    case SDK_CUDA_OP_LEAKY_RELU:
      return x > C(0) ? x : x * C(it.p0);
    case SDK_CUDA_OP_NAN_TO_NUM:
      if (x != x) return C(it.p0);
      if (x == inf_of<C>()) return C(it.p1);
      return x == -inf_of<C>() ? C(it.p2) : x;
    case SDK_CUDA_OP_CLAMP: {
      if (x != x) return x;
      if (it.has_p0 && x < C(it.p0)) x = C(it.p0);
      if (it.has_p1 && x > C(it.p1)) x = C(it.p1);
      return x;
    }
    default:
      return x;
  }
}

SDK_HD int64_t unary_int(int op, int64_t x, bool is_bool, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_NEG:
      return -x;
    case SDK_ABS:
      return x < 0 ? -x : x;
    case SDK_RELU:
      return x < 0 ? 0 : x;
    case SDK_SIGN:
      return (x > 0) - (x < 0);
    case SDK_SQUARE:
      return x * x;
    case SDK_BITWISE_NOT:
      return is_bool ? (x == 0) : ~x;
    case SDK_LOGICAL_NOT:
      return x == 0;
    case SDK_ISNAN:
    case SDK_ISINF:
    case SDK_ISPOSINF:
    case SDK_ISNEGINF:
      return 0;
    case SDK_ISFINITE:
      return 1;
    case SDK_CUDA_OP_CLAMP: {
      if (it.has_p0 && x < static_cast<int64_t>(it.p0)) x = static_cast<int64_t>(it.p0);
      if (it.has_p1 && x > static_cast<int64_t>(it.p1)) x = static_cast<int64_t>(it.p1);
      return x;
    }
    default:  // floor, ceil, round, trunc of integers are the identity
      return x;
  }
}

template <typename C>
SDK_HD C nan_max(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
template <typename C>
SDK_HD C nan_min(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}

// Python's floor division and modulo: the sign follows the divisor.
template <typename C>
SDK_HD C py_fmod(C a, C b) {
  C m = fmod(a, b);
  if (m != C(0)) {
    if ((b < C(0)) != (m < C(0))) m += b;
  } else {
    m = copysign(C(0), b);
  }
  return m;
}
template <typename C>
SDK_HD C py_floordiv(C a, C b) {
  if (b == C(0)) return a / b;
  C m = fmod(a, b);
  C div = (a - m) / b;
  if (m != C(0) && ((b < C(0)) != (m < C(0)))) div -= C(1);
  if (div == C(0)) return copysign(C(0), a / b);
  C fl = floor(div);
  if (div - fl > C(0.5)) fl += C(1);
  return fl;
}

SDK_HD int64_t int_pow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (int64_t e = exp; e > 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}

// torch's isclose: equal, or finite |a - b| within atol + rtol * |b|; NaN only with equal_nan.
template <typename C>
SDK_HD bool is_close(C a, C b, C rtol, C atol, bool equal_nan) {
  if (a == b) return true;
  if (equal_nan && a != a && b != b) return true;
  C diff = fabs(a - b);
  return diff < inf_of<C>() && diff <= atol + rtol * fabs(b);
}

template <typename C>
SDK_HD C binary_float(int op, C a, C b, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_ADD:
      return a + b;
    case SDK_SUB:
      return a - b;
    case SDK_MUL:
      return a * b;
    case SDK_DIV:
      return a / b;
    case SDK_POW:
      return pow(a, b);
    case SDK_MAXIMUM:
      return nan_max(a, b);
    case SDK_MINIMUM:
      return nan_min(a, b);
    case SDK_EQ:
      return a == b;
    case SDK_NE:
      return a != b;
    case SDK_LT:
      return a < b;
    case SDK_LE:
      return a <= b;
    case SDK_GT:
      return a > b;
    case SDK_GE:
      return a >= b;
    case SDK_LOGICAL_AND:
      return (a != C(0)) && (b != C(0));
    case SDK_LOGICAL_OR:
      return (a != C(0)) || (b != C(0));
    case SDK_LOGICAL_XOR:
      return (a != C(0)) != (b != C(0));
    case SDK_FLOOR_DIVIDE:
      return py_floordiv(a, b);
    case SDK_REMAINDER:
      return py_fmod(a, b);
    case SDK_ATAN2:
      return atan2(a, b);
    case SDK_FMOD:
      return fmod(a, b);
    case SDK_HYPOT:
      return hypot(a, b);
    case SDK_COPYSIGN:
      return copysign(a, b);
    case SDK_LOGADDEXP: {
      if (a == b && fabs(a) == inf_of<C>()) return a;  // inf - inf would give NaN
      C m = a > b ? a : b;
      return m + log1p(exp(-fabs(a - b)));
    }
    case SDK_XLOGY:
      if (b != b) return b;
      return a == C(0) ? C(0) : a * log(b);
    case SDK_CUDA_OP_ADD_SCALED:
      return a + C(it.p0) * b;
    case SDK_CUDA_OP_DIV_TRUNC:
      return trunc(a / b);
    case SDK_CUDA_OP_ISCLOSE:
    case SDK_CUDA_OP_ISCLOSE_EQUAL_NAN:
      return is_close(a, b, C(it.p0), C(it.p1), op == SDK_CUDA_OP_ISCLOSE_EQUAL_NAN) ? C(1) : C(0);
    default:
      return C(0);
  }
}

SDK_HD int64_t binary_int(int op, int64_t a, int64_t b, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_ADD:
      return a + b;
    case SDK_SUB:
      return a - b;
    case SDK_MUL:
      return a * b;
    case SDK_POW:
      return int_pow(a, b);
    case SDK_MAXIMUM:
      return a > b ? a : b;
    case SDK_MINIMUM:
      return a < b ? a : b;
    case SDK_EQ:
      return a == b;
    case SDK_NE:
      return a != b;
    case SDK_LT:
      return a < b;
    case SDK_LE:
      return a <= b;
    case SDK_GT:
      return a > b;
    case SDK_GE:
      return a >= b;
    case SDK_LOGICAL_AND:
      return a && b;
    case SDK_LOGICAL_OR:
      return a || b;
    case SDK_LOGICAL_XOR:
      return (a != 0) != (b != 0);
    case SDK_FLOOR_DIVIDE: {
      if (b == 0) return 0;  // the core rejects integer division by zero beforehand
      if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    }
    case SDK_REMAINDER: {
      if (b == 0 || b == -1) return 0;
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case SDK_BITWISE_AND:
      return a & b;
    case SDK_BITWISE_OR:
      return a | b;
    case SDK_BITWISE_XOR:
      return a ^ b;
    case SDK_FMOD:  // C's sign convention: the dividend's
      if (b == 0 || b == -1) return 0;
      return a % b;
    case SDK_CUDA_OP_ADD_SCALED:
      return a + static_cast<int64_t>(it.p0) * b;
    case SDK_CUDA_OP_DIV_TRUNC:
      if (b == 0) return 0;  // the core rejects integer division by zero beforehand
      if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
      return a / b;
    case SDK_CUDA_OP_ISCLOSE:
    case SDK_CUDA_OP_ISCLOSE_EQUAL_NAN:
      return is_close(static_cast<double>(a), static_cast<double>(b), it.p0, it.p1, false);
    default:
      return 0;
  }
}

// Ternary ops (SDK_CUDA_OP_LERP, ...): a, b, c already of the compute dtype.
template <typename C>
SDK_HD C ternary_float(int op, C a, C b, C c, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_CUDA_OP_LERP:  // torch's form: exact at both ends
      return fabs(c) < C(0.5) ? a + c * (b - a) : b - (b - a) * (C(1) - c);
    case SDK_CUDA_OP_ADDCMUL:
      return a + C(it.p0) * b * c;
    case SDK_CUDA_OP_ADDCDIV:
      return a + C(it.p0) * b / c;
    case SDK_CUDA_OP_CLAMP3: {
      if (a != a) return a;
      if (b != b) return b;
      if (c != c) return c;
      C r = a < b ? b : a;
      return r > c ? c : r;
    }
    default:
      return C(0);
  }
}

SDK_HD int64_t ternary_int(int op, int64_t a, int64_t b, int64_t c, const sdk_cuda_iter& it) {
  switch (op) {
    case SDK_CUDA_OP_ADDCMUL: {  // wraps around, as the CPU does
      uint64_t v = static_cast<uint64_t>(static_cast<int64_t>(it.p0));
      return static_cast<int64_t>(static_cast<uint64_t>(a) +
                                  v * static_cast<uint64_t>(b) * static_cast<uint64_t>(c));
    }
    case SDK_CUDA_OP_CLAMP3: {
      int64_t r = a < b ? b : a;
      return r > c ? c : r;
    }
    default:  // lerp and addcdiv need floating inputs (the core checks)
      return 0;
  }
}

template <typename A>
SDK_HD A identity_of(int op) {
  switch (op) {
    case SDK_PROD:
    case SDK_ALL:
      return A(1);
    default:
      return A(0);
  }
}

template <typename A>
SDK_HD A combine(int op, A a, A b) {
  switch (op) {
    case SDK_SUM:
    case SDK_MEAN:
      return a + b;
    case SDK_PROD:
      return a * b;
    case SDK_AMAX:
      if (a != a) return a;
      if (b != b) return b;
      return a > b ? a : b;
    case SDK_AMIN:
      if (a != a) return a;
      if (b != b) return b;
      return a < b ? a : b;
    case SDK_ALL:
      return (a != A(0)) && (b != A(0)) ? A(1) : A(0);
    default:  // any
      return (a != A(0)) || (b != A(0)) ? A(1) : A(0);
  }
}

// One line of a running sum or product (scan.cu and the host test backend): element j at
// byte offset j * step of `in` and `out`. A is double for floats, int64 (wrapping) otherwise.
template <typename A>
SDK_HD void scan_line(int op, int dtype, const char* in, char* out, int64_t n, int64_t step) {
  A acc = op == SDK_PROD ? A(1) : A(0);
  for (int64_t j = 0; j < n; ++j) {
    const A v = load_as<A>(in + j * step, dtype);
    if constexpr (std::is_integral_v<A>) {
      const uint64_t a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(v);
      acc = static_cast<A>(op == SDK_PROD ? a * b : a + b);
    } else {
      acc = op == SDK_PROD ? acc * v : acc + v;
    }
    store_as<A>(out + j * step, dtype, acc);
  }
}

SDK_HD int64_t offset_of(int64_t idx, int ndim, const int64_t* sizes, const int64_t* strides) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    int64_t i = idx % sizes[d];
    idx /= sizes[d];
    off += i * strides[d];
  }
  return off;
}

}  // namespace sdk::cuda
