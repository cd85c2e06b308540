// core/src/cuda/backend/allocator.cpp: the caching, stream-aware CUDA allocator.
//
// cudaMalloc/cudaFree synchronise the device and cost tens of microseconds, so freed
// blocks are kept and reused. Design:
// - sizes round up to 512 bytes; requests <= 1 MiB come from 2 MiB segments (small pool),
//   larger ones from segments of >= 20 MiB or the request rounded to 2 MiB (large pool);
// - a free block is reused only by the stream it was allocated on: work on one stream
//   runs in order, so no event is needed to know the previous user is done (a tensor used
//   on another stream must be kept alive by the caller until that stream is done);
// - best fit among free blocks of the same stream and pool; the rest of a block is split
//   off when large enough; neighbours in a segment merge again when both are free;
// - a block that record_stream marked as used on other streams is not reused when freed:
//   an event is recorded on each of those streams, and the block returns to its pool once
//   every event has completed (checked at the next allocation on the device; empty_cache
//   waits for them);
// - on out-of-memory, unused segments are returned to the driver and the call retried.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "common.h"

namespace sdk::cuda {
namespace {

constexpr int64_t kRound = 512;
constexpr int64_t kSmallSize = int64_t{1} << 20;     // <= 1 MiB: small pool
constexpr int64_t kSmallSegment = int64_t{2} << 20;  // 2 MiB
constexpr int64_t kLargeSegment = int64_t{20} << 20;
constexpr int64_t kLargeRound = int64_t{2} << 20;
constexpr int64_t kMinLargeSplit = int64_t{1} << 20;

struct Block {
  int device;
  cudaStream_t stream;
  bool small;  // pool
  int64_t size;
  char* ptr;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours within the same segment
  Block* next = nullptr;
  std::vector<cudaStream_t> uses;  // other streams that used it (record_stream)
};

// A freed block waiting for the work queued on its recorded streams (one event each).
struct Pending {
  Block* block;
  std::vector<cudaEvent_t> events;
};

struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return a->ptr < b->ptr;
  }
};

struct DeviceCache {
  std::set<Block*, BlockLess> small_free, large_free;
  std::unordered_map<void*, Block*> live;
  std::vector<Pending> pending;
  sdk_cuda_allocator_stats stats{};
};

// The allocator's state lives on the heap and is never destroyed: a CUDA tensor released
// during static destruction (a static tensor in an extension, late Python objects) must
// still find it.
struct State {
  std::mutex mutex;
  std::vector<DeviceCache> devices;
  std::unordered_map<void*, int> owner;  // live pointer -> device
};
State& state() {
  static State* s = new State();
  return *s;
}

int64_t round_size(int64_t n) { return n < kRound ? kRound : (n + kRound - 1) / kRound * kRound; }

int64_t segment_size(int64_t size) {
  if (size <= kSmallSize) return kSmallSegment;
  if (size < kLargeSegment / 2) return kLargeSegment;
  return (size + kLargeRound - 1) / kLargeRound * kLargeRound;
}

DeviceCache& cache_of(int device) {
  auto& devices = state().devices;
  if (devices.empty()) devices.resize(static_cast<size_t>(device_count()));
  return devices[static_cast<size_t>(device)];
}

void note_peak(sdk_cuda_allocator_stats& s) {
  s.peak_allocated_bytes = std::max(s.peak_allocated_bytes, s.allocated_bytes);
  s.peak_reserved_bytes = std::max(s.peak_reserved_bytes, s.reserved_bytes);
}

// Free every whole (unsplit) cached segment of one device. A device with nothing cached is
// not touched (making it current would create a context there).
void release_segments(int device, DeviceCache& c) {
  if (c.small_free.empty() && c.large_free.empty()) return;
  DeviceGuard g(device);
  for (auto* pool : {&c.small_free, &c.large_free}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (!b->prev && !b->next) {
        // A failure here (a context already broken) must not be reported later against an
        // unrelated launch: clear it; the memory is gone with the context anyway.
        if (cudaFree(b->ptr) != cudaSuccess) cudaGetLastError();
        c.stats.reserved_bytes -= b->size;
        c.stats.num_device_frees += 1;
        delete b;
        it = pool->erase(it);
      } else {
        ++it;
      }
    }
  }
}

