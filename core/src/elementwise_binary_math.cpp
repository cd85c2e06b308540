// core/src/elementwise_binary_math.cpp: the floating-point binary math kernels (atan2, hypot,
// copysign, logaddexp, xlogy); other dtypes are promoted to float before they get here.
#include <cmath>

#include "binary_kernels.h"

namespace sdk::detail {
namespace {

// log(e^a + e^b) without overflow; equal infinities pass through (inf - inf is NaN).
template <typename C>
C log_add_exp(C a, C b) {
  if (a == b && std::isinf(a)) return a;
  C m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// a * log(b), 0 where a == 0 unless b is NaN (torch's xlogy).
template <typename C>
C x_log_y(C a, C b) {
  if (b != b) return b;
  return a == C(0) ? C(0) : a * std::log(b);
}

template <typename T>
bool float_math_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  switch (op) {
    case SDK_ATAN2:
      L.binary_libm<T, T>([](C a, C b) { return std::atan2(a, b); });
      return true;
    case SDK_HYPOT:
      L.binary_libm<T, T>([](C a, C b) { return std::hypot(a, b); });
      return true;
    case SDK_COPYSIGN:
      L.binary<T, T>([](C a, C b) { return std::copysign(a, b); });
      return true;
    case SDK_LOGADDEXP:
      L.binary_libm<T, T>([](C a, C b) { return log_add_exp(a, b); });
      return true;
    case SDK_XLOGY:
      L.binary_libm<T, T>([](C a, C b) { return x_log_y(a, b); });
      return true;
    default:
      return false;
  }
}

}  // namespace

bool binary_float_math(int op, sdk_dtype compute, const Launch& L) {
  if (!is_floating(compute)) return false;
  return SDK_DISPATCH_FLOATING(compute, binary_name(op),
                               [&] { return float_math_kernel<scalar_t>(op, L); });
}

}  // namespace sdk::detail
