// sdk/_C/ops.cpp: raw ops of sdk._C (no autograd), one METH_FASTCALL function per C ABI entry.
// Arguments are parsed by hand: per-call overhead is a product goal.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- elementwise ------------------------------------------------------------------------

// unary(op, input, out=None)
FAST(o_unary) {
  int64_t op;
  if (!check_nargs("unary", nargs, 2, 3) || !int_arg(args[0], "unary", "op", &op)) return nullptr;
  const char* name = name_of(kUnaryNames, op, "unary");
  sdk_tensor *x, *out, *r = nullptr;
  if (!tensor_arg(args[1], name, "input", &x) || !opt_tensor_arg(ARG(2), name, "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_unary(static_cast<int32_t>(op), x, out, &r));
  return finish(st, &r, ARG(2));
}

// binary(op, a, b, out=None): a or b (not both) may be a Python number.
FAST(o_binary) {
  int64_t op;
  if (!check_nargs("binary", nargs, 3, 4) || !int_arg(args[0], "binary", "op", &op)) return nullptr;
  const char* name = name_of(kBinaryNames, op, "binary");
  sdk_tensor *out, *r = nullptr;
  if (!opt_tensor_arg(ARG(3), name, "out", &out)) return nullptr;
  PyObject *a = args[1], *b = args[2];
  sdk_status st;
  if (is_tensor(a) && is_tensor(b)) {
    sdk_tensor *ha, *hb;
    if (!tensor_arg(a, name, "input", &ha) || !tensor_arg(b, name, "other", &hb)) return nullptr;
    CALL(numel(ha) + numel(hb), st = sdk_binary(static_cast<int32_t>(op), ha, hb, out, &r));
  } else {
    bool first = !is_tensor(a);
    sdk_tensor* h;
    sdk_scalar s;
    if (!tensor_arg(first ? b : a, name, first ? "other" : "input", &h) ||
        !scalar_arg(first ? a : b, name, first ? "input" : "other", &s))
      return nullptr;
    CALL(numel(h), st = sdk_binary_scalar(static_cast<int32_t>(op), h, s, first, out, &r));
  }
  return finish(st, &r, ARG(3));
}

// add_scaled(a, b, alpha, out=None): a + alpha * b
FAST(o_add_scaled) {
  sdk_tensor *a, *b, *out, *r = nullptr;
  sdk_scalar alpha;
  if (!check_nargs("add", nargs, 3, 4) || !tensor_arg(args[0], "add", "input", &a) ||
      !tensor_arg(args[1], "add", "other", &b) || !scalar_arg(args[2], "add", "alpha", &alpha) ||
      !opt_tensor_arg(ARG(3), "add", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(a) + numel(b), st = sdk_add_scaled(a, b, alpha, out, &r));
  return finish(st, &r, ARG(3));
}

// elu(x, alpha, out=None)
FAST(o_elu) {
  sdk_tensor *x, *out, *r = nullptr;
  double alpha;
  if (!check_nargs("elu", nargs, 2, 3) || !tensor_arg(args[0], "elu", "input", &x) ||
      !double_arg(args[1], "elu", "alpha", &alpha) || !opt_tensor_arg(ARG(2), "elu", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_elu(x, alpha, out, &r));
  return finish(st, &r, ARG(2));
}

// clamp(x, min, max, out=None): min/max are numbers or None
FAST(o_clamp) {
  sdk_tensor *x, *out, *r = nullptr;
  sdk_scalar lo, hi;
  if (!check_nargs("clamp", nargs, 3, 4) || !tensor_arg(args[0], "clamp", "input", &x) ||
      !opt_scalar_arg(args[1], "clamp", "min", &lo) ||
      !opt_scalar_arg(args[2], "clamp", "max", &hi) ||
      !opt_tensor_arg(ARG(3), "clamp", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(x), st = sdk_clamp(x, lo, hi, out, &r));
  return finish(st, &r, ARG(3));
}

// where(cond, a, b, out=None): all tensors
FAST(o_where) {
  sdk_tensor *c, *a, *b, *out, *r = nullptr;
  if (!check_nargs("where", nargs, 3, 4) || !tensor_arg(args[0], "where", "condition", &c) ||
      !tensor_arg(args[1], "where", "input", &a) || !tensor_arg(args[2], "where", "other", &b) ||
      !opt_tensor_arg(ARG(3), "where", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(c) + numel(a) + numel(b), st = sdk_where(c, a, b, out, &r));
  return finish(st, &r, ARG(3));
}

// masked_fill(t, mask, value, out=None)
FAST(o_masked_fill) {
  sdk_tensor *t, *m, *out, *r = nullptr;
  sdk_scalar v;
  if (!check_nargs("masked_fill", nargs, 3, 4) ||
      !tensor_arg(args[0], "masked_fill", "input", &t) ||
      !tensor_arg(args[1], "masked_fill", "mask", &m) ||
      !scalar_arg(args[2], "masked_fill", "value", &v) ||
      !opt_tensor_arg(ARG(3), "masked_fill", "out", &out))
    return nullptr;
  sdk_status st;
  CALL(numel(t) + numel(m), st = sdk_masked_fill(t, m, v, out, &r));
  return finish(st, &r, ARG(3));
}

// to_dtype(t, dtype, copy)
FAST(o_to_dtype) {
  sdk_tensor *t, *r = nullptr;
  sdk_dtype dt;
  int32_t copy = 0;
  if (!check_nargs("to", nargs, 2, 3) || !tensor_arg(args[0], "to", "input", &t) ||
      !dtype_arg(args[1], "to", "dtype", &dt) ||
      (nargs > 2 && !bool_arg(args[2], "to", "copy", &copy)))
    return nullptr;
  if (dt < 0) {
    PyErr_SetString(PyExc_TypeError, "to(): dtype must not be None");
    return nullptr;
  }
  if (!copy && sdk_tensor_dtype(t) == dt) {
    Py_INCREF(args[0]);  // same object, like torch's x.to(x.dtype)
    return args[0];
  }
  sdk_status st;
  CALL(numel(t), st = sdk_to_dtype(t, dt, copy, &r));
  return finish(st, &r, nullptr);
}

// fill_(t, value) -> t
FAST(o_fill_) {
  sdk_tensor* t;
  sdk_scalar v;
  if (!check_nargs("fill_", nargs, 2, 2) || !tensor_arg(args[0], "fill_", "input", &t) ||
      !scalar_arg(args[1], "fill_", "value", &v))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_fill_(t, v));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

// copy_(dst, src) -> dst
FAST(o_copy_) {
  sdk_tensor *d, *s;
  if (!check_nargs("copy_", nargs, 2, 2) || !tensor_arg(args[0], "copy_", "input", &d) ||
      !tensor_arg(args[1], "copy_", "src", &s))
    return nullptr;
  sdk_status st;
  CALL(numel(d), st = sdk_copy_(d, s));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

// ---- creation -------------------------------------------------------------------------------

sdk_device cpu() { return sdk_device{SDK_CPU, 0}; }

bool float_dtype(const char* op, sdk_dtype* dt) {
  if (*dt == -1) *dt = SDK_FLOAT32;
  return true;
}

// empty(sizes, dtype)
FAST(o_empty) {
  std::vector<int64_t> sz;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("empty", nargs, 2, 2) || !ints_arg(args[0], "empty", "size", &sz, false) ||
      !dtype_arg(args[1], "empty", "dtype", &dt) || !float_dtype("empty", &dt))
    return nullptr;
  return finish(sdk_empty(static_cast<int64_t>(sz.size()), sz.data(), dt, cpu(), &r), &r, nullptr);
}

// empty_strided(sizes, strides, dtype)
FAST(o_empty_strided) {
  std::vector<int64_t> sz, st;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("empty_strided", nargs, 3, 3) ||
      !ints_arg(args[0], "empty_strided", "size", &sz, false) ||
      !ints_arg(args[1], "empty_strided", "stride", &st, false) ||
      !dtype_arg(args[2], "empty_strided", "dtype", &dt) || !float_dtype("empty_strided", &dt))
    return nullptr;
  if (sz.size() != st.size()) {
    PyErr_Format(g_invalid_argument_error, "empty_strided(): %zd sizes but %zd strides", sz.size(),
                 st.size());
    return nullptr;
  }
  return finish(
      sdk_empty_strided(static_cast<int64_t>(sz.size()), sz.data(), st.data(), dt, cpu(), &r), &r,
      nullptr);
}

// full(sizes, value, dtype)
FAST(o_full) {
  std::vector<int64_t> sz;
  sdk_dtype dt;
  sdk_scalar v;
  sdk_tensor* r = nullptr;
  if (!check_nargs("full", nargs, 3, 3) || !ints_arg(args[0], "full", "size", &sz, false) ||
      !scalar_arg(args[1], "full", "fill_value", &v) || !dtype_arg(args[2], "full", "dtype", &dt))
    return nullptr;
  if (dt < 0)
    dt = v.kind == SDK_SCALAR_BOOL ? SDK_BOOL : v.kind == SDK_SCALAR_INT ? SDK_INT64 : SDK_FLOAT32;
  int64_t n = 1;
  for (int64_t s : sz) n *= s;
  sdk_status st;
  CALL(n, st = sdk_full(static_cast<int64_t>(sz.size()), sz.data(), v, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// arange(start, end, step, dtype)
FAST(o_arange) {
  sdk_scalar a, b, s;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("arange", nargs, 4, 4) || !scalar_arg(args[0], "arange", "start", &a) ||
      !scalar_arg(args[1], "arange", "end", &b) || !scalar_arg(args[2], "arange", "step", &s) ||
      !dtype_arg(args[3], "arange", "dtype", &dt))
    return nullptr;
  auto value = [](const sdk_scalar& x) { return x.kind == SDK_SCALAR_FLOAT ? x.f : double(x.i); };
  double count = (value(b) - value(a)) / value(s);  // estimate; the core validates
  sdk_status st;
  CALL(count > 0 ? count : 0.0, st = sdk_arange(a, b, s, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// linspace(start, end, steps, dtype)
FAST(o_linspace) {
  double a, b;
  int64_t n;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("linspace", nargs, 4, 4) || !double_arg(args[0], "linspace", "start", &a) ||
      !double_arg(args[1], "linspace", "end", &b) || !int_arg(args[2], "linspace", "steps", &n) ||
      !dtype_arg(args[3], "linspace", "dtype", &dt) || !float_dtype("linspace", &dt))
    return nullptr;
  if (n < 0) {
    PyErr_Format(g_invalid_argument_error,
                 "linspace(): number of steps must be non-negative, got %lld",
                 static_cast<long long>(n));
    return nullptr;
  }
  sdk_status st;
  CALL(n, st = sdk_linspace(a, b, n, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// eye(n, m, dtype)
FAST(o_eye) {
  int64_t n, m = -1;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("eye", nargs, 3, 3) || !int_arg(args[0], "eye", "n", &n) ||
      (ARG(1) != Py_None && !int_arg(args[1], "eye", "m", &m)) ||
      !dtype_arg(args[2], "eye", "dtype", &dt) || !float_dtype("eye", &dt))
    return nullptr;
  if (n < 0 || (ARG(1) != Py_None && m < 0)) {
    PyErr_Format(g_invalid_argument_error, "eye(): n and m must be non-negative, got n=%lld m=%lld",
                 static_cast<long long>(n), static_cast<long long>(m));
    return nullptr;
  }
  sdk_status st;
  CALL(static_cast<double>(n) * static_cast<double>(m < 0 ? n : m),
       st = sdk_eye(n, m, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// empty_like(t, dtype or None, preserve): t's sizes, laid out like t when preserve is true
FAST(o_empty_like) {
  sdk_tensor *t, *r = nullptr;
  sdk_dtype dt = -1;
  if (!check_nargs("empty_like", nargs, 3, 3) || !tensor_arg(args[0], "empty_like", "input", &t) ||
      (args[1] != Py_None && !dtype_arg(args[1], "empty_like", "dtype", &dt)))
    return nullptr;
  const int preserve = PyObject_IsTrue(args[2]);
  if (preserve < 0) return nullptr;
  const int32_t format = preserve ? SDK_PRESERVE_FORMAT : SDK_CONTIGUOUS_FORMAT;
  return finish(sdk_empty_like(t, dt, format, &r), &r, nullptr);
}

// clone(t)
FAST(o_clone) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("clone", nargs, 1, 1) || !tensor_arg(args[0], "clone", "input", &t))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_clone(t, &r));
  return finish(st, &r, nullptr);
}

// ---- random ------------------------------------------------------------------------------

// uniform_(t, low, high, generator) / normal_(t, mean, std, generator)
PyObject* fill_random(PyObject* const* args, Py_ssize_t nargs, const char* op, bool normal) {
  sdk_tensor* t;
  double a, b;
  if (!check_nargs(op, nargs, 4, 4) || !tensor_arg(args[0], op, "input", &t) ||
      !double_arg(args[1], op, normal ? "mean" : "from", &a) ||
      !double_arg(args[2], op, normal ? "std" : "to", &b))
    return nullptr;
  bool ok;
  sdk_generator* g = generator_handle(args[3], &ok);
  if (!ok) return nullptr;
  sdk_status st;
  CALL(numel(t), st = normal ? sdk_normal_(t, a, b, g) : sdk_uniform_(t, a, b, g));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}
FAST(o_uniform_) { return fill_random(args, nargs, "uniform_", false); }
FAST(o_normal_) { return fill_random(args, nargs, "normal_", true); }

// randint_(t, low, high, generator)
FAST(o_randint_) {
  sdk_tensor* t;
  int64_t a, b;
  if (!check_nargs("randint_", nargs, 4, 4) || !tensor_arg(args[0], "randint", "input", &t) ||
      !int_arg(args[1], "randint", "low", &a) || !int_arg(args[2], "randint", "high", &b))
    return nullptr;
  bool ok;
  sdk_generator* g = generator_handle(args[3], &ok);
  if (!ok) return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_randint_(t, a, b, g));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

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
  CALL(numel(t), st = fn(t, static_cast<int64_t>(sz.size()), sz.data(), &r));
  return finish(st, &r, nullptr);
}
FAST(o_view) { return with_sizes(args, nargs, "view", sdk_view); }
FAST(o_reshape) { return with_sizes(args, nargs, "reshape", sdk_reshape); }
FAST(o_expand) { return with_sizes(args, nargs, "expand", sdk_expand); }

// as_strided(t, sizes, strides, storage_offset)
FAST(o_as_strided) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> sz, st;
  int64_t off;
  if (!check_nargs("as_strided", nargs, 4, 4) || !tensor_arg(args[0], "as_strided", "input", &t) ||
      !ints_arg(args[1], "as_strided", "size", &sz, false) ||
      !ints_arg(args[2], "as_strided", "stride", &st, false) ||
      !int_arg(args[3], "as_strided", "storage_offset", &off))
    return nullptr;
  if (sz.size() != st.size()) {
    PyErr_Format(g_invalid_argument_error, "as_strided(): %zd sizes but %zd strides", sz.size(),
                 st.size());
    return nullptr;
  }
  return finish(sdk_as_strided(t, static_cast<int64_t>(sz.size()), sz.data(), st.data(), off, &r),
                &r, nullptr);
}

// permute(t, dims)
FAST(o_permute) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> d;
  if (!check_nargs("permute", nargs, 2, 2) || !tensor_arg(args[0], "permute", "input", &t) ||
      !ints_arg(args[1], "permute", "dims", &d, true))
    return nullptr;
  if (static_cast<int64_t>(d.size()) != sdk_tensor_ndim(t)) {
    PyErr_Format(g_invalid_argument_error,
                 "permute(sparse_coo): number of dimensions in the tensor input does not match "
                 "the length of the desired ordering of dimensions i.e. input.dim() = %lld is "
                 "not equal to len(dims) = %zd",
                 static_cast<long long>(sdk_tensor_ndim(t)), d.size());
    return nullptr;
  }
  return finish(sdk_permute(t, d.data(), &r), &r, nullptr);
}

// transpose(t, dim0, dim1)
FAST(o_transpose) {
  sdk_tensor *t, *r = nullptr;
  int64_t a, b;
  if (!check_nargs("transpose", nargs, 3, 3) || !tensor_arg(args[0], "transpose", "input", &t) ||
      !int_arg(args[1], "transpose", "dim0", &a) || !int_arg(args[2], "transpose", "dim1", &b))
    return nullptr;
  return finish(sdk_transpose(t, a, b, &r), &r, nullptr);
}

// slice(t, dim, start, end, step)
FAST(o_slice) {
  sdk_tensor *t, *r = nullptr;
  int64_t d, a, b, s;
  if (!check_nargs("slice", nargs, 5, 5) || !tensor_arg(args[0], "slice", "input", &t) ||
      !int_arg(args[1], "slice", "dim", &d) || !int_arg(args[2], "slice", "start", &a) ||
      !int_arg(args[3], "slice", "end", &b) || !int_arg(args[4], "slice", "step", &s))
    return nullptr;
  if (s <= 0) {
    PyErr_SetString(g_invalid_argument_error, "step must be greater than zero");
    return nullptr;
  }
  return finish(sdk_slice(t, d, a, b, s, &r), &r, nullptr);
}

// select(t, dim, index)
FAST(o_select) {
  sdk_tensor *t, *r = nullptr;
  int64_t d, i;
  if (!check_nargs("select", nargs, 3, 3) || !tensor_arg(args[0], "select", "input", &t) ||
      !int_arg(args[1], "select", "dim", &d) || !int_arg(args[2], "select", "index", &i))
    return nullptr;
  return finish(sdk_select(t, d, i, &r), &r, nullptr);
}

// unsqueeze(t, dim)
FAST(o_unsqueeze) {
  sdk_tensor *t, *r = nullptr;
  int64_t d;
  if (!check_nargs("unsqueeze", nargs, 2, 2) || !tensor_arg(args[0], "unsqueeze", "input", &t) ||
      !int_arg(args[1], "unsqueeze", "dim", &d))
    return nullptr;
  return finish(sdk_unsqueeze(t, d, &r), &r, nullptr);
}

// squeeze(t, dims or None)
FAST(o_squeeze) {
  sdk_tensor *t, *r = nullptr;
  std::vector<int64_t> d;
  if (!check_nargs("squeeze", nargs, 1, 2) || !tensor_arg(args[0], "squeeze", "input", &t))
    return nullptr;
  bool all = ARG(1) == Py_None;
  if (!all && !ints_arg(args[1], "squeeze", "dim", &d, true)) return nullptr;
  // dims NULL means "all size-1 dims": an empty list must stay a (non-NULL) empty list.
  static const int64_t kNoDims[1] = {0};
  const int64_t* dims = all ? nullptr : d.empty() ? kNoDims : d.data();
  return finish(sdk_squeeze(t, static_cast<int64_t>(d.size()), dims, &r), &r, nullptr);
}

// flatten(t, start_dim, end_dim)
FAST(o_flatten) {
  sdk_tensor *t, *r = nullptr;
  int64_t a, b;
  if (!check_nargs("flatten", nargs, 3, 3) || !tensor_arg(args[0], "flatten", "input", &t) ||
      !int_arg(args[1], "flatten", "start_dim", &a) || !int_arg(args[2], "flatten", "end_dim", &b))
    return nullptr;
  sdk_status st;
  CALL(numel(t), st = sdk_flatten(t, a, b, &r));
  return finish(st, &r, nullptr);
}

// contiguous(t): the same object when already contiguous
FAST(o_contiguous) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("contiguous", nargs, 1, 1) || !tensor_arg(args[0], "contiguous", "input", &t))
    return nullptr;
  if (sdk_tensor_is_contiguous(t)) {
    Py_INCREF(args[0]);
    return args[0];
  }
  sdk_status st;
  CALL(numel(t), st = sdk_contiguous(t, &r));
  return finish(st, &r, nullptr);
}

}  // namespace

PyObject* sdkpy::tuple_of(std::vector<sdk_tensor*>& rs) {
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(rs.size()));
  if (!tup) {
    for (sdk_tensor* r : rs) sdk_tensor_release(r);
    return nullptr;
  }
  bool failed = false;
  for (size_t i = 0; i < rs.size(); ++i) {
    if (failed) {
      sdk_tensor_release(rs[i]);
      continue;
    }
    PyObject* w = wrap(rs[i]);
    if (!w) {
      failed = true;
      continue;
    }
    PyTuple_SET_ITEM(tup, i, w);
  }
  if (failed) {
    Py_DECREF(tup);
    return nullptr;
  }
  return tup;
}

namespace {

// split_with_sizes(t, sizes, dim) -> tuple
FAST(o_split_with_sizes) {
  sdk_tensor* t;
  std::vector<int64_t> sz;
  int64_t d;
  if (!check_nargs("split", nargs, 3, 3) || !tensor_arg(args[0], "split", "tensor", &t) ||
      !ints_arg(args[1], "split", "split_size_or_sections", &sz, false) ||
      !int_arg(args[2], "split", "dim", &d))
    return nullptr;
  std::vector<sdk_tensor*> rs(sz.size(), nullptr);
  if (sdk_split_with_sizes(t, static_cast<int64_t>(sz.size()), sz.data(), d, rs.data()) != SDK_OK)
    return raise_last_error();
  return tuple_of(rs);
}

}  // namespace

PyMethodDef sdkpy::ops_methods[] = {
    FM("unary", o_unary, "unary(op, input, out=None)"),
    FM("binary", o_binary, "binary(op, a, b, out=None); a or b may be a number"),
    FM("add_scaled", o_add_scaled, "add_scaled(a, b, alpha, out=None): a + alpha * b"),
    FM("elu", o_elu, "elu(input, alpha, out=None)"),
    FM("clamp", o_clamp, "clamp(input, min, max, out=None)"),
    FM("where", o_where, "where(condition, input, other, out=None)"),
    FM("masked_fill", o_masked_fill, "masked_fill(input, mask, value, out=None)"),
    FM("to_dtype", o_to_dtype, "to_dtype(input, dtype, copy=False)"),
    FM("fill_", o_fill_, "fill_(input, value)"),
    FM("copy_", o_copy_, "copy_(dst, src)"),
    FM("empty", o_empty, "empty(size, dtype)"),
    FM("empty_strided", o_empty_strided, "empty_strided(size, stride, dtype)"),
    FM("full", o_full, "full(size, value, dtype)"),
    FM("arange", o_arange, "arange(start, end, step, dtype)"),
    FM("linspace", o_linspace, "linspace(start, end, steps, dtype)"),
    FM("eye", o_eye, "eye(n, m, dtype)"),
    FM("clone", o_clone, "clone(input)"),
    FM("empty_like", o_empty_like, "empty_like(input, dtype, preserve)"),
    FM("uniform_", o_uniform_, "uniform_(input, from, to, generator)"),
    FM("normal_", o_normal_, "normal_(input, mean, std, generator)"),
    FM("randint_", o_randint_, "randint_(input, low, high, generator)"),
    FM("view", o_view, "view(input, size)"),
    FM("reshape", o_reshape, "reshape(input, size)"),
    FM("expand", o_expand, "expand(input, size)"),
    FM("as_strided", o_as_strided, "as_strided(input, size, stride, storage_offset)"),
    FM("permute", o_permute, "permute(input, dims)"),
    FM("transpose", o_transpose, "transpose(input, dim0, dim1)"),
    FM("slice", o_slice, "slice(input, dim, start, end, step)"),
    FM("select", o_select, "select(input, dim, index)"),
    FM("unsqueeze", o_unsqueeze, "unsqueeze(input, dim)"),
    FM("squeeze", o_squeeze, "squeeze(input, dims=None)"),
    FM("flatten", o_flatten, "flatten(input, start_dim, end_dim)"),
    FM("contiguous", o_contiguous, "contiguous(input)"),
    FM("split_with_sizes", o_split_with_sizes, "split_with_sizes(input, sizes, dim) -> tuple"),
    {nullptr, nullptr, 0, nullptr}};
