// core/src/creation.cpp: tensor factories (empty, empty_like, full, arange, linspace, eye, clone,
// from_blob).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {
namespace {

void check_shape_args(int64_t ndim, const int64_t* sizes, const char* op) {
  if (ndim < 0 || ndim > kIterMaxDims) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": ndim must be in [0, ", kIterMaxDims, "], got ", ndim);
  }
  if (ndim > 0) check_not_null(sizes, op, "sizes");
  checked_numel(ndim, sizes, op);
}

void check_device(sdk_device d, const char* op) {
  if (d.type == SDK_CPU || d.type == SDK_META) return;
  if (d.type == SDK_CUDA) return cuda::check_device(d, op);
  SDK_FAIL(SDK_ERROR_VALUE, op, ": unknown device type ", d.type);
}

// Bytes spanned by a strided layout (0 when empty); ValueError on overflow.
int64_t extent_bytes(int64_t ndim, const int64_t* sizes, const int64_t* strides, int64_t isz,
                     const char* op) {
  int64_t last = 0;
  for (int64_t d = 0; d < ndim; ++d) {
    if (sizes[d] == 0) return 0;
    if (strides[d] < 0) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": strides must be >= 0, got ", strides[d], " at dim ", d);
    }
    int64_t span;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) ||
        __builtin_add_overflow(last, span, &last)) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": strides overflow the address space");
    }
  }
  int64_t n;
  if (__builtin_add_overflow(last, 1, &n) || __builtin_mul_overflow(n, isz, &n)) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": strides overflow the address space");
  }
  return n;
}

