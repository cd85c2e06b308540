// core/src/dlpack.cpp: DLPack 1.x export (versioned) and import (versioned and pre-1.0).
#include <cstdint>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {
namespace {

// The exported struct and what it keeps alive: shape/strides live here, and
// the tensor reference keeps the memory valid until the consumer calls deleter.
struct ExportHolder {
  sdk_dl_managed_tensor_versioned managed;
  TensorImpl* tensor;
  int64_t* shape;  // ndim sizes then ndim strides, one allocation
};

void export_deleter(sdk_dl_managed_tensor_versioned* self) {
  if (!self) return;
  auto* h = static_cast<ExportHolder*>(self->manager_ctx);
  h->tensor->release();
  delete[] h->shape;
  delete h;
}

// A dtype's DLPack type is its SDK_DTYPES kind and width; each (kind, width) names one dtype.
sdk_dl_dtype to_dl_dtype(sdk_dtype d) {
  return {static_cast<uint8_t>(kDtypeFacts[d].kind), static_cast<uint8_t>(itemsize(d) * 8), 1};
}

sdk_dtype from_dl_dtype(sdk_dl_dtype t, const char* op) {
  if (t.lanes != 1) {
    SDK_FAIL(SDK_ERROR_TYPE, op, ": vector dtypes (lanes=", t.lanes, ") are not supported");
  }
  for (sdk_dtype d = 0; d < kNumDtypes; ++d) {
    if (kDtypeFacts[d].kind == t.code && itemsize(d) * 8 == t.bits) return d;
  }
  SDK_FAIL(SDK_ERROR_TYPE, op, ": unsupported DLPack dtype (code ", int(t.code), ", bits ",
           int(t.bits), ")");
}

// Build a tensor over a DLTensor; `owner_deleter(ctx)` runs when the storage dies.
Ref import_tensor(const sdk_dl_tensor& dl, sdk_deleter deleter, void* ctx, const char* op) {
  if (dl.device.device_type == SDK_CUDA) {
    cuda::check_device(sdk_device{SDK_CUDA, dl.device.device_id}, op);
  } else if (dl.device.device_type != SDK_CPU) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, op,
             ": only CPU DLPack tensors can be imported, got device type ", dl.device.device_type);
  }
  SDK_VALUE_CHECK(dl.ndim >= 0 && dl.ndim <= kIterMaxDims, op, ": invalid ndim ", dl.ndim);
  if (dl.ndim > 0) check_not_null(dl.shape, op, "dl_tensor.shape");
  sdk_dtype dtype = from_dl_dtype(dl.dtype, op);
  int64_t nd = dl.ndim;
  for (int64_t d = 0; d < nd; ++d) {
    SDK_VALUE_CHECK(dl.shape[d] >= 0, op, ": negative size ", dl.shape[d], " at dim ", d);
    if (dl.strides) {
      SDK_VALUE_CHECK(dl.strides[d] >= 0 || dl.shape[d] <= 1, op,
                      ": negative strides are not supported (dim ", d, ")");
    }
  }
  Ref r(new TensorImpl());
  r->dtype = dtype;
  int64_t st[kIterMaxDims];
  if (dl.strides) {
    for (int64_t d = 0; d < nd; ++d)
      st[d] = dl.shape[d] <= 1 && dl.strides[d] < 0 ? 0 : dl.strides[d];
  }
  r->set_shape(nd, dl.shape, dl.strides ? st : nullptr);
  int64_t nbytes = 0;
  if (r->numel > 0) {
    // Strides whose extent overflows describe no real memory (sdk_from_blob refuses them too).
    int64_t last = 0, span = 0;
    bool overflow = false;
    for (int64_t d = 0; d < nd && !overflow; ++d) {
      overflow = __builtin_mul_overflow(r->sizes[d] - 1, r->strides[d], &span) ||
                 __builtin_add_overflow(last, span, &last);
    }
    overflow = overflow || __builtin_add_overflow(last, 1, &nbytes) ||
               __builtin_mul_overflow(nbytes, itemsize(dtype), &nbytes);
    SDK_VALUE_CHECK(!overflow, op, ": strides ", sizes_str(nd, r->strides), " of shape ",
                    sizes_str(nd, r->sizes), " overflow the address space");
    check_not_null(dl.data, op, "dl_tensor.data");
  }
  // the same bound for the offset as for the extent of the sizes and strides
  check_address_span(dl.data, dl.byte_offset, nbytes, op);
  char* base = static_cast<char*>(dl.data) + dl.byte_offset;
  sdk_device dev{dl.device.device_type == SDK_CUDA ? SDK_CUDA : SDK_CPU,
                 dl.device.device_type == SDK_CUDA ? dl.device.device_id : 0};
  r->storage = wrap_storage(base, nbytes, dev, deleter, ctx);
  return r;
}

