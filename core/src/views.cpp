// core/src/views.cpp: shape views sharing storage (view, reshape, permute, slice, expand, ...).
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {
namespace {

void check_sizes_arg(int64_t ndim, const int64_t* sizes, const char* op) {
  if (ndim < 0 || ndim > kIterMaxDims) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": ndim must be in [0, ", kIterMaxDims, "], got ", ndim);
  }
  if (ndim > 0) check_not_null(sizes, op, "sizes");
}

// Resolve one -1 so the element count matches t's; ValueError otherwise.
void infer_sizes(const TensorImpl& t, int64_t ndim, const int64_t* in, int64_t* out,
                 const char* op) {
  int64_t infer = -1, prod = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    out[d] = in[d];
    if (in[d] == -1) {
      SDK_VALUE_CHECK(infer < 0, op, ": only one dimension can be inferred (-1) in ",
                      sizes_str(ndim, in));
      infer = d;
    } else if (in[d] < 0) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": invalid size ", in[d], " at dim ", d, " in ",
               sizes_str(ndim, in));
    } else if (__builtin_mul_overflow(prod, in[d], &prod)) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": shape ", sizes_str(ndim, in), " is too large");
    }
  }
  if (infer >= 0) {
    SDK_VALUE_CHECK(prod != 0 && t.numel % prod == 0, op, ": shape ", sizes_str(ndim, in),
                    " is invalid for input of size ", t.numel);
    out[infer] = t.numel / prod;
    prod = t.numel;
  }
  SDK_VALUE_CHECK(prod == t.numel, op, ": shape ", sizes_str(ndim, in),
                  " is invalid for input of size ", t.numel, " (shape ", shape_str(t), ")");
}

// Strides that let `nsz` view t's memory without copying, if any: old dims are
// grouped into chunks that are contiguous among themselves, and each chunk must
// be split exactly by a run of new dims.
bool view_strides(const TensorImpl& t, int64_t nnd, const int64_t* nsz, int64_t* nst) {
  if (t.numel == 0 || t.ndim == 0) {
    contiguous_strides(nnd, nsz, nst);
    return true;
  }
  int64_t view_d = nnd - 1;
  int64_t base = t.strides[t.ndim - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = t.ndim - 1; d >= 0; --d) {
    tensor_numel *= t.sizes[d];
    bool chunk_end = d == 0 || (t.sizes[d - 1] != 1 && t.strides[d - 1] != tensor_numel * base);
    if (!chunk_end) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || nsz[view_d] == 1)) {
      nst[view_d] = view_numel * base;
      view_numel *= nsz[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (d > 0) {
      base = t.strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}

Ref reshape_impl(const TensorImpl& t, int64_t ndim, const int64_t* sizes, const char* op,
                 bool allow_copy) {
  check_sizes_arg(ndim, sizes, op);
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  infer_sizes(t, ndim, sizes, sz, op);
  if (view_strides(t, ndim, sz, st)) return make_view(t, ndim, sz, st, t.offset);
  if (!allow_copy) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": view size ", sizes_str(ndim, sz),
             " is not compatible with the input's strides (shape ", shape_str(t), ", strides ",
             sizes_str(t.ndim, t.strides), "); use reshape instead");
  }
  Ref c = contiguous_copy(t);
  return make_view(*c, ndim, sz, nullptr, 0);
}

