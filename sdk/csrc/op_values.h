// sdk/csrc/op_values.h: converters shared by the op registry's calls and Python kernels.
#pragma once

#include <vector>

#include "common.h"

namespace sdkpy {

// An int[] value (a call's argument or a Python kernel's result): a sequence of ints, each
// one any int64, as torch's int[] is a list of int64 (not a shape: no product limit, and
// negative entries allowed). The sequence is copied first, so an item's __index__ that
// changes the list cannot free an item being read. False with a TypeError/OverflowError
// naming `op` and `what` otherwise.
bool int_list_value(PyObject* o, const char* op, const char* what, std::vector<int64_t>* out);

// The UTF-8 text of str `o` for a C string parameter of the core: false (ValueError naming
// `fn` and `what`) when it holds a NUL character, which the core would read as its end.
const char* c_text(PyObject* o, const char* fn, const char* what);

}  // namespace sdkpy
