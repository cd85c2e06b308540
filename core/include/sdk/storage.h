// sdk/storage.h: the memory behind a tensor and its views (torch's c10::Storage), a refcounted
// handle over the C ABI's sdk_storage; Tensor::storage() gives one, Tensor::set_ takes one.
#ifndef SDK_STORAGE_H_
#define SDK_STORAGE_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "sdk/c_api.h"
#include "sdk/data_ptr.h"
#include "sdk/device.h"
#include "sdk/error.h"
#include "sdk/symint.h"

namespace sdk {

/*! \brief The bytes a tensor and its views share, on one device (torch's Storage): copying
 *  retains, destruction releases, and the memory lives while any Storage or tensor holds it.
 *  A default-constructed Storage is undefined (no handle): its methods throw sdk::Error.
 *  There is no StorageImpl to reach (torch's unsafeGetStorageImpl): the handle is opaque. */
class Storage {
 public:
  Storage() noexcept = default;
  Storage(const Storage& o) noexcept : h_(o.h_) {
    if (h_) sdk_storage_retain(h_);
  }
  Storage(Storage&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Storage& operator=(const Storage& o) noexcept {
    Storage(o).swap(*this);
    return *this;
  }
  Storage& operator=(Storage&& o) noexcept {
    Storage(std::move(o)).swap(*this);
    return *this;
  }
  ~Storage() { sdk_storage_release(h_); }

  /*! \brief Take ownership of a NEW reference (what sdk_tensor_storage returns). */
  static Storage steal(sdk_storage* handle) noexcept {
    Storage s;
    s.h_ = handle;
    return s;
  }
  /*! \brief The handle, still owned by this Storage (for C ABI calls). */
  sdk_storage* get() const noexcept { return h_; }
  bool defined() const noexcept { return h_ != nullptr; }
  explicit operator bool() const noexcept { return defined(); }
  void reset() noexcept { Storage().swap(*this); }

  /*! \brief Size in bytes. */
  size_t nbytes() const { return static_cast<size_t>(sdk_storage_nbytes(checked("nbytes"))); }
  SymInt sym_nbytes() const { return static_cast<int64_t>(nbytes()); }
  Device device() const { return Device::from_c(sdk_storage_device(checked("device"))); }
  DeviceType device_type() const { return device().type(); }
  /*! \brief Whether resize_ may move a tensor on it to a larger copy: memory the core
   *  allocated, not memory it wraps (from_blob, DLPack, numpy). */
  bool resizable() const { return sdk_storage_resizable(checked("resizable")) != 0; }
  /*! \brief The first byte, to read (nullptr for a meta storage). */
  const void* data() const { return sdk_storage_data_ptr(checked("data")); }
  /*! \brief The first byte, to write: throws when the memory is read-only (a read-only numpy
   *  array, a file mapped read-only), where data() would let the write through. */
  void* mutable_data() const {
    sdk_storage* h = checked("mutable_data");
    if (SDK_UNLIKELY(sdk_storage_is_read_only(h) != 0)) throw_read_only("mutable_data");
    return sdk_storage_data_ptr(h);
  }
  /*! \brief The memory as a DataPtr that borrows it (releasing it frees nothing; the
   *  storage owns the memory): `.get()` is data(), and for the core's CUDA memory it is the
   *  allocator's block, so CUDACachingAllocator::recordStream(s.data_ptr(), stream) orders
   *  its reuse after `stream`'s work, as torch's. torch returns a reference to its own. */
  DataPtr data_ptr() const { return borrowed(const_cast<void*>(data())); }
  DataPtr mutable_data_ptr() const { return borrowed(mutable_data()); }
  /*! \brief References to the memory: the tensors on it plus the Storage handles. A
   *  temporary does not count itself, so `t.storage().use_count()` is torch's count (torch's
   *  storage() returns a reference to the tensor's own handle; this one returns a copy); the
   *  other temporaries of the same full expression still count until it ends. */
  int64_t use_count() const& noexcept { return sdk_storage_use_count(h_); }
  int64_t use_count() && noexcept { return h_ ? sdk_storage_use_count(h_) - 1 : 0; }
  bool unique() const& noexcept { return use_count() == 1; }
  bool unique() && noexcept { return std::move(*this).use_count() == 1; }
  /*! \brief Whether both are the same memory (two undefined storages too, as torch's). */
  bool is_alias_of(const Storage& other) const noexcept { return h_ == other.h_; }

 private:
  void swap(Storage& o) noexcept { std::swap(h_, o.h_); }
  sdk_storage* checked(const char* what) const {
    if (SDK_UNLIKELY(!h_)) throw_undefined(what);
    return h_;
  }
  DataPtr borrowed(void* data) const {
    const Device d = device();
    // the core's own CUDA blocks carry their start as the context recordStream reads
    if (d.is_cuda() && data && resizable()) return DataPtr(data, data, &detail::storage_block, d);
    return DataPtr(data, d);
  }
  [[noreturn]] SDK_NOINLINE static void throw_undefined(const char* what) {
    detail::throw_error(SDK_ERROR_RUNTIME,
                        detail::concat("Storage::", what, "(): called on an undefined Storage"));
  }
  [[noreturn]] SDK_NOINLINE static void throw_read_only(const char* what) {
    detail::throw_error(SDK_ERROR_RUNTIME,
                        detail::concat("Storage::", what,
                                       "(): the storage is read-only memory; clone() the "
                                       "tensor first, or use data() to read"));
  }

  sdk_storage* h_ = nullptr;
};

}  // namespace sdk

#endif  // SDK_STORAGE_H_
