// sdk/vec.h: torch's at::vec (ATen/cpu/vec/vec.h, functional.h): Vectorized<T>, a fixed
// group of 32 bytes of T that CPU kernels load, compute on and store as a unit, and the
// helpers over arrays (map, map2, reduce_all, convert). Each operation is a plain loop over
// the group, which the compiler turns into SIMD instructions at -O2 and above; no
// intrinsics, so it builds everywhere and gives the same results on every machine.
#ifndef SDK_VEC_H_
#define SDK_VEC_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "sdk/half.h"

namespace sdk {
namespace vec {

/*! \brief Whether T is one of the 16-bit floats kernels widen to float to compute. */
template <typename T>
constexpr bool is_reduced_floating_point_v =
    std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;
template <typename T>
struct is_reduced_floating_point : std::integral_constant<bool, is_reduced_floating_point_v<T>> {};

/*! \brief size() values of T (32 bytes), loaded from and stored to memory as a unit. */
template <typename T>
class Vectorized {
 public:
  using value_type = T;
  using size_type = int;
  static constexpr size_type size() { return static_cast<size_type>(32 / sizeof(T)); }

  Vectorized() : values_{} {}
  /*! \brief Every element `v`. */
  Vectorized(T v) {  // NOLINT: implicit, as torch's
    for (auto& x : values_) x = v;
  }
  /*! \brief The size() elements given one by one. */
  template <
      typename... Args,
      std::enable_if_t<sizeof...(Args) == static_cast<size_t>(size()) && (size() > 1), int> = 0>
  Vectorized(Args... vals) : values_{static_cast<T>(vals)...} {}

  /*! \brief `count` elements from `ptr` (unaligned); the rest zero. */
  static Vectorized loadu(const void* ptr, int64_t count = size()) {
    Vectorized r;
    std::memcpy(r.values_, ptr, static_cast<size_t>(std::min<int64_t>(count, size())) * sizeof(T));
    return r;
  }
  static Vectorized loadu_one_fourth(const void* ptr) { return loadu(ptr, size() / 4); }
  /*! \brief The first `count` elements to `ptr` (unaligned). */
  void store(void* ptr, int64_t count = size()) const {
    std::memcpy(ptr, values_, static_cast<size_t>(std::min<int64_t>(count, size())) * sizeof(T));
  }
  /*! \brief base, base + step, base + 2 step, ... */
  template <typename step_t>
  static Vectorized arange(T base = T(0), step_t step = static_cast<step_t>(1)) {
    Vectorized r;
    for (int i = 0; i < size(); ++i) r.values_[i] = static_cast<T>(base + i * step);
    return r;
  }
  /*! \brief The first `count` elements of b, the rest of a. */
  static Vectorized set(const Vectorized& a, const Vectorized& b, int64_t count = size()) {
    Vectorized r = a;
    for (int64_t i = 0; i < std::min<int64_t>(count, size()); ++i) r.values_[i] = b.values_[i];
    return r;
  }
  /*! \brief Element i from b where bit i of `mask` is set, else from a. */
  template <int64_t mask>
  static Vectorized blend(const Vectorized& a, const Vectorized& b) {
    Vectorized r;
    for (int i = 0; i < size(); ++i) r.values_[i] = (mask >> i) & 1 ? b.values_[i] : a.values_[i];
    return r;
  }
  /*! \brief Element i from b where mask's element i has any bit set, else from a. */
  static Vectorized blendv(const Vectorized& a, const Vectorized& b, const Vectorized& mask) {
    Vectorized r;
    for (int i = 0; i < size(); ++i) r.values_[i] = mask.any_bit(i) ? b.values_[i] : a.values_[i];
    return r;
  }

