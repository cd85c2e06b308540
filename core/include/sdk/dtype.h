// sdk/dtype.h: sdk::ScalarType (torch-named dtype enum), its C++ types, and a TypeMeta-like view.
#ifndef SDK_DTYPE_H_
#define SDK_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "sdk/c_api.h"
#include "sdk/half.h"

namespace sdk {

/*! \brief Element types; values equal the ABI's sdk_dtype codes. Names follow torch. */
enum class ScalarType : int8_t {
  Bool = SDK_BOOL,
  Byte = SDK_UINT8,
  Char = SDK_INT8,
  Short = SDK_INT16,
  Int = SDK_INT32,
  Long = SDK_INT64,
  Half = SDK_FLOAT16,
  BFloat16 = SDK_BFLOAT16,
  Float = SDK_FLOAT32,
  Double = SDK_FLOAT64,
  Undefined = -1
};

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kFloat64 = ScalarType::Double;

/*! \brief The ABI code of a ScalarType. */
constexpr sdk_dtype to_c(ScalarType t) { return static_cast<sdk_dtype>(t); }
/*! \brief The ScalarType of an ABI dtype code. */
constexpr ScalarType from_c_dtype(sdk_dtype d) {
  return (d >= SDK_BOOL && d <= SDK_FLOAT64) ? static_cast<ScalarType>(d) : ScalarType::Undefined;
}

/*! \brief The dtype's name as the Python side spells it ("float32"). */
constexpr const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Char:
      return "int8";
    case ScalarType::Short:
      return "int16";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Half:
      return "float16";
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::Float:
      return "float32";
    case ScalarType::Double:
      return "float64";
    default:
      return "undefined";
  }
}

/*! \brief Bytes per element. */
constexpr int64_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::Byte:
    case ScalarType::Char:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
      return 8;
    default:
      return 0;
  }
}

constexpr bool isFloatingType(ScalarType t) {
  return t == kHalf || t == kBFloat16 || t == kFloat || t == kDouble;
}
constexpr bool isIntegralType(ScalarType t, bool includeBool) {
  return (t >= kByte && t <= kLong) || (includeBool && t == kBool);
}
constexpr bool isComplexType(ScalarType) { return false; }

inline void str_append(std::string& s, ScalarType t) { s += toString(t); }

/*! \brief The ScalarType of a C++ element type: CppTypeToScalarType<float>::value == kFloat. */
template <typename T>
struct CppTypeToScalarType;
#define SDK_DETAIL_CPP_TYPE(cpp, st)                    \
  template <>                                           \
  struct CppTypeToScalarType<cpp> {                     \
    static constexpr ScalarType value = ScalarType::st; \
  };
SDK_DETAIL_CPP_TYPE(bool, Bool)
SDK_DETAIL_CPP_TYPE(uint8_t, Byte)
SDK_DETAIL_CPP_TYPE(int8_t, Char)
SDK_DETAIL_CPP_TYPE(int16_t, Short)
SDK_DETAIL_CPP_TYPE(int32_t, Int)
SDK_DETAIL_CPP_TYPE(int64_t, Long)
SDK_DETAIL_CPP_TYPE(Half, Half)
SDK_DETAIL_CPP_TYPE(BFloat16, BFloat16)
SDK_DETAIL_CPP_TYPE(float, Float)
SDK_DETAIL_CPP_TYPE(double, Double)
#undef SDK_DETAIL_CPP_TYPE
template <typename T>
struct CppTypeToScalarType<const T> : CppTypeToScalarType<T> {};

/*! \brief The C++ element type of a ScalarType: ScalarTypeToCPPTypeT<kFloat> is float. */
template <ScalarType S>
struct ScalarTypeToCPPType;
#define SDK_DETAIL_ST_TYPE(cpp, st)            \
  template <>                                  \
  struct ScalarTypeToCPPType<ScalarType::st> { \
    using type = cpp;                          \
  };
