// core/src/cuda/backend/fast_types.cuh: what the fast kernels (contiguous.cu, reduce_fast.cu)
// share: the math type of a storage type (float for 16/32-bit floats, double for float64),
// the conversions both ways, and the aligned vector of a 16-byte access.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace sdk::cuda {

template <typename T>
struct Math {
  using type = float;
};
template <>
struct Math<double> {
  using type = double;
};

__device__ __forceinline__ float widen(__half v) { return __half2float(v); }
__device__ __forceinline__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ double widen(double v) { return v; }

template <typename T>
__device__ __forceinline__ T narrow(typename Math<T>::type v);
template <>
__device__ __forceinline__ __half narrow<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ float narrow<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ double narrow<double>(double v) {
  return v;
}

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T v[VEC];
};

}  // namespace sdk::cuda
