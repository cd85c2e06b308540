// The nearest-point search of one query, written once for the host and the device.
#ifndef SPLAT_NEAREST_H
#define SPLAT_NEAREST_H

#include <cmath>

#include "./math.h"

// (squared distance, index) of the point of `pts` nearest to `q`; the stream orders the
// device version's work and is unused on the host
IHD void nearest_point(const float3* pts, int n, float3 q, cudaStream_t stream, float* dist,
                       int64_t* idx) {
  (void)stream;
  float best = INFINITY;
  int64_t at = -1;
  for (int i = 0; i < n; ++i) {
    const float3 d = pts[i] - q;
    const float d2 = dot(d, d);
    if (d2 < best) {
      best = d2;
      at = i;
    }
  }
  *dist = best;
  *idx = at;
}

#endif
