// core/src/tensor_impl.h: the core's internal tensor, storage and error model.
//
// Nothing here is exported: the C ABI (sdk/c_api.h) is the only interface.
// An sdk_tensor* handed across the ABI is a TensorImpl* (see to_impl/to_handle).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sdk/c_api.h"
#include "sdk/dtype_table.h"

namespace sdk::detail {

// ---------------------------------------------------------------------------
// Errors: C++ exceptions inside, sdk_status at the ABI (see SDK_SAFE_CALL).
// ---------------------------------------------------------------------------

// An error carrying the ABI error kind; thrown by core code, caught at the ABI.
struct Error : std::runtime_error {
  sdk_status kind;
  Error(sdk_status k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

// Record the error of this thread (see error.cpp).
sdk_status set_error(sdk_status kind, const std::string& msg);

// Concatenate anything streamable into one message.
template <typename... Args>
std::string str(const Args&... args);

[[noreturn]] void throw_error(sdk_status kind, const std::string& msg);

#define SDK_FAIL(kind, ...) ::sdk::detail::throw_error((kind), ::sdk::detail::str(__VA_ARGS__))
#define SDK_REQUIRE(cond, kind, ...)          \
  do {                                        \
    if (!(cond)) SDK_FAIL(kind, __VA_ARGS__); \
  } while (0)
#define SDK_VALUE_CHECK(cond, ...) SDK_REQUIRE(cond, SDK_ERROR_VALUE, __VA_ARGS__)
#define SDK_TYPE_CHECK(cond, ...) SDK_REQUIRE(cond, SDK_ERROR_TYPE, __VA_ARGS__)
#define SDK_INDEX_CHECK(cond, ...) SDK_REQUIRE(cond, SDK_ERROR_INDEX, __VA_ARGS__)

// Wrap the body of every exported function: no exception crosses the ABI.
//   sdk_status sdk_foo(...) { SDK_SAFE_CALL_BEGIN; ...; SDK_SAFE_CALL_END; }
#define SDK_SAFE_CALL_BEGIN try {
#define SDK_SAFE_CALL_END                                                    \
  return SDK_OK;                                                             \
  }                                                                          \
  catch (const ::sdk::detail::Error& e) {                                    \
    return ::sdk::detail::set_error(e.kind, e.what());                       \
  }                                                                          \
  catch (const std::bad_alloc&) {                                            \
    return ::sdk::detail::set_error(SDK_ERROR_MEMORY, "out of memory");      \
  }                                                                          \
  catch (const std::exception& e) {                                          \
    return ::sdk::detail::set_error(SDK_ERROR_RUNTIME, e.what());            \
  }                                                                          \
  catch (...) {                                                              \
    return ::sdk::detail::set_error(SDK_ERROR_RUNTIME, "unknown C++ error"); \
  }

// A broken internal invariant (not a user error): abort with a fixed prefix.
[[noreturn]] void fatal(const char* msg);

// ---------------------------------------------------------------------------
// Storage: one refcounted allocation, shared by every view onto it.
// ---------------------------------------------------------------------------

struct Storage {
  std::atomic<int64_t> refcount{1};
  std::atomic<int64_t> version{0};  // write counter shared by all views
  void* data = nullptr;
  int64_t nbytes = 0;
  sdk_device device{SDK_CPU, 0};
  // Frees `data`: the allocator's free, or a from_blob/DLPack deleter.
  sdk_deleter deleter = nullptr;
  void* deleter_ctx = nullptr;
  // CPU storages made by new_storage live in the same block as their data
  // (one allocation per tensor on the hot path); freed as one block.
  bool embedded = false;
  bool foreign = false;  // wrapped memory (from_blob/DLPack): never freed by our allocator
  // Nonzero when the memory must not be written (a read-only numpy array, a DLPack tensor
  // flagged READ_ONLY, ...): which owner it is, for the error (read_only_owner_name). Set
  // once (sdk_tensor_set_read_only) and never cleared, so every view stays read-only. An
  // index rather than a pointer: it fits the header's padding (64 bytes in front of data).
  std::atomic<uint16_t> read_only{0};

