// sdk/_C/ops_more.cpp: raw ops of sdk._C for reductions, linear algebra, joining and indexing.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- reductions --------------------------------------------------------------------------

bool opt_dims(PyObject* o, const char* op, std::vector<int64_t>* d, bool* all) {
  *all = o == Py_None;
  return *all || ints_arg(o, op, "dim", d, true);
}

// reduce(op, x, dims or None, keepdim, dtype, out=None)
FAST(o_reduce) {
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
      !opt_tensor_arg(ARG(5), name, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_reduce(static_cast<int32_t>(op), x, static_cast<int64_t>(d.size()),
                                 all ? nullptr : d.data(), keep, dt, out, &r));
  return finish(st, &r, ARG(5));
}

// max_dim(x, dim, keepdim, is_min) -> (values, indices)
FAST(o_extremum_dim) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t keep, is_min;
  if (!check_nargs("max", nargs, 4, 4) || !tensor_arg(args[0], "max", "input", &x) ||
      !int_arg(args[1], "max", "dim", &d) || !bool_arg(args[2], "max", "keepdim", &keep) ||
      !bool_arg(args[3], "max", "is_min", &is_min))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = is_min ? sdk_min_dim(x, d, keep, &v, &i) : sdk_max_dim(x, d, keep, &v, &i));
  if (st != SDK_OK) return raise_last_error();
  std::vector<sdk_tensor*> rs{v, i};
  return tuple_of(rs);
}

// arg_extremum(x, is_min, dim or None, keepdim)
FAST(o_arg_extremum) {
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
  CALL(numel(x), st = sdk_arg_extremum(x, is_min, args[2] != Py_None, d, keep, &r));
  return finish(st, &r, nullptr);
}

// var_std(x, dims or None, correction, keepdim, is_std)
FAST(o_var_std) {
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
  CALL(numel(x),
       st = is_std ? sdk_std(x, nd, dp, corr, keep, &r) : sdk_var(x, nd, dp, corr, keep, &r));
  return finish(st, &r, nullptr);
}

// softmax(x, dim, log)
FAST(o_softmax) {
  sdk_tensor *x, *r = nullptr;
  int64_t d;
  int32_t log;
  if (!check_nargs("softmax", nargs, 3, 3) || !bool_arg(args[2], "softmax", "log", &log))
    return nullptr;
  const char* name = log ? "log_softmax" : "softmax";
  if (!tensor_arg(args[0], name, "input", &x) || !int_arg(args[1], name, "dim", &d)) return nullptr;
  sdk_status st;
  CALL(numel(x), st = log ? sdk_log_softmax(x, d, &r) : sdk_softmax(x, d, &r));
  return finish(st, &r, nullptr);
}

// ---- linear algebra ------------------------------------------------------------------------

using MatFn = sdk_status (*)(const sdk_tensor*, const sdk_tensor*, sdk_tensor*, sdk_tensor**);
PyObject* matop(PyObject* const* args, Py_ssize_t nargs, const char* op, const char* an,
                const char* bn, MatFn fn) {
  sdk_tensor *a, *b, *out, *r = nullptr;
  if (!check_nargs(op, nargs, 2, 3) || !tensor_arg(args[0], op, an, &a) ||
      !tensor_arg(args[1], op, bn, &b) || !opt_tensor_arg(ARG(2), op, "out", &out))
    return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = fn(a, b, out, &r);
  Py_END_ALLOW_THREADS;
  return finish(st, &r, ARG(2));
}
FAST(o_mm) { return matop(args, nargs, "mm", "input", "mat2", sdk_mm); }
FAST(o_bmm) { return matop(args, nargs, "bmm", "input", "mat2", sdk_bmm); }
FAST(o_matmul) { return matop(args, nargs, "matmul", "input", "other", sdk_matmul); }
FAST(o_mv) { return matop(args, nargs, "mv", "input", "vec", sdk_mv); }

FAST(o_dot) {
  sdk_tensor *a, *b, *r = nullptr;
  if (!check_nargs("dot", nargs, 2, 2) || !tensor_arg(args[0], "dot", "input", &a) ||
      !tensor_arg(args[1], "dot", "tensor", &b))
    return nullptr;
  sdk_status st;
  CALL(numel(a), st = sdk_dot(a, b, &r));
  return finish(st, &r, nullptr);
}

