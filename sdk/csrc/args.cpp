// sdk/csrc/args.cpp: argument parsing (args.h), with errors that name the op and the argument.
#include "args.h"

#include <cstring>

namespace sdkpy {

bool check_nargs(const char* op, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi) {
  if (nargs >= lo && nargs <= hi) return true;
  if (lo == hi)
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", op, lo, nargs);
  else
    PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", op, lo, hi, nargs);
  return false;
}

bool tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h) {
  if (is_tensor(o) && handle_of(o)) {
    *h = handle_of(o);
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
  for (int i = 0; i < module_state.ndtypes; ++i)
    if (module_state.dtypes[i] == o) {
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
    PyErr_Format(module_state.invalid_argument_error, "%s(): argument '%s': unknown dtype code %ld",
                 op, arg, x);
    return false;
  }
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be sdk.dtype, not %s", op, arg,
               Py_TYPE(o)->tp_name);
  return false;
}

PyObject* sequence_snapshot(PyObject* o, const char* what) {
  if (PyTuple_CheckExact(o)) return new_ref(o);
  if (PyList_CheckExact(o)) return PyList_AsTuple(o);
  PyObject* t = PySequence_Tuple(o);  // a private copy: no user code can reach it
  if (!t && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, what);
  }
  return t;
}

// Whether `o` is a list holding only exact ints.
static bool exact_ints(PyObject* o) {
  if (!PyList_CheckExact(o)) return false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i)
    if (!PyLong_CheckExact(PyList_GET_ITEM(o, i))) return false;
  return true;
}

bool ints_arg(PyObject* o, const char* op, const char* arg, std::vector<int64_t>* v,
              bool allow_negative, bool is_shape) {
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
    // Exact ints run no Python code when read, so a list of only them (the usual shape) is
    // read in place; anything else is read from a snapshot (sequence_snapshot).
    OwnedRef seq(exact_ints(o) ? new_ref(o) : sequence_snapshot(o, "expected a sequence of ints"));
    if (!seq.p) return false;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.p);  // a list or a tuple
    v->reserve(n);
    for (Py_ssize_t i = 0; i < n; ++i) {
      int64_t x;
      if (!int_arg(PySequence_Fast_GET_ITEM(seq.p, i), op, arg, &x)) return false;
      v->push_back(x);
    }
  }
  // A size product that overflows int64 would wrap to a small allocation: refuse it here.
  int64_t prod = 1;
  for (int64_t x : *v)
    if (is_shape && x > 0 && __builtin_mul_overflow(prod, x, &prod)) {
      PyErr_Format(module_state.invalid_argument_error,
                   "%s(): argument '%s': the number of elements overflows int64", op, arg);
      return false;
    }
  if (!allow_negative) {
    for (int64_t x : *v)
      if (x < 0) {
        PyErr_Format(module_state.invalid_argument_error,
                     "%s(): argument '%s' has a negative entry %lld", op, arg,
                     static_cast<long long>(x));
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

}  // namespace sdkpy
