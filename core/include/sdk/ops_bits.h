// sdk/ops_bits.h: diff and the bitwise shifts with torch's names and arguments, composed from
// the rest of the C++ API (so they run wherever those ops run, CPU and CUDA).
#ifndef SDK_OPS_BITS_H_
#define SDK_OPS_BITS_H_

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "sdk/elementwise.h"
#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/ops_data.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {

/*! \brief The n-th forward difference along `dim` (torch::diff): out[i] = x[i+1] - x[i],
 *  repeated n times, after `prepend` and `append` are concatenated to `self` along `dim`
 *  (n == 0: a copy of self alone).
 *  Bool tensors give x[i+1] != x[i]. */
inline Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1,
                   const std::optional<Tensor>& prepend = std::nullopt,
                   const std::optional<Tensor>& append = std::nullopt) {
  SDK_CHECK_VALUE(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  SDK_CHECK_VALUE(n >= 0, "order must be non-negative but got ", n);
  // n == 0 is a copy of self, without prepend and append (as torch and numpy)
  if (n == 0) return self.clone();
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    for (const std::optional<Tensor>* p : {&prepend, &append}) {
      if (*p && (*p)->defined()) {
        SDK_CHECK_VALUE((*p)->dim() == self.dim(), "diff expects prepend or its ",
                        "append to have the same number of dimensions as input");
      }
    }
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    x = cat(parts, dim);
  }
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  SDK_CHECK_INDEX(d >= 0 && d < x.dim(), "diff: dim ", dim, " is out of range for a tensor of ",
                  x.dim(), " dimensions");
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const int64_t len = x.size(d) - 1;
    Tensor hi = x.narrow(d, 1, len), lo = x.narrow(d, 0, len);
    x = x.scalar_type() == ScalarType::Bool ? ne(hi, lo) : sub(hi, lo);
  }
  return x;
}

namespace detail {

// 2^k for k in [0, bits) as the dtype's own values (2^(bits-1) wraps to the most negative
// value in a signed dtype), on `like`'s device: the shifts look their factors up here.
template <typename T>
inline Tensor shift_powers(const Tensor& like) {
  using U = std::make_unsigned_t<T>;
  std::vector<T> p;
  for (unsigned k = 0; k < sizeof(T) * 8; ++k) p.push_back(static_cast<T>(U(U(1) << k)));
  return tensor(p, TensorOptions().dtype(like.scalar_type())).to(like.device());
}

inline Tensor shift_powers(const Tensor& like) {
  switch (like.scalar_type()) {
    case ScalarType::Byte:
      return shift_powers<uint8_t>(like);
    case ScalarType::Char:
      return shift_powers<int8_t>(like);
    case ScalarType::Short:
      return shift_powers<int16_t>(like);
    case ScalarType::Int:
      return shift_powers<int32_t>(like);
    case ScalarType::Long:
      return shift_powers<int64_t>(like);
    default:
      SDK_CHECK_TYPE(false, "bitwise shifts: only integer tensors are supported, got ",
                     like.scalar_type());
  }
  return Tensor();
}

// self and the shift amounts broadcast against each other, both in the common integer dtype.
inline std::pair<Tensor, Tensor> shift_operands(const Tensor& self, const Tensor& other,
                                                const char* name) {
  SDK_CHECK_TYPE(
      isIntegralType(self.scalar_type(), false) && isIntegralType(other.scalar_type(), false), name,
      ": only integer tensors are supported, got ", self.scalar_type(), " and ",
      other.scalar_type());
  ScalarType t = promote_types(self.scalar_type(), other.scalar_type());
  Tensor a = self.to(t), b = other.to(t).to(self.device());
  std::vector<Tensor> both = broadcast_tensors({a, b});
  return {both[0], both[1]};
}

// Whether a shift amount is in [0, bits): torch shifts by anything else give 0 (left shift,
// unsigned right shift) or the sign (signed right shift).
inline Tensor shift_in_range(const Tensor& b) {
  return logical_and(ge(b, 0), lt(b, elementSize(b.scalar_type()) * 8));
}

}  // namespace detail

/*! \brief self << other elementwise in the promoted integer dtype, wrapping as torch
 *  (torch::bitwise_left_shift): a shift below 0 or of the bit width or more gives 0. */
inline Tensor bitwise_left_shift(const Tensor& self, const Tensor& other) {
  auto [a, b] = detail::shift_operands(self, other, "bitwise_left_shift");
  Tensor ok = detail::shift_in_range(b);
  Tensor factor = detail::shift_powers(a).take(where(ok, b, 0).to(ScalarType::Long));
  return where(ok, mul(a, factor), 0).to(a.scalar_type());
}

/*! \brief self >> other elementwise in the promoted integer dtype (torch::bitwise_right_shift):
 *  arithmetic for signed dtypes (rounds toward -inf); a shift below 0 or of the bit width or
 *  more gives the sign (-1 or 0) of a signed value and 0 of an unsigned one. */
inline Tensor bitwise_right_shift(const Tensor& self, const Tensor& other) {
  auto [a, b] = detail::shift_operands(self, other, "bitwise_right_shift");
  const int64_t bits = elementSize(a.scalar_type()) * 8;
  const bool is_unsigned = a.scalar_type() == ScalarType::Byte;
  Tensor ok = detail::shift_in_range(b);
  // signed: out of range is a shift by bits-1 (the sign); floor-divide in two halves so each
  // divisor is a positive power of two below 2^(bits-1)
  Tensor s = where(ok, b, is_unsigned ? 0 : bits - 1).to(ScalarType::Long);
  Tensor high = floor_divide(s, 2), low = sub(s, high);
  Tensor powers = detail::shift_powers(a);
  Tensor out = floor_divide(floor_divide(a, powers.take(high)), powers.take(low));
  return is_unsigned ? where(ok, out, 0).to(a.scalar_type()) : out;
}

namespace detail {
// A Scalar shift amount takes self's dtype, as a wrapped number does in torch.
inline Tensor shift_amount(const Tensor& self, const Scalar& other, const char* name) {
  SDK_CHECK_TYPE(other.isIntegral(false), name, ": the shift amount must be an integer");
  return full({}, other, TensorOptions().dtype(self.scalar_type()));
}
}  // namespace detail

inline Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) {
  return bitwise_left_shift(self, detail::shift_amount(self, other, "bitwise_left_shift"));
}
inline Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) {
  return bitwise_right_shift(self, detail::shift_amount(self, other, "bitwise_right_shift"));
}

// ---- method bodies ---------------------------------------------------------------------
inline Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                           const std::optional<Tensor>& append) const {
  return sdk::diff(*this, n, dim, prepend, append);
}
inline Tensor Tensor::bitwise_left_shift(const Tensor& other) const {
  return sdk::bitwise_left_shift(*this, other);
}
inline Tensor Tensor::bitwise_left_shift(const Scalar& other) const {
  return sdk::bitwise_left_shift(*this, other);
}
inline Tensor Tensor::bitwise_right_shift(const Tensor& other) const {
  return sdk::bitwise_right_shift(*this, other);
}
inline Tensor Tensor::bitwise_right_shift(const Scalar& other) const {
  return sdk::bitwise_right_shift(*this, other);
}

}  // namespace sdk

#endif  // SDK_OPS_BITS_H_
