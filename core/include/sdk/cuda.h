// sdk/cuda.h: CUDA helpers for extension authors: the current stream, a device guard and
// error checks (torch's at::cuda::getCurrentCUDAStream, CUDAGuard, C10_CUDA_CHECK).
//
// Include it from .cu files (or C++ files compiled with the CUDA include path). Everything
// goes through the C ABI, so kernels launched on getCurrentCUDAStream() are ordered with
// the SDK's own CUDA ops on the same thread.
#ifndef SDK_CUDA_H_
#define SDK_CUDA_H_

#include <cuda_runtime.h>

#include "sdk/tensor.h"

namespace sdk {
namespace cuda {

/*! \brief True when CUDA is usable (backend library, driver and a GPU). */
inline bool is_available() { return sdk_cuda_is_available() != 0; }
/*! \brief Number of visible devices (0 without CUDA). */
inline int64_t device_count() { return sdk_cuda_device_count(); }

/*! \brief This thread's current stream on `device` (-1: the current device). */
inline cudaStream_t getCurrentCUDAStream(int32_t device = -1) {
  void* s = nullptr;
  detail::check_status(sdk_cuda_get_stream(device, &s), "getCurrentCUDAStream");
  return static_cast<cudaStream_t>(s);
}

/*! \brief Make `stream` current on `device` for this thread (nullptr: default stream). */
inline void setCurrentCUDAStream(cudaStream_t stream, int32_t device = -1) {
  detail::check_status(sdk_cuda_set_stream(device, static_cast<void*>(stream)),
                       "setCurrentCUDAStream");
}

/*! \brief Wait for all work on `device` (-1: current). */
inline void synchronize(int32_t device = -1) {
  detail::check_status(sdk_cuda_synchronize(device), "synchronize");
}

/*! \brief Makes a device current for a scope and restores the previous one. A negative
 *  index, or a Device without one ("cuda"), keeps the current device (as torch's guard). */
class CUDAGuard {
 public:
  explicit CUDAGuard(int32_t device) {
    detail::check_status(sdk_cuda_current_device(&previous_), "CUDAGuard");
    if (device >= 0 && device != previous_) {
      detail::check_status(sdk_cuda_set_device(device), "CUDAGuard");
      switched_ = true;
    }
  }
  explicit CUDAGuard(const Device& device) : CUDAGuard(device.has_index() ? device.index() : -1) {}
  ~CUDAGuard() {
    if (switched_) sdk_cuda_set_device(previous_);
  }
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;

 private:
  int32_t previous_ = 0;
  bool switched_ = false;
};

namespace detail {
[[noreturn]] SDK_NOINLINE inline void throw_cuda(cudaError_t e, const char* expr, const char* file,
                                                 int line) {
  ::sdk::detail::throw_error(
      SDK_ERROR_RUNTIME, ::sdk::detail::concat("CUDA error: ", cudaGetErrorString(e), " (", expr,
                                               " at ", file, ":", line, ")"));
}
}  // namespace detail

}  // namespace cuda
}  // namespace sdk

/*! \brief Throw sdk::Error (RuntimeError in Python) when a CUDA runtime call fails. */
#define SDK_CUDA_CHECK(expr)                                                     \
  do {                                                                           \
    cudaError_t sdk_cuda_err_ = (expr);                                          \
    if (SDK_UNLIKELY(sdk_cuda_err_ != cudaSuccess)) {                            \
      ::sdk::cuda::detail::throw_cuda(sdk_cuda_err_, #expr, __FILE__, __LINE__); \
    }                                                                            \
  } while (0)

/*! \brief After a <<<...>>> launch: report a bad configuration or missing kernel image. */
#define SDK_CUDA_KERNEL_LAUNCH_CHECK() SDK_CUDA_CHECK(cudaGetLastError())

#endif  // SDK_CUDA_H_
