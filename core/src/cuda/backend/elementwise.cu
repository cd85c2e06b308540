// core/src/cuda/backend/elementwise.cu: copy/cast/fill, unary, binary and where kernels.
//
// The core has already decided dtypes (promotion, casts of inputs to the compute dtype) as
// it does for the CPU; these kernels evaluate in the math type of the compute dtype
// (float for 16/32-bit floats, double, int64 for integers and bool) and store with a cast.
#include <cmath>

#include "common.h"
#include "device_util.cuh"

namespace sdk::cuda {
namespace {

constexpr int kThreads = 256;

template <typename C>
__global__ void copy_kernel(sdk_cuda_iter it) {
  int64_t off[SDK_CUDA_MAX_OPERANDS];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < it.numel;
       i += int64_t{gridDim.x} * blockDim.x) {
    element_offsets(it, i, off);
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, operand_value<C>(it.ops[1], off[1]));
  }
}

// ---------------------------------------------------------------------------- unary

template <typename C>
__device__ C unary_float(int op, C x, const sdk_cuda_iter& it) {
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

__device__ int64_t unary_int(int op, int64_t x, bool is_bool, const sdk_cuda_iter& it) {
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
__global__ void unary_kernel(sdk_cuda_iter it, int op) {
  int64_t off[SDK_CUDA_MAX_OPERANDS];
  const bool is_bool = it.ops[1].dtype == SDK_BOOL;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < it.numel;
       i += int64_t{gridDim.x} * blockDim.x) {
    element_offsets(it, i, off);
    C x = operand_value<C>(it.ops[1], off[1]);
    C y;
    if constexpr (std::is_same_v<C, int64_t>) {
      y = unary_int(op, x, is_bool, it);
    } else {
      y = unary_float<C>(op, x, it);
    }
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, y);
  }
}

// ---------------------------------------------------------------------------- binary

template <typename C>
__device__ C nan_max(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
template <typename C>
__device__ C nan_min(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}

// Python's floor division and modulo: the sign follows the divisor.
template <typename C>
__device__ C py_fmod(C a, C b) {
  C m = fmod(a, b);
  if (m != C(0)) {
    if ((b < C(0)) != (m < C(0))) m += b;
  } else {
    m = copysign(C(0), b);
  }
  return m;
}
template <typename C>
__device__ C py_floordiv(C a, C b) {
  if (b == C(0)) return a / b;
  C m = fmod(a, b);
  C div = (a - m) / b;
  if (m != C(0) && ((b < C(0)) != (m < C(0)))) div -= C(1);
  if (div == C(0)) return copysign(C(0), a / b);
  C fl = floor(div);
  if (div - fl > C(0.5)) fl += C(1);
  return fl;
}

__device__ int64_t int_pow(int64_t base, int64_t exp) {
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
__device__ C binary_float(int op, C a, C b, const sdk_cuda_iter& it) {
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

__device__ int64_t binary_int(int op, int64_t a, int64_t b, const sdk_cuda_iter& it) {
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

template <typename C>
__global__ void binary_kernel(sdk_cuda_iter it, int op) {
  int64_t off[SDK_CUDA_MAX_OPERANDS];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < it.numel;
       i += int64_t{gridDim.x} * blockDim.x) {
    element_offsets(it, i, off);
    C a = operand_value<C>(it.ops[1], off[1]);
    C b = operand_value<C>(it.ops[2], off[2]);
    C y;
    if constexpr (std::is_same_v<C, int64_t>) {
      y = binary_int(op, a, b, it);
    } else {
      y = binary_float<C>(op, a, b, it);
    }
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, y);
  }
}

template <typename C>
__global__ void where_kernel(sdk_cuda_iter it) {
  int64_t off[SDK_CUDA_MAX_OPERANDS];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < it.numel;
       i += int64_t{gridDim.x} * blockDim.x) {
    element_offsets(it, i, off);
    bool c = operand_value<int64_t>(it.ops[1], off[1]) != 0;
    C v = c ? operand_value<C>(it.ops[2], off[2]) : operand_value<C>(it.ops[3], off[3]);
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, v);
  }
}

// Math type for a dtype: 0 float, 1 double, 2 int64.
int math_kind(int dtype) {
  if (dtype == SDK_FLOAT64) return 1;
  if (is_float_dtype(dtype)) return 0;
  return 2;
}

// Cast copies go through the wider of the two math types, so int64 -> int64 stays exact
// and float -> double loses nothing.
int copy_kind(int out, int in) {
  if (!is_float_dtype(out) && !is_float_dtype(in)) return 2;
  if (out == SDK_FLOAT64 || in == SDK_FLOAT64 || in == SDK_INT64 || out == SDK_INT64) return 1;
  return 0;
}

template <template <typename> class K, typename... Args>
void launch_kind(int kind, const sdk_cuda_iter& it, cudaStream_t s, Args... args) {
  if (it.numel <= 0) return;
  unsigned int grid = grid_for(it.numel, kThreads);
  switch (kind) {
    case 0:
      K<float>::launch(grid, kThreads, s, it, args...);
      break;
    case 1:
      K<double>::launch(grid, kThreads, s, it, args...);
      break;
    default:
      K<int64_t>::launch(grid, kThreads, s, it, args...);
      break;
  }
}

template <typename C>
struct CopyK {
  static void launch(unsigned g, int t, cudaStream_t s, const sdk_cuda_iter& it) {
    copy_kernel<C><<<g, t, 0, s>>>(it);
  }
};
template <typename C>
struct UnaryK {
  static void launch(unsigned g, int t, cudaStream_t s, const sdk_cuda_iter& it, int op) {
    unary_kernel<C><<<g, t, 0, s>>>(it, op);
  }
};
template <typename C>
struct BinaryK {
  static void launch(unsigned g, int t, cudaStream_t s, const sdk_cuda_iter& it, int op) {
    binary_kernel<C><<<g, t, 0, s>>>(it, op);
  }
};
template <typename C>
struct WhereK {
  static void launch(unsigned g, int t, cudaStream_t s, const sdk_cuda_iter& it) {
    where_kernel<C><<<g, t, 0, s>>>(it);
  }
};

}  // namespace

void launch_copy(const sdk_cuda_iter& it, cudaStream_t s) {
  launch_kind<CopyK>(copy_kind(it.ops[0].dtype, it.ops[1].dtype), it, s);
}

void launch_unary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  launch_kind<UnaryK>(math_kind(it.ops[1].dtype), it, s, op);
}

void launch_binary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  launch_kind<BinaryK>(math_kind(it.ops[1].dtype), it, s, op);
}

void launch_where(const sdk_cuda_iter& it, cudaStream_t s) {
  launch_kind<WhereK>(math_kind(it.ops[0].dtype), it, s);
}

}  // namespace sdk::cuda
