// sdk/cuda.h: CUDA helpers for extension authors: streams, device and stream guards, events,
// device properties, cuBLAS handles and error checks (torch's at::cuda::getCurrentCUDAStream,
// CUDAGuard, OptionalCUDAGuard, CUDAStreamGuard, getStreamFromPool, CUDAEvent,
// getCurrentDeviceProperties, getCurrentCUDABlasHandle, C10_CUDA_CHECK).
//
// Include it from .cu files (or C++ files compiled with the CUDA include path). Everything
// goes through the C ABI, so kernels launched on getCurrentCUDAStream() are ordered with
// the SDK's own CUDA ops on the same thread.
#ifndef SDK_CUDA_H_
#define SDK_CUDA_H_

#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "sdk/tensor.h"
#include "sdk/util.h"

namespace sdk {
namespace cuda {

/*! \brief True when CUDA is usable (backend library, driver and a GPU). */
inline bool is_available() { return sdk_cuda_is_available() != 0; }
/*! \brief Number of visible devices (0 without CUDA). */
inline int64_t device_count() { return sdk_cuda_device_count(); }

/*! \brief The current device's ordinal (torch's current_device). */
inline DeviceIndex current_device() {
  int32_t device = 0;
  ::sdk::detail::check_status(sdk_cuda_current_device(&device), "current_device");
  return device;
}

namespace detail {
inline DeviceIndex resolve_device(DeviceIndex device, const char* what) {
  if (device >= 0) return device;
  int32_t current = 0;
  ::sdk::detail::check_status(sdk_cuda_current_device(&current), what);
  return current;
}
}  // namespace detail

/*! \brief A stream and its device (torch's c10::cuda::CUDAStream). Converts to cudaStream_t,
 *  so it goes straight into a <<<grid, block, shmem, stream>>> launch. */
class CUDAStream {
 public:
  CUDAStream(cudaStream_t stream, DeviceIndex device) : stream_(stream), device_(device) {}
  operator cudaStream_t() const { return stream_; }  // NOLINT: implicit like torch
  cudaStream_t stream() const { return stream_; }
  DeviceIndex device_index() const { return device_; }
  Device device() const { return Device(kCUDA, device_); }
  /*! \brief True when all work queued on the stream has finished. */
  bool query() const;
  /*! \brief Wait for the work queued on the stream. */
  void synchronize() const;
  /*! \brief The stream's priority (lower is more urgent). */
  int priority() const;
  bool operator==(const CUDAStream& o) const {
    return stream_ == o.stream_ && device_ == o.device_;
  }
  bool operator!=(const CUDAStream& o) const { return !(*this == o); }

 private:
  cudaStream_t stream_;
  DeviceIndex device_;
};

/*! \brief This thread's current stream on `device` (-1: the current device). */
inline CUDAStream getCurrentCUDAStream(int32_t device = -1) {
  void* s = nullptr;
  ::sdk::detail::check_status(sdk_cuda_get_stream(device, &s), "getCurrentCUDAStream");
  return CUDAStream(static_cast<cudaStream_t>(s),
                    detail::resolve_device(device, "getCurrentCUDAStream"));
}

/*! \brief The default (legacy NULL) stream of `device` (-1: the current device). */
inline CUDAStream getDefaultCUDAStream(int32_t device = -1) {
  return CUDAStream(nullptr, detail::resolve_device(device, "getDefaultCUDAStream"));
}

/*! \brief A stream made elsewhere (another library), for the guards below. */
inline CUDAStream getStreamFromExternal(cudaStream_t stream, DeviceIndex device) {
  return CUDAStream(stream, device);
}

/*! \brief Make `stream` current on `device` for this thread (nullptr: default stream). */
inline void setCurrentCUDAStream(cudaStream_t stream, int32_t device = -1) {
  ::sdk::detail::check_status(sdk_cuda_set_stream(device, static_cast<void*>(stream)),
                              "setCurrentCUDAStream");
}
/*! \brief Make `stream` current on its device for this thread. */
inline void setCurrentCUDAStream(const CUDAStream& stream) {
  setCurrentCUDAStream(stream.stream(), stream.device_index());
}

/*! \brief Wait for all work on `device` (-1: current). */
inline void synchronize(int32_t device = -1) {
  ::sdk::detail::check_status(sdk_cuda_synchronize(device), "synchronize");
}

/*! \brief Makes a device current for a scope and restores the previous one. A negative
 *  index, or a Device without one ("cuda"), keeps the current device (as torch's guard). */
class CUDAGuard {
 public:
  explicit CUDAGuard(int32_t device) {
    ::sdk::detail::check_status(sdk_cuda_current_device(&previous_), "CUDAGuard");
    current_ = previous_;
    set_index(device);
  }
  explicit CUDAGuard(const Device& device) : CUDAGuard(device.has_index() ? device.index() : -1) {}
  ~CUDAGuard() {
    if (current_ != previous_) sdk_cuda_set_device(previous_);
  }
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  /*! \brief Switch to another device (restored to the original one at scope exit). */
  void set_index(int32_t device) {
    if (device >= 0 && device != current_) {
      ::sdk::detail::check_status(sdk_cuda_set_device(device), "CUDAGuard");
      current_ = device;
    }
  }
  void set_device(const Device& device) { set_index(device.has_index() ? device.index() : -1); }
  Device original_device() const { return Device(kCUDA, previous_); }
  Device current_device() const { return Device(kCUDA, current_); }

