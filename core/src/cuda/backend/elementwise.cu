// core/src/cuda/backend/elementwise.cu: copy/cast/fill, unary, binary, ternary and where kernels.
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
__global__ void ternary_kernel(sdk_cuda_iter it, int op) {
  int64_t off[SDK_CUDA_MAX_OPERANDS];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < it.numel;
       i += int64_t{gridDim.x} * blockDim.x) {
    element_offsets(it, i, off);
    C a = operand_value<C>(it.ops[1], off[1]);
    C b = operand_value<C>(it.ops[2], off[2]);
    C c = operand_value<C>(it.ops[3], off[3]);
    C y;
    if constexpr (std::is_same_v<C, int64_t>) {
      y = ternary_int(op, a, b, c, it);
    } else {
      y = ternary_float<C>(op, a, b, c, it);
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
struct TernaryK {
  static void launch(unsigned g, int t, cudaStream_t s, const sdk_cuda_iter& it, int op) {
    ternary_kernel<C><<<g, t, 0, s>>>(it, op);
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
  if (launch_fast_copy(it, s)) return;
  launch_kind<CopyK>(copy_kind(it.ops[0].dtype, it.ops[1].dtype), it, s);
}

void launch_unary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  if (launch_fast_unary(op, it, s)) return;
  launch_kind<UnaryK>(math_kind(it.ops[1].dtype), it, s, op);
}

void launch_binary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  if (launch_fast_binary(op, it, s)) return;
  launch_kind<BinaryK>(math_kind(it.ops[1].dtype), it, s, op);
}

void launch_ternary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  launch_kind<TernaryK>(math_kind(it.ops[1].dtype), it, s, op);
}

void launch_where(const sdk_cuda_iter& it, cudaStream_t s) {
  launch_kind<WhereK>(math_kind(it.ops[0].dtype), it, s);
}

}  // namespace sdk::cuda
