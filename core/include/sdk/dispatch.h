// sdk/dispatch.h: SDK_DISPATCH_* macros, which run a lambda with scalar_t bound to a tensor's C++
// type.
#ifndef SDK_DISPATCH_H_
#define SDK_DISPATCH_H_

#include <cstddef>
#include <string>

#include "sdk/dtype.h"
#include "sdk/error.h"

namespace sdk {
namespace detail {

[[noreturn]] SDK_NOINLINE inline void dispatch_fail(const char* name, ScalarType t,
                                                    const char* accepted) {
  if (!accepted || !*accepted) {
    throw_error(SDK_ERROR_TYPE, concat("\"", name, "\" not implemented for '", toString(t), "'"));
  }
  throw_error(SDK_ERROR_TYPE, concat("\"", name, "\" not implemented for '", toString(t),
                                     "' (accepts ", accepted, ")"));
}

// SDK_DISPATCH_V2 names what it accepts from the type list itself.
[[noreturn]] SDK_NOINLINE inline void dispatch_fail_list(const char* name, ScalarType t,
                                                         const ScalarType* accepted, size_t n) {
  std::string list;
  for (size_t i = 0; i < n; ++i) str_append(list, concat(i ? ", " : "", toString(accepted[i])));
  dispatch_fail(name, t, list.c_str());
}

}  // namespace detail
}  // namespace sdk

// Each case binds scalar_t and returns what the lambda returns, so a dispatch can be used
// as an expression: auto y = SDK_DISPATCH_FLOATING_TYPES(t, "f", [&] { return g<scalar_t>(); });
#define SDK_DISPATCH_CASE(enum_type, ...) \
  SDK_PRIVATE_CASE_TYPE_USING_HINT(enum_type, scalar_t, __VA_ARGS__)

/*! \brief A case binding the C++ type of `enum_type` to the name HINT (index_t, ...). */
#define SDK_PRIVATE_CASE_TYPE_USING_HINT(enum_type, HINT, ...)            \
  case enum_type: {                                                       \
    using HINT [[maybe_unused]] = ::sdk::ScalarTypeToCPPTypeT<enum_type>; \
    return __VA_ARGS__();                                                 \
  }

#define SDK_DETAIL_DISPATCH(TYPE, NAME, ACCEPTED, CASES)                  \
  [&] {                                                                   \
    const ::sdk::ScalarType sdk_dispatch_type_ = ::sdk::ScalarType(TYPE); \
    switch (sdk_dispatch_type_) {                                         \
      CASES                                                               \
      default:                                                            \
        ::sdk::detail::dispatch_fail(NAME, sdk_dispatch_type_, ACCEPTED); \
    }                                                                     \
  }()

#define SDK_DETAIL_FLOATING_CASES(...)                      \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Double, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Float, __VA_ARGS__)

#define SDK_DETAIL_INTEGRAL_CASES(...)                    \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Byte, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Char, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Int, __VA_ARGS__)  \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Long, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Short, __VA_ARGS__)

/*! \brief float64, float32. TYPE is a ScalarType (or x.dtype()/x.scalar_type()). */
#define SDK_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32", SDK_DETAIL_FLOATING_CASES(__VA_ARGS__))

/*! \brief float64, float32, float16. */
#define SDK_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)  \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32, float16", \
                      SDK_DETAIL_FLOATING_CASES(__VA_ARGS__)   \
                          SDK_DISPATCH_CASE(::sdk::ScalarType::Half, __VA_ARGS__))

/*! \brief float64, float32 and one more type (a constant such as sdk::kHalf). */
#define SDK_DISPATCH_FLOATING_TYPES_AND(SCALARTYPE, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32 and one more",   \
                      SDK_DETAIL_FLOATING_CASES(__VA_ARGS__)         \
                          SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))

/*! \brief float64, float32 and two more types. */
#define SDK_DISPATCH_FLOATING_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32 and two more",                  \
                      SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(     \
                          SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__))

/*! \brief uint8, int8, int16, int32, int64. */
#define SDK_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...)                  \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "uint8, int8, int16, int32, int64", \
                      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__))

/*! \brief The integral types and one more. */
#define SDK_DISPATCH_INTEGRAL_TYPES_AND(SCALARTYPE, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "integral types and one more",     \
                      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__)         \
                          SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))

/*! \brief The integral types, float32 and float64 (not bool, not 16-bit floats). */
#define SDK_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                                         \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "uint8, int8, int16, int32, int64, float32, float64", \
                      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__)                            \
                          SDK_DETAIL_FLOATING_CASES(__VA_ARGS__))

