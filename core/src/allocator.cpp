// core/src/allocator.cpp: the 64-byte aligned CPU allocator and the per-device registry.
#include "allocator.h"

#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "tensor_impl.h"

namespace sdk::detail {
namespace {

constexpr int kMaxDeviceTypes = 4;
std::atomic<int64_t> g_bytes[kMaxDeviceTypes];

// Per-thread cache of small blocks: tiny tensors are allocated and freed at a
// high rate, and aligned_alloc bypasses malloc's own fast per-thread cache.
// No locks: a block freed on another thread simply joins that thread's cache.
constexpr int kClasses = 4;  // block sizes 128, 256, 512, 1024
constexpr int kPerClass = 32;
struct SmallCache {
  void* blocks[kClasses][kPerClass];
  int count[kClasses] = {};
  bool alive = true;
  ~SmallCache() {
    for (int c = 0; c < kClasses; ++c)
      for (int i = 0; i < count[c]; ++i) std::free(blocks[c][i]);
    alive = false;
  }
};
thread_local SmallCache t_cache;

inline int size_class(size_t size) {
  if (size <= 128) return 0;
  if (size <= 256) return 1;
  if (size <= 512) return 2;
  if (size <= 1024) return 3;
  return -1;
}

// Process-wide cache of large blocks (64 KB and up). Without it, a loop that
// allocates the same few megabyte tensors every step (an LLTM cell, a training
// step) pays a page fault per 4 KB each time malloc hands the memory back to
// the kernel. Sizes are rounded up to eighths of a power of two (at most 12.5%
// slack), so one cached block serves every request of its class. The cache
// holds at most SDK_CPU_CACHE_MB megabytes (default 64, 0 turns it off); a
// block that does not fit is freed at once. A mutex is cheap at these sizes.
constexpr size_t kLargeMin = kCpuPageAlignedMin;
constexpr size_t kPageSize = 4096;
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeMin = size_t(4) << 20;
constexpr int kLargeClasses = 8 * 41;  // classes 2^16 .. 2^56 bytes

inline int large_class(size_t size, size_t* rounded) {
  int e = 63 - __builtin_clzll(size);  // 2^e <= size < 2^(e+1), e >= 16
  size_t step = size_t(1) << (e - 3);
  size_t r = (size + step - 1) & ~(step - 1);
  *rounded = r;
  int e2 = 63 - __builtin_clzll(r);  // r may have reached 2^(e+1)
  return (e2 - 16) * 8 + static_cast<int>((r >> (e2 - 3)) - 8);
}

// The block size behind a request of nbytes (> 1 KB): a multiple of the
// alignment, and for large blocks the size of their class (`*cls`, else -1).
inline size_t block_size(int64_t nbytes, int* cls) {
  size_t size = (static_cast<size_t>(nbytes) + kCpuAlignment - 1) & ~size_t(kCpuAlignment - 1);
  *cls = size >= kLargeMin ? large_class(size, &size) : -1;
  return size;
}

struct LargeCache {
  std::mutex mu;
  std::vector<void*> blocks[kLargeClasses];
  size_t cached = 0;
  size_t limit;
  LargeCache() {
    long mb = 64;
    if (const char* v = std::getenv("SDK_CPU_CACHE_MB"); v && *v) {
      char* end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (end && *end == '\0' && n >= 0) mb = n;
    }
    limit = static_cast<size_t>(mb) << 20;
  }
};
// Made while the library loads, before any thread can use it, and never
// destroyed (tensors freed during interpreter shutdown still find it). A lazy
// first use could be cut by fork() mid-initialisation and leave the child
// waiting forever; likewise the lock is taken around fork(), so a child never
// inherits it held. nullptr only while static initialisers run: no caching then.
LargeCache* make_large_cache();
LargeCache* const g_large = make_large_cache();
LargeCache* make_large_cache() {
  auto* cache = new LargeCache();
  pthread_atfork([] { g_large->mu.lock(); }, [] { g_large->mu.unlock(); },
                 [] { g_large->mu.unlock(); });
  return cache;
}

// A new large block. It starts on a page, so that new_storage() knows where in
// a 4 KB page its data lands (cache colouring, tensor.cpp). From 4 MB up (as
// numpy does) it starts on a 2 MB boundary and asks for transparent huge pages:
// an elementwise loop over 4 KB pages refills the TLB every 1024 floats, ~1% of
// a 1M-element add that runs from cache. The colour offset still varies where
// in its first 4 KB page the data starts, so 4K aliasing stays away.
void* new_large_block(size_t size) {
  const bool huge = size >= kHugeMin;
  void* p = nullptr;
  if (posix_memalign(&p, huge ? kHugePage : kPageSize, size) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  if (huge) madvise(p, size & ~(kHugePage - 1), MADV_HUGEPAGE);  // a hint: failure is fine
#endif
  return p;
}

class CpuAllocator final : public Allocator {
 public:
  void* allocate(int64_t nbytes, int32_t) override {
    if (nbytes >= 0 && nbytes <= 1024) {
      int c = size_class(static_cast<size_t>(nbytes));
      SmallCache& cache = t_cache;
      void* p = (cache.count[c] > 0) ? cache.blocks[c][--cache.count[c]]
                                     : std::aligned_alloc(kCpuAlignment, size_t(128) << c);
      if (!p) SDK_FAIL(SDK_ERROR_MEMORY, "out of memory: cannot allocate ", nbytes, " bytes");
      g_bytes[SDK_CPU].fetch_add(nbytes, std::memory_order_relaxed);
      return p;
    }
    // aligned_alloc needs a size that is a multiple of the alignment.
    if (nbytes < 0 || nbytes > (INT64_C(1) << 56)) {
      SDK_FAIL(SDK_ERROR_MEMORY, "out of memory: cannot allocate ", nbytes, " bytes");
    }
    int c;
    size_t size = block_size(nbytes, &c);
    void* p = nullptr;
    if (c < 0) {
      p = std::aligned_alloc(kCpuAlignment, size);
    } else {
      if (LargeCache* cache = g_large) {
        std::lock_guard<std::mutex> lock(cache->mu);
        if (!cache->blocks[c].empty()) {
          p = cache->blocks[c].back();
          cache->blocks[c].pop_back();
          cache->cached -= size;
        }
      }
      if (!p) p = new_large_block(size);
    }
    if (!p) SDK_FAIL(SDK_ERROR_MEMORY, "out of memory: cannot allocate ", nbytes, " bytes");
    g_bytes[SDK_CPU].fetch_add(nbytes, std::memory_order_relaxed);
    return p;
  }
  void deallocate(void* p, int64_t nbytes, int32_t) override {
    if (!p) return;
    g_bytes[SDK_CPU].fetch_sub(nbytes, std::memory_order_relaxed);
    if (nbytes >= 0 && nbytes <= 1024) {
      int c = size_class(static_cast<size_t>(nbytes));
      SmallCache& cache = t_cache;
      if (cache.alive && cache.count[c] < kPerClass) {
        cache.blocks[c][cache.count[c]++] = p;
        return;
      }
    }
    int c;
    size_t size = block_size(nbytes, &c);
    if (c >= 0) {
      if (LargeCache* cache = g_large) {
        std::lock_guard<std::mutex> lock(cache->mu);
        if (cache->cached + size <= cache->limit) {
          try {
            cache->blocks[c].push_back(p);
            cache->cached += size;
            return;
          } catch (...) {  // no room for the pointer: free the block instead
          }
        }
      }
    }
    std::free(p);
  }
};

CpuAllocator g_cpu;
std::atomic<Allocator*> g_allocators[kMaxDeviceTypes] = {nullptr, &g_cpu, nullptr, nullptr};

}  // namespace

Allocator* get_allocator(int32_t device_type) {
  if (device_type < 0 || device_type >= kMaxDeviceTypes) return nullptr;
  return g_allocators[device_type].load(std::memory_order_acquire);
}

void set_allocator(int32_t device_type, Allocator* a) {
  if (device_type < 0 || device_type >= kMaxDeviceTypes) fatal("set_allocator: bad device type");
  g_allocators[device_type].store(a, std::memory_order_release);
}

int64_t allocated_bytes(int32_t device_type) {
  if (device_type < 0 || device_type >= kMaxDeviceTypes) return 0;
  return g_bytes[device_type].load(std::memory_order_relaxed);
}

void note_allocated(int32_t device_type, int64_t delta) {
  if (device_type >= 0 && device_type < kMaxDeviceTypes) {
    g_bytes[device_type].fetch_add(delta, std::memory_order_relaxed);
  }
}

}  // namespace sdk::detail
