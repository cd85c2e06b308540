// core/src/op_names.h: the torch names and counts of the C ABI's op tables (SDK_UNARY_OPS,
// SDK_BINARY_OPS, SDK_REDUCE_OPS in sdk/c_api.h), for range checks and messages.
#pragma once

#include "sdk/c_api.h"
#include "sdk/op_table.h"  // its static_asserts: each facts table matches its op table

namespace sdk::detail {

#define SDK_DETAIL_OP_NAME_CASE(NAME, name, code) \
  case code:                                      \
    return #name;
#define SDK_DETAIL_OP_PLUS_ONE(NAME, name, code) +1
#define SDK_DETAIL_OP_CODE(NAME, name, code) code,

inline const char* unary_op_name(int op) {
  switch (op) { SDK_UNARY_OPS(SDK_DETAIL_OP_NAME_CASE) }
  return "?";
}
inline const char* binary_op_name(int op) {
  switch (op) { SDK_BINARY_OPS(SDK_DETAIL_OP_NAME_CASE) }
  return "?";
}
inline const char* reduce_op_name(int op) {
  switch (op) { SDK_REDUCE_OPS(SDK_DETAIL_OP_NAME_CASE) }
  return "?";
}

// Number of ops in each table; codes run from 0 to count - 1 (checked below).
constexpr int kUnaryOps = 0 SDK_UNARY_OPS(SDK_DETAIL_OP_PLUS_ONE);
constexpr int kBinaryOps = 0 SDK_BINARY_OPS(SDK_DETAIL_OP_PLUS_ONE);
constexpr int kReduceOps = 0 SDK_REDUCE_OPS(SDK_DETAIL_OP_PLUS_ONE);

namespace op_table_check {
template <int N>
constexpr bool dense(const int (&codes)[N]) {
  for (int i = 0; i < N; ++i) {
    if (codes[i] != i) return false;
  }
  return true;
}
constexpr int kUnary[] = {SDK_UNARY_OPS(SDK_DETAIL_OP_CODE)};
constexpr int kBinary[] = {SDK_BINARY_OPS(SDK_DETAIL_OP_CODE)};
constexpr int kReduce[] = {SDK_REDUCE_OPS(SDK_DETAIL_OP_CODE)};
static_assert(dense(kUnary) && dense(kBinary) && dense(kReduce),
              "an op table of sdk/c_api.h must list codes 0, 1, 2, ... in order");
}  // namespace op_table_check

#undef SDK_DETAIL_OP_NAME_CASE
#undef SDK_DETAIL_OP_PLUS_ONE
#undef SDK_DETAIL_OP_CODE

}  // namespace sdk::detail
