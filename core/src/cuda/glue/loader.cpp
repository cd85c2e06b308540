// core/src/cuda/glue/loader.cpp: lazy loading of libsdk_cuda.so, the CUDA allocator hook and
// the device/stream/memory functions of the C ABI.
//
// The backend is looked for in $SDK_CUDA_LIBRARY, then next to libsdk_core.so. It is
// opened on the first CUDA request only, so a CPU-only process never touches CUDA.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "allocator.h"
#include "cuda/glue/cuda_glue.h"

namespace sdk::detail::cuda {
namespace {

struct State {
  bool ok = false;
  std::string reason;
  int32_t device_count = 0;
  sdk_cuda_backend table{};
};

State g_state;
std::once_flag g_once;

std::string core_dir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&sdk_cuda_is_available), &info) && info.dli_fname) {
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
  }
  return ".";
}

// Memory of CUDA storages: the backend's caching allocator.
class CudaAllocator final : public Allocator {
 public:
  void* allocate(int64_t nbytes, int32_t device_index) override {
    void* p = nullptr;
    int rc = g_state.table.malloc(nbytes, device_index, &p);
    if (rc != 0) throw_error(rc, g_state.table.last_error());
    note_allocated(SDK_CUDA, nbytes);
    return p;
  }
  void deallocate(void* p, int64_t nbytes, int32_t) override {
    if (!p) return;
    note_allocated(SDK_CUDA, -nbytes);
    g_state.table.free(p);  // cannot fail for a pointer it handed out
  }
};

CudaAllocator g_allocator;

void load_into(State& s) {
  std::string path = backend_path();
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    std::string text = why ? why : "unknown error";
    if (text.find("No such file") != std::string::npos && text.find(path) != std::string::npos) {
      s.reason = "this sdk was built without its CUDA backend (" + path +
                 " does not exist; rebuild it with a CUDA toolkit, see docs/CUDA.md)";
    } else {
      s.reason = "cannot load the CUDA backend: " + text;
    }
    return;
  }
  auto init = reinterpret_cast<sdk_cuda_backend_init_fn>(dlsym(lib, SDK_CUDA_BACKEND_INIT_SYMBOL));
  if (!init || init(&s.table, sizeof(s.table)) != 0 ||
      s.table.version != SDK_CUDA_BACKEND_VERSION) {
    s.reason = "the CUDA backend " + path + " does not match this core (rebuild the sdk)";
    return;
  }
  if (s.table.device_count(&s.device_count) != 0) {
    s.reason = s.table.last_error();
    return;
  }
  if (s.device_count <= 0) {
    s.reason = "no CUDA GPU is visible (the driver reports 0 devices)";
    return;
  }
  s.ok = true;
  set_allocator(SDK_CUDA, &g_allocator);
}

const State& state() {
  std::call_once(g_once, [] { load_into(g_state); });
  return g_state;
}

// Run a backend call; its failure becomes an Error of the backend's kind.
void call(int rc) {
  if (rc != 0) throw_error(rc, g_state.table.last_error());
}

}  // namespace

std::string backend_path() {
  const char* env = std::getenv("SDK_CUDA_LIBRARY");
  return (env && *env) ? std::string(env) : core_dir() + "/libsdk_cuda.so";
}

bool available(const char** reason) {
  const State& s = state();
  if (reason) *reason = s.ok ? "" : s.reason.c_str();
  return s.ok;
}

const sdk_cuda_backend& backend() {
  const State& s = state();
  if (!s.ok) SDK_FAIL(SDK_ERROR_RUNTIME, "CUDA is not available: ", s.reason);
  return s.table;
}

void check_device(sdk_device d, const char* op) {
  backend();
  if (d.index < 0 || d.index >= g_state.device_count) {
    SDK_FAIL(SDK_ERROR_VALUE, op, ": CUDA device index ", d.index, " is out of range (",
             g_state.device_count, " device", g_state.device_count == 1 ? "" : "s", " visible)");
  }
}

namespace {
std::string device_str(sdk_device d) {
  return d.type == SDK_CPU ? std::string("cpu") : str("cuda:", d.index);
}
}  // namespace

void check_same_device(const char* op, std::initializer_list<const TensorImpl*> ts) {
  const TensorImpl* first = nullptr;
  for (const TensorImpl* t : ts) {
    if (!t) continue;
    if (!first) {
      first = t;
      continue;
    }
    sdk_device a = first->device(), b = t->device();
    if (a.type != b.type || a.index != b.index) {
      SDK_FAIL(SDK_ERROR_RUNTIME, op,
               ": expected all tensors to be on the same device, but found at least two "
               "devices, ",
               device_str(a), " and ", device_str(b));
    }
  }
}

}  // namespace sdk::detail::cuda

