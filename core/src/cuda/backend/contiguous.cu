// core/src/cuda/backend/contiguous.cu: the fast elementwise kernels for one contiguous run of
// one floating dtype (fast_path.h decides): 32-bit indices, 16-byte vector accesses, several
// vectors per thread with every load issued before the math, and the op chosen once per
// launch (a functor per hot op; the rest take one warp-uniform switch per element).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.h"
#include "device_util.cuh"
#include "fast_path.h"
#include "fast_types.cuh"

namespace sdk::cuda {
namespace {

constexpr int kThreads = 128;

// Vectors per thread: 64 bytes of each operand in flight per thread.
template <int VEC>
constexpr int unroll_for() {
  return VEC >= 8 ? 2 : 4;
}

// Operand k's values for one thread: VEC * U elements, loaded before any math.
template <typename T, int VEC, int U>
__device__ __forceinline__ void load_tile(const sdk_cuda_operand& o, uint32_t first,
                                          typename Math<T>::type (&x)[VEC * U]) {
  using C = typename Math<T>::type;
  if (o.is_scalar) {
    const C s = static_cast<C>(o.f);
#pragma unroll
    for (int e = 0; e < VEC * U; ++e) x[e] = s;
    return;
  }
  const Vec<T, VEC>* p = reinterpret_cast<const Vec<T, VEC>*>(o.data) + first;
  Vec<T, VEC> raw[U];
#pragma unroll
  for (int u = 0; u < U; ++u) raw[u] = p[u * kThreads];
#pragma unroll
  for (int u = 0; u < U; ++u) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) x[u * VEC + j] = widen(raw[u].v[j]);
  }
}

// The block's full tile: thread t handles vectors first + u * kThreads (coalesced per u).
template <typename T, int NIN, int VEC, typename F>
__device__ __forceinline__ void full_tile(const sdk_cuda_iter& it, const F& f, uint32_t first) {
  using C = typename Math<T>::type;
  constexpr int U = unroll_for<VEC>();
  C x[NIN > 0 ? NIN : 1][VEC * U];
#pragma unroll
  for (int k = 0; k < NIN; ++k) load_tile<T, VEC, U>(it.ops[k + 1], first, x[k]);
  Vec<T, VEC> out[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      out[u].v[j] = narrow<T>(f.template apply<C>(x, u * VEC + j, it));
    }
  }
  Vec<T, VEC>* po = reinterpret_cast<Vec<T, VEC>*>(it.ops[0].data) + first;
#pragma unroll
  for (int u = 0; u < U; ++u) po[u * kThreads] = out[u];
}

// The last, partial tile: one element at a time, bounds-checked.
template <typename T, int NIN, typename F>
__device__ __forceinline__ void partial_tile(const sdk_cuda_iter& it, const F& f, uint32_t begin,
                                             uint32_t n) {
  using C = typename Math<T>::type;
  for (uint32_t i = begin + threadIdx.x; i < n; i += kThreads) {
    C x[NIN > 0 ? NIN : 1][1];
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      const sdk_cuda_operand& o = it.ops[k + 1];
      x[k][0] = o.is_scalar ? static_cast<C>(o.f) : widen(reinterpret_cast<const T*>(o.data)[i]);
    }
    reinterpret_cast<T*>(it.ops[0].data)[i] = narrow<T>(f.template apply<C>(x, 0, it));
  }
}

// it.numel <= fast::kIndexLimit; every tensor pointer is aligned to VEC elements.
template <typename T, int NIN, int VEC, typename F>
__global__ void __launch_bounds__(kThreads) contiguous_kernel(sdk_cuda_iter it, F f) {
  constexpr uint32_t kTile = kThreads * VEC * unroll_for<VEC>();
  const uint32_t n = static_cast<uint32_t>(it.numel);
  const uint32_t begin = blockIdx.x * kTile;
  if (n - begin >= kTile) {
    full_tile<T, NIN, VEC>(it, f, begin / VEC + threadIdx.x);
  } else {
    partial_tile<T, NIN>(it, f, begin, n);
  }
}

// ---- op functors: apply<C>(x, e, it) computes element e from the inputs x[k][e].

struct Identity {
  template <typename C, int N, int M>
  __device__ C apply(const C (&x)[N][M], int e, const sdk_cuda_iter&) const {
    return x[0][e];
  }
};

template <int OP>
struct Binary {
  template <typename C, int N, int M>
  __device__ C apply(const C (&x)[N][M], int e, const sdk_cuda_iter& it) const {
    const C a = x[0][e], b = x[N - 1][e];
    if constexpr (OP == SDK_ADD) return a + b;
    if constexpr (OP == SDK_SUB) return a - b;
    if constexpr (OP == SDK_MUL) return a * b;
    if constexpr (OP == SDK_DIV) return a / b;
    if constexpr (OP == SDK_CUDA_OP_ADD_SCALED) return a + C(it.p0) * b;
    if constexpr (OP == SDK_MAXIMUM) return nan_max(a, b);
    if constexpr (OP == SDK_MINIMUM) return nan_min(a, b);
    return C(0);
  }
};
struct AnyBinary {
  int op;
  template <typename C, int N, int M>
  __device__ C apply(const C (&x)[N][M], int e, const sdk_cuda_iter& it) const {
    return binary_float<C>(op, x[0][e], x[N - 1][e], it);
  }
};

