// core/src/cuda/backend/runtime.cpp: devices, per-thread streams, copies and the exported table.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "common.h"

namespace sdk::cuda {
namespace {

thread_local std::string t_error;
// Per thread and device, as torch does: a stream set on one thread is not seen by others.
thread_local std::unordered_map<int, cudaStream_t> t_streams;

std::once_flag g_count_once;
int g_count = -1;
std::string g_count_error;

int current_device_index() {
  int d = 0;
  SDK_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

int resolve(int device) { return device < 0 ? current_device_index() : device; }

}  // namespace

int set_error(int kind, const std::string& msg) {
  t_error = msg;
  return kind == 0 ? SDK_ERROR_RUNTIME : kind;
}

int device_count() {
  std::call_once(g_count_once, [] {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      cudaGetLastError();
      g_count_error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
      // Say plainly when there is no driver at all (the runtime calls it "insufficient").
      void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
      if (!driver) {
        g_count_error =
            "no NVIDIA driver found (libcuda.so.1 cannot be loaded; " + g_count_error + ")";
      } else {
        dlclose(driver);
      }
      g_count = -1;
    } else if (n == 0) {
      g_count_error = "no CUDA GPU is visible (the driver reports 0 devices)";
      g_count = 0;
    } else {
      g_count = n;
    }
  });
  if (g_count < 0) fail(SDK_ERROR_RUNTIME, g_count_error);
  return g_count;
}

void check_device(int device, const char* what) {
  int n = device_count();
  if (device < 0 || device >= n) {
    fail(SDK_ERROR_VALUE, what, ": CUDA device index ", device, " is out of range (", n, " device",
         n == 1 ? "" : "s", " visible)");
  }
}

cudaStream_t current_stream(int device) {
  auto it = t_streams.find(device);
  return it == t_streams.end() ? nullptr : it->second;
}

namespace {

const char* api_last_error() { return t_error.c_str(); }

int api_device_count(int32_t* count) {
  return guarded([&] { *count = device_count(); });
}

int api_current_device(int32_t* index) {
  return guarded([&] {
    device_count();
    *index = current_device_index();
  });
}

int api_set_device(int32_t index) {
  return guarded([&] {
    check_device(index, "set_device");
    SDK_CUDA_CHECK(cudaSetDevice(index));
  });
}

int api_get_stream(int32_t device, void** stream) {
  return guarded([&] {
    device_count();
    *stream = static_cast<void*>(current_stream(resolve(device)));
  });
}

int api_set_stream(int32_t device, void* stream) {
  return guarded([&] {
    int d = resolve(device);
    check_device(d, "set_stream");
#if CUDART_VERSION >= 12080
    if (stream) {
      // A stream of another device would silently serialise nothing: refuse it.
      int owner = -1;
      cudaError_t e = cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &owner);
      if (e == cudaSuccess && owner != d) {
        fail(SDK_ERROR_VALUE, "set_stream: the stream belongs to device ", owner, ", not device ",
             d);
      }
      cudaGetLastError();
    }
#endif
    t_streams[d] = static_cast<cudaStream_t>(stream);
  });
}

int api_synchronize(int32_t device) {
  return guarded([&] {
    int d = resolve(device);
    check_device(d, "synchronize");
    DeviceGuard g(d);
    SDK_CUDA_CHECK(cudaDeviceSynchronize());
  });
}

int api_malloc(int64_t nbytes, int32_t device, void** ptr) {
  return guarded([&] { *ptr = cache_malloc(nbytes, device); });
}

int api_free(void* ptr) {
  return guarded([&] { cache_free(ptr); });
}

int api_empty_cache() {
  return guarded([&] { cache_empty(); });
}

int api_memory_stats(int32_t device, sdk_cuda_allocator_stats* stats) {
  return guarded([&] { cache_stats(resolve(device), stats); });
}

int api_reset_peak(int32_t device) {
  return guarded([&] { cache_reset_peak(resolve(device)); });
}

int api_memcpy(void* dst, int32_t dst_device, const void* src, int32_t src_device, int64_t nbytes) {
  return guarded([&] {
    if (nbytes <= 0) return;
    if (dst_device < 0 && src_device < 0) {
      std::memcpy(dst, src, static_cast<size_t>(nbytes));
      return;
    }
    if (dst_device >= 0 && src_device >= 0 && dst_device != src_device) {
      // Between GPUs: queued on the source's stream (after its pending work), and only once
      // the destination's stream is idle: the destination block may come from that stream's
      // pool, still in use by kernels queued there. Finished before returning.
      {
        DeviceGuard dg(dst_device);
        SDK_CUDA_CHECK(cudaStreamSynchronize(current_stream(dst_device)));
      }
      DeviceGuard g(src_device);
      cudaStream_t s = current_stream(src_device);
      SDK_CUDA_CHECK(
          cudaMemcpyPeerAsync(dst, dst_device, src, src_device, static_cast<size_t>(nbytes), s));
      SDK_CUDA_CHECK(cudaStreamSynchronize(s));
      return;
    }
    int d = dst_device >= 0 ? dst_device : src_device;
    DeviceGuard g(d);
    cudaStream_t s = current_stream(d);
    cudaMemcpyKind kind = dst_device < 0   ? cudaMemcpyDeviceToHost
                          : src_device < 0 ? cudaMemcpyHostToDevice
                                           : cudaMemcpyDeviceToDevice;
    SDK_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(nbytes), kind, s));
    // The host side must be complete when we return: the caller may free or read it.
    if (kind != cudaMemcpyDeviceToDevice) SDK_CUDA_CHECK(cudaStreamSynchronize(s));
  });
}

