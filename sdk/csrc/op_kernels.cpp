// sdk/csrc/op_kernels.cpp: Python functions as kernels of registered ops; the library_* calls.
// Boxed values become the kernel's Python arguments and its results go back (value_to_py also
// converts OpHandle calls' results); sdk.library registers definitions and kernels with the
// library_* functions.
#include <cstring>
#include <string>

#include "args.h"
#include "common.h"
#include "op_values.h"

namespace sdkpy {
namespace {

// An exception raised by a Python kernel, re-raised by the Python call that reached it
// (restore_python_kernel_error); per thread, as the core's last error is. The core error it
// was turned into is kept with it: the exception belongs to that error only.
thread_local PyObject* t_kernel_exc_type = nullptr;
thread_local PyObject* t_kernel_exc_value = nullptr;
thread_local PyObject* t_kernel_exc_tb = nullptr;
thread_local sdk_status t_kernel_exc_kind = SDK_OK;
thread_local std::string t_kernel_exc_message;

}  // namespace

bool restore_python_kernel_error() {
  if (!t_kernel_exc_type) return false;
  PyObject *type = t_kernel_exc_type, *value = t_kernel_exc_value, *tb = t_kernel_exc_tb;
  t_kernel_exc_type = t_kernel_exc_value = t_kernel_exc_tb = nullptr;
  // C or C++ code between the kernel and this call may have handled the kernel's failure and
  // failed later for a reason of its own: then the kept exception is stale, and the core's
  // error is the one to raise.
  if (sdk_last_error_kind() != t_kernel_exc_kind ||
      t_kernel_exc_message != sdk_last_error_message()) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return false;
  }
  PyErr_Restore(type, value, tb);
  return true;
}

bool int_list_value(PyObject* o, const char* op, const char* what, std::vector<int64_t>* out) {
  out->clear();
  if (is_tensor(o) || PyUnicode_Check(o) || PyBytes_Check(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): %s must be a list of ints (int[]), not %s", op, what,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  OwnedRef items(PySequence_Tuple(o));  // a copy: __index__ may change `o` under the loop
  if (!items.p) return false;
  Py_ssize_t n = PyTuple_GET_SIZE(items.p);
  out->reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* x = PyTuple_GET_ITEM(items.p, k);
    if (PyFloat_Check(x) || is_tensor(x) || !PyIndex_Check(x)) {
      PyErr_Format(PyExc_TypeError, "%s(): %s must be a list of ints (int[]); item %zd is %s", op,
                   what, k, Py_TYPE(x)->tp_name);
      return false;
    }
    OwnedRef i(PyNumber_Index(x));
    if (!i.p) return false;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i.p, &overflow);
    if (v == -1 && PyErr_Occurred()) return false;
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "%s(): %s: item %zd (%S) does not fit in int64", op, what,
                   k, i.p);
      return false;
    }
    out->push_back(static_cast<int64_t>(v));
  }
  return true;
}

const char* c_text(PyObject* o, const char* fn, const char* what) {
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a str, not %s", fn, what, Py_TYPE(o)->tp_name);
    return nullptr;
  }
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(o, &n);
  if (s && std::strlen(s) != static_cast<size_t>(n)) {
    PyErr_Format(PyExc_ValueError, "%s: %s %R contains a NUL character", fn, what, o);
    return nullptr;
  }
  return s;
}

// A new list of `convert(d[k])` for k < n; nullptr (the error set) when one conversion fails.
template <typename T, typename Convert>
PyObject* list_of(const T* d, int64_t n, Convert convert) {
  PyObject* l = PyList_New(n);
  for (int64_t k = 0; l && k < n; ++k) {
    PyObject* x = convert(d[k]);
    if (!x) {
      Py_DECREF(l);
      return nullptr;
    }
    PyList_SET_ITEM(l, k, x);
  }
  return l;
}

