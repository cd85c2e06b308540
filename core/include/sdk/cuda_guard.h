// sdk/cuda_guard.h: CUDA device and stream guards that compile without the CUDA toolkit
// (torch's c10/cuda/CUDAGuard.h, c10/cuda/CUDAStream.h, ATen/DeviceGuard.h): CUDAGuard,
// OptionalCUDAGuard, CUDAStreamGuard, OptionalCUDAStreamGuard, getCurrentCUDAStream,
// CUDACachingAllocator (raw_alloc / raw_delete, recordStream, get()'s allocator object), and
// the device-generic DeviceGuard / OptionalDeviceGuard.
//
// Everything goes through the C ABI, so a C++ file that only guards devices builds with a
// plain C++ compiler. Without CUDA (no toolkit, driver or GPU) the device-generic guards on a
// CPU device do nothing, and any guard asked for a CUDA device throws sdk::Error naming the
// guard and why CUDA is unavailable. cudaStream_t is declared as the CUDA headers declare it,
// so including <cuda_runtime.h> before or after this header is fine; <sdk/all.h> (and so
// <sdk/extension.h>) leaves the global name undeclared, as torch/extension.h does, so a
// CPU-only source may declare a cudaStream_t placeholder of its own.
#ifndef SDK_CUDA_GUARD_H_
#define SDK_CUDA_GUARD_H_

#include <cstddef>
#include <optional>

#include "sdk/data_ptr.h"
#include "sdk/tensor.h"
#include "sdk/util.h"

struct CUstream_st;  // the CUDA runtime's stream type, as its headers declare it

