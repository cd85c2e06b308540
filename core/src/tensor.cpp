// core/src/tensor.cpp: TensorImpl and Storage lifetime, shape bookkeeping and the tensor getters.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "allocator.h"
#include "cuda/glue/cuda_glue.h"
#include "dtype.h"
#include "tensor_impl.h"

namespace sdk::detail {

// Room in front of embedded data for the Storage header; keeps data 64-byte aligned.
constexpr int64_t kStorageHeader = 64;
static_assert(sizeof(Storage) <= kStorageHeader, "Storage header must fit in front of data");

// Large storages put their data at one of eight places in a 4 KB page, taken in
// turn (cache colouring). When an elementwise loop's output sits a little past
// an input modulo 4 KB, the CPU takes its loads for reads of the stores just
// made (4K aliasing) and the loop runs 15-25% slower; one fixed place would
// hit that on every op between two fresh tensors. The places, 320 + 512 k, also
// keep clear of numpy's large arrays, which start 16 bytes into a page.
namespace {
constexpr int64_t kColours = 8;
constexpr int64_t colour_offset(int64_t k) { return 320 + 512 * k; }
constexpr int64_t kColourMax = colour_offset(kColours - 1);

// Bytes in front of the data that a storage of `nbytes` allocates: every large
// block has room for the farthest place, so blocks of one size stay
// interchangeable in the allocator's cache.
int64_t storage_room(int64_t nbytes) {
  return nbytes < kCpuPageAlignedMin ? kStorageHeader : kColourMax;
}

int64_t storage_header(int64_t nbytes) {
  if (nbytes < kCpuPageAlignedMin) return kStorageHeader;
  static std::atomic<uint32_t> next{0};
  uint32_t k = next.fetch_add(1, std::memory_order_relaxed) * 5 % kColours;
  return colour_offset(k);
}
}  // namespace

void Storage::release() {
  if (refcount.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (embedded) {
    int64_t total = storage_room(nbytes) + nbytes;
    int32_t dev = device.index;
    Allocator* a = get_allocator(device.type);
    this->~Storage();
    a->deallocate(this, total, dev);
    return;
  }
  if (deleter) {
    deleter(data, deleter_ctx);
  } else if (data && !foreign) {
    if (Allocator* a = get_allocator(device.type)) a->deallocate(data, nbytes, device.index);
  }
  delete this;
}

namespace {
thread_local bool t_meta_mode = false;

// A storage with a size and no memory: what every allocation makes on the meta device and
// in meta mode. Released like any other (no deleter, no data: just the header).
Storage* new_meta_storage(int64_t nbytes) {
  Storage* s = new Storage();
  s->nbytes = nbytes;
  s->device = sdk_device{SDK_META, 0};
  return s;
}
}  // namespace

bool meta_mode() { return t_meta_mode; }
MetaModeGuard::MetaModeGuard(bool on) : previous_(t_meta_mode) { t_meta_mode = on; }
MetaModeGuard::~MetaModeGuard() { t_meta_mode = previous_; }

void fail_meta_data() {
  SDK_FAIL(SDK_ERROR_RUNTIME,
           "a tensor on the meta device has sizes, strides and a dtype but no data: its "
           "elements cannot be read or written (a Meta kernel computes shapes only; make its "
           "results with sdk::empty / empty_like and leave data_ptr() to the real kernels)");
}

Storage* new_storage(int64_t nbytes, sdk_device device) {
  if (nbytes < 0) SDK_FAIL(SDK_ERROR_VALUE, "storage size must be >= 0, got ", nbytes);
  if (device.type == SDK_META || t_meta_mode) return new_meta_storage(nbytes);
  // The first CUDA storage loads the backend (which installs its allocator), or fails
  // with "CUDA is not available: <reason>".
  if (device.type == SDK_CUDA) cuda::check_device(device, "allocate");
  Allocator* a = get_allocator(device.type);
  if (!a) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, "no allocator for device type ", device.type,
             device.type == SDK_CUDA ? " (CUDA is not available in this build)" : "");
  }
  if (device.type == SDK_CPU) {
    if (nbytes > (INT64_C(1) << 56)) {
      SDK_FAIL(SDK_ERROR_MEMORY, "out of memory: cannot allocate ", nbytes, " bytes");
    }
    void* block = a->allocate(storage_room(nbytes) + nbytes, device.index);
    Storage* s = new (block) Storage();
    s->data = static_cast<char*>(block) + storage_header(nbytes);
    s->nbytes = nbytes;
    s->device = device;
    s->embedded = true;
    return s;
  }
  void* data = nbytes ? a->allocate(nbytes, device.index) : nullptr;
  Storage* s = new (std::nothrow) Storage();
  if (!s) {
    a->deallocate(data, nbytes, device.index);
    throw std::bad_alloc();
  }
  s->data = data;
  s->nbytes = nbytes;
  s->device = device;
  return s;
}

