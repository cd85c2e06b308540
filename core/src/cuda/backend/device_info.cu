// core/src/cuda/backend/device_info.cu: device properties, memory info, the compiled
// architectures, pooled streams and events (the backend table's version-5 entries).
//
// A .cu file because the architecture list is nvcc's __CUDA_ARCH_LIST__ for this library.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common.h"

namespace sdk::cuda {
namespace {

constexpr int kPoolSize = 32;  // streams per device and priority class, as torch's pools

// One device's pools: [0] normal priority, [1] the highest; streams made on first use.
struct StreamPool {
  std::once_flag once[2];
  cudaStream_t streams[2][kPoolSize] = {};
  std::atomic<unsigned> next[2] = {0, 0};
  int priority[2] = {0, 0};
};

std::mutex g_pools_mutex;
std::vector<StreamPool*> g_pools;  // by device; never freed (streams live for the process)

StreamPool& pool_of(int device) {
  std::lock_guard<std::mutex> lock(g_pools_mutex);
  if (g_pools.size() <= static_cast<size_t>(device)) g_pools.resize(device + 1, nullptr);
  if (!g_pools[device]) g_pools[device] = new StreamPool();
  return *g_pools[device];
}

// An event and the device it belongs to (recording needs that device current).
struct Event {
  cudaEvent_t event = nullptr;
  int device = 0;
  bool timing = false;
};

int resolved(int device) {
  if (device >= 0) return device;
  int d = 0;
  SDK_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

std::string arch_list_text() {
  std::string out;
#ifdef __CUDA_ARCH_LIST__
  const int archs[] = {__CUDA_ARCH_LIST__};
  for (int a : archs) {
    if (!out.empty()) out += ' ';
    out += "sm_" + std::to_string(a / 10);
  }
#endif
  return out;
}

}  // namespace

int api_device_properties(int32_t device, sdk_cuda_device_properties* out) {
  return guarded([&] {
    int d = resolved(device);
    check_device(d, "get_device_properties");
    cudaDeviceProp p{};
    SDK_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    sdk_cuda_device_properties r{};
    r.size = sizeof r;
    std::strncpy(r.name, p.name, sizeof r.name - 1);
    r.major = p.major;
    r.minor = p.minor;
    r.total_memory = static_cast<int64_t>(p.totalGlobalMem);
    r.multi_processor_count = p.multiProcessorCount;
    r.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
    r.max_threads_per_block = p.maxThreadsPerBlock;
    r.warp_size = p.warpSize;
    r.regs_per_multiprocessor = p.regsPerMultiprocessor;
    r.is_integrated = p.integrated ? 1 : 0;
    r.is_multi_gpu_board = p.isMultiGpuBoard ? 1 : 0;
    r.l2_cache_size = p.l2CacheSize;
    r.shared_memory_per_block = static_cast<int64_t>(p.sharedMemPerBlock);
    r.shared_memory_per_block_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
    r.shared_memory_per_multiprocessor = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
    r.pci_bus_id = p.pciBusID;
    r.pci_device_id = p.pciDeviceID;
    r.pci_domain_id = p.pciDomainID;
    r.memory_bus_width = p.memoryBusWidth;
    std::memcpy(r.uuid, p.uuid.bytes, sizeof r.uuid);
    // a caller built against a smaller struct gets its prefix (size stays its own)
    uint32_t size = out->size;
    std::memcpy(out, &r, std::min<size_t>(size, sizeof r));
    out->size = size;
  });
}

int api_mem_get_info(int32_t device, int64_t* free_bytes, int64_t* total_bytes) {
  return guarded([&] {
    int d = resolved(device);
    check_device(d, "mem_get_info");
    DeviceGuard g(d);
    size_t f = 0, t = 0;
    SDK_CUDA_CHECK(cudaMemGetInfo(&f, &t));
    *free_bytes = static_cast<int64_t>(f);
    *total_bytes = static_cast<int64_t>(t);
  });
}

const char* api_arch_list() {
  static const std::string text = arch_list_text();
  return text.c_str();
}

int api_stream_from_pool(int32_t device, int32_t priority, void** stream) {
  return guarded([&] {
    int d = resolved(device);
    check_device(d, "Stream");
    DeviceGuard g(d);
    int least = 0, greatest = 0;
    SDK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const int cls = priority < 0 ? 1 : 0;
    StreamPool& pool = pool_of(d);
    std::call_once(pool.once[cls], [&] {
      const int prio = cls == 1 ? greatest : least;
      for (auto& s : pool.streams[cls]) {
        SDK_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, prio));
      }
      pool.priority[cls] = prio;
    });
    if (!pool.streams[cls][kPoolSize - 1])
      fail(SDK_ERROR_RUNTIME, "Stream: the stream pool failed");
    *stream = pool.streams[cls][pool.next[cls]++ % kPoolSize];
  });
}

