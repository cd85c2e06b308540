// sdk/_C/ops_struct.cpp: raw ops of sdk._C for sorting, scans, scatter/index and reordering
// (the public functions in sdk/_ops_sort.py, _ops_scatter.py and _ops_layout.py normalize
// their arguments first).
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
FAST(o_sort) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t desc, stable;
  if (!check_nargs("sort", nargs, 4, 4) || !tensor_arg(args[0], "sort", "input", &x) ||
      !int_arg(args[1], "sort", "dim", &d) || !bool_arg(args[2], "sort", "descending", &desc) ||
      !bool_arg(args[3], "sort", "stable", &stable))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_sort(x, d, desc, stable, &v, &i));
  return pair(st, v, i);
}

// topk(x, k, dim, largest, sorted) -> (values, indices)
FAST(o_topk) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t k, d;
  int32_t largest, sorted;
  if (!check_nargs("topk", nargs, 5, 5) || !tensor_arg(args[0], "topk", "input", &x) ||
      !int_arg(args[1], "topk", "k", &k) || !int_arg(args[2], "topk", "dim", &d) ||
      !bool_arg(args[3], "topk", "largest", &largest) ||
      !bool_arg(args[4], "topk", "sorted", &sorted))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_topk(x, k, d, largest, sorted, &v, &i));
  return pair(st, v, i);
}

// kthvalue(x, k, dim, keepdim) -> (values, indices)
FAST(o_kthvalue) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t k, d;
  int32_t keep;
  if (!check_nargs("kthvalue", nargs, 4, 4) || !tensor_arg(args[0], "kthvalue", "input", &x) ||
      !int_arg(args[1], "kthvalue", "k", &k) || !int_arg(args[2], "kthvalue", "dim", &d) ||
      !bool_arg(args[3], "kthvalue", "keepdim", &keep))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_kthvalue(x, k, d, keep, &v, &i));
  return pair(st, v, i);
}

// median_dim(x, dim, keepdim) -> (values, indices)
FAST(o_median_dim) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t keep;
  if (!check_nargs("median", nargs, 3, 3) || !tensor_arg(args[0], "median", "input", &x) ||
      !int_arg(args[1], "median", "dim", &d) || !bool_arg(args[2], "median", "keepdim", &keep))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_median_dim(x, d, keep, &v, &i));
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
      !opt_tensor_arg(ARG(3), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = fn(x, d, dt, out, &r));
  return finish(st, &r, ARG(3));
}
FAST(o_cumsum) { return scan(args, nargs, "cumsum", sdk_cumsum); }
FAST(o_cumprod) { return scan(args, nargs, "cumprod", sdk_cumprod); }

// cummax / cummin (x, dim) -> (values, indices)
using CumFn = sdk_status (*)(const sdk_tensor*, int64_t, sdk_tensor**, sdk_tensor**);
PyObject* cum_extremum(PyObject* const* args, Py_ssize_t nargs, const char* op, CumFn fn) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  if (!check_nargs(op, nargs, 2, 2) || !tensor_arg(args[0], op, "input", &x) ||
      !int_arg(args[1], op, "dim", &d))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = fn(x, d, &v, &i));
  return pair(st, v, i);
}
FAST(o_cummax) { return cum_extremum(args, nargs, "cummax", sdk_cummax); }
FAST(o_cummin) { return cum_extremum(args, nargs, "cummin", sdk_cummin); }

// ---- scatter and friends (out=None allocates; out=input writes in place) --------------------

// scatter(t, dim, index, src or value, out=None)
FAST(o_scatter) {
  sdk_tensor *t, *idx, *out, *src = nullptr, *r = nullptr;
  int64_t d;
  sdk_scalar value{};
  if (!check_nargs("scatter", nargs, 4, 5) || !tensor_arg(args[0], "scatter", "input", &t) ||
      !int_arg(args[1], "scatter", "dim", &d) || !tensor_arg(args[2], "scatter", "index", &idx) ||
      !opt_tensor_arg(ARG(4), "scatter", "out", &out))
    return nullptr;
  if (is_tensor(args[3])) {
    if (!tensor_arg(args[3], "scatter", "src", &src)) return nullptr;
  } else if (!scalar_arg(args[3], "scatter", "value", &value)) {
    return nullptr;
  }
  sdk_status st;
  CALL(numel(idx), st = src ? sdk_scatter(t, d, idx, src, out, &r)
                            : sdk_scatter_value(t, d, idx, value, out, &r));
  return finish(st, &r, ARG(4));
}