// Value i of `v` as a new Python object (for results and for Python kernels' arguments). A
// tensor is moved out of `v` (the value becomes None): callers are done with the values.
PyObject* value_to_py(sdk_values* v, int64_t i) {
  switch (sdk_values_tag(v, i)) {
    case SDK_VALUE_NONE:
      Py_RETURN_NONE;
    case SDK_VALUE_TENSOR: {
      sdk_tensor* h = nullptr;
      if (sdk_values_take_tensor(v, i, &h) != SDK_OK) return raise_last_error();
      return boundary_out(h);
    }
    case SDK_VALUE_INT: {
      int64_t x = 0;
      sdk_values_get_int(v, i, &x);
      return PyLong_FromLongLong(x);
    }
    case SDK_VALUE_FLOAT: {
      double x = 0;
      sdk_values_get_float(v, i, &x);
      return PyFloat_FromDouble(x);
    }
    case SDK_VALUE_BOOL: {
      int32_t x = 0;
      sdk_values_get_bool(v, i, &x);
      return PyBool_FromLong(x);
    }
    case SDK_VALUE_STRING: {
      const char* d = nullptr;
      int64_t n = 0;
      sdk_values_get_string(v, i, &d, &n);
      return PyUnicode_DecodeUTF8(d, n, "replace");
    }
    case SDK_VALUE_SCALAR_TYPE: {
      int32_t d = 0;
      sdk_values_get_scalar_type(v, i, &d);
      return dtype_object(static_cast<sdk_dtype>(d));
    }
    case SDK_VALUE_DEVICE: {
      sdk_device d{};
      sdk_values_get_device(v, i, &d);
      PyObject* spec = d.type == SDK_CPU ? PyUnicode_FromString("cpu")
                                         : PyUnicode_FromFormat("cuda:%d", d.index);
      if (!spec) return nullptr;
      PyObject* dev = PyObject_CallOneArg(module_state.device_class, spec);
      Py_DECREF(spec);
      return dev;
    }
    case SDK_VALUE_INT_LIST: {
      const int64_t* d = nullptr;
      int64_t n = 0;
      sdk_values_get_int_list(v, i, &d, &n);
      return list_of(d, n, [](auto x) { return PyLong_FromLongLong(x); });
    }
    case SDK_VALUE_FLOAT_LIST: {
      const double* d = nullptr;
      int64_t n = 0;
      sdk_values_get_float_list(v, i, &d, &n);
      return list_of(d, n, [](auto x) { return PyFloat_FromDouble(x); });
    }
    case SDK_VALUE_BOOL_LIST: {
      const int32_t* d = nullptr;
      int64_t n = 0;
      sdk_values_get_bool_list(v, i, &d, &n);
      return list_of(d, n, [](auto x) { return PyBool_FromLong(x); });
    }
    case SDK_VALUE_TENSOR_LIST: {
      sdk_tensor* const* d = nullptr;
      int64_t n = 0;
      sdk_values_get_tensor_list(v, i, &d, &n);
      return list_of(d, n, [](sdk_tensor* t) {
        if (!t) return new_ref(Py_None);
        sdk_tensor_retain(t);
        return boundary_out(t);
      });
    }
    default:
      PyErr_SetString(PyExc_RuntimeError, "an op returned a value of an unknown kind");
      return nullptr;
  }
}

bool device_of(PyObject* dev, sdk_device* out) {
  PyObject* type = PyObject_GetAttrString(dev, "type");
  PyObject* index = type ? PyObject_GetAttrString(dev, "index") : nullptr;
  if (!index) {
    Py_XDECREF(type);
    return false;
  }
  bool cuda = PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "cuda") == 0;
  long idx = index == Py_None ? 0 : PyLong_AsLong(index);
  Py_DECREF(type);
  Py_DECREF(index);
  if (idx == -1 && PyErr_Occurred()) return false;
  *out = sdk_device{cuda ? SDK_CUDA : SDK_CPU, static_cast<int32_t>(idx)};
  return true;
}