  void retain() { refcount.fetch_add(1, std::memory_order_relaxed); }
  void release();  // frees data and this when the count reaches zero
};

// Allocate a storage of nbytes on `device` (64-byte aligned on the CPU).
Storage* new_storage(int64_t nbytes, sdk_device device);
// Wrap foreign memory.
Storage* wrap_storage(void* data, int64_t nbytes, sdk_device device, sdk_deleter deleter,
                      void* ctx);

// ---------------------------------------------------------------------------
// TensorImpl: a view (sizes, strides in elements, offset, dtype) of a Storage.
// ---------------------------------------------------------------------------

// Small-size-optimised shape/stride vectors: most tensors have <= 6 dims.
constexpr int kInlineDims = 6;

struct TensorImpl {
  std::atomic<int64_t> refcount{1};
  Storage* storage = nullptr;  // owned reference
  int64_t ndim = 0;
  int64_t offset = 0;  // in elements
  int64_t numel = 1;
  sdk_dtype dtype = SDK_FLOAT32;
  bool contiguous = true;
  int64_t* sizes = inline_sizes;
  int64_t* strides = inline_strides;
  int64_t inline_sizes[kInlineDims];
  int64_t inline_strides[kInlineDims];
  // The autograd engine's per-tensor state (sdk_tensor_autograd_slot); released through the
  // engine when this view is freed.
  std::atomic<void*> autograd_slot{nullptr};
  // Storages this view was moved off by set_ (each once, one reference each), released with
  // it: memory exported from the view before (a numpy array, a DLPack capsule, which hold
  // the view, not its storage) stays valid. Empty and meta storages, which no export can
  // read, are not kept. nullptr until the first such set_.
  std::vector<Storage*>* left_storages = nullptr;

  TensorImpl() = default;
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;
  ~TensorImpl();

  // Set shape and strides (strides nullptr: contiguous); recomputes numel
  // and the contiguity flag.
  void set_shape(int64_t nd, const int64_t* sz, const int64_t* st);
  void retain() { refcount.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refcount.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  inline void* data() const;  // address of element [0,...,0]
  inline int64_t itemsize() const;
  sdk_device device() const { return storage->device; }
  void bump_version() { storage->version.fetch_add(1, std::memory_order_relaxed); }
};

inline TensorImpl* to_impl(const sdk_tensor* t) {
  return reinterpret_cast<TensorImpl*>(const_cast<sdk_tensor*>(t));
}
inline sdk_tensor* to_handle(TensorImpl* t) { return reinterpret_cast<sdk_tensor*>(t); }
inline Storage* to_storage(const sdk_storage* s) {
  return reinterpret_cast<Storage*>(const_cast<sdk_storage*>(s));
}
inline sdk_storage* to_handle(Storage* s) { return reinterpret_cast<sdk_storage*>(s); }

// Owning smart pointer used throughout the implementation.
class Ref {
 public:
  Ref() = default;
  explicit Ref(TensorImpl* p) : p_(p) {}  // adopts a reference
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->retain();
  }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Ref& operator=(Ref o) {
    std::swap(p_, o.p_);
    return *this;
  }
  ~Ref() {
    if (p_) p_->release();
  }
  static Ref borrow(const sdk_tensor* t) {
    TensorImpl* p = to_impl(t);
    if (p) p->retain();
    return Ref(p);
  }
  TensorImpl* get() const { return p_; }
  TensorImpl* operator->() const { return p_; }
  TensorImpl& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Hand the reference across the ABI.
  sdk_tensor* release_handle() { return to_handle(std::exchange(p_, nullptr)); }

