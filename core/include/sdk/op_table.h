// sdk/op_table.h: the elementwise op tables, from which tensor.h generates functions and
// methods.
#ifndef SDK_OP_TABLE_H_
#define SDK_OP_TABLE_H_

// The tables are the C ABI's own: SDK_UNARY_OPS and SDK_BINARY_OPS in sdk/c_api.h, one line
// X(NAME, name, code) per op. Each op gets a function sdk::name, an out variant
// sdk::name_out, a method and an in-place method (math.h, tensor_methods.h); add and sub
// also take alpha (written out by hand in math.h).
#include "sdk/c_api.h"

#endif  // SDK_OP_TABLE_H_
