// core/src/elementwise_ternary.cpp: ops of three inputs: lerp, addcmul, addcdiv and clamp with
// tensor bounds.
#include <cmath>
#include <limits>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

namespace sdk::detail {
namespace {

using Input = cuda::TernaryInput;  // a tensor, or (tensor null) a scalar

// torch's result type of several tensors: dimensioned tensors decide unless a 0-dim one is of
// a higher category (float over integer over bool); then the two promote.
sdk_dtype promote_inputs(const Input (&in)[3]) {
  sdk_dtype dims = -1, zero = -1;
  for (const Input& x : in) {
    if (!x.tensor) continue;
    sdk_dtype& r = x.tensor->ndim == 0 ? zero : dims;
    r = r < 0 ? x.tensor->dtype : promote(r, x.tensor->dtype);
  }
  if (dims < 0) return zero;
  if (zero < 0 || is_floating(dims)) return dims;
  if (dims == SDK_BOOL || is_floating(zero)) return promote(dims, zero);
  return dims;
}

template <typename T, typename F>
SDK_MULTIVERSION void mv_ternary(T* o, const T* a, const T* b, const T* c, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i], c[i]);
}
template <typename T, typename F>
SDK_MULTIVERSION void mv_ternary_vvs(T* o, const T* a, const T* b, T c, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i], c);
}

// Inner loop of a ternary op T <- f(T, T, T): contiguous runs, and contiguous runs with a
// constant third input (lerp's scalar weight), take the vectorizable paths.
template <typename T, typename F>
void ternary_loop(char** p, const int64_t* s, int64_t n, const F& f) {
  constexpr int64_t k = sizeof(T);
  if constexpr (kVectorize<T>) {
    if (s[0] == k && s[1] == k && s[2] == k && (s[3] == k || s[3] == 0)) {
      T* o = reinterpret_cast<T*>(p[0]);
      const T* a = reinterpret_cast<const T*>(p[1]);
      const T* b = reinterpret_cast<const T*>(p[2]);
      const T* c = reinterpret_cast<const T*>(p[3]);
      if (s[3] == k) {
        mv_ternary(o, a, b, c, n, f);
      } else {
        mv_ternary_vvs(o, a, b, *c, n, f);
      }
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<T*>(p[0] + i * s[0]) = f(*reinterpret_cast<const T*>(p[1] + i * s[1]),
                                               *reinterpret_cast<const T*>(p[2] + i * s[2]),
                                               *reinterpret_cast<const T*>(p[3] + i * s[3]));
  }
}

// out = f(a, b, c) over the broadcast inputs in dtype `c`: out handling, casts, aliasing, the
// choice of device. `cpu` gets a Launch whose operands are out, a, b, c (scalars as constants).
template <typename Cpu>
void ternary_op(const char* op, int cuda_op, Input (&in)[3], sdk_dtype compute, double p0,
                sdk_tensor* out, sdk_tensor** result, const Cpu& cpu) {
  const TensorImpl* ts[3];
  int n = 0;
  for (const Input& x : in)
    if (x.tensor) ts[n++] = x.tensor;
  int64_t sz[kIterMaxDims];
  int64_t nd = broadcast_shapes(op, n, ts, sz);
  OutPlan plan;
  if (n == 3) {
    plan.prepare(op, out, nd, sz, compute, {ts[0], ts[1], ts[2]});
  } else if (n == 2) {
    plan.prepare(op, out, nd, sz, compute, {ts[0], ts[1]});
  } else {
    plan.prepare(op, out, nd, sz, compute, {ts[0]});
  }
  Ref holders[3];
  for (int k = 0; k < 3; ++k) {
    if (!in[k].tensor) continue;
    if (in[k].tensor->dtype != compute) {
      holders[k] = contiguous_copy(*in[k].tensor, compute);
      in[k].tensor = holders[k].get();
    }
    in[k].tensor = plan.fix_alias(in[k].tensor, holders[k]);
  }
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::ternary(cuda_op, o, in, compute, p0);
  } else if (o.numel > 0) {
    const TensorImpl* live[3];
    int m = 0;
    for (const Input& x : in)
      if (x.tensor) live[m++] = x.tensor;
    TensorIter it;
    Launch L = m == 3   ? make_launch(o, {live[0], live[1], live[2]}, it, op)
               : m == 2 ? make_launch(o, {live[0], live[1]}, it, op)
                        : make_launch(o, {live[0]}, it, op);
    alignas(16) char bufs[3][16];
    for (int k = 0; k < 3; ++k) {
      if (in[k].tensor) continue;
      SDK_DISPATCH_ALL(compute, op, [&] {
        *reinterpret_cast<scalar_t*>(bufs[k]) = scalar_as<scalar_t>(in[k].scalar);
      });
      insert_constant(L, k + 1, bufs[k]);
    }
    cpu(L);
  }
  plan.finish(result);
}

