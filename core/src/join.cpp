// core/src/join.cpp: cat and stack (torch's rules, dtype promotion, memcpy fast paths).
#include "cuda/glue/cuda_glue.h"
#include "kernel_util.h"

namespace sdk::detail::k2 {
namespace {

bool aliases_any(const TensorImpl& o, const std::vector<const TensorImpl*>& ins) {
  for (const TensorImpl* t : ins) {
    if (t->storage == o.storage) return true;
  }
  return false;
}

// Contiguous inputs of dst's dtype into a contiguous dst: one memcpy per
// input per outer index (cat along dim 1 of 2-D tensors is a row copy).
void cat_contiguous(const std::vector<const TensorImpl*>& ins, TensorImpl& dst, int64_t d) {
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= dst.sizes[k];
  for (int64_t k = d + 1; k < dst.ndim; ++k) inner *= dst.sizes[k];
  const int64_t isz = dst.itemsize();
  const int64_t row = dst.sizes[d] * inner * isz;
  std::vector<int64_t> chunk(ins.size()), start(ins.size());
  int64_t off = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    chunk[i] = ins[i]->sizes[d] * inner * isz;
    start[i] = off;
    off += chunk[i];
  }
  char* out = static_cast<char*>(dst.data());
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      for (size_t i = 0; i < ins.size(); ++i) {
        if (chunk[i] == 0) continue;
        std::memcpy(out + o * row + start[i],
                    static_cast<const char*>(ins[i]->data()) + o * chunk[i], size_t(chunk[i]));
      }
    }
  };
  if (outer * row >= (int64_t(1) << 20)) {
    parallel_for(0, outer, std::max<int64_t>(1, (int64_t(1) << 18) / std::max<int64_t>(1, row)),
                 body);
  } else {
    body(0, outer);
  }
}

Ref cat_impl(const std::vector<const TensorImpl*>& all, int64_t dim, sdk_tensor* out,
             const char* op) {
  SDK_VALUE_CHECK(!all.empty(), op, ": expected a non-empty list of tensors");
  sdk_dtype dtype = all[0]->dtype;
  for (const TensorImpl* t : all) dtype = promote(dtype, t->dtype);
  // torch skips legacy empty 1-D tensors of shape [0].
  std::vector<const TensorImpl*> ins;
  for (const TensorImpl* t : all) {
    if (!(t->ndim == 1 && t->sizes[0] == 0)) ins.push_back(t);
  }
  if (ins.empty()) {
    Shape shape{0};
    return finish_out(make_tensor(shape, dtype, all[0]->device()), out, op);
  }
  const TensorImpl& ref = *ins[0];
  SDK_VALUE_CHECK(ref.ndim > 0, op, ": zero-dimensional tensor cannot be concatenated");
  const int64_t d = wrap_dim(dim, ref.ndim, op);
  Shape shape = shape_of(ref);
  shape[d] = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const TensorImpl& t = *all[i];
    if (t.ndim == 1 && t.sizes[0] == 0) continue;
    SDK_VALUE_CHECK(t.ndim == ref.ndim, op,
                    ": tensors must have the same number of dimensions: tensor 0 has shape ",
                    shape_str(ref), " but tensor ", i, " has shape ", shape_str(t));
    for (int64_t k = 0; k < t.ndim; ++k) {
      SDK_VALUE_CHECK(k == d || t.sizes[k] == ref.sizes[k], op,
                      ": sizes of tensors must match except in dimension ", d, ": expected size ",
                      ref.sizes[k], " but got size ", t.sizes[k], " in dimension ", k,
                      " for tensor ", i, " (shape ", shape_str(t), ")");
    }
    SDK_VALUE_CHECK(!__builtin_add_overflow(shape[d], t.sizes[d], &shape[d]), op,
                    ": the concatenated size along dim ", d, " overflows int64");
  }
  Ref dst;
  if (out && !aliases_any(*to_impl(out), all)) {
    check_out(*to_impl(out), shape, dtype, op);
    dst = Ref::borrow(out);
  } else {
    dst = make_tensor(shape, dtype, ref.device());
  }
  for (const TensorImpl* t : all) cuda::check_same_device(op, {all[0], t});
  cuda::check_same_device(op, {all[0], dst.get()});
  bool fast = dst->contiguous && !cuda::is_cuda(*dst);
  for (const TensorImpl* t : ins) fast = fast && t->contiguous && t->dtype == dst->dtype;
  if (fast) {
    cat_contiguous(ins, *dst, d);
  } else {
    int64_t pos = 0;
    for (const TensorImpl* t : ins) {
      int64_t off = dst->offset + pos * dst->strides[d];
      Ref slot = make_view(*dst, t->ndim, t->sizes, dst->strides, off);
      cast_copy(*t, *slot);
      pos += t->sizes[d];
    }
  }
  return finish_out(dst, out, op);
}

std::vector<const TensorImpl*> gather_inputs(int64_t n, const sdk_tensor* const* tensors,
                                             const char* op) {
  SDK_VALUE_CHECK(n >= 1, op, ": expected a non-empty list of tensors, got n = ", n);
  check_not_null(tensors, op, "tensors");
  std::vector<const TensorImpl*> v;
  v.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    SDK_VALUE_CHECK(tensors[i], op, ": tensors[", i, "] is NULL");
    const TensorImpl& t = *to_impl(tensors[i]);
    v.push_back(&t);
  }
  return v;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_cat(int64_t n, const sdk_tensor* const* tensors, int64_t dim,
                           sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_cat";
  std::vector<const TensorImpl*> ins = gather_inputs(n, tensors, op);
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, cat_impl(ins, dim, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_stack(int64_t n, const sdk_tensor* const* tensors, int64_t dim,
                             sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_stack";
  std::vector<const TensorImpl*> ins = gather_inputs(n, tensors, op);
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  const TensorImpl& ref = *ins[0];
  for (size_t i = 1; i < ins.size(); ++i) {
    SDK_VALUE_CHECK(shape_of(*ins[i]) == shape_of(ref), op,
                    ": expects each tensor to be equal size, but got ", shape_str(ref),
                    " at entry 0 and ", shape_str(*ins[i]), " at entry ", i);
  }
  const int64_t d = wrap_dim(dim, ref.ndim + 1, op);
  // Each input gains a size-1 dim at d (a view), then they are concatenated.
  std::vector<Ref> views;
  std::vector<const TensorImpl*> vp;
  for (const TensorImpl* t : ins) {
    Shape sz = shape_of(*t), st(t->strides, t->strides + t->ndim);
    int64_t s = d < t->ndim ? t->strides[d] * t->sizes[d] : 1;
    sz.insert(sz.begin() + d, 1);
    st.insert(st.begin() + d, s);
    views.push_back(make_view(*t, int64_t(sz.size()), sz.data(), st.data(), t->offset));
    vp.push_back(views.back().get());
  }
  set_result(result, cat_impl(vp, d, out, op));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
