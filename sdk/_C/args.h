// sdk/_C/args.h: argument parsing for the functions of sdk._C (hand-written: per-call overhead
// is a product goal). Each parser names the op and the argument in the error it raises.
#pragma once

#include <vector>

#include "common.h"

namespace sdkpy {

// Argument i of a METH_FASTCALL call, or None when fewer were given (optional trailing ones).
inline PyObject* arg_or_none(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i) {
  return nargs > i ? args[i] : Py_None;
}

// Each returns false with a TypeError/ValueError naming op and arg.
bool tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h);
bool opt_tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h);
bool int_arg(PyObject* o, const char* op, const char* arg, int64_t* v);
bool double_arg(PyObject* o, const char* op, const char* arg, double* v);
bool bool_arg(PyObject* o, const char* op, const char* arg, int32_t* v);
bool dtype_arg(PyObject* o, const char* op, const char* arg, sdk_dtype* v);
// A sequence of ints (or one int). allow_neg1 permits -1 entries (view/expand).
bool ints_arg(PyObject* o, const char* op, const char* arg, std::vector<int64_t>* v,
              bool allow_negative);
// Scalar: Python bool/int/float or anything with __index__/__float__ (not tensors).
// Returns 1 if parsed, 0 if `o` is not a scalar (no error set), -1 on error.
int scalar_value(PyObject* o, sdk_scalar* s);
bool scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s);
// Scalar or None (SDK_SCALAR_NONE).
bool opt_scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s);
bool check_nargs(const char* op, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi);

}  // namespace sdkpy
