// sdk/parallel.h: sdk::parallel_for, as at::parallel_for -- f(begin, end) over chunks of
// [begin, end) on up to sdk::get_num_threads() threads; the first exception is rethrown.
#ifndef SDK_PARALLEL_H_
#define SDK_PARALLEL_H_

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "sdk/c_api.h"

namespace sdk {

/*! \brief Run f(chunk_begin, chunk_end) over [begin, end) in chunks of at least grain_size
 *  elements, on the calling thread plus up to get_num_threads() - 1 others. */
template <typename F>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int64_t grain = std::max<int64_t>(1, grain_size);
  int64_t threads =
      std::min<int64_t>(std::max<int32_t>(1, sdk_get_num_threads()), (n + grain - 1) / grain);
  if (threads <= 1) {
    f(begin, end);
    return;
  }
  const int64_t chunk = (n + threads - 1) / threads;
  std::exception_ptr error;
  std::mutex lock;
  auto run = [&](int64_t b) {
    try {
      f(b, std::min(end, b + chunk));
    } catch (...) {
      std::lock_guard<std::mutex> g(lock);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int64_t b = begin + chunk; b < end; b += chunk) pool.emplace_back(run, b);
  run(begin);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace sdk

#endif  // SDK_PARALLEL_H_