Storage* wrap_storage(void* data, int64_t nbytes, sdk_device device, sdk_deleter deleter,
                      void* ctx) {
  Storage* s = new Storage();
  s->data = data;
  s->nbytes = nbytes;
  s->device = device;
  s->deleter = deleter;
  s->deleter_ctx = ctx;
  s->foreign = true;
  return s;
}

TensorImpl::~TensorImpl() {
  if (void* slot = autograd_slot.load(std::memory_order_acquire)) release_autograd_slot(slot);
  if (sizes != inline_sizes) delete[] sizes;  // strides live in the same array
  if (storage) storage->release();
  if (left_storages) {
    for (Storage* s : *left_storages) s->release();
    delete left_storages;
  }
}

int64_t checked_numel(int64_t ndim, const int64_t* sz, const char* op) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t i = 0; i < ndim; ++i) {
    if (sz[i] < 0) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": negative size ", sz[i], " at dim ", i, " in shape ",
               sizes_str(ndim, sz));
    }
    if (__builtin_mul_overflow(n, sz[i], &n)) overflow = true;
  }
  // A zero anywhere makes the product 0 even if a prefix overflowed.
  if (overflow) {
    for (int64_t i = 0; i < ndim; ++i)
      if (sz[i] == 0) return 0;
    SDK_FAIL(SDK_ERROR_VALUE, op, ": shape ", sizes_str(ndim, sz), " has too many elements");
  }
  return n;
}

void check_address_span(const void* data, uint64_t offset, int64_t nbytes, const char* op) {
  constexpr int kBits = sizeof(uintptr_t) == 8 ? 56 : 32;
  constexpr uint64_t kLimit = uint64_t(1) << kBits;  // bytes of address space
  const uint64_t start = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data)) & (kLimit - 1);
  const uint64_t n = nbytes > 0 ? static_cast<uint64_t>(nbytes) : 0;
  if (offset > kLimit - start || n > kLimit - start - offset) {
    if (offset != 0) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": byte_offset ", offset,
               " overflows the address space (data at ", data, ", then ", n,
               " bytes of tensor, past 2^", kBits, ")");
    }
    SDK_FAIL(SDK_ERROR_VALUE, op, ": ", n, " bytes of tensor at ", data,
             " overflow the address space (past 2^", kBits, "): sizes or strides too large");
  }
}

// Row-major strides, dims of size 0 and 1 counting as 1. Beside a size-0 dim the other
// dims may multiply past int64 (the tensor is still empty): a stride that does not fit
// is refused, as torch does, before anything is written.
void contiguous_strides(int64_t ndim, const int64_t* sz, int64_t* st) {
  int64_t s = 1;
  for (int64_t i = ndim - 1; i > 0; --i) {
    if (__builtin_mul_overflow(s, sz[i] > 1 ? sz[i] : 1, &s))
      SDK_FAIL(SDK_ERROR_VALUE, "shape ", sizes_str(ndim, sz), ": stride calculation overflowed");
  }
  s = 1;
  for (int64_t i = ndim - 1; i >= 0; --i) {
    st[i] = s;
    if (i > 0) s *= sz[i] > 1 ? sz[i] : 1;  // fits: checked above
  }
}

