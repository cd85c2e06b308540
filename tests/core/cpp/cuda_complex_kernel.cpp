// Compile-only check: sdk/complex.h's arithmetic and functions work in device code.
#include "sdk/complex.h"
#include "sdk/dispatch.h"

template <typename T>
__global__ void complex_math(const sdk::complex<T>* a, const sdk::complex<T>* b,
                             sdk::complex<T>* out, T* mag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    sdk::complex<T> z = a[i] * b[i] + a[i] / b[i] - T(2) * std::conj(a[i]);
    z += std::exp(b[i]) + std::sqrt(a[i]) + std::log(b[i]) + std::pow(a[i], b[i]);
    z *= sdk::polar(T(1), std::arg(a[i]));
    out[i] = z;
    mag[i] = std::abs(z) + std::norm(z) + z.real() + (z == a[i] ? T(1) : T(0));
  }
}

template __global__ void complex_math<float>(const sdk::complex<float>*, const sdk::complex<float>*,
                                             sdk::complex<float>*, float*, int);
template __global__ void complex_math<double>(const sdk::complex<double>*,
                                              const sdk::complex<double>*, sdk::complex<double>*,
                                              double*, int);