using namespace sdk::detail;
namespace cu = sdk::detail::cuda;

extern "C" {

SDK_API int32_t sdk_cuda_is_available(void) { return cu::available() ? 1 : 0; }

SDK_API int32_t sdk_cuda_device_count(void) {
  return cu::available() ? cu::state().device_count : 0;
}

SDK_API const char* sdk_cuda_unavailable_reason(void) {
  const char* reason = "";
  cu::available(&reason);
  return reason;
}

SDK_API sdk_status sdk_cuda_current_device(int32_t* device_index) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(device_index, "sdk_cuda_current_device", "device_index");
  cu::call(cu::backend().current_device(device_index));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_set_device(int32_t device_index) {
  SDK_SAFE_CALL_BEGIN;
  cu::check_device(sdk_device{SDK_CUDA, device_index}, "sdk_cuda_set_device");
  cu::call(cu::backend().set_device(device_index));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_get_stream(int32_t device_index, void** stream) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(stream, "sdk_cuda_get_stream", "stream");
  if (device_index >= 0) cu::check_device(sdk_device{SDK_CUDA, device_index}, "get_stream");
  cu::call(cu::backend().get_stream(device_index, stream));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_set_stream(int32_t device_index, void* stream) {
  SDK_SAFE_CALL_BEGIN;
  if (device_index >= 0) cu::check_device(sdk_device{SDK_CUDA, device_index}, "set_stream");
  cu::call(cu::backend().set_stream(device_index, stream));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_synchronize(int32_t device_index) {
  SDK_SAFE_CALL_BEGIN;
  if (device_index >= 0) cu::check_device(sdk_device{SDK_CUDA, device_index}, "synchronize");
  cu::call(cu::backend().synchronize(device_index));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_empty_cache(void) {
  SDK_SAFE_CALL_BEGIN;
  // Nothing can be cached before CUDA was usable: not an error, as in torch.
  if (cu::available()) cu::call(cu::backend().empty_cache());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_memory_stats(int32_t device_index, sdk_cuda_allocator_stats* stats) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(stats, "sdk_cuda_memory_stats", "stats");
  SDK_VALUE_CHECK(stats->size >= 2 * sizeof(uint32_t), "sdk_cuda_memory_stats: stats->size (",
                  stats->size, ") must be set to sizeof(sdk_cuda_allocator_stats)");
  if (device_index >= 0) cu::check_device(sdk_device{SDK_CUDA, device_index}, "memory_stats");
  cu::call(cu::backend().memory_stats(device_index, stats));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_reset_peak_memory_stats(int32_t device_index) {
  SDK_SAFE_CALL_BEGIN;
  if (device_index >= 0) {
    cu::check_device(sdk_device{SDK_CUDA, device_index}, "reset_peak_memory_stats");
  }
  cu::call(cu::backend().reset_peak(device_index));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_raw_alloc(int64_t nbytes, int32_t device_index, void** ptr) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(ptr, "sdk_cuda_raw_alloc", "ptr");
  SDK_VALUE_CHECK(nbytes >= 0, "sdk_cuda_raw_alloc: nbytes must be >= 0, got ", nbytes);
  if (device_index < 0) cu::call(cu::backend().current_device(&device_index));
  cu::check_device(sdk_device{SDK_CUDA, device_index}, "sdk_cuda_raw_alloc");
  cu::call(cu::backend().malloc(nbytes, device_index, ptr));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_record_stream(const sdk_tensor* t, void* stream) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_cuda_record_stream", "t");
  SDK_REQUIRE(x.device().type == SDK_CUDA, SDK_ERROR_VALUE,
              "record_stream: expected a CUDA tensor, got one on the CPU");
  // The storage's block (a view points inside it). Wrapped memory (DLPack, from_blob) is
  // not the allocator's: its owner orders its reuse, so there is nothing to record.
  const Storage& s = *x.storage;
  if (s.data && !s.foreign) cu::call(cu::backend().record_stream(s.data, stream));
  SDK_SAFE_CALL_END;
}

SDK_API void sdk_cuda_set_matmul_allow_tf32(int32_t allow) { cu::set_allow_tf32(allow != 0); }

SDK_API int32_t sdk_cuda_matmul_allow_tf32(void) { return cu::allow_tf32() ? 1 : 0; }

SDK_API sdk_status sdk_cuda_raw_free(void* ptr) {
  SDK_SAFE_CALL_BEGIN;
  if (ptr) cu::call(cu::backend().free(ptr));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_raw_record_stream(void* ptr, void* stream) {
  SDK_SAFE_CALL_BEGIN;
  if (ptr) cu::call(cu::backend().record_stream(ptr, stream));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
