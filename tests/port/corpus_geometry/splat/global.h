// The project's one header before torch's: its portable vector type, and on a CPU build the
// placeholders of the CUDA names the shared host/device code mentions.
#ifndef SPLAT_GLOBAL_H
#define SPLAT_GLOBAL_H

#include <torch/extension.h>

#ifdef __CUDACC__
#define IHD __host__ __device__ inline
#else
#define IHD inline
#ifndef WITH_CUDA
// a CPU build has no CUDA runtime: the stream the shared code passes around is opaque
typedef void* cudaStream_t;
struct float3 {
  float x, y, z;
};
inline float3 make_float3(float x, float y, float z) {
  float3 r;
  r.x = x;
  r.y = y;
  r.z = z;
  return r;
}
#endif
#endif

#endif
