// sdk/csrc/ops_struct.cpp: raw ops for sorting, scans, joining, indexing, scatter, reordering.
// The public functions in sdk/_ops_sort.py, _ops_scatter.py and _ops_layout.py normalize
// their arguments first.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// (values, indices) of a two-result core call.
PyObject* pair(sdk_status st, sdk_tensor* v, sdk_tensor* i) {
  if (st != SDK_OK) return raise_last_error();
  std::vector<sdk_tensor*> rs{v, i};
  return tuple_of(rs);
}

// ---- sorting and scans ---------------------------------------------------------------------

// sort(x, dim, descending, stable) -> (values, indices)
SDK_PY_FASTCALL(o_sort) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t desc, stable;
  if (!check_nargs("sort", nargs, 4, 4) || !tensor_arg(args[0], "sort", "input", &x) ||
      !int_arg(args[1], "sort", "dim", &d) || !bool_arg(args[2], "sort", "descending", &desc) ||
      !bool_arg(args[3], "sort", "stable", &stable))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_sort(x, d, desc, stable, &v, &i));
  return pair(st, v, i);
}

// topk(x, k, dim, largest, sorted) -> (values, indices)
SDK_PY_FASTCALL(o_topk) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t k, d;
  int32_t largest, sorted;
  if (!check_nargs("topk", nargs, 5, 5) || !tensor_arg(args[0], "topk", "input", &x) ||
      !int_arg(args[1], "topk", "k", &k) || !int_arg(args[2], "topk", "dim", &d) ||
      !bool_arg(args[3], "topk", "largest", &largest) ||
      !bool_arg(args[4], "topk", "sorted", &sorted))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_topk(x, k, d, largest, sorted, &v, &i));
  return pair(st, v, i);
}

// kthvalue(x, k, dim, keepdim) -> (values, indices)
SDK_PY_FASTCALL(o_kthvalue) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t k, d;
  int32_t keep;
  if (!check_nargs("kthvalue", nargs, 4, 4) || !tensor_arg(args[0], "kthvalue", "input", &x) ||
      !int_arg(args[1], "kthvalue", "k", &k) || !int_arg(args[2], "kthvalue", "dim", &d) ||
      !bool_arg(args[3], "kthvalue", "keepdim", &keep))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_kthvalue(x, k, d, keep, &v, &i));
  return pair(st, v, i);
}

// median_dim(x, dim, keepdim) -> (values, indices)
SDK_PY_FASTCALL(o_median_dim) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t keep;
  if (!check_nargs("median", nargs, 3, 3) || !tensor_arg(args[0], "median", "input", &x) ||
      !int_arg(args[1], "median", "dim", &d) || !bool_arg(args[2], "median", "keepdim", &keep))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_median_dim(x, d, keep, &v, &i));
  return pair(st, v, i);
}

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
  return pair(st, v, i);
}
SDK_PY_FASTCALL(o_cummax) { return cum_extremum(args, nargs, "cummax", sdk_cummax); }
SDK_PY_FASTCALL(o_cummin) { return cum_extremum(args, nargs, "cummin", sdk_cummin); }

// ---- joining and indexing ------------------------------------------------------------------

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

// ---- scatter and friends (out=None allocates; out=input writes in place) --------------------

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

// ---- reordering and views ------------------------------------------------------------------

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
      !ints_arg(args[1], "roll", "shifts", &shifts, true) ||
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

}  // namespace

PyMethodDef sdkpy::ops_struct_methods[] = {
    SDK_PY_FASTCALL_METHOD("sort", o_sort,
                           "sort(input, dim, descending, stable) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("topk", o_topk,
                           "topk(input, k, dim, largest, sorted) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("kthvalue", o_kthvalue,
                           "kthvalue(input, k, dim, keepdim) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("median_dim", o_median_dim,
                           "median_dim(input, dim, keepdim) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("cumsum", o_cumsum, "cumsum(input, dim, dtype, out=None)"),
    SDK_PY_FASTCALL_METHOD("cumprod", o_cumprod, "cumprod(input, dim, dtype, out=None)"),
    SDK_PY_FASTCALL_METHOD("cummax", o_cummax, "cummax(input, dim) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("cummin", o_cummin, "cummin(input, dim) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("cat", o_cat, "cat(tensors, dim, out=None)"),
    SDK_PY_FASTCALL_METHOD("stack", o_stack, "stack(tensors, dim, out=None)"),
    SDK_PY_FASTCALL_METHOD("index_select", o_index_select,
                           "index_select(input, dim, index, out=None)"),
    SDK_PY_FASTCALL_METHOD("gather", o_gather, "gather(input, dim, index, out=None)"),
    SDK_PY_FASTCALL_METHOD("scatter_add_", o_scatter_add_, "scatter_add_(input, dim, index, src)"),
    SDK_PY_FASTCALL_METHOD("index_add_", o_index_add_, "index_add_(input, dim, index, source)"),
    SDK_PY_FASTCALL_METHOD("index", o_index, "index(input, indices)"),
    SDK_PY_FASTCALL_METHOD("index_put_", o_index_put_,
                           "index_put_(input, indices, values, accumulate)"),
    SDK_PY_FASTCALL_METHOD("nonzero", o_nonzero, "nonzero(input)"),
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
    SDK_PY_FASTCALL_METHOD("repeat_interleave", o_repeat_interleave,
                           "repeat_interleave(input or None, repeats, dim)"),
    SDK_PY_FASTCALL_METHOD("flip", o_flip, "flip(input, dims)"),
    SDK_PY_FASTCALL_METHOD("roll", o_roll, "roll(input, shifts, dims)"),
    SDK_PY_FASTCALL_METHOD("tril", o_tril, "tril(input, diagonal, out=None)"),
    SDK_PY_FASTCALL_METHOD("triu", o_triu, "triu(input, diagonal, out=None)"),
    SDK_PY_FASTCALL_METHOD("diagonal", o_diagonal, "diagonal(input, offset, dim1, dim2): a view"),
    SDK_PY_FASTCALL_METHOD("unfold", o_unfold, "unfold(input, dimension, size, step): a view"),
    SDK_PY_FASTCALL_METHOD("resize_", o_resize_, "resize_(input, size) -> input"),
    {nullptr, nullptr, 0, nullptr}};
