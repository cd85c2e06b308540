// core/src/cuda/backend/reduce.cu: reductions over any set of dims, and the fallback matmul.
//
// Reduction: one block per output element (grid-stride over outputs); the block's threads
// stride over the reduced elements and combine through shared memory. A few large
// reductions (x.sum() of a big tensor) are split instead: up to 1024 blocks per output each
// reduce a chunk into a scratch buffer, and a second kernel combines the chunks. Sums
// accumulate in double (floats) or int64 (integers).
#include <cmath>

#include "common.h"
#include "device_util.cuh"

namespace sdk::cuda {
namespace {

constexpr int kReduceThreads = 256;
// A reduction of at least this many elements per output, with few outputs, is split over
// several blocks per output (partials in a scratch buffer, then a second pass).
constexpr int64_t kSplitMinElements = int64_t{1} << 16;
constexpr int64_t kMaxChunks = 1024;  // blocks per output in the first pass
constexpr int64_t kSplitMaxOutputs = 256;

// Combine the block's per-thread (value, seen) pairs; thread 0 returns the result and
// whether any thread saw a value. Threads that saw nothing hold the identity, and min/max
// (which have none) take the first real value. Every thread of the block must call it.
template <typename A>
__device__ bool block_combine(int op, A& acc, bool have) {
  __shared__ A partial[kReduceThreads];
  __shared__ int seen[kReduceThreads];
  partial[threadIdx.x] = acc;
  seen[threadIdx.x] = have ? 1 : 0;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) {
      int other = threadIdx.x + step;
      if (seen[other]) {
        partial[threadIdx.x] =
            seen[threadIdx.x] ? combine(op, partial[threadIdx.x], partial[other]) : partial[other];
        seen[threadIdx.x] = 1;
      }
    }
    __syncthreads();
  }
  acc = partial[0];
  bool any = seen[0] != 0;
  __syncthreads();  // the shared arrays are reused by the caller's next output
  return any;
}

// This thread's share of elements [begin, end) of output o's reduction.
template <typename A>
__device__ bool thread_reduce(const sdk_cuda_reduce_desc& d, const char* base, int64_t begin,
                              int64_t end, A& acc) {
  const bool logical = d.op == SDK_ALL || d.op == SDK_ANY;
  const bool minmax = d.op == SDK_AMAX || d.op == SDK_AMIN;
  acc = identity_of<A>(d.op);
  bool have = false;
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const char* p = base + offset_of(j, d.red_ndim, d.red_sizes, d.in_red_strides);
    A v =
        logical ? (load_as<double>(p, d.in_dtype) != 0.0 ? A(1) : A(0)) : load_as<A>(p, d.in_dtype);
    // min/max have no identity: a thread starts from its first element.
    acc = (have || !minmax) ? combine(d.op, acc, v) : v;
    have = true;
  }
  return have;
}

template <typename A>
__device__ void store_result(const sdk_cuda_reduce_desc& d, int64_t o, A r) {
  if (d.op == SDK_MEAN)
    r = static_cast<A>(static_cast<double>(r) / static_cast<double>(d.red_numel));
  store_as<A>(d.out + offset_of(o, d.out_ndim, d.out_sizes, d.out_strides), d.out_dtype, r);
}

// One block per output element (grid-stride over outputs).
template <typename A>
__global__ void reduce_kernel(sdk_cuda_reduce_desc d) {
  for (int64_t o = blockIdx.x; o < d.out_numel; o += gridDim.x) {
    const char* base = d.in + offset_of(o, d.out_ndim, d.out_sizes, d.in_out_strides);
    A acc;
    bool have = thread_reduce<A>(d, base, 0, d.red_numel, acc);
    block_combine<A>(d.op, acc, have);
    if (threadIdx.x == 0) store_result<A>(d, o, acc);
  }
}

// First pass of a split reduction: block (c, o) reduces chunk c of output o into
// partials[o * chunks + c] (seen[...] = 0 when the chunk was empty).
template <typename A>
__global__ void reduce_chunks_kernel(sdk_cuda_reduce_desc d, int64_t chunks, A* partials,
                                     int* seen) {
  const int64_t o = blockIdx.y;
  const int64_t per = (d.red_numel + chunks - 1) / chunks;
  const int64_t begin = blockIdx.x * per;
  const int64_t end = begin + per < d.red_numel ? begin + per : d.red_numel;
  const char* base = d.in + offset_of(o, d.out_ndim, d.out_sizes, d.in_out_strides);
  A acc;
  bool have = thread_reduce<A>(d, base, begin, end, acc);
  have = block_combine<A>(d.op, acc, have);
  if (threadIdx.x == 0) {
    partials[o * chunks + blockIdx.x] = acc;
    seen[o * chunks + blockIdx.x] = have ? 1 : 0;
  }
}