SDK_DETAIL_ST_TYPE(bool, Bool)
SDK_DETAIL_ST_TYPE(uint8_t, Byte)
SDK_DETAIL_ST_TYPE(int8_t, Char)
SDK_DETAIL_ST_TYPE(int16_t, Short)
SDK_DETAIL_ST_TYPE(int32_t, Int)
SDK_DETAIL_ST_TYPE(int64_t, Long)
SDK_DETAIL_ST_TYPE(Half, Half)
SDK_DETAIL_ST_TYPE(BFloat16, BFloat16)
SDK_DETAIL_ST_TYPE(float, Float)
SDK_DETAIL_ST_TYPE(double, Double)
#undef SDK_DETAIL_ST_TYPE
template <ScalarType S>
using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<S>::type;

/*! \brief What Tensor::dtype() returns (torch's TypeMeta): converts to ScalarType, and
 *  has name() and itemsize(). */
class TypeMeta {
 public:
  constexpr TypeMeta() = default;
  constexpr TypeMeta(ScalarType t) : type_(t) {}  // NOLINT: implicit like torch
  constexpr operator ScalarType() const { return type_; }
  constexpr ScalarType toScalarType() const { return type_; }
  constexpr const char* name() const { return toString(type_); }
  constexpr int64_t itemsize() const { return elementSize(type_); }
  template <typename T>
  static constexpr TypeMeta Make() {
    return TypeMeta(CppTypeToScalarType<T>::value);
  }
  /*! \brief Whether this is the dtype of C++ type T: `x.dtype().Match<float>()`. */
  template <typename T>
  constexpr bool Match() const {
    return type_ == CppTypeToScalarType<T>::value;
  }
  static constexpr TypeMeta fromScalarType(ScalarType t) { return TypeMeta(t); }
  constexpr bool isScalarType() const { return type_ != ScalarType::Undefined; }
  constexpr bool isScalarType(ScalarType t) const { return type_ == t; }

 private:
  ScalarType type_ = ScalarType::Undefined;
};

constexpr bool operator==(TypeMeta a, TypeMeta b) { return a.toScalarType() == b.toScalarType(); }
constexpr bool operator!=(TypeMeta a, TypeMeta b) { return !(a == b); }
constexpr bool operator==(TypeMeta a, ScalarType b) { return a.toScalarType() == b; }
constexpr bool operator!=(TypeMeta a, ScalarType b) { return a.toScalarType() != b; }
constexpr bool operator==(ScalarType a, TypeMeta b) { return a == b.toScalarType(); }
constexpr bool operator!=(ScalarType a, TypeMeta b) { return a != b.toScalarType(); }
inline void str_append(std::string& s, TypeMeta t) { s += t.name(); }

/*! \brief What the deprecated Tensor::type() returns (torch's DeprecatedTypeProperties,
 *  still used by tutorial code as AT_DISPATCH_*(x.type(), ...)): converts to ScalarType. */
class DeprecatedTypeProperties {
 public:
  constexpr DeprecatedTypeProperties(ScalarType t, bool cuda) : type_(t), cuda_(cuda) {}
  constexpr operator ScalarType() const { return type_; }  // NOLINT: implicit like torch
  constexpr ScalarType scalarType() const { return type_; }
  constexpr bool is_cuda() const { return cuda_; }
  constexpr const char* name() const { return toString(type_); }

 private:
  ScalarType type_;
  bool cuda_;
};

/*! \brief The ScalarType of a TypeMeta (c10::typeMetaToScalarType). */
constexpr ScalarType typeMetaToScalarType(TypeMeta t) { return t.toScalarType(); }
/*! \brief The TypeMeta of a ScalarType (c10::scalarTypeToTypeMeta). */
constexpr TypeMeta scalarTypeToTypeMeta(ScalarType t) { return TypeMeta(t); }
/*! \brief The ScalarType of an optional TypeMeta, nullopt for none. */
inline std::optional<ScalarType> optTypeMetaToScalarType(std::optional<TypeMeta> t) {
  if (!t) return std::nullopt;
  return t->toScalarType();
}

}  // namespace sdk

#endif  // SDK_DTYPE_H_