  const T& operator[](int i) const { return values_[i]; }
  T& operator[](int i) { return values_[i]; }
  /*! \brief Bit i set where element i is zero. */
  int zero_mask() const {
    int m = 0;
    for (int i = 0; i < size(); ++i) m |= (values_[i] == T(0) ? 1 : 0) << i;
    return m;
  }
  bool has_inf_nan() const {
    for (const T& v : values_) {
      const double d = static_cast<double>(v);
      if (std::isnan(d) || std::isinf(d)) return true;
    }
    return false;
  }
  /*! \brief f applied to each element. */
  template <typename F>
  Vectorized map(const F& f) const {
    Vectorized r;
    for (int i = 0; i < size(); ++i) r.values_[i] = static_cast<T>(f(values_[i]));
    return r;
  }

#define SDK_DETAIL_VEC_UNARY(name, expr)                  \
  Vectorized name() const {                               \
    return map([](T x) { return static_cast<T>(expr); }); \
  }
  SDK_DETAIL_VEC_UNARY(abs, x < T(0) ? -x : x)
  SDK_DETAIL_VEC_UNARY(neg, -x)
  SDK_DETAIL_VEC_UNARY(exp, std::exp(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(exp2, std::exp2(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(expm1, std::expm1(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(exp_u20, std::exp(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(log, std::log(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(log2, std::log2(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(log10, std::log10(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(log1p, std::log1p(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(sqrt, std::sqrt(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(rsqrt, compute_t(1) / std::sqrt(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(reciprocal, compute_t(1) / compute_t(x))
  SDK_DETAIL_VEC_UNARY(sin, std::sin(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(cos, std::cos(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(tan, std::tan(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(asin, std::asin(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(acos, std::acos(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(atan, std::atan(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(sinh, std::sinh(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(cosh, std::cosh(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(tanh, std::tanh(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(erf, std::erf(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(erfc, std::erfc(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(lgamma, std::lgamma(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(floor, std::floor(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(ceil, std::ceil(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(trunc, std::trunc(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(round, std::nearbyint(compute_t(x)))
  SDK_DETAIL_VEC_UNARY(frac, compute_t(x) - std::trunc(compute_t(x)))
#undef SDK_DETAIL_VEC_UNARY
  Vectorized isnan() const {
    return map([](T x) { return all_bits(std::isnan(static_cast<double>(x))); });
  }
  Vectorized pow(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return static_cast<T>(std::pow(compute_t(x), compute_t(y))); });
  }
  Vectorized atan2(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return static_cast<T>(std::atan2(compute_t(x), compute_t(y))); });
  }
  Vectorized hypot(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return static_cast<T>(std::hypot(compute_t(x), compute_t(y))); });
  }
  Vectorized copysign(const Vectorized& b) const {
    return zip(b,
               [](T x, T y) { return static_cast<T>(std::copysign(compute_t(x), compute_t(y))); });
  }
  Vectorized fmod(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return static_cast<T>(std::fmod(compute_t(x), compute_t(y))); });
  }
  // Comparisons: 1.0 / 0.0 (or 1 / 0) per element (torch's eq, ne, ... methods).
  Vectorized eq(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return T(x == y); });
  }
  Vectorized ne(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return T(x != y); });
  }
  Vectorized lt(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return T(x < y); });
  }
  Vectorized le(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return T(x <= y); });
  }
  Vectorized gt(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return T(x > y); });
  }
  Vectorized ge(const Vectorized& b) const {
    return zip(b, [](T x, T y) { return T(x >= y); });
  }

  /*! \brief f(a[i], b[i]) for each element. */
  template <typename F>
  Vectorized zip(const Vectorized& b, const F& f) const {
    Vectorized r;
    for (int i = 0; i < size(); ++i) r.values_[i] = static_cast<T>(f(values_[i], b.values_[i]));
    return r;
  }
  /*! \brief An element with every bit set (true) or none (false), as the comparison
   *  operators give. */
  static T all_bits(bool on) {
    T v;
    std::memset(&v, on ? 0xFF : 0, sizeof(T));
    return v;
  }
  bool any_bit(int i) const {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &values_[i], sizeof(T));
    for (unsigned char b : bytes) {
      if (b) return true;
    }
    return false;
  }

 private:
  // The 16-bit floats compute in float; the others in their own type.
  using compute_t = std::conditional_t<is_reduced_floating_point_v<T>, float, T>;
  alignas(32) T values_[32 / sizeof(T)];
};

// ---- operators ---------------------------------------------------------------------------
#define SDK_DETAIL_VEC_BINARY(op)                                              \
  template <typename T>                                                        \
  Vectorized<T> operator op(const Vectorized<T>& a, const Vectorized<T>& b) {  \
    return a.zip(b, [](T x, T y) { return static_cast<T>(x op y); });          \
  }                                                                            \
  template <typename T>                                                        \
  Vectorized<T>& operator op## = (Vectorized<T> & a, const Vectorized<T>& b) { \
    a = a op b;                                                                \
    return a;                                                                  \
  }
SDK_DETAIL_VEC_BINARY(+)
SDK_DETAIL_VEC_BINARY(-)
SDK_DETAIL_VEC_BINARY(*)
SDK_DETAIL_VEC_BINARY(/)
#undef SDK_DETAIL_VEC_BINARY
template <typename T>
Vectorized<T> operator-(const Vectorized<T>& a) {
  return a.neg();
}
// Comparisons give a mask: every bit of an element set where true (blendv's and &'s input).
#define SDK_DETAIL_VEC_COMPARE(op)                                             \
  template <typename T>                                                        \
  Vectorized<T> operator op(const Vectorized<T>& a, const Vectorized<T>& b) {  \
    return a.zip(b, [](T x, T y) { return Vectorized<T>::all_bits(x op y); }); \
  }
SDK_DETAIL_VEC_COMPARE(==)
SDK_DETAIL_VEC_COMPARE(!=)
SDK_DETAIL_VEC_COMPARE(<)
SDK_DETAIL_VEC_COMPARE(<=)
SDK_DETAIL_VEC_COMPARE(>)
SDK_DETAIL_VEC_COMPARE(>=)
#undef SDK_DETAIL_VEC_COMPARE
// Bitwise operators act on the elements' bits (masks, integer flags).
#define SDK_DETAIL_VEC_BITWISE(op)                                                               \
  template <typename T>                                                                          \
  Vectorized<T> operator op(const Vectorized<T>& a, const Vectorized<T>& b) {                    \
    return a.zip(b, [](T x, T y) {                                                               \
      unsigned char bx[sizeof(T)], by[sizeof(T)];                                                \
      std::memcpy(bx, &x, sizeof(T));                                                            \
      std::memcpy(by, &y, sizeof(T));                                                            \
      for (size_t k = 0; k < sizeof(T); ++k) bx[k] = static_cast<unsigned char>(bx[k] op by[k]); \
      T r;                                                                                       \
      std::memcpy(&r, bx, sizeof(T));                                                            \
      return r;                                                                                  \
    });                                                                                          \
  }
SDK_DETAIL_VEC_BITWISE(&)
SDK_DETAIL_VEC_BITWISE(|)
SDK_DETAIL_VEC_BITWISE(^)
#undef SDK_DETAIL_VEC_BITWISE

/*! \brief Elementwise max; NaN wins (as torch's). */
template <typename T>
Vectorized<T> maximum(const Vectorized<T>& a, const Vectorized<T>& b) {
  return a.zip(b, [](T x, T y) { return x != x ? x : y != y ? y : (x > y ? x : y); });
}
/*! \brief Elementwise min; NaN wins. */
template <typename T>
Vectorized<T> minimum(const Vectorized<T>& a, const Vectorized<T>& b) {
  return a.zip(b, [](T x, T y) { return x != x ? x : y != y ? y : (x < y ? x : y); });
}
template <typename T>
Vectorized<T> clamp(const Vectorized<T>& a, const Vectorized<T>& min, const Vectorized<T>& max) {
  return minimum(max, maximum(min, a));
}
template <typename T>
Vectorized<T> clamp_max(const Vectorized<T>& a, const Vectorized<T>& max) {
  return minimum(max, a);
}
template <typename T>
Vectorized<T> clamp_min(const Vectorized<T>& a, const Vectorized<T>& min) {
  return maximum(min, a);
}
/*! \brief a * b + c. */
template <typename T>
Vectorized<T> fmadd(const Vectorized<T>& a, const Vectorized<T>& b, const Vectorized<T>& c) {
  return a * b + c;
}
/*! \brief a * b - c. */
template <typename T>
Vectorized<T> fmsub(const Vectorized<T>& a, const Vectorized<T>& b, const Vectorized<T>& c) {
  return a * b - c;
}

// ---- 16-bit floats to and from float -----------------------------------------------------
/*! \brief The two float halves of a Half/BFloat16 group (size() floats each). */
template <typename T, std::enable_if_t<is_reduced_floating_point_v<T>, int> = 0>
std::tuple<Vectorized<float>, Vectorized<float>> convert_to_float(const Vectorized<T>& a) {
  Vectorized<float> lo, hi;
  constexpr int n = Vectorized<float>::size();
  for (int i = 0; i < n; ++i) {
    lo[i] = static_cast<float>(a[i]);
    hi[i] = static_cast<float>(a[i + n]);
  }
  return std::make_tuple(lo, hi);
}
/*! \brief One Half/BFloat16 group from two float groups (rounded to nearest even). */
template <typename T, std::enable_if_t<is_reduced_floating_point_v<T>, int> = 0>
Vectorized<T> convert_from_float(const Vectorized<float>& a, const Vectorized<float>& b) {
  Vectorized<T> r;
  constexpr int n = Vectorized<float>::size();
  for (int i = 0; i < n; ++i) {
    r[i] = static_cast<T>(a[i]);
    r[i + n] = static_cast<T>(b[i]);
  }
  return r;
}

// ---- over arrays (ATen/cpu/vec/functional.h) ---------------------------------------------
// vec_fun receives named groups (lvalues), as torch's helpers pass them: kernels' lambdas
// often take `Vec&`.
/*! \brief output[i] = vec_fun(input)[i] for i < size, a group at a time (the tail padded). */
template <typename scalar_t, typename Op>
void map(const Op& vec_fun, scalar_t* output_data, const scalar_t* input_data, int64_t size) {
  using Vec = Vectorized<scalar_t>;
  for (int64_t d = 0; d < size; d += Vec::size()) {
    const int64_t n = std::min<int64_t>(Vec::size(), size - d);
    Vec x = Vec::loadu(input_data + d, n);
    Vec r = vec_fun(x);
    r.store(output_data + d, n);
  }
}
template <typename scalar_t, typename Op>
void map2(const Op& vec_fun, scalar_t* output_data, const scalar_t* input_data,
          const scalar_t* input_data2, int64_t size) {
  using Vec = Vectorized<scalar_t>;
  for (int64_t d = 0; d < size; d += Vec::size()) {
    const int64_t n = std::min<int64_t>(Vec::size(), size - d);
    Vec x = Vec::loadu(input_data + d, n), y = Vec::loadu(input_data2 + d, n);
    Vec r = vec_fun(x, y);
    r.store(output_data + d, n);
  }
}
template <typename scalar_t, typename Op>
void map3(const Op& vec_fun, scalar_t* output_data, const scalar_t* input_data1,
          const scalar_t* input_data2, const scalar_t* input_data3, int64_t size) {
  using Vec = Vectorized<scalar_t>;
  for (int64_t d = 0; d < size; d += Vec::size()) {
    const int64_t n = std::min<int64_t>(Vec::size(), size - d);
    Vec x = Vec::loadu(input_data1 + d, n), y = Vec::loadu(input_data2 + d, n);
    Vec z = Vec::loadu(input_data3 + d, n);
    Vec r = vec_fun(x, y, z);
    r.store(output_data + d, n);
  }
}
/*! \brief The first `size` elements of one group combined with vec_fun, lane by lane. */
template <typename scalar_t, typename Op>
scalar_t vec_reduce_all(const Op& vec_fun, Vectorized<scalar_t> acc_vec,
                        int64_t size = Vectorized<scalar_t>::size()) {
  Vectorized<scalar_t> acc(acc_vec[0]);
  for (int64_t i = 1; i < size; ++i) {
    Vectorized<scalar_t> lane(acc_vec[i]);
    acc = vec_fun(acc, lane);
  }
  return acc[0];
}
/*! \brief data[0..size) reduced with vec_fun (which must be associative: sum, max, ...). */
template <typename scalar_t, typename Op>
scalar_t reduce_all(const Op& vec_fun, const scalar_t* data, int64_t size) {
  using Vec = Vectorized<scalar_t>;
  if (size < Vec::size()) return vec_reduce_all(vec_fun, Vec::loadu(data, size), size);
  Vec acc = Vec::loadu(data);
  int64_t d = Vec::size();
  for (; d + Vec::size() <= size; d += Vec::size()) {
    Vec x = Vec::loadu(data + d);
    acc = vec_fun(acc, x);
  }
  if (d < size) {
    Vec x = Vec::loadu(data + d, size - d);
    Vec tail = vec_fun(acc, x);
    acc = Vec::set(acc, tail, size - d);
  }
  return vec_reduce_all(vec_fun, acc);
}
/*! \brief dst[i] = static_cast<dst_t>(src[i]) for i < n. */
template <typename src_t, typename dst_t>
void convert(const src_t* src, dst_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<dst_t>(src[i]);
}

}  // namespace vec
}  // namespace sdk

#endif  // SDK_VEC_H_
