// sdk/dtype.h: sdk::ScalarType (torch-named dtype enum), its C++ types, and a TypeMeta-like view.
#ifndef SDK_DTYPE_H_
#define SDK_DTYPE_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "sdk/c_api.h"
#include "sdk/complex.h"
#include "sdk/dtype_table.h"
#include "sdk/float8.h"
#include "sdk/half.h"

namespace sdk {

/*! \brief Element types; values equal the ABI's sdk_dtype codes. Names follow torch (the Torch
 *  column of SDK_DTYPES in sdk/c_api.h, which this header reads every fact from). */
// The 8-bit floats' enumerators are named as their C++ types are (ScalarType::Float8_e5m2 and
// sdk::Float8_e5m2, as in torch): gcc's -Wshadow takes an enumerator named like a type alias
// for shadowing, in the code of extensions built with it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
enum class ScalarType : int8_t {
#define SDK_DETAIL_SCALAR_TYPE(NAME, code, name, Torch, ...) Torch = SDK_##NAME,
  SDK_DTYPES(SDK_DETAIL_SCALAR_TYPE)
#undef SDK_DETAIL_SCALAR_TYPE
      Undefined = -1
};
#pragma GCC diagnostic pop

// kBool, kByte, ..., kDouble: one per row.
#define SDK_DETAIL_SCALAR_CONST(NAME, code, name, Torch, ...) \
  constexpr ScalarType k##Torch = ScalarType::Torch;
SDK_DTYPES(SDK_DETAIL_SCALAR_CONST)
#undef SDK_DETAIL_SCALAR_CONST
// torch's spellings after the Python names.
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kFloat64 = ScalarType::Double;
// and torch/types.h's short ones
constexpr ScalarType kU8 = kUInt8;
constexpr ScalarType kI8 = kInt8;
constexpr ScalarType kI16 = kInt16;
constexpr ScalarType kI32 = kInt32;
constexpr ScalarType kI64 = kInt64;
constexpr ScalarType kF16 = kFloat16;
constexpr ScalarType kF32 = kFloat32;
constexpr ScalarType kF64 = kFloat64;

namespace detail {
/*! \brief The row of `t` (sdk/dtype_table.h), or kUndefinedFacts for Undefined. */
constexpr const DtypeFacts& dtype_facts(ScalarType t) {
  return dtype_facts_of(static_cast<int>(t));
}
}  // namespace detail

/*! \brief The ABI code of a ScalarType. */
constexpr sdk_dtype to_c(ScalarType t) { return static_cast<sdk_dtype>(t); }
/*! \brief The ScalarType of an ABI dtype code. */
constexpr ScalarType from_c_dtype(sdk_dtype d) {
  return (d >= 0 && d < detail::kDtypeCount) ? static_cast<ScalarType>(d) : ScalarType::Undefined;
}

/*! \brief The dtype's name as the Python side spells it ("float32"). */
constexpr const char* toString(ScalarType t) { return detail::dtype_facts(t).name; }

/*! \brief Bytes per element. */
constexpr int64_t elementSize(ScalarType t) { return detail::dtype_facts(t).itemsize; }

/*! \brief Whether t is one of the 8-bit floats (torch's isFloat8Type). */
constexpr bool isFloat8Type(ScalarType t) {
  return t == ScalarType::Float8_e5m2 || t == ScalarType::Float8_e4m3fn ||
         t == ScalarType::Float8_e5m2fnuz || t == ScalarType::Float8_e4m3fnuz;
}
constexpr bool isFloatingType(ScalarType t) {
  const int kind = detail::dtype_facts(t).kind;
  return kind == SDK_DL_FLOAT || kind == SDK_DL_BFLOAT || isFloat8Type(t);
}
constexpr bool isIntegralType(ScalarType t, bool includeBool) {
  const int kind = detail::dtype_facts(t).kind;
  return kind == SDK_DL_INT || kind == SDK_DL_UINT || (includeBool && kind == SDK_DL_BOOL);
}
/*! \brief Whether t is complex64 or complex128 (torch's isComplexType). */
constexpr bool isComplexType(ScalarType t) { return detail::dtype_facts(t).kind == SDK_DL_COMPLEX; }
/*! \brief The type of a complex dtype's parts (kFloat for kComplexFloat); any other dtype is
 *  its own (torch's toRealValueType). */
constexpr ScalarType toRealValueType(ScalarType t) {
  return t == ScalarType::ComplexFloat    ? ScalarType::Float
         : t == ScalarType::ComplexDouble ? ScalarType::Double
                                          : t;
}
/*! \brief The complex dtype of a floating dtype's width (torch's toComplexType): kComplexFloat
 *  for kFloat, kComplexDouble for kDouble; a complex dtype is its own. Half and BFloat16 have no
 *  complex counterpart here (torch's ComplexHalf), and other dtypes none in torch either. */
inline ScalarType toComplexType(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
    case ScalarType::ComplexFloat:
      return ScalarType::ComplexFloat;
    case ScalarType::Double:
    case ScalarType::ComplexDouble:
      return ScalarType::ComplexDouble;
    default:
      throw std::invalid_argument(std::string("toComplexType: no complex dtype for ") +
                                  detail::dtype_facts(t).name);
  }
}

