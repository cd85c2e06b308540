// sdk/cuda.h: CUDA helpers for extension authors: streams, device and stream guards, events,
// device properties, cuBLAS handles and error checks (torch's at::cuda::getCurrentCUDAStream,
// CUDAGuard, OptionalCUDAGuard, CUDAStreamGuard, getStreamFromPool, CUDAEvent,
// getCurrentDeviceProperties, getCurrentCUDABlasHandle, getCurrentCUDABlasLtHandle,
// C10_CUDA_CHECK).
//
// Include it from .cu files (or C++ files compiled with the CUDA include path); the guards and
// streams alone are in sdk/cuda_guard.h, which needs no toolkit. Everything
// goes through the C ABI, so kernels launched on getCurrentCUDAStream() are ordered with
// the SDK's own CUDA ops on the same thread.
#ifndef SDK_CUDA_H_
#define SDK_CUDA_H_

#include <cuda_runtime.h>
#include <library_types.h>

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "sdk/context.h"      // at::globalContext(), as ATen/cuda/CUDAContext.h brings it
#include "sdk/cuda_atomic.h"  // gpuAtomicAdd & co. (device code: empty for host compilers)
#include "sdk/cuda_guard.h"   // streams and guards (they need no toolkit)
#include "sdk/tensor.h"
#include "sdk/util.h"

