// sdk/data_ptr.h: owned raw memory and its device (torch's c10::DataPtr), as an allocator's
// allocate() returns it (sdk::cuda::CUDACachingAllocator::get()->allocate(nbytes)).
#ifndef SDK_DATA_PTR_H_
#define SDK_DATA_PTR_H_

#include <memory>
#include <utility>

#include "sdk/device.h"

namespace sdk {

/*! \brief A function that releases memory (torch's c10::DeleterFnPtr). */
using DeleterFnPtr = void (*)(void*);

namespace detail {
inline void delete_nothing(void*) {}
// The deleter of a DataPtr that borrows a block of the core's CUDA allocator from a storage
// (Storage::data_ptr()): it frees nothing, and tells recordStream that the context is the
// block's start.
inline void storage_block(void*) {}
}  // namespace detail

/*! \brief Raw memory `get()` on `device()` that owns a context (usually the same pointer)
 *  released by its deleter when the DataPtr goes (torch's c10::DataPtr). Move-only. */
class DataPtr {
 public:
  DataPtr() : DataPtr(nullptr, Device(kCPU)) {}
  /*! \brief Memory owned elsewhere: nothing is released. */
  DataPtr(void* data, Device device) : DataPtr(data, nullptr, &detail::delete_nothing, device) {}
  /*! \brief `data`, whose `ctx` is released with `ctx_deleter` (nullptr: nothing to do). */
  DataPtr(void* data, void* ctx, DeleterFnPtr ctx_deleter, Device device)
      : data_(data),
        ctx_(ctx, ctx_deleter ? ctx_deleter : &detail::delete_nothing),
        device_(device) {}

  void* get() const { return data_; }
  void* mutable_get() { return data_; }
  /*! \brief The context the deleter releases. */
  void* get_context() const { return ctx_.get(); }
  DeleterFnPtr get_deleter() const { return ctx_.get_deleter(); }
  Device device() const { return device_; }
  explicit operator bool() const { return data_ != nullptr; }
  /*! \brief Release the memory now; the DataPtr is empty afterwards. */
  void clear() {
    ctx_.reset();
    data_ = nullptr;
  }
  /*! \brief Give up ownership: the caller releases the returned context. */
  void* release_context() {
    data_ = nullptr;
    return ctx_.release();
  }

 private:
  void* data_;
  std::unique_ptr<void, DeleterFnPtr> ctx_;
  Device device_;
};

inline bool operator==(const DataPtr& p, std::nullptr_t) { return !p; }
inline bool operator!=(const DataPtr& p, std::nullptr_t) { return static_cast<bool>(p); }

}  // namespace sdk

#endif  // SDK_DATA_PTR_H_
