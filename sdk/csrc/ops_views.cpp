// sdk/csrc/ops_views.cpp: raw ops that make views, and contiguous.
// view, view_dtype, view_as_real/complex, reshape, expand, as_strided, permute, transpose, slice,
// select, (un)squeeze, flatten, split, _alias.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- views --------------------------------------------------------------------------------

// view(t, sizes) / reshape(t, sizes) / expand(t, sizes)
using SizesFn = sdk_status (*)(const sdk_tensor*, int64_t, const int64_t*, sdk_tensor**);
PyObject* with_sizes(PyObject* const* args, Py_ssize_t nargs, const char* op, SizesFn fn) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> sz;
  if (!check_nargs(op, nargs, 2, 2) || !tensor_arg(args[0], op, "input", &t) ||
      !ints_arg(args[1], op, "size", &sz, true))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = fn(t, static_cast<int64_t>(sz.size()), sz.data(), &r));
  return finish(st, &r, nullptr);
}
SDK_PY_FASTCALL(o_view) { return with_sizes(args, nargs, "view", sdk_view); }
// view_dtype(t, dtype): the same memory read as another dtype of the same item size.
SDK_PY_FASTCALL(o_view_dtype) {
  sdk_tensor *t, *r = nullptr;
  sdk_dtype dt;
  if (!check_nargs("view", nargs, 2, 2) || !tensor_arg(args[0], "view", "input", &t) ||
      !dtype_arg(args[1], "view", "dtype", &dt))
    return nullptr;
  return finish(sdk_view_dtype(t, dt, &r), &r, nullptr);
}
// view_as_real(t) / view_as_complex(t): a complex tensor's parts as a last dim of 2, and back.
PyObject* one_tensor_view(PyObject* const* args, Py_ssize_t nargs, const char* op,
                          sdk_status (*fn)(const sdk_tensor*, sdk_tensor**)) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs(op, nargs, 1, 1) || !tensor_arg(args[0], op, "input", &t)) return nullptr;
  return finish(fn(t, &r), &r, nullptr);
}
SDK_PY_FASTCALL(o_view_as_real) {
  return one_tensor_view(args, nargs, "view_as_real", sdk_view_as_real);
}
SDK_PY_FASTCALL(o_view_as_complex) {
  return one_tensor_view(args, nargs, "view_as_complex", sdk_view_as_complex);
}
SDK_PY_FASTCALL(o_reshape) { return with_sizes(args, nargs, "reshape", sdk_reshape); }
SDK_PY_FASTCALL(o_expand) { return with_sizes(args, nargs, "expand", sdk_expand); }

// as_strided(t, sizes, strides, storage_offset)
SDK_PY_FASTCALL(o_as_strided) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> sz, st;
  int64_t off;
  if (!check_nargs("as_strided", nargs, 4, 4) || !tensor_arg(args[0], "as_strided", "input", &t) ||
      !ints_arg(args[1], "as_strided", "size", &sz, false) ||
      !ints_arg(args[2], "as_strided", "stride", &st, false, false) ||
      !int_arg(args[3], "as_strided", "storage_offset", &off))
    return nullptr;
  if (sz.size() != st.size()) {
    PyErr_Format(module_state.invalid_argument_error, "as_strided(): %zd sizes but %zd strides",
                 sz.size(), st.size());
    return nullptr;
  }
  return finish(sdk_as_strided(t, static_cast<int64_t>(sz.size()), sz.data(), st.data(), off, &r),
                &r, nullptr);
}

// permute(t, dims)
SDK_PY_FASTCALL(o_permute) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> d;
  if (!check_nargs("permute", nargs, 2, 2) || !tensor_arg(args[0], "permute", "input", &t) ||
      !ints_arg(args[1], "permute", "dims", &d, true))
    return nullptr;
  if (static_cast<int64_t>(d.size()) != sdk_tensor_ndim(t)) {
    PyErr_Format(module_state.invalid_argument_error,
                 "permute(sparse_coo): number of dimensions in the tensor input does not match "
                 "the length of the desired ordering of dimensions i.e. input.dim() = %lld is "
                 "not equal to len(dims) = %zd",
                 static_cast<long long>(sdk_tensor_ndim(t)), d.size());
    return nullptr;
  }
  return finish(sdk_permute(t, d.data(), &r), &r, nullptr);
}