void versioned_deleter(void*, void* ctx) {
  auto* m = static_cast<sdk_dl_managed_tensor_versioned*>(ctx);
  if (m->deleter) m->deleter(m);
}
void unversioned_deleter(void*, void* ctx) {
  auto* m = static_cast<sdk_dl_managed_tensor*>(ctx);
  if (m->deleter) m->deleter(m);
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_to_dlpack(const sdk_tensor* t, sdk_dl_managed_tensor_versioned** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_to_dlpack", "t");
  check_not_null(result, "sdk_to_dlpack", "result");
  auto* h = new ExportHolder();
  h->shape = new (std::nothrow) int64_t[2 * x.ndim + 1];
  if (!h->shape) {
    delete h;
    throw std::bad_alloc();
  }
  for (int64_t d = 0; d < x.ndim; ++d) {
    h->shape[d] = x.sizes[d];
    h->shape[x.ndim + d] = x.strides[d];
  }
  const_cast<TensorImpl&>(x).retain();
  h->tensor = const_cast<TensorImpl*>(&x);
  sdk_dl_managed_tensor_versioned& m = h->managed;
  m.version = {SDK_DLPACK_MAJOR_VERSION, SDK_DLPACK_MINOR_VERSION};
  m.manager_ctx = h;
  m.deleter = export_deleter;
  m.flags = x.storage->read_only.load(std::memory_order_acquire) ? SDK_DLPACK_FLAG_READ_ONLY : 0;
  m.dl_tensor.data = x.data();
  m.dl_tensor.device = {x.device().type, x.device().index};
  m.dl_tensor.ndim = static_cast<int32_t>(x.ndim);
  m.dl_tensor.dtype = to_dl_dtype(x.dtype);
  m.dl_tensor.shape = h->shape;
  m.dl_tensor.strides = h->shape + x.ndim;
  m.dl_tensor.byte_offset = 0;
  *result = &m;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_from_dlpack(sdk_dl_managed_tensor_versioned* m, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(m, "sdk_from_dlpack", "m");
  check_not_null(result, "sdk_from_dlpack", "result");
  if (m->version.major != SDK_DLPACK_MAJOR_VERSION) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_from_dlpack: unsupported DLPack version ", m->version.major, ".",
             m->version.minor, " (this core reads ", SDK_DLPACK_MAJOR_VERSION, ".x)");
  }
  // Allocated before the tensor owns `m`, so that nothing can fail after it does.
  uint16_t owner = 0;
  if (m->flags & SDK_DLPACK_FLAG_READ_ONLY) owner = read_only_owner("a read-only DLPack tensor");
  Ref r = import_tensor(m->dl_tensor, versioned_deleter, m, "sdk_from_dlpack");
  if (owner) mark_read_only(*r->storage, owner);
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_from_dlpack_unversioned(sdk_dl_managed_tensor* m, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(m, "sdk_from_dlpack_unversioned", "m");
  check_not_null(result, "sdk_from_dlpack_unversioned", "result");
  *result = import_tensor(m->dl_tensor, unversioned_deleter, m, "sdk_from_dlpack_unversioned")
                .release_handle();
  SDK_SAFE_CALL_END;
}

}  // extern "C"
