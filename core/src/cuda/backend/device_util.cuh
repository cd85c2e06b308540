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

#include "../backend_api.h"

namespace sdk::cuda {

#if !defined(__CUDACC__)
using std::atan2;
using std::ceil;
using std::copysign;
using std::cos;
using std::erf;
using std::exp;
using std::expm1;
using std::fabs;
using std::floor;
using std::fmod;
using std::log;
using std::log1p;
using std::pow;
using std::rint;
using std::sin;
using std::sqrt;
using std::tanh;
#endif

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
// Bytes per element of a dtype.
SDK_HD int64_t dtype_size(int dtype) {
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
    case SDK_CUDA_OP_ELU:
      return x > C(0) ? x : C(it.p0) * expm1(x);
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
    case SDK_CUDA_OP_CLAMP: {
      if (it.has_p0 && x < static_cast<int64_t>(it.p0)) x = static_cast<int64_t>(it.p0);
      if (it.has_p1 && x > static_cast<int64_t>(it.p1)) x = static_cast<int64_t>(it.p1);
      return x;
    }
    default:  // floor, ceil, round of integers are the identity
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
    case SDK_CUDA_OP_ADD_SCALED:
      return a + C(it.p0) * b;
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
    case SDK_CUDA_OP_ADD_SCALED:
      return a + static_cast<int64_t>(it.p0) * b;
    default:
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
