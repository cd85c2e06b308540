// sdk/complex.h: sdk::complex<T>, the element type of complex64 and complex128 (torch's
// c10::complex<T>), laid out as std::complex<T> and usable on host and device.
#ifndef SDK_COMPLEX_H_
#define SDK_COMPLEX_H_

#include <cmath>
#include <type_traits>
#include <utility>

#include "sdk/macros.h"

namespace sdk {

template <typename T>
struct complex;
namespace detail {
template <typename C>
struct is_sdk_complex : std::false_type {};
template <typename T>
struct is_sdk_complex<complex<T>> : std::true_type {};
}  // namespace detail

/*! \brief A complex number of two T (float or double), real part first. Aligned to its size, as
 *  torch's c10::complex, so that a load of one element is one vector load on a GPU; that is
 *  std::complex<T>'s layout with a stronger alignment, so pointers convert either way.
 *  Rationale: <complex> is not included (it brings <sstream>, which sdk/tensor.h keeps out for
 *  compile time): std::complex converts through its real()/imag() and (re, im) constructor. */
template <typename T>
struct complex {
  static_assert(std::is_floating_point_v<T>, "sdk::complex<T> takes float or double");
  using value_type = T;

  alignas(2 * sizeof(T)) T real_ = T(0);  // the struct's alignment: its size
  T imag_ = T(0);

  constexpr complex() = default;
  SDK_HOST_DEVICE constexpr complex(const T& re, const T& im = T()) : real_(re), imag_(im) {}
  /*! \brief From std::complex<U> (any type with real() and imag(), not an sdk::complex). */
  template <typename C, typename = decltype(std::declval<const C&>().imag()),
            std::enable_if_t<!detail::is_sdk_complex<C>::value, int> = 0>
  SDK_HOST_DEVICE explicit constexpr complex(const C& z)
      : real_(static_cast<T>(z.real())), imag_(static_cast<T>(z.imag())) {}
  // Widening (complex<float> to complex<double>) is implicit, narrowing explicit, as in torch.
  template <typename U, std::enable_if_t<(sizeof(U) < sizeof(T)), int> = 0>
  SDK_HOST_DEVICE constexpr complex(const complex<U>& z)  // NOLINT: implicit widening
      : real_(static_cast<T>(z.real())), imag_(static_cast<T>(z.imag())) {}
  template <typename U, std::enable_if_t<(sizeof(U) > sizeof(T)), int> = 0>
  SDK_HOST_DEVICE explicit constexpr complex(const complex<U>& z)
      : real_(static_cast<T>(z.real())), imag_(static_cast<T>(z.imag())) {}

  SDK_HOST_DEVICE constexpr T real() const { return real_; }
  SDK_HOST_DEVICE constexpr void real(T value) { real_ = value; }
  SDK_HOST_DEVICE constexpr T imag() const { return imag_; }
  SDK_HOST_DEVICE constexpr void imag(T value) { imag_ = value; }

  /*! \brief As std::complex<T> (explicit, as torch's): any type made from (re, im) that has
   *  imag(). */
  template <typename C, typename = decltype(std::declval<const C&>().imag()),
            std::enable_if_t<!detail::is_sdk_complex<C>::value && std::is_constructible_v<C, T, T>,
                             int> = 0>
  explicit operator C() const {
    return C(real_, imag_);
  }
  /*! \brief True when either part is non-zero (torch's explicit bool conversion). */
  SDK_HOST_DEVICE explicit constexpr operator bool() const { return real_ || imag_; }

