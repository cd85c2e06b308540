// sdk/symint.h: torch's c10::SymInt, reduced to what the SDK has: every size is a concrete
// integer (no symbolic shapes), so a SymInt is an int64_t with SymInt's methods, and a
// SymIntArrayRef is an IntArrayRef (Tensor::sym_sizes() and the *_symint factories use them).
#ifndef SDK_SYMINT_H_
#define SDK_SYMINT_H_

#include <cmath>
#include <cstdint>
#include <optional>

#include "sdk/array_ref.h"

namespace sdk {

/*! \brief A condition on sizes, always concrete (torch's c10::SymBool). */
class SymBool {
 public:
  constexpr SymBool(bool value = false) : value_(value) {}  // NOLINT: implicit like torch
  constexpr bool expect_true(const char* /*file*/ = nullptr, int64_t /*line*/ = 0) const {
    return value_;
  }
  constexpr bool guard_bool(const char* /*file*/, int64_t /*line*/) const { return value_; }
  constexpr bool guard_or_false(const char* /*file*/, int64_t /*line*/) const { return value_; }
  constexpr bool guard_or_true(const char* /*file*/, int64_t /*line*/) const { return value_; }
  constexpr std::optional<bool> maybe_as_bool() const { return value_; }
  constexpr bool is_heap_allocated() const { return false; }
  constexpr SymBool sym_not() const { return !value_; }
  constexpr SymBool sym_and(const SymBool& o) const { return value_ && o.value_; }
  constexpr SymBool sym_or(const SymBool& o) const { return value_ || o.value_; }
  constexpr SymBool operator!() const { return !value_; }
  constexpr SymBool operator&(const SymBool& o) const { return value_ && o.value_; }
  constexpr SymBool operator|(const SymBool& o) const { return value_ || o.value_; }

 private:
  bool value_;
};

/*! \brief A size that is always a concrete integer. */
class SymInt {
 public:
  constexpr SymInt(int64_t value = 0) : value_(value) {}  // NOLINT: implicit like torch
  constexpr operator int64_t() const { return value_; }   // NOLINT: sizes mix with ints
  constexpr int64_t expect_int() const { return value_; }
  constexpr int64_t guard_int(const char* /*file*/, int64_t /*line*/) const { return value_; }
  constexpr int64_t as_int_unchecked() const { return value_; }
  constexpr std::optional<int64_t> maybe_as_int() const { return value_; }
  constexpr bool is_symbolic() const { return false; }
  constexpr bool is_heap_allocated() const { return false; }
  constexpr SymBool sym_eq(const SymInt& o) const { return value_ == o.value_; }
  constexpr SymBool sym_ne(const SymInt& o) const { return value_ != o.value_; }
  constexpr SymBool sym_lt(const SymInt& o) const { return value_ < o.value_; }
  constexpr SymBool sym_le(const SymInt& o) const { return value_ <= o.value_; }
  constexpr SymBool sym_gt(const SymInt& o) const { return value_ > o.value_; }
  constexpr SymBool sym_ge(const SymInt& o) const { return value_ >= o.value_; }

 private:
  int64_t value_;
};

using SymIntArrayRef = IntArrayRef;

/*! \brief A floating-point value that is always concrete (torch's c10::SymFloat): made from a
 *  double or a SymInt, with SymFloat's arithmetic, sqrt and expect_float(). */
class SymFloat {
 public:
  constexpr SymFloat(double value = 0.0) : value_(value) {}  // NOLINT: implicit like torch
  constexpr SymFloat(SymInt value)                           // NOLINT
      : value_(static_cast<double>(value.expect_int())) {}
  constexpr double expect_float() const { return value_; }
  constexpr double guard_float(const char* /*file*/, int64_t /*line*/) const { return value_; }
  constexpr double as_float_unchecked() const { return value_; }
  constexpr bool is_symbolic() const { return false; }
  SymFloat sqrt() const { return SymFloat(std::sqrt(value_)); }
  constexpr SymFloat operator+(const SymFloat& o) const { return value_ + o.value_; }
  constexpr SymFloat operator-(const SymFloat& o) const { return value_ - o.value_; }
  constexpr SymFloat operator*(const SymFloat& o) const { return value_ * o.value_; }
  constexpr SymFloat operator/(const SymFloat& o) const { return value_ / o.value_; }
  constexpr bool operator==(const SymFloat& o) const { return value_ == o.value_; }
  constexpr bool operator!=(const SymFloat& o) const { return value_ != o.value_; }
  constexpr bool operator<(const SymFloat& o) const { return value_ < o.value_; }
  constexpr bool operator<=(const SymFloat& o) const { return value_ <= o.value_; }
  constexpr bool operator>(const SymFloat& o) const { return value_ > o.value_; }
  constexpr bool operator>=(const SymFloat& o) const { return value_ >= o.value_; }

 private:
  double value_;
};

/*! \brief c10::asIntArrayRefUnchecked / asIntArrayRefSlow: the same list of integers. */
inline IntArrayRef asIntArrayRefUnchecked(SymIntArrayRef sizes) { return sizes; }
inline IntArrayRef asIntArrayRefSlow(SymIntArrayRef sizes) { return sizes; }
inline SymIntArrayRef fromIntArrayRefSlow(IntArrayRef sizes) { return sizes; }

}  // namespace sdk

/*! \brief TORCH_SYM_CHECK: SDK_CHECK of a SymBool (or bool) condition on sizes. */
#define SDK_SYM_CHECK(cond, ...) SDK_CHECK(::sdk::SymBool(cond).expect_true(), __VA_ARGS__)
/*! \brief torch's C10_AS_INTARRAYREF_SLOW(x): the sizes as an IntArrayRef. */
#define SDK_AS_INTARRAYREF_SLOW(x) ::sdk::asIntArrayRefSlow(x)

#endif  // SDK_SYMINT_H_
