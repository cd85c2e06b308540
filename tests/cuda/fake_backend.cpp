// tests/cuda/fake_backend.cpp: a host-memory stand-in for libsdk_cuda.so (tests only).
//
// Lets the core's CUDA routing, the glue's problem descriptions (strides, broadcasting,
// merged dims, reductions, gemm layouts) and the element math run where no GPU exists:
// "device" memory is host memory and each kernel is a loop over the same element functions
// (device_util.cuh) the CUDA kernels use. Loaded with SDK_CUDA_LIBRARY=<this library>.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/backend/device_util.cuh"
#include "cuda/backend/fast_path.h"
#include "cuda/backend/gemm_plan.h"

using namespace sdk::cuda;

namespace {

thread_local std::string t_error;
thread_local int t_device = 0;
thread_local std::unordered_map<int, void*> t_streams;
std::mutex g_mutex;
std::unordered_map<void*, int64_t> g_sizes;
sdk_cuda_allocator_stats g_stats{};

// The plans the real backend would have chosen for the last calls (read by the tests
// through sdk_fake_last_plans): elementwise path, vector width and launches; reduction
// path, vector width, rows and cols; gemm route and batch; and how many gemm calls so far.
struct Plans {
  int64_t ew_path = -1, ew_vec = 0, ew_launches = 0;
  int64_t red_path = -1, red_vec = 0, red_rows = 0, red_cols = 0;
  int64_t gemm_route = -1, gemm_batch = 0, gemm_calls = 0;
};
Plans g_plans;
// record_stream calls: pointer -> streams (cleared when the block is freed).
std::unordered_map<void*, std::vector<void*>> g_uses;

void record_elementwise(const sdk_cuda_iter& it) {
  fast::Plan p = fast::plan_elementwise(it);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_plans.ew_path = p.path;
  g_plans.ew_vec = p.vec;
  g_plans.ew_launches = p.path == fast::kContiguous ? fast::chunk_count(it.numel) : 1;
}

int fail(int kind, const std::string& msg) {
  t_error = msg;
  return kind;
}

int devices() {
  const char* env = std::getenv("SDK_FAKE_CUDA_DEVICES");
  return env ? std::atoi(env) : 1;
}

int check_device(int d) {
  if (d < 0 || d >= devices()) return fail(SDK_ERROR_VALUE, "fake CUDA: bad device index");
  return 0;
}

const char* last_error() { return t_error.c_str(); }
int device_count(int32_t* n) {
  *n = devices();
  return 0;
}
int current_device(int32_t* i) {
  *i = t_device;
  return 0;
}
int set_device(int32_t i) {
  if (int rc = check_device(i)) return rc;
  t_device = i;
  return 0;
}
int get_stream(int32_t d, void** s) {
  auto it = t_streams.find(d < 0 ? t_device : d);
  *s = it == t_streams.end() ? nullptr : it->second;
  return 0;
}
int set_stream(int32_t d, void* s) {
  t_streams[d < 0 ? t_device : d] = s;
  return 0;
}
int synchronize(int32_t) { return 0; }

int fake_malloc(int64_t nbytes, int32_t device, void** ptr) {
  if (int rc = check_device(device)) return rc;
  int64_t size = nbytes < 512 ? 512 : (nbytes + 511) / 512 * 512;
  void* p = std::aligned_alloc(64, static_cast<size_t>(size));
  if (!p) return fail(SDK_ERROR_MEMORY, "fake CUDA: out of memory");
  std::memset(p, 0xAB, static_cast<size_t>(size));  // garbage, as fresh device memory is
  std::lock_guard<std::mutex> lock(g_mutex);
  g_sizes[p] = size;
  g_stats.allocated_bytes += size;
  g_stats.reserved_bytes += size;
  g_stats.num_allocs += 1;
  g_stats.num_device_allocs += 1;
  if (g_stats.allocated_bytes > g_stats.peak_allocated_bytes) {
    g_stats.peak_allocated_bytes = g_stats.allocated_bytes;
  }
  if (g_stats.reserved_bytes > g_stats.peak_reserved_bytes) {
    g_stats.peak_reserved_bytes = g_stats.reserved_bytes;
  }
  *ptr = p;
  return 0;
}

int fake_free(void* p) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_sizes.find(p);
  if (it == g_sizes.end()) return fail(SDK_ERROR_VALUE, "fake CUDA: unknown pointer");
  g_stats.allocated_bytes -= it->second;
  g_stats.reserved_bytes -= it->second;
  g_stats.num_frees += 1;
  g_stats.num_device_frees += 1;
  g_sizes.erase(it);
  g_uses.erase(p);
  std::free(p);
  return 0;
}

