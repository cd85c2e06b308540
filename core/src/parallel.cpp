// core/src/parallel.cpp: the lazily started worker pool behind parallel_for, fork-safe, never
// running more threads at once than the process has CPUs.
#include "parallel.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

// The affinity mask, or every CPU the system reports when it cannot be read.
int affinity_cpus(cpu_set_t* set) {
  CPU_ZERO(set);
  if (sched_getaffinity(0, sizeof(*set), set) == 0 && CPU_COUNT(set) >= 1) return CPU_COUNT(set);
  unsigned n = std::thread::hardware_concurrency();
  int count = n ? static_cast<int>(n) : 1;
  for (int i = 0; i < count && i < CPU_SETSIZE; ++i) CPU_SET(i, set);
  return count;
}

int default_num_threads() {
  for (const char* var : {"SDK_NUM_THREADS", "OMP_NUM_THREADS"}) {
    int n = parse_thread_count(std::getenv(var));
    if (n >= 1) return n;
  }
  return physical_cores();
}

std::atomic<int> g_num_threads{0};  // 0: not yet read from the environment
std::atomic<int> g_usable{0};       // 0: not yet read

// BLAS thread count: 1 while the pool runs a region, max_concurrency() otherwise. The mutex
// orders a region's switch against set_num_threads() on other threads.
std::mutex g_blas_mu;
void (*g_blas_hook)(int) = nullptr;  // guarded by g_blas_mu
bool g_region_active = false;        // guarded by g_blas_mu

void blas_region(bool entering) {
  std::lock_guard<std::mutex> g(g_blas_mu);
  g_region_active = entering;
  if (g_blas_hook) g_blas_hook(entering ? 1 : max_concurrency());
}

