// core/src/parallel.cpp: the lazily started worker pool behind parallel_for, fork-safe.
#include "parallel.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tensor_impl.h"

namespace sdk::detail {
namespace {

thread_local bool t_in_parallel = false;

int default_num_threads() {
  for (const char* var : {"SDK_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      int n = std::atoi(v);
      if (n >= 1) return n;
    }
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n >= 1) return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

std::atomic<int> g_num_threads{0};  // 0: not yet read from the environment
std::atomic<void (*)(int)> g_blas_hook{nullptr};

// One job at a time; workers sleep on a condition variable between jobs.
class Pool {
 public:
  explicit Pool(int nworkers) {
    for (int i = 0; i < nworkers; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  void run(int64_t nchunks, void (*body)(void*, int64_t), void* ctx) {
    std::lock_guard<std::mutex> job_guard(job_mu_);  // serialises callers from several threads
    Job job;
    {
      std::lock_guard<std::mutex> g(mu_);
      job = Job{body, ctx, nchunks, ++generation_ & kGenMask};
      job_ = job;
      done_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      next_.store(job.gen << 32, std::memory_order_release);
    }
    cv_.notify_all();
    work(job);
    // Wait for chunks other threads took; spin briefly since they are short.
    for (int spin = 0; done_.load(std::memory_order_acquire) < nchunks; ++spin) {
      if (spin > 2000) {
        std::unique_lock<std::mutex> lk(mu_);
        done_cv_.wait(lk, [&] { return done_.load(std::memory_order_acquire) >= nchunks; });
        break;
      }
      std::this_thread::yield();
    }
    std::exception_ptr err;
    {
      std::lock_guard<std::mutex> g(mu_);
      err = error_;
      job_.body = nullptr;
    }
    if (err) std::rethrow_exception(err);
  }

 private:
  // A worker runs the job it copied under the lock, never fields that the next job may be
  // rewriting. Chunks are claimed from `next_` = (generation << 32) | next chunk, by
  // compare-and-swap, so a worker that wakes late for a finished job claims nothing from the
  // next one (a plain counter would let it run a chunk twice or skip one).
  struct Job {
    void (*body)(void*, int64_t) = nullptr;
    void* ctx = nullptr;
    int64_t nchunks = 0;
    uint64_t gen = 0;
  };
  static constexpr uint64_t kGenMask = 0xFFFFFFFFu;

  bool claim(const Job& job, int64_t* chunk) {
    uint64_t cur = next_.load(std::memory_order_acquire);
    for (;;) {
      if ((cur >> 32) != job.gen) return false;
      int64_t c = static_cast<int64_t>(cur & kGenMask);
      if (c >= job.nchunks) return false;
      if (next_.compare_exchange_weak(cur, cur + 1, std::memory_order_acq_rel)) {
        *chunk = c;
        return true;
      }
    }
  }
  void work(const Job& job) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    int64_t c;
    while (claim(job, &c)) {
      try {
        job.body(job.ctx, c);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == job.nchunks) {
        std::lock_guard<std::mutex> g(mu_);
        done_cv_.notify_all();
      }
    }
    t_in_parallel = was;
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || (job_.gen != seen && job_.body != nullptr); });
        if (stop_) return;
        job = job_;
        seen = job.gen;
      }
      work(job);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex job_mu_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  bool stop_ = false;
  uint64_t generation_ = 0;
  Job job_;  // the current job (body NULL between jobs); guarded by mu_
  std::atomic<uint64_t> next_{0};
  std::atomic<int64_t> done_{0};
  std::exception_ptr error_;
};

std::mutex g_pool_mu;
// Shared: a caller running a job keeps its pool alive while another thread's
// set_num_threads() makes the next caller replace it; the last owner joins its workers.
std::shared_ptr<Pool>* g_pool = nullptr;

// In a forked child the workers do not exist and the mutexes may be held by
// threads that vanished: abandon the old pool (leak it) and start afresh.
void atfork_child() {
  g_pool = nullptr;
  new (&g_pool_mu) std::mutex();
}

std::shared_ptr<Pool> get_pool(int nthreads) {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, atfork_child); });
  std::lock_guard<std::mutex> g(g_pool_mu);
  if (!g_pool) g_pool = new std::shared_ptr<Pool>();
  if (!*g_pool || (*g_pool)->size() != nthreads - 1) {
    *g_pool = std::make_shared<Pool>(nthreads - 1);  // only when the thread count changed
  }
  return *g_pool;
}

}  // namespace

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int d = default_num_threads();
    g_num_threads.compare_exchange_strong(n, d);
    n = g_num_threads.load(std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(int n) {
  if (n < 1) n = 1;
  g_num_threads.store(n, std::memory_order_relaxed);
  if (auto hook = g_blas_hook.load(std::memory_order_acquire)) hook(n);
}

void set_blas_threads_hook(void (*fn)(int)) { g_blas_hook.store(fn, std::memory_order_release); }

bool in_parallel_region() { return t_in_parallel; }

void run_chunks(int64_t nchunks, void (*body)(void*, int64_t), void* ctx) {
  if (nchunks <= 0) return;
  int nt = get_num_threads();
  // (the pool numbers chunks in 32 bits; no caller comes near that)
  if (nchunks == 1 || nt <= 1 || t_in_parallel || nchunks > INT32_MAX) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    try {
      for (int64_t c = 0; c < nchunks; ++c) body(ctx, c);
    } catch (...) {
      t_in_parallel = was;
      throw;
    }
    t_in_parallel = was;
    return;
  }
  get_pool(nt)->run(nchunks, body, ctx);
}

}  // namespace sdk::detail