// scatter_reduce(t, dim, index, src, reduce code, include_self, out=None)
FAST(o_scatter_reduce) {
  const char* op = "scatter_reduce";
  sdk_tensor *t, *idx, *src, *out, *r = nullptr;
  int64_t d, reduce;
  int32_t self;
  if (!check_nargs(op, nargs, 6, 7) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &idx) ||
      !tensor_arg(args[3], op, "src", &src) || !int_arg(args[4], op, "reduce", &reduce) ||
      !bool_arg(args[5], op, "include_self", &self) || !opt_tensor_arg(ARG(6), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(idx) + numel(t),
       st = sdk_scatter_reduce(t, d, idx, src, static_cast<int32_t>(reduce), self, out, &r));
  return finish(st, &r, ARG(6));
}

// index_copy(t, dim, index, source, out=None)
FAST(o_index_copy) {
  const char* op = "index_copy";
  sdk_tensor *t, *idx, *src, *out, *r = nullptr;
  int64_t d;
  if (!check_nargs(op, nargs, 4, 5) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &idx) ||
      !tensor_arg(args[3], op, "source", &src) || !opt_tensor_arg(ARG(4), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(src), st = sdk_index_copy(t, d, idx, src, out, &r));
  return finish(st, &r, ARG(4));
}

// index_fill(t, dim, index, value, out=None)
FAST(o_index_fill) {
  const char* op = "index_fill";
  sdk_tensor *t, *idx, *out, *r = nullptr;
  int64_t d;
  sdk_scalar value;
  if (!check_nargs(op, nargs, 4, 5) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &idx) ||
      !scalar_arg(args[3], op, "value", &value) || !opt_tensor_arg(ARG(4), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_index_fill(t, d, idx, value, out, &r));
  return finish(st, &r, ARG(4));
}

FAST(o_masked_select) {
  sdk_tensor *t, *mask, *r = nullptr;
  if (!check_nargs("masked_select", nargs, 2, 2) ||
      !tensor_arg(args[0], "masked_select", "input", &t) ||
      !tensor_arg(args[1], "masked_select", "mask", &mask))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_masked_select(t, mask, &r));
  return finish(st, &r, nullptr);
}

// masked_scatter(t, mask, source, out=None)
FAST(o_masked_scatter) {
  const char* op = "masked_scatter";
  sdk_tensor *t, *mask, *src, *out, *r = nullptr;
  if (!check_nargs(op, nargs, 3, 4) || !tensor_arg(args[0], op, "input", &t) ||
      !tensor_arg(args[1], op, "mask", &mask) || !tensor_arg(args[2], op, "source", &src) ||
      !opt_tensor_arg(ARG(3), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_masked_scatter(t, mask, src, out, &r));
  return finish(st, &r, ARG(3));
}

FAST(o_take) {
  sdk_tensor *t, *idx, *r = nullptr;
  if (!check_nargs("take", nargs, 2, 2) || !tensor_arg(args[0], "take", "input", &t) ||
      !tensor_arg(args[1], "take", "index", &idx))
    return nullptr;
  sdk_status st;
  CALL(numel(idx), st = sdk_take(t, idx, &r));
  return finish(st, &r, nullptr);
}

// repeat_interleave(t or None, repeats, dim or None)
FAST(o_repeat_interleave) {
  const char* op = "repeat_interleave";
  sdk_tensor *t = nullptr, *rep, *r = nullptr;
  int64_t d = 0;
  if (!check_nargs(op, nargs, 3, 3) ||
      (args[0] != Py_None && !tensor_arg(args[0], op, "input", &t)) ||
      !tensor_arg(args[1], op, "repeats", &rep) ||
      (args[2] != Py_None && !int_arg(args[2], op, "dim", &d)))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_repeat_interleave(t, rep, args[2] != Py_None, d, &r));
  return finish(st, &r, nullptr);
}

// ---- reordering and views ------------------------------------------------------------------

FAST(o_flip) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> dims;
  if (!check_nargs("flip", nargs, 2, 2) || !tensor_arg(args[0], "flip", "input", &t) ||
      !ints_arg(args[1], "flip", "dims", &dims, true))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_flip(t, static_cast<int64_t>(dims.size()), dims.data(), &r));
  return finish(st, &r, nullptr);
}