// sdk_as_strided's and set_'s checks: sizes and strides >= 0 and every byte of the last
// element reached (items of `itemsize` bytes, `storage_offset` of them in) inside `s`.
void check_geometry(const Storage& s, int64_t itemsize, int64_t ndim, const int64_t* sizes,
                    const int64_t* strides, int64_t storage_offset, const char* op) {
  check_sizes_arg(ndim, sizes, op);
  if (ndim > 0) check_not_null(strides, op, "strides");
  SDK_VALUE_CHECK(storage_offset >= 0, op, ": storage_offset must be >= 0, got ", storage_offset);
  int64_t numel = checked_numel(ndim, sizes, op);
  // The last element reached must lie inside the storage.
  int64_t last = storage_offset;
  for (int64_t d = 0; d < ndim; ++d) {
    SDK_VALUE_CHECK(strides[d] >= 0, op, ": strides must be >= 0, got ", strides[d], " at dim ", d);
    int64_t span;
    if (numel > 0 && (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) ||
                      __builtin_add_overflow(last, span, &last))) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": strides overflow");
    }
  }
  int64_t capacity = s.nbytes / itemsize;
  if (numel > 0 && last >= capacity) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": size ", sizes_str(ndim, sizes), ", stride ",
             sizes_str(ndim, strides), " and offset ", storage_offset, " reach element ", last,
             " but the storage holds ", capacity, " elements (", s.nbytes, " bytes, elements of ",
             itemsize, ")");
  }
}

// "cpu", "cuda:1", "meta": a device as torch prints it.
std::string device_str(sdk_device d) {
  if (d.type == SDK_CPU) return "cpu";
  if (d.type == SDK_META) return "meta";
  return str(d.type == SDK_CUDA ? "cuda:" : "device type ", d.type == SDK_CUDA ? d.index : d.type);
}

// RuntimeError naming `op` when autograd tracks `t` while grad mode is on: set_ has no
// derivative (torch refuses a leaf that requires grad, and records a node that fails in
// backward for anything else; failing at once says which call it was).
// `is_self`: t is the tensor set_ changes (else its source).
void check_untracked(const sdk_tensor* t, const char* op, bool is_self) {
  if (!sdk_grad_mode_is_enabled() || !sdk_tensor_requires_grad(t)) return;
  if (is_self && sdk_tensor_is_leaf(t)) {
    SDK_FAIL(SDK_ERROR_RUNTIME, op, ": a leaf Variable that requires grad is being used in an ",
             "in-place operation.");
  }
  SDK_FAIL(SDK_ERROR_RUNTIME, op, ": '", is_self ? "self" : "source",
           "' requires grad, and set_ has no derivative; detach() it, or call set_ under no_grad");
}

