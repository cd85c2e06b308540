// core/src/threads.cpp: the thread-count ABI functions over parallel.h.
#include <algorithm>
#include <atomic>

#include "blas.h"
#include "parallel.h"
#include "tensor_impl.h"

using namespace sdk::detail;

namespace {

// The BLAS's thread count as a chunk of a parallel region reads it (the largest any chunk
// saw): 1 unless a region leaves the BLAS threaded.
int64_t blas_threads_in_region() {
  blas::threads();  // load first: loading sets the count
  std::atomic<int> seen{0};
  run_chunks(
      std::max(2, max_concurrency()),
      [](void* p, int64_t) {
        auto& s = *static_cast<std::atomic<int>*>(p);
        int n = blas::threads();
        int cur = s.load();
        while (n > cur && !s.compare_exchange_weak(cur, n)) {
        }
      },
      &seen);
  return seen.load();
}

int64_t parallel_info(int32_t key) {
  switch (key) {
    case SDK_PARALLEL_NUM_THREADS:
      return get_num_threads();
    case SDK_PARALLEL_MAX_CONCURRENCY:
      return max_concurrency();
    case SDK_PARALLEL_USABLE_CPUS:
      return usable_cpus();
    case SDK_PARALLEL_PHYSICAL_CORES:
      return physical_cores();
    case SDK_PARALLEL_POOL_WORKERS:
      return pool_workers();
    case SDK_PARALLEL_BLAS_THREADS:
      return blas::threads();
    case SDK_PARALLEL_BLAS_IN_REGION:
      return blas_threads_in_region();
    case SDK_PARALLEL_BLAS_ON_POOL:
      return blas::on_pool() ? 1 : 0;
    default:
      break;
  }
  SDK_FAIL(SDK_ERROR_VALUE, "sdk_get_parallel_info: unknown key ", key,
           " (expected an sdk_parallel_key, 0 to 7)");
}

// torch's inter-op thread count: recorded only (ops run one after another).
std::atomic<int32_t> g_interop_threads{1};

}  // namespace

extern "C" {

SDK_API sdk_status sdk_set_num_threads(int32_t n) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(n >= 1, "sdk_set_num_threads: n must be >= 1, got ", n);
  set_num_threads(n);
  SDK_SAFE_CALL_END;
}

SDK_API int32_t sdk_get_num_threads(void) { return get_num_threads(); }

SDK_API sdk_status sdk_set_num_interop_threads(int32_t n) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(n >= 1, "sdk_set_num_interop_threads: n must be >= 1, got ", n);
  g_interop_threads.store(n, std::memory_order_relaxed);
  SDK_SAFE_CALL_END;
}

SDK_API int32_t sdk_get_num_interop_threads(void) {
  return g_interop_threads.load(std::memory_order_relaxed);
}

SDK_API sdk_status sdk_get_parallel_info(int32_t key, int64_t* out) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(out != nullptr, "sdk_get_parallel_info: out is NULL");
  *out = parallel_info(key);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_parallel_run(int64_t nchunks, sdk_parallel_fn body, void* ctx) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(nchunks >= 0, "sdk_parallel_run: nchunks must be >= 0, got ", nchunks);
  SDK_VALUE_CHECK(body != nullptr, "sdk_parallel_run: body is NULL");
  run_chunks(nchunks, body, ctx);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
