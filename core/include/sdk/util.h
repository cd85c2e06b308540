// sdk/util.h: the small vocabulary torch extensions lean on (c10::optional, c10::irange,
// at::ceil_div, at::DimVector, device_of), spelled in namespace sdk.
#ifndef SDK_UTIL_H_
#define SDK_UTIL_H_

#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sdk/array_ref.h"
#include "sdk/device.h"
#include "sdk/macros.h"
#include "sdk/tensor_base.h"

namespace sdk {

// c10::optional has been std::optional since torch 2.1; the names stay for ported code.
template <typename T>
using optional = std::optional<T>;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using string_view = std::string_view;

/*! \brief A device ordinal (torch's c10::DeviceIndex); -1 is "the current device". */
using DeviceIndex = int32_t;
/*! \brief torch::Dtype. */
using Dtype = ScalarType;

/*! \brief c10::str: the arguments' text concatenated (what SDK_CHECK messages are made of). */
template <typename... Args>
inline std::string str(const Args&... args) {
  return detail::concat(args...);
}

/*! \brief The device of a defined tensor, nullopt for an undefined one (torch's device_of,
 *  what OptionalCUDAGuard takes). */
inline std::optional<Device> device_of(const Tensor& t) {
  if (!t.defined()) return std::nullopt;
  return t.device();
}

/*! \brief ceil(a / b) for positive integers, as at::ceil_div (grid sizes of kernels). */
template <typename T, typename U, std::enable_if_t<std::is_integral<T>::value, int> = 0>
SDK_DEVICE_INLINE constexpr T ceil_div(T a, U b) {
  return (a + b - 1) / b;
}

namespace detail {

// One counter of irange: an input iterator over integers that compares by value.
template <typename I>
struct IntegerIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = I;
  using difference_type = std::ptrdiff_t;
  using pointer = const I*;
  using reference = I;
  I value;
  SDK_DEVICE_INLINE constexpr I operator*() const { return value; }
  SDK_DEVICE_INLINE constexpr IntegerIterator& operator++() {
    ++value;
    return *this;
  }
  SDK_DEVICE_INLINE constexpr bool operator==(const IntegerIterator& o) const {
    return value == o.value;
  }
  SDK_DEVICE_INLINE constexpr bool operator!=(const IntegerIterator& o) const {
    return value != o.value;
  }
};

template <typename I>
struct IntegerRange {
  IntegerIterator<I> begin_, end_;
  SDK_DEVICE_INLINE constexpr IntegerIterator<I> begin() const { return begin_; }
  SDK_DEVICE_INLINE constexpr IntegerIterator<I> end() const { return end_; }
};

}  // namespace detail

/*! \brief for (const auto i : sdk::irange(n)): 0, 1, ..., n - 1 in the type of n (an empty
 *  range when n <= 0), as c10::irange. */
template <typename I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
SDK_DEVICE_INLINE constexpr detail::IntegerRange<I> irange(I end) {
  return {{I(0)}, {end > I(0) ? end : I(0)}};
}
/*! \brief begin, ..., end - 1 (empty when end <= begin), in the common type of the two. */
template <typename I1, typename I2,
          std::enable_if_t<std::is_integral<I1>::value && std::is_integral<I2>::value, int> = 0>
SDK_DEVICE_INLINE constexpr detail::IntegerRange<std::common_type_t<I1, I2>> irange(I1 begin,
                                                                                    I2 end) {
  using I = std::common_type_t<I1, I2>;
  return {{I(begin)}, {I(end) > I(begin) ? I(end) : I(begin)}};
}

/*! \brief c10::SmallVector's interface over std::vector (no inline storage): push_back,
 *  resize, data(), and what torch code does with it -- build one from sizes() and pass it
 *  where an IntArrayRef goes (ArrayRef converts from any std::vector). */
template <typename T, unsigned N = 4>
class SmallVector : public std::vector<T> {
 public:
  using std::vector<T>::vector;
  SmallVector() = default;
  SmallVector(ArrayRef<T> values)  // NOLINT: implicit like torch's
      : std::vector<T>(values.begin(), values.end()) {}
  /*! \brief Append a range (SmallVector::append). */
  void append(ArrayRef<T> values) { this->insert(this->end(), values.begin(), values.end()); }
  template <typename It>
  void append(It first, It last) {
    this->insert(this->end(), first, last);
  }
};

/*! \brief Sizes or strides under construction (at::DimVector). */
using DimVector = SmallVector<int64_t, 5>;
/*! \brief Symbolic sizes under construction (at::SymDimVector; sizes are concrete here). */
using SymDimVector = SmallVector<SymInt, 5>;
/*! \brief torch's old name of IntArrayRef (at::IntList). */
using IntList = IntArrayRef;

/*! \brief The product of a container's integers, as int64_t (c10::multiply_integers). */
template <typename C>
inline int64_t multiply_integers(const C& container) {
  int64_t product = 1;
  for (const auto& v : container) product *= static_cast<int64_t>(v);
  return product;
}
template <typename It>
inline int64_t multiply_integers(It begin, It end) {
  int64_t product = 1;
  for (; begin != end; ++begin) product *= static_cast<int64_t>(*begin);
  return product;
}
/*! \brief The sum of a container's integers, as int64_t (c10::sum_integers). */
template <typename C>
inline int64_t sum_integers(const C& container) {
  int64_t sum = 0;
  for (const auto& v : container) sum += static_cast<int64_t>(v);
  return sum;
}

