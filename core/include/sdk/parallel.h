// sdk/parallel.h: sdk::parallel_for and parallel_reduce, as at::parallel_for -- f(begin, end)
// over chunks of [begin, end) on up to sdk::get_num_threads() threads; the first exception is
// rethrown.
#ifndef SDK_PARALLEL_H_
#define SDK_PARALLEL_H_

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "sdk/c_api.h"

namespace sdk {
namespace internal {
/*! \brief A grain size for elementwise loops (at::internal::GRAIN_SIZE): below it a loop is not
 *  worth a thread. */
constexpr int64_t GRAIN_SIZE = 32768;
}  // namespace internal

/*! \brief Accepted for ports: the SDK's pool needs no per-thread setup (at::init_num_threads). */
inline void init_num_threads() {}

/*! \brief ceil(x / y) for positive x and y (at::divup, ATen/Parallel.h's chunk arithmetic). */
inline int64_t divup(int64_t x, int64_t y) { return (x + y - 1) / y; }

namespace detail {

// This thread's index in the parallel region it runs a chunk of; -1 outside any.
inline int& thread_num_slot() {
  static thread_local int num = -1;
  return num;
}

// Sets the slot for a scope (a chunk), restores it after.
class ThreadNumGuard {
 public:
  explicit ThreadNumGuard(int num) : previous_(thread_num_slot()) { thread_num_slot() = num; }
  ~ThreadNumGuard() { thread_num_slot() = previous_; }
  ThreadNumGuard(const ThreadNumGuard&) = delete;
  ThreadNumGuard& operator=(const ThreadNumGuard&) = delete;

 private:
  int previous_;
};

// How parallel_for and parallel_reduce split [begin, end): `chunks` pieces of `chunk` elements
// (the last may be shorter), one per thread; chunks == 1 inside a parallel region.
struct Chunking {
  int64_t chunks, chunk;
};
inline Chunking chunking(int64_t begin, int64_t end, int64_t grain_size) {
  const int64_t n = end - begin;
  const int64_t grain = std::max<int64_t>(1, grain_size);
  // The core's pool runs the chunks: one per thread that runs at once (a count set above the
  // CPUs runs one thread per CPU at most).
  int64_t threads = 1;
  if (thread_num_slot() < 0 && sdk_get_parallel_info(SDK_PARALLEL_MAX_CONCURRENCY, &threads) != 0)
    threads = 1;
  threads = std::min<int64_t>(threads, (n + grain - 1) / grain);
  if (threads <= 1) return {1, n};
  const int64_t chunk = (n + threads - 1) / threads;
  return {(n + chunk - 1) / chunk, chunk};
}

// Runs f(chunk_index, chunk_begin, chunk_end) for every chunk, chunk 0 on the calling thread;
// rethrows the first exception.
template <typename F>
inline void run_chunks(int64_t begin, int64_t end, Chunking c, const F& f) {
  if (c.chunks <= 1) {  // inline; a nested call keeps the thread number of its chunk
    ThreadNumGuard guard(std::max(0, thread_num_slot()));
    f(int64_t{0}, begin, end);
    return;
  }
  struct Job {
    int64_t begin, end, chunk;
    const F* f;
    std::exception_ptr error;
    std::mutex lock;
  } job{begin, end, c.chunk, &f, nullptr, {}};
  auto run = [](void* p, int64_t index) {  // a C callback: nothing may escape it
    Job& j = *static_cast<Job*>(p);
    ThreadNumGuard guard(static_cast<int>(index));
    try {
      const int64_t b = j.begin + index * j.chunk;
      (*j.f)(index, b, std::min(j.end, b + j.chunk));
    } catch (...) {
      std::lock_guard<std::mutex> g(j.lock);
      if (!j.error) j.error = std::current_exception();
    }
  };
  // (the core refuses only bad arguments, which hold here; the loop is a safety net)
  if (sdk_parallel_run(c.chunks, run, &job) != 0) {
    for (int64_t i = 0; i < c.chunks; ++i) run(&job, i);
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace detail

/*! \brief Run f(chunk_begin, chunk_end) over [begin, end) in chunks of at least grain_size
 *  elements, on the calling thread plus up to get_num_threads() - 1 others (and no more
 *  threads than the machine has CPUs). Inside another
 *  parallel_for (a nested call) it runs on the calling thread, as torch's does. */
template <typename F>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  detail::run_chunks(begin, end, detail::chunking(begin, end, grain_size),
                     [&](int64_t, int64_t b, int64_t e) { f(b, e); });
}

/*! \brief at::parallel_reduce: partial = f(chunk_begin, chunk_end, ident) per chunk, then the
 *  partials combined with sf(a, b) in chunk order (so the result does not depend on timing).
 *  Returns ident for an empty range. */
template <typename scalar_t, typename F, typename SF>
inline scalar_t parallel_reduce(int64_t begin, int64_t end, int64_t grain_size,
                                const scalar_t ident, const F& f, const SF& sf) {
  if (begin >= end) return ident;
  const detail::Chunking c = detail::chunking(begin, end, grain_size);
  struct Slot {  // not std::vector<bool>: chunks write their slots concurrently
    scalar_t value;
  };
  std::vector<Slot> partial(static_cast<size_t>(c.chunks), Slot{ident});
  detail::run_chunks(begin, end, c, [&](int64_t i, int64_t b, int64_t e) {
    partial[static_cast<size_t>(i)].value = f(b, e, ident);
  });
  scalar_t result = partial[0].value;
  for (size_t i = 1; i < partial.size(); ++i) result = sf(result, partial[i].value);
  return result;
}

/*! \brief The index of the calling thread in the parallel_for/parallel_reduce it runs a chunk
 *  of (0 for the calling thread, and outside any), below get_num_threads(). */
inline int get_thread_num() { return std::max(0, detail::thread_num_slot()); }

/*! \brief True while running a chunk of parallel_for/parallel_reduce. */
inline bool in_parallel_region() { return detail::thread_num_slot() >= 0; }

/*! \brief Run `func` asynchronously (torch's at::launch, an inter-op task): on a thread of its
 *  own, which the caller synchronises with as with torch's (a promise, a counter). An
 *  exception escaping `func` ends the process, as one escaping a torch task does. */
template <typename F>
inline void launch(F&& func) {  // a template: <functional> stays out of sdk/tensor.h
  std::thread(std::forward<F>(func)).detach();
}

}  // namespace sdk

#endif  // SDK_PARALLEL_H_
