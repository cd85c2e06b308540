// tests/cuda/allocator_test.cpp: the caching allocator's logic on a simulated CUDA runtime.
//
// Built with core/src/cuda/backend/{allocator,runtime}.cpp and, instead of libcudart, the
// few runtime functions they call, implemented here over host memory with a settable
// memory limit, and events over streams whose queued work the test completes by hand. Checks
// reuse, splitting, merging, per-stream pools, statistics, empty_cache, the out-of-memory
// retry and record_stream. Prints "ok" and exits 0, or names the failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "cuda/backend/common.h"

// ------------------------------------------------------------------ simulated runtime
namespace {
int64_t g_limit = int64_t{1} << 40;  // bytes the "device" can hold
int64_t g_used = 0;
std::map<void*, int64_t> g_blocks;  // live segments and their sizes
int64_t g_mallocs = 0;
// Simulated streams: work queued on a stream is done once the test says so.
std::map<cudaStream_t, bool> g_busy;
std::map<cudaEvent_t, cudaStream_t> g_events;  // live event -> stream it was recorded on
int64_t g_event_count = 0;
}  // namespace

extern "C" {
cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "simulated error"; }
const char* cudaGetErrorName(cudaError_t) { return "cudaErrorSimulated"; }
cudaError_t cudaMalloc(void** p, size_t n) {
  if (g_used + static_cast<int64_t>(n) > g_limit) return cudaErrorMemoryAllocation;
  *p = std::malloc(n);
  std::memset(*p, 0, 8);
  g_used += static_cast<int64_t>(n);
  g_blocks[*p] = static_cast<int64_t>(n);
  ++g_mallocs;
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  g_used -= g_blocks[p];
  g_blocks.erase(p);
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  *e = reinterpret_cast<cudaEvent_t>(++g_event_count);
  g_events[*e] = nullptr;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  g_events[e] = s;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e) {
  return g_busy[g_events[e]] ? cudaErrorNotReady : cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  g_busy[g_events[e]] = false;  // waiting finishes the stream's queued work
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  g_events.erase(e);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memcpy(d, s, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void* d, int, const void* s, int, size_t n, cudaStream_t) {
  std::memcpy(d, s, n);
  return cudaSuccess;
}
#if CUDART_VERSION >= 12080
cudaError_t cudaStreamGetDevice(cudaStream_t, int* d) {
  *d = 0;
  return cudaSuccess;
}
#endif
}

// Kernels and cuBLAS are not part of this test.
namespace sdk::cuda {
void launch_copy(const sdk_cuda_iter&, cudaStream_t) {}
void launch_unary(int, const sdk_cuda_iter&, cudaStream_t) {}
void launch_binary(int, const sdk_cuda_iter&, cudaStream_t) {}
void launch_where(const sdk_cuda_iter&, cudaStream_t) {}
void launch_ternary(int, const sdk_cuda_iter&, cudaStream_t) {}
void launch_reduce(const sdk_cuda_reduce_desc&, cudaStream_t) {}
void launch_naive_gemm(const sdk_cuda_gemm_desc&, cudaStream_t) {}
void launch_scan(const sdk_cuda_scan_desc&, cudaStream_t) {}
bool cublas_gemm(const sdk_cuda_gemm_desc&, cudaStream_t) { return false; }
// device_info.cu's table entries (device queries, pooled streams, events): not exercised here
int api_device_properties(int32_t, sdk_cuda_device_properties*) { return 0; }
int api_mem_get_info(int32_t, int64_t*, int64_t*) { return 0; }
const char* api_arch_list() { return ""; }
int api_stream_from_pool(int32_t, int32_t, void**) { return 0; }
int api_stream_query(void*, int32_t*) { return 0; }
int api_stream_synchronize(void*) { return 0; }
int api_event_create(int32_t, uint32_t, void**) { return 0; }
int api_event_destroy(void*) { return 0; }
int api_event_record(void*, void*) { return 0; }
int api_stream_wait_event(void*, void*) { return 0; }
int api_event_query(void*, int32_t*) { return 0; }
int api_event_synchronize(void*) { return 0; }
int api_event_elapsed_time(void*, void*, float*) { return 0; }
}  // namespace sdk::cuda

extern "C" int sdk_cuda_backend_init(sdk_cuda_backend* table, uint32_t size);

// ------------------------------------------------------------------ checks
namespace {
sdk_cuda_backend B;
int g_failures = 0;

#define EXPECT(cond)                                        \
  do {                                                      \
    if (!(cond)) {                                          \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond); \
      ++g_failures;                                         \
    }                                                       \
  } while (0)

sdk_cuda_allocator_stats stats() {
  sdk_cuda_allocator_stats s{};
  s.size = sizeof(s);
  B.memory_stats(0, &s);
  return s;
}

void* alloc(int64_t n) {
  void* p = nullptr;
  EXPECT(B.malloc(n, 0, &p) == 0);
  return p;
}
}  // namespace