// Spin this long for the last chunks before sleeping: a chunk is short, a wake-up is not.
constexpr auto kSpin = std::chrono::microseconds(50);
// A worker that finished a job watches for the next one this long before it sleeps: ops run
// back to back (a model's forward, a benchmark's loop) then find it awake, where waking a
// sleeping thread costs tens of microseconds (an idle virtual CPU most of all). Short enough
// that nothing is runnable a millisecond after the last region.
constexpr auto kIdleSpin = std::chrono::microseconds(50);
// Jobs of at most this many chunks claim them one by one, each participant its own first.
constexpr int64_t kOwnedChunks = 64;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// One job at a time; workers sleep on a condition variable between jobs, after a short spin.
class Pool {
 public:
  explicit Pool(int nworkers) {
    for (int i = 0; i < nworkers; ++i) workers_.emplace_back([this, i] { loop(i); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
      stop_flag_.store(true, std::memory_order_relaxed);
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  // team: chunk i + 1 goes to worker i, chunk 0 to the caller (needs nchunks <= size() + 1);
  // otherwise chunks are claimed by whoever is free.
  void run(int64_t nchunks, void (*body)(void*, int64_t), void* ctx, bool team) {
    std::lock_guard<std::mutex> job_guard(job_mu_);  // serialises callers from several threads
    if (!team) blas_region(true);
    Job job;
    {
      std::lock_guard<std::mutex> g(mu_);
      ++generation_;
      job = Job{body, ctx, nchunks, generation_ & kGenMask, generation_, team};
      job_ = job;
      done_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      next_.store(job.gen << 32, std::memory_order_release);
      posted_.store(generation_, std::memory_order_release);  // (spinning workers look here)
    }
    if (team) {
      cv_.notify_all();  // (a worker past the team finds nothing and sleeps again)
    } else {
      for (int64_t i = 0; i < std::min<int64_t>(nchunks - 1, size()); ++i) cv_.notify_one();
    }
    if (team) {
      run_one(job, 0);
    } else {
      work(job, 0);
    }
    wait_done(nchunks);
    std::exception_ptr err;
    {
      std::lock_guard<std::mutex> g(mu_);
      err = error_;
      job_.body = nullptr;
    }
    if (!team) blas_region(false);
    if (err) std::rethrow_exception(err);
  }

 private:
  // A worker runs the job it copied under the lock, never fields that the next job may be
  // rewriting. Chunks are claimed from `next_` = (generation << 32) | next chunk, by
  // compare-and-swap, so a worker that wakes late for a finished job claims nothing from the
  // next one (a plain counter would let it run a chunk twice or skip one). A team job cannot
  // finish without each member's chunk, so a member never sees a later job's copy.
  //
  // A job of at most kOwnedChunks chunks instead claims each chunk through its own flag, which
  // holds the (64-bit, never reused) generation that last claimed it: participant p (0 the
  // caller, worker i is i + 1) takes chunks p, p + P, ... first, then any left over. So a
  // thread reduces the same part of an array in op after op (its cache still holds it), and a
  // late thread's part is taken by the others. A late worker of a finished job finds every flag
  // at or past its generation and claims nothing.
  struct Job {
    void (*body)(void*, int64_t) = nullptr;
    void* ctx = nullptr;
    int64_t nchunks = 0;
    uint64_t gen = 0;    // 32 bits, for next_
    uint64_t gen64 = 0;  // for the chunk flags
    bool team = false;
  };
  static constexpr uint64_t kGenMask = 0xFFFFFFFFu;

  void wait_done(int64_t nchunks) {
    auto until = std::chrono::steady_clock::now() + kSpin;
    while (done_.load(std::memory_order_acquire) < nchunks) {
      if (std::chrono::steady_clock::now() > until) {
        std::unique_lock<std::mutex> lk(mu_);
        done_cv_.wait(lk, [&] { return done_.load(std::memory_order_acquire) >= nchunks; });
        return;
      }
      std::this_thread::yield();
    }
  }
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
  void run_one(const Job& job, int64_t c) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    try {
      job.body(job.ctx, c);
    } catch (...) {
      std::lock_guard<std::mutex> g(mu_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_parallel = was;
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == job.nchunks) {
      std::lock_guard<std::mutex> g(mu_);
      done_cv_.notify_all();
    }
  }
  bool claim_owned(const Job& job, int64_t c) {
    uint64_t v = owned_[c].load(std::memory_order_acquire);
    return v < job.gen64 &&
           owned_[c].compare_exchange_strong(v, job.gen64, std::memory_order_acq_rel);
  }
  void work(const Job& job, int64_t me) {
    int64_t c;
    if (job.nchunks > kOwnedChunks) {
      while (claim(job, &c)) run_one(job, c);
      return;
    }
    const int64_t parts = size() + 1;
    for (c = me; c < job.nchunks; c += parts) {
      if (claim_owned(job, c)) run_one(job, c);
    }
    for (c = 0; c < job.nchunks; ++c) {
      if (c % parts != me && claim_owned(job, c)) run_one(job, c);
    }
  }
  // Watch for a job newer than `seen` for kIdleSpin; true when one was posted.
  bool spin_for_job(uint64_t seen) {
    auto until = std::chrono::steady_clock::now() + kIdleSpin;
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (posted_.load(std::memory_order_acquire) != seen) return true;
        cpu_relax();
      }
      if (stop_flag_.load(std::memory_order_relaxed)) return false;
      if (std::chrono::steady_clock::now() > until) return false;
    }
  }
  void loop(int index) {
    pthread_setname_np(pthread_self(), "sdk-pool");
    uint64_t seen = 0, seen64 = 0;
    for (;;) {
      Job job;
      spin_for_job(seen64);
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || (job_.gen != seen && job_.body != nullptr); });
        if (stop_) return;
        job = job_;
        seen = job.gen;
        seen64 = job.gen64;
      }
      if (!job.team) {
        work(job, index + 1);
      } else if (index + 1 < job.nchunks) {
        run_one(job, index + 1);
      }
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
  std::atomic<uint64_t> posted_{0};  // generation_ of the last job posted
  std::atomic<bool> stop_flag_{false};
  std::atomic<uint64_t> owned_[kOwnedChunks] = {};  // see Job
  std::exception_ptr error_;
};