/*! \brief SDK_DISPATCH_ALL_TYPES plus one more type. */
#define SDK_DISPATCH_ALL_TYPES_AND(SCALARTYPE, TYPE, NAME, ...)  \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "all types and one more",      \
                      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__)     \
                          SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) \
                              SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))

/*! \brief SDK_DISPATCH_ALL_TYPES plus two more types. */
#define SDK_DISPATCH_ALL_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...)      \
  SDK_DETAIL_DISPATCH(                                                              \
      TYPE, NAME, "all types and two more",                                         \
      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__) SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) \
          SDK_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__))

/*! \brief Every dtype, including bool, float16 and bfloat16. */
#define SDK_DISPATCH_ALL_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, TYPE, NAME, ...)       \
  SDK_DETAIL_DISPATCH(                                                                            \
      TYPE, NAME, "all types and three more",                                                     \
      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__) SDK_DETAIL_FLOATING_CASES(__VA_ARGS__)               \
          SDK_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__) \
              SDK_DISPATCH_CASE(SCALARTYPE3, __VA_ARGS__))

/*! \brief float16, bfloat16. */
#define SDK_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float16, bfloat16",       \
                      SDK_DETAIL_REDUCED_FLOATING_CASES(__VA_ARGS__))
#define SDK_DETAIL_REDUCED_FLOATING_CASES(...)            \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Half, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::BFloat16, __VA_ARGS__)

/*! \brief float64, float32 and three more types. */
#define SDK_DISPATCH_FLOATING_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(                                                                           \
      TYPE, NAME, "float64, float32 and three more",                                             \
      SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__)         \
          SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE3, __VA_ARGS__))

/*! \brief float64, float32, float16, bfloat16 (torch's FLOATING_TYPES_AND2(kHalf, kBFloat16)). */
#define SDK_DISPATCH_FLOATING_TYPES_AND_HALF_AND_BFLOAT16(TYPE, NAME, ...) \
  SDK_DISPATCH_FLOATING_TYPES_AND2(::sdk::kHalf, ::sdk::kBFloat16, TYPE, NAME, __VA_ARGS__)

/*! \brief The integral types and two more. */
#define SDK_DISPATCH_INTEGRAL_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "integral types and two more",                    \
                      SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(     \
                          SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__))

/*! \brief int32, int64 with the type bound to index_t (not scalar_t): index tensors. */
#define SDK_DISPATCH_INDEX_TYPES(TYPE, NAME, ...)                                    \
  SDK_DETAIL_DISPATCH(                                                               \
      TYPE, NAME, "int32, int64",                                                    \
      SDK_PRIVATE_CASE_TYPE_USING_HINT(::sdk::ScalarType::Int, index_t, __VA_ARGS__) \
          SDK_PRIVATE_CASE_TYPE_USING_HINT(::sdk::ScalarType::Long, index_t, __VA_ARGS__))

/*! \brief X(cpp_type, ScalarType name) for each 8-bit float (torch's AT_FORALL_FLOAT8_TYPES). */
#define SDK_FORALL_FLOAT8_TYPES(_)           \
  _(::sdk::Float8_e5m2, Float8_e5m2)         \
  _(::sdk::Float8_e4m3fn, Float8_e4m3fn)     \
  _(::sdk::Float8_e5m2fnuz, Float8_e5m2fnuz) \
  _(::sdk::Float8_e4m3fnuz, Float8_e4m3fnuz)

#define SDK_DETAIL_FLOAT8_CASES(...)                                 \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Float8_e5m2, __VA_ARGS__)     \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Float8_e4m3fn, __VA_ARGS__)   \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Float8_e5m2fnuz, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::Float8_e4m3fnuz, __VA_ARGS__)
#define SDK_DETAIL_FLOAT8_NAMES "float8_e5m2, float8_e4m3fn, float8_e5m2fnuz, float8_e4m3fnuz"

/*! \brief The four 8-bit floats. */
#define SDK_DISPATCH_FLOAT8_TYPES(TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, SDK_DETAIL_FLOAT8_NAMES, SDK_DETAIL_FLOAT8_CASES(__VA_ARGS__))
/*! \brief The 8-bit floats and one more type. */
#define SDK_DISPATCH_FLOAT8_TYPES_AND(SCALARTYPE, TYPE, NAME, ...)         \
  SDK_DETAIL_DISPATCH(TYPE, NAME, SDK_DETAIL_FLOAT8_NAMES " and one more", \
                      SDK_DETAIL_FLOAT8_CASES(__VA_ARGS__)                 \
                          SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))