int api_stream_query(void* stream, int32_t* done) {
  return guarded([&] {
    cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(stream));
    if (e == cudaErrorNotReady) {
      cudaGetLastError();
      *done = 0;
      return;
    }
    SDK_CUDA_CHECK(e);
    *done = 1;
  });
}

int api_stream_synchronize(void* stream) {
  return guarded([&] { SDK_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream))); });
}

int api_event_create(int32_t device, uint32_t flags, void** event) {
  return guarded([&] {
    int d = resolved(device);
    check_device(d, "Event");
    DeviceGuard g(d);
    unsigned cuda_flags =
        (flags & SDK_CUDA_EVENT_TIMING) ? cudaEventDefault : cudaEventDisableTiming;
    if (flags & SDK_CUDA_EVENT_BLOCKING) cuda_flags |= cudaEventBlockingSync;
    if (flags & SDK_CUDA_EVENT_INTERPROCESS) cuda_flags |= cudaEventInterprocess;
    auto* e = new Event();
    e->device = d;
    e->timing = (flags & SDK_CUDA_EVENT_TIMING) != 0;
    cudaError_t rc = cudaEventCreateWithFlags(&e->event, cuda_flags);
    if (rc != cudaSuccess) delete e;
    SDK_CUDA_CHECK(rc);
    *event = e;
  });
}

int api_event_destroy(void* event) {
  return guarded([&] {
    auto* e = static_cast<Event*>(event);
    DeviceGuard g(e->device);
    cudaEventDestroy(e->event);  // pending work still completes; nothing to report
    delete e;
  });
}

int api_event_record(void* event, void* stream) {
  return guarded([&] {
    auto* e = static_cast<Event*>(event);
    DeviceGuard g(e->device);
    SDK_CUDA_CHECK(cudaEventRecord(e->event, static_cast<cudaStream_t>(stream)));
  });
}

int api_stream_wait_event(void* stream, void* event) {
  return guarded([&] {
    auto* e = static_cast<Event*>(event);
    SDK_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), e->event, 0));
  });
}

int api_event_query(void* event, int32_t* done) {
  return guarded([&] {
    cudaError_t rc = cudaEventQuery(static_cast<Event*>(event)->event);
    if (rc == cudaErrorNotReady) {
      cudaGetLastError();
      *done = 0;
      return;
    }
    SDK_CUDA_CHECK(rc);
    *done = 1;
  });
}

int api_event_synchronize(void* event) {
  return guarded([&] { SDK_CUDA_CHECK(cudaEventSynchronize(static_cast<Event*>(event)->event)); });
}

int api_event_elapsed_time(void* start, void* end, float* ms) {
  return guarded([&] {
    auto* a = static_cast<Event*>(start);
    auto* b = static_cast<Event*>(end);
    if (!a->timing || !b->timing) {
      fail(SDK_ERROR_VALUE, "elapsed_time: both events need enable_timing=True");
    }
    DeviceGuard g(a->device);
    SDK_CUDA_CHECK(cudaEventElapsedTime(ms, a->event, b->event));
  });
}

}  // namespace sdk::cuda
