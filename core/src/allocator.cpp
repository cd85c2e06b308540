// core/src/allocator.cpp: the 64-byte aligned CPU allocator and the per-device registry.
#include "allocator.h"

#include <atomic>
#include <cstdlib>

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
    size_t size = (static_cast<size_t>(nbytes) + kCpuAlignment - 1) & ~size_t(kCpuAlignment - 1);
    if (size == 0) size = kCpuAlignment;
    void* p = std::aligned_alloc(kCpuAlignment, size);
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