// Run fc(C, C, C) -> C on the Launch's operands of element type T.
template <typename T, typename FC>
void run_ternary(const Launch& L, const FC& fc) {
  using C = typename OpMath<T>::type;
  auto f = [fc](T a, T b, T c) {
    return cast_to<T>(fc(static_cast<C>(a), static_cast<C>(b), static_cast<C>(c)));
  };
  L.run([f](char** p, const int64_t* s, int64_t m) { ternary_loop<T>(p, s, m, f); });
}

// lerp's dtype rule (torch's): end and weight share input's floating dtype.
void check_lerp_dtypes(const TensorImpl& input, const TensorImpl& end, const TensorImpl* weight) {
  SDK_TYPE_CHECK(is_floating(input.dtype),
                 "lerp: only floating point tensors are supported, got input of dtype ",
                 dtype_name(input.dtype));
  SDK_TYPE_CHECK(end.dtype == input.dtype, "lerp: expected dtype ", dtype_name(input.dtype),
                 " for `end` but got dtype ", dtype_name(end.dtype));
  if (weight) {
    SDK_TYPE_CHECK(weight->dtype == input.dtype, "lerp: expected dtype ", dtype_name(input.dtype),
                   " for `weight` but got dtype ", dtype_name(weight->dtype));
  }
}

void lerp_impl(Input (&in)[3], sdk_dtype c, sdk_tensor* out, sdk_tensor** result) {
  ternary_op("lerp", SDK_CUDA_OP_LERP, in, c, 0.0, out, result, [&](const Launch& L) {
    SDK_DISPATCH_FLOATING(c, "lerp", [&] {
      using C = typename OpMath<scalar_t>::type;
      // torch's form: exact at weight 0 and 1 alike.
      run_ternary<scalar_t>(L, [](C a, C b, C w) {
        return std::fabs(w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);
      });
    });
  });
}

// addcmul / addcdiv: value * t1 (op) t2 added to input.
void addc_impl(bool div, const sdk_tensor* input, const sdk_tensor* tensor1,
               const sdk_tensor* tensor2, sdk_scalar value, sdk_tensor* out, sdk_tensor** result) {
  const char* op = div ? "addcdiv" : "addcmul";
  const char* fn = div ? "sdk_addcdiv" : "sdk_addcmul";
  Input in[3] = {{&checked(input, fn, "input"), {}},
                 {&checked(tensor1, fn, "tensor1"), {}},
                 {&checked(tensor2, fn, "tensor2"), {}}};
  if (!out) check_not_null(result, fn, "result");
  check_scalar(value, op, "value");
  if (div) {
    SDK_REQUIRE(!is_integral(in[1].tensor->dtype, true) || !is_integral(in[2].tensor->dtype, true),
                SDK_ERROR_RUNTIME,
                "addcdiv: integer division with addcdiv is not supported (tensor1 and tensor2 "
                "are ",
                dtype_name(in[1].tensor->dtype), " and ", dtype_name(in[2].tensor->dtype),
                "); divide in a floating dtype, e.g. tensor1.to(float) / tensor2");
  }
  sdk_dtype c = promote_inputs(in);
  SDK_TYPE_CHECK(is_floating(c) || value.kind != SDK_SCALAR_FLOAT, op,
                 ": for integral input tensors, argument value must not be a floating point "
                 "number");
  SDK_TYPE_CHECK(c != SDK_BOOL, op, ": not supported for bool tensors");
  double v = scalar_as<double>(value);
  ternary_op(op, div ? SDK_CUDA_OP_ADDCDIV : SDK_CUDA_OP_ADDCMUL, in, c, v, out, result,
             [&](const Launch& L) {
               SDK_DISPATCH_ALL(c, op, [&] {
                 using C = typename OpMath<scalar_t>::type;
                 if constexpr (std::is_same_v<C, bool>) {
                   SDK_FAIL(SDK_ERROR_TYPE, op, ": not supported for bool tensors");
                 } else if constexpr (std::is_floating_point_v<C>) {
                   C cv = static_cast<C>(v);
                   if (div) {
                     run_ternary<scalar_t>(L, [cv](C a, C b, C d) { return a + cv * b / d; });
                   } else {
                     run_ternary<scalar_t>(L, [cv](C a, C b, C d) { return a + cv * b * d; });
                   }
                 } else {
                   C cv = scalar_as<C>(value);
                   run_ternary<scalar_t>(L, [cv](C a, C b, C d) {
                     return wrap_add(a, wrap_mul(wrap_mul(cv, b), d));
                   });
                 }
               });
             });
}

