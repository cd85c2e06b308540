// sdk/csrc/ops_layout.cpp: raw ops for reordering (repeat_interleave, flip, roll, tril, triu,
// diagonal, unfold, resize_).
// The public functions in sdk/_ops_layout.py normalize their arguments first.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// repeat_interleave(t or None, repeats, dim or None)
SDK_PY_FASTCALL(o_repeat_interleave) {
  const char* op = "repeat_interleave";
  sdk_tensor *t = nullptr, *rep, *r = nullptr;
  int64_t d = 0;
  if (!check_nargs(op, nargs, 3, 3) ||
      (args[0] != Py_None && !tensor_arg(args[0], op, "input", &t)) ||
      !tensor_arg(args[1], op, "repeats", &rep) ||
      (args[2] != Py_None && !int_arg(args[2], op, "dim", &d)))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t),
                            st = sdk_repeat_interleave(t, rep, args[2] != Py_None, d, &r));
  return finish(st, &r, nullptr);
}

SDK_PY_FASTCALL(o_flip) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> dims;
  if (!check_nargs("flip", nargs, 2, 2) || !tensor_arg(args[0], "flip", "input", &t) ||
      !ints_arg(args[1], "flip", "dims", &dims, true))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t),
                            st = sdk_flip(t, static_cast<int64_t>(dims.size()), dims.data(), &r));
  return finish(st, &r, nullptr);
}

// roll(t, shifts, dims)
SDK_PY_FASTCALL(o_roll) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> shifts, dims;
  if (!check_nargs("roll", nargs, 3, 3) || !tensor_arg(args[0], "roll", "input", &t) ||
      !ints_arg(args[1], "roll", "shifts", &shifts, true, false) ||
      !ints_arg(args[2], "roll", "dims", &dims, true))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t),
                            st = sdk_roll(t, static_cast<int64_t>(shifts.size()), shifts.data(),
                                          static_cast<int64_t>(dims.size()), dims.data(), &r));
  return finish(st, &r, nullptr);
}

// tril / triu (t, diagonal, out=None)
using TriFn = sdk_status (*)(const sdk_tensor*, int64_t, sdk_tensor*, sdk_tensor**);
PyObject* triangle(PyObject* const* args, Py_ssize_t nargs, const char* op, TriFn fn) {
  sdk_tensor *t, *out, *r = nullptr;
  int64_t k;
  if (!check_nargs(op, nargs, 2, 3) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "diagonal", &k) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 2), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = fn(t, k, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 2));
}
SDK_PY_FASTCALL(o_tril) { return triangle(args, nargs, "tril", sdk_tril); }
SDK_PY_FASTCALL(o_triu) { return triangle(args, nargs, "triu", sdk_triu); }

// diagonal(t, offset, dim1, dim2)
SDK_PY_FASTCALL(o_diagonal) {
  sdk_tensor *t, *r = nullptr;
  int64_t off, d1, d2;
  if (!check_nargs("diagonal", nargs, 4, 4) || !tensor_arg(args[0], "diagonal", "input", &t) ||
      !int_arg(args[1], "diagonal", "offset", &off) || !int_arg(args[2], "diagonal", "dim1", &d1) ||
      !int_arg(args[3], "diagonal", "dim2", &d2))
    return nullptr;
  return finish(sdk_diagonal(t, off, d1, d2, &r), &r, nullptr);
}

// unfold(t, dimension, size, step)
SDK_PY_FASTCALL(o_unfold) {
  sdk_tensor *t, *r = nullptr;
  int64_t d, size, step;
  if (!check_nargs("unfold", nargs, 4, 4) || !tensor_arg(args[0], "unfold", "input", &t) ||
      !int_arg(args[1], "unfold", "dimension", &d) || !int_arg(args[2], "unfold", "size", &size) ||
      !int_arg(args[3], "unfold", "step", &step))
    return nullptr;
  return finish(sdk_unfold(t, d, size, step, &r), &r, nullptr);
}

// resize_(t, sizes) -> t
SDK_PY_FASTCALL(o_resize_) {
  sdk_tensor* t;
  std::vector<int64_t> sizes;
  if (!check_nargs("resize_", nargs, 2, 2) || !tensor_arg(args[0], "resize_", "input", &t) ||
      !ints_arg(args[1], "resize_", "size", &sizes, false))
    return nullptr;
  if (sdk_resize_(t, static_cast<int64_t>(sizes.size()), sizes.data()) != SDK_OK)
    return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

// as_strided_(t, sizes, strides, storage_offset) -> t: t takes that geometry in place
SDK_PY_FASTCALL(o_as_strided_) {
  sdk_tensor* t;
  std::vector<int64_t> sizes, strides;
  int64_t offset;
  if (!check_nargs("as_strided_", nargs, 4, 4) ||
      !tensor_arg(args[0], "as_strided_", "input", &t) ||
      !ints_arg(args[1], "as_strided_", "size", &sizes, false) ||
      !ints_arg(args[2], "as_strided_", "stride", &strides, false, false) ||
      !int_arg(args[3], "as_strided_", "storage_offset", &offset))
    return nullptr;
  if (sizes.size() != strides.size()) {
    PyErr_Format(PyExc_RuntimeError,
                 "as_strided_(): mismatch in length of strides and shape (%zd and %zd)",
                 static_cast<Py_ssize_t>(strides.size()), static_cast<Py_ssize_t>(sizes.size()));
    return nullptr;
  }
  if (sdk_as_strided_(t, static_cast<int64_t>(sizes.size()), sizes.data(), strides.data(),
                      offset) != SDK_OK)
    return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

}  // namespace

PyMethodDef sdkpy::ops_layout_methods[] = {
    SDK_PY_FASTCALL_METHOD("repeat_interleave", o_repeat_interleave,
                           "repeat_interleave(input or None, repeats, dim)"),
    SDK_PY_FASTCALL_METHOD("flip", o_flip, "flip(input, dims)"),
    SDK_PY_FASTCALL_METHOD("roll", o_roll, "roll(input, shifts, dims)"),
    SDK_PY_FASTCALL_METHOD("tril", o_tril, "tril(input, diagonal, out=None)"),
    SDK_PY_FASTCALL_METHOD("triu", o_triu, "triu(input, diagonal, out=None)"),
    SDK_PY_FASTCALL_METHOD("diagonal", o_diagonal, "diagonal(input, offset, dim1, dim2): a view"),
    SDK_PY_FASTCALL_METHOD("unfold", o_unfold, "unfold(input, dimension, size, step): a view"),
    SDK_PY_FASTCALL_METHOD("resize_", o_resize_, "resize_(input, size) -> input"),
    SDK_PY_FASTCALL_METHOD("as_strided_", o_as_strided_,
                           "as_strided_(input, size, stride, storage_offset) -> input"),
    {nullptr, nullptr, 0, nullptr}};
