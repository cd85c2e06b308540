// sdk/op_table.h: the elementwise op tables, from which tensor.h generates functions and
// methods.
#ifndef SDK_OP_TABLE_H_
#define SDK_OP_TABLE_H_

// The tables are the C ABI's own: SDK_UNARY_OPS and SDK_BINARY_OPS in sdk/c_api.h, one line
// X(NAME, name, code) per op, and their facts tables SDK_UNARY_OP_FACTS and
// SDK_BINARY_OP_FACTS, one line X(NAME, name, differentiable, inplace, bool_result) per op.
// Each op gets a function sdk::name, an out variant sdk::name_out and a method (math.h,
// tensor_methods.h). The in-place function sdk::name_ and method Tensor::name_ exist where
// torch has them (inplace 1: eq_, logical_not_, bitwise_and_, ... write into self's dtype as
// torch's do) and for every op whose result is not bool (torch's ATen keeps silu_, mish_ and
// the like as functions); a bool-result op without torch's in-place form has none (no
// isnan_()). add and sub also take alpha (written out by hand in math.h).
#include "sdk/c_api.h"

// SDK_DETAIL_IF_INPLACE(inplace, bool_result, tokens...): the tokens when the op has a C++
// in-place form (see above), nothing otherwise; a fact of the tables is the literal 0 or 1.
#define SDK_DETAIL_IF_INPLACE_00(...) __VA_ARGS__
#define SDK_DETAIL_IF_INPLACE_01(...)
#define SDK_DETAIL_IF_INPLACE_10(...) __VA_ARGS__
#define SDK_DETAIL_IF_INPLACE_11(...) __VA_ARGS__
#define SDK_DETAIL_IF_INPLACE(inplace, bool_result, ...) \
  SDK_DETAIL_IF_INPLACE_##inplace##bool_result(__VA_ARGS__)

namespace sdk::detail::op_facts_check {
// Each facts table must list the ops of its op table, by the same names, in code order: the
// C++ API takes the in-place forms from the facts and everything else from the op table.
constexpr bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
template <int N, int M>
constexpr bool rows_match(const int (&codes)[N], const char* const (&names)[N],
                          const char* const (&op_names)[M]) {
  if (N != M) return false;
  for (int i = 0; i < N; ++i) {
    if (codes[i] != i || !same_name(names[i], op_names[i])) return false;
  }
  return true;
}
#define SDK_DETAIL_FACT_CODE(NAME, name, ...) SDK_##NAME,
#define SDK_DETAIL_FACT_NAME(NAME, name, ...) #name,
inline constexpr int kUnaryCodes[] = {SDK_UNARY_OP_FACTS(SDK_DETAIL_FACT_CODE)};
inline constexpr const char* kUnaryNames[] = {SDK_UNARY_OP_FACTS(SDK_DETAIL_FACT_NAME)};
inline constexpr const char* kUnaryOps[] = {SDK_UNARY_OPS(SDK_DETAIL_FACT_NAME)};
inline constexpr int kBinaryCodes[] = {SDK_BINARY_OP_FACTS(SDK_DETAIL_FACT_CODE)};
inline constexpr const char* kBinaryNames[] = {SDK_BINARY_OP_FACTS(SDK_DETAIL_FACT_NAME)};
inline constexpr const char* kBinaryOps[] = {SDK_BINARY_OPS(SDK_DETAIL_FACT_NAME)};
#undef SDK_DETAIL_FACT_CODE
#undef SDK_DETAIL_FACT_NAME
static_assert(rows_match(kUnaryCodes, kUnaryNames, kUnaryOps),
              "SDK_UNARY_OP_FACTS must have one row per SDK_UNARY_OPS row, in the same order");
static_assert(rows_match(kBinaryCodes, kBinaryNames, kBinaryOps),
              "SDK_BINARY_OP_FACTS must have one row per SDK_BINARY_OPS row, in the same order");
}  // namespace sdk::detail::op_facts_check

#endif  // SDK_OP_TABLE_H_
