// core/src/elementwise.cpp: binary ops (tensor-tensor and tensor-scalar) and div with a
// rounding mode.
#include "elementwise.h"

#include "binary_kernels.h"
#include "cuda/glue/cuda_glue.h"

namespace sdk::detail {
namespace {

bool is_comparison(int op) { return op >= SDK_EQ && op <= SDK_GE; }
bool is_logical(int op) { return op >= SDK_LOGICAL_AND && op <= SDK_LOGICAL_XOR; }
// Integer ops that divide: integer division by zero is an error.
bool is_int_division(int op) {
  return op == SDK_FLOOR_DIVIDE || op == SDK_REMAINDER || op == SDK_FMOD || op == kDivTrunc;
}

struct BinaryTypes {
  sdk_dtype compute;
  sdk_dtype result;
};

// Compute and result dtypes of `op` on operands whose promoted dtype is `common`.
BinaryTypes binary_types(int op, sdk_dtype common) {
  const char* name = binary_name(op);
  if (is_float8(common)) {  // torch's 8-bit floats take eq and ne only; float32 holds them exactly
    SDK_TYPE_CHECK(op == SDK_EQ || op == SDK_NE, "\"", name, "\" not implemented for '",
                   dtype_name(common), "'");
    return {SDK_FLOAT32, SDK_BOOL};
  }
  if (is_complex(common)) {  // add, sub, mul, div, eq, ne only (elementwise_complex.cpp)
    SDK_TYPE_CHECK(complex_binary_op(op), name, ": unsupported dtype ", dtype_name(common));
    return {common, is_comparison(op) ? SDK_BOOL : common};
  }
  switch (op) {
    case SDK_ADD:
    case SDK_MUL:
    case SDK_MAXIMUM:
    case SDK_MINIMUM:
      return {common, common};
    case SDK_SUB:
      SDK_TYPE_CHECK(common != SDK_BOOL,
                     "sub: subtraction of bool tensors is not supported; use logical_xor");
      return {common, common};
    case SDK_DIV:
    case SDK_ATAN2:
    case SDK_HYPOT:
    case SDK_COPYSIGN:
    case SDK_LOGADDEXP:
    case SDK_XLOGY: {
      sdk_dtype c = is_floating(common) ? common : SDK_FLOAT32;
      return {c, c};
    }
    case SDK_POW: {
      sdk_dtype c = common == SDK_BOOL ? SDK_INT64 : common;
      return {c, c};
    }
    case SDK_FLOOR_DIVIDE:
    case SDK_REMAINDER:
    case SDK_FMOD:
    case kDivTrunc:
      SDK_TYPE_CHECK(common != SDK_BOOL, name, ": not supported for bool tensors");
      return {common, common};
    case SDK_BITWISE_AND:
    case SDK_BITWISE_OR:
    case SDK_BITWISE_XOR:
      SDK_TYPE_CHECK(!is_floating(common), name,
                     ": only integer and bool tensors are supported, got ", dtype_name(common));
      return {common, common};
    default:
      if (is_comparison(op)) return {common, SDK_BOOL};
      // Logical ops read each operand as bool (x != 0, NaN true), so one loop set serves every
      // input dtype: operands of another dtype are converted first.
      if (is_logical(op)) return {SDK_BOOL, SDK_BOOL};
      SDK_FAIL(SDK_ERROR_VALUE, "sdk_binary: unknown op code ", op);
  }
}

// The complex kernels are CPU only.
void check_complex_on_cpu(const char* op, sdk_dtype compute, const TensorImpl& t) {
  if (is_complex(compute) && cuda::is_cuda(t)) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, op, ": ", dtype_name(compute),
             " tensors are not implemented on CUDA; keep them on the CPU");
  }
}

// Run `op` with inputs of dtype `compute` (comparisons/logical: bool out); each family of
// ops is compiled in its own file (binary_kernels.h).
void binary_kernel(int op, sdk_dtype compute, const Launch& L) {
  if (binary_complex(op, compute, L) || binary_arith(op, compute, L) ||
      binary_compare(op, compute, L) || binary_division(op, compute, L) ||
      binary_float_math(op, compute, L)) {
    return;
  }
  SDK_FAIL(SDK_ERROR_TYPE, binary_name(op), ": unsupported dtype ", dtype_name(compute));
}

