// core/src/cpu_features.h: the SIMD level the hand-written x86 loops may use, once per process.
#pragma once

#include <cstdlib>
#include <cstring>

namespace sdk::detail {

// 0: baseline x86-64, 1: AVX2 + FMA, 2: AVX-512F. The CPU's level, capped by the environment
// variable SDK_CPU_CAPABILITY ("default", "avx2" or "avx512", as torch's
// ATEN_CPU_CAPABILITY), so that every path runs, and is tested, on one machine; another value
// is ignored. The library is built for baseline x86-64; hot loops have AVX2/AVX-512 copies.
inline int cpu_simd_level() {
  static const int level = [] {
    int cpu = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) cpu = 1;
    if (cpu == 1 && __builtin_cpu_supports("avx512f")) cpu = 2;
#endif
    int cap = cpu;
    if (const char* v = std::getenv("SDK_CPU_CAPABILITY")) {
      if (std::strcmp(v, "default") == 0) cap = 0;
      if (std::strcmp(v, "avx2") == 0) cap = 1;
      if (std::strcmp(v, "avx512") == 0) cap = 2;
    }
    return cap < cpu ? cap : cpu;
  }();
  return level;
}
inline bool has_avx2() { return cpu_simd_level() >= 1; }
inline bool has_avx512() { return cpu_simd_level() >= 2; }

}  // namespace sdk::detail
