// core/src/elementwise_params.cpp: elementwise ops with parameters: softplus, leaky_relu,
// nan_to_num and isclose.
#include <cmath>
#include <limits>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {
namespace {

// Result of a floating activation: the input's dtype, float32 for integer and bool inputs.
sdk_dtype float_result(sdk_dtype x) { return is_floating(x) ? x : SDK_FLOAT32; }

// The largest finite value of a floating dtype (nan_to_num's default for +inf).
double max_finite(sdk_dtype d) {
  switch (d) {
    case SDK_FLOAT16:
      return 65504.0;
    case SDK_BFLOAT16:
      return 3.38953138925153547590470800371487866880e38;  // (2 - 2^-7) * 2^127
    case SDK_FLOAT32:
      return static_cast<double>(std::numeric_limits<float>::max());
    default:
      return std::numeric_limits<double>::max();
  }
}

// The shared frame of a unary op whose result has dtype `c`: out handling, the cast of the
// input to `c`, and the choice of device; `cpu(L)` runs the CPU loop, `cuda_op` names the
// backend's op (its parameters in p0..p2).
template <typename CpuLoop>
void unary_with_params(const char* op, const TensorImpl& tx, sdk_dtype c, sdk_tensor* out,
                       sdk_tensor** result, int cuda_op, double p0, double p1, double p2,
                       const CpuLoop& cpu) {
  OutPlan plan;
  plan.prepare(op, out, tx.ndim, tx.sizes, c, {&tx});
  Ref hx;
  const TensorImpl* ix = &tx;
  if (ix->dtype != c) ix = (hx = contiguous_copy(tx, c)).get();
  ix = plan.fix_alias(ix, hx);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::unary_params(cuda_op, o, *ix, true, p0, true, p1, p2);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ix}, it, op);
    cpu(L);
  }
  plan.finish(result);
}

