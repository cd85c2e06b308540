// sdk/csrc/ops_scan.cpp: raw ops for scans (cumsum, cumprod, cummax, cummin).
// The public functions in sdk/_ops_scan.py normalize their arguments first.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// cumsum / cumprod (x, dim, dtype, out=None)
using ScanFn = sdk_status (*)(const sdk_tensor*, int64_t, sdk_dtype, sdk_tensor*, sdk_tensor**);
PyObject* scan(PyObject* const* args, Py_ssize_t nargs, const char* op, ScanFn fn) {
  sdk_tensor *x, *out, *r = nullptr;
  int64_t d;
  sdk_dtype dt;
  if (!check_nargs(op, nargs, 3, 4) || !tensor_arg(args[0], op, "input", &x) ||
      !int_arg(args[1], op, "dim", &d) || !dtype_arg(args[2], op, "dtype", &dt) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = fn(x, d, dt, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}
SDK_PY_FASTCALL(o_cumsum) { return scan(args, nargs, "cumsum", sdk_cumsum); }
SDK_PY_FASTCALL(o_cumprod) { return scan(args, nargs, "cumprod", sdk_cumprod); }

// cummax / cummin (x, dim) -> (values, indices)
using CumFn = sdk_status (*)(const sdk_tensor*, int64_t, sdk_tensor**, sdk_tensor**);
PyObject* cum_extremum(PyObject* const* args, Py_ssize_t nargs, const char* op, CumFn fn) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  if (!check_nargs(op, nargs, 2, 2) || !tensor_arg(args[0], op, "input", &x) ||
      !int_arg(args[1], op, "dim", &d))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = fn(x, d, &v, &i));
  return result_pair(st, v, i);
}
SDK_PY_FASTCALL(o_cummax) { return cum_extremum(args, nargs, "cummax", sdk_cummax); }
SDK_PY_FASTCALL(o_cummin) { return cum_extremum(args, nargs, "cummin", sdk_cummin); }

}  // namespace

PyMethodDef sdkpy::ops_scan_methods[] = {
    SDK_PY_FASTCALL_METHOD("cumsum", o_cumsum, "cumsum(input, dim, dtype, out=None)"),
    SDK_PY_FASTCALL_METHOD("cumprod", o_cumprod, "cumprod(input, dim, dtype, out=None)"),
    SDK_PY_FASTCALL_METHOD("cummax", o_cummax, "cummax(input, dim) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("cummin", o_cummin, "cummin(input, dim) -> (values, indices)"),
    {nullptr, nullptr, 0, nullptr}};
