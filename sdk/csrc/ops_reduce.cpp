// sdk/csrc/ops_reduce.cpp: raw reduction ops of sdk._C, and softmax/log_softmax.
// The C ABI's reduce table, max/min along a dim, argmax/argmin, var/std.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- reductions --------------------------------------------------------------------------

bool opt_dims(PyObject* o, const char* op, std::vector<int64_t>* d, bool* all) {
  *all = o == Py_None;
  return *all || ints_arg(o, op, "dim", d, true);
}

// reduce(op, x, dims or None, keepdim, dtype, out=None)
SDK_PY_FASTCALL(o_reduce) {
  int64_t op;
  if (!check_nargs("reduce", nargs, 5, 6) || !int_arg(args[0], "reduce", "op", &op)) return nullptr;
  const char* name = name_of(kReduceNames, op, "reduce");
  sdk_tensor *x, *out, *r = nullptr;
  std::vector<int64_t> d;
  bool all;
  int32_t keep;
  sdk_dtype dt;
  if (!tensor_arg(args[1], name, "input", &x) || !opt_dims(args[2], name, &d, &all) ||
      !bool_arg(args[3], name, "keepdim", &keep) || !dtype_arg(args[4], name, "dtype", &dt) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 5), name, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(x), st = sdk_reduce(static_cast<int32_t>(op), x, static_cast<int64_t>(d.size()),
                                all ? nullptr : d.data(), keep, dt, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 5));
}

// max_dim(x, dim, keepdim, is_min) -> (values, indices)
SDK_PY_FASTCALL(o_extremum_dim) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t keep, is_min;
  if (!check_nargs("max", nargs, 4, 4) || !tensor_arg(args[0], "max", "input", &x) ||
      !int_arg(args[1], "max", "dim", &d) || !bool_arg(args[2], "max", "keepdim", &keep) ||
      !bool_arg(args[3], "max", "is_min", &is_min))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(x), st = is_min ? sdk_min_dim(x, d, keep, &v, &i) : sdk_max_dim(x, d, keep, &v, &i));
  if (st != SDK_OK) return raise_last_error();
  std::vector<sdk_tensor*> rs{v, i};
  return tuple_of(rs);
}

// arg_extremum(x, is_min, dim or None, keepdim)
SDK_PY_FASTCALL(o_arg_extremum) {
  sdk_tensor *x, *r = nullptr;
  int32_t is_min, keep;
  int64_t d = 0;
  if (!check_nargs("argmax", nargs, 4, 4) || !bool_arg(args[1], "argmax", "is_min", &is_min))
    return nullptr;
  const char* name = is_min ? "argmin" : "argmax";
  if (!tensor_arg(args[0], name, "input", &x) ||
      (args[2] != Py_None && !int_arg(args[2], name, "dim", &d)) ||
      !bool_arg(args[3], name, "keepdim", &keep))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x),
                            st = sdk_arg_extremum(x, is_min, args[2] != Py_None, d, keep, &r));
  return finish(st, &r, nullptr);
}

// var_std(x, dims or None, correction, keepdim, is_std)
SDK_PY_FASTCALL(o_var_std) {
  sdk_tensor *x, *r = nullptr;
  std::vector<int64_t> d;
  bool all;
  double corr;
  int32_t keep, is_std;
  if (!check_nargs("var", nargs, 5, 5) || !bool_arg(args[4], "var", "is_std", &is_std))
    return nullptr;
  const char* name = is_std ? "std" : "var";
  if (!tensor_arg(args[0], name, "input", &x) || !opt_dims(args[1], name, &d, &all) ||
      !double_arg(args[2], name, "correction", &corr) || !bool_arg(args[3], name, "keepdim", &keep))
    return nullptr;
  const int64_t* dp = all ? nullptr : d.data();
  int64_t nd = static_cast<int64_t>(d.size());
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = is_std ? sdk_std(x, nd, dp, corr, keep, &r)
                                                  : sdk_var(x, nd, dp, corr, keep, &r));
  return finish(st, &r, nullptr);
}

// softmax(x, dim, log)
SDK_PY_FASTCALL(o_softmax) {
  sdk_tensor *x, *r = nullptr;
  int64_t d;
  int32_t log;
  if (!check_nargs("softmax", nargs, 3, 3) || !bool_arg(args[2], "softmax", "log", &log))
    return nullptr;
  const char* name = log ? "log_softmax" : "softmax";
  if (!tensor_arg(args[0], name, "input", &x) || !int_arg(args[1], name, "dim", &d)) return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = log ? sdk_log_softmax(x, d, &r) : sdk_softmax(x, d, &r));
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_reduce_methods[] = {
    SDK_PY_FASTCALL_METHOD("reduce", o_reduce, "reduce(op, input, dims, keepdim, dtype, out=None)"),
    SDK_PY_FASTCALL_METHOD("extremum_dim", o_extremum_dim,
                           "extremum_dim(input, dim, keepdim, is_min) -> (v, i)"),
    SDK_PY_FASTCALL_METHOD("arg_extremum", o_arg_extremum,
                           "arg_extremum(input, is_min, dim, keepdim)"),
    SDK_PY_FASTCALL_METHOD("var_std", o_var_std,
                           "var_std(input, dims, correction, keepdim, is_std)"),
    SDK_PY_FASTCALL_METHOD("softmax", o_softmax, "softmax(input, dim, log)"),
    {nullptr, nullptr, 0, nullptr}};
