// sdk/array_ref.h: sdk::ArrayRef / IntArrayRef, non-owning views over sizes, strides and tensor
// lists.
#ifndef SDK_ARRAY_REF_H_
#define SDK_ARRAY_REF_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "sdk/error.h"

namespace sdk {

/*! \brief A read-only view of contiguous T values (pointer + length), like torch's
 *  ArrayRef: built from a braced list, a std::vector, a pointer and a length, or a single
 *  value. It never owns memory, so keep the source alive while the view is used (a braced
 *  list passed to a call lives until the call returns). */
template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit like torch
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  constexpr ArrayRef(const T* begin, const T* end)
      : data_(begin), size_(static_cast<size_t>(end - begin)) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  // The braced list outlives the call it is written in, which is how ArrayRef is used. (The
  // pointer goes through list_data() because gcc's -Winit-list-lifetime fires on a direct
  // list.begin() here, and a diagnostic pragma does not survive a precompiled header.)
  constexpr ArrayRef(const std::initializer_list<T>& list)  // NOLINT
      : data_(list_data(list)), size_(list.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&array)[N]) : data_(array), size_(N) {}  // NOLINT

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  /*! \brief Bounds-checked element access. */
  const T& at(size_t i) const {
    if (i >= size_) {
      detail::throw_error(SDK_ERROR_INDEX, detail::concat("ArrayRef::at: index ", i,
                                                          " out of range for size ", size_));
    }
    return data_[i];
  }
  /*! \brief A copy as a std::vector. */
  std::vector<T> vec() const { return std::vector<T>(data_, data_ + size_); }
  /*! \brief Elements [n, n + m). */
  constexpr ArrayRef slice(size_t n, size_t m) const { return ArrayRef(data_ + n, m); }
  constexpr ArrayRef slice(size_t n) const { return ArrayRef(data_ + n, size_ - n); }
  bool equals(ArrayRef other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }

 private:
  static constexpr const T* list_data(const std::initializer_list<T>& list) {
    return list.begin() == list.end() ? nullptr : list.begin();
  }

  const T* data_ = nullptr;
  size_t size_ = 0;
};

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}
template <typename T, typename A>
bool operator==(ArrayRef<T> a, const std::vector<T, A>& b) {
  return a.equals(b);
}
template <typename T, typename A>
bool operator==(const std::vector<T, A>& a, ArrayRef<T> b) {
  return b.equals(a);
}
template <typename T, typename A>
bool operator!=(ArrayRef<T> a, const std::vector<T, A>& b) {
  return !a.equals(b);
}
template <typename T, typename A>
bool operator!=(const std::vector<T, A>& a, ArrayRef<T> b) {
  return !b.equals(a);
}

/*! \brief Sizes, strides and dim lists. */
using IntArrayRef = ArrayRef<int64_t>;

/*! \brief "[2, 3]". */
inline void str_append(std::string& s, IntArrayRef v) {
  s += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  s += ']';
}

}  // namespace sdk

#endif  // SDK_ARRAY_REF_H_