// roll(t, shifts, dims)
FAST(o_roll) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> shifts, dims;
  if (!check_nargs("roll", nargs, 3, 3) || !tensor_arg(args[0], "roll", "input", &t) ||
      !ints_arg(args[1], "roll", "shifts", &shifts, true) ||
      !ints_arg(args[2], "roll", "dims", &dims, true))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_roll(t, static_cast<int64_t>(shifts.size()), shifts.data(),
                               static_cast<int64_t>(dims.size()), dims.data(), &r));
  return finish(st, &r, nullptr);
}

// tril / triu (t, diagonal, out=None)
using TriFn = sdk_status (*)(const sdk_tensor*, int64_t, sdk_tensor*, sdk_tensor**);
PyObject* triangle(PyObject* const* args, Py_ssize_t nargs, const char* op, TriFn fn) {
  sdk_tensor *t, *out, *r = nullptr;
  int64_t k;
  if (!check_nargs(op, nargs, 2, 3) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "diagonal", &k) || !opt_tensor_arg(ARG(2), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = fn(t, k, out, &r));
  return finish(st, &r, ARG(2));
}
FAST(o_tril) { return triangle(args, nargs, "tril", sdk_tril); }
FAST(o_triu) { return triangle(args, nargs, "triu", sdk_triu); }

// diagonal(t, offset, dim1, dim2)
FAST(o_diagonal) {
  sdk_tensor *t, *r = nullptr;
  int64_t off, d1, d2;
  if (!check_nargs("diagonal", nargs, 4, 4) || !tensor_arg(args[0], "diagonal", "input", &t) ||
      !int_arg(args[1], "diagonal", "offset", &off) || !int_arg(args[2], "diagonal", "dim1", &d1) ||
      !int_arg(args[3], "diagonal", "dim2", &d2))
    return nullptr;
  return finish(sdk_diagonal(t, off, d1, d2, &r), &r, nullptr);
}

// unfold(t, dimension, size, step)
FAST(o_unfold) {
  sdk_tensor *t, *r = nullptr;
  int64_t d, size, step;
  if (!check_nargs("unfold", nargs, 4, 4) || !tensor_arg(args[0], "unfold", "input", &t) ||
      !int_arg(args[1], "unfold", "dimension", &d) || !int_arg(args[2], "unfold", "size", &size) ||
      !int_arg(args[3], "unfold", "step", &step))
    return nullptr;
  return finish(sdk_unfold(t, d, size, step, &r), &r, nullptr);
}

// resize_(t, sizes) -> t
FAST(o_resize_) {
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
    FM("sort", o_sort, "sort(input, dim, descending, stable) -> (values, indices)"),
    FM("topk", o_topk, "topk(input, k, dim, largest, sorted) -> (values, indices)"),
    FM("kthvalue", o_kthvalue, "kthvalue(input, k, dim, keepdim) -> (values, indices)"),
    FM("median_dim", o_median_dim, "median_dim(input, dim, keepdim) -> (values, indices)"),
    FM("cumsum", o_cumsum, "cumsum(input, dim, dtype, out=None)"),
    FM("cumprod", o_cumprod, "cumprod(input, dim, dtype, out=None)"),
    FM("cummax", o_cummax, "cummax(input, dim) -> (values, indices)"),
    FM("cummin", o_cummin, "cummin(input, dim) -> (values, indices)"),
    FM("scatter", o_scatter, "scatter(input, dim, index, src_or_value, out=None)"),
    FM("scatter_reduce", o_scatter_reduce,
       "scatter_reduce(input, dim, index, src, reduce_code, include_self, out=None)"),
    FM("index_copy", o_index_copy, "index_copy(input, dim, index, source, out=None)"),
    FM("index_fill", o_index_fill, "index_fill(input, dim, index, value, out=None)"),
    FM("masked_select", o_masked_select, "masked_select(input, mask)"),
    FM("masked_scatter", o_masked_scatter, "masked_scatter(input, mask, source, out=None)"),
    FM("take", o_take, "take(input, index)"),
    FM("repeat_interleave", o_repeat_interleave, "repeat_interleave(input or None, repeats, dim)"),
    FM("flip", o_flip, "flip(input, dims)"),
    FM("roll", o_roll, "roll(input, shifts, dims)"),
    FM("tril", o_tril, "tril(input, diagonal, out=None)"),
    FM("triu", o_triu, "triu(input, diagonal, out=None)"),
    FM("diagonal", o_diagonal, "diagonal(input, offset, dim1, dim2): a view"),
    FM("unfold", o_unfold, "unfold(input, dimension, size, step): a view"),
    FM("resize_", o_resize_, "resize_(input, size) -> input"),
    {nullptr, nullptr, 0, nullptr}};
