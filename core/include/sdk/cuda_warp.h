// sdk/cuda_warp.h: torch's warp helpers from ATen/cuda/DeviceUtils.cuh (ACTIVE_MASK, WARP_SYNC,
// WARP_BALLOT, WARP_SHFL, WARP_SHFL_XOR, WARP_SHFL_UP, WARP_SHFL_DOWN, doLdg) with their
// signatures, over CUDA's *_sync intrinsics. Device code: declared only when nvcc compiles.
#ifndef SDK_CUDA_WARP_H_
#define SDK_CUDA_WARP_H_

#include "sdk/half.h"
#include "sdk/macros.h"

#if defined(__CUDACC__)

/*! \brief The mask of the lanes of this warp that are running. */
__device__ __forceinline__ unsigned int ACTIVE_MASK() { return __activemask(); }

__device__ __forceinline__ void WARP_SYNC(unsigned mask = 0xffffffff) { __syncwarp(mask); }

/*! \brief Bit i set when lane i's predicate is non-zero. */
__device__ __forceinline__ unsigned int WARP_BALLOT(int predicate, unsigned int mask = 0xffffffff) {
  return __ballot_sync(mask, predicate);
}

template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = SDK_WARP_SIZE,
                                           unsigned int mask = 0xffffffff) {
  return __shfl_xor_sync(mask, value, laneMask, width);
}

template <typename T>
__device__ __forceinline__ T WARP_SHFL(T value, int srcLane, int width = SDK_WARP_SIZE,
                                       unsigned int mask = 0xffffffff) {
  return __shfl_sync(mask, value, srcLane, width);
}

template <typename T>
__device__ __forceinline__ T WARP_SHFL_UP(T value, unsigned int delta, int width = SDK_WARP_SIZE,
                                          unsigned int mask = 0xffffffff) {
  return __shfl_up_sync(mask, value, delta, width);
}

template <typename T>
__device__ __forceinline__ T WARP_SHFL_DOWN(T value, unsigned int delta, int width = SDK_WARP_SIZE,
                                            unsigned int mask = 0xffffffff) {
  return __shfl_down_sync(mask, value, delta, width);
}

// The SDK's 16-bit floats travel as their bits (CUDA's intrinsics know only its own types).
#define SDK_DETAIL_SHFL_BITS(NAME, T, ARG)                                                      \
  template <>                                                                                   \
  __device__ __forceinline__ T NAME<T>(T value, ARG lane, int width, unsigned int mask) {       \
    return T::from_bits(static_cast<uint16_t>(NAME<unsigned int>(value.x, lane, width, mask))); \
  }
#define SDK_DETAIL_SHFL_ALL(T)                        \
  SDK_DETAIL_SHFL_BITS(WARP_SHFL_XOR, T, int)         \
  SDK_DETAIL_SHFL_BITS(WARP_SHFL, T, int)             \
  SDK_DETAIL_SHFL_BITS(WARP_SHFL_UP, T, unsigned int) \
  SDK_DETAIL_SHFL_BITS(WARP_SHFL_DOWN, T, unsigned int)
SDK_DETAIL_SHFL_ALL(sdk::Half)
SDK_DETAIL_SHFL_ALL(sdk::BFloat16)
#undef SDK_DETAIL_SHFL_ALL
#undef SDK_DETAIL_SHFL_BITS

/*! \brief A load through the read-only data cache. */
template <typename T>
__device__ __forceinline__ T doLdg(const T* p) {
  return __ldg(p);
}
__device__ __forceinline__ sdk::Half doLdg(const sdk::Half* p) {
  return sdk::Half::from_bits(__ldg(&p->x));
}
__device__ __forceinline__ sdk::BFloat16 doLdg(const sdk::BFloat16* p) {
  return sdk::BFloat16::from_bits(__ldg(&p->x));
}

#endif  // __CUDACC__

#endif  // SDK_CUDA_WARP_H_
