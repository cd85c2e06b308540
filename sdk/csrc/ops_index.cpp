// sdk/csrc/ops_index.cpp: raw ops for joining and indexing (cat, stack, index_select, gather,
// advanced index/index_put_, nonzero).
// The public functions in sdk/_ops_shape.py and _indexing.py normalize their arguments first.
#include "ops_util.h"

using namespace sdkpy;

namespace {

bool tensor_list(PyObject* o, const char* op, const char* arg, std::vector<sdk_tensor*>* v,
                 OwnedRef* keep) {
  if (is_tensor(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a tuple or list of Tensors, not %s",
                 op, arg, Py_TYPE(o)->tp_name);
    return false;
  }
  // The snapshot keeps the tensors alive while the op runs (without the GIL when large).
  keep->p = sequence_snapshot(o, "expected a sequence of tensors");
  if (!keep->p) return false;
  Py_ssize_t n = PyTuple_GET_SIZE(keep->p);
  PyObject** items = &PyTuple_GET_ITEM(keep->p, 0);
  v->resize(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!is_tensor(items[i]) || !handle_of(items[i])) {
      PyErr_Format(PyExc_TypeError,
                   "%s(): argument '%s' must be a sequence of Tensors, but element %zd is %s", op,
                   arg, i, Py_TYPE(items[i])->tp_name);
      return false;
    }
    (*v)[i] = handle_of(items[i]);
  }
  return true;
}

// cat(tensors, dim, out=None) / stack(tensors, dim, out=None)
PyObject* join(PyObject* const* args, Py_ssize_t nargs, const char* op, bool stack) {
  std::vector<sdk_tensor*> ts;
  OwnedRef keep;
  int64_t d;
  sdk_tensor *out, *r = nullptr;
  if (!check_nargs(op, nargs, 2, 3) || !tensor_list(args[0], op, "tensors", &ts, &keep) ||
      !int_arg(args[1], op, "dim", &d) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 2), op, "out", &out))
    return nullptr;
  int64_t n = static_cast<int64_t>(ts.size()), total = 0;
  for (sdk_tensor* t : ts) total = add_numel(total, sdk_tensor_numel(t));
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      total, st = stack ? sdk_stack(n, ts.data(), d, out, &r) : sdk_cat(n, ts.data(), d, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 2));
}
SDK_PY_FASTCALL(o_cat) { return join(args, nargs, "cat", false); }
SDK_PY_FASTCALL(o_stack) { return join(args, nargs, "stack", true); }

// index_select(t, dim, index, out=None) / gather(t, dim, index, out=None)
using IdxFn = sdk_status (*)(const sdk_tensor*, int64_t, const sdk_tensor*, sdk_tensor*,
                             sdk_tensor**);
PyObject* idxop(PyObject* const* args, Py_ssize_t nargs, const char* op, IdxFn fn) {
  sdk_tensor *t, *i, *out, *r = nullptr;
  int64_t d;
  if (!check_nargs(op, nargs, 3, 4) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &i) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 3), op, "out", &out))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(i) + numel(t), st = fn(t, d, i, out, &r));
  return finish(st, &r, arg_or_none(args, nargs, 3));
}
SDK_PY_FASTCALL(o_index_select) { return idxop(args, nargs, "index_select", sdk_index_select); }
SDK_PY_FASTCALL(o_gather) { return idxop(args, nargs, "gather", sdk_gather); }

// index(t, indices)
SDK_PY_FASTCALL(o_index) {
  sdk_tensor *t, *r = nullptr;
  std::vector<sdk_tensor*> idx;
  OwnedRef keep;
  if (!check_nargs("index", nargs, 2, 2) || !tensor_arg(args[0], "index", "input", &t) ||
      !tensor_list(args[1], "index", "indices", &idx, &keep))
    return nullptr;
  int64_t total = numel(t);
  for (sdk_tensor* i : idx) total = add_numel(total, numel(i));
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(total,
                            st = sdk_index(t, static_cast<int64_t>(idx.size()), idx.data(), &r));
  return finish(st, &r, nullptr);
}

// index_put_(t, indices, values, accumulate) -> t
SDK_PY_FASTCALL(o_index_put_) {
  sdk_tensor *t, *v;
  std::vector<sdk_tensor*> idx;
  OwnedRef keep;
  int32_t acc;
  if (!check_nargs("index_put_", nargs, 4, 4) || !tensor_arg(args[0], "index_put_", "input", &t) ||
      !tensor_list(args[1], "index_put_", "indices", &idx, &keep) ||
      !tensor_arg(args[2], "index_put_", "values", &v) ||
      !bool_arg(args[3], "index_put_", "accumulate", &acc))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(t), st = sdk_index_put_(t, static_cast<int64_t>(idx.size()), idx.data(), v, acc));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

SDK_PY_FASTCALL(o_nonzero) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("nonzero", nargs, 1, 1) || !tensor_arg(args[0], "nonzero", "input", &t))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_nonzero(t, &r));
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_index_methods[] = {
    SDK_PY_FASTCALL_METHOD("cat", o_cat, "cat(tensors, dim, out=None)"),
    SDK_PY_FASTCALL_METHOD("stack", o_stack, "stack(tensors, dim, out=None)"),
    SDK_PY_FASTCALL_METHOD("index_select", o_index_select,
                           "index_select(input, dim, index, out=None)"),
    SDK_PY_FASTCALL_METHOD("gather", o_gather, "gather(input, dim, index, out=None)"),
    SDK_PY_FASTCALL_METHOD("index", o_index, "index(input, indices)"),
    SDK_PY_FASTCALL_METHOD("index_put_", o_index_put_,
                           "index_put_(input, indices, values, accumulate)"),
    SDK_PY_FASTCALL_METHOD("nonzero", o_nonzero, "nonzero(input)"),
    {nullptr, nullptr, 0, nullptr}};
