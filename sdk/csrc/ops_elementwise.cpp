// sdk/csrc/ops_elementwise.cpp: raw elementwise ops of sdk._C (no autograd).
// The C ABI's op tables (unary, binary), ops with parameters (add_scaled, elu, clamp,
// softplus, ...), where, masked_fill, dtype conversion, fill_/copy_, div with a rounding mode,
// ternary ops, isclose.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- the op tables, ops with parameters, where, conversions ------------------------------

// unary(op, input, out=None)
SDK_PY_FASTCALL(o_unary) {
  int64_t op;
  if (!check_nargs("unary", nargs, 2, 3) || !int_arg(args[0], "unary", "op", &op)) return nullptr;
  const char* name = name_of(kUnaryNames, op, "unary");
  sdk_tensor *x, *out, *r = nullptr;
  if (!tensor_arg(args[1], name, "input", &x) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 2), name, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_unary(static_cast<int32_t>(op), x, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 2));
}

// binary(op, a, b, out=None): a or b (not both) may be a Python number.
SDK_PY_FASTCALL(o_binary) {
  int64_t op;
  if (!check_nargs("binary", nargs, 3, 4) || !int_arg(args[0], "binary", "op", &op)) return nullptr;
  const char* name = name_of(kBinaryNames, op, "binary");
  sdk_tensor *out, *r = nullptr;
  if (!opt_tensor_arg(arg_or_none(args, nargs, 3), name, "out", &out)) return nullptr;
  PyObject *a = args[1], *b = args[2];
  sdk_status st;
  if (is_tensor(a) && is_tensor(b)) {
    sdk_tensor *ha, *hb;
    if (!tensor_arg(a, name, "input", &ha) || !tensor_arg(b, name, "other", &hb)) return nullptr;
    SDK_PY_RUN_NOGIL_IF_LARGE(numel(ha) + numel(hb),
                              st = sdk_binary(static_cast<int32_t>(op), ha, hb, out, &r));
  } else {
    bool first = !is_tensor(a);
    sdk_tensor* h;
    sdk_scalar s;
    if (!tensor_arg(first ? b : a, name, first ? "other" : "input", &h) ||
        !scalar_arg(first ? a : b, name, first ? "input" : "other", &s))
      return nullptr;
    SDK_PY_RUN_NOGIL_IF_LARGE(
        numel(h), st = sdk_binary_scalar(static_cast<int32_t>(op), h, s, first, out, &r));
  }
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// add_scaled(a, b, alpha, out=None): a + alpha * b
SDK_PY_FASTCALL(o_add_scaled) {
  sdk_tensor *a, *b, *out, *r = nullptr;
  sdk_scalar alpha;
  if (!check_nargs("add", nargs, 3, 4) || !tensor_arg(args[0], "add", "input", &a) ||
      !tensor_arg(args[1], "add", "other", &b) || !scalar_arg(args[2], "add", "alpha", &alpha) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "add", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(a) + numel(b), st = sdk_add_scaled(a, b, alpha, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// elu(x, alpha, out=None)
SDK_PY_FASTCALL(o_elu) {
  sdk_tensor *x, *out, *r = nullptr;
  double alpha;
  if (!check_nargs("elu", nargs, 2, 3) || !tensor_arg(args[0], "elu", "input", &x) ||
      !double_arg(args[1], "elu", "alpha", &alpha) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 2), "elu", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_elu(x, alpha, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 2));
}

// clamp(x, min, max, out=None): min/max are numbers or None
SDK_PY_FASTCALL(o_clamp) {
  sdk_tensor *x, *out, *r = nullptr;
  sdk_scalar lo, hi;
  if (!check_nargs("clamp", nargs, 3, 4) || !tensor_arg(args[0], "clamp", "input", &x) ||
      !opt_scalar_arg(args[1], "clamp", "min", &lo) ||
      !opt_scalar_arg(args[2], "clamp", "max", &hi) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "clamp", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_clamp(x, lo, hi, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// where(cond, a, b, out=None): all tensors
SDK_PY_FASTCALL(o_where) {
  sdk_tensor *c, *a, *b, *out, *r = nullptr;
  if (!check_nargs("where", nargs, 3, 4) || !tensor_arg(args[0], "where", "condition", &c) ||
      !tensor_arg(args[1], "where", "input", &a) || !tensor_arg(args[2], "where", "other", &b) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "where", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(c) + numel(a) + numel(b), st = sdk_where(c, a, b, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// masked_fill(t, mask, value, out=None)
SDK_PY_FASTCALL(o_masked_fill) {
  sdk_tensor *t, *m, *out, *r = nullptr;
  sdk_scalar v;
  if (!check_nargs("masked_fill", nargs, 3, 4) ||
      !tensor_arg(args[0], "masked_fill", "input", &t) ||
      !tensor_arg(args[1], "masked_fill", "mask", &m) ||
      !scalar_arg(args[2], "masked_fill", "value", &v) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "masked_fill", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t) + numel(m), st = sdk_masked_fill(t, m, v, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// to_dtype(t, dtype, copy)
SDK_PY_FASTCALL(o_to_dtype) {
  sdk_tensor *t, *r = nullptr;
  sdk_dtype dt;
  int32_t copy = 0;
  if (!check_nargs("to", nargs, 2, 3) || !tensor_arg(args[0], "to", "input", &t) ||
      !dtype_arg(args[1], "to", "dtype", &dt) ||
      (nargs > 2 && !bool_arg(args[2], "to", "copy", &copy)))
    return nullptr;
  if (dt < 0) {
    PyErr_SetString(PyExc_TypeError, "to(): dtype must not be None");
    return nullptr;
  }
  if (!copy && sdk_tensor_dtype(t) == dt) {
    Py_INCREF(args[0]);  // same object, like torch's x.to(x.dtype)
    return args[0];
  }
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_to_dtype(t, dt, copy, &r));
  return finish(st, &r, nullptr);
}

// fill_(t, value) -> t
SDK_PY_FASTCALL(o_fill_) {
  sdk_tensor* t;
  sdk_scalar v;
  if (!check_nargs("fill_", nargs, 2, 2) || !tensor_arg(args[0], "fill_", "input", &t) ||
      !scalar_arg(args[1], "fill_", "value", &v))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_fill_(t, v));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

// copy_(dst, src) -> dst
SDK_PY_FASTCALL(o_copy_) {
  sdk_tensor *d, *s;
  if (!check_nargs("copy_", nargs, 2, 2) || !tensor_arg(args[0], "copy_", "input", &d) ||
      !tensor_arg(args[1], "copy_", "src", &s))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(d), st = sdk_copy_(d, s));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

// ---- div with a rounding mode, ops with parameters, ternary ops -------------------------------

// div_rounding(a, b, mode, out=None): a or b (not both) may be a Python number.
SDK_PY_FASTCALL(o_div_rounding) {
  sdk_tensor *out, *r = nullptr;
  int64_t mode;
  if (!check_nargs("div", nargs, 3, 4) || !int_arg(args[2], "div", "rounding_mode", &mode) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "div", "out", &out))
    return nullptr;
  PyObject *a = args[0], *b = args[1];
  sdk_status st;
  int32_t m = static_cast<int32_t>(mode);
  if (is_tensor(a) && is_tensor(b)) {
    sdk_tensor *ha, *hb;
    if (!tensor_arg(a, "div", "input", &ha) || !tensor_arg(b, "div", "other", &hb)) return nullptr;
    SDK_PY_RUN_NOGIL_IF_LARGE(numel(ha) + numel(hb), st = sdk_div_rounding(ha, hb, m, out, &r));
  } else {
    bool first = !is_tensor(a);
    sdk_tensor* h;
    sdk_scalar s;
    if (!tensor_arg(first ? b : a, "div", first ? "other" : "input", &h) ||
        !scalar_arg(first ? a : b, "div", first ? "input" : "other", &s))
      return nullptr;
    SDK_PY_RUN_NOGIL_IF_LARGE(numel(h), st = sdk_div_rounding_scalar(h, s, first, m, out, &r));
  }
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// softplus(x, beta, threshold, out=None)
SDK_PY_FASTCALL(o_softplus) {
  sdk_tensor *x, *out, *r = nullptr;
  double beta, threshold;
  if (!check_nargs("softplus", nargs, 3, 4) || !tensor_arg(args[0], "softplus", "input", &x) ||
      !double_arg(args[1], "softplus", "beta", &beta) ||
      !double_arg(args[2], "softplus", "threshold", &threshold) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "softplus", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_softplus(x, beta, threshold, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// leaky_relu(x, negative_slope, out=None)
SDK_PY_FASTCALL(o_leaky_relu) {
  sdk_tensor *x, *out, *r = nullptr;
  double slope;
  if (!check_nargs("leaky_relu", nargs, 2, 3) || !tensor_arg(args[0], "leaky_relu", "input", &x) ||
      !double_arg(args[1], "leaky_relu", "negative_slope", &slope) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 2), "leaky_relu", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_leaky_relu(x, slope, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 2));
}

// nan_to_num(x, nan, posinf, neginf, out=None): the replacements are numbers or None
SDK_PY_FASTCALL(o_nan_to_num) {
  sdk_tensor *x, *out, *r = nullptr;
  sdk_scalar n, p, m;
  if (!check_nargs("nan_to_num", nargs, 4, 5) || !tensor_arg(args[0], "nan_to_num", "input", &x) ||
      !opt_scalar_arg(args[1], "nan_to_num", "nan", &n) ||
      !opt_scalar_arg(args[2], "nan_to_num", "posinf", &p) ||
      !opt_scalar_arg(args[3], "nan_to_num", "neginf", &m) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 4), "nan_to_num", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_nan_to_num(x, n, p, m, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 4));
}

// clamp_tensor(x, min, max, out=None): min/max are tensors or None
SDK_PY_FASTCALL(o_clamp_tensor) {
  sdk_tensor *x, *lo, *hi, *out, *r = nullptr;
  if (!check_nargs("clamp", nargs, 3, 4) || !tensor_arg(args[0], "clamp", "input", &x) ||
      !opt_tensor_arg(args[1], "clamp", "min", &lo) ||
      !opt_tensor_arg(args[2], "clamp", "max", &hi) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "clamp", "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x) + numel(lo) + numel(hi),
                            st = sdk_clamp_tensor(x, lo, hi, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// lerp(input, end, weight, out=None): weight is a tensor or a number
SDK_PY_FASTCALL(o_lerp) {
  sdk_tensor *a, *b, *out, *r = nullptr;
  if (!check_nargs("lerp", nargs, 3, 4) || !tensor_arg(args[0], "lerp", "input", &a) ||
      !tensor_arg(args[1], "lerp", "end", &b) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), "lerp", "out", &out))
    return nullptr;
  sdk_status st;
  if (is_tensor(args[2])) {
    sdk_tensor* w;
    if (!tensor_arg(args[2], "lerp", "weight", &w)) return nullptr;
    SDK_PY_RUN_NOGIL_IF_LARGE(numel(a) + numel(b) + numel(w), st = sdk_lerp(a, b, w, out, &r));
  } else {
    sdk_scalar w;
    if (!scalar_arg(args[2], "lerp", "weight", &w)) return nullptr;
    SDK_PY_RUN_NOGIL_IF_LARGE(numel(a) + numel(b), st = sdk_lerp_scalar(a, b, w, out, &r));
  }
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

// addcmul / addcdiv (input, tensor1, tensor2, value, out=None)
PyObject* addc(bool div, PyObject* const* args, Py_ssize_t nargs) {
  const char* op = div ? "addcdiv" : "addcmul";
  sdk_tensor *a, *t1, *t2, *out, *r = nullptr;
  sdk_scalar v;
  if (!check_nargs(op, nargs, 4, 5) || !tensor_arg(args[0], op, "input", &a) ||
      !tensor_arg(args[1], op, "tensor1", &t1) || !tensor_arg(args[2], op, "tensor2", &t2) ||
      !scalar_arg(args[3], op, "value", &v) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 4), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(a) + numel(t1) + numel(t2),
      st = div ? sdk_addcdiv(a, t1, t2, v, out, &r) : sdk_addcmul(a, t1, t2, v, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 4));
}
SDK_PY_FASTCALL(o_addcmul) { return addc(false, args, nargs); }
SDK_PY_FASTCALL(o_addcdiv) { return addc(true, args, nargs); }

// isclose(a, b, rtol, atol, equal_nan)
SDK_PY_FASTCALL(o_isclose) {
  sdk_tensor *a, *b, *r = nullptr;
  double rtol, atol;
  int32_t equal_nan;
  if (!check_nargs("isclose", nargs, 5, 5) || !tensor_arg(args[0], "isclose", "input", &a) ||
      !tensor_arg(args[1], "isclose", "other", &b) ||
      !double_arg(args[2], "isclose", "rtol", &rtol) ||
      !double_arg(args[3], "isclose", "atol", &atol) ||
      !bool_arg(args[4], "isclose", "equal_nan", &equal_nan))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(a) + numel(b), st = sdk_isclose(a, b, rtol, atol, equal_nan, &r));
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_elementwise_methods[] = {
    SDK_PY_FASTCALL_METHOD("unary", o_unary, "unary(op, input, out=None)"),
    SDK_PY_FASTCALL_METHOD("binary", o_binary,
                           "binary(op, a, b, out=None); a or b may be a number"),
    SDK_PY_FASTCALL_METHOD("add_scaled", o_add_scaled,
                           "add_scaled(a, b, alpha, out=None): a + alpha * b"),
    SDK_PY_FASTCALL_METHOD("elu", o_elu, "elu(input, alpha, out=None)"),
    SDK_PY_FASTCALL_METHOD("clamp", o_clamp, "clamp(input, min, max, out=None)"),
    SDK_PY_FASTCALL_METHOD("where", o_where, "where(condition, input, other, out=None)"),
    SDK_PY_FASTCALL_METHOD("masked_fill", o_masked_fill,
                           "masked_fill(input, mask, value, out=None)"),
    SDK_PY_FASTCALL_METHOD("to_dtype", o_to_dtype, "to_dtype(input, dtype, copy=False)"),
    SDK_PY_FASTCALL_METHOD("fill_", o_fill_, "fill_(input, value)"),
    SDK_PY_FASTCALL_METHOD("copy_", o_copy_, "copy_(dst, src)"),
    SDK_PY_FASTCALL_METHOD("div_rounding", o_div_rounding,
                           "div_rounding(a, b, mode, out=None); a or b may be a number"),
    SDK_PY_FASTCALL_METHOD("softplus", o_softplus, "softplus(input, beta, threshold, out=None)"),
    SDK_PY_FASTCALL_METHOD("leaky_relu", o_leaky_relu,
                           "leaky_relu(input, negative_slope, out=None)"),
    SDK_PY_FASTCALL_METHOD("nan_to_num", o_nan_to_num,
                           "nan_to_num(input, nan, posinf, neginf, out=None)"),
    SDK_PY_FASTCALL_METHOD("clamp_tensor", o_clamp_tensor,
                           "clamp_tensor(input, min, max, out=None)"),
    SDK_PY_FASTCALL_METHOD("lerp", o_lerp,
                           "lerp(input, end, weight, out=None); weight a tensor or a number"),
    SDK_PY_FASTCALL_METHOD("addcmul", o_addcmul,
                           "addcmul(input, tensor1, tensor2, value, out=None)"),
    SDK_PY_FASTCALL_METHOD("addcdiv", o_addcdiv,
                           "addcdiv(input, tensor1, tensor2, value, out=None)"),
    SDK_PY_FASTCALL_METHOD("isclose", o_isclose, "isclose(input, other, rtol, atol, equal_nan)"),
    {nullptr, nullptr, 0, nullptr}};
