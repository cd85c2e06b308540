// core/src/cuda/backend/common.h: errors, device guard and streams shared by the backend files.
#pragma once

#include <cuda_runtime.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "../backend_api.h"

namespace sdk::cuda {

// An error with its ABI kind; thrown inside the backend, turned into a status at the table.
struct Error : std::runtime_error {
  int kind;
  Error(int k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

template <typename... Args>
[[noreturn]] void fail(int kind, const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  throw Error(kind, ss.str());
}

// Throw on a CUDA runtime error, naming the call.
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state
    int kind = e == cudaErrorMemoryAllocation ? SDK_ERROR_MEMORY : SDK_ERROR_RUNTIME;
    fail(kind, "CUDA error: ", cudaGetErrorString(e), " (", what, ")");
  }
}
#define SDK_CUDA_CHECK(expr) ::sdk::cuda::check((expr), #expr)

// Record the message for last_error() and return the kind: the table boundary.
int set_error(int kind, const std::string& msg);
template <typename F>
int guarded(F&& f) {
  try {
    f();
    return 0;
  } catch (const Error& e) {
    return set_error(e.kind, e.what());
  } catch (const std::bad_alloc&) {
    return set_error(SDK_ERROR_MEMORY, "out of host memory in the CUDA backend");
  } catch (const std::exception& e) {
    return set_error(SDK_ERROR_RUNTIME, e.what());
  } catch (...) {
    return set_error(SDK_ERROR_RUNTIME, "unknown error in the CUDA backend");
  }
}

// Makes `device` current for a scope (restores the previous one).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    SDK_CUDA_CHECK(cudaGetDevice(&prev_));
    if (device >= 0 && device != prev_) {
      SDK_CUDA_CHECK(cudaSetDevice(device));
      switched_ = true;
    }
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = 0;
  bool switched_ = false;
};

// This thread's current stream on `device` (nullptr: the default stream).
cudaStream_t current_stream(int device);
// Device count, cached after the first successful query.
int device_count();
void check_device(int device, const char* what);

// Allocator entry points (allocator.cpp).
void* cache_malloc(int64_t nbytes, int device);
void cache_free(void* p);
// Mark p's block as used by `stream` too: freeing it waits for that stream's queued work.
void cache_record_stream(void* p, cudaStream_t stream);
void cache_empty();
void cache_stats(int device, sdk_cuda_allocator_stats* stats);
void cache_reset_peak(int device);

// Kernels (elementwise.cu, reduce.cu, scan.cu).
void launch_copy(const sdk_cuda_iter& it, cudaStream_t s);
void launch_unary(int op, const sdk_cuda_iter& it, cudaStream_t s);
void launch_binary(int op, const sdk_cuda_iter& it, cudaStream_t s);
void launch_where(const sdk_cuda_iter& it, cudaStream_t s);
void launch_ternary(int op, const sdk_cuda_iter& it, cudaStream_t s);
void launch_reduce(const sdk_cuda_reduce_desc& d, cudaStream_t s);
void launch_naive_gemm(const sdk_cuda_gemm_desc& d, cudaStream_t s);
void launch_scan(const sdk_cuda_scan_desc& d, cudaStream_t s);
// The contiguous fast kernels (contiguous.cu); false: fast_path.h chose the strided kernels.
bool launch_fast_copy(const sdk_cuda_iter& it, cudaStream_t s);
bool launch_fast_unary(int op, const sdk_cuda_iter& it, cudaStream_t s);
bool launch_fast_binary(int op, const sdk_cuda_iter& it, cudaStream_t s);
// sum/mean/amax/amin over contiguous layouts (reduce_fast.cu); false: the general kernel.
bool launch_fast_reduce(const sdk_cuda_reduce_desc& d, cudaStream_t s);
// cuBLAS when it can do the problem (blas.cpp); false: use the naive kernel.
bool cublas_gemm(const sdk_cuda_gemm_desc& d, cudaStream_t s);

// Device queries, pooled streams and events (device_info.cu): the table's version-5 entries.
int api_device_properties(int32_t device, sdk_cuda_device_properties* out);
int api_mem_get_info(int32_t device, int64_t* free_bytes, int64_t* total_bytes);
const char* api_arch_list();
int api_stream_from_pool(int32_t device, int32_t priority, void** stream);
int api_stream_query(void* stream, int32_t* done);
int api_stream_synchronize(void* stream);
int api_event_create(int32_t device, uint32_t flags, void** event);
int api_event_destroy(void* event);
int api_event_record(void* event, void* stream);
int api_stream_wait_event(void* stream, void* event);
int api_event_query(void* event, int32_t* done);
int api_event_synchronize(void* event);
int api_event_elapsed_time(void* start, void* end, float* ms);

// Grid size for n elements at `threads` per block (grid-stride loops cover the rest).
inline unsigned int grid_for(int64_t n, int threads) {
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  if (blocks > (int64_t{1} << 20)) blocks = int64_t{1} << 20;
  return static_cast<unsigned int>(blocks);
}

}  // namespace sdk::cuda