Block* find_free(DeviceCache& c, cudaStream_t stream, bool small, int64_t size) {
  auto& pool = small ? c.small_free : c.large_free;
  Block key{0, stream, small, size, nullptr};
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  // A huge cached block for a small request would pin it: cap the waste in the large pool.
  if (!small && b->size > size + kLargeSegment && size < kLargeSegment) return nullptr;
  pool.erase(it);
  return b;
}

void process_pending(int device, DeviceCache& c, bool wait);

Block* new_segment(int device, DeviceCache& c, cudaStream_t stream, bool small, int64_t size) {
  int64_t seg = segment_size(size);
  void* p = nullptr;
  DeviceGuard g(device);
  cudaError_t e = cudaMalloc(&p, static_cast<size_t>(seg));
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    process_pending(device, c, true);
    release_segments(device, c);
    e = cudaMalloc(&p, static_cast<size_t>(seg));
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) {
      fail(SDK_ERROR_MEMORY, "CUDA out of memory: tried to allocate ", size, " bytes on device ",
           device, " (", c.stats.allocated_bytes, " bytes allocated, ", c.stats.reserved_bytes,
           " reserved by the sdk's caching allocator)");
    }
    check(e, "cudaMalloc");
  }
  c.stats.reserved_bytes += seg;
  c.stats.num_device_allocs += 1;
  return new Block{device, stream, small, seg, static_cast<char*>(p)};
}

// Split `b` to `size` when the rest is worth keeping; the rest goes back to the pool.
void maybe_split(DeviceCache& c, Block* b, int64_t size) {
  int64_t rest = b->size - size;
  bool worth = b->small ? rest >= kRound : rest > kMinLargeSplit;
  if (!worth) return;
  Block* r = new Block{b->device, b->stream, b->small, rest, b->ptr + size};
  r->prev = b;
  r->next = b->next;
  if (b->next) b->next->prev = r;
  b->next = r;
  b->size = size;
  (r->small ? c.small_free : c.large_free).insert(r);
}

void merge_into(DeviceCache& c, Block* b, Block* other) {
  // `other` is a free neighbour of b: absorb it.
  auto& pool = other->small ? c.small_free : c.large_free;
  pool.erase(other);
  if (other == b->prev) {
    b->ptr = other->ptr;
    b->prev = other->prev;
    if (b->prev) b->prev->next = b;
  } else {
    b->next = other->next;
    if (b->next) b->next->prev = b;
  }
  b->size += other->size;
  delete other;
}

// b (no longer in use anywhere) back to its pool, merged with free neighbours.
void release_block(DeviceCache& c, Block* b) {
  b->allocated = false;
  b->uses.clear();
  c.stats.allocated_bytes -= b->size;
  if (b->prev && !b->prev->allocated) merge_into(c, b, b->prev);
  if (b->next && !b->next->allocated) merge_into(c, b, b->next);
  (b->small ? c.small_free : c.large_free).insert(b);
}

// Release the pending blocks whose events have all completed (`wait`: wait for them all).
void process_pending(int device, DeviceCache& c, bool wait) {
  if (c.pending.empty()) return;
  DeviceGuard g(device);
  size_t kept = 0;
  for (size_t i = 0; i < c.pending.size(); ++i) {
    Pending& p = c.pending[i];
    bool done = true;
    for (cudaEvent_t e : p.events) {
      cudaError_t r = wait ? cudaEventSynchronize(e) : cudaEventQuery(e);
      if (r == cudaErrorNotReady) {
        cudaGetLastError();
        done = false;
        break;
      }
      check(r, "cudaEventQuery (a block freed after record_stream)");
    }
    if (!done) {
      if (kept != i) c.pending[kept] = std::move(p);  // a self-move would empty `events`
      ++kept;
      continue;
    }
    for (cudaEvent_t e : p.events) cudaEventDestroy(e);
    release_block(c, p.block);
  }
  c.pending.resize(kept);
}

