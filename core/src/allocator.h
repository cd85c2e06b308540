// core/src/allocator.h: device memory allocators behind one small interface.
#pragma once

#include <cstdint>

#include "sdk/c_api.h"

namespace sdk::detail {

// Memory of one device type. A CUDA caching allocator plugs in later through
// set_allocator() without touching Storage or any op.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // nbytes > 0; throws Error(SDK_ERROR_MEMORY) on failure. CPU memory is
  // 64-byte aligned so vector loops never straddle cache lines at the start.
  virtual void* allocate(int64_t nbytes, int32_t device_index) = 0;
  virtual void deallocate(void* p, int64_t nbytes, int32_t device_index) = 0;
};

constexpr int64_t kCpuAlignment = 64;
// CPU blocks of this size and up start on a 4 KB page.
constexpr int64_t kCpuPageAlignedMin = 64 * 1024;

// The allocator for a device type (SDK_CPU, SDK_CUDA); nullptr if none.
Allocator* get_allocator(int32_t device_type);
// Install an allocator (not owned); used by device backends at start-up.
void set_allocator(int32_t device_type, Allocator* a);
// Bytes currently allocated on a device type by the core's allocators.
int64_t allocated_bytes(int32_t device_type);
// Record (de)allocations made by an allocator (for the statistics above).
void note_allocated(int32_t device_type, int64_t delta);

}  // namespace sdk::detail