template <typename F>
int launch_on(int device, F&& f) {
  return guarded([&] {
    DeviceGuard g(device);
    cudaStream_t s = current_stream(device);
    f(s);
    SDK_CUDA_CHECK(cudaGetLastError());  // launch errors (bad configuration, no kernel image)
  });
}

int api_copy(const sdk_cuda_iter* it) {
  return launch_on(it->device, [&](cudaStream_t s) { launch_copy(*it, s); });
}
int api_unary(int32_t op, const sdk_cuda_iter* it) {
  return launch_on(it->device, [&](cudaStream_t s) { launch_unary(op, *it, s); });
}
int api_binary(int32_t op, const sdk_cuda_iter* it) {
  return launch_on(it->device, [&](cudaStream_t s) { launch_binary(op, *it, s); });
}
int api_ternary(int32_t op, const sdk_cuda_iter* it) {
  return launch_on(it->device, [&](cudaStream_t s) { launch_ternary(op, *it, s); });
}
int api_where(const sdk_cuda_iter* it) {
  return launch_on(it->device, [&](cudaStream_t s) { launch_where(*it, s); });
}
int api_reduce(const sdk_cuda_reduce_desc* d) {
  return launch_on(d->device, [&](cudaStream_t s) { launch_reduce(*d, s); });
}
int api_scan(const sdk_cuda_scan_desc* d) {
  return launch_on(d->device, [&](cudaStream_t s) { launch_scan(*d, s); });
}
int api_gemm(const sdk_cuda_gemm_desc* d) {
  return launch_on(d->device, [&](cudaStream_t s) {
    if (!cublas_gemm(*d, s)) launch_naive_gemm(*d, s);
  });
}

int api_record_stream(void* ptr, void* stream) {
  return guarded([&] { cache_record_stream(ptr, static_cast<cudaStream_t>(stream)); });
}

}  // namespace
}  // namespace sdk::cuda

extern "C" __attribute__((visibility("default"))) int sdk_cuda_backend_init(sdk_cuda_backend* table,
                                                                            uint32_t size) {
  using namespace sdk::cuda;
  if (!table || size < sizeof(sdk_cuda_backend)) return SDK_ERROR_RUNTIME;
  std::memset(table, 0, size);
  table->size = sizeof(sdk_cuda_backend);
  table->version = SDK_CUDA_BACKEND_VERSION;
  table->last_error = api_last_error;
  table->device_count = api_device_count;
  table->current_device = api_current_device;
  table->set_device = api_set_device;
  table->get_stream = api_get_stream;
  table->set_stream = api_set_stream;
  table->synchronize = api_synchronize;
  table->malloc = api_malloc;
  table->free = api_free;
  table->empty_cache = api_empty_cache;
  table->memory_stats = api_memory_stats;
  table->reset_peak = api_reset_peak;
  table->memcpy = api_memcpy;
  table->copy = api_copy;
  table->unary = api_unary;
  table->binary = api_binary;
  table->where = api_where;
  table->reduce = api_reduce;
  table->gemm = api_gemm;
  table->ternary = api_ternary;
  table->scan = api_scan;
  table->record_stream = api_record_stream;
  table->device_properties = api_device_properties;
  table->mem_get_info = api_mem_get_info;
  table->arch_list = api_arch_list;
  table->stream_from_pool = api_stream_from_pool;
  table->stream_query = api_stream_query;
  table->stream_synchronize = api_stream_synchronize;
  table->event_create = api_event_create;
  table->event_destroy = api_event_destroy;
  table->event_record = api_event_record;
  table->stream_wait_event = api_stream_wait_event;
  table->event_query = api_event_query;
  table->event_synchronize = api_event_synchronize;
  table->event_elapsed_time = api_event_elapsed_time;
  return 0;
}
