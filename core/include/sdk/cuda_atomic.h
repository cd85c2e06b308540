// sdk/cuda_atomic.h: atomic read-modify-write for device code over every dtype kernels use,
// with torch's names (ATen/cuda/Atomic.cuh): gpuAtomicAdd, gpuAtomicAddNoReturn, gpuAtomicMul,
// gpuAtomicMax, gpuAtomicMin, and atomicAdd overloads for sdk::Half, sdk::BFloat16, 8-, 16- and
// 64-bit integers and bool, which CUDA's own atomicAdd lacks.
//
// Types narrower than 32 bits are updated with a compare-and-swap on the aligned 32-bit word
// that holds them, so neighbouring elements are never disturbed; 64-bit ones with CUDA's 64-bit
// compare-and-swap. Like torch's, these are free functions at global scope, so kernels call
// them unqualified. Include from .cu files (sdk/cuda.h includes it under nvcc).
#ifndef SDK_CUDA_ATOMIC_H_
#define SDK_CUDA_ATOMIC_H_

#include <cstdint>
#include <type_traits>

#include "sdk/half.h"
#include "sdk/util.h"  // sdk::bit_cast

#if defined(__CUDACC__) || defined(__HIPCC__)

namespace sdk {
namespace cuda {
namespace detail {

// The word type CUDA's atomicCAS takes for a T of 4 or 8 bytes.
template <typename T>
using cas_word_t = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned int>;

/*! \brief Replace *address by op(*address) atomically; returns the old value. */
template <typename T, typename Op>
__device__ T atomic_update(T* address, Op op) {
  static_assert(sizeof(T) <= 8 && (sizeof(T) & (sizeof(T) - 1)) == 0, "1, 2, 4 or 8 bytes");
  if constexpr (sizeof(T) >= 4) {
    using W = cas_word_t<T>;
    W* word = reinterpret_cast<W*>(address);
    W old = *word, assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed,
                      ::sdk::bit_cast<W>(static_cast<T>(op(::sdk::bit_cast<T>(assumed)))));
    } while (assumed != old);
    return ::sdk::bit_cast<T>(old);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>;
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    unsigned int* word = reinterpret_cast<unsigned int*>(at & ~std::uintptr_t(3));
    const unsigned int shift = static_cast<unsigned int>(at & 3u) * 8u;
    const unsigned int mask = ((1u << (8u * sizeof(T))) - 1u) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const T current = ::sdk::bit_cast<T>(static_cast<Bits>((assumed & mask) >> shift));
      const unsigned int next = ::sdk::bit_cast<Bits>(static_cast<T>(op(current)));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (next << shift));
    } while (assumed != old);
    return ::sdk::bit_cast<T>(static_cast<Bits>((old & mask) >> shift));
  }
}

// Arithmetic in the type's own promotion (float for the 16-bit floats), then back to T.
template <typename T>
__device__ __forceinline__ T add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
__device__ __forceinline__ T mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(a * b);
  }
}
// max/min propagate NaN, as torch's do; the 16-bit floats compare as float
template <typename T>
inline constexpr bool is_float_like_v =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
using compare_t = std::conditional_t<is_float_like_v<T> && !std::is_same_v<T, double>, float, T>;

// the larger (Larger) or smaller of a and b; NaN wins either way
template <bool Larger, typename T>
__device__ __forceinline__ T pick(T a, T b) {
  const compare_t<T> x = a, y = b;
  if constexpr (is_float_like_v<T>) {
    if (x != x) return a;
    if (y != y) return b;
  }
  return (Larger ? x < y : y < x) ? b : a;
}

}  // namespace detail
}  // namespace cuda
}  // namespace sdk

// ---- atomicAdd for the types CUDA leaves out (returns the old value, as CUDA's do) ----------

#define SDK_DETAIL_ATOMIC_ADD(T)                                           \
  static inline __device__ T atomicAdd(T* address, T val) {                \
    return ::sdk::cuda::detail::atomic_update(                             \
        address, [val](T v) { return ::sdk::cuda::detail::add(v, val); }); \
  }
SDK_DETAIL_ATOMIC_ADD(sdk::Half)
SDK_DETAIL_ATOMIC_ADD(sdk::BFloat16)
SDK_DETAIL_ATOMIC_ADD(uint8_t)
SDK_DETAIL_ATOMIC_ADD(int8_t)
SDK_DETAIL_ATOMIC_ADD(int16_t)
SDK_DETAIL_ATOMIC_ADD(bool)
#undef SDK_DETAIL_ATOMIC_ADD

// int64_t is `long` here, a type of its own: CUDA's 64-bit add is on unsigned long long, and
// two's complement makes the sum the same
static inline __device__ int64_t atomicAdd(int64_t* address, int64_t val) {
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "64-bit words");
  return static_cast<int64_t>(atomicAdd(reinterpret_cast<unsigned long long*>(address),
                                        static_cast<unsigned long long>(val)));
}

// ---- torch's gpuAtomic* family: one spelling for every dtype ---------------------------------
// The element type comes from the pointer alone and the value converts to it, as with torch's
// one overload per type: a kernel templated on scalar_t adds its float accumulator (or a
// literal) into a scalar_t buffer.

namespace sdk {
namespace cuda {
namespace detail {
template <typename T>
struct not_deduced {
  using type = T;
};
template <typename T>
using not_deduced_t = typename not_deduced<T>::type;
}  // namespace detail
}  // namespace cuda
}  // namespace sdk

template <typename T>
static inline __device__ T gpuAtomicAdd(T* address, ::sdk::cuda::detail::not_deduced_t<T> val) {
  return atomicAdd(address, val);
}
template <typename T>
static inline __device__ void gpuAtomicAddNoReturn(T* address,
                                                   ::sdk::cuda::detail::not_deduced_t<T> val) {
  atomicAdd(address, val);
}
template <typename T>
static inline __device__ T gpuAtomicMul(T* address, ::sdk::cuda::detail::not_deduced_t<T> val) {
  return ::sdk::cuda::detail::atomic_update(
      address, [val](T v) { return ::sdk::cuda::detail::mul(v, val); });
}
template <typename T>
static inline __device__ T gpuAtomicMax(T* address, ::sdk::cuda::detail::not_deduced_t<T> val) {
  return ::sdk::cuda::detail::atomic_update(
      address, [val](T v) { return ::sdk::cuda::detail::pick<true>(v, val); });
}
template <typename T>
static inline __device__ T gpuAtomicMin(T* address, ::sdk::cuda::detail::not_deduced_t<T> val) {
  return ::sdk::cuda::detail::atomic_update(
      address, [val](T v) { return ::sdk::cuda::detail::pick<false>(v, val); });
}

#endif  // __CUDACC__ || __HIPCC__

#endif  // SDK_CUDA_ATOMIC_H_