/*! \brief The product of dims[0..k) (c10::size_to_dim_). */
inline int64_t size_to_dim_(int k, IntArrayRef dims) {
  SDK_CHECK_INDEX(k >= 0 && static_cast<size_t>(k) <= dims.size(), "size_to_dim_: k ", k,
                  " out of range for ", dims.size(), " dims");
  return multiply_integers(dims.begin(), dims.begin() + k);
}
/*! \brief The product of dims[k..) (c10::size_from_dim_). */
inline int64_t size_from_dim_(int k, IntArrayRef dims) {
  SDK_CHECK_INDEX(k >= 0 && static_cast<size_t>(k) <= dims.size(), "size_from_dim_: k ", k,
                  " out of range for ", dims.size(), " dims");
  return multiply_integers(dims.begin() + k, dims.end());
}
/*! \brief The product of dims[k+1..l) for k < l, of dims[l+1..k) otherwise (c10's). */
inline int64_t size_between_dim_(int k, int l, IntArrayRef dims) {
  const int n = static_cast<int>(dims.size());
  SDK_CHECK_INDEX(k >= 0 && l >= 0 && k < n && l < n, "size_between_dim_: dims ", k, ", ", l,
                  " out of range for ", n, " dims");
  return k < l ? multiply_integers(dims.begin() + k + 1, dims.begin() + l)
               : multiply_integers(dims.begin() + l + 1, dims.begin() + k);
}
/*! \brief Row-major (contiguous) strides of `sizes` (c10::contiguous_strides). */
inline DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * (sizes[i] > 1 ? sizes[i] : 1);
  }
  return strides;
}
/*! \brief dim wrapped into [0, ndim) (a 0-d tensor takes dims -1 and 0 when wrap_scalar);
 *  IndexError otherwise (c10::maybe_wrap_dim). */
inline int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar = true) {
  if (ndim <= 0) {
    SDK_CHECK_INDEX(wrap_scalar, "Dimension specified as ", dim, " but tensor has no dimensions");
    ndim = 1;
  }
  SDK_CHECK_INDEX(dim >= -ndim && dim < ndim,
                  "Dimension out of range (expected to be in range of [", -ndim, ", ", ndim - 1,
                  "], but got ", dim, ")");
  return dim < 0 ? dim + ndim : dim;
}
/*! \brief fn applied to each element of `inputs`, as a std::vector (c10::fmap). */
template <typename T, typename F>
inline auto fmap(const T& inputs, const F& fn) -> std::vector<decltype(fn(*inputs.begin()))> {
  std::vector<decltype(fn(*inputs.begin()))> out;
  out.reserve(inputs.size());
  for (const auto& v : inputs) out.push_back(fn(v));
  return out;
}
/*! \brief The elements of `container` printed with `delimiter` between them (c10::Join). */
template <class Container>
inline std::string Join(const std::string& delimiter, const Container& container) {
  std::string s;
  bool first = true;
  for (const auto& v : container) {
    if (!first) s += delimiter;
    first = false;
    str_append(s, v);
  }
  return s;
}
namespace detail {
/*! \brief A fixed-size array that passes by value to a CUDA kernel (at::detail::Array). */
template <typename T, int size_>
struct Array {
  T data[size_];
  Array() = default;
  SDK_HOST_DEVICE Array(T x) {  // NOLINT: every element x, implicit as torch's
    for (int i = 0; i < size_; ++i) data[i] = x;
  }
  SDK_HOST_DEVICE T operator[](int i) const { return data[i]; }
  SDK_HOST_DEVICE T& operator[](int i) { return data[i]; }
  static constexpr int size() { return size_; }
};
}  // namespace detail
/*! \brief f(std::integral_constant<int, 0>{}, args...), then 1, ..., n - 1: a loop over a
 *  compile-time index (c10::ForcedUnroll). */
template <int n>
struct ForcedUnroll {
  template <typename Func, typename... Args>
  SDK_DEVICE_INLINE void operator()(const Func& f, Args... args) const {
    ForcedUnroll<n - 1>{}(f, args...);
    f(std::integral_constant<int, n - 1>{}, args...);
  }
};
template <>
struct ForcedUnroll<1> {
  template <typename Func, typename... Args>
  SDK_DEVICE_INLINE void operator()(const Func& f, Args... args) const {
    f(std::integral_constant<int, 0>{}, args...);
  }
};

/*! \brief The bits of `from` read as a To of the same size (c10::bit_cast). */
template <typename To, typename From,
          std::enable_if_t<sizeof(To) == sizeof(From) && std::is_trivially_copyable<To>::value &&
                               std::is_trivially_copyable<From>::value,
                           int> = 0>
SDK_DEVICE_INLINE To bit_cast(const From& from) {
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

}  // namespace sdk

#endif  // SDK_UTIL_H_