namespace sdk {
namespace cuda {
namespace detail {
// cudaStream_t under a name of the SDK's own: the global one is declared below, outside
// <sdk/all.h> only
using cuda_stream_t = ::CUstream_st*;
}  // namespace detail

/*! \brief True when CUDA is usable (backend library, driver and a GPU). */
inline bool is_available() { return sdk_cuda_is_available() != 0; }
/*! \brief Number of visible devices (0 without CUDA). */
inline int64_t device_count() { return sdk_cuda_device_count(); }

/*! \brief The current device's ordinal (torch's current_device). */
inline DeviceIndex current_device();

/*! \brief Whether every tensor is on the current CUDA device (torch's at::cuda::check_device);
 *  true for none. */
inline bool check_device(ArrayRef<Tensor> ts) {
  if (ts.empty()) return true;
  const Device current(kCUDA, current_device());
  for (const Tensor& t : ts) {
    if (t.device() != current) return false;
  }
  return true;
}

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
  CUDAStream(detail::cuda_stream_t stream, DeviceIndex device) : stream_(stream), device_(device) {}
  operator detail::cuda_stream_t() const { return stream_; }  // NOLINT: implicit like torch
  detail::cuda_stream_t stream() const { return stream_; }
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
  detail::cuda_stream_t stream_;
  DeviceIndex device_;
};

/*! \brief This thread's current stream on `device` (-1: the current device). */
inline CUDAStream getCurrentCUDAStream(int32_t device = -1) {
  void* s = nullptr;
  ::sdk::detail::check_status(sdk_cuda_get_stream(device, &s), "getCurrentCUDAStream");
  return CUDAStream(static_cast<detail::cuda_stream_t>(s),
                    detail::resolve_device(device, "getCurrentCUDAStream"));
}

/*! \brief The default (legacy NULL) stream of `device` (-1: the current device). */
inline CUDAStream getDefaultCUDAStream(int32_t device = -1) {
  return CUDAStream(nullptr, detail::resolve_device(device, "getDefaultCUDAStream"));
}

/*! \brief A stream made elsewhere (another library), for the guards below. */
inline CUDAStream getStreamFromExternal(detail::cuda_stream_t stream, DeviceIndex device) {
  return CUDAStream(stream, device);
}

/*! \brief Make `stream` current on `device` for this thread (nullptr: default stream). */
inline void setCurrentCUDAStream(detail::cuda_stream_t stream, int32_t device = -1) {
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
/*! \brief Wait for all work on the current device (c10::cuda::device_synchronize). */
inline void device_synchronize() { synchronize(-1); }
/*! \brief Wait for the work queued on `stream` (c10::cuda::stream_synchronize; NULL: the
 *  current device's default stream). ABI 1.10. */
inline void stream_synchronize(detail::cuda_stream_t stream) {
  ::sdk::detail::check_status(sdk_cuda_stream_synchronize(stream), "stream_synchronize");
}
/*! \brief Number of visible devices (at::cuda::getNumGPUs; 0 without CUDA). */
inline int64_t getNumGPUs() { return device_count(); }

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

/*! \brief Make `device` current (c10::cuda::MaybeSetDevice; the SDK's devices need no lazy
 *  context creation, so this is set_device). */
inline void set_device(DeviceIndex device) {
  ::sdk::detail::check_status(sdk_cuda_set_device(device), "set_device");
}
inline void MaybeSetDevice(DeviceIndex device) { set_device(device); }

/*! \brief ceil(a / b), as at::cuda::ATenCeilDiv (grid sizes). */
template <typename T, typename U>
SDK_DEVICE_INLINE constexpr T ATenCeilDiv(T a, U b) {
  return ::sdk::ceil_div(a, b);
}

/*! \brief A CUDAStreamGuard that may guard nothing (torch's OptionalCUDAStreamGuard). */
class OptionalCUDAStreamGuard {
 public:
  OptionalCUDAStreamGuard() = default;
  explicit OptionalCUDAStreamGuard(const std::optional<CUDAStream>& stream) {
    if (stream) reset_stream(*stream);
  }
  OptionalCUDAStreamGuard(const OptionalCUDAStreamGuard&) = delete;
  OptionalCUDAStreamGuard& operator=(const OptionalCUDAStreamGuard&) = delete;
  /*! \brief Guard `stream` (the first stream's device is kept: another device throws). */
  void reset_stream(const CUDAStream& stream) {
    if (guard_) {
      guard_->reset_stream(stream);
    } else {
      guard_.emplace(stream);
    }
  }
  /*! \brief Restore the original stream and device now, and guard nothing. */
  void reset() { guard_.reset(); }
  std::optional<CUDAStream> original_stream() const {
    return guard_ ? std::optional<CUDAStream>(guard_->original_stream()) : std::nullopt;
  }
  std::optional<CUDAStream> current_stream() const {
    return guard_ ? std::optional<CUDAStream>(guard_->current_stream()) : std::nullopt;
  }

 private:
  std::optional<CUDAStreamGuard> guard_;
};

/*! \brief Scratch device memory from the SDK's caching allocator (torch's
 *  c10::cuda::CUDACachingAllocator::raw_alloc / raw_delete). */
namespace CUDACachingAllocator {
/*! \brief `nbytes` on the current device, ordered on its current stream. */
inline void* raw_alloc(size_t nbytes) {
  void* ptr = nullptr;
  ::sdk::detail::check_status(sdk_cuda_raw_alloc(static_cast<int64_t>(nbytes), -1, &ptr),
                              "CUDACachingAllocator::raw_alloc");
  return ptr;
}
/*! \brief As raw_alloc, with `stream` made current on its device for the allocation. */
inline void* raw_alloc_with_stream(size_t nbytes, detail::cuda_stream_t stream) {
  CUDAStreamGuard guard(getStreamFromExternal(stream, current_device()));
  return raw_alloc(nbytes);
}
/*! \brief Give back memory from raw_alloc (nullptr is ignored). */
inline void raw_delete(void* ptr) {
  ::sdk::detail::check_status(sdk_cuda_raw_free(ptr), "CUDACachingAllocator::raw_delete");
}
/*! \brief Release the cached, unused blocks to the driver. */
inline void emptyCache() {
  ::sdk::detail::check_status(sdk_cuda_empty_cache(), "CUDACachingAllocator::emptyCache");
}

namespace detail {
// The deleter of the DataPtrs allocate() hands out. A deleter cannot throw, and the only
// failure left here (the driver's context already gone) loses nothing: warn and go on.
inline void delete_block(void* ptr) {
  if (sdk_cuda_raw_free(ptr) != SDK_OK) {
    ::sdk::warn(std::string("CUDACachingAllocator: freeing a block failed: ") +
                sdk_last_error_message());
  }
}
}  // namespace detail

/*! \brief The block behind `ptr` (from allocate(), or a CUDA tensor's Storage::data_ptr())
 *  is used on `stream` too: once freed it is reused only after the work queued on `stream` by
 *  then has finished (torch's recordStream). Memory the allocator did not hand out (another
 *  deleter) is left alone, as torch does: its owner orders its reuse. */
inline void recordStream(const DataPtr& ptr, CUDAStream stream) {
  const DeleterFnPtr deleter = ptr.get_deleter();
  if (!ptr || (deleter != &detail::delete_block && deleter != &::sdk::detail::storage_block))
    return;
  ::sdk::detail::check_status(sdk_cuda_raw_record_stream(ptr.get_context(), stream.stream()),
                              "CUDACachingAllocator::recordStream");
}

/*! \brief The caching allocator as an object (torch's CUDACachingAllocator::CUDAAllocator,
 *  what get() returns): allocate() gives a DataPtr that frees itself; the raw_* calls are
 *  the free functions above under torch's Allocator names too. */
class CUDAAllocator {
 public:
  /*! \brief `nbytes` on the current device, ordered on its current stream; 0 bytes give an
   *  empty DataPtr. */
  DataPtr allocate(size_t nbytes) const {
    const Device device(kCUDA, current_device());
    if (nbytes == 0) return DataPtr(nullptr, device);
    void* ptr = CUDACachingAllocator::raw_alloc(nbytes);
    return DataPtr(ptr, ptr, &detail::delete_block, device);
  }
  void* raw_alloc(size_t nbytes) const { return CUDACachingAllocator::raw_alloc(nbytes); }
  void* raw_alloc_with_stream(size_t nbytes, ::sdk::cuda::detail::cuda_stream_t stream) const {
    return CUDACachingAllocator::raw_alloc_with_stream(nbytes, stream);
  }
  void raw_delete(void* ptr) const { CUDACachingAllocator::raw_delete(ptr); }
  void* raw_allocate(size_t nbytes) const { return raw_alloc(nbytes); }
  void raw_deallocate(void* ptr) const { raw_delete(ptr); }
  /*! \brief What frees raw_alloc's memory, for a DataPtr or unique_ptr of one's own. */
  DeleterFnPtr raw_deleter() const { return &detail::delete_block; }
  void recordStream(const DataPtr& ptr, CUDAStream stream) const {
    CUDACachingAllocator::recordStream(ptr, stream);
  }
  void emptyCache() const { CUDACachingAllocator::emptyCache(); }
};

/*! \brief The process's caching allocator (torch's CUDACachingAllocator::get()). */
inline CUDAAllocator* get() {
  static CUDAAllocator allocator;
  return &allocator;
}
}  // namespace CUDACachingAllocator

}  // namespace cuda

/*! \brief Makes `device` current for a scope (torch's c10::DeviceGuard): nothing to do for a
 *  CPU device; a CUDA device works as cuda::CUDAGuard (an error when CUDA is unavailable). */
class DeviceGuard {
 public:
  explicit DeviceGuard(const Device& device) {
    if (device.is_cuda()) cuda_.emplace(device);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  /*! \brief Whether a CUDA device is being guarded. */
  bool is_active() const { return cuda_.has_value(); }

 private:
  std::optional<cuda::CUDAGuard> cuda_;
};

/*! \brief A DeviceGuard that may guard nothing (torch's c10::OptionalDeviceGuard):
 *  `OptionalDeviceGuard g(device_of(x))` is a no-op for an undefined or CPU tensor. */
class OptionalDeviceGuard {
 public:
  OptionalDeviceGuard() = default;
  explicit OptionalDeviceGuard(const std::optional<Device>& device) {
    if (device) reset_device(*device);
  }
  OptionalDeviceGuard(const OptionalDeviceGuard&) = delete;
  OptionalDeviceGuard& operator=(const OptionalDeviceGuard&) = delete;
  /*! \brief Guard `device` from now on (the first guarded device is restored at the end). */
  void reset_device(const Device& device) {
    if (device.is_cuda()) cuda_.set_device(device);
  }
  /*! \brief Restore the original device now. */
  void reset() { cuda_.reset(); }
  std::optional<Device> original_device() const { return cuda_.original_device(); }
  std::optional<Device> current_device() const { return cuda_.current_device(); }

 private:
  cuda::OptionalCUDAGuard cuda_;
};

}  // namespace sdk

#endif  // SDK_CUDA_GUARD_H_

// The global cudaStream_t that torch's CUDA headers bring with the CUDA runtime's (the ones
// ported to this header): not while <sdk/all.h> includes it, since torch/extension.h
// declares none and CPU sources (a renderer's host build, say) declare their own
// `typedef void* cudaStream_t` after it. Outside the include guard, so a later direct
// include still declares it.
#if !defined(SDK_ALL_H_BODY_) && !defined(SDK_GLOBAL_CUDA_STREAM_T_)
#define SDK_GLOBAL_CUDA_STREAM_T_
typedef struct CUstream_st* cudaStream_t;
#endif