// t views s from now on (after every check: nothing changed on failure). The storage t
// leaves stays alive with t (TensorImpl::left_storages).
void point_at(TensorImpl& t, Storage* s, int64_t ndim, const int64_t* sizes, const int64_t* strides,
              int64_t storage_offset) {
  Storage* old = t.storage;
  const bool keep = old != s && old->nbytes > 0 && old->device.type != SDK_META;
  std::vector<Storage*>* left = t.left_storages;
  const bool known = left && std::find(left->begin(), left->end(), old) != left->end();
  if (keep && !known) {  // room first: the push below cannot fail after t changed
    if (!left) left = t.left_storages = new std::vector<Storage*>();
    left->reserve(left->size() + 1);
  }
  int64_t sz[64], st[64];  // copies: the arguments may be t's own arrays, which set_shape frees
  std::copy(sizes, sizes + ndim, sz);
  if (strides) std::copy(strides, strides + ndim, st);
  t.set_shape(ndim, sz, strides ? st : nullptr);  // may throw: before anything changed
  s->retain();
  t.storage = s;
  t.offset = storage_offset;
  if (keep && !known) {
    left->push_back(old);  // adopts t's reference
  } else {
    old->release();
  }
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

#define VIEW_PROLOGUE(name)                    \
  const TensorImpl& x = checked(t, name, "t"); \
  check_not_null(result, name, "result");

extern "C" {

SDK_API sdk_status sdk_view(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                            sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  VIEW_PROLOGUE("sdk_view");
  *result = reshape_impl(x, ndim, sizes, "view", false).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_reshape(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                               sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  VIEW_PROLOGUE("sdk_reshape");
  *result = reshape_impl(x, ndim, sizes, "reshape", true).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_as_strided(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                                  const int64_t* strides, int64_t storage_offset,
                                  sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_as_strided";
  VIEW_PROLOGUE(op);
  check_geometry(*x.storage, x.itemsize(), ndim, sizes, strides, storage_offset, op);
  *result = make_view(x, ndim, sizes, strides, storage_offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_as_strided_(sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                                   const int64_t* strides, int64_t storage_offset) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_as_strided_";
  TensorImpl& x = const_cast<TensorImpl&>(checked(t, op, "t"));
  check_geometry(*x.storage, x.itemsize(), ndim, sizes, strides, storage_offset, op);
  int64_t sz[64], st[64];  // copies: the arguments may be t's own arrays, which set_shape frees
  std::copy(sizes, sizes + ndim, sz);
  std::copy(strides, strides + ndim, st);
  x.set_shape(ndim, sz, st);
  x.offset = storage_offset;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_permute(const sdk_tensor* t, const int64_t* dims, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "permute";
  VIEW_PROLOGUE(op);
  if (x.ndim > 0) check_not_null(dims, op, "dims");
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  bool seen[kIterMaxDims] = {};
  for (int64_t i = 0; i < x.ndim; ++i) {
    int64_t d = wrap_dim(dims[i], x.ndim, op);
    SDK_VALUE_CHECK(!seen[d], op, ": dim ", dims[i], " appears more than once in ",
                    sizes_str(x.ndim, dims));
    seen[d] = true;
    sz[i] = x.sizes[d];
    st[i] = x.strides[d];
  }
  *result = make_view(x, x.ndim, sz, st, x.offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_view_dtype(const sdk_tensor* t, sdk_dtype dtype, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_view_dtype", "t");
  check_not_null(result, "sdk_view_dtype", "result");
  check_dtype(dtype, "view");
  SDK_TYPE_CHECK(itemsize(dtype) == x.itemsize(), "view: a ", dtype_name(x.dtype),
                 " tensor can only be viewed as a dtype of its item size (", x.itemsize(),
                 " bytes), not as ", dtype_name(dtype));
  Ref r = make_view(x, x.ndim, x.sizes, x.strides, x.offset);
  r->dtype = dtype;
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_view_as_real(const sdk_tensor* t, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_view_as_real", "t");
  check_not_null(result, "sdk_view_as_real", "result");
  SDK_TYPE_CHECK(is_complex(x.dtype), "view_as_real: only complex tensors are supported, got ",
                 dtype_name(x.dtype));
  std::vector<int64_t> sizes(size_t(x.ndim) + 1), strides(size_t(x.ndim) + 1);
  for (int64_t d = 0; d < x.ndim; ++d) {
    sizes[d] = x.sizes[d];
    strides[d] = x.strides[d] * 2;  // in parts, two to an element
  }
  sizes[x.ndim] = 2;
  strides[x.ndim] = 1;
  Ref r = make_view(x, x.ndim + 1, sizes.data(), strides.data(), x.offset * 2);
  r->dtype = complex_part(x.dtype);
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_view_as_complex(const sdk_tensor* t, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_view_as_complex", "t");
  check_not_null(result, "sdk_view_as_complex", "result");
  SDK_TYPE_CHECK(x.dtype == SDK_FLOAT32 || x.dtype == SDK_FLOAT64,
                 "view_as_complex: only float32 and float64 tensors are supported, got ",
                 dtype_name(x.dtype));
  SDK_VALUE_CHECK(x.ndim > 0, "view_as_complex: the input must have one or more dims");
  const int64_t last = x.ndim - 1;
  SDK_VALUE_CHECK(x.sizes[last] == 2, "view_as_complex: the last dim must have size 2, got shape ",
                  shape_str(x));
  SDK_VALUE_CHECK(x.strides[last] == 1, "view_as_complex: the last dim must have stride 1, got ",
                  x.strides[last]);
  for (int64_t d = 0; d < last; ++d) {
    SDK_VALUE_CHECK(x.strides[d] % 2 == 0,
                    "view_as_complex: every stride but the last must be even, ", "dim ", d, " has ",
                    x.strides[d]);
  }
  SDK_VALUE_CHECK(x.offset % 2 == 0, "view_as_complex: the storage offset must be even, got ",
                  x.offset);
  std::vector<int64_t> strides(size_t(last) + 1);  // + 1: never empty, data() is valid
  for (int64_t d = 0; d < last; ++d) strides[d] = x.strides[d] / 2;
  Ref r = make_view(x, last, x.sizes, strides.data(), x.offset / 2);
  r->dtype = x.dtype == SDK_FLOAT64 ? SDK_COMPLEX128 : SDK_COMPLEX64;
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_transpose(const sdk_tensor* t, int64_t dim0, int64_t dim1,
                                 sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "transpose";
  VIEW_PROLOGUE(op);
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  int64_t a = wrap_dim(dim0, x.ndim, op), b = wrap_dim(dim1, x.ndim, op);
  for (int64_t d = 0; d < x.ndim; ++d) {
    sz[d] = x.sizes[d];
    st[d] = x.strides[d];
  }
  if (x.ndim > 0) {
    std::swap(sz[a], sz[b]);
    std::swap(st[a], st[b]);
  }
  *result = make_view(x, x.ndim, sz, st, x.offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_slice(const sdk_tensor* t, int64_t dim, int64_t start, int64_t end,
                             int64_t step, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "slice";
  VIEW_PROLOGUE(op);
  SDK_INDEX_CHECK(x.ndim > 0, op, ": cannot slice a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.ndim, op);
  SDK_VALUE_CHECK(step > 0, op, ": step must be positive, got ", step);
  int64_t n = x.sizes[d];
  // Python clamping: negative counts from the end, then clip into [0, n].
  auto clamp = [n](int64_t i) {
    if (i < 0) i = (i < -n) ? 0 : i + n;
    return i > n ? n : i;
  };
  int64_t b = clamp(start), e = clamp(end);
  int64_t len = e > b ? (e - b - 1) / step + 1 : 0;  // no overflow for any step
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  for (int64_t k = 0; k < x.ndim; ++k) {
    sz[k] = x.sizes[k];
    st[k] = x.strides[k];
  }
  sz[d] = len;
  int64_t offset = x.offset + (len > 0 ? b * x.strides[d] : 0);
  // An overflowing stride * step only happens for a huge step, which leaves one element
  // (or none): its stride is irrelevant.
  if (__builtin_mul_overflow(x.strides[d], step, &st[d])) st[d] = x.strides[d];
  *result = make_view(x, x.ndim, sz, st, offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_select(const sdk_tensor* t, int64_t dim, int64_t index,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "select";
  VIEW_PROLOGUE(op);
  SDK_INDEX_CHECK(x.ndim > 0, op, ": cannot select on a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.ndim, op);
  int64_t n = x.sizes[d];
  SDK_INDEX_CHECK(index >= -n && index < n, op, ": index ", index, " is out of range for dim ", dim,
                  " of size ", n);
  if (index < 0) index += n;
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  int64_t k = 0;
  for (int64_t i = 0; i < x.ndim; ++i) {
    if (i == d) continue;
    sz[k] = x.sizes[i];
    st[k++] = x.strides[i];
  }
  *result = make_view(x, x.ndim - 1, sz, st, x.offset + index * x.strides[d]).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_unsqueeze(const sdk_tensor* t, int64_t dim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "unsqueeze";
  VIEW_PROLOGUE(op);
  SDK_VALUE_CHECK(x.ndim < kIterMaxDims, op, ": too many dims");
  int64_t d = wrap_dim(dim, x.ndim + 1, op);
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  for (int64_t i = 0, k = 0; i <= x.ndim; ++i) {
    if (i == d) {
      sz[i] = 1;
      st[i] = (d < x.ndim) ? x.strides[d] * x.sizes[d] : 1;
    } else {
      sz[i] = x.sizes[k];
      st[i] = x.strides[k++];
    }
  }
  *result = make_view(x, x.ndim + 1, sz, st, x.offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_squeeze(const sdk_tensor* t, int64_t ndims, const int64_t* dims,
                               sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "squeeze";
  VIEW_PROLOGUE(op);
  bool drop[kIterMaxDims] = {};
  if (dims) {
    SDK_VALUE_CHECK(ndims >= 0, op, ": ndims must be >= 0");
    for (int64_t i = 0; i < ndims; ++i) {
      int64_t d = wrap_dim(dims[i], x.ndim, op);
      if (x.ndim > 0 && x.sizes[d] == 1) drop[d] = true;
    }
  } else {
    for (int64_t d = 0; d < x.ndim; ++d) drop[d] = x.sizes[d] == 1;
  }
  int64_t sz[kIterMaxDims], st[kIterMaxDims], k = 0;
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (drop[d]) continue;
    sz[k] = x.sizes[d];
    st[k++] = x.strides[d];
  }
  *result = make_view(x, k, sz, st, x.offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_expand(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "expand";
  VIEW_PROLOGUE(op);
  check_sizes_arg(ndim, sizes, op);
  SDK_VALUE_CHECK(ndim >= x.ndim, op, ": the number of sizes provided (", ndim,
                  ") must be at least the number of dims of the tensor (", x.ndim, ")");
  int64_t sz[kIterMaxDims], st[kIterMaxDims];
  int64_t lead = ndim - x.ndim;
  for (int64_t d = 0; d < ndim; ++d) {
    int64_t want = sizes[d];
    if (d < lead) {
      SDK_VALUE_CHECK(want >= 0, op, ": size ", want, " is not allowed for the new leading dim ", d,
                      " in ", sizes_str(ndim, sizes));
      sz[d] = want;
      st[d] = 0;
      continue;
    }
    int64_t have = x.sizes[d - lead];
    if (want == -1) want = have;
    SDK_VALUE_CHECK(want >= 0, op, ": invalid size ", want, " at dim ", d);
    if (have == want) {
      sz[d] = have;
      st[d] = x.strides[d - lead];
    } else {
      SDK_VALUE_CHECK(have == 1, op, ": the expanded size ", want, " must match the existing size ",
                      have, " at non-singleton dim ", d, " (target ", sizes_str(ndim, sizes),
                      ", tensor ", shape_str(x), ")");
      sz[d] = want;
      st[d] = 0;
    }
  }
  *result = make_view(x, ndim, sz, st, x.offset).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_flatten(const sdk_tensor* t, int64_t start_dim, int64_t end_dim,
                               sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "flatten";
  VIEW_PROLOGUE(op);
  if (x.ndim == 0) {
    int64_t one = 1;
    *result = reshape_impl(x, 1, &one, op, true).release_handle();
    return SDK_OK;
  }
  int64_t s = wrap_dim(start_dim, x.ndim, op), e = wrap_dim(end_dim, x.ndim, op);
  SDK_VALUE_CHECK(s <= e, op, ": start_dim (", start_dim, ") cannot come after end_dim (", end_dim,
                  ")");
  int64_t sz[kIterMaxDims], k = 0, merged = 1;
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (d < s || d > e) {
      sz[k++] = x.sizes[d];
    } else {
      merged *= x.sizes[d];
      if (d == e) sz[k++] = merged;
    }
  }
  *result = reshape_impl(x, k, sz, op, true).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_contiguous(const sdk_tensor* t, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  VIEW_PROLOGUE("sdk_contiguous");
  if (x.contiguous) {
    *result = Ref::borrow(t).release_handle();
  } else {
    *result = contiguous_copy(x).release_handle();
  }
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_split_with_sizes(const sdk_tensor* t, int64_t n, const int64_t* sizes,
                                        int64_t dim, sdk_tensor** results) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "split_with_sizes";
  const TensorImpl& x = checked(t, op, "t");
  SDK_VALUE_CHECK(n >= 0, op, ": n must be >= 0, got ", n);
  if (n > 0) {
    check_not_null(sizes, op, "sizes");
    check_not_null(results, op, "results");
  }
  SDK_INDEX_CHECK(x.ndim > 0, op, ": cannot split a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.ndim, op);
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    SDK_VALUE_CHECK(sizes[i] >= 0, op, ": split sizes must be >= 0, got ", sizes[i]);
    SDK_VALUE_CHECK(!__builtin_add_overflow(total, sizes[i], &total), op, ": sizes overflow");
  }
  SDK_VALUE_CHECK(total == x.sizes[d], op, ": split sizes ", sizes_str(n, sizes), " sum to ", total,
                  " but dim ", dim, " has size ", x.sizes[d]);
  std::vector<Ref> parts;
  parts.reserve(static_cast<size_t>(n));
  int64_t sz[kIterMaxDims];
  for (int64_t k = 0; k < x.ndim; ++k) sz[k] = x.sizes[k];
  int64_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    sz[d] = sizes[i];
    parts.push_back(make_view(x, x.ndim, sz, x.strides, x.offset + start * x.strides[d]));
    start += sizes[i];
  }
  // Only hand out references once every piece exists: no partial results.
  for (int64_t i = 0; i < n; ++i) results[i] = parts[static_cast<size_t>(i)].release_handle();
  SDK_SAFE_CALL_END;
}

// ---- set_ (ABI 1.12): a tensor takes another storage ----

SDK_API sdk_status sdk_tensor_set_storage_(sdk_tensor* t, sdk_storage* storage,
                                           int64_t storage_offset, int64_t ndim,
                                           const int64_t* sizes, const int64_t* strides) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "set_";
  TensorImpl& x = const_cast<TensorImpl&>(checked(t, "sdk_tensor_set_storage_", "t"));
  check_not_null(storage, "sdk_tensor_set_storage_", "storage");
  Storage* s = to_storage(storage);
  SDK_VALUE_CHECK(s->device.type == x.device().type && s->device.index == x.device().index, op,
                  ": the storage is on ", device_str(s->device), " but the tensor on ",
                  device_str(x.device()), "; the devices must match");
  check_sizes_arg(ndim, sizes, op);
  int64_t dense[kIterMaxDims];
  if (!strides) {
    contiguous_strides(ndim, sizes, dense);
  }
  check_geometry(*s, x.itemsize(), ndim, sizes, strides ? strides : dense, storage_offset, op);
  check_untracked(t, op, true);
  point_at(x, s, ndim, sizes, strides ? strides : dense, storage_offset);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_tensor_set_tensor_(sdk_tensor* t, const sdk_tensor* source) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "set_";
  TensorImpl& x = const_cast<TensorImpl&>(checked(t, "sdk_tensor_set_tensor_", "t"));
  const TensorImpl& src = checked(source, "sdk_tensor_set_tensor_", "source");
  SDK_TYPE_CHECK(src.dtype == x.dtype, op, ": could not set a tensor of dtype ",
                 dtype_name(x.dtype), " to a source of dtype ", dtype_name(src.dtype));
  SDK_VALUE_CHECK(src.device().type == x.device().type && src.device().index == x.device().index,
                  op, ": the source is on ", device_str(src.device()), " but the tensor on ",
                  device_str(x.device()), "; the devices must match");
  check_untracked(t, op, true);
  check_untracked(source, op, false);
  if (&src == &x) return SDK_OK;
  point_at(x, src.storage, src.ndim, src.sizes, src.strides, src.offset);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