int empty_cache() { return 0; }
int record_stream(void* p, void* stream) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_sizes.count(p))
    return fail(SDK_ERROR_VALUE, "fake CUDA: record_stream of an unknown pointer");
  g_uses[p].push_back(stream);
  return 0;
}
int memory_stats(int32_t, sdk_cuda_allocator_stats* s) {
  std::lock_guard<std::mutex> lock(g_mutex);
  uint32_t size = s->size;
  sdk_cuda_allocator_stats copy = g_stats;
  copy.size = sizeof(copy);
  std::memcpy(s, &copy, size < sizeof(copy) ? size : sizeof(copy));
  return 0;
}
int reset_peak(int32_t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_stats.peak_allocated_bytes = g_stats.allocated_bytes;
  g_stats.peak_reserved_bytes = g_stats.reserved_bytes;
  return 0;
}
int fake_memcpy(void* dst, int32_t, const void* src, int32_t, int64_t n) {
  if (n > 0) std::memmove(dst, src, static_cast<size_t>(n));
  return 0;
}

// The same math-type choices as elementwise.cu.
int math_kind(int dtype) {
  if (dtype == SDK_FLOAT64) return 1;
  if (is_float_dtype(dtype)) return 0;
  return 2;
}
int copy_kind(int out, int in) {
  if (!is_float_dtype(out) && !is_float_dtype(in)) return 2;
  if (out == SDK_FLOAT64 || in == SDK_FLOAT64 || in == SDK_INT64 || out == SDK_INT64) return 1;
  return 0;
}

template <typename F>
void each(const sdk_cuda_iter& it, F f) {
  int64_t off[SDK_CUDA_MAX_OPERANDS];
  for (int64_t i = 0; i < it.numel; ++i) {
    element_offsets(it, i, off);
    f(off);
  }
}

template <typename C>
void copy_t(const sdk_cuda_iter& it) {
  each(it, [&](const int64_t* off) {
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, operand_value<C>(it.ops[1], off[1]));
  });
}
template <typename C>
void unary_t(int op, const sdk_cuda_iter& it) {
  const bool is_bool = it.ops[1].dtype == SDK_BOOL;
  each(it, [&](const int64_t* off) {
    C x = operand_value<C>(it.ops[1], off[1]);
    C y;
    if constexpr (std::is_same_v<C, int64_t>) {
      y = unary_int(op, x, is_bool, it);
    } else {
      y = unary_float<C>(op, x, it);
    }
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, y);
  });
}
template <typename C>
void binary_t(int op, const sdk_cuda_iter& it) {
  each(it, [&](const int64_t* off) {
    C a = operand_value<C>(it.ops[1], off[1]);
    C b = operand_value<C>(it.ops[2], off[2]);
    C y;
    if constexpr (std::is_same_v<C, int64_t>) {
      y = binary_int(op, a, b, it);
    } else {
      y = binary_float<C>(op, a, b, it);
    }
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, y);
  });
}
template <typename C>
void ternary_t(int op, const sdk_cuda_iter& it) {
  each(it, [&](const int64_t* off) {
    C a = operand_value<C>(it.ops[1], off[1]);
    C b = operand_value<C>(it.ops[2], off[2]);
    C c = operand_value<C>(it.ops[3], off[3]);
    C y;
    if constexpr (std::is_same_v<C, int64_t>) {
      y = ternary_int(op, a, b, c, it);
    } else {
      y = ternary_float<C>(op, a, b, c, it);
    }
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, y);
  });
}
template <typename C>
void where_t(const sdk_cuda_iter& it) {
  each(it, [&](const int64_t* off) {
    bool c = operand_value<int64_t>(it.ops[1], off[1]) != 0;
    C v = c ? operand_value<C>(it.ops[2], off[2]) : operand_value<C>(it.ops[3], off[3]);
    store_as<C>(it.ops[0].data + off[0], it.ops[0].dtype, v);
  });
}

template <template <typename> class F, typename... Args>
void by_kind(int kind, Args&&... args) {
  if (kind == 0) return F<float>::run(args...);
  if (kind == 1) return F<double>::run(args...);
  return F<int64_t>::run(args...);
}
template <typename C>
struct CopyF {
  static void run(const sdk_cuda_iter& it) { copy_t<C>(it); }
};
template <typename C>
struct UnaryF {
  static void run(int op, const sdk_cuda_iter& it) { unary_t<C>(op, it); }
};
template <typename C>
struct BinaryF {
  static void run(int op, const sdk_cuda_iter& it) { binary_t<C>(op, it); }
};
template <typename C>
struct TernaryF {
  static void run(int op, const sdk_cuda_iter& it) { ternary_t<C>(op, it); }
};
template <typename C>
struct WhereF {
  static void run(const sdk_cuda_iter& it) { where_t<C>(it); }
};