namespace {

// ---- Python kernels ----------------------------------------------------------------------

sdk_status python_error_status() {
  // Keep the exception for the Python call that reached the kernel; give the core a status
  // and a message for callers in C and C++.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  sdk_status kind = SDK_ERROR_RUNTIME;
  if (PyErr_GivenExceptionMatches(type, PyExc_NotImplementedError))
    kind = SDK_ERROR_NOT_IMPLEMENTED;
  else if (PyErr_GivenExceptionMatches(type, PyExc_IndexError))
    kind = SDK_ERROR_INDEX;
  else if (PyErr_GivenExceptionMatches(type, PyExc_TypeError))
    kind = SDK_ERROR_TYPE;
  else if (PyErr_GivenExceptionMatches(type, PyExc_MemoryError))
    kind = SDK_ERROR_MEMORY;
  else if (PyErr_GivenExceptionMatches(type, PyExc_ValueError))
    kind = SDK_ERROR_VALUE;
  std::string msg = "a Python kernel raised an exception";
  if (value) {
    PyObject* s = PyObject_Str(value);
    const char* c = s ? PyUnicode_AsUTF8(s) : nullptr;
    if (c) msg = std::string(reinterpret_cast<PyTypeObject*>(type)->tp_name) + ": " + c;
    Py_XDECREF(s);
    PyErr_Clear();
  }
  Py_XDECREF(t_kernel_exc_type);
  Py_XDECREF(t_kernel_exc_value);
  Py_XDECREF(t_kernel_exc_tb);
  t_kernel_exc_type = type;
  t_kernel_exc_value = value;
  t_kernel_exc_tb = tb;
  t_kernel_exc_kind = sdk_set_last_error(kind, msg.c_str());
  t_kernel_exc_message = sdk_last_error_message();  // as the core keeps it
  return t_kernel_exc_kind;
}

bool push_result(const sdk_op* op, PyObject* r, int64_t i, sdk_values* v) {
  sdk_op_argument info{};
  info.size = sizeof(info);
  if (sdk_op_argument_info(op, 1, i, &info) != SDK_OK) return false;
  if (r == Py_None) return sdk_values_push_none(v) == SDK_OK;
  sdk_status st = SDK_OK;
  switch (info.tag) {
    case SDK_VALUE_TENSOR: {
      if (!is_tensor(r)) {
        sdk_tensor* h = nullptr;
        if (to_handle(r, &h) < 0) return false;
        st = sdk_values_push_tensor(v, h);
        sdk_tensor_release(h);
      } else {
        st = sdk_values_push_tensor(v, handle_of(r));
      }
      break;
    }
    case SDK_VALUE_TENSOR_LIST: {
      if (is_tensor(r) || !(PyList_Check(r) || PyTuple_Check(r))) {
        PyErr_Format(PyExc_TypeError, "%s: the Python kernel must return a list for %s, not %s",
                     sdk_op_name(op), info.type, Py_TYPE(r)->tp_name);
        return false;
      }
      OwnedRef items(PySequence_Tuple(r));  // a copy: the list cannot change under the loop
      if (!items.p) return false;
      Py_ssize_t n = PyTuple_GET_SIZE(items.p);
      bool optional_elements = std::strstr(info.type, "?[") != nullptr;  // Tensor?[]
      std::vector<const sdk_tensor*> hs;
      for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject* x = PyTuple_GET_ITEM(items.p, k);
        if (x == Py_None && optional_elements) {
          hs.push_back(nullptr);
          continue;
        }
        if (!is_tensor(x)) {
          PyErr_Format(PyExc_TypeError, "%s: the Python kernel returned a %s in its %s result",
                       sdk_op_name(op), Py_TYPE(x)->tp_name, info.type);
          return false;
        }
        hs.push_back(handle_of(x));
      }
      st = sdk_values_push_tensor_list(v, hs.data(), static_cast<int64_t>(hs.size()));
      break;
    }
    case SDK_VALUE_FLOAT:
    case SDK_VALUE_INT:
    case SDK_VALUE_BOOL: {
      if (PyBool_Check(r)) {
        st = sdk_values_push_bool(v, r == Py_True);
      } else if (PyLong_Check(r)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(r, &overflow);
        if (overflow) {
          PyErr_Format(PyExc_OverflowError,
                       "%s: the Python kernel's %s result %R does not fit in int64",
                       sdk_op_name(op), info.type, r);
          return false;
        }
        if (x == -1 && PyErr_Occurred()) return false;
        st = sdk_values_push_int(v, x);
      } else {
        double x = PyFloat_AsDouble(r);
        if (x == -1.0 && PyErr_Occurred()) return false;
        st = sdk_values_push_float(v, x);
      }
      break;
    }
    case SDK_VALUE_STRING: {
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(r, &n);
      if (!s) return false;
      st = sdk_values_push_string(v, s, n);
      break;
    }
    case SDK_VALUE_SCALAR_TYPE: {
      sdk_dtype d;
      if (!dtype_arg(r, sdk_op_name(op), "result", &d)) return false;
      st = sdk_values_push_scalar_type(v, d);
      break;
    }
    case SDK_VALUE_DEVICE: {
      sdk_device d;
      if (!device_of(r, &d)) return false;
      st = sdk_values_push_device(v, d);
      break;
    }
    case SDK_VALUE_INT_LIST: {
      std::vector<int64_t> xs;
      if (!int_list_value(r, sdk_op_name(op), "the Python kernel's int[] result", &xs)) {
        return false;
      }
      st = sdk_values_push_int_list(v, xs.data(), static_cast<int64_t>(xs.size()));
      break;
    }
    case SDK_VALUE_FLOAT_LIST:
    case SDK_VALUE_BOOL_LIST: {
      if (is_tensor(r) || !(PyList_Check(r) || PyTuple_Check(r))) {
        PyErr_Format(PyExc_TypeError, "%s: the Python kernel must return a list for %s, not %s",
                     sdk_op_name(op), info.type, Py_TYPE(r)->tp_name);
        return false;
      }
      OwnedRef seq(PySequence_Tuple(r));  // a copy: __float__ may change the list
      if (!seq.p) return false;
      Py_ssize_t n = PyTuple_GET_SIZE(seq.p);
      std::vector<double> fs;
      std::vector<int32_t> bs;
      bool ok = true;
      for (Py_ssize_t k = 0; ok && k < n; ++k) {
        PyObject* x = PyTuple_GET_ITEM(seq.p, k);
        if (info.tag == SDK_VALUE_FLOAT_LIST) {
          double d = PyFloat_AsDouble(x);
          ok = !(d == -1.0 && PyErr_Occurred());
          fs.push_back(d);
        } else {
          int t = PyObject_IsTrue(x);
          ok = t >= 0;
          bs.push_back(t);
        }
      }
      if (!ok) return false;
      st = info.tag == SDK_VALUE_FLOAT_LIST ? sdk_values_push_float_list(v, fs.data(), n)
                                            : sdk_values_push_bool_list(v, bs.data(), n);
      break;
    }
    default: {
      PyErr_Format(PyExc_TypeError, "%s: a Python kernel cannot return a %s", sdk_op_name(op),
                   info.type);
      return false;
    }
  }
  if (st != SDK_OK) {
    raise_last_error();
    return false;
  }
  return true;
}

