// core/src/version.cpp: ABI and release versions, and the loader's compatibility check.
#include "tensor_impl.h"

#define SDK_VERSION_STRING "0.1.0"

using namespace sdk::detail;

extern "C" {

SDK_API uint32_t sdk_abi_version(void) {
  return (static_cast<uint32_t>(SDK_ABI_VERSION_MAJOR) << 16) |
         static_cast<uint32_t>(SDK_ABI_VERSION_MINOR);
}

SDK_API const char* sdk_version_string(void) { return SDK_VERSION_STRING; }

SDK_API sdk_status sdk_abi_check(uint32_t major, uint32_t minor) {
  SDK_SAFE_CALL_BEGIN;
  // Same major and a minor no newer than ours: every symbol the caller may use exists here.
  if (major != SDK_ABI_VERSION_MAJOR || minor > SDK_ABI_VERSION_MINOR) {
    SDK_FAIL(SDK_ERROR_RUNTIME, "sdk ABI mismatch: code was built against ABI ", major, ".", minor,
             " but the running sdk core (", SDK_VERSION_STRING, ") provides ABI ",
             SDK_ABI_VERSION_MAJOR, ".", SDK_ABI_VERSION_MINOR,
             major != SDK_ABI_VERSION_MAJOR ? " (different major version)"
                                            : " (newer minor version than the core)");
  }
  SDK_SAFE_CALL_END;
}

}  // extern "C"