int copy(const sdk_cuda_iter* it) {
  record_elementwise(*it);
  by_kind<CopyF>(copy_kind(it->ops[0].dtype, it->ops[1].dtype), *it);
  return 0;
}
int unary(int32_t op, const sdk_cuda_iter* it) {
  record_elementwise(*it);
  by_kind<UnaryF>(math_kind(it->ops[1].dtype), op, *it);
  return 0;
}
int binary(int32_t op, const sdk_cuda_iter* it) {
  record_elementwise(*it);
  by_kind<BinaryF>(math_kind(it->ops[1].dtype), op, *it);
  return 0;
}
int ternary(int32_t op, const sdk_cuda_iter* it) {
  by_kind<TernaryF>(math_kind(it->ops[1].dtype), op, *it);
  return 0;
}
int where(const sdk_cuda_iter* it) {
  by_kind<WhereF>(math_kind(it->ops[0].dtype), *it);
  return 0;
}

template <typename A>
void reduce_t(const sdk_cuda_reduce_desc& d) {
  const bool logical = d.op == SDK_ALL || d.op == SDK_ANY;
  const bool minmax = d.op == SDK_AMAX || d.op == SDK_AMIN;
  for (int64_t o = 0; o < d.out_numel; ++o) {
    const char* base = d.in + offset_of(o, d.out_ndim, d.out_sizes, d.in_out_strides);
    A acc = identity_of<A>(d.op);
    for (int64_t j = 0; j < d.red_numel; ++j) {
      const char* p = base + offset_of(j, d.red_ndim, d.red_sizes, d.in_red_strides);
      A v = logical ? (load_as<double>(p, d.in_dtype) != 0.0 ? A(1) : A(0))
                    : load_as<A>(p, d.in_dtype);
      acc = (j > 0 || !minmax) ? combine(d.op, acc, v) : v;
    }
    if (d.op == SDK_MEAN) acc = static_cast<A>(static_cast<double>(acc) / d.red_numel);
    store_as<A>(d.out + offset_of(o, d.out_ndim, d.out_sizes, d.out_strides), d.out_dtype, acc);
  }
}

int reduce(const sdk_cuda_reduce_desc* d) {
  {
    fast::ReducePlan p = fast::plan_reduce(*d);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_plans.red_path = p.path;
    g_plans.red_vec = p.vec;
    g_plans.red_rows = p.rows;
    g_plans.red_cols = p.cols;
  }
  if (is_float_dtype(d->out_dtype)) {
    reduce_t<double>(*d);
  } else {
    reduce_t<int64_t>(*d);
  }
  return 0;
}

template <typename A>
void gemm_one(const sdk_cuda_gemm_desc& d) {
  int64_t isz = elem_size(d.dtype);
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) {
      A acc = 0;
      for (int64_t k = 0; k < d.k; ++k) {
        acc += load_as<A>(d.a + (i * d.a_rs + k * d.a_cs) * isz, d.dtype) *
               load_as<A>(d.b + (k * d.b_rs + j * d.b_cs) * isz, d.dtype);
      }
      char* pc = d.c + (i * d.c_rs + j * d.c_cs) * isz;
      A r = A(d.alpha) * acc;
      if (d.beta != 0.0) r += A(d.beta) * load_as<A>(pc, d.dtype);
      store_as<A>(pc, d.dtype, r);
    }
  }
}

// Each product of a batch alone, as the real backend does without strided-batched cuBLAS.
template <typename A>
void gemm_t(const sdk_cuda_gemm_desc& d) {
  for (int64_t i = 0; i < sdk::cuda::gemm::batch_of(d); ++i) {
    gemm_one<A>(sdk::cuda::gemm::product(d, i, elem_size(d.dtype)));
  }
}

int fake_gemm(const sdk_cuda_gemm_desc* d) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_plans.gemm_route = sdk::cuda::gemm::plan_gemm(*d, true).route;  // as with cuBLAS loaded
    g_plans.gemm_batch = sdk::cuda::gemm::batch_of(*d);
    ++g_plans.gemm_calls;
  }
  if (!is_float_dtype(d->dtype)) return fail(SDK_ERROR_TYPE, "mm on CUDA: floating dtypes only");
  if (d->dtype == SDK_FLOAT64) {
    gemm_t<double>(*d);
  } else {
    gemm_t<float>(*d);
  }
  return 0;
}

