// core/src/parallel.h: parallel_for over a small persistent thread pool (intra-op parallelism).
#pragma once

#include <sched.h>

#include <cstdint>

namespace sdk::detail {

// The thread count set (>= 1), as get_num_threads() reports it. Default: SDK_NUM_THREADS,
// else OMP_NUM_THREADS, else the physical cores this process may run on.
int get_num_threads();
// Change the thread count; BLAS follows it (see max_concurrency()).
void set_num_threads(int n);
// Threads that run at once: min(get_num_threads(), usable_cpus()). A count set above the
// cores is kept (get_num_threads() returns it) but never runs more threads than cores.
int max_concurrency();
// CPUs this process may run on: its affinity mask, capped by a cgroup CPU quota.
int usable_cpus();
// Physical cores among those CPUs (hyperthread siblings count once); usable_cpus() when the
// topology cannot be read.
int physical_cores();
// Workers the pool has started (the caller of a parallel region is not one of them).
int pool_workers();
// The BLAS loader installs a function that sets the BLAS thread count. The pool calls it with
// 1 while it runs a parallel region (BLAS inside a region stays on its thread) and with
// max_concurrency() otherwise; it is called once when installed.
void set_blas_threads_hook(void (*fn)(int));
// True inside a parallel_for body on any thread: nested calls run serially.
bool in_parallel_region();

// From the environment (threads_env.cpp). A thread count from SDK_NUM_THREADS/OMP_NUM_THREADS:
// a positive integer (OMP_NUM_THREADS's list form "4,2" gives its first entry); 0 when the
// value is absent or malformed.
int parse_thread_count(const char* value);
// CPUs a cgroup CPU quota allows (rounded up); 0 when there is no quota.
int cgroup_cpu_limit();
// Physical cores among the CPUs in `set` (siblings of one core count once); 0 when unknown.
int read_physical_cores(const cpu_set_t& set);

// Run body(ctx, chunk) for chunk in [0, nchunks) on the pool (the caller
// takes part). Rethrows the first exception a chunk threw.
void run_chunks(int64_t nchunks, void (*body)(void* ctx, int64_t chunk), void* ctx);

// Run body(ctx, i) for every i in [0, n), each on its own thread and all at once: the members
// may wait for each other (a BLAS's threaded kernels do). Pool workers take the members when
// the pool is free to; otherwise (nested, or more members than workers) short-lived threads
// do. body must not throw.
void run_team(int64_t n, void (*body)(void* ctx, int64_t i), void* ctx);

// A function compiled once: never inlined into its callers, nor cloned for a constant argument
// (a loop body passed by pointer would be inlined into such a clone).
#if defined(__GNUC__) && !defined(__clang__)
#define SDK_COMPILED_ONCE __attribute__((noinline, noclone))
#else
#define SDK_COMPILED_ONCE __attribute__((noinline))
#endif

// parallel_for's split, compiled once in each file: body(ctx, b, e) over the ranges.
using RangeFn = void (*)(const void* ctx, int64_t b, int64_t e);
SDK_COMPILED_ONCE inline void parallel_for_fn(int64_t begin, int64_t end, int64_t grain,
                                              RangeFn body, const void* fn) {
  if (end <= begin) return;
  int64_t n = end - begin;
  if (grain < 1) grain = 1;
  int nt = (n > grain) ? max_concurrency() : 1;
  if (nt <= 1 || in_parallel_region()) {
    body(fn, begin, end);
    return;
  }
  int64_t chunks = (n + grain - 1) / grain;
  if (chunks > nt) chunks = nt;
  struct Ctx {
    RangeFn body;
    const void* fn;
    int64_t begin, n, chunks;
  } ctx{body, fn, begin, n, chunks};
  run_chunks(
      chunks,
      [](void* p, int64_t c) {
        const Ctx& x = *static_cast<const Ctx*>(p);
        // Balanced split; boundaries rounded to 16 elements so chunks do not share cache lines
        // of a contiguous float output, where chunks are long enough to stay balanced (a
        // split of a few rows or tasks rounded so would give all of them to chunk 0).
        auto bound = [&](int64_t k) {
          if (k == x.chunks) return x.begin + x.n;
          int64_t off = x.n * k / x.chunks;
          if (x.n >= 64 * x.chunks) off = (off + 15) & ~int64_t(15);
          return x.begin + (off < x.n ? off : x.n);
        };
        int64_t b = bound(c), e = bound(c + 1);
        if (b < e) x.body(x.fn, b, e);
      },
      &ctx);
}

// fn(b, e) over [begin, end) split into at most max_concurrency() contiguous
// ranges of at least `grain` elements; serial when small or nested. fn is compiled once, reached
// through a pointer from the serial and the threaded paths alike (inlined into both, every
// kernel was compiled twice).
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  parallel_for_fn(
      begin, end, grain,
      [](const void* f, int64_t b, int64_t e) { (*static_cast<const F*>(f))(b, e); }, &fn);
}

}  // namespace sdk::detail