std::mutex g_pool_mu;
std::mutex g_team_mu;  // held for a whole team (run_team)
// Shared: a caller running a job keeps its pool alive while another thread's
// set_num_threads() makes the next caller replace it; the last owner joins its workers.
std::shared_ptr<Pool>* g_pool = nullptr;

// In a forked child the workers do not exist and the mutexes may be held by
// threads that vanished: abandon the old pool (leak it) and start afresh.
void atfork_child() {
  g_pool = nullptr;
  new (&g_pool_mu) std::mutex();
  new (&g_blas_mu) std::mutex();
  new (&g_team_mu) std::mutex();
  g_region_active = false;
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

// Members [first, n) of a team on threads of their own (a nested or oversized team).
void run_team_on_threads(int64_t first, int64_t n, void (*body)(void*, int64_t), void* ctx) {
  std::vector<std::thread> threads;
  for (int64_t i = first + 1; i < n; ++i) {
    threads.emplace_back([=] {
      t_in_parallel = true;
      body(ctx, i);
    });
  }
  bool was = t_in_parallel;
  t_in_parallel = true;
  body(ctx, first);
  t_in_parallel = was;
  for (auto& t : threads) t.join();
}

}  // namespace

int usable_cpus() {
  int n = g_usable.load(std::memory_order_relaxed);
  if (n == 0) {
    cpu_set_t set;
    n = affinity_cpus(&set);
    int quota = cgroup_cpu_limit();
    if (quota >= 1) n = std::min(n, quota);
    g_usable.store(n, std::memory_order_relaxed);
  }
  return n;
}

int physical_cores() {
  cpu_set_t set;
  affinity_cpus(&set);
  int n = read_physical_cores(set);
  int usable = usable_cpus();
  return (n >= 1 && n <= usable) ? n : usable;
}

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int d = default_num_threads();
    g_num_threads.compare_exchange_strong(n, d);
    n = g_num_threads.load(std::memory_order_relaxed);
  }
  return n;
}

int max_concurrency() { return std::min(get_num_threads(), usable_cpus()); }

void set_num_threads(int n) {
  if (n < 1) n = 1;
  g_usable.store(0, std::memory_order_relaxed);  // re-read: the affinity may have changed
  g_num_threads.store(n, std::memory_order_relaxed);
  std::lock_guard<std::mutex> g(g_blas_mu);
  if (g_blas_hook && !g_region_active) g_blas_hook(max_concurrency());
}

void set_blas_threads_hook(void (*fn)(int)) {
  std::lock_guard<std::mutex> g(g_blas_mu);
  g_blas_hook = fn;
  if (fn) fn(g_region_active ? 1 : max_concurrency());
}

int pool_workers() {
  std::lock_guard<std::mutex> g(g_pool_mu);
  return (g_pool && *g_pool) ? (*g_pool)->size() : 0;
}

bool in_parallel_region() { return t_in_parallel; }

void run_chunks(int64_t nchunks, void (*body)(void*, int64_t), void* ctx) {
  if (nchunks <= 0) return;
  int nt = max_concurrency();
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
  get_pool(nt)->run(nchunks, body, ctx, /*team=*/false);
}

void run_team(int64_t n, void (*body)(void*, int64_t), void* ctx) {
  if (n <= 0) return;
  if (t_in_parallel) {  // (a region sets the BLAS to one thread: no team starts inside one)
    run_team_on_threads(0, n, body, ctx);
    return;
  }
  // One team at a time, whichever pool or threads run it: a BLAS keeps scratch memory per
  // member index, which two teams at once would share.
  std::lock_guard<std::mutex> g(g_team_mu);
  int nt = max_concurrency();
  if (n == 1 || n > nt || n > INT32_MAX) {
    run_team_on_threads(0, n, body, ctx);
    return;
  }
  get_pool(nt)->run(n, body, ctx, /*team=*/true);
}

}  // namespace sdk::detail
