// sdk/dispatch.h: SDK_DISPATCH_* macros, which run a lambda with scalar_t bound to a tensor's C++
// type.
#ifndef SDK_DISPATCH_H_
#define SDK_DISPATCH_H_

#include "sdk/dtype.h"
#include "sdk/error.h"

namespace sdk {
namespace detail {

[[noreturn]] SDK_NOINLINE inline void dispatch_fail(const char* name, ScalarType t,
                                                    const char* accepted) {
  throw_error(SDK_ERROR_TYPE, concat("\"", name, "\" not implemented for '", toString(t),
                                     "' (accepts ", accepted, ")"));
}

}  // namespace detail
}  // namespace sdk

// Each case binds scalar_t and returns what the lambda returns, so a dispatch can be used
// as an expression: auto y = SDK_DISPATCH_FLOATING_TYPES(t, "f", [&] { return g<scalar_t>(); });
#define SDK_DISPATCH_CASE(enum_type, ...)                                     \
  case enum_type: {                                                           \
    using scalar_t [[maybe_unused]] = ::sdk::ScalarTypeToCPPTypeT<enum_type>; \
    return __VA_ARGS__();                                                     \
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

#endif  // SDK_DISPATCH_H_