bool compute_contiguous(int64_t ndim, const int64_t* sz, const int64_t* st) {
  int64_t expected = 1;
  for (int64_t i = ndim - 1; i >= 0; --i) {
    if (sz[i] == 0) return true;
    if (sz[i] == 1) continue;
    if (st[i] != expected) return false;
    expected *= sz[i];
  }
  return true;
}

void TensorImpl::set_shape(int64_t nd, const int64_t* sz, const int64_t* st) {
  if (nd < 0 || nd > 64) SDK_FAIL(SDK_ERROR_VALUE, "ndim must be in [0, 64], got ", nd);
  int64_t n = checked_numel(nd, sz, "tensor");
  int64_t dense[64];
  if (!st) contiguous_strides(nd, sz, dense);  // may refuse the shape: before any change
  if (nd > kInlineDims) {
    int64_t* arr = new int64_t[2 * nd];
    if (sizes != inline_sizes) delete[] sizes;
    sizes = arr;
    strides = arr + nd;
  } else if (sizes != inline_sizes) {
    delete[] sizes;
    sizes = inline_sizes;
    strides = inline_strides;
  }
  for (int64_t i = 0; i < nd; ++i) sizes[i] = sz[i];
  ndim = nd;
  numel = n;
  if (st) {
    for (int64_t i = 0; i < nd; ++i) strides[i] = st[i];
    contiguous = compute_contiguous(nd, sizes, strides);
  } else {
    for (int64_t i = 0; i < nd; ++i) strides[i] = dense[i];
    contiguous = true;
  }
}

Ref make_tensor(int64_t ndim, const int64_t* sz, sdk_dtype dtype, sdk_device device) {
  int64_t n = checked_numel(ndim, sz, "empty");
  int64_t isz = itemsize(dtype);
  if (isz == 0) SDK_FAIL(SDK_ERROR_VALUE, "unknown dtype code ", dtype);
  int64_t nbytes;
  if (__builtin_mul_overflow(n, isz, &nbytes) || nbytes > (INT64_C(1) << 56)) {
    SDK_FAIL(SDK_ERROR_MEMORY, "out of memory: cannot allocate a tensor of shape ",
             sizes_str(ndim, sz), " (", n, " elements of ", isz, " bytes)");
  }
  Storage* s = new_storage(nbytes, device);
  TensorImpl* t = new (std::nothrow) TensorImpl();
  if (!t) {
    s->release();
    throw std::bad_alloc();
  }
  t->storage = s;
  t->dtype = dtype;
  Ref r(t);
  r->set_shape(ndim, sz, nullptr);
  return r;
}

Ref make_tensor(const std::vector<int64_t>& sz, sdk_dtype dtype, sdk_device device) {
  return make_tensor(static_cast<int64_t>(sz.size()), sz.data(), dtype, device);
}

Ref make_view(const TensorImpl& t, int64_t ndim, const int64_t* sz, const int64_t* st,
              int64_t offset) {
  TensorImpl* v = new TensorImpl();
  t.storage->retain();
  v->storage = t.storage;
  v->dtype = t.dtype;
  v->offset = offset;
  Ref r(v);
  r->set_shape(ndim, sz, st);
  return r;
}

// The owners of read-only memory, by Storage::read_only index: names are only ever added
// (under the lock, then published through `count`), so a reader needs no lock. Never freed:
// storages may outlive static destructors.
struct OwnerTable {
  static constexpr uint16_t kMax = 256;
  std::mutex lock;
  std::atomic<uint16_t> count{2};
  std::string names[kMax] = {"", "read-only memory"};
};
OwnerTable& owner_table() {
  static OwnerTable* table = new OwnerTable();
  return *table;
}

