// core/src/cuda/backend/reduce.cu: reductions over any set of dims, and the fallback matmul.
//
// Reduction: one block per output element (grid-stride over outputs); the block's threads
// stride over the reduced elements and combine through shared memory. This serves both
// shapes that matter: many small reductions (a block each) and one large reduction (all
// threads of one block). Sums accumulate in double (floats) or int64 (integers).
#include <cmath>

#include "common.h"
#include "device_util.cuh"

namespace sdk::cuda {
namespace {

constexpr int kReduceThreads = 256;

template <typename A>
__global__ void reduce_kernel(sdk_cuda_reduce_desc d) {
  __shared__ A partial[kReduceThreads];
  __shared__ int seen[kReduceThreads];
  const bool logical = d.op == SDK_ALL || d.op == SDK_ANY;
  const bool minmax = d.op == SDK_AMAX || d.op == SDK_AMIN;
  for (int64_t o = blockIdx.x; o < d.out_numel; o += gridDim.x) {
    const char* base = d.in + offset_of(o, d.out_ndim, d.out_sizes, d.in_out_strides);
    A acc = identity_of<A>(d.op);
    bool have = false;
    for (int64_t j = threadIdx.x; j < d.red_numel; j += blockDim.x) {
      const char* p = base + offset_of(j, d.red_ndim, d.red_sizes, d.in_red_strides);
      A v;
      if (logical) {
        v = load_as<double>(p, d.in_dtype) != 0.0 ? A(1) : A(0);
      } else {
        v = load_as<A>(p, d.in_dtype);
      }
      // min/max have no identity: a thread starts from its first element.
      acc = (have || !minmax) ? combine(d.op, acc, v) : v;
      have = true;
    }
    partial[threadIdx.x] = acc;
    // Threads that saw nothing hold the identity: combine only real values.
    seen[threadIdx.x] = have ? 1 : 0;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
      if (threadIdx.x < step) {
        int other = threadIdx.x + step;
        if (seen[other]) {
          partial[threadIdx.x] = seen[threadIdx.x]
                                     ? combine(d.op, partial[threadIdx.x], partial[other])
                                     : partial[other];
          seen[threadIdx.x] = 1;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      A r = partial[0];
      if (d.op == SDK_MEAN) {
        r = static_cast<A>(static_cast<double>(r) / static_cast<double>(d.red_numel));
      }
      store_as<A>(d.out + offset_of(o, d.out_ndim, d.out_sizes, d.out_strides), d.out_dtype, r);
    }
    __syncthreads();
  }
}

// c = alpha * a @ b + beta * c, one thread per output; accumulates in A.
template <typename A>
__global__ void gemm_kernel(sdk_cuda_gemm_desc d) {
  int64_t total = d.m * d.n;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t i = idx / d.n, j = idx % d.n;
    A acc = 0;
    for (int64_t k = 0; k < d.k; ++k) {
      A x = load_as<A>(d.a + (i * d.a_rs + k * d.a_cs) * elem_size(d.dtype), d.dtype);
      A y = load_as<A>(d.b + (k * d.b_rs + j * d.b_cs) * elem_size(d.dtype), d.dtype);
      acc += x * y;
    }
    char* pc = d.c + (i * d.c_rs + j * d.c_cs) * elem_size(d.dtype);
    A r = A(d.alpha) * acc;
    if (d.beta != 0.0) r += A(d.beta) * load_as<A>(pc, d.dtype);
    store_as<A>(pc, d.dtype, r);
  }
}

}  // namespace

void launch_reduce(const sdk_cuda_reduce_desc& d, cudaStream_t s) {
  if (d.out_numel <= 0) return;
  unsigned int grid = d.out_numel > 65535 ? 65535u : static_cast<unsigned int>(d.out_numel);
  if (is_float_dtype(d.out_dtype)) {
    reduce_kernel<double><<<grid, kReduceThreads, 0, s>>>(d);
  } else {
    reduce_kernel<int64_t><<<grid, kReduceThreads, 0, s>>>(d);
  }
}

void launch_naive_gemm(const sdk_cuda_gemm_desc& d, cudaStream_t s) {
  int64_t total = d.m * d.n;
  if (total <= 0) return;
  if (!is_float_dtype(d.dtype)) {
    fail(SDK_ERROR_TYPE, "mm on CUDA: only floating dtypes are supported");
  }
  unsigned int grid = grid_for(total, 256);
  if (d.dtype == SDK_FLOAT64) {
    gemm_kernel<double><<<grid, 256, 0, s>>>(d);
  } else {
    gemm_kernel<float><<<grid, 256, 0, s>>>(d);
  }
}

}  // namespace sdk::cuda
