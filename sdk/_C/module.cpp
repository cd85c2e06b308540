// sdk/_C/module.cpp: module init, grad mode, Python type registration, argument helpers,
// error mapping and the sdk/python.h capsule table.
#include <cmath>
#include <cstring>

#include "common.h"
#include "ops_util.h"
#include "sdk/python.h"

namespace sdkpy {

PyTypeObject* g_tensor_class = &TensorBaseType;
PyObject* g_dtypes[16] = {};
PyObject* g_size_type = nullptr;
PyObject* g_cpu_device = nullptr;
PyObject* g_device_class = nullptr;
int g_ndtypes = 0;
PyObject* g_invalid_argument_error = PyExc_ValueError;  // replaced at module init
PyObject* g_out_of_memory_error = PyExc_MemoryError;

// Grad mode is the core's (one flag per thread for Python and compiled code alike).
bool grad_enabled() { return sdk_grad_mode_is_enabled() != 0; }
void set_grad_enabled(bool on) { sdk_grad_mode_set_enabled(on ? 1 : 0); }

PyObject* raise_last_error() {
  PyObject* exc;
  switch (sdk_last_error_kind()) {
    case SDK_ERROR_VALUE:
      exc = g_invalid_argument_error;
      break;
    case SDK_ERROR_TYPE:
      exc = PyExc_TypeError;
      break;
    case SDK_ERROR_INDEX:
      exc = PyExc_IndexError;
      break;
    case SDK_ERROR_MEMORY:
      exc = g_out_of_memory_error;
      break;
    case SDK_ERROR_NOT_IMPLEMENTED:
      exc = PyExc_NotImplementedError;
      break;
    default:
      exc = PyExc_RuntimeError;
  }
  const char* msg = sdk_last_error_message();
  PyErr_SetString(exc, (msg && *msg) ? msg : "sdk core call failed without a message");
  return nullptr;
}

PyObject* wrap(sdk_tensor* h) {
  if (!h) {
    PyErr_SetString(PyExc_RuntimeError, "sdk core returned a NULL tensor");
    return nullptr;
  }
  PyTypeObject* tp = g_tensor_class;
  PyObject* o = tp->tp_alloc(tp, 0);
  if (!o) {
    sdk_tensor_release(h);
    return nullptr;
  }
  reinterpret_cast<TensorObject*>(o)->handle = h;
  return o;
}

PyObject* finish(sdk_status st, sdk_tensor** rp, PyObject* out) {
  if (st != SDK_OK) return raise_last_error();
  sdk_tensor* r = *rp;
  if (out && out != Py_None) {
    sdk_tensor_release(r);
    Py_INCREF(out);
    return out;
  }
  return wrap(r);
}

bool check_nargs(const char* op, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi) {
  if (nargs >= lo && nargs <= hi) return true;
  if (lo == hi)
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", op, lo, nargs);
  else
    PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", op, lo, hi, nargs);
  return false;
}

bool tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h) {
  if (is_tensor(o) && H(o)) {
    *h = H(o);
    return true;
  }
  if (is_tensor(o))
    PyErr_Format(PyExc_RuntimeError, "%s(): argument '%s' is an uninitialized Tensor", op, arg);
  else
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s", op, arg,
                 Py_TYPE(o)->tp_name);
  return false;
}

bool opt_tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h) {
  if (o == nullptr || o == Py_None) {
    *h = nullptr;
    return true;
  }
  return tensor_arg(o, op, arg, h);
}

bool int_arg(PyObject* o, const char* op, const char* arg, int64_t* v) {
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "%s(): argument '%s' does not fit in int64", op, arg);
      return false;
    }
    *v = x;
    return true;
  }
  if (is_tensor(o) || PyFloat_Check(o) || !PyIndex_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, not %s", op, arg,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  PyObject* i = PyNumber_Index(o);
  if (!i) return false;
  bool ok = int_arg(i, op, arg, v);
  Py_DECREF(i);
  return ok;
}

bool double_arg(PyObject* o, const char* op, const char* arg, double* v) {
  if (is_tensor(o) || !(PyFloat_Check(o) || PyLong_Check(o) || PyNumber_Check(o))) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", op, arg,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  double x = PyFloat_AsDouble(o);
  if (x == -1.0 && PyErr_Occurred()) return false;
  *v = x;
  return true;
}

bool bool_arg(PyObject* o, const char* op, const char* arg, int32_t* v) {
  int r = PyObject_IsTrue(o);
  if (r < 0) return false;
  *v = r;
  return true;
}