uint16_t read_only_owner(const char* owner) {
  OwnerTable& t = owner_table();
  std::lock_guard<std::mutex> guard(t.lock);
  uint16_t n = t.count.load(std::memory_order_relaxed);
  for (uint16_t k = 1; k < n; ++k)
    if (t.names[k] == owner) return k;
  if (n == OwnerTable::kMax) return 1;  // full: the generic name
  t.names[n] = owner;
  t.count.store(static_cast<uint16_t>(n + 1), std::memory_order_release);
  return n;
}

const char* read_only_owner_name(uint16_t k) {
  OwnerTable& t = owner_table();
  return k < t.count.load(std::memory_order_acquire) ? t.names[k].c_str() : "read-only memory";
}

void mark_read_only(Storage& s, uint16_t k) noexcept {
  uint16_t expected = 0;  // the first owner named stays
  s.read_only.compare_exchange_strong(expected, k, std::memory_order_acq_rel);
}

void fail_read_only(const TensorImpl& t, const std::string& op, bool is_out) {
  // The C entry points name themselves sdk_<op>; the message names the op as users call it.
  std::string name = op.compare(0, 4, "sdk_") == 0 ? op.substr(4) : op;
  SDK_FAIL(SDK_ERROR_RUNTIME, name, "(): ", is_out ? "out" : "the tensor",
           " is read-only (it shares memory with ",
           read_only_owner_name(t.storage->read_only.load(std::memory_order_acquire)),
           "); clone() it first");
}

void fail_null(const char* op, const char* arg) {
  SDK_FAIL(SDK_ERROR_VALUE, op, ": argument '", arg, "' is NULL");
}

const TensorImpl& checked(const sdk_tensor* t, const char* op, const char* arg) {
  check_not_null(t, op, arg);
  return *to_impl(t);
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  // A 0-dim tensor accepts dim 0 and -1, as in torch.
  int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n) {
    SDK_FAIL(SDK_ERROR_INDEX, op, ": dim ", dim, " is out of range for a tensor with ndim ", ndim,
             " (expected in [", -n, ", ", n - 1, "])");
  }
  return dim < 0 ? dim + n : dim;
}

std::string sizes_str(int64_t ndim, const int64_t* sz) {
  std::string s = "[";
  for (int64_t i = 0; i < ndim; ++i) {
    if (i) s += ", ";
    s += std::to_string(sz[i]);
  }
  return s + "]";
}

std::string shape_str(const TensorImpl& t) { return sizes_str(t.ndim, t.sizes); }