int main() {
  EXPECT(sdk_cuda_backend_init(&B, sizeof(B)) == 0);
  constexpr int64_t MiB = int64_t{1} << 20;

  // rounding to 512 bytes, one 2 MiB segment for small requests
  void* a = alloc(1000);
  sdk_cuda_allocator_stats s = stats();
  EXPECT(s.allocated_bytes == 1024 && s.reserved_bytes == 2 * MiB && s.num_device_allocs == 1);
  EXPECT(s.num_allocs == 1);

  // free keeps the segment; the next small request reuses the same block
  EXPECT(B.free(a) == 0);
  s = stats();
  EXPECT(s.allocated_bytes == 0 && s.reserved_bytes == 2 * MiB && s.num_frees == 1);
  void* b = alloc(900);
  EXPECT(b == a);
  EXPECT(stats().num_device_allocs == 1);

  // splitting: a second block comes from the rest of the segment
  void* c = alloc(3000);
  EXPECT(c == static_cast<char*>(b) + 1024);
  EXPECT(stats().num_device_allocs == 1 && stats().allocated_bytes == 1024 + 3072);

  // merging: once both are free the segment is whole again
  EXPECT(B.free(b) == 0 && B.free(c) == 0);
  void* d = alloc(MiB);  // largest small request: fits the merged segment
  EXPECT(d == a && stats().num_device_allocs == 1);
  EXPECT(B.free(d) == 0);

  // large requests get their own (20 MiB) segments, reused when freed
  void* big = alloc(5 * MiB);
  s = stats();
  EXPECT(s.num_device_allocs == 2 && s.reserved_bytes == 22 * MiB);
  EXPECT(B.free(big) == 0);
  void* big2 = alloc(3 * MiB);
  EXPECT(big2 == big && stats().num_device_allocs == 2);
  EXPECT(B.free(big2) == 0);

  // peaks and their reset
  s = stats();
  EXPECT(s.peak_allocated_bytes == 5 * MiB && s.peak_reserved_bytes == 22 * MiB);
  EXPECT(B.reset_peak(0) == 0);
  EXPECT(stats().peak_allocated_bytes == 0);

  // per-stream pools: a block freed on the default stream is not reused on another stream
  void* fake_stream = reinterpret_cast<void*>(0x1234);
  EXPECT(B.set_stream(0, fake_stream) == 0);
  void* e = alloc(1000);
  EXPECT(e != a && stats().num_device_allocs == 3);
  EXPECT(B.free(e) == 0);
  void* e2 = alloc(600);  // same stream again: reused
  EXPECT(e2 == e && stats().num_device_allocs == 3);
  EXPECT(B.free(e2) == 0);
  EXPECT(B.set_stream(0, nullptr) == 0);

  // empty_cache returns every unused segment
  EXPECT(B.empty_cache() == 0);
  s = stats();
  EXPECT(s.reserved_bytes == 0 && s.num_device_frees == 3 && g_blocks.empty());

  // out of memory: cached segments are released and the allocation retried
  void* keep = alloc(MiB);  // a 2 MiB segment, then cached
  EXPECT(B.free(keep) == 0 && g_used == 2 * MiB);
  g_limit = 17 * MiB;                   // 15 MiB needs a 16 MiB segment: only fits without
  void* after_retry = alloc(15 * MiB);  // the cached 2 MiB one
  s = stats();
  EXPECT(after_retry != nullptr && s.reserved_bytes == 16 * MiB && g_used == 16 * MiB);
  // and a request that cannot fit fails cleanly with a memory error
  void* none = nullptr;
  int rc = B.malloc(64 * MiB, 0, &none);
  EXPECT(rc == SDK_ERROR_MEMORY);
  EXPECT(std::strstr(B.last_error(), "CUDA out of memory") != nullptr);
  EXPECT(B.free(after_retry) == 0);

  // record_stream: a block used on another stream is reused only after that stream's work
  void* side = reinterpret_cast<void*>(0x5678);
  void* r = alloc(4096);
  EXPECT(B.record_stream(r, side) == 0 && B.record_stream(r, side) == 0);  // once is enough
  EXPECT(B.record_stream(r, nullptr) == 0);  // its own stream: nothing to wait for
  g_busy[static_cast<cudaStream_t>(side)] = true;
  const int64_t held = stats().allocated_bytes;
  EXPECT(B.free(r) == 0);
  EXPECT(g_events.size() == 1);             // one event, on `side`
  EXPECT(stats().allocated_bytes == held);  // still counted while pending
  void* r2 = alloc(4096);                   // `side` still busy: another block
  EXPECT(r2 != r && g_events.size() == 1);
  g_busy[static_cast<cudaStream_t>(side)] = false;
  void* r3 = alloc(4096);  // the event completed: r is reused
  EXPECT(r3 == r && g_events.empty());
  EXPECT(B.free(r2) == 0 && B.free(r3) == 0);
  // empty_cache waits for pending blocks instead of leaking them
  void* q = alloc(4096);
  EXPECT(B.record_stream(q, side) == 0);
  g_busy[static_cast<cudaStream_t>(side)] = true;
  EXPECT(B.free(q) == 0 && g_events.size() == 1);
  EXPECT(B.empty_cache() == 0);
  EXPECT(g_events.empty() && stats().allocated_bytes == 0 && stats().reserved_bytes == 0);
  // a pointer the allocator does not own
  EXPECT(B.record_stream(reinterpret_cast<void*>(0x42), side) == SDK_ERROR_VALUE);
  EXPECT(std::strstr(B.last_error(), "record_stream") != nullptr);

  // bad arguments
  EXPECT(B.malloc(16, 3, &none) == SDK_ERROR_VALUE);  // device index out of range
  EXPECT(B.free(reinterpret_cast<void*>(0x42)) == SDK_ERROR_VALUE);

  if (g_failures) return 1;
  std::printf("ok\n");
  return 0;
}
