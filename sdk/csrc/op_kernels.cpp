// sdk/csrc/op_kernels.cpp: Python functions as kernels of registered ops; the library_* calls.
// Boxed values become the kernel's Python arguments and its results go back (through
// op_values.cpp's converter); sdk.library registers definitions and kernels with the
// library_* functions.
#include <cstring>
#include <string>

#include "args.h"
#include "common.h"
#include "op_values.h"
#include "sdk/python_errors.h"

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

namespace {

// ---- Python kernels ----------------------------------------------------------------------

sdk_status python_error_status() {
  // Keep the exception for the Python call that reached the kernel; give the core a status
  // and a message for callers in C and C++.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  const char* name = type ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "an exception";
  sdk::detail::status_from_python(type, value, name);
  Py_XDECREF(t_kernel_exc_type);
  Py_XDECREF(t_kernel_exc_value);
  Py_XDECREF(t_kernel_exc_tb);
  t_kernel_exc_type = type;
  t_kernel_exc_value = value;
  t_kernel_exc_tb = tb;
  t_kernel_exc_kind = sdk_last_error_kind();
  t_kernel_exc_message = sdk_last_error_message();  // as the core keeps it
  return t_kernel_exc_kind;
}

// Result i of a Python kernel (its op's schema says what it must be) onto `v`.
bool push_result(const sdk_op* op, PyObject* r, int64_t i, sdk_values* v) {
  sdk_op_argument info{};
  info.size = sizeof(info);
  if (sdk_op_argument_info(op, 1, i, &info) != SDK_OK) return raise_last_error(), false;
  return push_value(ValueSite{sdk_op_name(op), sdk_op_schema(op), true}, arg_plan_of(info), r, v);
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