// True if any element of t is zero (integer division checks).
bool has_zero(const TensorImpl& t) {
  bool found = false;
  TensorIter it;
  it.build({&t}, "has_zero");
  SDK_DISPATCH_ALL(t.dtype, "has_zero", [&] {
    it.run_range(0, it.numel, [&](char** p, const int64_t* s, int64_t n) {
      const char* q = p[0];
      for (int64_t i = 0; i < n && !found; ++i, q += s[0])
        found = *reinterpret_cast<const scalar_t*>(q) == scalar_t(0);
    });
  });
  return found;
}

void check_int_division(int op, sdk_dtype compute, bool zero) {
  if (is_int_division(op) && !is_floating(compute) && zero) {
    SDK_FAIL(SDK_ERROR_RUNTIME, binary_name(op), ": integer division by zero");
  }
}

// out = op(a, b) for any op of the binary kernels (table codes and kDivTrunc).
void binary_tensors(int op, const TensorImpl& ta, const TensorImpl& tb, sdk_tensor* out,
                    sdk_tensor** result) {
  cuda::check_same_device(binary_name(op), {&ta, &tb});
  const sdk_dtype common = promote_operands(ta.dtype, ta.ndim == 0, tb.dtype, tb.ndim == 0);
  if (is_float8(common) && ta.dtype != tb.dtype) {
    // torch stores the other operand (a 0-dim tensor) as the 8-bit float before comparing.
    Ref a8 = cast_if_needed(ta, common), b8 = cast_if_needed(tb, common);
    return binary_tensors(op, *a8, *b8, out, result);
  }
  BinaryTypes ty = binary_types(op, common);
  check_complex_on_cpu(binary_name(op), ty.compute, ta);
  int64_t sz[kIterMaxDims];
  int64_t nd;
  if (same_shape(ta, tb)) {
    nd = ta.ndim;
    for (int64_t d = 0; d < nd; ++d) sz[d] = ta.sizes[d];
  } else {
    const TensorImpl* both[2] = {&ta, &tb};
    nd = broadcast_shapes(binary_name(op), 2, both, sz);
  }
  if (!is_floating(ty.compute) && is_int_division(op)) {
    check_int_division(op, ty.compute, cuda::is_cuda(tb) ? cuda::has_zero(tb) : has_zero(tb));
  }
  OutPlan plan;
  plan.prepare(binary_name(op), out, nd, sz, ty.result, {&ta, &tb});
  Ref ha, hb;
  const TensorImpl* ia = &ta;
  const TensorImpl* ib = &tb;
  if (ia->dtype != ty.compute) ia = (ha = contiguous_copy(ta, ty.compute)).get();
  if (ib->dtype != ty.compute) ib = (hb = contiguous_copy(tb, ty.compute)).get();
  ia = plan.fix_alias(ia, ha);
  ib = plan.fix_alias(ib, hb);
  TensorImpl& o = *plan.target;
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::binary(op, o, *ia, *ib);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ia, ib}, it, binary_name(op));
    binary_kernel(op, ty.compute, L);
  }
  plan.finish(result);
}

sdk_scalar float_scalar(double v) {
  sdk_scalar s{};
  s.f = v;
  s.kind = SDK_SCALAR_FLOAT;
  return s;
}