int scan(const sdk_cuda_scan_desc* d) {
  const int64_t isz = elem_size(d->dtype);
  for (int64_t o = 0; o < d->outer; ++o) {
    for (int64_t i = 0; i < d->inner; ++i) {
      const int64_t start = (o * d->n * d->inner + i) * isz;
      if (is_float_dtype(d->dtype)) {
        scan_line<double>(d->op, d->dtype, d->in + start, d->out + start, d->n, d->inner * isz);
      } else {
        scan_line<int64_t>(d->op, d->dtype, d->in + start, d->out + start, d->n, d->inner * isz);
      }
    }
  }
  return 0;
}

}  // namespace

// The recorded plans as 10 int64 values (Plans' order), for ctypes.
extern "C" __attribute__((visibility("default"))) void sdk_fake_last_plans(int64_t* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Plans& p = g_plans;
  const int64_t v[10] = {p.ew_path,  p.ew_vec,   p.ew_launches, p.red_path,   p.red_vec,
                         p.red_rows, p.red_cols, p.gemm_route,  p.gemm_batch, p.gemm_calls};
  std::memcpy(out, v, sizeof(v));
}

// The streams recorded for the block at p (up to max of them); returns how many.
extern "C" __attribute__((visibility("default"))) int64_t sdk_fake_stream_uses(void* p, void** out,
                                                                               int64_t max) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_uses.find(p);
  if (it == g_uses.end()) return 0;
  int64_t n = static_cast<int64_t>(it->second.size());
  for (int64_t i = 0; i < n && i < max; ++i) out[i] = it->second[static_cast<size_t>(i)];
  return n;
}

// The launches fast::for_each_chunk makes for numel elements at `limit` each: count, and
// the first two and last chunk sizes and byte offsets of a float32 operand (tests of the
// 32-bit split without 2^31-element tensors).
extern "C" __attribute__((visibility("default"))) int64_t sdk_fake_split(int64_t numel,
                                                                         int64_t limit,
                                                                         int64_t* out) {
  sdk_cuda_iter it{};
  it.nops = 2;
  it.numel = numel;
  it.ops[0].data = reinterpret_cast<char*>(uintptr_t{1} << 40);
  it.ops[1].is_scalar = 1;
  int64_t n = 0;
  fast::for_each_chunk(
      it, 4,
      [&](const sdk_cuda_iter& sub) {
        const int64_t off = reinterpret_cast<char*>(sub.ops[0].data) - it.ops[0].data;
        if (n < 2) {
          out[2 * n] = sub.numel;
          out[2 * n + 1] = off;
        }
        out[4] = sub.numel;
        out[5] = off;
        out[6] = sub.ops[1].data == nullptr ? 1 : 0;  // scalars are never advanced
        ++n;
      },
      limit);
  return n;
}

