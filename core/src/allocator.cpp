// core/src/allocator.cpp: the 64-byte aligned CPU allocator and the per-device registry.
#include "allocator.h"

#include <atomic>
#include <cstdlib>

#include "tensor_impl.h"

namespace sdk::detail {
namespace {

constexpr int kMaxDeviceTypes = 4;
std::atomic<int64_t> g_bytes[kMaxDeviceTypes];

class CpuAllocator final : public Allocator {
 public:
  void* allocate(int64_t nbytes, int32_t) override {
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
