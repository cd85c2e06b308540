// sdk/macros.h: portability macros shared by the header-only C++ API (host/device, inlining).
#ifndef SDK_MACROS_H_
#define SDK_MACROS_H_

// Functions usable from CUDA kernels are marked __host__ __device__ only under nvcc, so
// the same headers compile unchanged with a plain C++ compiler.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SDK_HOST_DEVICE __host__ __device__
#define SDK_DEVICE_INLINE __host__ __device__ inline
#else
#define SDK_HOST_DEVICE
#define SDK_DEVICE_INLINE inline
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SDK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SDK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SDK_NOINLINE __attribute__((noinline))
#define SDK_RESTRICT __restrict__
#else
#define SDK_LIKELY(x) (x)
#define SDK_UNLIKELY(x) (x)
#define SDK_NOINLINE
#define SDK_RESTRICT
#endif

#endif  // SDK_MACROS_H_