namespace {

// Device queries, pooled streams and events (table version 5). The device reports the
// capability in $SDK_FAKE_CUDA_CAPABILITY ("8.0" by default) and 16 GiB; streams are distinct
// addresses of a static array (never dereferenced), always idle since "kernels" run at once;
// events keep the host time they were recorded at.
constexpr int64_t kFakeMemory = int64_t{16} << 30;
char g_stream_slots[8][2][32];
unsigned g_stream_next[8][2];

struct FakeEvent {
  int device = 0;
  bool timing = false;
  bool recorded = false;
  std::chrono::steady_clock::time_point at;
};

int device_properties(int32_t d, sdk_cuda_device_properties* out) {
  if (d < 0) d = t_device;
  if (int rc = check_device(d)) return rc;
  const char* cap = std::getenv("SDK_FAKE_CUDA_CAPABILITY");
  sdk_cuda_device_properties r{};
  r.size = sizeof r;
  std::snprintf(r.name, sizeof r.name, "SDK fake CUDA device %d", d);
  r.major = cap ? std::atoi(cap) : 8;
  const char* dot = cap ? std::strchr(cap, '.') : nullptr;
  r.minor = dot ? std::atoi(dot + 1) : 0;
  r.total_memory = kFakeMemory;
  r.multi_processor_count = 108;
  r.max_threads_per_multi_processor = 2048;
  r.max_threads_per_block = 1024;
  r.warp_size = 32;
  r.regs_per_multiprocessor = 65536;
  r.l2_cache_size = 40 << 20;
  r.shared_memory_per_block = 48 << 10;
  r.shared_memory_per_block_optin = 163 << 10;
  r.shared_memory_per_multiprocessor = 164 << 10;
  r.pci_bus_id = d + 1;
  r.memory_bus_width = 5120;
  r.uuid[0] = static_cast<uint8_t>(0xF0 + d);
  uint32_t size = out->size;
  std::memcpy(out, &r, size < sizeof r ? size : sizeof r);
  out->size = size;
  return 0;
}
int mem_get_info(int32_t d, int64_t* free_bytes, int64_t* total_bytes) {
  if (int rc = check_device(d < 0 ? t_device : d)) return rc;
  std::lock_guard<std::mutex> lock(g_mutex);
  *free_bytes = kFakeMemory - g_stats.reserved_bytes;
  *total_bytes = kFakeMemory;
  return 0;
}
const char* arch_list() { return "sm_80 sm_90"; }
int stream_from_pool(int32_t d, int32_t priority, void** stream) {
  if (d < 0) d = t_device;
  if (int rc = check_device(d)) return rc;
  if (d >= 8) return fail(SDK_ERROR_VALUE, "fake CUDA: at most 8 devices have stream pools");
  const int cls = priority < 0 ? 1 : 0;
  std::lock_guard<std::mutex> lock(g_mutex);
  *stream = &g_stream_slots[d][cls][g_stream_next[d][cls]++ % 32];
  return 0;
}
int stream_query(void*, int32_t* done) {
  *done = 1;
  return 0;
}
int stream_synchronize(void*) { return 0; }
int event_create(int32_t d, uint32_t flags, void** event) {
  if (d < 0) d = t_device;
  if (int rc = check_device(d)) return rc;
  auto* e = new FakeEvent();
  e->device = d;
  e->timing = (flags & SDK_CUDA_EVENT_TIMING) != 0;
  *event = e;
  return 0;
}
int event_destroy(void* event) {
  delete static_cast<FakeEvent*>(event);
  return 0;
}
int event_record(void* event, void*) {
  auto* e = static_cast<FakeEvent*>(event);
  e->recorded = true;
  e->at = std::chrono::steady_clock::now();
  return 0;
}
int stream_wait_event(void*, void*) { return 0; }
int event_query(void*, int32_t* done) {
  *done = 1;
  return 0;
}
int event_synchronize(void*) { return 0; }
int event_elapsed_time(void* start, void* end, float* ms) {
  auto* a = static_cast<FakeEvent*>(start);
  auto* b = static_cast<FakeEvent*>(end);
  if (!a->timing || !b->timing) {
    return fail(SDK_ERROR_VALUE, "elapsed_time: both events need enable_timing=True");
  }
  if (!a->recorded || !b->recorded) return fail(SDK_ERROR_RUNTIME, "fake CUDA: event not recorded");
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int sdk_cuda_backend_init(sdk_cuda_backend* t,
                                                                            uint32_t size) {
  if (!t || size < sizeof(sdk_cuda_backend)) return SDK_ERROR_RUNTIME;
  std::memset(t, 0, size);
  t->size = sizeof(sdk_cuda_backend);
  t->version = SDK_CUDA_BACKEND_VERSION;
  t->last_error = last_error;
  t->device_count = device_count;
  t->current_device = current_device;
  t->set_device = set_device;
  t->get_stream = get_stream;
  t->set_stream = set_stream;
  t->synchronize = synchronize;
  t->malloc = fake_malloc;
  t->free = fake_free;
  t->empty_cache = empty_cache;
  t->memory_stats = memory_stats;
  t->reset_peak = reset_peak;
  t->memcpy = fake_memcpy;
  t->copy = copy;
  t->unary = unary;
  t->binary = binary;
  t->where = where;
  t->reduce = reduce;
  t->gemm = fake_gemm;
  t->ternary = ternary;
  t->scan = scan;
  t->record_stream = record_stream;
  t->device_properties = device_properties;
  t->mem_get_info = mem_get_info;
  t->arch_list = arch_list;
  t->stream_from_pool = stream_from_pool;
  t->stream_query = stream_query;
  t->stream_synchronize = stream_synchronize;
  t->event_create = event_create;
  t->event_destroy = event_destroy;
  t->event_record = event_record;
  t->stream_wait_event = stream_wait_event;
  t->event_query = event_query;
  t->event_synchronize = event_synchronize;
  t->event_elapsed_time = event_elapsed_time;
  return 0;
}