// addmm(input, mat1, mat2, beta, alpha, out=None)
FAST(o_addmm) {
  sdk_tensor *c, *a, *b, *out, *r = nullptr;
  sdk_scalar beta, alpha;
  if (!check_nargs("addmm", nargs, 5, 6) || !tensor_arg(args[0], "addmm", "input", &c) ||
      !tensor_arg(args[1], "addmm", "mat1", &a) || !tensor_arg(args[2], "addmm", "mat2", &b) ||
      !scalar_arg(args[3], "addmm", "beta", &beta) ||
      !scalar_arg(args[4], "addmm", "alpha", &alpha) ||
      !opt_tensor_arg(ARG(5), "addmm", "out", &out))
    return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = sdk_addmm(c, a, b, beta, alpha, out, &r);
  Py_END_ALLOW_THREADS;
  return finish(st, &r, ARG(5));
}

// ---- joining and indexing ------------------------------------------------------------------

// Owns a reference until the end of the scope (keeps borrowed items of a sequence alive).
struct Ref {
  PyObject* p = nullptr;
  ~Ref() { Py_XDECREF(p); }
};

bool tensor_list(PyObject* o, const char* op, const char* arg, std::vector<sdk_tensor*>* v,
                 Ref* keep) {
  if (is_tensor(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a tuple or list of Tensors, not %s",
                 op, arg, Py_TYPE(o)->tp_name);
    return false;
  }
  keep->p = PySequence_Fast(o, "expected a sequence of tensors");
  if (!keep->p) return false;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(keep->p);
  PyObject** items = PySequence_Fast_ITEMS(keep->p);
  v->resize(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!is_tensor(items[i]) || !H(items[i])) {
      PyErr_Format(PyExc_TypeError,
                   "%s(): argument '%s' must be a sequence of Tensors, but element %zd is %s", op,
                   arg, i, Py_TYPE(items[i])->tp_name);
      return false;
    }
    (*v)[i] = H(items[i]);
  }
  return true;
}

// cat(tensors, dim, out=None) / stack(tensors, dim, out=None)
PyObject* join(PyObject* const* args, Py_ssize_t nargs, const char* op, bool stack) {
  std::vector<sdk_tensor*> ts;
  Ref keep;
  int64_t d;
  sdk_tensor *out, *r = nullptr;
  if (!check_nargs(op, nargs, 2, 3) || !tensor_list(args[0], op, "tensors", &ts, &keep) ||
      !int_arg(args[1], op, "dim", &d) || !opt_tensor_arg(ARG(2), op, "out", &out))
    return nullptr;
  int64_t n = static_cast<int64_t>(ts.size()), total = 0;
  for (sdk_tensor* t : ts) total = add_numel(total, sdk_tensor_numel(t));
  sdk_status st;
  CALL(total, st = stack ? sdk_stack(n, ts.data(), d, out, &r) : sdk_cat(n, ts.data(), d, out, &r));
  return finish(st, &r, ARG(2));
}
FAST(o_cat) { return join(args, nargs, "cat", false); }
FAST(o_stack) { return join(args, nargs, "stack", true); }

// index_select(t, dim, index, out=None) / gather(t, dim, index, out=None)
using IdxFn = sdk_status (*)(const sdk_tensor*, int64_t, const sdk_tensor*, sdk_tensor*,
                             sdk_tensor**);
PyObject* idxop(PyObject* const* args, Py_ssize_t nargs, const char* op, IdxFn fn) {
  sdk_tensor *t, *i, *out, *r = nullptr;
  int64_t d;
  if (!check_nargs(op, nargs, 3, 4) || !tensor_arg(args[0], op, "input", &t) ||
      !int_arg(args[1], op, "dim", &d) || !tensor_arg(args[2], op, "index", &i) ||
      !opt_tensor_arg(ARG(3), op, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(i) + numel(t), st = fn(t, d, i, out, &r));
  return finish(st, &r, ARG(3));
}
FAST(o_index_select) { return idxop(args, nargs, "index_select", sdk_index_select); }
FAST(o_gather) { return idxop(args, nargs, "gather", sdk_gather); }

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
  CALL(numel(s), st = fn(t, d, i, s));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}
FAST(o_scatter_add_) { return accop(args, nargs, "scatter_add_", sdk_scatter_add_); }
FAST(o_index_add_) { return accop(args, nargs, "index_add_", sdk_index_add_); }

