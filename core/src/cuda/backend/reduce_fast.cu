// core/src/cuda/backend/reduce_fast.cu: sum/mean/amax/amin over contiguous layouts
// (fast_path.h's plan_reduce): a full reduction with 16-byte loads, four accumulators per
// thread and warp shuffles; one warp per row for inner reductions; adjacent columns per warp
// for outer ones. float16/bfloat16/float32 accumulate in float, float64 in double.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>

#include "common.h"
#include "device_util.cuh"
#include "fast_path.h"
#include "fast_types.cuh"

namespace sdk::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kAcc = 4;  // independent accumulators (vectors in flight) per thread

// The op's start value: 0 for sums, -inf/+inf for amax/amin (NaN still wins in combine).
template <typename A>
__device__ __forceinline__ A start_of(int op) {
  if (op == SDK_AMAX) return -inf_of<A>();
  if (op == SDK_AMIN) return inf_of<A>();
  return A(0);
}

template <typename A>
__device__ __forceinline__ A warp_combine(int op, A v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = combine(op, v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

// Every thread calls it; thread 0 gets the block's result.
template <typename A>
__device__ __forceinline__ A block_combine_fast(int op, A v) {
  __shared__ A part[kWarps];
  v = warp_combine(op, v);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < kWarps ? part[threadIdx.x] : start_of<A>(op);
    v = warp_combine(op, v);
  }
  return v;
}

template <typename A>
__device__ __forceinline__ void store_out(const sdk_cuda_reduce_desc& d, int64_t o, A r) {
  if (d.op == SDK_MEAN) r = r / static_cast<A>(d.red_numel);
  store_as<A>(d.out + o * elem_size(d.out_dtype), d.out_dtype, r);
}

// Elements [begin, end) of p strided by `step` vectors from `first`: kAcc loads in flight.
template <typename T, int VEC>
__device__ __forceinline__ typename Math<T>::type run_reduce(int op, const T* p, int64_t n,
                                                             int64_t first, int64_t step) {
  using A = typename Math<T>::type;
  A acc[kAcc];
#pragma unroll
  for (int a = 0; a < kAcc; ++a) acc[a] = start_of<A>(op);
  const Vec<T, VEC>* pv = reinterpret_cast<const Vec<T, VEC>*>(p);
  const int64_t nv = n / VEC;
  int64_t i = first;
  // Not unrolled further: a runtime-step trip count would cost a 64-bit division.
#pragma unroll 1
  for (; i + (kAcc - 1) * step < nv; i += kAcc * step) {
    Vec<T, VEC> raw[kAcc];
#pragma unroll
    for (int a = 0; a < kAcc; ++a) raw[a] = pv[i + a * step];
#pragma unroll
    for (int a = 0; a < kAcc; ++a) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) acc[a] = combine(op, acc[a], A(widen(raw[a].v[j])));
    }
  }
#pragma unroll 1
  for (; i < nv; i += step) {
    Vec<T, VEC> raw = pv[i];
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[0] = combine(op, acc[0], A(widen(raw.v[j])));
  }
  // the n % VEC tail elements: vector-thread `first` == 0's job, element by element
  if (first == 0) {
    for (int64_t e = nv * VEC; e < n; ++e) acc[1] = combine(op, acc[1], A(widen(p[e])));
  }
#pragma unroll
  for (int a = 1; a < kAcc; ++a) acc[0] = combine(op, acc[0], acc[a]);
  return acc[0];
}

// Full reduction, first pass: block b's partial into part[b]; with one block, the result.
template <typename T, int VEC, int OP>
__global__ void __launch_bounds__(kThreads)
    full_kernel(sdk_cuda_reduce_desc d, int64_t n, typename Math<T>::type* part) {
  using A = typename Math<T>::type;
  const int64_t first = blockIdx.x * int64_t{kThreads} + threadIdx.x;
  A v = run_reduce<T, VEC>(OP, reinterpret_cast<const T*>(d.in), n, first,
                           int64_t{gridDim.x} * kThreads);
  v = block_combine_fast(OP, v);
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1) {
    store_out(d, 0, v);
  } else {
    part[blockIdx.x] = v;
  }
}

// Full reduction, second pass over the blocks' partials.
template <typename A, int OP>
__global__ void __launch_bounds__(kThreads)
    finish_kernel(sdk_cuda_reduce_desc d, const A* part, int n) {
  A v = start_of<A>(OP);
  for (int i = threadIdx.x; i < n; i += kThreads) v = combine(OP, v, part[i]);
  v = block_combine_fast(OP, v);
  if (threadIdx.x == 0) store_out(d, 0, v);
}