template <int OP>
struct Unary {
  template <typename C, int N, int M>
  __device__ C apply(const C (&x)[N][M], int e, const sdk_cuda_iter&) const {
    const C v = x[0][e];
    if constexpr (OP == SDK_NEG) return -v;
    if constexpr (OP == SDK_EXP) return exp(v);
    if constexpr (OP == SDK_SIGMOID) return C(1) / (C(1) + exp(-v));
    if constexpr (OP == SDK_RELU) return v < C(0) ? C(0) : v;  // NaN stays NaN
    if constexpr (OP == SDK_TANH) return tanh(v);
    if constexpr (OP == SDK_SQRT) return sqrt(v);
    if constexpr (OP == SDK_ABS) return fabs(v);
    if constexpr (OP == SDK_SQUARE) return v * v;
    return C(0);
  }
};
struct AnyUnary {
  int op;
  template <typename C, int N, int M>
  __device__ C apply(const C (&x)[N][M], int e, const sdk_cuda_iter& it) const {
    return unary_float<C>(op, x[0][e], it);
  }
};

template <typename T, int NIN, int VEC, typename F>
void launch_chunk(const sdk_cuda_iter& it, const F& f, cudaStream_t s) {
  constexpr int64_t kTile = int64_t{kThreads} * VEC * unroll_for<VEC>();
  const unsigned int grid = static_cast<unsigned int>((it.numel + kTile - 1) / kTile);
  contiguous_kernel<T, NIN, VEC><<<grid, kThreads, 0, s>>>(it, f);
}

// One functor over every chunk, with the 16-byte kernel when the plan allows it.
template <typename T, int NIN, typename F>
void launch_typed(const sdk_cuda_iter& it, const fast::Plan& p, const F& f, cudaStream_t s) {
  constexpr int kVec = fast::kVectorBytes / sizeof(T);
  fast::for_each_chunk(it, p.itemsize, [&](const sdk_cuda_iter& sub) {
    if (p.vec == kVec) {
      launch_chunk<T, NIN, kVec>(sub, f, s);
    } else {
      launch_chunk<T, NIN, 1>(sub, f, s);
    }
  });
}

template <int NIN, typename F>
void launch_dtype(const sdk_cuda_iter& it, const fast::Plan& p, const F& f, cudaStream_t s) {
  switch (it.ops[0].dtype) {
    case SDK_FLOAT16:
      return launch_typed<__half, NIN>(it, p, f, s);
    case SDK_BFLOAT16:
      return launch_typed<__nv_bfloat16, NIN>(it, p, f, s);
    case SDK_FLOAT32:
      return launch_typed<float, NIN>(it, p, f, s);
    default:
      return launch_typed<double, NIN>(it, p, f, s);
  }
}

}  // namespace

bool launch_fast_copy(const sdk_cuda_iter& it, cudaStream_t s) {
  fast::Plan p = fast::plan_elementwise(it);
  if (p.path != fast::kContiguous) return false;
  launch_dtype<1>(it, p, Identity{}, s);
  return true;
}

bool launch_fast_unary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  fast::Plan p = fast::plan_elementwise(it);
  if (p.path != fast::kContiguous) return false;
  switch (op) {
#define SDK_FAST_UNARY(OP)                  \
  case OP:                                  \
    launch_dtype<1>(it, p, Unary<OP>{}, s); \
    break;
    SDK_FAST_UNARY(SDK_NEG)
    SDK_FAST_UNARY(SDK_EXP)
    SDK_FAST_UNARY(SDK_SIGMOID)
    SDK_FAST_UNARY(SDK_RELU)
    SDK_FAST_UNARY(SDK_TANH)
    SDK_FAST_UNARY(SDK_SQRT)
    SDK_FAST_UNARY(SDK_ABS)
    SDK_FAST_UNARY(SDK_SQUARE)
#undef SDK_FAST_UNARY
    default:
      launch_dtype<1>(it, p, AnyUnary{op}, s);
  }
  return true;
}

bool launch_fast_binary(int op, const sdk_cuda_iter& it, cudaStream_t s) {
  fast::Plan p = fast::plan_elementwise(it);
  if (p.path != fast::kContiguous) return false;
  switch (op) {
#define SDK_FAST_BINARY(OP)                  \
  case OP:                                   \
    launch_dtype<2>(it, p, Binary<OP>{}, s); \
    break;
    SDK_FAST_BINARY(SDK_ADD)
    SDK_FAST_BINARY(SDK_SUB)
    SDK_FAST_BINARY(SDK_MUL)
    SDK_FAST_BINARY(SDK_DIV)
    SDK_FAST_BINARY(SDK_CUDA_OP_ADD_SCALED)
    SDK_FAST_BINARY(SDK_MAXIMUM)
    SDK_FAST_BINARY(SDK_MINIMUM)
#undef SDK_FAST_BINARY
    default:
      launch_dtype<2>(it, p, AnyBinary{op}, s);
  }
  return true;
}

}  // namespace sdk::cuda
