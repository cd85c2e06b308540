// core/src/switches.cpp: the process-wide switches torch keeps in at::Context and the SDK's
// users set from Python and read from extensions (sdk/context.h): deterministic algorithms.
#include <atomic>

#include "tensor_impl.h"

namespace {
std::atomic<int32_t> g_deterministic{0};  // 0 off, 1 on, 2 on and warn only
}  // namespace

extern "C" {

SDK_API void sdk_set_deterministic_algorithms(int32_t mode, int32_t warn_only) {
  g_deterministic.store(mode ? (warn_only ? 2 : 1) : 0, std::memory_order_relaxed);
}

SDK_API int32_t sdk_deterministic_algorithms(void) {
  return g_deterministic.load(std::memory_order_relaxed);
}

}  // extern "C"