// Inner reduction: warp w of the grid reduces rows w, w + warps, ... (cols elements each).
template <typename T, int VEC, int OP>
__global__ void __launch_bounds__(kThreads)
    inner_kernel(sdk_cuda_reduce_desc d, int64_t rows, int64_t cols) {
  using A = typename Math<T>::type;
  const int lane = threadIdx.x % 32;
  const int64_t warps = int64_t{gridDim.x} * kWarps;
  for (int64_t r = blockIdx.x * int64_t{kWarps} + threadIdx.x / 32; r < rows; r += warps) {
    const T* row = reinterpret_cast<const T*>(d.in) + r * cols;
    A v = run_reduce<T, VEC>(OP, row, cols, lane, 32);
    v = warp_combine(OP, v);
    if (lane == 0) store_out(d, r, v);
  }
}

// Outer reduction over a rows x cols input: thread x of warp y takes columns
// [V*c, V*c + V) (c = the block's 32-column group + x) and rows y + kWarps*i of its block's row
// slice [r0, r1), V columns in one load (cols % V == 0, base V-aligned: plan_reduce's vec);
// partials combine in shared memory. With gridDim.y > 1 each slice's result goes to
// part[blockIdx.y * cols + column] for finish_outer.
template <typename T, int V, int OP>
__global__ void __launch_bounds__(kThreads)
    outer_kernel(sdk_cuda_reduce_desc d, int64_t rows, int64_t cols, int64_t per,
                 typename Math<T>::type* part) {
  using A = typename Math<T>::type;
  __shared__ A sh[kWarps][32 * V];
  const int x = threadIdx.x % 32;
  const int64_t c = (blockIdx.x * int64_t{32} + x) * V;  // first of this thread's columns
  const int y = threadIdx.x / 32;
  const int64_t r0 = blockIdx.y * per;
  const int64_t r1 = r0 + per < rows ? r0 + per : rows;
  const T* in = reinterpret_cast<const T*>(d.in);
  A acc[kAcc][V];
#pragma unroll
  for (int a = 0; a < kAcc; ++a) {
#pragma unroll
    for (int j = 0; j < V; ++j) acc[a][j] = start_of<A>(OP);
  }
  if (c < cols) {
    int64_t r = r0 + y;
#pragma unroll 1
    for (; r + (kAcc - 1) * kWarps < r1; r += kAcc * kWarps) {
      Vec<T, V> raw[kAcc];
#pragma unroll
      for (int a = 0; a < kAcc; ++a)
        raw[a] = *reinterpret_cast<const Vec<T, V>*>(in + (r + a * kWarps) * cols + c);
#pragma unroll
      for (int a = 0; a < kAcc; ++a) {
#pragma unroll
        for (int j = 0; j < V; ++j) acc[a][j] = combine(OP, acc[a][j], A(widen(raw[a].v[j])));
      }
    }
#pragma unroll 1
    for (; r < r1; r += kWarps) {
      Vec<T, V> raw = *reinterpret_cast<const Vec<T, V>*>(in + r * cols + c);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[0][j] = combine(OP, acc[0][j], A(widen(raw.v[j])));
    }
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
#pragma unroll
    for (int a = 1; a < kAcc; ++a) acc[0][j] = combine(OP, acc[0][j], acc[a][j]);
    sh[y][x * V + j] = acc[0][j];
  }
  __syncthreads();
  // the block's 32 * V columns: warp 0's threads combine the kWarps partials, V each
  if (y != 0) return;
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const int64_t col = blockIdx.x * int64_t{32} * V + j * 32 + x;
    if (col >= cols) continue;
    A v = sh[0][j * 32 + x];
#pragma unroll
    for (int k = 1; k < kWarps; ++k) v = combine(OP, v, sh[k][j * 32 + x]);
    if (gridDim.y == 1) {
      store_out(d, col, v);
    } else {
      part[blockIdx.y * cols + col] = v;
    }
  }
}

template <typename A, int OP>
__global__ void finish_outer_kernel(sdk_cuda_reduce_desc d, const A* part, int slices,
                                    int64_t cols) {
  const int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (c >= cols) return;
  A v = part[c];
  for (int s = 1; s < slices; ++s) v = combine(OP, v, part[s * cols + c]);
  store_out(d, c, v);
}

// Blocks of Kernel resident at once: SMs x the blocks its registers and shared memory let
// one SM hold (asked once per kernel and device). A grid of this size runs in one wave; a
// larger one leaves a partial last wave (an outer float16 sum lost a third of its speed).
template <auto Kernel>
int resident_grid(int device) {
  static std::atomic<int> grid[64];
  std::atomic<int>& n = grid[device >= 0 && device < 64 ? device : 0];
  int v = n.load(std::memory_order_relaxed);
  if (v == 0) {
    int sms = 0, per_sm = 0;
    SDK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SDK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, kThreads, 0));
    v = sms * (per_sm > 0 ? per_sm : 1);
    n.store(v, std::memory_order_relaxed);
  }
  return v;
}