/*! \brief The 8-bit floats and two more types. */
#define SDK_DISPATCH_FLOAT8_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, SDK_DETAIL_FLOAT8_NAMES " and two more",        \
                      SDK_DETAIL_FLOAT8_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(     \
                          SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__))
/*! \brief float64, float32 and the 8-bit floats. */
#define SDK_DISPATCH_FLOATING_AND_FLOAT8_TYPES(TYPE, NAME, ...)                 \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32, " SDK_DETAIL_FLOAT8_NAMES, \
                      SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DETAIL_FLOAT8_CASES(__VA_ARGS__))

// ---- complex64 and complex128 (scalar_t is sdk::complex<float> / complex<double>) -----------
#define SDK_DETAIL_COMPLEX_CASES(...)                              \
  SDK_DISPATCH_CASE(::sdk::ScalarType::ComplexDouble, __VA_ARGS__) \
  SDK_DISPATCH_CASE(::sdk::ScalarType::ComplexFloat, __VA_ARGS__)
#define SDK_DETAIL_FLOATING_AND_COMPLEX_CASES(...) \
  SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DETAIL_COMPLEX_CASES(__VA_ARGS__)
#define SDK_DETAIL_ALL_AND_COMPLEX_CASES(...) \
  SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__)      \
  SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DETAIL_COMPLEX_CASES(__VA_ARGS__)
#define SDK_DETAIL_ALL_AND_COMPLEX_NAMES \
  "uint8, int8, int16, int32, int64, float32, float64, complex64, complex128"

/*! \brief complex128, complex64. */
#define SDK_DISPATCH_COMPLEX_TYPES(TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "complex128, complex64", SDK_DETAIL_COMPLEX_CASES(__VA_ARGS__))
/*! \brief complex128, complex64 and one more type. */
#define SDK_DISPATCH_COMPLEX_TYPES_AND(SCALARTYPE, TYPE, NAME, ...)     \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "complex128, complex64 and one more", \
                      SDK_DETAIL_COMPLEX_CASES(__VA_ARGS__)             \
                          SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))
/*! \brief float64, float32, complex128, complex64. */
#define SDK_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...)             \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32, complex128, complex64", \
                      SDK_DETAIL_FLOATING_AND_COMPLEX_CASES(__VA_ARGS__))
/*! \brief The floating and complex types and one more. */
#define SDK_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND1(SCALARTYPE, TYPE, NAME, ...)         \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32, complex128, complex64 and one more", \
                      SDK_DETAIL_FLOATING_AND_COMPLEX_CASES(__VA_ARGS__)                  \
                          SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))
/*! \brief The floating and complex types and two more. */
#define SDK_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, "float64, float32, complex128, complex64 and two more",       \
                      SDK_DETAIL_FLOATING_AND_COMPLEX_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(     \
                          SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__))
/*! \brief The integral, floating and complex types. */
#define SDK_DISPATCH_ALL_TYPES_AND_COMPLEX(TYPE, NAME, ...)         \
  SDK_DETAIL_DISPATCH(TYPE, NAME, SDK_DETAIL_ALL_AND_COMPLEX_NAMES, \
                      SDK_DETAIL_ALL_AND_COMPLEX_CASES(__VA_ARGS__))
/*! \brief SDK_DISPATCH_ALL_TYPES_AND_COMPLEX and one more type (torch spells it _AND). */
#define SDK_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(SCALARTYPE, TYPE, NAME, ...)         \
  SDK_DETAIL_DISPATCH(TYPE, NAME, SDK_DETAIL_ALL_AND_COMPLEX_NAMES " and one more", \
                      SDK_DETAIL_ALL_AND_COMPLEX_CASES(__VA_ARGS__)                 \
                          SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__))
#define SDK_DISPATCH_ALL_TYPES_AND_COMPLEX_AND1 SDK_DISPATCH_ALL_TYPES_AND_COMPLEX_AND
/*! \brief SDK_DISPATCH_ALL_TYPES_AND_COMPLEX and two more types. */
#define SDK_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  SDK_DETAIL_DISPATCH(TYPE, NAME, SDK_DETAIL_ALL_AND_COMPLEX_NAMES " and two more",        \
                      SDK_DETAIL_ALL_AND_COMPLEX_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(     \
                          SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__))
