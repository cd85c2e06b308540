// core/src/dtype.h: element types, half-precision conversions and dtype dispatch.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "sdk/complex.h"
#include "sdk/dtype_table.h"
#include "sdk/float8.h"
#include "sdk/half.h"
#include "tensor_impl.h"

namespace sdk::detail {

// IEEE binary16 and bfloat16 stored as bits; arithmetic goes through float. The bit
// conversions are the public header's (sdk/half.h), so core and extensions round alike.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(half_from_float(f)) {}  // NOLINT: implicit like a numeric type
  operator float() const { return half_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(bfloat16_from_float(f)) {}  // NOLINT
  operator float() const { return bfloat16_to_float(bits); }
};

// C++ type of each dtype code (the cpp_type column of SDK_DTYPES; Half and BFloat16 are the
// ones above, the Float8_* types sdk/float8.h's, complex<T> sdk/complex.h's).
template <sdk_dtype D>
struct CType;
#define SDK_DETAIL_CTYPE(NAME, code, name, Torch, itemsize, kind, cpp, ...) \
  template <>                                                               \
  struct CType<SDK_##NAME> {                                                \
    using type = cpp;                                                       \
  };
SDK_DTYPES(SDK_DETAIL_CTYPE)
#undef SDK_DETAIL_CTYPE

// Type used for arithmetic on an element type (halves compute in float).
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <int M, int Bias, int Kind>
struct OpMath<Float8<M, Bias, Kind>> {
  using type = float;
};