inline void str_append(std::string& s, ScalarType t) { s += toString(t); }

/*! \brief The ScalarType of a C++ element type: CppTypeToScalarType<float>::value == kFloat,
 *  and CppTypeToScalarType<float>() converts to kFloat (a std::integral_constant, as torch's). */
template <typename T>
struct CppTypeToScalarType;
#define SDK_DETAIL_CPP_TYPE(cpp, st) \
  template <>                        \
  struct CppTypeToScalarType<cpp> : std::integral_constant<ScalarType, ScalarType::st> {};
#define SDK_DETAIL_CPP_TYPE_ROW(NAME, code, name, Torch, itemsize, kind, cpp, ...) \
  SDK_DETAIL_CPP_TYPE(cpp, Torch)
SDK_DTYPES(SDK_DETAIL_CPP_TYPE_ROW)
#undef SDK_DETAIL_CPP_TYPE_ROW
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
#define SDK_DETAIL_ST_TYPE_ROW(NAME, code, name, Torch, itemsize, kind, cpp, ...) \
  SDK_DETAIL_ST_TYPE(cpp, Torch)
SDK_DTYPES(SDK_DETAIL_ST_TYPE_ROW)
#undef SDK_DETAIL_ST_TYPE_ROW
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
 *  still used by tutorial code as AT_DISPATCH_*(x.type(), ...)): converts to ScalarType, and
 *  to TensorOptions (dtype and device kind), so old code's
 *  `zeros(sizes, x.type().toScalarType(kByte))` makes a uint8 tensor on x's device. */
class DeprecatedTypeProperties {
 public:
  constexpr DeprecatedTypeProperties(ScalarType t, bool cuda) : type_(t), cuda_(cuda) {}
  constexpr operator ScalarType() const { return type_; }  // NOLINT: implicit like torch
  constexpr ScalarType scalarType() const { return type_; }
  constexpr TypeMeta typeMeta() const { return TypeMeta(type_); }
  constexpr bool is_cuda() const { return cuda_; }
  constexpr const char* name() const { return toString(type_); }
  /*! \brief The same device kind with another dtype. */
  constexpr DeprecatedTypeProperties toScalarType(ScalarType t) const { return {t, cuda_}; }
  /*! \brief The same dtype on the CPU / on CUDA. */
  constexpr DeprecatedTypeProperties cpu() const { return {type_, false}; }
  constexpr DeprecatedTypeProperties cuda() const { return {type_, true}; }
  constexpr bool operator==(const DeprecatedTypeProperties& o) const {
    return type_ == o.type_ && cuda_ == o.cuda_;
  }
  constexpr bool operator!=(const DeprecatedTypeProperties& o) const { return !(*this == o); }

 private:
  ScalarType type_;
  bool cuda_;
};

/*! \brief The deprecated type of a dtype on the CPU (torch's at::CPU(ScalarType)), as old
 *  code passes it for options: `zeros_like(a, at::CPU(kByte))` makes a uint8 tensor on the
 *  CPU. A value, where torch returns a reference to a registry entry: compare it, convert it,
 *  do not take its address. */
constexpr DeprecatedTypeProperties CPU(ScalarType t) { return {t, false}; }
/*! \brief The deprecated type of a dtype on CUDA (at::CUDA(ScalarType)): as options, the
 *  current CUDA device. */
constexpr DeprecatedTypeProperties CUDA(ScalarType t) { return {t, true}; }

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