/*! \brief SDK_DISPATCH_ALL_TYPES_AND_COMPLEX and three more types. */
#define SDK_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, TYPE, NAME, \
                                                ...)                                               \
  SDK_DETAIL_DISPATCH(                                                                             \
      TYPE, NAME, SDK_DETAIL_ALL_AND_COMPLEX_NAMES " and three more",                              \
      SDK_DETAIL_ALL_AND_COMPLEX_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__)    \
          SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE3, __VA_ARGS__))

// ---- SDK_DISPATCH_SWITCH: a dispatch made of the cases listed --------------------------------
//   SDK_DISPATCH_SWITCH(x.scalar_type(), "f",
//       SDK_DISPATCH_CASE_FLOATING_TYPES([&] { ... }) SDK_DISPATCH_CASE(sdk::kHalf, [&] { ... }))

/*! \brief A dispatch over exactly the SDK_DISPATCH_CASE* given. */
#define SDK_DISPATCH_SWITCH(TYPE, NAME, ...) SDK_DETAIL_DISPATCH(TYPE, NAME, "", __VA_ARGS__)
#define SDK_DISPATCH_CASE_FLOATING_TYPES(...) SDK_DETAIL_FLOATING_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_INTEGRAL_TYPES(...) SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_REDUCED_FLOATING_TYPES(...) SDK_DETAIL_REDUCED_FLOATING_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_ALL_TYPES(...) \
  SDK_DETAIL_INTEGRAL_CASES(__VA_ARGS__) SDK_DETAIL_FLOATING_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(...) \
  SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(::sdk::ScalarType::Half, __VA_ARGS__)
#define SDK_DISPATCH_CASE_FLOATING_TYPES_AND(SCALARTYPE, ...) \
  SDK_DETAIL_FLOATING_CASES(__VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__)
#define SDK_DISPATCH_CASE_FLOATING_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, ...) \
  SDK_DETAIL_FLOATING_CASES(__VA_ARGS__)                                     \
  SDK_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__) SDK_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__)
#define SDK_DISPATCH_CASE_FLOAT8_TYPES(...) SDK_DETAIL_FLOAT8_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_COMPLEX_TYPES(...) SDK_DETAIL_COMPLEX_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES(...) \
  SDK_DETAIL_FLOATING_AND_COMPLEX_CASES(__VA_ARGS__)
#define SDK_DISPATCH_CASE_INDEX_TYPES(...)                                       \
  SDK_PRIVATE_CASE_TYPE_USING_HINT(::sdk::ScalarType::Int, index_t, __VA_ARGS__) \
  SDK_PRIVATE_CASE_TYPE_USING_HINT(::sdk::ScalarType::Long, index_t, __VA_ARGS__)

// ---- SDK_DISPATCH_V2: the body first, then any list of types ---------------------------------
//   SDK_DISPATCH_V2(x.scalar_type(), "f", SDK_WRAP([&] { ... }),
//                   SDK_EXPAND(SDK_FLOATING_TYPES), sdk::kHalf)
// The error for another dtype lists the accepted ones.

/*! \brief Protects the commas of a lambda passed to SDK_DISPATCH_V2. */
#define SDK_WRAP(...) __VA_ARGS__
/*! \brief A type group in SDK_DISPATCH_V2's list (the groups also work bare). */
#define SDK_EXPAND(X) X
#define SDK_FLOATING_TYPES ::sdk::kDouble, ::sdk::kFloat
#define SDK_REDUCED_FLOATING_TYPES ::sdk::kHalf, ::sdk::kBFloat16
#define SDK_INTEGRAL_TYPES ::sdk::kByte, ::sdk::kChar, ::sdk::kInt, ::sdk::kLong, ::sdk::kShort
#define SDK_ALL_TYPES SDK_INTEGRAL_TYPES, SDK_FLOATING_TYPES
#define SDK_INDEX_TYPES ::sdk::kInt, ::sdk::kLong
/*! \brief complex128, complex64 (torch's AT_COMPLEX_TYPES). */
#define SDK_COMPLEX_TYPES ::sdk::kComplexDouble, ::sdk::kComplexFloat
/*! \brief The 8-bit floats (torch's AT_FLOAT8_TYPES without e8m0fnu, which the SDK lacks). */
#define SDK_FLOAT8_TYPES \
  ::sdk::kFloat8_e5m2, ::sdk::kFloat8_e5m2fnuz, ::sdk::kFloat8_e4m3fn, ::sdk::kFloat8_e4m3fnuz

