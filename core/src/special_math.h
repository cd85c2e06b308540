// core/src/special_math.h: erfinv, shared by the CPU kernels and the host side of the CUDA
// element math (the device uses CUDA's own erfinv).
//
// No dependencies beyond <cmath>, so that device_util.cuh can include it.
#pragma once

#include <cmath>
#include <limits>

namespace sdk::special {

// Inverse error function in double precision: a closed-form first guess (relative error
// about 2e-3, the approximation erf(x)^2 ~ 1 - exp(-x^2 (4/pi + k x^2) / (1 + k x^2)) with
// k = 0.147 solved for x), then Halley steps, which triple the correct digits each time.
// Near |y| = 1 the steps solve erfc(x) = 1 - |y| instead, where 1 - |y| is exact, so the
// result keeps full relative accuracy in the tail.
inline double erfinv(double y) {
  const double a = std::fabs(y);
  if (!(a < 1.0)) {  // NaN, |y| == 1, |y| > 1
    if (a == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (a == 0.0) return y;  // keeps the sign of zero
  const double k = 0.147;
  const double pi = 3.14159265358979323846;
  const double l = std::log1p(-a * a);
  const double t = 2.0 / (pi * k) + 0.5 * l;
  double x = std::sqrt(std::sqrt(t * t - l / k) - t);
  const double two_over_sqrt_pi = 1.12837916709551257390;
  const bool tail = a > 0.5;
  const double c = 1.0 - a;  // exact for a in [0.5, 1)
  for (int i = 0; i < 3; ++i) {
    // f = erf(x) - a (or its equal -(erfc(x) - c)); f' = d, f'' = -2 x d.
    const double f = tail ? c - std::erfc(x) : std::erf(x) - a;
    const double d = two_over_sqrt_pi * std::exp(-x * x);
    if (f == 0.0 || d == 0.0) break;
    x -= f / (d + x * f);
  }
  return std::copysign(x, y);
}

}  // namespace sdk::special
