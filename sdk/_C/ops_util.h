// sdk/_C/ops_util.h: macros and helpers shared by the raw-op files (ops.cpp, ops_more.cpp).
#pragma once

#include <vector>

#include "common.h"

// A METH_FASTCALL module function.
#define FAST(name) PyObject* name(PyObject*, PyObject* const* args, Py_ssize_t nargs)
#define ARG(i) (nargs > (i) ? args[i] : Py_None)
// A PyMethodDef entry for a FAST function.
#define FM(name, fn, doc) \
  {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)), METH_FASTCALL, doc}

namespace sdkpy {

// The torch names of the C ABI's op tables (SDK_UNARY_OPS, ... in sdk/c_api.h), indexed by
// code; module.cpp also exports them as sdk._C.UNARY_OPS etc. (name -> code).
#define SDK_PY_OP_NAME(NAME, name, code) #name,
inline const char* const kUnaryNames[] = {SDK_UNARY_OPS(SDK_PY_OP_NAME)};
inline const char* const kBinaryNames[] = {SDK_BINARY_OPS(SDK_PY_OP_NAME)};
inline const char* const kReduceNames[] = {SDK_REDUCE_OPS(SDK_PY_OP_NAME)};
#undef SDK_PY_OP_NAME

// Name of op code `op` in `names`, for error messages.
template <size_t N>
const char* name_of(const char* const (&names)[N], int64_t op, const char* dflt) {
  return op >= 0 && op < static_cast<int64_t>(N) ? names[op] : dflt;
}

inline int64_t numel(const sdk_tensor* t) { return t ? sdk_tensor_numel(t) : 0; }

// A tuple of new tensors around `rs` (stolen; released on failure).
PyObject* tuple_of(std::vector<sdk_tensor*>& rs);

extern PyMethodDef ops_more_methods[];
extern PyMethodDef ops_nn_methods[];
extern PyMethodDef ops_elementwise_methods[];
extern PyMethodDef ops_struct_methods[];
extern PyMethodDef cuda_methods[];
extern PyMethodDef rng_state_methods[];

}  // namespace sdkpy
