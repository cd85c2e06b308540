// sdk/csrc/op_values.h: the converter between Python values and boxed values (op_values.cpp),
// shared by the op registry's calls and Python kernels.
#pragma once

#include <string>
#include <vector>

#include "common.h"

namespace sdkpy {

// One argument or result of an op's schema, as the converter reads it (from the core's
// sdk_op_argument: arg_plan_of).
struct ArgPlan {
  std::string name;
  std::string type;  // "Tensor?", "int[2]", "Scalar", ...
  int32_t tag = SDK_VALUE_NONE;
  bool optional = false;
  bool kwarg_only = false;
  bool has_default = false;
  bool scalar = false;             // a Scalar: int, float or bool
  bool optional_elements = false;  // Tensor?[]
  int32_t list_size = -1;
  int32_t list_levels = 0;            // a LIST's levels (int[][]: 1), else 0
  int32_t item_tag = SDK_VALUE_NONE;  // the tag of its innermost LIST's items
  std::string path;                   // an item of a list argument: " item [1][0]"
  std::string outer_type;             // the type of the argument or result it is an item of
};

ArgPlan arg_plan_of(const sdk_op_argument& info);

// Where a value crosses into boxed values. A caller's argument is checked here against its
// schema type, so that a TypeError names the argument as torch does. A Python kernel's result
// is taken by its Python type where the core converts it to the schema's type anyway
// (numbers, bool lists), since kernels compute values as numpy scalars and the like; the
// core checks it. Every other kind converts the same way for both.
struct ValueSite {
  const char* op;      // the op's name, for messages
  const char* schema;  // its schema text, for messages
  bool result;         // a Python kernel's result, not a caller's argument
};

// Push Python value `o` for argument or result `a` onto `v`; false with an exception set.
bool push_value(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v);

// An int[] value (a call's argument or a Python kernel's result): a sequence of ints, each
// one any int64, as torch's int[] is a list of int64 (not a shape: no product limit, and
// negative entries allowed). The sequence is copied first, so an item's __index__ that
// changes the list cannot free an item being read. False with a TypeError/OverflowError
// naming `op` and `what` otherwise.
bool int_list_value(PyObject* o, const char* op, const char* what, std::vector<int64_t>* out);

// The UTF-8 text of str `o` for a C string parameter of the core: false (ValueError naming
// `fn` and `what`) when it holds a NUL character, which the core would read as its end.
const char* c_text(PyObject* o, const char* fn, const char* what);

// A shape-only call (op_meta.cpp): push argument `o`, whose tensors must be sdk meta tensors
// (they become core meta tensors); false with an exception set.
bool push_meta_arg(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v);
// Result i of a Meta kernel: tensors as make_meta(shape, dtype), other values as value_to_py.
PyObject* meta_value_to_py(PyObject* make_meta, sdk_values* v, int64_t i);

}  // namespace sdkpy