// torch's isclose, in the math type M: equal, or a finite |a - b| within atol + rtol * |b|
// (b = inf would admit any finite a otherwise). Bitwise ands and ors, no branches: the loop
// vectorizes.
template <typename M>
SDK_INLINE bool is_close(M a, M b, M rtol, M atol, bool equal_nan) {
  M diff = std::fabs(a - b);
  bool within = (diff < std::numeric_limits<M>::infinity()) & (diff <= atol + rtol * std::fabs(b));
  return (a == b) | within | (equal_nan & (a != a) & (b != b));
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_softplus(const sdk_tensor* x, double beta, double threshold, sdk_tensor* out,
                                sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& tx = checked(x, "sdk_softplus", "x");
  if (!out) check_not_null(result, "sdk_softplus", "result");
  SDK_VALUE_CHECK(beta != 0.0 && !std::isnan(beta), "softplus: beta must be nonzero, got ", beta);
  sdk_dtype c = float_result(tx.dtype);
  unary_with_params("softplus", tx, c, out, result, SDK_CUDA_OP_SOFTPLUS, beta, threshold, 0.0,
                    [&](const Launch& L) {
                      SDK_DISPATCH_FLOATING(c, "softplus", [&] {
                        using C = typename OpMath<scalar_t>::type;
                        C b = static_cast<C>(beta), th = static_cast<C>(threshold);
                        // torch's form: linear above the threshold, where log1p(exp) would
                        // round to it anyway (and exp could overflow).
                        L.unary<scalar_t, scalar_t>([b, th](C v) {
                          C bv = v * b;
                          return bv > th ? v : std::log1p(std::exp(bv)) / b;
                        });
                      });
                    });
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_leaky_relu(const sdk_tensor* x, double negative_slope, sdk_tensor* out,
                                  sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& tx = checked(x, "sdk_leaky_relu", "x");
  if (!out) check_not_null(result, "sdk_leaky_relu", "result");
  sdk_dtype c = float_result(tx.dtype);
  unary_with_params("leaky_relu", tx, c, out, result, SDK_CUDA_OP_LEAKY_RELU, negative_slope, 0.0,
                    0.0, [&](const Launch& L) {
                      SDK_DISPATCH_FLOATING(c, "leaky_relu", [&] {
                        using C = typename OpMath<scalar_t>::type;
                        C s = static_cast<C>(negative_slope);
                        L.unary<scalar_t, scalar_t>([s](C v) { return v > C(0) ? v : v * s; });
                      });
                    });
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_nan_to_num(const sdk_tensor* x, sdk_scalar nan, sdk_scalar posinf,
                                  sdk_scalar neginf, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "nan_to_num";
  const TensorImpl& tx = checked(x, "sdk_nan_to_num", "x");
  if (!out) check_not_null(result, "sdk_nan_to_num", "result");
  const sdk_scalar* given[3] = {&nan, &posinf, &neginf};
  const char* names[3] = {"nan", "posinf", "neginf"};
  for (int k = 0; k < 3; ++k) {
    if (given[k]->kind != SDK_SCALAR_NONE) check_scalar(*given[k], op, names[k]);
  }
  sdk_dtype c = tx.dtype;
  if (!is_floating(c)) {  // nothing to replace: a copy, as torch gives
    OutPlan plan;
    plan.prepare(op, out, tx.ndim, tx.sizes, c, {&tx});
    Ref hx;
    const TensorImpl* ix = plan.fix_alias(&tx, hx);
    copy_into(*plan.target, *ix);  // either device
    plan.finish(result);
    return SDK_OK;
  }
  double n = nan.kind == SDK_SCALAR_NONE ? 0.0 : scalar_as<double>(nan);
  double p = posinf.kind == SDK_SCALAR_NONE ? max_finite(c) : scalar_as<double>(posinf);
  double m = neginf.kind == SDK_SCALAR_NONE ? -max_finite(c) : scalar_as<double>(neginf);
  unary_with_params(op, tx, c, out, result, SDK_CUDA_OP_NAN_TO_NUM, n, p, m, [&](const Launch& L) {
    SDK_DISPATCH_FLOATING(c, op, [&] {
      using C = typename OpMath<scalar_t>::type;
      constexpr C kInf = std::numeric_limits<C>::infinity();
      C cn = static_cast<C>(n), cp = static_cast<C>(p), cm = static_cast<C>(m);
      L.unary<scalar_t, scalar_t>(
          [=](C v) { return v != v ? cn : (v == kInf ? cp : (v == -kInf ? cm : v)); });
    });
  });
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_isclose(const sdk_tensor* a, const sdk_tensor* b, double rtol, double atol,
                               int32_t equal_nan, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "isclose";
  const TensorImpl& ta = checked(a, "sdk_isclose", "a");
  const TensorImpl& tb = checked(b, "sdk_isclose", "b");
  check_not_null(result, "sdk_isclose", "result");
  SDK_TYPE_CHECK(ta.dtype == tb.dtype, op, ": expected input and other to have the same dtype, ",
                 "but got ", dtype_name(ta.dtype), " and ", dtype_name(tb.dtype));
  SDK_VALUE_CHECK(rtol >= 0, op, ": rtol must be greater than or equal to zero, but got ", rtol);
  SDK_VALUE_CHECK(atol >= 0, op, ": atol must be greater than or equal to zero, but got ", atol);
  cuda::check_same_device(op, {&ta, &tb});
  int64_t sz[kIterMaxDims];
  const TensorImpl* both[2] = {&ta, &tb};
  int64_t nd = broadcast_shapes(op, 2, both, sz);
  OutPlan plan;
  plan.prepare(op, nullptr, nd, sz, SDK_BOOL, {&ta, &tb});
  TensorImpl& o = *plan.target;
  bool nan_eq = equal_nan != 0;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    int cuda_op = nan_eq ? SDK_CUDA_OP_ISCLOSE_EQUAL_NAN : SDK_CUDA_OP_ISCLOSE;
    cuda::binary(cuda_op, o, ta, tb, rtol, atol);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {&ta, &tb}, it, op);
    SDK_DISPATCH_ALL(ta.dtype, op, [&] {
      using C = typename OpMath<scalar_t>::type;
      // Floating types compare in their own math type, as torch; integers and bool in double.
      using M = std::conditional_t<std::is_floating_point_v<C>, C, double>;
      M rt = static_cast<M>(rtol), at = static_cast<M>(atol);
      L.binary<bool, scalar_t>(
          [=](C x, C y) { return is_close(static_cast<M>(x), static_cast<M>(y), rt, at, nan_eq); });
    });
  }
  plan.finish(result);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