namespace sdk {
namespace cuda {

namespace detail {
[[noreturn]] SDK_NOINLINE inline void throw_cuda(cudaError_t e, const char* expr, const char* file,
                                                 int line) {
  ::sdk::detail::throw_error(
      SDK_ERROR_RUNTIME, ::sdk::detail::concat("CUDA error: ", cudaGetErrorString(e), " (", expr,
                                               " at ", file, ":", line, ")"));
}
}  // namespace detail

/*! \brief The CUDA library data type of a dtype (torch's ScalarTypeToCudaDataType, for
 *  cuBLAS/cuSPARSE calls); an error naming the dtype when CUDA has none. */
inline cudaDataType_t ScalarTypeToCudaDataType(ScalarType scalar_type) {
  switch (scalar_type) {
    case ScalarType::Byte:
      return CUDA_R_8U;
    case ScalarType::Char:
      return CUDA_R_8I;
    case ScalarType::Short:
      return CUDA_R_16I;
    case ScalarType::Int:
      return CUDA_R_32I;
    case ScalarType::Long:
      return CUDA_R_64I;
    case ScalarType::Half:
      return CUDA_R_16F;
    case ScalarType::BFloat16:
      return CUDA_R_16BF;
    case ScalarType::Float:
      return CUDA_R_32F;
    case ScalarType::Double:
      return CUDA_R_64F;
    default:
      ::sdk::detail::throw_error(SDK_ERROR_VALUE,
                                 ::sdk::detail::concat("Cannot convert ScalarType ",
                                                       toString(scalar_type), " to cudaDataType."));
  }
}

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

/*! \brief C10_CUDA_CHECK_WARN: a failed CUDA runtime call warns (SDK_WARN, a UserWarning in
 *  Python) instead of throwing, and its error is cleared; for cleanup paths (destructors). */
#define SDK_CUDA_CHECK_WARN(expr)                                                                  \
  do {                                                                                             \
    cudaError_t sdk_cuda_err_ = (expr);                                                            \
    if (SDK_UNLIKELY(sdk_cuda_err_ != cudaSuccess)) {                                              \
      (void)cudaGetLastError();                                                                    \
      SDK_WARN("CUDA warning: ", cudaGetErrorString(sdk_cuda_err_), " (", #expr, " at ", __FILE__, \
               ":", __LINE__, ")");                                                                \
    }                                                                                              \
  } while (0)
/*! \brief C10_CUDA_CLEAR_ERROR: reset the runtime's last error (cudaGetLastError). */
#define SDK_CUDA_CLEAR_ERROR() ((void)cudaGetLastError())
/*! \brief C10_CUDA_ERROR_HANDLED: marks a CUDA call whose error the caller handles itself;
 *  the call's cudaError_t. */
#define SDK_CUDA_ERROR_HANDLED(expr) (expr)

/*! \brief After a <<<...>>> launch: report a bad configuration or missing kernel image. */
#define SDK_CUDA_KERNEL_LAUNCH_CHECK() SDK_CUDA_CHECK(cudaGetLastError())

// torch's device-side assertions (c10/cuda/CUDADeviceAssertion.h): kernels written for them
// take two extra parameters and assert with CUDA_KERNEL_ASSERT2. The SDK keeps no assertion
// log: the parameters are passed as null/0 and CUDA_KERNEL_ASSERT2 is the plain device
// assert, whose failure surfaces as a CUDA error at the next synchronizing call.
namespace sdk {
namespace cuda {
/*! \brief The assertion log torch's kernels receive; never allocated here. */
struct DeviceAssertionsData;
}  // namespace cuda
}  // namespace sdk
#define SDK_DSA_KERNEL_ARGS                                                  \
  [[maybe_unused]] ::sdk::cuda::DeviceAssertionsData *const assertions_data, \
      [[maybe_unused]] uint32_t assertion_caller_id
#define SDK_DSA_KERNEL_ARGS_PASS assertions_data, assertion_caller_id
#define SDK_DSA_KERNEL_LAUNCH(kernel, blocks, threads, shared_mem, stream, ...)                 \
  do {                                                                                          \
    kernel<<<blocks, threads, shared_mem, stream>>>(__VA_ARGS__,                                \
                                                    (::sdk::cuda::DeviceAssertionsData*)0, 0u); \
    SDK_CUDA_KERNEL_LAUNCH_CHECK();                                                             \
  } while (0)
#define SDK_CUDA_KERNEL_ASSERT2(cond) SDK_CUDA_KERNEL_ASSERT(cond)

namespace sdk {
namespace cuda {

inline bool CUDAStream::query() const {
  cudaError_t e = cudaStreamQuery(stream_);
  if (e == cudaErrorNotReady) {
    (void)cudaGetLastError();  // not an error: clear it
    return false;
  }
  SDK_CUDA_CHECK(e);
  return true;
}
inline void CUDAStream::synchronize() const {
  CUDAGuard guard(device_);
  SDK_CUDA_CHECK(cudaStreamSynchronize(stream_));
}
inline int CUDAStream::priority() const {
  int p = 0;
  SDK_CUDA_CHECK(cudaStreamGetPriority(stream_, &p));
  return p;
}

/*! \brief The properties of `device` (-1: the current one), read once per device. */
inline cudaDeviceProp* getDeviceProperties(DeviceIndex device = -1) {
  static std::mutex lock;
  static std::vector<std::unique_ptr<cudaDeviceProp>> cache;
  const int64_t count = device_count();
  if (count == 0) {
    ::sdk::detail::throw_error(SDK_ERROR_RUNTIME,
                               ::sdk::detail::concat("getDeviceProperties: CUDA is not available (",
                                                     sdk_cuda_unavailable_reason(), ")"));
  }
  device = detail::resolve_device(device, "getDeviceProperties");
  SDK_CHECK_INDEX(device < count, "getDeviceProperties: device ", device, " out of range (", count,
                  " CUDA devices)");
  std::lock_guard<std::mutex> g(lock);
  if (cache.size() < static_cast<size_t>(count)) cache.resize(static_cast<size_t>(count));
  auto& slot = cache[static_cast<size_t>(device)];
  if (!slot) {
    auto props = std::make_unique<cudaDeviceProp>();
    SDK_CUDA_CHECK(cudaGetDeviceProperties(props.get(), device));
    slot = std::move(props);
  }
  return slot.get();
}

/*! \brief The current device's properties (at::cuda::getCurrentDeviceProperties). */
inline cudaDeviceProp* getCurrentDeviceProperties() { return getDeviceProperties(-1); }

/*! \brief The current device's warp size. */
inline int warp_size() { return getCurrentDeviceProperties()->warpSize; }

/*! \brief A stream of `device` (-1: current) from a pool of non-blocking streams, handed out
 *  round robin (at::cuda::getStreamFromPool). The pool belongs to this extension and its
 *  streams live as long as the process. */
inline CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device = -1) {
  constexpr size_t kPoolSize = 32;
  struct Pool {
    cudaStream_t streams[kPoolSize] = {};
    size_t next = 0;
  };
  static std::mutex lock;
  static std::vector<Pool> pools[2];  // [low, high priority] per device
  device = detail::resolve_device(device, "getStreamFromPool");
  std::lock_guard<std::mutex> g(lock);
  auto& by_device = pools[isHighPriority ? 1 : 0];
  if (by_device.size() <= static_cast<size_t>(device)) by_device.resize(device + 1);
  Pool& pool = by_device[device];
  const size_t i = pool.next++ % kPoolSize;
  if (!pool.streams[i]) {
    CUDAGuard guard(device);
    int least = 0, greatest = 0;
    SDK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    SDK_CUDA_CHECK(cudaStreamCreateWithPriority(&pool.streams[i], cudaStreamNonBlocking,
                                                isHighPriority ? greatest : least));
  }
  return CUDAStream(pool.streams[i], device);
}

/*! \brief A CUDA event created on first record, on the recording stream's device
 *  (at::cuda::CUDAEvent). The default flags disable timing, as torch's do; pass
 *  cudaEventDefault to use elapsed_time. */
class CUDAEvent {
 public:
  CUDAEvent() noexcept = default;
  explicit CUDAEvent(unsigned int flags) noexcept : flags_(flags) {}
  ~CUDAEvent() {
    if (created_) {
      int32_t previous = 0;
      if (sdk_cuda_current_device(&previous) == SDK_OK && previous != device_) {
        sdk_cuda_set_device(device_);
        cudaEventDestroy(event_);
        sdk_cuda_set_device(previous);
      } else {
        cudaEventDestroy(event_);
      }
    }
  }
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  CUDAEvent(CUDAEvent&& o) noexcept { swap(o); }
  CUDAEvent& operator=(CUDAEvent&& o) noexcept {
    if (this != &o) swap(o);
    return *this;
  }