template <typename T, int VEC, int OP>
void launch_full(const sdk_cuda_reduce_desc& d, int64_t n, cudaStream_t s) {
  using A = typename Math<T>::type;
  int64_t blocks = (n + int64_t{kThreads} * VEC * kAcc - 1) / (int64_t{kThreads} * VEC * kAcc);
  const int cap = resident_grid<full_kernel<T, VEC, OP>>(d.device);
  if (blocks > cap) blocks = cap;
  if (blocks <= 1) {
    full_kernel<T, VEC, OP><<<1, kThreads, 0, s>>>(d, n, nullptr);
    return;
  }
  // Scratch ordered on this stream: freed right away, reused only by later work on it.
  A* part = static_cast<A*>(cache_malloc(blocks * int64_t(sizeof(A)), d.device));
  full_kernel<T, VEC, OP><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(d, n, part);
  finish_kernel<A, OP><<<1, kThreads, 0, s>>>(d, part, static_cast<int>(blocks));
  cache_free(part);
}

template <typename T, int VEC, int OP>
void launch_inner(const sdk_cuda_reduce_desc& d, int64_t rows, int64_t cols, cudaStream_t s) {
  int64_t blocks = (rows + kWarps - 1) / kWarps;
  if (blocks > (int64_t{1} << 20)) blocks = int64_t{1} << 20;
  inner_kernel<T, VEC, OP><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(d, rows, cols);
}

template <typename T, int V, int OP>
void launch_outer(const sdk_cuda_reduce_desc& d, int64_t rows, int64_t cols, cudaStream_t s) {
  using A = typename Math<T>::type;
  const int64_t gx = (cols + 32 * V - 1) / (32 * V);
  // Split the rows when the columns alone give too few blocks to fill the GPU.
  int64_t gy = resident_grid<outer_kernel<T, V, OP>>(d.device) / gx;
  const int64_t max_slices = (rows + kWarps * kAcc * 4 - 1) / (kWarps * kAcc * 4);
  if (gy > max_slices) gy = max_slices;
  if (gy > 65535) gy = 65535;
  if (gy < 1) gy = 1;
  const int64_t per = (rows + gy - 1) / gy;
  dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  if (gy == 1) {
    outer_kernel<T, V, OP><<<grid, kThreads, 0, s>>>(d, rows, cols, per, nullptr);
    return;
  }
  A* part = static_cast<A*>(cache_malloc(gy * cols * int64_t(sizeof(A)), d.device));
  outer_kernel<T, V, OP><<<grid, kThreads, 0, s>>>(d, rows, cols, per, part);
  finish_outer_kernel<A, OP><<<static_cast<unsigned>((cols + 255) / 256), 256, 0, s>>>(
      d, part, static_cast<int>(gy), cols);
  cache_free(part);
}

template <typename T, int OP>
void launch_plan(const sdk_cuda_reduce_desc& d, const fast::ReducePlan& p, cudaStream_t s) {
  constexpr int kVec = fast::kVectorBytes / sizeof(T);
  switch (p.path) {
    case fast::kReduceFull:
      return p.vec == kVec ? launch_full<T, kVec, OP>(d, p.cols, s)
                           : launch_full<T, 1, OP>(d, p.cols, s);
    case fast::kReduceInner:
      return p.vec == kVec ? launch_inner<T, kVec, OP>(d, p.rows, p.cols, s)
                           : launch_inner<T, 1, OP>(d, p.rows, p.cols, s);
    default: {
      constexpr int kOuterVec = fast::kOuterVectorBytes / sizeof(T);  // 1 for double
      return p.vec == kOuterVec ? launch_outer<T, kOuterVec, OP>(d, p.rows, p.cols, s)
                                : launch_outer<T, 1, OP>(d, p.rows, p.cols, s);
    }
  }
}

// The combine as a template constant (mean sums, then divides at the store).
template <typename T>
void launch_op(const sdk_cuda_reduce_desc& d, const fast::ReducePlan& p, cudaStream_t s) {
  if (d.op == SDK_AMAX) return launch_plan<T, SDK_AMAX>(d, p, s);
  if (d.op == SDK_AMIN) return launch_plan<T, SDK_AMIN>(d, p, s);
  return launch_plan<T, SDK_SUM>(d, p, s);
}

}  // namespace

bool launch_fast_reduce(const sdk_cuda_reduce_desc& d, cudaStream_t s) {
  const fast::ReducePlan p = fast::plan_reduce(d);
  if (p.path == fast::kReduceGeneral) return false;
  switch (d.in_dtype) {
    case SDK_FLOAT16:
      launch_op<__half>(d, p, s);
      break;
    case SDK_BFLOAT16:
      launch_op<__nv_bfloat16>(d, p, s);
      break;
    case SDK_FLOAT32:
      launch_op<float>(d, p, s);
      break;
    default:
      launch_op<double>(d, p, s);
      break;
  }
  return true;
}

}  // namespace sdk::cuda