// Several results: the kernel returns a tuple (or list) of exactly `nret` values; anything
// else, a tensor above all (a sequence of its rows), is an error naming the op and schema.
bool push_results(const sdk_op* op, PyObject* r, int64_t nret, sdk_values* v) {
  if (!PyTuple_Check(r) && !PyList_Check(r)) {
    PyErr_Format(PyExc_TypeError,
                 "%s: the Python kernel must return a tuple of %lld results (schema: %s), "
                 "not %s",
                 sdk_op_name(op), static_cast<long long>(nret), sdk_op_schema(op),
                 Py_TYPE(r)->tp_name);
    return false;
  }
  OwnedRef items(PySequence_Tuple(r));
  if (!items.p) return false;
  if (PyTuple_GET_SIZE(items.p) != nret) {
    PyErr_Format(PyExc_TypeError,
                 "%s: the Python kernel returned %zd values, the schema (%s) has %lld",
                 sdk_op_name(op), PyTuple_GET_SIZE(items.p), sdk_op_schema(op),
                 static_cast<long long>(nret));
    return false;
  }
  for (int64_t k = 0; k < nret; ++k) {
    if (!push_result(op, PyTuple_GET_ITEM(items.p, k), k, v)) return false;
  }
  return true;
}

sdk_status python_kernel(void* context, const sdk_op* op, sdk_values* v) {
  PyGILState_STATE g = PyGILState_Ensure();
  sdk_status result = SDK_OK;
  int64_t n = sdk_values_size(v);
  PyObject* args = PyTuple_New(n);
  PyObject* r = nullptr;
  for (int64_t k = 0; args && k < n; ++k) {
    PyObject* x = value_to_py(v, k);
    if (!x) {
      Py_CLEAR(args);
      break;
    }
    PyTuple_SET_ITEM(args, k, x);
  }
  if (args) r = PyObject_Call(static_cast<PyObject*>(context), args, nullptr);
  Py_XDECREF(args);
  if (!r) {
    result = python_error_status();
  } else {
    sdk_values_clear(v);
    int64_t nret = sdk_op_num_arguments(op, 1);
    bool ok = true;
    if (nret == 1) {
      ok = push_result(op, r, 0, v);
    } else if (nret > 1) {
      ok = push_results(op, r, nret, v);
    } else if (r != Py_None) {
      PyErr_Format(PyExc_TypeError,
                   "%s: the schema returns nothing, but the Python kernel returned %s",
                   sdk_op_name(op), Py_TYPE(r)->tp_name);
      ok = false;
    }
    Py_DECREF(r);
    if (!ok) result = python_error_status();
  }
  PyGILState_Release(g);
  return result;
}