std::string describe(const TensorImpl& t) {
  const char* name = dtype_name(t.dtype);
  return std::string(name ? name : "?") + shape_str(t);
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API void sdk_tensor_retain(sdk_tensor* t) {
  if (t) to_impl(t)->retain();
}
SDK_API void sdk_tensor_release(sdk_tensor* t) {
  if (t) to_impl(t)->release();
}
SDK_API int64_t sdk_tensor_use_count(const sdk_tensor* t) {
  return t ? to_impl(t)->refcount.load(std::memory_order_relaxed) : 0;
}
// Getters on a NULL handle return a zero value instead of crashing: NULL is a caller's
// bug, but one that a Python process should survive.
SDK_API int64_t sdk_tensor_ndim(const sdk_tensor* t) { return t ? to_impl(t)->ndim : 0; }
SDK_API const int64_t* sdk_tensor_sizes(const sdk_tensor* t) {
  return t ? to_impl(t)->sizes : nullptr;
}
SDK_API const int64_t* sdk_tensor_strides(const sdk_tensor* t) {
  return t ? to_impl(t)->strides : nullptr;
}
SDK_API int64_t sdk_tensor_storage_offset(const sdk_tensor* t) {
  return t ? to_impl(t)->offset : 0;
}
SDK_API int64_t sdk_tensor_numel(const sdk_tensor* t) { return t ? to_impl(t)->numel : 0; }
SDK_API sdk_dtype sdk_tensor_dtype(const sdk_tensor* t) { return t ? to_impl(t)->dtype : -1; }
SDK_API sdk_device sdk_tensor_device(const sdk_tensor* t) {
  return t ? to_impl(t)->device() : sdk_device{0, 0};
}
// A meta tensor has no address: NULL, since a getter cannot fail (sdk::Tensor::data_ptr
// raises for it; see sdk/tensor_base.h).
SDK_API void* sdk_tensor_data_ptr(const sdk_tensor* t) {
  if (!t || to_impl(t)->device().type == SDK_META) return nullptr;
  return to_impl(t)->data();
}
SDK_API int32_t sdk_meta_mode_is_enabled(void) { return meta_mode() ? 1 : 0; }
SDK_API void* sdk_tensor_storage_ptr(const sdk_tensor* t) {
  return t ? to_impl(t)->storage->data : nullptr;
}
SDK_API int64_t sdk_tensor_storage_nbytes(const sdk_tensor* t) {
  return t ? to_impl(t)->storage->nbytes : 0;
}
SDK_API int32_t sdk_tensor_is_contiguous(const sdk_tensor* t) {
  return t && to_impl(t)->contiguous ? 1 : 0;
}
SDK_API int64_t sdk_tensor_version(const sdk_tensor* t) {
  return t ? to_impl(t)->storage->version.load(std::memory_order_relaxed) : 0;
}
SDK_API void sdk_tensor_bump_version(sdk_tensor* t) {
  if (t) to_impl(t)->bump_version();
}
SDK_API sdk_status sdk_tensor_set_read_only(sdk_tensor* t, const char* owner) {
  SDK_SAFE_CALL_BEGIN;
  Storage& s = *checked(t, "sdk_tensor_set_read_only", "t").storage;
  if (!s.read_only.load(std::memory_order_acquire))
    mark_read_only(s, owner ? read_only_owner(owner) : 1);
  SDK_SAFE_CALL_END;
}
SDK_API int32_t sdk_tensor_is_read_only(const sdk_tensor* t) {
  return t && to_impl(t)->storage->read_only.load(std::memory_order_acquire) ? 1 : 0;
}

// ---- storage handles (ABI 1.12): an sdk_storage* is a Storage* ----

SDK_API sdk_status sdk_tensor_storage(const sdk_tensor* t, sdk_storage** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_tensor_storage", "t");
  check_not_null(result, "sdk_tensor_storage", "result");
  x.storage->retain();
  *result = to_handle(x.storage);
  SDK_SAFE_CALL_END;
}
SDK_API void sdk_storage_retain(sdk_storage* s) {
  if (s) to_storage(s)->retain();
}
SDK_API void sdk_storage_release(sdk_storage* s) {
  if (s) to_storage(s)->release();
}
SDK_API int64_t sdk_storage_use_count(const sdk_storage* s) {
  return s ? to_storage(s)->refcount.load(std::memory_order_acquire) : 0;
}
SDK_API void* sdk_storage_data_ptr(const sdk_storage* s) {
  return s ? to_storage(s)->data : nullptr;
}
SDK_API int64_t sdk_storage_nbytes(const sdk_storage* s) { return s ? to_storage(s)->nbytes : 0; }
SDK_API sdk_device sdk_storage_device(const sdk_storage* s) {
  return s ? to_storage(s)->device : sdk_device{SDK_CPU, 0};
}
SDK_API int32_t sdk_storage_is_read_only(const sdk_storage* s) {
  return s && to_storage(s)->read_only.load(std::memory_order_acquire) ? 1 : 0;
}
SDK_API int32_t sdk_storage_resizable(const sdk_storage* s) {
  return s && !to_storage(s)->foreign ? 1 : 0;
}

}  // extern "C"