// transpose(t, dim0, dim1)
SDK_PY_FASTCALL(o_transpose) {
  sdk_tensor *t, *r = nullptr;
  int64_t a, b;
  if (!check_nargs("transpose", nargs, 3, 3) || !tensor_arg(args[0], "transpose", "input", &t) ||
      !int_arg(args[1], "transpose", "dim0", &a) || !int_arg(args[2], "transpose", "dim1", &b))
    return nullptr;
  return finish(sdk_transpose(t, a, b, &r), &r, nullptr);
}

// slice(t, dim, start, end, step)
SDK_PY_FASTCALL(o_slice) {
  sdk_tensor *t, *r = nullptr;
  int64_t d, a, b, s;
  if (!check_nargs("slice", nargs, 5, 5) || !tensor_arg(args[0], "slice", "input", &t) ||
      !int_arg(args[1], "slice", "dim", &d) || !int_arg(args[2], "slice", "start", &a) ||
      !int_arg(args[3], "slice", "end", &b) || !int_arg(args[4], "slice", "step", &s))
    return nullptr;
  if (s <= 0) {
    PyErr_SetString(module_state.invalid_argument_error, "step must be greater than zero");
    return nullptr;
  }
  return finish(sdk_slice(t, d, a, b, s, &r), &r, nullptr);
}

// select(t, dim, index)
SDK_PY_FASTCALL(o_select) {
  sdk_tensor *t, *r = nullptr;
  int64_t d, i;
  if (!check_nargs("select", nargs, 3, 3) || !tensor_arg(args[0], "select", "input", &t) ||
      !int_arg(args[1], "select", "dim", &d) || !int_arg(args[2], "select", "index", &i))
    return nullptr;
  return finish(sdk_select(t, d, i, &r), &r, nullptr);
}

// unsqueeze(t, dim)
SDK_PY_FASTCALL(o_unsqueeze) {
  sdk_tensor *t, *r = nullptr;
  int64_t d;
  if (!check_nargs("unsqueeze", nargs, 2, 2) || !tensor_arg(args[0], "unsqueeze", "input", &t) ||
      !int_arg(args[1], "unsqueeze", "dim", &d))
    return nullptr;
  return finish(sdk_unsqueeze(t, d, &r), &r, nullptr);
}

// squeeze(t, dims or None)
SDK_PY_FASTCALL(o_squeeze) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> d;
  if (!check_nargs("squeeze", nargs, 1, 2) || !tensor_arg(args[0], "squeeze", "input", &t))
    return nullptr;
  bool all = arg_or_none(args, nargs, 1) == Py_None;
  if (!all && !ints_arg(args[1], "squeeze", "dim", &d, true)) return nullptr;
  // dims NULL means "all size-1 dims": an empty list must stay a (non-NULL) empty list.
  static const int64_t kNoDims[1] = {0};
  const int64_t* dims = all ? nullptr : d.empty() ? kNoDims : d.data();
  return finish(sdk_squeeze(t, static_cast<int64_t>(d.size()), dims, &r), &r, nullptr);
}

// flatten(t, start_dim, end_dim)
SDK_PY_FASTCALL(o_flatten) {
  sdk_tensor *t, *r = nullptr;
  int64_t a, b;
  if (!check_nargs("flatten", nargs, 3, 3) || !tensor_arg(args[0], "flatten", "input", &t) ||
      !int_arg(args[1], "flatten", "start_dim", &a) || !int_arg(args[2], "flatten", "end_dim", &b))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_flatten(t, a, b, &r));
  return finish(st, &r, nullptr);
}