// out = op(a, s), or op(s, a) when scalar_first.
void binary_with_scalar(int op, const TensorImpl& ta, const sdk_scalar& s_in, bool scalar_first,
                        sdk_tensor* out, sdk_tensor** result) {
  check_scalar(s_in, binary_name(op), "scalar");
  // torch: a Python scalar lifts the category (int -> float) but never the width.
  const sdk_dtype common = promote_with_scalar(ta.dtype, s_in.kind);
  BinaryTypes ty = binary_types(op, common);
  check_complex_on_cpu(binary_name(op), ty.compute, ta);
  // torch stores the scalar as the 8-bit float before comparing.
  const sdk_scalar s =
      is_float8(common) ? float_scalar(round_to_float8(common, scalar_as<double>(s_in))) : s_in;
  bool int_compute = !is_floating(ty.compute);
  if (int_compute && is_int_division(op)) {
    check_int_division(op, ty.compute,
                       scalar_first ? (cuda::is_cuda(ta) ? cuda::has_zero(ta) : has_zero(ta))
                                    : scalar_as<int64_t>(s) == 0);
  }
  if (int_compute && op == SDK_POW && !scalar_first && scalar_as<int64_t>(s) < 0) {
    SDK_FAIL(SDK_ERROR_VALUE, "pow: integers to negative integer powers are not allowed");
  }
  OutPlan plan;
  plan.prepare(binary_name(op), out, ta.ndim, ta.sizes, ty.result, {&ta});
  Ref ha;
  const TensorImpl* ia = &ta;
  if (ia->dtype != ty.compute) ia = (ha = contiguous_copy(ta, ty.compute)).get();
  ia = plan.fix_alias(ia, ha);
  alignas(16) char buf[16];
  if (is_complex(ty.compute)) {
    store_complex_scalar(ty.compute, s, buf);
  } else {
    SDK_DISPATCH_ALL(ty.compute, binary_name(op),
                     [&] { *reinterpret_cast<scalar_t*>(buf) = scalar_as<scalar_t>(s); });
  }
  TensorImpl& o = *plan.target;
  if (op == SDK_POW && !scalar_first && o.numel > 0 && !cuda::is_cuda(o) &&
      pow_special_exponent(scalar_as<double>(s))) {
    TensorIter it;
    Launch L = make_launch(o, {ia}, it, "pow");
    bool done = pow_scalar(ty.compute, L, scalar_as<double>(s));
    if (done) {
      plan.finish(result);
      return;
    }
  }
  if (o.numel > 0 && cuda::is_cuda(o)) {
    cuda::binary_scalar(op, o, *ia, s, ty.compute, scalar_first);
  } else if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ia}, it, binary_name(op));
    insert_constant(L, scalar_first ? 1 : 2, buf);
    binary_kernel(op, ty.compute, L);
  }
  plan.finish(result);
}

// The binary op of a rounding mode (sdk_rounding_mode).
int rounding_op(int32_t mode) {
  switch (mode) {
    case SDK_ROUNDING_NONE:
      return SDK_DIV;
    case SDK_ROUNDING_TRUNC:
      return kDivTrunc;
    case SDK_ROUNDING_FLOOR:
      return SDK_FLOOR_DIVIDE;
    default:
      SDK_FAIL(SDK_ERROR_VALUE, "div: unknown rounding mode code ", mode,
               " (expected 0 for None, 1 for 'trunc', 2 for 'floor')");
  }
}

}  // namespace

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_binary(int32_t op, const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_binary", "a");
  const TensorImpl& tb = checked(b, "sdk_binary", "b");
  if (!out) check_not_null(result, "sdk_binary", "result");
  if (op < 0 || op >= kBinaryOps) SDK_FAIL(SDK_ERROR_VALUE, "sdk_binary: unknown op code ", op);
  binary_tensors(op, ta, tb, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_binary_scalar(int32_t op, const sdk_tensor* a, sdk_scalar s,
                                     int32_t scalar_first, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_binary_scalar", "a");
  if (!out) check_not_null(result, "sdk_binary_scalar", "result");
  if (op < 0 || op >= kBinaryOps) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_binary_scalar: unknown op code ", op);
  }
  binary_with_scalar(op, ta, s, scalar_first != 0, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_div_rounding(const sdk_tensor* a, const sdk_tensor* b, int32_t rounding_mode,
                                    sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_div_rounding", "a");
  const TensorImpl& tb = checked(b, "sdk_div_rounding", "b");
  if (!out) check_not_null(result, "sdk_div_rounding", "result");
  binary_tensors(rounding_op(rounding_mode), ta, tb, out, result);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_div_rounding_scalar(const sdk_tensor* a, sdk_scalar s, int32_t scalar_first,
                                           int32_t rounding_mode, sdk_tensor* out,
                                           sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_div_rounding_scalar", "a");
  if (!out) check_not_null(result, "sdk_div_rounding_scalar", "result");
  binary_with_scalar(rounding_op(rounding_mode), ta, s, scalar_first != 0, out, result);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