// Integer +, -, * wrap around on overflow, as in numpy and torch. Signed overflow is
// undefined in C++, so integers compute in an unsigned type at least as wide as int
// (a narrower one would promote to int and could overflow there). Others: plain.
template <typename C>
constexpr bool kWrapsArith = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <typename C>
inline C wrap_add(C a, C b) {
  if constexpr (kWrapsArith<C>) {
    using U = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
    return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename C>
inline C wrap_sub(C a, C b) {
  if constexpr (kWrapsArith<C>) {
    using U = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
    return static_cast<C>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename C>
inline C wrap_mul(C a, C b) {
  if constexpr (kWrapsArith<C>) {
    using U = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
    return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// dtype code of a C++ element type (the inverse of CType), -1 for others.
template <typename T>
constexpr sdk_dtype dtype_of() {
#define SDK_DETAIL_DTYPE_OF(NAME, code, name, Torch, itemsize, kind, cpp, ...) \
  if constexpr (std::is_same_v<T, cpp>) return SDK_##NAME;
  SDK_DTYPES(SDK_DETAIL_DTYPE_OF)
#undef SDK_DETAIL_DTYPE_OF
  return -1;
}

// The facts of each SDK_DTYPES row, indexed by code: kDtypeFacts (sdk/dtype_table.h).
inline constexpr sdk_dtype kNumDtypes = kDtypeCount;

constexpr bool is_valid_dtype(sdk_dtype d) { return d >= 0 && d < kNumDtypes; }
// The 8-bit floats (ABI 1.10): floating, but only copies, fills, views, joins, indexing and
// equality take them (torch's set), so the generic dispatch never instantiates them.
constexpr bool is_float8(sdk_dtype d) {
  return d == SDK_FLOAT8_E5M2 || d == SDK_FLOAT8_E4M3FN || d == SDK_FLOAT8_E5M2FNUZ ||
         d == SDK_FLOAT8_E4M3FNUZ;
}
// complex64 and complex128 (ABI 1.11): not floating (torch's rule). Copies, fills, views, joins,
// indexing, eq/ne, add/sub/mul/div, neg and abs take them (elementwise_complex.cpp), so the
// generic dispatch never instantiates them either.
constexpr bool is_complex(sdk_dtype d) {
  return is_valid_dtype(d) && kDtypeFacts[d].kind == SDK_DL_COMPLEX;
}
// The part type of a complex dtype (float32 for complex64).
constexpr sdk_dtype complex_part(sdk_dtype d) {
  return d == SDK_COMPLEX128 ? SDK_FLOAT64 : SDK_FLOAT32;
}
constexpr bool is_floating(sdk_dtype d) {
  return is_valid_dtype(d) && (kDtypeFacts[d].kind == SDK_DL_FLOAT ||
                               kDtypeFacts[d].kind == SDK_DL_BFLOAT || is_float8(d));
}
constexpr bool is_integral(sdk_dtype d, bool include_bool) {
  if (!is_valid_dtype(d)) return false;
  const int k = kDtypeFacts[d].kind;
  return k == SDK_DL_INT || k == SDK_DL_UINT || (include_bool && k == SDK_DL_BOOL);
}
// Inline: itemsize sits on every hot path (data(), allocation).
inline int64_t itemsize(sdk_dtype d) { return is_valid_dtype(d) ? kDtypeFacts[d].itemsize : 0; }
inline const char* dtype_name(sdk_dtype d) {
  return is_valid_dtype(d) ? kDtypeFacts[d].name : nullptr;
}
sdk_dtype promote(sdk_dtype a, sdk_dtype b);
// The complex dtype whose parts hold `d` (torch's toComplexType; float16 takes complex64).
sdk_dtype to_complex(sdk_dtype d);
// promote() for two tensor operands, giving 0-dim tensors lower priority (torch's rule).
sdk_dtype promote_operands(sdk_dtype a, bool a_zero_dim, sdk_dtype b, bool b_zero_dim);
// Result dtype of tensor `t` op Python scalar of `kind` (torch: a scalar only
// lifts the category: int tensor + float scalar -> default float32).
sdk_dtype promote_with_scalar(sdk_dtype t, int32_t scalar_kind);
void check_dtype(sdk_dtype d, const char* op);  // TypeError for unknown codes

// Read a scalar as T.
template <typename T>
T scalar_as(const sdk_scalar& s) {
  if (s.kind == SDK_SCALAR_FLOAT) return static_cast<T>(s.f);
  return static_cast<T>(s.i);
}
template <>
inline double scalar_as<double>(const sdk_scalar& s) {
  return s.kind == SDK_SCALAR_FLOAT ? s.f : static_cast<double>(s.i);
}
template <>
inline Half scalar_as<Half>(const sdk_scalar& s) {
  return Half(static_cast<float>(scalar_as<double>(s)));
}
template <>
inline BFloat16 scalar_as<BFloat16>(const sdk_scalar& s) {
  return BFloat16(static_cast<float>(scalar_as<double>(s)));
}
template <>
inline bool scalar_as<bool>(const sdk_scalar& s) {
  return s.kind == SDK_SCALAR_FLOAT ? s.f != 0.0 : s.i != 0;
}

// The value of `v` once stored in the 8-bit float `d` (as a double): what torch compares a
// float8 tensor with, since it casts the other operand to the float8 type first.
double round_to_float8(sdk_dtype d, double v);

}  // namespace sdk::detail

// Dispatch on a runtime dtype: the body sees `scalar_t`.
//   SDK_DISPATCH_ALL(t.dtype, "add", [&] { kernel<scalar_t>(...); });
#define SDK_DTYPE_CASE(code, ...)                               \
  case code: {                                                  \
    using scalar_t = typename ::sdk::detail::CType<code>::type; \
    return __VA_ARGS__();                                       \
  }

#define SDK_DTYPE_DEFAULT(dtype, name)                     \
  default:                                                 \
    SDK_FAIL(SDK_ERROR_TYPE, name, ": unsupported dtype ", \
             (::sdk::detail::dtype_name(dtype) ? ::sdk::detail::dtype_name(dtype) : "?"))

#define SDK_DISPATCH_FLOATING(dtype, name, ...) \
  [&] {                                         \
    switch (dtype) {                            \
      SDK_DTYPE_CASE(SDK_FLOAT32, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_FLOAT64, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_FLOAT16, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_BFLOAT16, __VA_ARGS__) \
      SDK_DTYPE_DEFAULT(dtype, name);           \
    }                                           \
  }()

// The 8-bit floats, used only by the few kernels that take them (is_float8).
#define SDK_DISPATCH_FLOAT8(dtype, name, ...)          \
  [&] {                                                \
    switch (dtype) {                                   \
      SDK_DTYPE_CASE(SDK_FLOAT8_E5M2, __VA_ARGS__)     \
      SDK_DTYPE_CASE(SDK_FLOAT8_E4M3FN, __VA_ARGS__)   \
      SDK_DTYPE_CASE(SDK_FLOAT8_E5M2FNUZ, __VA_ARGS__) \
      SDK_DTYPE_CASE(SDK_FLOAT8_E4M3FNUZ, __VA_ARGS__) \
      SDK_DTYPE_DEFAULT(dtype, name);                  \
    }                                                  \
  }()

// complex64 and complex128, used only by the kernels that take them (is_complex).
#define SDK_DISPATCH_COMPLEX(dtype, name, ...)    \
  [&] {                                           \
    switch (dtype) {                              \
      SDK_DTYPE_CASE(SDK_COMPLEX64, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_COMPLEX128, __VA_ARGS__) \
      SDK_DTYPE_DEFAULT(dtype, name);             \
    }                                             \
  }()

#define SDK_DISPATCH_ALL(dtype, name, ...)      \
  [&] {                                         \
    switch (dtype) {                            \
      SDK_DTYPE_CASE(SDK_FLOAT32, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_FLOAT64, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_FLOAT16, __VA_ARGS__)  \
      SDK_DTYPE_CASE(SDK_BFLOAT16, __VA_ARGS__) \
      SDK_DTYPE_CASE(SDK_INT64, __VA_ARGS__)    \
      SDK_DTYPE_CASE(SDK_INT32, __VA_ARGS__)    \
      SDK_DTYPE_CASE(SDK_INT16, __VA_ARGS__)    \
      SDK_DTYPE_CASE(SDK_INT8, __VA_ARGS__)     \
      SDK_DTYPE_CASE(SDK_UINT8, __VA_ARGS__)    \
      SDK_DTYPE_CASE(SDK_BOOL, __VA_ARGS__)     \
      SDK_DTYPE_DEFAULT(dtype, name);           \
    }                                           \
  }()