// Second pass: block o combines output o's chunk partials and stores the result.
template <typename A>
__global__ void reduce_finish_kernel(sdk_cuda_reduce_desc d, int64_t chunks, const A* partials,
                                     const int* seen) {
  const int64_t o = blockIdx.x;
  A acc = identity_of<A>(d.op);
  bool have = false;
  for (int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
    if (!seen[o * chunks + c]) continue;
    A v = partials[o * chunks + c];
    acc = have ? combine(d.op, acc, v) : v;
    have = true;
  }
  block_combine<A>(d.op, acc, have);
  if (threadIdx.x == 0) store_result<A>(d, o, acc);
}

template <typename A>
void launch_reduce_as(const sdk_cuda_reduce_desc& d, cudaStream_t s) {
  const int64_t chunks_wanted = d.red_numel / kSplitMinElements;
  if (d.out_numel > kSplitMaxOutputs || chunks_wanted < 2) {
    unsigned int grid = d.out_numel > 65535 ? 65535u : static_cast<unsigned int>(d.out_numel);
    reduce_kernel<A><<<grid, kReduceThreads, 0, s>>>(d);
    return;
  }
  // Enough blocks to fill the GPU: about 1024 in all, at most kMaxChunks per output.
  int64_t chunks = (1024 + d.out_numel - 1) / d.out_numel;
  if (chunks > chunks_wanted) chunks = chunks_wanted;
  if (chunks > kMaxChunks) chunks = kMaxChunks;
  const int64_t n = d.out_numel * chunks;
  // Scratch from the caching allocator, ordered on this stream: freeing it right after the
  // launches is safe (the block is reused only by later work on the same stream).
  char* scratch = static_cast<char*>(cache_malloc(n * int64_t(sizeof(A) + sizeof(int)), d.device));
  A* partials = reinterpret_cast<A*>(scratch);
  int* seen = reinterpret_cast<int*>(scratch + n * int64_t(sizeof(A)));
  dim3 grid(static_cast<unsigned int>(chunks), static_cast<unsigned int>(d.out_numel));
  reduce_chunks_kernel<A><<<grid, kReduceThreads, 0, s>>>(d, chunks, partials, seen);
  reduce_finish_kernel<A>
      <<<static_cast<unsigned int>(d.out_numel), kReduceThreads, 0, s>>>(d, chunks, partials, seen);
  cache_free(scratch);
}

// c = alpha * a @ b + beta * c for each of d's products, one thread per output; accumulates
// in A.
template <typename A>
__global__ void gemm_kernel(sdk_cuda_gemm_desc d) {
  const int64_t per = d.m * d.n, total = per * (d.batch > 1 ? d.batch : 1);
  const int64_t isz = elem_size(d.dtype);
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    const int64_t batch = idx / per, i = idx % per / d.n, j = idx % d.n;
    const char* a = d.a + batch * d.a_bs * isz;
    const char* b = d.b + batch * d.b_bs * isz;
    A acc = 0;
    for (int64_t k = 0; k < d.k; ++k) {
      A x = load_as<A>(a + (i * d.a_rs + k * d.a_cs) * isz, d.dtype);
      A y = load_as<A>(b + (k * d.b_rs + j * d.b_cs) * isz, d.dtype);
      acc += x * y;
    }
    char* pc = d.c + (batch * d.c_bs + i * d.c_rs + j * d.c_cs) * isz;
    A r = A(d.alpha) * acc;
    if (d.beta != 0.0) r += A(d.beta) * load_as<A>(pc, d.dtype);
    store_as<A>(pc, d.dtype, r);
  }
}

}  // namespace

void launch_reduce(const sdk_cuda_reduce_desc& d, cudaStream_t s) {
  if (d.out_numel <= 0) return;
  if (launch_fast_reduce(d, s)) return;
  if (is_float_dtype(d.out_dtype)) {
    launch_reduce_as<double>(d, s);
  } else {
    launch_reduce_as<int64_t>(d, s);
  }
}

void launch_naive_gemm(const sdk_cuda_gemm_desc& d, cudaStream_t s) {
  const int64_t total = d.m * d.n * (d.batch > 1 ? d.batch : 1);
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