// Strides of a new tensor laid out like `t` (torch's preserve_format): t's own when t is
// dense and non-overlapping (a permutation of a contiguous tensor), else dense strides in
// the order of t's. Rationale: torch's *_like and clone keep a transposed input's layout,
// so extension code that walks input and result by one linear index stays correct after a
// port, and elementwise work on the two is one contiguous loop.
std::vector<int64_t> preserved_strides(const TensorImpl& t) {
  const int64_t nd = t.ndim;
  const int64_t* sz = t.sizes;
  const int64_t* st = t.strides;
  std::vector<int64_t> dims;  // the dims that move, smallest stride first
  for (int64_t d = 0; d < nd; ++d)
    if (sz[d] > 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return st[a] < st[b]; });
  int64_t expect = 1;
  bool dense = true;
  for (int64_t d : dims) {
    dense = dense && st[d] == expect;
    expect *= sz[d];
  }
  if (dense) return std::vector<int64_t>(st, st + nd);
  // Order the dims innermost first, starting from row-major, by an insertion sort in which a
  // stride-0 dim compares with nothing (it keeps its row-major place) and equal strides
  // put the smaller size inner: the order torch's iterators give, so results match it.
  std::vector<int64_t> perm(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto outer_than = [&](int64_t a, int64_t b) {  // should dim a sit outside dim b? (-1/0/1)
    if (st[a] == 0 || st[b] == 0) return 0;
    if (st[a] != st[b]) return st[a] > st[b] ? 1 : -1;
    return sz[a] > sz[b] ? 1 : 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t cur = i;
    for (int64_t j = i - 1; j >= 0; --j) {
      const int c = outer_than(perm[j], perm[cur]);
      if (c < 0) break;
      if (c > 0) {
        std::swap(perm[j], perm[cur]);
        cur = j;
      }
    }
  }
  std::vector<int64_t> out(nd);
  int64_t stride = 1;
  for (int64_t d : perm) {
    out[d] = stride;
    stride *= std::max<int64_t>(sz[d], 1);
  }
  return out;
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_empty(int64_t ndim, const int64_t* sizes, sdk_dtype dtype, sdk_device device,
                             sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_empty", "result");
  check_shape_args(ndim, sizes, "sdk_empty");
  check_dtype(dtype, "sdk_empty");
  check_device(device, "sdk_empty");
  *result = make_tensor(ndim, sizes, dtype, device).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_empty_strided(int64_t ndim, const int64_t* sizes, const int64_t* strides,
                                     sdk_dtype dtype, sdk_device device, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_empty_strided";
  check_not_null(result, op, "result");
  check_shape_args(ndim, sizes, op);
  if (ndim > 0) check_not_null(strides, op, "strides");
  check_dtype(dtype, op);
  check_device(device, op);
  int64_t nbytes = extent_bytes(ndim, sizes, strides, itemsize(dtype), op);
  Ref base = make_tensor(1, &nbytes, SDK_UINT8, device);
  Ref r = make_view(*base, ndim, sizes, strides, 0);
  r->dtype = dtype;
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_full(int64_t ndim, const int64_t* sizes, sdk_scalar value, sdk_dtype dtype,
                            sdk_device device, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_full", "result");
  check_shape_args(ndim, sizes, "sdk_full");
  check_dtype(dtype, "sdk_full");
  check_device(device, "sdk_full");
  check_scalar(value, "sdk_full", "value");
  check_fill_value(value, dtype, "full");
  Ref r = make_tensor(ndim, sizes, dtype, device);
  fill_tensor(*r, value);
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_arange(sdk_scalar start, sdk_scalar end, sdk_scalar step, sdk_dtype dtype,
                              sdk_device device, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  if (device.type == SDK_CUDA) {
    cuda::check_device(device, "sdk_arange");
    sdk_tensor* host = nullptr;
    sdk_status st = sdk_arange(start, end, step, dtype, sdk_device{SDK_CPU, 0}, &host);
    if (st != SDK_OK) return st;
    Ref h(to_impl(host));
    check_not_null(result, "sdk_arange", "result");
    *result = cuda::to_device(*h, device).release_handle();
    return SDK_OK;
  }
  const char* op = "sdk_arange";
  check_not_null(result, op, "result");
  check_scalar(start, op, "start");
  check_scalar(end, op, "end");
  check_scalar(step, op, "step");
  check_device(device, op);
  bool all_int = start.kind != SDK_SCALAR_FLOAT && end.kind != SDK_SCALAR_FLOAT &&
                 step.kind != SDK_SCALAR_FLOAT;
  if (dtype < 0) dtype = all_int ? SDK_INT64 : SDK_FLOAT32;
  check_dtype(dtype, op);
  double s0 = scalar_as<double>(start), s1 = scalar_as<double>(end), st = scalar_as<double>(step);
  SDK_VALUE_CHECK(st != 0, op, ": step must be nonzero");
  SDK_VALUE_CHECK(std::isfinite(s0) && std::isfinite(s1) && std::isfinite(st), op,
                  ": start, end and step must be finite");
  SDK_VALUE_CHECK((st > 0 && s1 >= s0) || (st < 0 && s1 <= s0), op,
                  ": upper bound and lower bound are inconsistent with the step sign (start=", s0,
                  ", end=", s1, ", step=", st, ")");
  int64_t n;
  if (all_int) {
    // Exact integer count: ceil((end - start) / step).
    __int128 span = static_cast<__int128>(end.i) - start.i;
    __int128 q = span / step.i + ((span % step.i) != 0 ? 1 : 0);
    SDK_VALUE_CHECK(q >= 0 && q < (static_cast<__int128>(1) << 56), op, ": too many elements");
    n = static_cast<int64_t>(q);
  } else {
    double c = std::ceil((s1 - s0) / st);
    SDK_VALUE_CHECK(c >= 0 && c < 7.2e16, op, ": too many elements");
    n = static_cast<int64_t>(c);
  }
  Ref r = make_tensor(1, &n, dtype, device);
  SDK_DISPATCH_ALL(dtype, op, [&] {
    scalar_t* p = static_cast<scalar_t*>(r->data());
    for (int64_t i = 0; i < n; ++i) {
      if (all_int) {
        p[i] = cast_to<scalar_t>(static_cast<int64_t>(start.i + i * step.i));
      } else {
        p[i] = cast_to<scalar_t>(s0 + static_cast<double>(i) * st);
      }
    }
  });
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_linspace(double start, double end, int64_t steps, sdk_dtype dtype,
                                sdk_device device, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  if (device.type == SDK_CUDA) {
    cuda::check_device(device, "sdk_linspace");
    sdk_tensor* host = nullptr;
    sdk_status st = sdk_linspace(start, end, steps, dtype, sdk_device{SDK_CPU, 0}, &host);
    if (st != SDK_OK) return st;
    Ref h(to_impl(host));
    check_not_null(result, "sdk_linspace", "result");
    *result = cuda::to_device(*h, device).release_handle();
    return SDK_OK;
  }
  const char* op = "sdk_linspace";
  check_not_null(result, op, "result");
  SDK_VALUE_CHECK(steps >= 0, op, ": number of steps must be non-negative, got ", steps);
  if (dtype < 0) dtype = SDK_FLOAT32;
  check_dtype(dtype, op);
  check_device(device, op);
  Ref r = make_tensor(1, &steps, dtype, device);
  double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  int64_t half = steps / 2;
  SDK_DISPATCH_ALL(dtype, op, [&] {
    scalar_t* p = static_cast<scalar_t*>(r->data());
    // Walk from both ends so the last value is exactly `end`.
    for (int64_t i = 0; i < steps; ++i) {
      double v = i < half ? start + step * static_cast<double>(i)
                          : end - step * static_cast<double>(steps - 1 - i);
      if (steps == 1) v = start;
      p[i] = cast_to<scalar_t>(v);
    }
  });
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_eye(int64_t n, int64_t m, sdk_dtype dtype, sdk_device device,
                           sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  if (device.type == SDK_CUDA) {
    cuda::check_device(device, "sdk_eye");
    sdk_tensor* host = nullptr;
    sdk_status st = sdk_eye(n, m, dtype, sdk_device{SDK_CPU, 0}, &host);
    if (st != SDK_OK) return st;
    Ref h(to_impl(host));
    check_not_null(result, "sdk_eye", "result");
    *result = cuda::to_device(*h, device).release_handle();
    return SDK_OK;
  }
  const char* op = "sdk_eye";
  check_not_null(result, op, "result");
  SDK_VALUE_CHECK(n >= 0, op, ": n must be >= 0, got ", n);
  if (m < 0) m = n;
  if (dtype < 0) dtype = SDK_FLOAT32;
  check_dtype(dtype, op);
  check_device(device, op);
  int64_t sz[2] = {n, m};
  Ref r = make_tensor(2, sz, dtype, device);
  sdk_scalar zero{0.0, 0, SDK_SCALAR_INT, 0};
  fill_tensor(*r, zero);
  SDK_DISPATCH_ALL(dtype, op, [&] {
    scalar_t* p = static_cast<scalar_t*>(r->data());
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = cast_to<scalar_t>(1);
  });
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_empty_like(const sdk_tensor* t, sdk_dtype dtype, int32_t memory_format,
                                  sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_empty_like";
  const TensorImpl& x = checked(t, op, "t");
  check_not_null(result, op, "result");
  if (dtype != -1) check_dtype(dtype, op);
  if (memory_format != SDK_CONTIGUOUS_FORMAT && memory_format != SDK_PRESERVE_FORMAT) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": unknown memory_format ", memory_format);
  }
  Ref r = make_tensor(x.ndim, x.sizes, dtype == -1 ? x.dtype : dtype, x.device());
  if (memory_format == SDK_PRESERVE_FORMAT) {
    r->set_shape(x.ndim, x.sizes, preserved_strides(x).data());
  }
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_clone(const sdk_tensor* t, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_clone", "t");
  check_not_null(result, "sdk_clone", "result");
  *result = contiguous_copy(x).release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_from_blob(void* data, int64_t ndim, const int64_t* sizes,
                                 const int64_t* strides, sdk_dtype dtype, sdk_device device,
                                 sdk_deleter deleter, void* ctx, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_from_blob";
  check_not_null(result, op, "result");
  check_shape_args(ndim, sizes, op);
  check_dtype(dtype, op);
  if (device.type != SDK_CPU && device.type != SDK_CUDA) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": unknown device type ", device.type);
  }
  int64_t nbytes;
  // Validate everything before taking ownership: on failure the memory stays the caller's.
  Ref r(new TensorImpl());
  r->dtype = dtype;
  r->set_shape(ndim, sizes, strides);
  nbytes = extent_bytes(ndim, r->sizes, r->strides, itemsize(dtype), op);
  if (nbytes > 0) {
    check_not_null(data, op, "data");
    check_address_span(data, 0, nbytes, op);
  }
  r->storage = wrap_storage(data, nbytes, device, deleter, ctx);
  *result = r.release_handle();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_from_blob_repoint(sdk_tensor* t, void* data) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_from_blob_repoint";
  const TensorImpl& x = checked(t, op, "t");
  Storage& s = *x.storage;
  SDK_REQUIRE(s.foreign && s.deleter == nullptr && s.device.type != SDK_META, SDK_ERROR_RUNTIME, op,
              ": the tensor does not wrap memory without a deleter (sdk_from_blob)");
  // one reference to the view, one view on the storage: nobody else sees the new address
  SDK_REQUIRE(x.refcount.load(std::memory_order_acquire) == 1 &&
                  s.refcount.load(std::memory_order_acquire) == 1 &&
                  x.autograd_slot.load(std::memory_order_acquire) == nullptr,
              SDK_ERROR_RUNTIME, op, ": the tensor or its memory is shared; wrap the new memory ",
              "with sdk_from_blob instead");
  if (s.nbytes > 0) {
    check_not_null(data, op, "data");
    check_address_span(data, 0, s.nbytes, op);
  }
  s.data = data;
  s.version.fetch_add(1, std::memory_order_relaxed);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