// An event recorded now on each stream b was used on: b is reusable once all complete.
Pending pending_for(int device, Block* b) {
  DeviceGuard g(device);
  Pending p{b, {}};
  for (cudaStream_t s : b->uses) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    p.events.push_back(e);
    check(cudaEventRecord(e, s), "cudaEventRecord (free after record_stream)");
  }
  return p;
}

}  // namespace

void* cache_malloc(int64_t nbytes, int device) {
  if (nbytes < 0) fail(SDK_ERROR_VALUE, "CUDA allocation of a negative size ", nbytes);
  check_device(device, "CUDA allocation");
  int64_t size = round_size(nbytes);
  bool small = size <= kSmallSize;
  cudaStream_t stream = current_stream(device);
  std::lock_guard<std::mutex> lock(state().mutex);
  DeviceCache& c = cache_of(device);
  process_pending(device, c, false);
  Block* b = find_free(c, stream, small, size);
  if (!b) b = new_segment(device, c, stream, small, size);
  maybe_split(c, b, size);
  b->allocated = true;
  c.live[b->ptr] = b;
  state().owner[b->ptr] = device;
  c.stats.allocated_bytes += b->size;
  c.stats.num_allocs += 1;
  note_peak(c.stats);
  return b->ptr;
}

void cache_free(void* p) {
  if (!p) return;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto owner = st.owner.find(p);
  if (owner == st.owner.end()) {
    fail(SDK_ERROR_VALUE, "CUDA free of a pointer the sdk allocator does not own");
  }
  DeviceCache& c = st.devices[static_cast<size_t>(owner->second)];
  st.owner.erase(owner);
  Block* b = c.live[p];
  c.live.erase(p);
  c.stats.num_frees += 1;
  if (b->uses.empty()) return release_block(c, b);
  c.pending.push_back(pending_for(owner->second, b));  // still allocated until the events
}

void cache_record_stream(void* p, cudaStream_t stream) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto owner = st.owner.find(p);
  if (owner == st.owner.end()) {
    fail(SDK_ERROR_VALUE, "record_stream: ", p,
         " is not the start of a live block from the sdk allocator (a tensor's storage or "
         "raw_alloc's result)");
  }
  Block* b = st.devices[static_cast<size_t>(owner->second)].live[p];
  if (stream == b->stream) return;
  for (cudaStream_t s : b->uses) {
    if (s == stream) return;
  }
  b->uses.push_back(stream);
}

void cache_empty() {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  for (size_t d = 0; d < st.devices.size(); ++d) {
    process_pending(static_cast<int>(d), st.devices[d], true);
    release_segments(static_cast<int>(d), st.devices[d]);
  }
}

void cache_stats(int device, sdk_cuda_allocator_stats* out) {
  if (!out) fail(SDK_ERROR_VALUE, "memory_stats: stats is NULL");
  check_device(device, "memory_stats");
  uint32_t size = out->size;
  std::lock_guard<std::mutex> lock(state().mutex);
  sdk_cuda_allocator_stats s = cache_of(device).stats;
  s.size = sizeof(sdk_cuda_allocator_stats);
  // Copy only what the caller's (possibly older, smaller) struct holds.
  size_t n = std::min<size_t>(size, sizeof(s));
  std::memcpy(out, &s, n);
  if (n >= sizeof(uint32_t)) out->size = static_cast<uint32_t>(n);
}

void cache_reset_peak(int device) {
  check_device(device, "reset_peak_memory_stats");
  std::lock_guard<std::mutex> lock(state().mutex);
  sdk_cuda_allocator_stats& s = cache_of(device).stats;
  s.peak_allocated_bytes = s.allocated_bytes;
  s.peak_reserved_bytes = s.reserved_bytes;
}

}  // namespace sdk::cuda
