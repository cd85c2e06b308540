// sdk/csrc/ops_creation.cpp: raw ops that make tensors or fill them with random values.
// empty, empty_strided, full, arange, linspace, eye, empty_like, clone; uniform_, normal_,
// randint_.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- creation -------------------------------------------------------------------------------

sdk_device cpu() { return sdk_device{SDK_CPU, 0}; }

bool float_dtype(const char* op, sdk_dtype* dt) {
  if (*dt == -1) *dt = SDK_FLOAT32;
  return true;
}

// empty(sizes, dtype)
SDK_PY_FASTCALL(o_empty) {
  std::vector<int64_t> sz;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("empty", nargs, 2, 2) || !ints_arg(args[0], "empty", "size", &sz, false) ||
      !dtype_arg(args[1], "empty", "dtype", &dt) || !float_dtype("empty", &dt))
    return nullptr;
  return finish(sdk_empty(static_cast<int64_t>(sz.size()), sz.data(), dt, cpu(), &r), &r, nullptr);
}

// empty_strided(sizes, strides, dtype)
SDK_PY_FASTCALL(o_empty_strided) {
  std::vector<int64_t> sz, st;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("empty_strided", nargs, 3, 3) ||
      !ints_arg(args[0], "empty_strided", "size", &sz, false) ||
      !ints_arg(args[1], "empty_strided", "stride", &st, false, false) ||
      !dtype_arg(args[2], "empty_strided", "dtype", &dt) || !float_dtype("empty_strided", &dt))
    return nullptr;
  if (sz.size() != st.size()) {
    PyErr_Format(module_state.invalid_argument_error, "empty_strided(): %zd sizes but %zd strides",
                 sz.size(), st.size());
    return nullptr;
  }
  return finish(
      sdk_empty_strided(static_cast<int64_t>(sz.size()), sz.data(), st.data(), dt, cpu(), &r), &r,
      nullptr);
}

// full(sizes, value, dtype)
SDK_PY_FASTCALL(o_full) {
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
  SDK_PY_RUN_NOGIL_IF_LARGE(
      n, st = sdk_full(static_cast<int64_t>(sz.size()), sz.data(), v, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// arange(start, end, step, dtype)
SDK_PY_FASTCALL(o_arange) {
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
  SDK_PY_RUN_NOGIL_IF_LARGE(count > 0 ? count : 0.0, st = sdk_arange(a, b, s, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// linspace(start, end, steps, dtype)
SDK_PY_FASTCALL(o_linspace) {
  double a, b;
  int64_t n;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("linspace", nargs, 4, 4) || !double_arg(args[0], "linspace", "start", &a) ||
      !double_arg(args[1], "linspace", "end", &b) || !int_arg(args[2], "linspace", "steps", &n) ||
      !dtype_arg(args[3], "linspace", "dtype", &dt) || !float_dtype("linspace", &dt))
    return nullptr;
  if (n < 0) {
    PyErr_Format(module_state.invalid_argument_error,
                 "linspace(): number of steps must be non-negative, got %lld",
                 static_cast<long long>(n));
    return nullptr;
  }
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(n, st = sdk_linspace(a, b, n, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// eye(n, m, dtype)
SDK_PY_FASTCALL(o_eye) {
  int64_t n, m = -1;
  sdk_dtype dt;
  sdk_tensor* r = nullptr;
  if (!check_nargs("eye", nargs, 3, 3) || !int_arg(args[0], "eye", "n", &n) ||
      (arg_or_none(args, nargs, 1) != Py_None && !int_arg(args[1], "eye", "m", &m)) ||
      !dtype_arg(args[2], "eye", "dtype", &dt) || !float_dtype("eye", &dt))
    return nullptr;
  if (n < 0 || (arg_or_none(args, nargs, 1) != Py_None && m < 0)) {
    PyErr_Format(module_state.invalid_argument_error,
                 "eye(): n and m must be non-negative, got n=%lld m=%lld",
                 static_cast<long long>(n), static_cast<long long>(m));
    return nullptr;
  }
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(static_cast<double>(n) * static_cast<double>(m < 0 ? n : m),
                            st = sdk_eye(n, m, dt, cpu(), &r));
  return finish(st, &r, nullptr);
}

// empty_like(t, dtype or None, preserve): t's sizes, laid out like t when preserve is true
SDK_PY_FASTCALL(o_empty_like) {
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
SDK_PY_FASTCALL(o_clone) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("clone", nargs, 1, 1) || !tensor_arg(args[0], "clone", "input", &t))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_clone(t, &r));
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
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t),
                            st = normal ? sdk_normal_(t, a, b, g) : sdk_uniform_(t, a, b, g));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}
SDK_PY_FASTCALL(o_uniform_) { return fill_random(args, nargs, "uniform_", false); }
SDK_PY_FASTCALL(o_normal_) { return fill_random(args, nargs, "normal_", true); }

// randint_(t, low, high, generator)
SDK_PY_FASTCALL(o_randint_) {
  sdk_tensor* t;
  int64_t a, b;
  if (!check_nargs("randint_", nargs, 4, 4) || !tensor_arg(args[0], "randint", "input", &t) ||
      !int_arg(args[1], "randint", "low", &a) || !int_arg(args[2], "randint", "high", &b))
    return nullptr;
  bool ok;
  sdk_generator* g = generator_handle(args[3], &ok);
  if (!ok) return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_randint_(t, a, b, g));
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

}  // namespace

PyMethodDef sdkpy::ops_creation_methods[] = {
    SDK_PY_FASTCALL_METHOD("empty", o_empty, "empty(size, dtype)"),
    SDK_PY_FASTCALL_METHOD("empty_strided", o_empty_strided, "empty_strided(size, stride, dtype)"),
    SDK_PY_FASTCALL_METHOD("full", o_full, "full(size, value, dtype)"),
    SDK_PY_FASTCALL_METHOD("arange", o_arange, "arange(start, end, step, dtype)"),
    SDK_PY_FASTCALL_METHOD("linspace", o_linspace, "linspace(start, end, steps, dtype)"),
    SDK_PY_FASTCALL_METHOD("eye", o_eye, "eye(n, m, dtype)"),
    SDK_PY_FASTCALL_METHOD("empty_like", o_empty_like, "empty_like(input, dtype, preserve)"),
    SDK_PY_FASTCALL_METHOD("clone", o_clone, "clone(input)"),
    SDK_PY_FASTCALL_METHOD("uniform_", o_uniform_, "uniform_(input, from, to, generator)"),
    SDK_PY_FASTCALL_METHOD("normal_", o_normal_, "normal_(input, mean, std, generator)"),
    SDK_PY_FASTCALL_METHOD("randint_", o_randint_, "randint_(input, low, high, generator)"),
    {nullptr, nullptr, 0, nullptr}};
