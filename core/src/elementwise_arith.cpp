// core/src/elementwise_arith.cpp: the arithmetic binary kernels (add, sub, mul, div, pow,
// maximum, minimum) and pow with a special scalar exponent.
#include <cmath>

#include "binary_kernels.h"

namespace sdk::detail {
namespace {

template <typename T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  // unsigned and at least as wide as int: uint16 * uint16 would overflow int
  using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
  U result = 1, b = static_cast<U>(base);
  for (auto e = exp; e > 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<T>(result);
}

template <typename C>
C nan_max(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename C>
C nan_min(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

template <typename T>
bool arith_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  constexpr bool kFloat = std::is_floating_point_v<C>;
  switch (op) {
    case SDK_ADD:
      L.binary<T, T>([](C a, C b) { return wrap_add(a, b); });
      return true;
    case SDK_SUB:
      L.binary<T, T>([](C a, C b) { return wrap_sub(a, b); });
      return true;
    case SDK_MUL:
      L.binary<T, T>([](C a, C b) { return wrap_mul(a, b); });
      return true;
    case SDK_DIV:
      if constexpr (kFloat) {
        L.binary<T, T>([](C a, C b) { return a / b; });
        return true;
      }
      return false;
    case SDK_POW:
      if constexpr (kFloat) {
        L.binary_libm<T, T>([](C a, C b) { return std::pow(a, b); });
        return true;
      } else if constexpr (!std::is_same_v<C, bool>) {
        L.binary_libm<T, T>([](C a, C b) { return int_pow<C>(a, b); });
        return true;
      }
      return false;
    case SDK_MAXIMUM:
      L.binary<T, T>([](C a, C b) { return nan_max(a, b); });
      return true;
    case SDK_MINIMUM:
      L.binary<T, T>([](C a, C b) { return nan_min(a, b); });
      return true;
    default:
      return false;
  }
}

// float32 x^3 and x^-2 go through double so the result is rounded once.
template <typename T>
bool pow_scalar_kernel(const Launch& L, double e) {
  using C = typename OpMath<T>::type;
  if constexpr (std::is_same_v<C, bool>) {
    return false;
  } else if constexpr (std::is_floating_point_v<C>) {
    constexpr bool kF32 = std::is_same_v<T, float>;
    if (e == 2) {
      L.unary<T, T>([](C x) { return x * x; });
    } else if (e == 3) {
      if constexpr (kF32) {
        L.unary<T, T>([](C x) {
          double d = x;
          return static_cast<float>(d * d * d);
        });
      } else {
        L.unary<T, T>([](C x) { return x * x * x; });
      }
    } else if (e == 0.5) {
      // sqrt, as torch and numpy do: pow(-0, 0.5) is -0 and pow(-inf, 0.5) NaN there too.
      L.unary<T, T>([](C x) { return std::sqrt(x); });
    } else if (e == -1) {
      L.unary<T, T>([](C x) { return C(1) / x; });
    } else if (e == -2) {
      if constexpr (kF32) {
        L.unary<T, T>([](C x) {
          double d = x;
          return static_cast<float>(1.0 / (d * d));
        });
      } else {
        L.unary<T, T>([](C x) { return C(1) / (x * x); });
      }
    } else if (e == 1) {
      L.unary<T, T>([](C x) { return x; });
    } else if (e == 0) {
      L.unary<T, T>([](C) { return C(1); });
    } else {
      return false;
    }
    return true;
  } else {
    // Wrapping products in an unsigned type at least as wide as int (no UB).
    using U = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;
    if (e == 2) {
      L.unary<T, T>([](C x) {
        U u = static_cast<U>(x);
        return static_cast<C>(u * u);
      });
    } else if (e == 3) {
      L.unary<T, T>([](C x) {
        U u = static_cast<U>(x);
        return static_cast<C>(u * u * u);
      });
    } else if (e == 1) {
      L.unary<T, T>([](C x) { return x; });
    } else if (e == 0) {
      L.unary<T, T>([](C) { return C(1); });
    } else {
      return false;
    }
    return true;
  }
}

}  // namespace

bool binary_arith(int op, sdk_dtype compute, const Launch& L) {
  return SDK_DISPATCH_ALL(compute, binary_name(op), [&] { return arith_kernel<scalar_t>(op, L); });
}

bool pow_scalar(sdk_dtype compute, const Launch& L, double e) {
  return SDK_DISPATCH_ALL(compute, "pow", [&] { return pow_scalar_kernel<scalar_t>(L, e); });
}

}  // namespace sdk::detail
