// core/src/binary_kernels.h: the CPU kernels of the binary ops, one source file per family of
// ops, so that no single file holds every op for every dtype (it took most of a first build).
#pragma once

#include "cuda/backend_api.h"
#include "elementwise.h"
#include "op_names.h"

namespace sdk::detail {

// Division rounded toward zero: an op of the binary kernels beyond the table, reached through
// sdk_div_rounding (the CUDA backend knows it by the same code).
constexpr int kDivTrunc = SDK_CUDA_OP_DIV_TRUNC;

inline const char* binary_name(int op) { return op == kDivTrunc ? "div" : binary_op_name(op); }

// Each runs `op` over L, whose inputs have dtype `compute`, and returns true; false when `op`
// is not of its family or not defined for that dtype (the caller then raises).
// add, sub, mul, div, pow, maximum, minimum (elementwise_arith.cpp)
bool binary_arith(int op, sdk_dtype compute, const Launch& L);
// eq, ne, lt, le, gt, ge, logical_and/or/xor: bool out (elementwise_compare.cpp)
bool binary_compare(int op, sdk_dtype compute, const Launch& L);
// floor_divide, remainder, fmod, div(rounding_mode='trunc'), bitwise_and/or/xor
// (elementwise_division.cpp)
bool binary_division(int op, sdk_dtype compute, const Launch& L);
// atan2, hypot, copysign, logaddexp, xlogy: floating dtypes only (elementwise_binary_math.cpp)
bool binary_float_math(int op, sdk_dtype compute, const Launch& L);
// add, sub, mul, div, eq, ne on complex64 and complex128 (elementwise_complex.cpp)
bool binary_complex(int op, sdk_dtype compute, const Launch& L);
// Whether binary_complex takes `op`.
bool complex_binary_op(int op);
// A real scalar as the complex `compute` (imaginary part 0), into buf (16 bytes, aligned).
void store_complex_scalar(sdk_dtype compute, const sdk_scalar& s, char* buf);

// Exponents that pow(tensor, scalar) computes without std::pow, as torch does.
inline bool pow_special_exponent(double e) {
  return e == 2 || e == 3 || e == 0.5 || e == -1 || e == -2 || e == 1 || e == 0;
}
// x ** e for a special exponent as a vectorizable unary loop; false if not handled
// (elementwise_arith.cpp).
bool pow_scalar(sdk_dtype compute, const Launch& L, double e);

}  // namespace sdk::detail

// Dispatch on the integer dtypes (bool excluded).
#define SDK_DISPATCH_INTEGER(dtype, name, ...) \
  [&] {                                        \
    switch (dtype) {                           \
      SDK_DTYPE_CASE(SDK_INT64, __VA_ARGS__)   \
      SDK_DTYPE_CASE(SDK_INT32, __VA_ARGS__)   \
      SDK_DTYPE_CASE(SDK_INT16, __VA_ARGS__)   \
      SDK_DTYPE_CASE(SDK_INT8, __VA_ARGS__)    \
      SDK_DTYPE_CASE(SDK_UINT8, __VA_ARGS__)   \
      SDK_DTYPE_DEFAULT(dtype, name);          \
    }                                          \
  }()
