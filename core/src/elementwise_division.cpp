// core/src/elementwise_division.cpp: the rounding divisions and remainders (floor_divide,
// remainder, fmod, div with rounding_mode='trunc') and the bitwise binary kernels.
#include <cmath>

#include "binary_kernels.h"

namespace sdk::detail {
namespace {

// Python's floor division and modulo for floats (signs follow the divisor).
template <typename C>
C py_fmod(C a, C b) {
  C m = std::fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(C(0), b);
  }
  return m;
}
template <typename C>
C py_floordiv(C a, C b) {
  if (b == 0) return a / b;
  C m = std::fmod(a, b);
  C div = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) div -= 1;
  if (div == 0) return std::copysign(C(0), a / b);
  C fl = std::floor(div);
  if (div - fl > C(0.5)) fl += 1;
  return fl;
}
// Integer versions: callers reject b == 0 beforehand; -1 avoids INT_MIN / -1 traps.
template <typename C>
C int_floordiv(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return static_cast<C>(0 - static_cast<std::make_unsigned_t<C>>(a));
    C q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return a / b;
  }
}
template <typename C>
C int_mod(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return 0;
    C r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    return a % b;
  }
}

// C's remainder for integers (the sign of the dividend); b == 0 is rejected beforehand.
template <typename C>
C int_fmod(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return 0;  // INT_MIN % -1 traps
  }
  return static_cast<C>(a % b);
}
template <typename C>
C int_div_trunc(C a, C b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<C>) {
    if (b == -1) return static_cast<C>(0 - static_cast<std::make_unsigned_t<C>>(a));
  }
  return static_cast<C>(a / b);
}

template <typename T>
bool float_division_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  switch (op) {
    case SDK_FLOOR_DIVIDE:
      L.binary_libm<T, T>([](C a, C b) { return py_floordiv(a, b); });
      return true;
    case SDK_REMAINDER:
      L.binary_libm<T, T>([](C a, C b) { return py_fmod(a, b); });
      return true;
    case SDK_FMOD:
      L.binary_libm<T, T>([](C a, C b) { return std::fmod(a, b); });
      return true;
    case kDivTrunc:
      L.binary<T, T>([](C a, C b) { return std::trunc(a / b); });
      return true;
    default:
      return false;
  }
}

template <typename T>
bool int_division_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  switch (op) {
    case SDK_FLOOR_DIVIDE:
      L.binary_libm<T, T>([](C a, C b) { return int_floordiv<C>(a, b); });
      return true;
    case SDK_REMAINDER:
      L.binary_libm<T, T>([](C a, C b) { return int_mod<C>(a, b); });
      return true;
    case SDK_FMOD:
      L.binary_libm<T, T>([](C a, C b) { return int_fmod<C>(a, b); });
      return true;
    case kDivTrunc:
      L.binary_libm<T, T>([](C a, C b) { return int_div_trunc<C>(a, b); });
      return true;
    case SDK_BITWISE_AND:
      L.binary<T, T>([](C a, C b) { return a & b; });
      return true;
    case SDK_BITWISE_OR:
      L.binary<T, T>([](C a, C b) { return a | b; });
      return true;
    case SDK_BITWISE_XOR:
      L.binary<T, T>([](C a, C b) { return a ^ b; });
      return true;
    default:
      return false;
  }
}

// Bitwise ops on bool (the only ops of this family that take it).
bool bool_bitwise_kernel(int op, const Launch& L) {
  switch (op) {
    case SDK_BITWISE_AND:
      L.binary<bool, bool>([](bool a, bool b) { return a & b; });
      return true;
    case SDK_BITWISE_OR:
      L.binary<bool, bool>([](bool a, bool b) { return a | b; });
      return true;
    case SDK_BITWISE_XOR:
      L.binary<bool, bool>([](bool a, bool b) { return a ^ b; });
      return true;
    default:
      return false;
  }
}

}  // namespace

bool binary_division(int op, sdk_dtype compute, const Launch& L) {
  if (compute == SDK_BOOL) return bool_bitwise_kernel(op, L);
  if (is_floating(compute)) {
    return SDK_DISPATCH_FLOATING(compute, binary_name(op),
                                 [&] { return float_division_kernel<scalar_t>(op, L); });
  }
  return SDK_DISPATCH_INTEGER(compute, binary_name(op),
                              [&] { return int_division_kernel<scalar_t>(op, L); });
}

}  // namespace sdk::detail