// index(t, indices)
FAST(o_index) {
  sdk_tensor *t, *r = nullptr;
  std::vector<sdk_tensor*> idx;
  Ref keep;
  if (!check_nargs("index", nargs, 2, 2) || !tensor_arg(args[0], "index", "input", &t) ||
      !tensor_list(args[1], "index", "indices", &idx, &keep))
    return nullptr;
  int64_t total = numel(t);
  for (sdk_tensor* i : idx) total = add_numel(total, numel(i));
  sdk_status st;
  CALL(total, st = sdk_index(t, static_cast<int64_t>(idx.size()), idx.data(), &r));
  return finish(st, &r, nullptr);
}

// index_put_(t, indices, values, accumulate) -> t
FAST(o_index_put_) {
  sdk_tensor *t, *v;
  std::vector<sdk_tensor*> idx;
  Ref keep;
  int32_t acc;
  if (!check_nargs("index_put_", nargs, 4, 4) || !tensor_arg(args[0], "index_put_", "input", &t) ||
      !tensor_list(args[1], "index_put_", "indices", &idx, &keep) ||
      !tensor_arg(args[2], "index_put_", "values", &v) ||
      !bool_arg(args[3], "index_put_", "accumulate", &acc))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_index_put_(t, static_cast<int64_t>(idx.size()), idx.data(), v, acc));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

FAST(o_nonzero) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("nonzero", nargs, 1, 1) || !tensor_arg(args[0], "nonzero", "input", &t))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_nonzero(t, &r));
  return finish(st, &r, nullptr);
}

// _alias(t): a new tensor on a new view of t's data (shares storage and version counter),
// without autograd state: detach() and the graph's saved values. A view of its own, not t's
// handle: autograd state crosses into compiled code per view (autograd.cpp).
FAST(o_alias) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("_alias", nargs, 1, 1) || !tensor_arg(args[0], "detach", "input", &t))
    return nullptr;
  sdk_status st = sdk_as_strided(t, sdk_tensor_ndim(t), sdk_tensor_sizes(t), sdk_tensor_strides(t),
                                 sdk_tensor_storage_offset(t), &r);
  return finish(st, &r, nullptr);
}

FAST(o_manual_seed) {
  int64_t seed;
  if (!check_nargs("manual_seed", nargs, 1, 1) || !int_arg(args[0], "manual_seed", "seed", &seed))
    return nullptr;
  sdk_manual_seed(nullptr, static_cast<uint64_t>(seed));
  Py_RETURN_NONE;
}

}  // namespace

PyMethodDef sdkpy::ops_more_methods[] = {
    FM("reduce", o_reduce, "reduce(op, input, dims, keepdim, dtype, out=None)"),
    FM("extremum_dim", o_extremum_dim, "extremum_dim(input, dim, keepdim, is_min) -> (v, i)"),
    FM("arg_extremum", o_arg_extremum, "arg_extremum(input, is_min, dim, keepdim)"),
    FM("var_std", o_var_std, "var_std(input, dims, correction, keepdim, is_std)"),
    FM("softmax", o_softmax, "softmax(input, dim, log)"),
    FM("mm", o_mm, "mm(input, mat2, out=None)"),
    FM("bmm", o_bmm, "bmm(input, mat2, out=None)"),
    FM("matmul", o_matmul, "matmul(input, other, out=None)"),
    FM("mv", o_mv, "mv(input, vec, out=None)"),
    FM("dot", o_dot, "dot(input, tensor)"),
    FM("addmm", o_addmm, "addmm(input, mat1, mat2, beta, alpha, out=None)"),
    FM("cat", o_cat, "cat(tensors, dim, out=None)"),
    FM("stack", o_stack, "stack(tensors, dim, out=None)"),
    FM("index_select", o_index_select, "index_select(input, dim, index, out=None)"),
    FM("gather", o_gather, "gather(input, dim, index, out=None)"),
    FM("scatter_add_", o_scatter_add_, "scatter_add_(input, dim, index, src)"),
    FM("index_add_", o_index_add_, "index_add_(input, dim, index, source)"),
    FM("index", o_index, "index(input, indices)"),
    FM("index_put_", o_index_put_, "index_put_(input, indices, values, accumulate)"),
    FM("nonzero", o_nonzero, "nonzero(input)"),
    FM("_alias", o_alias, "_alias(t): same storage, new object, no autograd state"),
    FM("manual_seed", o_manual_seed, "manual_seed(seed): reseed the default generator"),
    {nullptr, nullptr, 0, nullptr}};