bool dtype_arg(PyObject* o, const char* op, const char* arg, sdk_dtype* v) {
  if (o == nullptr || o == Py_None) {
    *v = -1;
    return true;
  }
  for (int i = 0; i < g_ndtypes; ++i)
    if (g_dtypes[i] == o) {
      *v = i;
      return true;
    }
  if (PyLong_Check(o)) {
    long x = PyLong_AsLong(o);
    if (x == -1 && PyErr_Occurred()) return false;
    if (x >= -1 && x < sdk_dtype_count()) {
      *v = static_cast<sdk_dtype>(x);
      return true;
    }
    PyErr_Format(g_invalid_argument_error, "%s(): argument '%s': unknown dtype code %ld", op, arg,
                 x);
    return false;
  }
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be sdk.dtype, not %s", op, arg,
               Py_TYPE(o)->tp_name);
  return false;
}

bool ints_arg(PyObject* o, const char* op, const char* arg, std::vector<int64_t>* v,
              bool allow_negative) {
  v->clear();
  if (PyLong_Check(o) || (!PySequence_Check(o) && PyIndex_Check(o) && !is_tensor(o))) {
    int64_t x;
    if (!int_arg(o, op, arg, &x)) return false;
    v->push_back(x);
  } else {
    if (is_tensor(o) || !PySequence_Check(o) || PyUnicode_Check(o)) {
      PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a sequence of ints, not %s", op,
                   arg, Py_TYPE(o)->tp_name);
      return false;
    }
    PyObject* seq = PySequence_Fast(o, "expected a sequence of ints");
    if (!seq) return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject** items = PySequence_Fast_ITEMS(seq);
    v->reserve(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      int64_t x;
      if (!int_arg(items[i], op, arg, &x)) {
        Py_DECREF(seq);
        return false;
      }
      v->push_back(x);
    }
    Py_DECREF(seq);
  }
  // A size product that overflows int64 would wrap to a small allocation: refuse it here.
  int64_t prod = 1;
  for (int64_t x : *v)
    if (x > 0 && __builtin_mul_overflow(prod, x, &prod)) {
      PyErr_Format(g_invalid_argument_error,
                   "%s(): argument '%s': the number of elements overflows int64", op, arg);
      return false;
    }
  if (!allow_negative) {
    for (int64_t x : *v)
      if (x < 0) {
        PyErr_Format(g_invalid_argument_error, "%s(): argument '%s' has a negative entry %lld", op,
                     arg, static_cast<long long>(x));
        return false;
      }
  }
  return true;
}

int scalar_value(PyObject* o, sdk_scalar* s) {
  s->padding = 0;
  s->f = 0.0;
  s->i = 0;
  if (PyBool_Check(o)) {
    s->kind = SDK_SCALAR_BOOL;
    s->i = (o == Py_True);
    return 1;
  }
  if (PyFloat_Check(o)) {
    s->kind = SDK_SCALAR_FLOAT;
    s->f = PyFloat_AS_DOUBLE(o);
    return 1;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "the int %R does not fit in int64 (the widest dtype)", o);
      return -1;
    }
    s->kind = SDK_SCALAR_INT;
    s->i = x;
    return 1;
  }
  if (is_tensor(o) || PySequence_Check(o)) return 0;
  PyNumberMethods* nb = Py_TYPE(o)->tp_as_number;
  if (!nb) return 0;
  // numpy scalars: bools first (they also have __float__), then integers (__index__) and
  // floats (__float__).
  const char* tn = Py_TYPE(o)->tp_name;
  if (std::strcmp(tn, "numpy.bool") == 0 || std::strcmp(tn, "numpy.bool_") == 0) {
    int r = PyObject_IsTrue(o);
    if (r < 0) return -1;
    s->kind = SDK_SCALAR_BOOL;
    s->i = r;
    return 1;
  }
  if (nb->nb_index) {
    PyObject* i = PyNumber_Index(o);
    if (!i) return -1;
    int r = scalar_value(i, s);
    Py_DECREF(i);
    return r;
  }
  if (nb->nb_float) {
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    s->kind = SDK_SCALAR_FLOAT;
    s->f = d;
    return 1;
  }
  return 0;
}

