// core/src/parallel.h: parallel_for over a small persistent thread pool (intra-op parallelism).
#pragma once

#include <cstdint>

namespace sdk::detail {

// Threads used by large kernels (>= 1). Default: SDK_NUM_THREADS, else
// OMP_NUM_THREADS, else the number of cores this process may run on.
int get_num_threads();
// Change the thread count; also forwards it to the BLAS hook if one is set.
void set_num_threads(int n);
// The BLAS loader installs a function that sets the BLAS thread count; it is
// called from set_num_threads() (and not immediately: the caller reads
// get_num_threads() when it installs the hook).
void set_blas_threads_hook(void (*fn)(int));
// True inside a parallel_for body on any thread: nested calls run serially.
bool in_parallel_region();

// Run body(ctx, chunk) for chunk in [0, nchunks) on the pool (the caller
// takes part). Rethrows the first exception a chunk threw.
void run_chunks(int64_t nchunks, void (*body)(void* ctx, int64_t chunk), void* ctx);

// fn(b, e) over [begin, end) split into at most get_num_threads() contiguous
// ranges of at least `grain` elements; serial when small or nested.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end <= begin) return;
  int64_t n = end - begin;
  if (grain < 1) grain = 1;
  int nt = (n > grain) ? get_num_threads() : 1;
  if (nt <= 1 || in_parallel_region()) {
    fn(begin, end);
    return;
  }
  int64_t chunks = (n + grain - 1) / grain;
  if (chunks > nt) chunks = nt;
  struct Ctx {
    const F* fn;
    int64_t begin, n, chunks;
  } ctx{&fn, begin, n, chunks};
  run_chunks(
      chunks,
      [](void* p, int64_t c) {
        const Ctx& x = *static_cast<const Ctx*>(p);
        // Balanced split; boundaries rounded to 16 elements so chunks do not share cache lines
        // of a contiguous float output.
        auto bound = [&](int64_t k) {
          if (k == x.chunks) return x.begin + x.n;
          int64_t off = x.n * k / x.chunks;
          off = (off + 15) & ~int64_t(15);
          return x.begin + (off < x.n ? off : x.n);
        };
        int64_t b = bound(c), e = bound(c + 1);
        if (b < e) (*x.fn)(b, e);
      },
      &ctx);
}

}  // namespace sdk::detail