 private:
  int32_t previous_ = 0;
  int32_t current_ = 0;
};

/*! \brief A CUDAGuard that may guard nothing: OptionalCUDAGuard g(device_of(x)) switches
 *  to x's device when x is defined and does nothing for an undefined tensor. A CPU device
 *  is a mistake (as in torch) and throws. */
class OptionalCUDAGuard {
 public:
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(const std::optional<Device>& device) {
    if (device) set_device(*device);
  }
  explicit OptionalCUDAGuard(const std::optional<DeviceIndex>& index) {
    if (index) set_index(*index);
  }
  ~OptionalCUDAGuard() { reset(); }
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;

  void set_device(const Device& device) {
    SDK_CHECK_VALUE(device.is_cuda(), "OptionalCUDAGuard: expected a CUDA device, got ", device);
    set_index(device.has_index() ? device.index() : -1);
  }
  void set_index(DeviceIndex device) {
    if (!original_) {
      int32_t current = 0;
      ::sdk::detail::check_status(sdk_cuda_current_device(&current), "OptionalCUDAGuard");
      original_ = current;
      current_ = current;
    }
    if (device >= 0 && device != *current_) {
      ::sdk::detail::check_status(sdk_cuda_set_device(device), "OptionalCUDAGuard");
      current_ = device;
    }
  }
  /*! \brief Restore the original device now and guard nothing. */
  void reset() {
    if (original_ && *current_ != *original_) sdk_cuda_set_device(*original_);
    original_.reset();
    current_.reset();
  }
  std::optional<Device> original_device() const {
    return original_ ? std::optional<Device>(Device(kCUDA, *original_)) : std::nullopt;
  }
  std::optional<Device> current_device() const {
    return current_ ? std::optional<Device>(Device(kCUDA, *current_)) : std::nullopt;
  }

 private:
  std::optional<DeviceIndex> original_, current_;
};

/*! \brief Makes `stream` current on its device (and that device current) for a scope;
 *  restores both after (torch's CUDAStreamGuard). */
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(const CUDAStream& stream)
      : device_guard_(stream.device_index()),
        original_(getCurrentCUDAStream(stream.device_index())),
        current_(original_) {
    reset_stream(stream);
  }
  ~CUDAStreamGuard() { sdk_cuda_set_stream(original_.device_index(), original_.stream()); }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  /*! \brief Switch to another stream of the same device. */
  void reset_stream(const CUDAStream& stream) {
    SDK_CHECK_VALUE(stream.device_index() == original_.device_index(),
                    "CUDAStreamGuard: the stream is on device ", stream.device_index(),
                    ", the guard on device ", original_.device_index());
    setCurrentCUDAStream(stream);
    current_ = stream;
  }
  CUDAStream original_stream() const { return original_; }
  CUDAStream current_stream() const { return current_; }

 private:
  CUDAGuard device_guard_;
  CUDAStream original_, current_;
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
