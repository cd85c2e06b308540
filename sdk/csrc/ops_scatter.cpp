// sdk/csrc/ops_scatter.cpp: raw ops for scatters (scatter_add_, index_add_, scatter,
// scatter_reduce, index_copy, index_fill, masked_select, masked_scatter, take).
// The public functions in sdk/_ops_scatter.py normalize their arguments first.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// scatter_add_(t, dim, index, src) / index_add_(t, dim, index, src) -> t
using AccFn = sdk_status (*)(sdk_tensor*, int64_t, const sdk_tensor*, const sdk_tensor*);
PyObject* accop(PyObject* const* args, Py_ssize_t nargs, const char* op, AccFn fn) {
  sdk_tensor *t, *i, *s;
  int64_t d;
  if (!check_nargs(op, nargs, 4, 4) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &i) ||
      !tensor_arg(args[3], op, op[0] == 's' ? "src" : "source", &s))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(s), st = fn(t, d, i, s));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}
SDK_PY_FASTCALL(o_scatter_add_) { return accop(args, nargs, "scatter_add_", sdk_scatter_add_); }
SDK_PY_FASTCALL(o_index_add_) { return accop(args, nargs, "index_add_", sdk_index_add_); }

// scatter(t, dim, index, src or value, out=None)
SDK_PY_FASTCALL(o_scatter) {
  sdk_tensor *t, *idx, *out, *src = nullptr, *r = nullptr;
  int64_t d;
  sdk_scalar value{};
  if (!check_nargs("scatter", nargs, 4, 5) || !tensor_arg(args[0], "scatter", "input", &t) ||
      !int_arg(args[1], "scatter", "dim", &d) || !tensor_arg(args[2], "scatter", "index", &idx) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 4), "scatter", "out", &out))
    return nullptr;
  if (is_tensor(args[3])) {
    if (!tensor_arg(args[3], "scatter", "src", &src)) return nullptr;
  } else if (!scalar_arg(args[3], "scatter", "value", &value)) {
    return nullptr;
  }
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(idx), st = src ? sdk_scatter(t, d, idx, src, out, &r)
                                                 : sdk_scatter_value(t, d, idx, value, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 4));
}

// scatter_reduce(t, dim, index, src, reduce code, include_self, out=None)
SDK_PY_FASTCALL(o_scatter_reduce) {
  const char* op = "scatter_reduce";
  sdk_tensor *t, *idx, *src, *out, *r = nullptr;
  int64_t d, reduce;
  int32_t self;
  if (!check_nargs(op, nargs, 6, 7) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &idx) ||
      !tensor_arg(args[3], op, "src", &src) || !int_arg(args[4], op, "reduce", &reduce) ||
      !bool_arg(args[5], op, "include_self", &self) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 6), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(idx) + numel(t),
      st = sdk_scatter_reduce(t, d, idx, src, static_cast<int32_t>(reduce), self, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 6));
}

// index_copy(t, dim, index, source, out=None)
SDK_PY_FASTCALL(o_index_copy) {
  const char* op = "index_copy";
  sdk_tensor *t, *idx, *src, *out, *r = nullptr;
  int64_t d;
  if (!check_nargs(op, nargs, 4, 5) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &idx) ||
      !tensor_arg(args[3], op, "source", &src) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 4), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(src), st = sdk_index_copy(t, d, idx, src, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 4));
}

// index_fill(t, dim, index, value, out=None)
SDK_PY_FASTCALL(o_index_fill) {
  const char* op = "index_fill";
  sdk_tensor *t, *idx, *out, *r = nullptr;
  int64_t d;
  sdk_scalar value;
  if (!check_nargs(op, nargs, 4, 5) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &idx) ||
      !scalar_arg(args[3], op, "value", &value) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 4), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_index_fill(t, d, idx, value, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 4));
}

SDK_PY_FASTCALL(o_masked_select) {
  sdk_tensor *t, *mask, *r = nullptr;
  if (!check_nargs("masked_select", nargs, 2, 2) ||
      !tensor_arg(args[0], "masked_select", "input", &t) ||
      !tensor_arg(args[1], "masked_select", "mask", &mask))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_masked_select(t, mask, &r));
  return finish(st, &r, nullptr);
}

// masked_scatter(t, mask, source, out=None)
SDK_PY_FASTCALL(o_masked_scatter) {
  const char* op = "masked_scatter";
  sdk_tensor *t, *mask, *src, *out, *r = nullptr;
  if (!check_nargs(op, nargs, 3, 4) || !tensor_arg(args[0], op, "input", &t) ||
      !tensor_arg(args[1], op, "mask", &mask) || !tensor_arg(args[2], op, "source", &src) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_masked_scatter(t, mask, src, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}

SDK_PY_FASTCALL(o_take) {
  sdk_tensor *t, *idx, *r = nullptr;
  if (!check_nargs("take", nargs, 2, 2) || !tensor_arg(args[0], "take", "input", &t) ||
      !tensor_arg(args[1], "take", "index", &idx))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(idx), st = sdk_take(t, idx, &r));
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_scatter_methods[] = {
    SDK_PY_FASTCALL_METHOD("scatter_add_", o_scatter_add_, "scatter_add_(input, dim, index, src)"),
    SDK_PY_FASTCALL_METHOD("index_add_", o_index_add_, "index_add_(input, dim, index, source)"),
    SDK_PY_FASTCALL_METHOD("scatter", o_scatter,
                           "scatter(input, dim, index, src_or_value, out=None)"),
    SDK_PY_FASTCALL_METHOD(
        "scatter_reduce", o_scatter_reduce,
        "scatter_reduce(input, dim, index, src, reduce_code, include_self, out=None)"),
    SDK_PY_FASTCALL_METHOD("index_copy", o_index_copy,
                           "index_copy(input, dim, index, source, out=None)"),
    SDK_PY_FASTCALL_METHOD("index_fill", o_index_fill,
                           "index_fill(input, dim, index, value, out=None)"),
    SDK_PY_FASTCALL_METHOD("masked_select", o_masked_select, "masked_select(input, mask)"),
    SDK_PY_FASTCALL_METHOD("masked_scatter", o_masked_scatter,
                           "masked_scatter(input, mask, source, out=None)"),
    SDK_PY_FASTCALL_METHOD("take", o_take, "take(input, index)"),
    {nullptr, nullptr, 0, nullptr}};