bool scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s) {
  int r = scalar_value(o, s);
  if (r > 0) return true;
  if (r == 0)
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a number, not %s", op, arg,
                 Py_TYPE(o)->tp_name);
  else if (PyErr_ExceptionMatches(PyExc_OverflowError))  // name the op and the argument
    PyErr_Format(PyExc_OverflowError, "%s(): argument '%s': the int %R does not fit in int64", op,
                 arg, o);
  return false;
}

bool opt_scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s) {
  if (o == nullptr || o == Py_None) {
    s->kind = SDK_SCALAR_NONE;
    s->f = 0;
    s->i = 0;
    s->padding = 0;
    return true;
  }
  return scalar_arg(o, op, arg, s);
}

PyObject* dtype_object(sdk_dtype dt) {
  if (dt >= 0 && dt < g_ndtypes && g_dtypes[dt]) {
    Py_INCREF(g_dtypes[dt]);
    return g_dtypes[dt];
  }
  return PyLong_FromLong(dt);
}

PyObject* make_size(const int64_t* v, int64_t n) {
  PyObject* t;
  if (g_size_type) {
    PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(g_size_type);
    t = tp->tp_alloc(tp, n);
  } else {
    t = PyTuple_New(n);
  }
  if (!t) return nullptr;
  for (int64_t i = 0; i < n; ++i) {
    PyObject* x = PyLong_FromLongLong(v[i]);
    if (!x) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, i, x);
  }
  return t;
}

namespace {

// ---- module-level functions -------------------------------------------------

PyObject* m_is_grad_enabled(PyObject*, PyObject*) { return PyBool_FromLong(grad_enabled()); }

PyObject* m_set_grad_enabled(PyObject*, PyObject* arg) {
  int on = PyObject_IsTrue(arg);
  if (on < 0) return nullptr;
  return PyBool_FromLong(sdk_grad_mode_set_enabled(on));
}

// True when grad mode is on and any argument (or element of a list/tuple argument)
// is a tensor whose raw requires_grad flag is set: the test every public op makes.
PyObject* m_needs_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!grad_enabled()) Py_RETURN_FALSE;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject* a = args[i];
    if (is_tensor(a)) {
      if (reinterpret_cast<TensorObject*>(a)->requires_grad) Py_RETURN_TRUE;
    } else if (PyList_Check(a) || PyTuple_Check(a)) {
      PyObject* seq = a;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
      PyObject** items = PySequence_Fast_ITEMS(seq);
      for (Py_ssize_t j = 0; j < n; ++j)
        if (is_tensor(items[j]) && reinterpret_cast<TensorObject*>(items[j])->requires_grad)
          Py_RETURN_TRUE;
    }
  }
  Py_RETURN_FALSE;
}

PyObject* m_set_tensor_class(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class: expected a subclass of TensorBase");
    return nullptr;
  }
  PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(cls);
  if (tp->tp_basicsize != TensorBaseType.tp_basicsize) {
    PyErr_SetString(PyExc_TypeError,
                    "_set_tensor_class: the class must not add fields (use __slots__ = ())");
    return nullptr;
  }
  Py_INCREF(cls);
  g_tensor_class = tp;  // kept forever: instances may outlive module teardown
  Py_RETURN_NONE;
}

// _set_python_types(dtypes: tuple indexed by code, size_type, cpu_device, device_class)
PyObject* m_set_python_types(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_nargs("_set_python_types", nargs, 4, 4)) return nullptr;
  if (!PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) > 16) {
    PyErr_SetString(PyExc_TypeError, "_set_python_types: dtypes must be a tuple");
    return nullptr;
  }
  g_ndtypes = static_cast<int>(PyTuple_GET_SIZE(args[0]));
  for (int i = 0; i < g_ndtypes; ++i) {
    g_dtypes[i] = PyTuple_GET_ITEM(args[0], i);
    Py_INCREF(g_dtypes[i]);
  }
  if (!PyType_Check(args[1]) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(args[1]), &PyTuple_Type)) {
    PyErr_SetString(PyExc_TypeError, "_set_python_types: size_type must subclass tuple");
    return nullptr;
  }
  g_size_type = args[1];
  g_cpu_device = args[2];
  g_device_class = args[3];
  Py_INCREF(g_size_type);
  Py_INCREF(g_cpu_device);
  Py_INCREF(g_device_class);
  Py_RETURN_NONE;
}

PyObject* m_abi_version(PyObject*, PyObject*) {
  uint32_t v = sdk_abi_version();
  return Py_BuildValue("(II)", v >> 16, v & 0xffff);
}

PyObject* m_version_string(PyObject*, PyObject*) {
  return PyUnicode_FromString(sdk_version_string());
}