  bool isCreated() const { return created_; }
  DeviceIndex device_index() const { return device_; }
  cudaEvent_t event() const { return event_; }
  operator cudaEvent_t() const { return event_; }  // NOLINT: implicit like torch
  bool was_recorded() const { return was_recorded_; }

  /*! \brief True when the recorded work is done (or nothing was recorded). */
  bool query() const {
    if (!created_) return true;
    cudaError_t e = cudaEventQuery(event_);
    if (e == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    SDK_CUDA_CHECK(e);
    return true;
  }
  /*! \brief Record on the current stream of the current device. */
  void record() { record(getCurrentCUDAStream()); }
  /*! \brief Record on `stream` (the event stays on the device of its first record). */
  void record(const CUDAStream& stream) {
    CUDAGuard guard(stream.device_index());
    if (!created_) {
      SDK_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
      device_ = stream.device_index();
      created_ = true;
    }
    SDK_CHECK_VALUE(device_ == stream.device_index(), "CUDAEvent: recorded on device ", device_,
                    " before, now on a stream of device ", stream.device_index());
    SDK_CUDA_CHECK(cudaEventRecord(event_, stream.stream()));
    was_recorded_ = true;
  }
  /*! \brief Record unless recorded before. */
  void recordOnce(const CUDAStream& stream) {
    if (!was_recorded_) record(stream);
  }
  /*! \brief Make future work on `stream` wait for this event (no-op when not recorded). */
  void block(const CUDAStream& stream) {
    if (!created_) return;
    CUDAGuard guard(stream.device_index());
    SDK_CUDA_CHECK(cudaStreamWaitEvent(stream.stream(), event_, 0));
  }
  /*! \brief Milliseconds from this event to `end` (both recorded, both with timing). */
  float elapsed_time(const CUDAEvent& end) const {
    SDK_CHECK_VALUE(created_ && end.created_,
                    "CUDAEvent.elapsed_time: both events must be recorded first");
    float ms = 0;
    SDK_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, end.event_));
    return ms;
  }
  /*! \brief Wait on the host for the recorded work. */
  void synchronize() const {
    if (created_) SDK_CUDA_CHECK(cudaEventSynchronize(event_));
  }

 private:
  void swap(CUDAEvent& o) noexcept {
    std::swap(flags_, o.flags_);
    std::swap(created_, o.created_);
    std::swap(was_recorded_, o.was_recorded_);
    std::swap(device_, o.device_);
    std::swap(event_, o.event_);
  }

  unsigned int flags_ = cudaEventDisableTiming;
  bool created_ = false;
  bool was_recorded_ = false;
  DeviceIndex device_ = -1;
  cudaEvent_t event_ = nullptr;
};

}  // namespace cuda
}  // namespace sdk