// An open bound of clamp in dtype d: -inf / +inf, or the integer type's limits.
sdk_scalar open_bound(sdk_dtype d, bool upper) {
  sdk_scalar s{};
  if (is_floating(d)) {
    s.kind = SDK_SCALAR_FLOAT;
    s.f = upper ? HUGE_VAL : -HUGE_VAL;
    return s;
  }
  s.kind = SDK_SCALAR_INT;
  SDK_DISPATCH_ALL(d, "clamp", [&] {
    if constexpr (std::is_same_v<scalar_t, bool>) {
      s.i = upper ? 1 : 0;
    } else if constexpr (std::is_integral_v<scalar_t>) {
      s.i = static_cast<int64_t>(upper ? std::numeric_limits<scalar_t>::max()
                                       : std::numeric_limits<scalar_t>::lowest());
    }
  });
  return s;
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_lerp(const sdk_tensor* input, const sdk_tensor* end,
                            const sdk_tensor* weight, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  Input in[3] = {{&checked(input, "sdk_lerp", "input"), {}},
                 {&checked(end, "sdk_lerp", "end"), {}},
                 {&checked(weight, "sdk_lerp", "weight"), {}}};
  if (!out) check_not_null(result, "sdk_lerp", "result");
  check_lerp_dtypes(*in[0].tensor, *in[1].tensor, in[2].tensor);
  lerp_impl(in, in[0].tensor->dtype, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_lerp_scalar(const sdk_tensor* input, const sdk_tensor* end,
                                   sdk_scalar weight, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  Input in[3] = {{&checked(input, "sdk_lerp_scalar", "input"), {}},
                 {&checked(end, "sdk_lerp_scalar", "end"), {}},
                 {nullptr, weight}};
  if (!out) check_not_null(result, "sdk_lerp_scalar", "result");
  check_scalar(weight, "lerp", "weight");
  check_lerp_dtypes(*in[0].tensor, *in[1].tensor, nullptr);
  lerp_impl(in, in[0].tensor->dtype, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_addcmul(const sdk_tensor* input, const sdk_tensor* tensor1,
                               const sdk_tensor* tensor2, sdk_scalar value, sdk_tensor* out,
                               sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  addc_impl(false, input, tensor1, tensor2, value, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_addcdiv(const sdk_tensor* input, const sdk_tensor* tensor1,
                               const sdk_tensor* tensor2, sdk_scalar value, sdk_tensor* out,
                               sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  addc_impl(true, input, tensor1, tensor2, value, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_clamp_tensor(const sdk_tensor* x, const sdk_tensor* min,
                                    const sdk_tensor* max, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "clamp";
  Input in[3] = {{&checked(x, "sdk_clamp_tensor", "x"), {}},
                 {min ? &checked(min, "sdk_clamp_tensor", "min") : nullptr, {}},
                 {max ? &checked(max, "sdk_clamp_tensor", "max") : nullptr, {}}};
  if (!out) check_not_null(result, "sdk_clamp_tensor", "result");
  SDK_VALUE_CHECK(min || max, op, ": at least one of 'min' or 'max' must not be None");
  sdk_dtype c = promote_inputs(in);
  if (!min) in[1].scalar = open_bound(c, false);
  if (!max) in[2].scalar = open_bound(c, true);
  ternary_op(op, SDK_CUDA_OP_CLAMP3, in, c, 0.0, out, result, [&](const Launch& L) {
    SDK_DISPATCH_ALL(c, op, [&] {
      using C = typename OpMath<scalar_t>::type;
      // NaN anywhere gives NaN (torch's clamp with tensor bounds); integers have none.
      run_ternary<scalar_t>(L, [](C v, C lo, C hi) {
        if constexpr (std::is_floating_point_v<C>) {
          if (v != v) return v;
          if (lo != lo) return lo;
          if (hi != hi) return hi;
        }
        C r = v < lo ? lo : v;
        return r > hi ? hi : r;
      });
    });
  });
  SDK_SAFE_CALL_END;
}

}  // extern "C"
