// sdk/cuda_kernel_utils.h: torch's launch helpers for grid-stride kernels
// (ATen/cuda/detail/KernelUtils.h): CUDA_KERNEL_LOOP, CUDA_KERNEL_LOOP_TYPE,
// cuda::detail::CUDA_NUM_THREADS and cuda::detail::GET_BLOCKS. The macros are for device code;
// the block count is host code and needs no CUDA toolkit.
#ifndef SDK_CUDA_KERNEL_UTILS_H_
#define SDK_CUDA_KERNEL_UTILS_H_

#include <cstdint>
#include <limits>

#include "sdk/error.h"

// A grid-stride loop over [0, n) with `i` of type index_type. The counter itself is 64-bit, so
// the last step past n cannot overflow a 32-bit index_type into another pass. A project that
// defines these macros itself (many copied them) keeps its own.
#ifndef CUDA_KERNEL_LOOP_TYPE
#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type)                                                \
  int64_t sdk_kernel_loop_at_ = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;   \
  for (index_type i = static_cast<index_type>(sdk_kernel_loop_at_); sdk_kernel_loop_at_ < (n); \
       sdk_kernel_loop_at_ += static_cast<int64_t>(blockDim.x) * gridDim.x,                    \
                  i = static_cast<index_type>(sdk_kernel_loop_at_))
#endif
#ifndef CUDA_KERNEL_LOOP
#define CUDA_KERNEL_LOOP(i, n) CUDA_KERNEL_LOOP_TYPE(i, n, int)
#endif

namespace sdk {
namespace cuda {
namespace detail {

/*! \brief Threads per block of the kernels launched with GET_BLOCKS. */
constexpr int CUDA_NUM_THREADS = 1024;

/*! \brief Blocks of `max_threads_per_block` threads that cover N elements (N > 0). */
inline int GET_BLOCKS(const int64_t N, const int64_t max_threads_per_block = CUDA_NUM_THREADS) {
  SDK_CHECK(N > 0, "GET_BLOCKS: the number of elements must be positive, got ", N);
  SDK_CHECK(max_threads_per_block > 0, "GET_BLOCKS: max_threads_per_block must be positive, got ",
            max_threads_per_block);
  const int64_t blocks = (N - 1) / max_threads_per_block + 1;  // no overflow, unlike N + d - 1
  SDK_CHECK(blocks <= std::numeric_limits<int>::max(), "GET_BLOCKS: ", blocks, " blocks for ", N,
            " elements is more than a launch can take");
  return static_cast<int>(blocks);
}

}  // namespace detail
}  // namespace cuda
}  // namespace sdk

#endif  // SDK_CUDA_KERNEL_UTILS_H_
