// Compile-only check: sdk/float8.h's types convert to and from float in device code.
#include "sdk/float8.h"
#include "sdk/numeric_limits.h"

template <typename F8>
__global__ void round_trip(const float* in, F8* codes, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    codes[i] = F8(in[i]);
    out[i] = codes[i].isnan() ? 0.f : float(codes[i]) + float(sdk::numeric_limits<F8>::max());
  }
}

template __global__ void round_trip<sdk::Float8_e4m3fn>(const float*, sdk::Float8_e4m3fn*, float*,
                                                        int);
template __global__ void round_trip<sdk::Float8_e5m2>(const float*, sdk::Float8_e5m2*, float*, int);
template __global__ void round_trip<sdk::Float8_e4m3fnuz>(const float*, sdk::Float8_e4m3fnuz*,
                                                          float*, int);
template __global__ void round_trip<sdk::Float8_e5m2fnuz>(const float*, sdk::Float8_e5m2fnuz*,
                                                          float*, int);
