// sdk/op_table.h: the elementwise op tables (name, ABI code) from which tensor.h generates
// functions and methods.
#ifndef SDK_OP_TABLE_H_
#define SDK_OP_TABLE_H_

// One line per op: adding an op to the C ABI's sdk_unary_op / sdk_binary_op and here gives
// it a function sdk::NAME, an out variant sdk::NAME_out, a method and an in-place method.

/*! \brief Unary ops: sdk::NAME(x), sdk::NAME_out(out, x), x.NAME(), x.NAME_(). */
#define SDK_UNARY_OPS(_)          \
  _(neg, SDK_NEG)                 \
  _(abs, SDK_ABS)                 \
  _(exp, SDK_EXP)                 \
  _(log, SDK_LOG)                 \
  _(sqrt, SDK_SQRT)               \
  _(rsqrt, SDK_RSQRT)             \
  _(sin, SDK_SIN)                 \
  _(cos, SDK_COS)                 \
  _(tanh, SDK_TANH)               \
  _(sigmoid, SDK_SIGMOID)         \
  _(relu, SDK_RELU)               \
  _(gelu, SDK_GELU)               \
  _(logical_not, SDK_LOGICAL_NOT) \
  _(sign, SDK_SIGN)               \
  _(reciprocal, SDK_RECIPROCAL)   \
  _(square, SDK_SQUARE)           \
  _(log1p, SDK_LOG1P)             \
  _(expm1, SDK_EXPM1)             \
  _(floor, SDK_FLOOR)             \
  _(ceil, SDK_CEIL)               \
  _(round, SDK_ROUND)             \
  _(erf, SDK_ERF)                 \
  _(bitwise_not, SDK_BITWISE_NOT)

/*! \brief Binary ops (add and sub, which take alpha, are written out by hand):
 *  sdk::NAME(a, b) with tensors or a scalar on either side, sdk::NAME_out(out, a, b),
 *  a.NAME(b), a.NAME_(b). */
#define SDK_BINARY_OPS(_)           \
  _(mul, SDK_MUL)                   \
  _(div, SDK_DIV)                   \
  _(pow, SDK_POW)                   \
  _(maximum, SDK_MAXIMUM)           \
  _(minimum, SDK_MINIMUM)           \
  _(eq, SDK_EQ)                     \
  _(ne, SDK_NE)                     \
  _(lt, SDK_LT)                     \
  _(le, SDK_LE)                     \
  _(gt, SDK_GT)                     \
  _(ge, SDK_GE)                     \
  _(logical_and, SDK_LOGICAL_AND)   \
  _(logical_or, SDK_LOGICAL_OR)     \
  _(logical_xor, SDK_LOGICAL_XOR)   \
  _(floor_divide, SDK_FLOOR_DIVIDE) \
  _(remainder, SDK_REMAINDER)       \
  _(bitwise_and, SDK_BITWISE_AND)   \
  _(bitwise_or, SDK_BITWISE_OR)     \
  _(bitwise_xor, SDK_BITWISE_XOR)   \
  _(atan2, SDK_ATAN2)

#endif  // SDK_OP_TABLE_H_
