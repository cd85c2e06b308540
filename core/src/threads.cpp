// core/src/threads.cpp: the thread-count ABI functions over parallel.h.
#include "parallel.h"
#include "tensor_impl.h"

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_set_num_threads(int32_t n) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(n >= 1, "sdk_set_num_threads: n must be >= 1, got ", n);
  set_num_threads(n);
  SDK_SAFE_CALL_END;
}

SDK_API int32_t sdk_get_num_threads(void) { return get_num_threads(); }

}  // extern "C"