// contiguous(t): the same object when already contiguous
SDK_PY_FASTCALL(o_contiguous) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("contiguous", nargs, 1, 1) || !tensor_arg(args[0], "contiguous", "input", &t))
    return nullptr;
  if (sdk_tensor_is_contiguous(t)) {
    Py_INCREF(args[0]);
    return args[0];
  }
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_contiguous(t, &r));
  return finish(st, &r, nullptr);
}

// split_with_sizes(t, sizes, dim) -> tuple
SDK_PY_FASTCALL(o_split_with_sizes) {
  sdk_tensor* t;
  std::vector<int64_t> sz;
  int64_t d;
  if (!check_nargs("split", nargs, 3, 3) || !tensor_arg(args[0], "split", "tensor", &t) ||
      !ints_arg(args[1], "split", "split_size_or_sections", &sz, false, false) ||
      !int_arg(args[2], "split", "dim", &d))
    return nullptr;
  std::vector<sdk_tensor*> rs(sz.size(), nullptr);
  if (sdk_split_with_sizes(t, static_cast<int64_t>(sz.size()), sz.data(), d, rs.data()) != SDK_OK)
    return raise_last_error();
  return tuple_of(rs);
}

// _alias(t): a new tensor on a new view of t's data (shares storage and version counter),
// without autograd state: detach() and the graph's saved values. A view of its own, not t's
// handle: autograd state crosses into compiled code per view (autograd.cpp).
SDK_PY_FASTCALL(o_alias) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("_alias", nargs, 1, 1) || !tensor_arg(args[0], "detach", "input", &t))
    return nullptr;
  sdk_status st = sdk_as_strided(t, sdk_tensor_ndim(t), sdk_tensor_sizes(t), sdk_tensor_strides(t),
                                 sdk_tensor_storage_offset(t), &r);
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_views_methods[] = {
    SDK_PY_FASTCALL_METHOD("view", o_view, "view(input, size)"),
    SDK_PY_FASTCALL_METHOD("view_dtype", o_view_dtype, "view_dtype(input, dtype)"),
    SDK_PY_FASTCALL_METHOD("view_as_real", o_view_as_real, "view_as_real(input)"),
    SDK_PY_FASTCALL_METHOD("view_as_complex", o_view_as_complex, "view_as_complex(input)"),
    SDK_PY_FASTCALL_METHOD("reshape", o_reshape, "reshape(input, size)"),
    SDK_PY_FASTCALL_METHOD("expand", o_expand, "expand(input, size)"),
    SDK_PY_FASTCALL_METHOD("as_strided", o_as_strided,
                           "as_strided(input, size, stride, storage_offset)"),
    SDK_PY_FASTCALL_METHOD("permute", o_permute, "permute(input, dims)"),
    SDK_PY_FASTCALL_METHOD("transpose", o_transpose, "transpose(input, dim0, dim1)"),
    SDK_PY_FASTCALL_METHOD("slice", o_slice, "slice(input, dim, start, end, step)"),
    SDK_PY_FASTCALL_METHOD("select", o_select, "select(input, dim, index)"),
    SDK_PY_FASTCALL_METHOD("unsqueeze", o_unsqueeze, "unsqueeze(input, dim)"),
    SDK_PY_FASTCALL_METHOD("squeeze", o_squeeze, "squeeze(input, dims=None)"),
    SDK_PY_FASTCALL_METHOD("flatten", o_flatten, "flatten(input, start_dim, end_dim)"),
    SDK_PY_FASTCALL_METHOD("contiguous", o_contiguous, "contiguous(input)"),
    SDK_PY_FASTCALL_METHOD("split_with_sizes", o_split_with_sizes,
                           "split_with_sizes(input, sizes, dim) -> tuple"),
    SDK_PY_FASTCALL_METHOD("_alias", o_alias,
                           "_alias(t): same storage, new object, no autograd state"),
    {nullptr, nullptr, 0, nullptr}};
