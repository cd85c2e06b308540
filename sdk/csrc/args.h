// sdk/csrc/args.h: the argument parsers of sdk._C's functions, and arg_or_none.
// Hand-written: per-call overhead is a product goal.
#pragma once

#include <vector>

#include "common.h"

namespace sdkpy {

// Argument i of a METH_FASTCALL call, or None when fewer were given (optional trailing ones).
inline PyObject* arg_or_none(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i) {
  return nargs > i ? args[i] : Py_None;
}

// Each parser below returns false with an exception set (TypeError, ValueError, ...) that
// names `op` and `arg`; the *opt_* ones also take NULL or None (NULL handle, SDK_SCALAR_NONE).
bool tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h);
bool opt_tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h);
bool int_arg(PyObject* o, const char* op, const char* arg, int64_t* v);
bool double_arg(PyObject* o, const char* op, const char* arg, double* v);
bool bool_arg(PyObject* o, const char* op, const char* arg, int32_t* v);
// An sdk.dtype, a dtype code, or None (-1: the op's default).
bool dtype_arg(PyObject* o, const char* op, const char* arg, sdk_dtype* v);
// A sequence of ints (or one int). allow_negative permits negative entries (view/expand's -1,
// dims counted from the end). A shape's product must fit in int64; other lists (strides,
// split sizes, shifts: is_shape false) are not products of anything.
bool ints_arg(PyObject* o, const char* op, const char* arg, std::vector<int64_t>* v,
              bool allow_negative, bool is_shape = true);
// Scalar: Python bool/int/float or anything with __index__/__float__ (not tensors).
// Returns 1 if parsed, 0 if `o` is not a scalar (no error set), -1 on error.
int scalar_value(PyObject* o, sdk_scalar* s);
bool scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s);
// Scalar or None (SDK_SCALAR_NONE).
bool opt_scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s);
// True when lo <= nargs <= hi; else a TypeError ("op() takes ... arguments").
bool check_nargs(const char* op, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi);

}  // namespace sdkpy
