// sdk/macros.h: portability macros shared by the header-only C++ API (host/device, inlining).
#ifndef SDK_MACROS_H_
#define SDK_MACROS_H_

// Functions usable from CUDA kernels are marked __host__ __device__ only under nvcc, so
// the same headers compile unchanged with a plain C++ compiler.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SDK_HOST_DEVICE __host__ __device__
#define SDK_DEVICE_INLINE __host__ __device__ inline
#define SDK_DEVICE __device__
#define SDK_HOST __host__
/*! \brief __launch_bounds__(max_threads_per_block[, min_blocks_per_multiprocessor]). */
#define SDK_LAUNCH_BOUNDS_1(max_threads) __launch_bounds__((max_threads))
#define SDK_LAUNCH_BOUNDS_2(max_threads, min_blocks) __launch_bounds__((max_threads), (min_blocks))
#else
#define SDK_HOST_DEVICE
#define SDK_DEVICE_INLINE inline
#define SDK_DEVICE
#define SDK_HOST
#define SDK_LAUNCH_BOUNDS_1(max_threads)
#define SDK_LAUNCH_BOUNDS_2(max_threads, min_blocks)
#endif

/*! \brief Threads of a warp (a wavefront under HIP). */
#if defined(__HIPCC__)
#define SDK_WARP_SIZE 64
#else
#define SDK_WARP_SIZE 32
#endif

/*! \brief [[maybe_unused]] (torch's C10_UNUSED). */
#define SDK_UNUSED [[maybe_unused]]

/*! \brief torch's C10_LOG_API_USAGE_ONCE(event): the SDK keeps no usage log, so the statement
 *  does nothing and its arguments are not evaluated. */
#define SDK_LOG_API_USAGE_ONCE(...) static_cast<void>(0)

#if defined(__GNUC__) || defined(__clang__)
#define SDK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SDK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SDK_NOINLINE __attribute__((noinline))
#define SDK_ALWAYS_INLINE __attribute__((always_inline)) inline
#define SDK_RESTRICT __restrict__
#else
#define SDK_LIKELY(x) (x)
#define SDK_UNLIKELY(x) (x)
#define SDK_NOINLINE
#define SDK_ALWAYS_INLINE inline
#define SDK_RESTRICT
#endif

/*! \brief The torch release whose C++ spellings the SDK follows (what ported
 *  `#if TORCH_VERSION_MAJOR ...` tests compare against; older spellings stay mapped). */
#define SDK_TORCH_API_VERSION_MAJOR 2
#define SDK_TORCH_API_VERSION_MINOR 4
#define SDK_TORCH_API_VERSION_PATCH 0

/*! \brief torch's CUDA_KERNEL_ASSERT(cond), checked whatever NDEBUG says: in device code a
 *  failure traps the kernel (the launch then reports an error); in host code it throws
 *  sdk::Error (RuntimeError) naming the condition. */
#if defined(__CUDA_ARCH__)
#define SDK_CUDA_KERNEL_ASSERT(cond) \
  do {                               \
    if (!(cond)) __trap();           \
  } while (0)
#else
#define SDK_CUDA_KERNEL_ASSERT(cond)                                                   \
  do {                                                                                 \
    if (!(cond))                                                                       \
      ::sdk::detail::throw_error(SDK_ERROR_RUNTIME,                                    \
                                 "CUDA_KERNEL_ASSERT failed: " #cond " at " __FILE__); \
  } while (0)
#endif

/*! \brief ATen/Config.h's build switches (AT_CUDNN_ENABLED() ...): the SDK links none of
 *  these libraries, so ported `#if AT_MKLDNN_ENABLED()` paths are left out. */
#define SDK_CUDNN_ENABLED() 0
#define SDK_MKLDNN_ENABLED() 0
#define SDK_MKL_ENABLED() 0
#define SDK_ROCM_ENABLED() 0
#define SDK_MKL_SEQUENTIAL() 0
/*! \brief ATen/Config.h's parallel backend: the SDK's own thread pool (sdk/parallel.h), not
 *  OpenMP, so code under `#if AT_PARALLEL_OPENMP` (omp pragmas beside at::parallel_for) is
 *  left out as in a torch built with the native backend. */
#define SDK_PARALLEL_OPENMP 0
#define SDK_PARALLEL_NATIVE 1
#define SDK_PARALLEL_NATIVE_TBB 0

/*! \brief c10's TORCH_GUARD_OR_FALSE / TORCH_GUARD_OR_TRUE: a condition on sizes, which a
 *  symbolic size may leave undecided (then false / true). Sizes here are always known, so it
 *  is the condition itself. */
#define SDK_GUARD_OR_FALSE(cond) (static_cast<bool>(cond))
#define SDK_GUARD_OR_TRUE(cond) (static_cast<bool>(cond))

/*! \brief torch's RECORD_FUNCTION(name, inputs) profiler scope: the SDK has no profiler, so
 *  the statement does nothing (its arguments are not evaluated). */
#define SDK_RECORD_FUNCTION(name, inputs) \
  do {                                    \
  } while (0)

// Token pasting and unique names (C10_CONCATENATE, C10_UID, C10_ANONYMOUS_VARIABLE).
#define SDK_CONCATENATE_IMPL(s1, s2) s1##s2
#define SDK_CONCATENATE(s1, s2) SDK_CONCATENATE_IMPL(s1, s2)
#define SDK_STRINGIZE_IMPL(x) #x
#define SDK_STRINGIZE(x) SDK_STRINGIZE_IMPL(x)
#define SDK_MACRO_EXPAND(args) args
#define SDK_UID __COUNTER__
#define SDK_ANONYMOUS_VARIABLE(str) SDK_CONCATENATE(str, __COUNTER__)

#endif  // SDK_MACROS_H_