void python_kernel_free(void* context) {
  if (!Py_IsInitialized()) return;  // at exit: the interpreter is gone, leak it
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(context));
  PyGILState_Release(g);
}

// ---- registration ------------------------------------------------------------------------

constexpr const char* kLibraryCapsule = "sdk._C.library";

void library_capsule_free(PyObject* cap) {
  auto* lib = static_cast<sdk_library*>(PyCapsule_GetPointer(cap, kLibraryCapsule));
  if (lib) sdk_library_close(lib);
}

sdk_library* library_of(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, kLibraryCapsule)) {
    PyErr_SetString(PyExc_ValueError, "the library was closed (or is not a library)");
    return nullptr;
  }
  return static_cast<sdk_library*>(PyCapsule_GetPointer(cap, kLibraryCapsule));
}

// library_open(kind, ns, key, source) -> capsule (closing when collected)
PyObject* m_library_open(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_nargs("library_open", nargs, 4, 4)) return nullptr;
  long kind = PyLong_AsLong(args[0]);
  long key = PyLong_AsLong(args[2]);
  if (PyErr_Occurred()) return nullptr;
  const char* ns = c_text(args[1], "library_open", "the namespace");
  const char* source = ns ? c_text(args[3], "library_open", "the source") : nullptr;
  if (!source) return nullptr;
  sdk_library* lib = nullptr;
  if (sdk_library_open(static_cast<int32_t>(kind), ns, static_cast<int32_t>(key), source, &lib) !=
      SDK_OK) {
    return raise_last_error();
  }
  PyObject* cap = PyCapsule_New(lib, kLibraryCapsule, library_capsule_free);
  if (!cap) sdk_library_close(lib);
  return cap;
}

PyObject* m_library_define(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_nargs("library_define", nargs, 2, 2)) return nullptr;
  sdk_library* lib = library_of(args[0]);
  const char* schema = lib ? c_text(args[1], "library_define", "the schema") : nullptr;
  if (!schema) return nullptr;
  if (sdk_library_define(lib, schema) != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

// library_impl(lib, name, key, callable): a Python function as the kernel
PyObject* m_library_impl(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_nargs("library_impl", nargs, 4, 4)) return nullptr;
  sdk_library* lib = library_of(args[0]);
  const char* name = lib ? c_text(args[1], "library_impl", "the op name") : nullptr;
  if (!name) return nullptr;
  long key = PyLong_AsLong(args[2]);
  if (key == -1 && PyErr_Occurred()) return nullptr;
  if (!PyCallable_Check(args[3])) {
    PyErr_SetString(PyExc_TypeError, "library_impl: the kernel must be callable");
    return nullptr;
  }
  Py_INCREF(args[3]);  // the registry's reference, released by python_kernel_free
  if (sdk_library_impl(lib, name, static_cast<int32_t>(key), python_kernel, args[3],
                       python_kernel_free) != SDK_OK) {
    return raise_last_error();
  }
  Py_RETURN_NONE;
}

PyObject* m_library_close(PyObject*, PyObject* cap) {
  if (!PyCapsule_IsValid(cap, kLibraryCapsule)) Py_RETURN_NONE;  // already closed
  auto* lib = static_cast<sdk_library*>(PyCapsule_GetPointer(cap, kLibraryCapsule));
  PyCapsule_SetDestructor(cap, nullptr);
  PyCapsule_SetPointer(cap, reinterpret_cast<void*>(1));  // a non-NULL marker: closed
  PyCapsule_SetName(cap, "sdk._C.library (closed)");
  sdk_library_close(lib);
  Py_RETURN_NONE;
}

PyObject* m_library_take_errors(PyObject*, PyObject*) {
  return PyUnicode_FromString(sdk_library_take_errors());
}

}  // namespace

PyMethodDef op_kernels_methods[] = {
    {"library_open", SDK_PY_AS_CFUNCTION(m_library_open), METH_FASTCALL,
     "library_open(kind, ns, key, source) -> library"},
    {"library_define", SDK_PY_AS_CFUNCTION(m_library_define), METH_FASTCALL,
     "library_define(library, schema)"},
    {"library_impl", SDK_PY_AS_CFUNCTION(m_library_impl), METH_FASTCALL,
     "library_impl(library, name, key, fn): fn becomes the op's kernel"},
    {"library_close", m_library_close, METH_O, "library_close(library)"},
    {"library_take_errors", m_library_take_errors, METH_NOARGS,
     "Registration failures kept since the last call (one per line)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace sdkpy