  SDK_HOST_DEVICE constexpr complex& operator=(T re) {
    real_ = re;
    imag_ = T(0);
    return *this;
  }
  SDK_HOST_DEVICE constexpr complex& operator+=(T x) {
    real_ += x;
    return *this;
  }
  SDK_HOST_DEVICE constexpr complex& operator-=(T x) {
    real_ -= x;
    return *this;
  }
  SDK_HOST_DEVICE constexpr complex& operator*=(T x) {
    real_ *= x;
    imag_ *= x;
    return *this;
  }
  SDK_HOST_DEVICE constexpr complex& operator/=(T x) {
    real_ /= x;
    imag_ /= x;
    return *this;
  }
  template <typename U>
  SDK_HOST_DEVICE constexpr complex& operator+=(const complex<U>& z) {
    real_ += static_cast<T>(z.real());
    imag_ += static_cast<T>(z.imag());
    return *this;
  }
  template <typename U>
  SDK_HOST_DEVICE constexpr complex& operator-=(const complex<U>& z) {
    real_ -= static_cast<T>(z.real());
    imag_ -= static_cast<T>(z.imag());
    return *this;
  }
  template <typename U>
  SDK_HOST_DEVICE constexpr complex& operator*=(const complex<U>& z) {
    const T a = real_, b = imag_, c = static_cast<T>(z.real()), d = static_cast<T>(z.imag());
    real_ = a * c - b * d;
    imag_ = a * d + b * c;
    return *this;
  }
  template <typename U>
  SDK_HOST_DEVICE constexpr complex& operator/=(const complex<U>& z);
};

static_assert(sizeof(complex<float>) == 2 * sizeof(float), "std::complex<float>'s layout");
static_assert(sizeof(complex<double>) == 2 * sizeof(double), "std::complex<double>'s layout");
static_assert(alignof(complex<double>) == 16, "aligned to its size, as torch's");

// Division scaled by the larger part of the divisor (Smith's method), so that |c| or |d| near
// the float range's ends neither overflows nor loses the quotient.
template <typename T>
template <typename U>
SDK_HOST_DEVICE constexpr complex<T>& complex<T>::operator/=(const complex<U>& z) {
  const T a = real_, b = imag_, c = static_cast<T>(z.real()), d = static_cast<T>(z.imag());
  const T ac = c < 0 ? -c : c, ad = d < 0 ? -d : d;
  if (ac >= ad) {
    if (ac == 0 && ad == 0) {  // x / 0: the parts divided by zero, as IEEE says
      real_ = a / ac;
      imag_ = b / ad;
      return *this;
    }
    const T r = d / c, den = c + d * r;
    real_ = (a + b * r) / den;
    imag_ = (b - a * r) / den;
  } else {
    const T r = c / d, den = c * r + d;
    real_ = (a * r + b) / den;
    imag_ = (b * r - a) / den;
  }
  return *this;
}

template <typename T>
SDK_HOST_DEVICE constexpr complex<T> operator+(const complex<T>& z) {
  return z;
}
template <typename T>
SDK_HOST_DEVICE constexpr complex<T> operator-(const complex<T>& z) {
  return complex<T>(-z.real(), -z.imag());
}

// complex op complex, complex op T and T op complex, for + - * /.
#define SDK_DETAIL_COMPLEX_BINARY(op)                                                   \
  template <typename T>                                                                 \
  SDK_HOST_DEVICE constexpr complex<T> operator op(complex<T> a, const complex<T>& b) { \
    return a op## = b;                                                                  \
  }                                                                                     \
  template <typename T>                                                                 \
  SDK_HOST_DEVICE constexpr complex<T> operator op(complex<T> a, const T& b) {          \
    return a op## = b;                                                                  \
  }                                                                                     \
  template <typename T>                                                                 \
  SDK_HOST_DEVICE constexpr complex<T> operator op(const T& a, const complex<T>& b) {   \
    return complex<T>(a) op## = b;                                                      \
  }
SDK_DETAIL_COMPLEX_BINARY(+)
SDK_DETAIL_COMPLEX_BINARY(-)
SDK_DETAIL_COMPLEX_BINARY(*)
SDK_DETAIL_COMPLEX_BINARY(/)
#undef SDK_DETAIL_COMPLEX_BINARY

// An integer with a complex (z * 2, 1 - z), as torch allows: the integer as T first.
#define SDK_DETAIL_COMPLEX_INT_BINARY(op)                                             \
  template <typename T, typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0> \
  SDK_HOST_DEVICE constexpr complex<T> operator op(const complex<T>& a, I b) {        \
    return a op static_cast<T>(b);                                                    \
  }                                                                                   \
  template <typename T, typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0> \
  SDK_HOST_DEVICE constexpr complex<T> operator op(I a, const complex<T>& b) {        \
    return static_cast<T>(a) op b;                                                    \
  }
SDK_DETAIL_COMPLEX_INT_BINARY(+)
SDK_DETAIL_COMPLEX_INT_BINARY(-)
SDK_DETAIL_COMPLEX_INT_BINARY(*)
SDK_DETAIL_COMPLEX_INT_BINARY(/)
#undef SDK_DETAIL_COMPLEX_INT_BINARY

template <typename T>
SDK_HOST_DEVICE constexpr bool operator==(const complex<T>& a, const complex<T>& b) {
  return a.real() == b.real() && a.imag() == b.imag();
}
template <typename T>
SDK_HOST_DEVICE constexpr bool operator==(const complex<T>& a, const T& b) {
  return a.real() == b && a.imag() == T(0);
}
template <typename T>
SDK_HOST_DEVICE constexpr bool operator==(const T& a, const complex<T>& b) {
  return b == a;
}
template <typename T>
SDK_HOST_DEVICE constexpr bool operator!=(const complex<T>& a, const complex<T>& b) {
  return !(a == b);
}
template <typename T>
SDK_HOST_DEVICE constexpr bool operator!=(const complex<T>& a, const T& b) {
  return !(a == b);
}
template <typename T>
SDK_HOST_DEVICE constexpr bool operator!=(const T& a, const complex<T>& b) {
  return !(a == b);
}
template <typename T, typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
SDK_HOST_DEVICE constexpr bool operator==(const complex<T>& a, I b) {
  return a == static_cast<T>(b);
}
template <typename T, typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
SDK_HOST_DEVICE constexpr bool operator!=(const complex<T>& a, I b) {
  return !(a == static_cast<T>(b));
}

/*! \brief The functions torch gives c10::complex (its c10_complex_math), also found by
 *  std:: qualified calls (below), written from real functions for host and device alike. */
namespace complex_math {

template <typename T>
SDK_HOST_DEVICE T real(const complex<T>& z) {
  return z.real();
}
template <typename T>
SDK_HOST_DEVICE T imag(const complex<T>& z) {
  return z.imag();
}
template <typename T>
SDK_HOST_DEVICE T abs(const complex<T>& z) {
  return std::hypot(z.real(), z.imag());
}
template <typename T>
SDK_HOST_DEVICE T arg(const complex<T>& z) {
  return std::atan2(z.imag(), z.real());
}
template <typename T>
SDK_HOST_DEVICE T norm(const complex<T>& z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <typename T>
SDK_HOST_DEVICE complex<T> conj(const complex<T>& z) {
  return complex<T>(z.real(), -z.imag());
}
template <typename T>
SDK_HOST_DEVICE complex<T> polar(const T& r, const T& theta = T()) {
  return complex<T>(r * std::cos(theta), r * std::sin(theta));
}
template <typename T>
SDK_HOST_DEVICE complex<T> exp(const complex<T>& z) {
  return polar(std::exp(z.real()), z.imag());
}
template <typename T>
SDK_HOST_DEVICE complex<T> log(const complex<T>& z) {
  return complex<T>(std::log(abs(z)), arg(z));
}
template <typename T>
SDK_HOST_DEVICE complex<T> sqrt(const complex<T>& z) {
  // The root with a non-negative real part, computed from |z| without cancellation.
  const T x = z.real(), y = z.imag();
  if (x == T(0) && y == T(0)) return complex<T>(T(0), y);
  const T t = std::sqrt((std::fabs(x) + std::hypot(x, y)) / T(2));
  if (x >= T(0)) return complex<T>(t, y / (T(2) * t));
  return complex<T>(std::fabs(y) / (T(2) * t), std::copysign(t, y));
}
template <typename T>
SDK_HOST_DEVICE complex<T> pow(const complex<T>& base, const complex<T>& exponent) {
  if (base == T(0)) return exponent == T(0) ? complex<T>(T(1)) : complex<T>(T(0));
  return exp(exponent * log(base));
}
template <typename T>
SDK_HOST_DEVICE complex<T> pow(const complex<T>& base, const T& exponent) {
  return pow(base, complex<T>(exponent));
}
template <typename T>
SDK_HOST_DEVICE complex<T> pow(const T& base, const complex<T>& exponent) {
  return pow(complex<T>(base), exponent);
}

}  // namespace complex_math

/*! \brief torch's c10::polar (std::polar takes plain T and keeps its meaning). */
using complex_math::polar;
}  // namespace sdk

// torch declares these for c10::complex in namespace std, so ported code calls std::abs(z) on
// one; overloads found by the argument's namespace would not serve a qualified std:: call.
namespace std {
using ::sdk::complex_math::abs;
using ::sdk::complex_math::arg;
using ::sdk::complex_math::conj;
using ::sdk::complex_math::exp;
using ::sdk::complex_math::imag;
using ::sdk::complex_math::log;
using ::sdk::complex_math::norm;
using ::sdk::complex_math::pow;
using ::sdk::complex_math::real;
using ::sdk::complex_math::sqrt;
}  // namespace std

/*! \brief torch's c10_complex_math namespace, where extensions also find these functions. */
namespace c10_complex_math = ::sdk::complex_math;

#endif  // SDK_COMPLEX_H_
