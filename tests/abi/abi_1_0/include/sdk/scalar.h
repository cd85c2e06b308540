// sdk/scalar.h: sdk::Scalar, a Python-like number (bool, int or float) passed to ops by value.
#ifndef SDK_SCALAR_H_
#define SDK_SCALAR_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "sdk/dtype.h"

namespace sdk {

/*! \brief A number whose kind (bool/int/float) takes part in type promotion like a Python
 *  scalar: int tensor + Scalar(1.5) is float32, float16 tensor * Scalar(2) stays float16. */
class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : s_{0.0, v ? 1 : 0, SDK_SCALAR_BOOL, 0} {}  // NOLINT: implicit like torch
  template <typename T,
            std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  Scalar(T v) : s_{0.0, static_cast<int64_t>(v), SDK_SCALAR_INT, 0} {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
  Scalar(T v) : s_{static_cast<double>(v), 0, SDK_SCALAR_FLOAT, 0} {}  // NOLINT
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}                    // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}                // NOLINT
  explicit Scalar(const sdk_scalar& s) : s_(s) {}

  /*! \brief The absent value (an open clamp bound). */
  static Scalar none() { return Scalar(sdk_scalar{0.0, 0, SDK_SCALAR_NONE, 0}); }

  bool isFloatingPoint() const { return s_.kind == SDK_SCALAR_FLOAT; }
  bool isIntegral(bool includeBool) const {
    return s_.kind == SDK_SCALAR_INT || (includeBool && s_.kind == SDK_SCALAR_BOOL);
  }
  bool isBoolean() const { return s_.kind == SDK_SCALAR_BOOL; }
  bool isNone() const { return s_.kind == SDK_SCALAR_NONE; }

  double toDouble() const { return isFloatingPoint() ? s_.f : static_cast<double>(s_.i); }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return isFloatingPoint() ? static_cast<int64_t>(s_.f) : s_.i; }
  int32_t toInt() const { return static_cast<int32_t>(toLong()); }
  bool toBool() const { return isFloatingPoint() ? s_.f != 0.0 : s_.i != 0; }
  /*! \brief The value as T (float types from toDouble, integers from toLong). */
  template <typename T>
  T to() const {
    if constexpr (std::is_same<T, bool>::value) {
      return toBool();
    } else if constexpr (std::is_integral<T>::value) {
      return static_cast<T>(toLong());
    } else {
      return static_cast<T>(toDouble());
    }
  }
  /*! \brief The scalar's natural type: kBool, kLong or kDouble. */
  ScalarType type() const { return isFloatingPoint() ? kDouble : (isBoolean() ? kBool : kLong); }

  /*! \brief The ABI struct, passed by value to the core. */
  const sdk_scalar& raw() const { return s_; }

 private:
  sdk_scalar s_;
};

inline void str_append(std::string& s, const Scalar& v) {
  if (v.isNone()) {
    s += "None";
  } else if (v.isFloatingPoint()) {
    str_append(s, v.toDouble());
  } else if (v.isBoolean()) {
    s += v.toBool() ? "True" : "False";
  } else {
    str_append(s, v.toLong());
  }
}

}  // namespace sdk

#endif  // SDK_SCALAR_H_
