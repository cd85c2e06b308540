// core/src/elementwise_copy.cpp: casting copies, fill, `out` plumbing, and
// sdk_copy_/fill_/to_dtype.
#include <cstring>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {

void check_no_internal_overlap(const TensorImpl& t, const char* op) {
  for (int64_t d = 0; d < t.ndim; ++d) {
    if (t.sizes[d] > 1 && t.strides[d] == 0) {
      SDK_FAIL(SDK_ERROR_VALUE, op,
               ": cannot write into a tensor where several elements share one memory location "
               "(an expanded tensor of shape ",
               shape_str(t), "); clone it first");
    }
  }
}

void check_cpu(const TensorImpl& t, const char* op) {
  if (t.device().type != SDK_CPU) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, op, ": only CPU tensors are supported by this core");
  }
}

void copy_into(TensorImpl& dst, const TensorImpl& src) {
  if (dst.numel == 0) return;
  if (cuda::is_cuda(dst) || cuda::is_cuda(src)) return cuda::copy_into(dst, src);
  if (dst.dtype == src.dtype && dst.contiguous && src.contiguous && same_shape(dst, src)) {
    std::memmove(dst.data(), src.data(), static_cast<size_t>(dst.numel * dst.itemsize()));
    return;
  }
  TensorIter it;
  it.build({&dst, &src}, "copy");
  SDK_DISPATCH_ALL(dst.dtype, "copy", [&] {
    using To = scalar_t;
    SDK_DISPATCH_ALL(src.dtype, "copy", [&] {
      using Ti = scalar_t;
      it.for_each([](char** p, const int64_t* s, int64_t n) {
        unary_loop<To, Ti>(p, s, n, [](Ti v) { return cast_to<To>(v); });
      });
    });
  });
}

Ref contiguous_copy(const TensorImpl& t, sdk_dtype dtype) {
  Ref r = make_tensor(t.ndim, t.sizes, dtype < 0 ? t.dtype : dtype, t.device());
  copy_into(*r, t);
  return r;
}

Ref cast_if_needed(const TensorImpl& t, sdk_dtype dtype) {
  if (t.dtype == dtype) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  return contiguous_copy(t, dtype);
}

void fill_tensor(TensorImpl& t, const sdk_scalar& v) {
  if (t.numel == 0) return;
  if (cuda::is_cuda(t)) return cuda::fill(t, v);
  TensorIter it;
  it.build({&t}, "fill_");
  SDK_DISPATCH_ALL(t.dtype, "fill_", [&] {
    scalar_t x = scalar_as<scalar_t>(v);
    it.for_each([x](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(scalar_t)) {
        scalar_t* o = reinterpret_cast<scalar_t*>(p[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = x;
      } else {
        char* o = p[0];
        for (int64_t i = 0; i < n; ++i, o += s[0]) *reinterpret_cast<scalar_t*>(o) = x;
      }
    });
  });
}

void check_scalar(const sdk_scalar& s, const char* op, const char* arg) {
  if (s.kind != SDK_SCALAR_BOOL && s.kind != SDK_SCALAR_INT && s.kind != SDK_SCALAR_FLOAT) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": argument '", arg, "' has unknown scalar kind ", s.kind);
  }
}

void OutPlan::prepare(const char* op, sdk_tensor* out, int64_t nd, const int64_t* sz,
                      sdk_dtype dtype, std::initializer_list<const TensorImpl*> layout_inputs) {
  // The result lives on the inputs' device; all inputs (and out) must share it.
  sdk_device dev{SDK_CPU, 0};
  const TensorImpl* first = layout_inputs.size() ? *layout_inputs.begin() : nullptr;
  if (first) dev = first->device();
  for (const TensorImpl* t : layout_inputs) cuda::check_same_device(op, {first, t});
  if (!out) {
    target = empty_like_layout(nd, sz, dtype, dev, layout_inputs);
    return;
  }
  user = Ref::borrow(out);
  if (first) cuda::check_same_device(op, {first, user.get()});
  if (!same_shape(*user, nd, sz)) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": out has shape ", shape_str(*user),
             " but the result has shape ", sizes_str(nd, sz));
  }
  if (!can_cast(dtype, user->dtype)) {
    SDK_FAIL(SDK_ERROR_TYPE, op, ": result type ", dtype_name(dtype),
             " can't be cast to the out dtype ", dtype_name(user->dtype));
  }
  check_no_internal_overlap(*user, op);
  if (user->dtype == dtype) {
    target = user;
  } else {
    target = make_tensor(nd, sz, dtype, dev);
    cast_back = true;
  }
}

void OutPlan::fix_alias(Ref& in) const {
  if (user && !cast_back && shares_storage(*in, *user) && !same_view(*in, *user)) {
    in = contiguous_copy(*in);
  }
}

const TensorImpl* OutPlan::fix_alias(const TensorImpl* in, Ref& holder) const {
  if (user && !cast_back && shares_storage(*in, *user) && !same_view(*in, *user)) {
    holder = contiguous_copy(*in);
    return holder.get();
  }
  return in;
}

void OutPlan::finish(sdk_tensor** result) {
  if (user) {
    if (cast_back) copy_into(*user, *target);
    user->bump_version();
    set_result(result, user);
  } else {
    set_result(result, std::move(target));
  }
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_to_dtype(const sdk_tensor* t, sdk_dtype dtype, int32_t copy,
                                sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_to_dtype", "t");
  check_not_null(result, "sdk_to_dtype", "result");
  check_dtype(dtype, "sdk_to_dtype");
  if (x.dtype == dtype && !copy) {
    *result = Ref::borrow(t).release_handle();
  } else {
    // Keep a transposed input's layout, as torch's .to() does.
    Ref r = empty_like_layout(x.ndim, x.sizes, dtype, x.device(), {&x});
    copy_into(*r, x);
    *result = r.release_handle();
  }
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_fill_(sdk_tensor* t, sdk_scalar value) {
  SDK_SAFE_CALL_BEGIN;
  TensorImpl& x = const_cast<TensorImpl&>(checked(t, "sdk_fill_", "t"));
  check_scalar(value, "sdk_fill_", "value");
  fill_tensor(x, value);
  x.bump_version();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_copy_(sdk_tensor* dst, const sdk_tensor* src) {
  SDK_SAFE_CALL_BEGIN;
  TensorImpl& d = const_cast<TensorImpl&>(checked(dst, "sdk_copy_", "dst"));
  const TensorImpl& s = checked(src, "sdk_copy_", "src");
  check_no_internal_overlap(d, "sdk_copy_");
  int64_t sz[kIterMaxDims];
  const TensorImpl* both[2] = {&d, &s};
  int64_t nd = broadcast_shapes("sdk_copy_", 2, both, sz);
  if (!same_shape(d, nd, sz)) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_copy_: source of shape ", shape_str(s),
             " cannot be broadcast to the destination shape ", shape_str(d));
  }
  if (&d != &s && !same_view(d, s)) {
    if (shares_storage(d, s)) {
      Ref tmp = contiguous_copy(s);  // overlapping: read everything before writing
      copy_into(d, *tmp);
    } else {
      copy_into(d, s);
    }
  }
  d.bump_version();
  SDK_SAFE_CALL_END;
}

}  // extern "C"