PyObject* m_set_num_threads(PyObject*, PyObject* arg) {
  int64_t n;
  if (!int_arg(arg, "set_num_threads", "n", &n)) return nullptr;
  if (n < 1 || n > 4096) {
    PyErr_Format(g_invalid_argument_error, "set_num_threads(): n must be in [1, 4096], got %lld",
                 static_cast<long long>(n));
    return nullptr;
  }
  if (sdk_set_num_threads(static_cast<int32_t>(n)) != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

PyObject* m_get_num_threads(PyObject*, PyObject*) { return PyLong_FromLong(sdk_get_num_threads()); }

PyObject* m_promote_types(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  sdk_dtype a, b;
  if (!check_nargs("promote_types", nargs, 2, 2) ||
      !dtype_arg(args[0], "promote_types", "type1", &a) ||
      !dtype_arg(args[1], "promote_types", "type2", &b))
    return nullptr;
  if (a < 0 || b < 0) {
    PyErr_SetString(PyExc_TypeError, "promote_types(): dtypes must not be None");
    return nullptr;
  }
  return dtype_object(sdk_promote_types(a, b));
}

PyObject* m_raise_error(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  // Test hook: record an error in the core slot and raise it like a failing op would.
  int64_t kind;
  if (!check_nargs("_raise_error", nargs, 2, 2) || !int_arg(args[0], "_raise_error", "kind", &kind))
    return nullptr;
  const char* msg = PyUnicode_AsUTF8(args[1]);
  if (!msg) return nullptr;
  sdk_set_last_error(static_cast<sdk_status>(kind), msg);
  return raise_last_error();
}

PyMethodDef module_methods[] = {
    {"is_grad_enabled", m_is_grad_enabled, METH_NOARGS, "Whether grad mode is on (per thread)."},
    {"_set_grad_enabled", m_set_grad_enabled, METH_O, "Set grad mode; returns the previous."},
    {"_needs_grad", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_needs_grad)),
     METH_FASTCALL, "Grad mode on and some tensor argument requires grad."},
    {"_set_tensor_class", m_set_tensor_class, METH_O, "Class of tensors created from C."},
    {"_set_python_types",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_set_python_types)), METH_FASTCALL,
     "Register dtype objects, Size, the cpu device and the device class."},
    {"_register_fallbacks", m_register_fallbacks, METH_O,
     "Register the Python functions the arithmetic slots call on the autograd path."},
    {"abi_version", m_abi_version, METH_NOARGS, "(major, minor) ABI of the running core."},
    {"version_string", m_version_string, METH_NOARGS, "Release version of the core."},
    {"set_num_threads", m_set_num_threads, METH_O, "Threads used by the core."},
    {"get_num_threads", m_get_num_threads, METH_NOARGS, "Threads used by the core."},
    {"promote_types", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_promote_types)),
     METH_FASTCALL, "dtype of an op on two dtypes."},
    {"_raise_error", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(m_raise_error)),
     METH_FASTCALL, "Raise a core error kind with a message (tests)."},
    {nullptr, nullptr, 0, nullptr}};

// ---- the sdk/python.h capsule ------------------------------------------------

int api_is_tensor(PyObject* o) { return o && is_tensor(o) ? 1 : 0; }
// Extensions get and give back handles that carry autograd state (autograd.cpp).
int api_to_handle(PyObject* o, sdk_tensor** out) {
  if (!o || !out || !is_tensor(o)) return to_handle(o, out);
  sdk_tensor* h = boundary_in(o);
  if (!h) return -1;
  sdk_tensor_retain(h);
  *out = h;
  return 0;
}
PyObject* api_from_handle(sdk_tensor* t) { return boundary_out(t); }
PyObject* api_raise_last_error() { return raise_last_error(); }

sdk_python_api_table g_api = {
    sizeof(sdk_python_api_table),
    SDK_ABI_VERSION_MAJOR,
    SDK_ABI_VERSION_MINOR,
    0,
    api_is_tensor,
    api_to_handle,
    api_from_handle,
    api_raise_last_error,
};

int add_methods(PyObject* m, PyMethodDef* defs) {
  for (PyMethodDef* d = defs; d->ml_name; ++d) {
    PyObject* f = PyCFunction_NewEx(d, nullptr, m);
    if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) {
      Py_XDECREF(f);
      return -1;
    }
  }
  return 0;
}

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "sdk._C",
                          "Raw bindings of the sdk tensor core (no autograd).", -1, nullptr};

