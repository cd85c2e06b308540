// sdk/csrc/ops_util.h: helpers of the raw-op files: the C ABI's op table names, element counts.
#pragma once

#include <vector>

#include "args.h"
#include "common.h"
#include "sdk/op_table.h"  // the facts tables, checked against the op tables

namespace sdkpy {

// The torch names of the C ABI's op tables (SDK_UNARY_OPS, ... in sdk/c_api.h), indexed by
// code; module.cpp also exports them as sdk._C.UNARY_OPS etc. (name -> code).
#define SDK_PY_OP_NAME(NAME, name, code) #name,
inline const char* const kUnaryNames[] = {SDK_UNARY_OPS(SDK_PY_OP_NAME)};
inline const char* const kBinaryNames[] = {SDK_BINARY_OPS(SDK_PY_OP_NAME)};
inline const char* const kReduceNames[] = {SDK_REDUCE_OPS(SDK_PY_OP_NAME)};
#undef SDK_PY_OP_NAME

// The per-op facts of the unary and binary tables (SDK_UNARY_OP_FACTS, ... in sdk/c_api.h),
// indexed by code; module.cpp exports them as sdk._C.UNARY_OP_FACTS etc., from which sdk's
// Python functions and Tensor methods are made.
struct OpFacts {
  const char* name;
  bool differentiable, inplace, bool_result;
};
#define SDK_PY_OP_FACTS(NAME, name, differentiable, inplace, bool_result) \
  OpFacts{#name, (differentiable) != 0, (inplace) != 0, (bool_result) != 0},
inline const OpFacts kUnaryFacts[] = {SDK_UNARY_OP_FACTS(SDK_PY_OP_FACTS)};
inline const OpFacts kBinaryFacts[] = {SDK_BINARY_OP_FACTS(SDK_PY_OP_FACTS)};
#undef SDK_PY_OP_FACTS

// Name of op code `op` in `names`, for error messages.
template <size_t N>
const char* name_of(const char* const (&names)[N], int64_t op, const char* dflt) {
  return op >= 0 && op < static_cast<int64_t>(N) ? names[op] : dflt;
}

inline int64_t numel(const sdk_tensor* t) { return t ? sdk_tensor_numel(t) : 0; }

// (values, indices) of a two-result core call (sort, topk, cummax, ...).
inline PyObject* result_pair(sdk_status st, sdk_tensor* v, sdk_tensor* i) {
  if (st != SDK_OK) return raise_last_error();
  std::vector<sdk_tensor*> rs{v, i};
  return tuple_of(rs);
}

}  // namespace sdkpy
