// core/src/cuda/glue/device_api.cpp: the C ABI's CUDA device queries, pooled streams and
// events (ABI 1.10), and the build record of the CUDA toolkit version.
//
// Each checks its arguments and the device here, then calls the backend table; where CUDA
// cannot be used, backend() raises "CUDA is not available: <reason>".
#include <cctype>
#include <fstream>
#include <string>

#include "cuda/glue/cuda_glue.h"

namespace sdk::detail::cuda {
namespace {

void call(int rc) {
  if (rc != 0) throw_error(rc, backend().last_error());
}

// -1 stays "current" for the backend; anything else must name a visible device.
void check_index(int32_t device_index, const char* op) {
  if (device_index == -1) {
    backend();
    return;
  }
  check_device(sdk_device{SDK_CUDA, device_index}, op);
}

// "12.4" from the record beside the backend library (its name with .version for .so), when
// that holds a MAJOR.MINOR release; "" otherwise. Read once: no CUDA library is loaded.
std::string read_build_version() {
  std::string path = backend_path();
  const std::string so = ".so";
  if (path.size() > so.size() && path.compare(path.size() - so.size(), so.size(), so) == 0) {
    path.resize(path.size() - so.size());
  }
  std::ifstream in(path + ".version");
  std::string text;
  if (!in || !std::getline(in, text)) return "";
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t dot = text.find('.');
  auto digits = [](const std::string& s) {
    if (s.empty() || s.size() > 4) return false;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  if (dot == std::string::npos || !digits(text.substr(0, dot)) || !digits(text.substr(dot + 1))) {
    return "";
  }
  return text;
}

}  // namespace
}  // namespace sdk::detail::cuda

using namespace sdk::detail;
namespace cu = sdk::detail::cuda;

extern "C" {

SDK_API const char* sdk_cuda_build_version(void) {
  static const std::string version = cu::read_build_version();
  return version.c_str();
}

SDK_API const char* sdk_cuda_arch_list(void) {
  if (!cu::available()) return "";
  const char* list = cu::backend().arch_list();
  return list ? list : "";
}

SDK_API sdk_status sdk_cuda_get_device_properties(int32_t device_index,
                                                  sdk_cuda_device_properties* props) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(props, "sdk_cuda_get_device_properties", "props");
  SDK_VALUE_CHECK(props->size >= 2 * sizeof(uint32_t),
                  "sdk_cuda_get_device_properties: ", "props->size (", props->size,
                  ") must be set to sizeof(sdk_cuda_device_properties)");
  cu::check_index(device_index, "get_device_properties");
  cu::call(cu::backend().device_properties(device_index, props));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_mem_get_info(int32_t device_index, int64_t* free_bytes,
                                         int64_t* total_bytes) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(free_bytes, "sdk_cuda_mem_get_info", "free_bytes");
  check_not_null(total_bytes, "sdk_cuda_mem_get_info", "total_bytes");
  cu::check_index(device_index, "mem_get_info");
  cu::call(cu::backend().mem_get_info(device_index, free_bytes, total_bytes));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_stream_from_pool(int32_t device_index, int32_t priority,
                                             void** stream) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(stream, "sdk_cuda_stream_from_pool", "stream");
  cu::check_index(device_index, "Stream");
  cu::call(cu::backend().stream_from_pool(device_index, priority, stream));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_stream_query(void* stream, int32_t* done) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(done, "sdk_cuda_stream_query", "done");
  cu::call(cu::backend().stream_query(stream, done));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_stream_synchronize(void* stream) {
  SDK_SAFE_CALL_BEGIN;
  cu::call(cu::backend().stream_synchronize(stream));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_event_create(int32_t device_index, uint32_t flags, void** event) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(event, "sdk_cuda_event_create", "event");
  const uint32_t known =
      SDK_CUDA_EVENT_TIMING | SDK_CUDA_EVENT_BLOCKING | SDK_CUDA_EVENT_INTERPROCESS;
  SDK_VALUE_CHECK((flags & ~known) == 0, "Event: unknown flags ", flags);
  SDK_VALUE_CHECK(!((flags & SDK_CUDA_EVENT_TIMING) && (flags & SDK_CUDA_EVENT_INTERPROCESS)),
                  "Event: an interprocess event cannot have enable_timing=True");
  cu::check_index(device_index, "Event");
  cu::call(cu::backend().event_create(device_index, flags, event));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_event_destroy(void* event) {
  SDK_SAFE_CALL_BEGIN;
  if (event) cu::call(cu::backend().event_destroy(event));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_event_record(void* event, void* stream) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(event, "sdk_cuda_event_record", "event");
  cu::call(cu::backend().event_record(event, stream));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_stream_wait_event(void* stream, void* event) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(event, "sdk_cuda_stream_wait_event", "event");
  cu::call(cu::backend().stream_wait_event(stream, event));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_event_query(void* event, int32_t* done) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(event, "sdk_cuda_event_query", "event");
  check_not_null(done, "sdk_cuda_event_query", "done");
  cu::call(cu::backend().event_query(event, done));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_event_synchronize(void* event) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(event, "sdk_cuda_event_synchronize", "event");
  cu::call(cu::backend().event_synchronize(event));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_event_elapsed_time(void* start, void* end, float* ms) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(start, "sdk_cuda_event_elapsed_time", "start");
  check_not_null(end, "sdk_cuda_event_elapsed_time", "end");
  check_not_null(ms, "sdk_cuda_event_elapsed_time", "ms");
  cu::call(cu::backend().event_elapsed_time(start, end, ms));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