// sdk.InvalidArgumentError and sdk.OutOfMemoryError: a ValueError / MemoryError that is
// also a RuntimeError, so code ported from torch (which raises RuntimeError for a shape
// mismatch or an allocation failure) keeps catching what it caught there.
int add_error_types(PyObject* m) {
  PyObject* bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_RuntimeError);
  if (!bases) return -1;
  PyObject* inv = PyErr_NewExceptionWithDoc(
      "sdk.InvalidArgumentError",
      "An op got an argument it cannot use (shapes, dims, sizes, values). Both a ValueError "
      "and a RuntimeError.",
      bases, nullptr);
  Py_DECREF(bases);
  if (!inv) return -1;
  bases = PyTuple_Pack(2, PyExc_MemoryError, PyExc_RuntimeError);
  PyObject* oom =
      bases ? PyErr_NewExceptionWithDoc(
                  "sdk.OutOfMemoryError",
                  "An allocation failed. Both a MemoryError and a RuntimeError.", bases, nullptr)
            : nullptr;
  Py_XDECREF(bases);
  if (!oom) {
    Py_DECREF(inv);
    return -1;
  }
  Py_INCREF(inv);  // one reference for the module, one kept in the global
  Py_INCREF(oom);
  if (PyModule_AddObject(m, "InvalidArgumentError", inv) < 0 ||
      PyModule_AddObject(m, "OutOfMemoryError", oom) < 0) {
    Py_DECREF(inv);
    Py_DECREF(oom);
    return -1;
  }
  g_invalid_argument_error = inv;
  g_out_of_memory_error = oom;
  return 0;
}

}  // namespace

}  // namespace sdkpy

namespace {
// sdk._C.<attr>: {torch name: code} of one op table of the C ABI.
template <size_t N>
int add_op_table(PyObject* m, const char* attr, const char* const (&names)[N]) {
  PyObject* table = PyDict_New();
  if (!table) return -1;
  for (size_t code = 0; code < N; ++code) {
    PyObject* v = PyLong_FromSize_t(code);
    if (!v || PyDict_SetItemString(table, names[code], v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(table);
      return -1;
    }
    Py_DECREF(v);
  }
  if (PyModule_AddObject(m, attr, table) < 0) {
    Py_DECREF(table);
    return -1;
  }
  return 0;
}
}  // namespace

PyMODINIT_FUNC PyInit__C(void) {
  using namespace sdkpy;
  if (sdk_abi_check(SDK_ABI_VERSION_MAJOR, SDK_ABI_VERSION_MINOR) != SDK_OK) {
    PyErr_Format(PyExc_ImportError, "sdk._C: %s", sdk_last_error_message());
    return nullptr;
  }
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return nullptr;
  if (add_error_types(m) < 0 || add_methods(m, module_methods) < 0 ||
      add_methods(m, ops_methods) < 0 || add_methods(m, ops_more_methods) < 0 ||
      add_methods(m, ops_struct_methods) < 0 || add_methods(m, ops_nn_methods) < 0 ||
      add_methods(m, ops_elementwise_methods) < 0 || add_methods(m, cuda_methods) < 0 ||
      add_methods(m, rng_state_methods) < 0 || add_methods(m, interop_methods) < 0 ||
      add_methods(m, op_registry_methods) < 0 || add_methods(m, autograd_methods) < 0 ||
      autograd_ready(m) < 0 || op_registry_ready(m) < 0 || tensor_type_ready(m) < 0 ||
      generator_type_ready(m) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  PyObject* cap = PyCapsule_New(&g_api, SDK_PYTHON_API_CAPSULE, nullptr);
  if (!cap || PyModule_AddObject(m, SDK_PYTHON_API_ATTR, cap) < 0) {
    Py_XDECREF(cap);
    Py_DECREF(m);
    return nullptr;
  }
  if (add_op_table(m, "UNARY_OPS", kUnaryNames) < 0 ||
      add_op_table(m, "BINARY_OPS", kBinaryNames) < 0 ||
      add_op_table(m, "REDUCE_OPS", kReduceNames) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  PyModule_AddIntConstant(m, "ABI_VERSION_MAJOR", SDK_ABI_VERSION_MAJOR);
  PyModule_AddIntConstant(m, "ABI_VERSION_MINOR", SDK_ABI_VERSION_MINOR);
  PyModule_AddIntConstant(m, "_NO_GIL_NUMEL", kNoGilNumel);
  return m;
}