#define SDK_DISPATCH_V2(TYPE, NAME, BODY, ...)                                               \
  [&] {                                                                                      \
    const ::sdk::ScalarType sdk_dispatch_type_ = ::sdk::ScalarType(TYPE);                    \
    switch (sdk_dispatch_type_) {                                                            \
      SDK_DETAIL_V2_CASES((BODY), __VA_ARGS__)                                               \
      default: {                                                                             \
        static constexpr ::sdk::ScalarType sdk_accepted_[] = {__VA_ARGS__};                  \
        ::sdk::detail::dispatch_fail_list(NAME, sdk_dispatch_type_, sdk_accepted_,           \
                                          sizeof(sdk_accepted_) / sizeof(sdk_accepted_[0])); \
      }                                                                                      \
    }                                                                                        \
  }()

// One SDK_DISPATCH_CASE per type (up to 24); BODYP is the body in parentheses, so its
// commas survive being passed along.
#define SDK_DETAIL_UNPAREN(...) __VA_ARGS__
#define SDK_DETAIL_V2_CASE(BODYP, T) SDK_DISPATCH_CASE(T, SDK_DETAIL_UNPAREN BODYP)
#define SDK_DETAIL_V2_CASES(BODYP, ...)                                                         \
  SDK_DETAIL_V2_PICK(                                                                           \
      __VA_ARGS__, SDK_DETAIL_V2_24, SDK_DETAIL_V2_23, SDK_DETAIL_V2_22, SDK_DETAIL_V2_21,      \
      SDK_DETAIL_V2_20, SDK_DETAIL_V2_19, SDK_DETAIL_V2_18, SDK_DETAIL_V2_17, SDK_DETAIL_V2_16, \
      SDK_DETAIL_V2_15, SDK_DETAIL_V2_14, SDK_DETAIL_V2_13, SDK_DETAIL_V2_12, SDK_DETAIL_V2_11, \
      SDK_DETAIL_V2_10, SDK_DETAIL_V2_9, SDK_DETAIL_V2_8, SDK_DETAIL_V2_7, SDK_DETAIL_V2_6,     \
      SDK_DETAIL_V2_5, SDK_DETAIL_V2_4, SDK_DETAIL_V2_3, SDK_DETAIL_V2_2, SDK_DETAIL_V2_1)      \
  (BODYP, __VA_ARGS__)
#define SDK_DETAIL_V2_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
                           _17, _18, _19, _20, _21, _22, _23, _24, NAME, ...)                     \
  NAME
#define SDK_DETAIL_V2_1(B, T) SDK_DETAIL_V2_CASE(B, T)
#define SDK_DETAIL_V2_2(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_1(B, __VA_ARGS__)
#define SDK_DETAIL_V2_3(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_2(B, __VA_ARGS__)
#define SDK_DETAIL_V2_4(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_3(B, __VA_ARGS__)
#define SDK_DETAIL_V2_5(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_4(B, __VA_ARGS__)
#define SDK_DETAIL_V2_6(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_5(B, __VA_ARGS__)
#define SDK_DETAIL_V2_7(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_6(B, __VA_ARGS__)
#define SDK_DETAIL_V2_8(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_7(B, __VA_ARGS__)
#define SDK_DETAIL_V2_9(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_8(B, __VA_ARGS__)
#define SDK_DETAIL_V2_10(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_9(B, __VA_ARGS__)
#define SDK_DETAIL_V2_11(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_10(B, __VA_ARGS__)
#define SDK_DETAIL_V2_12(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_11(B, __VA_ARGS__)
#define SDK_DETAIL_V2_13(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_12(B, __VA_ARGS__)
#define SDK_DETAIL_V2_14(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_13(B, __VA_ARGS__)
#define SDK_DETAIL_V2_15(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_14(B, __VA_ARGS__)
#define SDK_DETAIL_V2_16(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_15(B, __VA_ARGS__)
#define SDK_DETAIL_V2_17(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_16(B, __VA_ARGS__)
#define SDK_DETAIL_V2_18(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_17(B, __VA_ARGS__)
#define SDK_DETAIL_V2_19(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_18(B, __VA_ARGS__)
#define SDK_DETAIL_V2_20(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_19(B, __VA_ARGS__)
#define SDK_DETAIL_V2_21(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_20(B, __VA_ARGS__)
#define SDK_DETAIL_V2_22(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_21(B, __VA_ARGS__)
#define SDK_DETAIL_V2_23(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_22(B, __VA_ARGS__)
#define SDK_DETAIL_V2_24(B, T, ...) SDK_DETAIL_V2_CASE(B, T) SDK_DETAIL_V2_23(B, __VA_ARGS__)

#endif  // SDK_DISPATCH_H_