 private:
  TensorImpl* p_ = nullptr;
};

// New contiguous tensor.
// Hand a freed tensor's autograd slot back to the engine (autograd.cpp).
void release_autograd_slot(void* slot);

Ref make_tensor(const std::vector<int64_t>& sizes, sdk_dtype dtype, sdk_device device);
Ref make_tensor(int64_t ndim, const int64_t* sizes, sdk_dtype dtype, sdk_device device);
// New view onto t's storage.
Ref make_view(const TensorImpl& t, int64_t ndim, const int64_t* sizes, const int64_t* strides,
              int64_t offset);

// Product of sizes; ValueError naming `op` for negative sizes or overflow.
int64_t checked_numel(int64_t ndim, const int64_t* sizes, const char* op);
// ValueError naming `op` unless the `nbytes` bytes at `data` + `offset` lie inside the
// address space a process can have: below 2^56 on 64-bit platforms (x86-64 with 5-level
// paging, aarch64 with 52-bit addresses), with a pointer tag in the top byte (aarch64 TBI,
// MTE, HWASan) ignored. Memory described from outside (DLPack, sdk_from_blob) passes it
// before a tensor is made, so that a size, stride or byte offset that no real memory can
// have is refused instead of read.
void check_address_span(const void* data, uint64_t offset, int64_t nbytes, const char* op);
// Contiguous strides for sizes (size-1/0 dims get the natural stride).
void contiguous_strides(int64_t ndim, const int64_t* sizes, int64_t* strides);
bool compute_contiguous(int64_t ndim, const int64_t* sizes, const int64_t* strides);

// The Storage::read_only index naming `owner` (kept in a table of at most 255 names, beyond
// which they all read "read-only memory"); may throw bad_alloc, before anything changed.
uint16_t read_only_owner(const char* owner);
// The owner named by index k (nonzero).
const char* read_only_owner_name(uint16_t k);
// Make `s` read-only, naming owner index k (a no-op when it already is read-only).
void mark_read_only(Storage& s, uint16_t k) noexcept;

// RuntimeError naming `op` when t's memory is read-only. Every write into memory a tensor
// already has (in place, out=, copy_, fill_, index_put_, scatter_ ...) passes here first.
// `is_out`: t is the op's out= tensor (named "out" in the message), else the one it modifies.
[[noreturn]] void fail_read_only(const TensorImpl& t, const std::string& op, bool is_out);
inline void check_writable(const TensorImpl& t, const char* op, bool is_out = false) {
  if (__builtin_expect(t.storage->read_only.load(std::memory_order_acquire) != 0, 0))
    fail_read_only(t, op, is_out);
}

// Argument checks shared by every entry point.
const TensorImpl& checked(const sdk_tensor* t, const char* op, const char* arg);
// ValueError "op: argument 'arg' is NULL" when p is NULL.
// ValueError naming op and arg for a NULL pointer argument (inline: every ABI call checks).
[[noreturn]] void fail_null(const char* op, const char* arg);
inline void check_not_null(const void* p, const char* op, const char* arg) {
  if (__builtin_expect(p == nullptr, 0)) fail_null(op, arg);
}
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);  // IndexError if out of range
std::string shape_str(const TensorImpl& t);                   // "[2, 3]"
std::string describe(const TensorImpl& t);                    // "float32[2, 3]"
std::string sizes_str(int64_t ndim, const int64_t* sizes);    // "[2, 3]"
// Store a new reference in *result (if result is non-NULL).
inline void set_result(sdk_tensor** result, Ref r) {
  if (result) *result = r.release_handle();
}

// ---------------------------------------------------------------------------
// Meta tensors: a storage on device SDK_META has no memory (data nullptr).
// ---------------------------------------------------------------------------

// RuntimeError: the elements of a meta tensor were asked for (TensorImpl::data), which every
// op reading or writing elements does; the one gate that keeps kernels off a null pointer.
[[noreturn]] void fail_meta_data();
// Whether this thread runs a Meta kernel: new_storage then makes meta storages (tensor.cpp).
bool meta_mode();
// Sets meta mode for a scope (the dispatcher, around a Meta kernel) and restores it after.
class MetaModeGuard {
 public:
  explicit MetaModeGuard(bool on);
  ~MetaModeGuard();
  MetaModeGuard(const MetaModeGuard&) = delete;
  MetaModeGuard& operator=(const MetaModeGuard&) = delete;

 private:
  bool previous_;
};

// Inline: both sit on every hot path.
inline int64_t TensorImpl::itemsize() const {
  return (dtype >= 0 && dtype < kDtypeCount) ? kDtypeFacts[dtype].itemsize : 0;
}
inline void* TensorImpl::data() const {
  if (__builtin_expect(storage->device.type == SDK_META, 0)) fail_meta_data();
  return static_cast<char*>(storage->data) + offset * itemsize();
}

// ---------------------------------------------------------------------------
// str(): implemented here so every file can build messages.
// ---------------------------------------------------------------------------
}  // namespace sdk::detail

#include <sstream>

namespace sdk::detail {
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  return ss.str();
}
}  // namespace sdk::detail
