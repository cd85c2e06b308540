// Small float3 helpers shared by the host and device code (named like the C header on
// purpose: the project includes it as "./math.h" next to its users).
#ifndef SPLAT_MATH_H
#define SPLAT_MATH_H

#include "../global.h"

IHD float3 operator-(const float3& a, const float3& b) {
  return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}
IHD float dot(const float3& a, const float3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

#endif
