// sdk/_C/ops_elementwise.cpp: raw ops of sdk._C for the elementwise entries beyond the op
// tables: div with a rounding mode, ops with parameters, ternary ops, isclose (no autograd).
#include "ops_util.h"

using namespace sdkpy;

namespace {

// div_rounding(a, b, mode, out=None): a or b (not both) may be a Python number.
FAST(o_div_rounding) {
  sdk_tensor *out, *r = nullptr;
  int64_t mode;
  if (!check_nargs("div", nargs, 3, 4) || !int_arg(args[2], "div", "rounding_mode", &mode) ||
      !opt_tensor_arg(ARG(3), "div", "out", &out))
    return nullptr;
  PyObject *a = args[0], *b = args[1];
  sdk_status st;
  int32_t m = static_cast<int32_t>(mode);
  if (is_tensor(a) && is_tensor(b)) {
    sdk_tensor *ha, *hb;
    if (!tensor_arg(a, "div", "input", &ha) || !tensor_arg(b, "div", "other", &hb)) return nullptr;
    CALL(numel(ha) + numel(hb), st = sdk_div_rounding(ha, hb, m, out, &r));
  } else {
    bool first = !is_tensor(a);
    sdk_tensor* h;
    sdk_scalar s;
    if (!tensor_arg(first ? b : a, "div", first ? "other" : "input", &h) ||
        !scalar_arg(first ? a : b, "div", first ? "input" : "other", &s))
      return nullptr;
    CALL(numel(h), st = sdk_div_rounding_scalar(h, s, first, m, out, &r));
  }
  return finish(st, &r, ARG(3));
}

// softplus(x, beta, threshold, out=None)
FAST(o_softplus) {
  sdk_tensor *x, *out, *r = nullptr;
  double beta, threshold;
  if (!check_nargs("softplus", nargs, 3, 4) || !tensor_arg(args[0], "softplus", "input", &x) ||
      !double_arg(args[1], "softplus", "beta", &beta) ||
      !double_arg(args[2], "softplus", "threshold", &threshold) ||
      !opt_tensor_arg(ARG(3), "softplus", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_softplus(x, beta, threshold, out, &r));
  return finish(st, &r, ARG(3));
}

// leaky_relu(x, negative_slope, out=None)
FAST(o_leaky_relu) {
  sdk_tensor *x, *out, *r = nullptr;
  double slope;
  if (!check_nargs("leaky_relu", nargs, 2, 3) || !tensor_arg(args[0], "leaky_relu", "input", &x) ||
      !double_arg(args[1], "leaky_relu", "negative_slope", &slope) ||
      !opt_tensor_arg(ARG(2), "leaky_relu", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_leaky_relu(x, slope, out, &r));
  return finish(st, &r, ARG(2));
}

// nan_to_num(x, nan, posinf, neginf, out=None): the replacements are numbers or None
FAST(o_nan_to_num) {
  sdk_tensor *x, *out, *r = nullptr;
  sdk_scalar n, p, m;
  if (!check_nargs("nan_to_num", nargs, 4, 5) || !tensor_arg(args[0], "nan_to_num", "input", &x) ||
      !opt_scalar_arg(args[1], "nan_to_num", "nan", &n) ||
      !opt_scalar_arg(args[2], "nan_to_num", "posinf", &p) ||
      !opt_scalar_arg(args[3], "nan_to_num", "neginf", &m) ||
      !opt_tensor_arg(ARG(4), "nan_to_num", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_nan_to_num(x, n, p, m, out, &r));
  return finish(st, &r, ARG(4));
}

// clamp_tensor(x, min, max, out=None): min/max are tensors or None
FAST(o_clamp_tensor) {
  sdk_tensor *x, *lo, *hi, *out, *r = nullptr;
  if (!check_nargs("clamp", nargs, 3, 4) || !tensor_arg(args[0], "clamp", "input", &x) ||
      !opt_tensor_arg(args[1], "clamp", "min", &lo) ||
      !opt_tensor_arg(args[2], "clamp", "max", &hi) ||
      !opt_tensor_arg(ARG(3), "clamp", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x) + numel(lo) + numel(hi), st = sdk_clamp_tensor(x, lo, hi, out, &r));
  return finish(st, &r, ARG(3));
}

// lerp(input, end, weight, out=None): weight is a tensor or a number
FAST(o_lerp) {
  sdk_tensor *a, *b, *out, *r = nullptr;
  if (!check_nargs("lerp", nargs, 3, 4) || !tensor_arg(args[0], "lerp", "input", &a) ||
      !tensor_arg(args[1], "lerp", "end", &b) || !opt_tensor_arg(ARG(3), "lerp", "out", &out))
    return nullptr;
  sdk_status st;
  if (is_tensor(args[2])) {
    sdk_tensor* w;
    if (!tensor_arg(args[2], "lerp", "weight", &w)) return nullptr;
    CALL(numel(a) + numel(b) + numel(w), st = sdk_lerp(a, b, w, out, &r));
  } else {
    sdk_scalar w;
    if (!scalar_arg(args[2], "lerp", "weight", &w)) return nullptr;
    CALL(numel(a) + numel(b), st = sdk_lerp_scalar(a, b, w, out, &r));
  }
  return finish(st, &r, ARG(3));
}

// addcmul / addcdiv (input, tensor1, tensor2, value, out=None)
PyObject* addc(bool div, PyObject* const* args, Py_ssize_t nargs) {
  const char* op = div ? "addcdiv" : "addcmul";
  sdk_tensor *a, *t1, *t2, *out, *r = nullptr;
  sdk_scalar v;
  if (!check_nargs(op, nargs, 4, 5) || !tensor_arg(args[0], op, "input", &a) ||
      !tensor_arg(args[1], op, "tensor1", &t1) || !tensor_arg(args[2], op, "tensor2", &t2) ||
      !scalar_arg(args[3], op, "value", &v) || !opt_tensor_arg(ARG(4), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(a) + numel(t1) + numel(t2),
       st = div ? sdk_addcdiv(a, t1, t2, v, out, &r) : sdk_addcmul(a, t1, t2, v, out, &r));
  return finish(st, &r, ARG(4));
}
FAST(o_addcmul) { return addc(false, args, nargs); }
FAST(o_addcdiv) { return addc(true, args, nargs); }

// isclose(a, b, rtol, atol, equal_nan)
FAST(o_isclose) {
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
  CALL(numel(a) + numel(b), st = sdk_isclose(a, b, rtol, atol, equal_nan, &r));
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_elementwise_methods[] = {
    FM("div_rounding", o_div_rounding,
       "div_rounding(a, b, mode, out=None); a or b may be a number"),
    FM("softplus", o_softplus, "softplus(input, beta, threshold, out=None)"),
    FM("leaky_relu", o_leaky_relu, "leaky_relu(input, negative_slope, out=None)"),
    FM("nan_to_num", o_nan_to_num, "nan_to_num(input, nan, posinf, neginf, out=None)"),
    FM("clamp_tensor", o_clamp_tensor, "clamp_tensor(input, min, max, out=None)"),
    FM("lerp", o_lerp, "lerp(input, end, weight, out=None); weight a tensor or a number"),
    FM("addcmul", o_addcmul, "addcmul(input, tensor1, tensor2, value, out=None)"),
    FM("addcdiv", o_addcdiv, "addcdiv(input, tensor1, tensor2, value, out=None)"),
    FM("isclose", o_isclose, "isclose(input, other, rtol, atol, equal_nan)"),
    {nullptr, nullptr, 0, nullptr}};