// cuBLAS: only where its header is installed; a program that calls these links cublas
// (CUDAExtension(..., libraries=["cublas"]) or extra_ldflags=["-lcublas"]).
#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#if __has_include(<cublasLt.h>)
#include <cublasLt.h>
#endif

namespace sdk {
namespace cuda {
namespace detail {
[[noreturn]] SDK_NOINLINE inline void throw_cublas(cublasStatus_t s, const char* expr,
                                                   const char* file, int line) {
  ::sdk::detail::throw_error(
      SDK_ERROR_RUNTIME, ::sdk::detail::concat("cuBLAS error: status ", static_cast<int>(s), " (",
                                               expr, " at ", file, ":", line, ")"));
}

// Handles are made once per device and reused by later threads (never destroyed: the
// driver may be gone at exit). A thread returns its handles to the pool when it ends.
struct BlasHandles {
  std::vector<cublasHandle_t> mine;  // this thread's, by device
  ~BlasHandles() {
    std::lock_guard<std::mutex> g(lock());
    for (size_t d = 0; d < mine.size(); ++d) {
      if (mine[d]) free_list(static_cast<DeviceIndex>(d)).push_back(mine[d]);
    }
  }
  static std::mutex& lock() {
    static std::mutex m;
    return m;
  }
  static std::vector<cublasHandle_t>& free_list(DeviceIndex d) {
    static std::vector<std::vector<cublasHandle_t>> lists;
    if (lists.size() <= static_cast<size_t>(d)) lists.resize(d + 1);
    return lists[d];
  }
};
}  // namespace detail

/*! \brief This thread's cuBLAS handle for the current device, bound to the current stream
 *  (at::cuda::getCurrentCUDABlasHandle). */
inline cublasHandle_t getCurrentCUDABlasHandle() {
  static thread_local detail::BlasHandles handles;
  const DeviceIndex device = current_device();
  if (handles.mine.size() <= static_cast<size_t>(device)) handles.mine.resize(device + 1);
  cublasHandle_t& h = handles.mine[device];
  if (!h) {
    {
      std::lock_guard<std::mutex> g(detail::BlasHandles::lock());
      auto& pool = detail::BlasHandles::free_list(device);
      if (!pool.empty()) {
        h = pool.back();
        pool.pop_back();
      }
    }
    if (!h) {
      cublasStatus_t s = cublasCreate(&h);
      if (s != CUBLAS_STATUS_SUCCESS) {
        h = nullptr;
        detail::throw_cublas(s, "cublasCreate", __FILE__, __LINE__);
      }
    }
  }
  cublasStatus_t s = cublasSetStream(h, getCurrentCUDAStream(device).stream());
  if (s != CUBLAS_STATUS_SUCCESS) detail::throw_cublas(s, "cublasSetStream", __FILE__, __LINE__);
  return h;
}

#if __has_include(<cublasLt.h>)
/*! \brief This thread's cuBLASLt handle for the current device
 *  (at::cuda::getCurrentCUDABlasLtHandle): the cuBLAS handle above, since cuBLAS documents
 *  that a cuBLAS handle serves, cast, wherever a cuBLASLt handle is taken. A cuBLASLt
 *  handle carries no stream: pass getCurrentCUDAStream() to cublasLtMatmul. */
inline cublasLtHandle_t getCurrentCUDABlasLtHandle() {
  return reinterpret_cast<cublasLtHandle_t>(getCurrentCUDABlasHandle());
}
#endif

}  // namespace cuda
}  // namespace sdk

/*! \brief Throw sdk::Error when a cuBLAS call fails (TORCH_CUDABLAS_CHECK). */
#define SDK_CUDABLAS_CHECK(expr)                                                        \
  do {                                                                                  \
    cublasStatus_t sdk_cublas_status_ = (expr);                                         \
    if (SDK_UNLIKELY(sdk_cublas_status_ != CUBLAS_STATUS_SUCCESS)) {                    \
      ::sdk::cuda::detail::throw_cublas(sdk_cublas_status_, #expr, __FILE__, __LINE__); \
    }                                                                                   \
  } while (0)
#endif  // __has_include(<cublas_v2.h>)

#endif  // SDK_CUDA_H_
