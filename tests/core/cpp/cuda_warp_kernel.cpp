// cuda_warp_kernel.cpp: compiled as CUDA (nvcc -x cu) by test_cpp_port_surface.py: kernels
// using every warp helper of sdk/cuda_warp.h and sdk/numeric_limits.h in device code, with
// the argument types ported extensions pass (float, int, Half, BFloat16).
#include <sdk/cuda_warp.h>
#include <sdk/numeric_limits.h>

template <typename T>
__global__ void warp_max(const T* in, T* out, unsigned int* votes) {
  T v = doLdg(in + threadIdx.x);
  T best = sdk::numeric_limits<T>::lower_bound();
  best = static_cast<float>(v) > static_cast<float>(best) ? v : best;
  for (int offset = SDK_WARP_SIZE / 2; offset > 0; offset /= 2) {
    T other = WARP_SHFL_DOWN(best, offset);
    best = static_cast<float>(other) > static_cast<float>(best) ? other : best;
  }
  best = WARP_SHFL(best, 0);
  T up = WARP_SHFL_UP(v, 1u);
  T mixed = WARP_SHFL_XOR(up, 1, 16, ACTIVE_MASK());
  WARP_SYNC();
  unsigned int vote = WARP_BALLOT(static_cast<float>(mixed) > 0.0f);
  if (threadIdx.x == 0) {
    out[0] = best;
    votes[0] = vote;
  }
}

__global__ void int_limits(int64_t* out) {
  out[0] = sdk::numeric_limits<int64_t>::lowest() + sdk::numeric_limits<int8_t>::max();
  out[1] = WARP_SHFL_XOR(static_cast<int>(threadIdx.x), 3);
  double d = sdk::numeric_limits<double>::upper_bound();
  out[2] = d > sdk::numeric_limits<double>::max() ? 1 : 0;
  typename sdk::scalar_value_type<float>::type f = sdk::numeric_limits<float>::lowest();
  out[3] = static_cast<int64_t>(f < 0.0f);
}

template __global__ void warp_max<float>(const float*, float*, unsigned int*);
template __global__ void warp_max<double>(const double*, double*, unsigned int*);
template __global__ void warp_max<sdk::Half>(const sdk::Half*, sdk::Half*, unsigned int*);
template __global__ void warp_max<sdk::BFloat16>(const sdk::BFloat16*, sdk::BFloat16*,
                                                 unsigned int*);
