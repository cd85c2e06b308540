// core/src/elementwise_misc.cpp: add with alpha, clamp, where and masked_fill.
#include <cmath>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_add_scaled(const sdk_tensor* a, const sdk_tensor* b, sdk_scalar alpha,
                                  sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "add";
  const TensorImpl& ta = checked(a, "sdk_add_scaled", "a");
  const TensorImpl& tb = checked(b, "sdk_add_scaled", "b");
  if (!out) check_not_null(result, "sdk_add_scaled", "result");
  check_scalar(alpha, op, "alpha");
  sdk_dtype c = promote_operands(ta.dtype, ta.ndim == 0, tb.dtype, tb.ndim == 0);
  SDK_TYPE_CHECK(is_floating(c) || alpha.kind != SDK_SCALAR_FLOAT, op,
                 ": for integral input tensors, argument alpha must not be a floating point "
                 "number");
  SDK_TYPE_CHECK(c != SDK_BOOL || alpha.kind == SDK_SCALAR_BOOL || scalar_as<int64_t>(alpha) >= 0,
                 op, ": subtraction of bool tensors is not supported; use logical_xor");
  int64_t sz[kIterMaxDims];
  const TensorImpl* both[2] = {&ta, &tb};
  int64_t nd = broadcast_shapes(op, 2, both, sz);
  OutPlan plan;
  plan.prepare(op, out, nd, sz, c, {&ta, &tb});
  Ref ha, hb;
  const TensorImpl* ia = &ta;
  const TensorImpl* ib = &tb;
  if (ia->dtype != c) ia = (ha = contiguous_copy(ta, c)).get();
  if (ib->dtype != c) ib = (hb = contiguous_copy(tb, c)).get();
  ia = plan.fix_alias(ia, ha);
  ib = plan.fix_alias(ib, hb);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::binary(SDK_CUDA_OP_ADD_SCALED, o, *ia, *ib, scalar_as<double>(alpha));
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ia, ib}, it, op);
    SDK_DISPATCH_ALL(c, op, [&] {
      using C = typename OpMath<scalar_t>::type;
      C al = scalar_as<C>(alpha);
      L.binary<scalar_t, scalar_t>([al](C x, C y) { return wrap_add(x, wrap_mul(al, y)); });
    });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_clamp(const sdk_tensor* x, sdk_scalar lo, sdk_scalar hi, sdk_tensor* out,
                             sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "clamp";
  const TensorImpl& tx = checked(x, "sdk_clamp", "x");
  if (!out) check_not_null(result, "sdk_clamp", "result");
  bool has_lo = lo.kind != SDK_SCALAR_NONE, has_hi = hi.kind != SDK_SCALAR_NONE;
  if (has_lo) check_scalar(lo, op, "min");
  if (has_hi) check_scalar(hi, op, "max");
  SDK_VALUE_CHECK(has_lo || has_hi, op, ": at least one of 'min' or 'max' must not be None");
  sdk_dtype c = tx.dtype;
  if (has_lo) c = promote_with_scalar(c, lo.kind);
  if (has_hi) c = promote_with_scalar(c, hi.kind);
  OutPlan plan;
  plan.prepare(op, out, tx.ndim, tx.sizes, c, {&tx});
  Ref hx;
  const TensorImpl* ix = &tx;
  if (ix->dtype != c) ix = (hx = contiguous_copy(tx, c)).get();
  ix = plan.fix_alias(ix, hx);
  TensorImpl& o = *plan.target;
  // A NaN bound makes every element NaN, as in torch (and as maximum/minimum propagate it).
  bool nan_lo = has_lo && lo.kind == SDK_SCALAR_FLOAT && std::isnan(lo.f);
  bool nan_hi = has_hi && hi.kind == SDK_SCALAR_FLOAT && std::isnan(hi.f);
  if (nan_lo || nan_hi) {
    fill_tensor(o, nan_lo ? lo : hi);
  } else if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::unary_params(SDK_CUDA_OP_CLAMP, o, *ix, has_lo, has_lo ? scalar_as<double>(lo) : 0.0,
                       has_hi, has_hi ? scalar_as<double>(hi) : 0.0);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ix}, it, op);
    SDK_DISPATCH_ALL(c, op, [&] {
      using C = typename OpMath<scalar_t>::type;
      C l = has_lo ? scalar_as<C>(lo) : C(0), h = has_hi ? scalar_as<C>(hi) : C(0);
      // Comparisons are false for NaN, so NaN inputs pass through as in torch.
      L.unary<scalar_t, scalar_t>([=](C v) {
        if (has_lo && v < l) v = l;
        if (has_hi && v > h) v = h;
        return v;
      });
    });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_where(const sdk_tensor* cond, const sdk_tensor* a, const sdk_tensor* b,
                             sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "where";
  const TensorImpl& tc = checked(cond, "sdk_where", "cond");
  const TensorImpl& ta = checked(a, "sdk_where", "a");
  const TensorImpl& tb = checked(b, "sdk_where", "b");
  if (!out) check_not_null(result, "sdk_where", "result");
  SDK_TYPE_CHECK(tc.dtype == SDK_BOOL, op, ": condition must be a bool tensor, got ",
                 dtype_name(tc.dtype));
  sdk_dtype c = promote_operands(ta.dtype, ta.ndim == 0, tb.dtype, tb.ndim == 0);
  int64_t sz[kIterMaxDims];
  const TensorImpl* all[3] = {&tc, &ta, &tb};
  int64_t nd = broadcast_shapes(op, 3, all, sz);
  OutPlan plan;
  plan.prepare(op, out, nd, sz, c, {&ta, &tb, &tc});
  Ref hc, ha, hb;
  const TensorImpl* ic = plan.fix_alias(&tc, hc);
  const TensorImpl* ia = &ta;
  const TensorImpl* ib = &tb;
  if (ia->dtype != c) ia = (ha = contiguous_copy(ta, c)).get();
  if (ib->dtype != c) ib = (hb = contiguous_copy(tb, c)).get();
  ia = plan.fix_alias(ia, ha);
  ib = plan.fix_alias(ib, hb);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::where(o, *ic, *ia, *ib);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ic, ia, ib}, it, op);
    SDK_DISPATCH_ALL(c, op, [&] {
      using T = scalar_t;
      L.run([](char** p, const int64_t* s, int64_t n) {
        if (s[0] == sizeof(T) && s[1] == 1 && s[2] == sizeof(T) && s[3] == sizeof(T)) {
          T* o = reinterpret_cast<T*>(p[0]);
          const bool* k = reinterpret_cast<const bool*>(p[1]);
          const T* x = reinterpret_cast<const T*>(p[2]);
          const T* y = reinterpret_cast<const T*>(p[3]);
          for (int64_t i = 0; i < n; ++i) o[i] = k[i] ? x[i] : y[i];
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<T*>(p[0] + i * s[0]) =
              *reinterpret_cast<const bool*>(p[1] + i * s[1])
                  ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                  : *reinterpret_cast<const T*>(p[3] + i * s[3]);
        }
      });
    });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_masked_fill(const sdk_tensor* t, const sdk_tensor* mask, sdk_scalar value,
                                   sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "masked_fill";
  const TensorImpl& tt = checked(t, "sdk_masked_fill", "t");
  const TensorImpl& tm = checked(mask, "sdk_masked_fill", "mask");
  if (!out) check_not_null(result, "sdk_masked_fill", "result");
  check_scalar(value, op, "value");
  check_fill_value(value, tt.dtype, op);
  SDK_TYPE_CHECK(tm.dtype == SDK_BOOL, op, ": mask must be a bool tensor, got ",
                 dtype_name(tm.dtype));
  cuda::check_same_device(op, {&tt, &tm});
  int64_t sz[kIterMaxDims];
  const TensorImpl* both[2] = {&tt, &tm};
  int64_t nd = broadcast_shapes(op, 2, both, sz);
  if (!same_shape(tt, nd, sz)) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": mask of shape ", shape_str(tm),
             " cannot be broadcast to the tensor's shape ", shape_str(tt));
  }
  OutPlan plan;
  plan.prepare(op, out, nd, sz, tt.dtype, {&tt});
  Ref hx, hm;
  const TensorImpl* ix = plan.fix_alias(&tt, hx);
  const TensorImpl* im = plan.fix_alias(&tm, hm);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::masked_fill(o, *ix, *im, value);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ix, im}, it, op);
    SDK_DISPATCH_ALL(tt.dtype, op, [&] {
      using T = scalar_t;
      T v = scalar_as<T>(value);
      L.run([v](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<T*>(p[0] + i * s[0]) =
              *reinterpret_cast<const bool*>(p[2] + i * s[2])
                  ? v
                  : *reinterpret_cast<const T*>(p[1] + i * s[1]);
        }
      });
    });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
