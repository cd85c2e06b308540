// core/src/cuda/backend/blas.cpp: cuBLAS, opened with dlopen on the first matmul.
//
// cuBLAS is large and often absent (it is a separate package from the CUDA runtime), so
// the backend does not link it: the few functions used are declared here with their
// documented C signatures, and a matmul without cuBLAS runs the backend's own kernel.
// SDK_CUBLAS_LIBRARY names the library explicitly.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "common.h"
#include "gemm_plan.h"

namespace sdk::cuda {
namespace {

using Handle = void*;
using CreateFn = int (*)(Handle*);
using SetStreamFn = int (*)(Handle, cudaStream_t);
using SetWorkspaceFn = int (*)(Handle, void*, size_t);
// cublasStatus_t cublas<t>gemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb,
//                                  beta, C, ldc); operations: 0 = N, 1 = T.
using SgemmFn = int (*)(Handle, int, int, int, int, int, const float*, const float*, int,
                        const float*, int, const float*, float*, int);
using DgemmFn = int (*)(Handle, int, int, int, int, int, const double*, const double*, int,
                        const double*, int, const double*, double*, int);
// cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta,
//              C, Ctype, ldc, computeType, algo)
using GemmExFn = int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int,
                         const void*, int, int, const void*, void*, int, int, int, int);
// The strided-batched forms: each operand's pointer and ld are followed by its batch stride
// (long long, elements), and batchCount follows C's (computeType and algo after it for Ex).
using SgemmBatchedFn = int (*)(Handle, int, int, int, int, int, const float*, const float*, int,
                               long long, const float*, int, long long, const float*, float*, int,
                               long long, int);
using DgemmBatchedFn = int (*)(Handle, int, int, int, int, int, const double*, const double*, int,
                               long long, const double*, int, long long, const double*, double*,
                               int, long long, int);
using GemmBatchedExFn = int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int,
                                long long, const void*, int, int, long long, const void*, void*,
                                int, int, long long, int, int, int);

struct Cublas {
  bool ok = false;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  SetWorkspaceFn set_workspace = nullptr;  // optional (cuBLAS >= 11.0 has it)
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  GemmExFn gemm_ex = nullptr;  // optional: float16/bfloat16 use the naive kernel without it
  // optional: without them a batch is one call per product
  SgemmBatchedFn sgemm_batched = nullptr;
  DgemmBatchedFn dgemm_batched = nullptr;
  GemmBatchedExFn gemm_batched_ex = nullptr;
};

Cublas load_cublas() {
  Cublas c;
  const char* env = std::getenv("SDK_CUBLAS_LIBRARY");
  const char* names[] = {env, "libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  void* lib = nullptr;
  for (const char* name : names) {
    if (name && *name && (lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  }
  if (!lib) return c;
  c.create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
  c.set_stream = reinterpret_cast<SetStreamFn>(dlsym(lib, "cublasSetStream_v2"));
  c.set_workspace = reinterpret_cast<SetWorkspaceFn>(dlsym(lib, "cublasSetWorkspace_v2"));
  c.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cublasSgemm_v2"));
  c.dgemm = reinterpret_cast<DgemmFn>(dlsym(lib, "cublasDgemm_v2"));
  c.gemm_ex = reinterpret_cast<GemmExFn>(dlsym(lib, "cublasGemmEx"));
  c.sgemm_batched = reinterpret_cast<SgemmBatchedFn>(dlsym(lib, "cublasSgemmStridedBatched"));
  c.dgemm_batched = reinterpret_cast<DgemmBatchedFn>(dlsym(lib, "cublasDgemmStridedBatched"));
  c.gemm_batched_ex = reinterpret_cast<GemmBatchedExFn>(dlsym(lib, "cublasGemmStridedBatchedEx"));
  c.ok = c.create && c.set_stream && c.sgemm && c.dgemm;
  return c;
}

const Cublas& cublas() {
  static const Cublas c = load_cublas();
  return c;
}

// One handle per thread and device: handles are not meant to be shared across threads.
Handle handle_for(int device) {
  thread_local std::unordered_map<int, Handle> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  Handle h = nullptr;
  int status = cublas().create(&h);
  if (status != 0) fail(SDK_ERROR_RUNTIME, "cublasCreate failed with status ", status);
  handles[device] = h;
  return h;
}

// Workspace bytes per (handle, stream): CUBLAS_WORKSPACE_CONFIG=":SIZE_KiB:COUNT[:...]"
// (the sum of SIZE x COUNT), else 32 MiB on compute capability 9.x and 8 MiB + 128 KiB below.
int64_t workspace_bytes(int device) {
  if (const char* env = std::getenv("CUBLAS_WORKSPACE_CONFIG")) {
    int64_t total = 0;
    for (const char* p = env; *p;) {
      if (*p != ':') {
        ++p;
        continue;
      }
      char* end = nullptr;
      long long kib = std::strtoll(p + 1, &end, 10);
      if (end == p + 1 || *end != ':') break;
      long long count = std::strtoll(end + 1, &end, 10);
      total += int64_t{kib} * 1024 * count;
      p = end;
    }
    if (total > 0) return total;
  }
  int major = 0;
  SDK_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9 ? (int64_t{32} << 20) : (int64_t{8} << 20) + (int64_t{128} << 10);
}

// cublasSetStream resets the handle's workspace to cuBLAS's default pool, shared by every
// stream, so each (handle, stream) pair gets its own buffer, taken once from the caching
// allocator on that stream (stream-ordered) and kept for the pair's life.
void bind_stream(Handle h, int device, cudaStream_t s) {
  int st = cublas().set_stream(h, s);
  if (st != 0) fail(SDK_ERROR_RUNTIME, "cublasSetStream failed with status ", st);
  if (!cublas().set_workspace) return;
  struct Key {
    Handle h;
    cudaStream_t s;
    bool operator==(const Key& o) const { return h == o.h && s == o.s; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<void*>()(k.h) ^ (std::hash<void*>()(k.s) << 1);
    }
  };
  thread_local std::unordered_map<Key, std::pair<void*, int64_t>, KeyHash> spaces;
  auto it = spaces.find(Key{h, s});
  if (it == spaces.end()) {
    const int64_t bytes = workspace_bytes(device);
    it = spaces.emplace(Key{h, s}, std::make_pair(cache_malloc(bytes, device), bytes)).first;
  }
  st = cublas().set_workspace(h, it->second.first, static_cast<size_t>(it->second.second));
  if (st != 0) fail(SDK_ERROR_RUNTIME, "cublasSetWorkspace failed with status ", st);
}

// One product, or all of d's in one strided-batched call (`batched`).
int run_sgemm_dgemm(Handle h, const sdk_cuda_gemm_desc& d, const gemm::Plan& p, bool batched) {
  const int m = static_cast<int>(d.n), n = static_cast<int>(d.m), k = static_cast<int>(d.k);
  const int ldc = static_cast<int>(d.c_rs < 1 ? 1 : d.c_rs);
  const int lda = static_cast<int>(p.a.ld), ldb = static_cast<int>(p.b.ld);
  const int count = static_cast<int>(gemm::batch_of(d));
  // C^T = B^T A^T: the first cuBLAS operand is b, the second a.
  if (d.dtype == SDK_FLOAT32) {
    const float alpha = static_cast<float>(d.alpha), beta = static_cast<float>(d.beta);
    const auto* a = reinterpret_cast<const float*>(d.a);
    const auto* b = reinterpret_cast<const float*>(d.b);
    auto* c = reinterpret_cast<float*>(d.c);
    if (batched) {
      return cublas().sgemm_batched(h, p.b.trans, p.a.trans, m, n, k, &alpha, b, ldb, d.b_bs, a,
                                    lda, d.a_bs, &beta, c, ldc, d.c_bs, count);
    }
    return cublas().sgemm(h, p.b.trans, p.a.trans, m, n, k, &alpha, b, ldb, a, lda, &beta, c, ldc);
  }
  const auto* a = reinterpret_cast<const double*>(d.a);
  const auto* b = reinterpret_cast<const double*>(d.b);
  auto* c = reinterpret_cast<double*>(d.c);
  if (batched) {
    return cublas().dgemm_batched(h, p.b.trans, p.a.trans, m, n, k, &d.alpha, b, ldb, d.b_bs, a,
                                  lda, d.a_bs, &d.beta, c, ldc, d.c_bs, count);
  }
  return cublas().dgemm(h, p.b.trans, p.a.trans, m, n, k, &d.alpha, b, ldb, a, lda, &d.beta, c,
                        ldc);
}

// float16/bfloat16: tensor cores with float accumulation and float alpha/beta; float32
// with TF32 tensor cores when the user allowed them. One product or a strided batch.
int run_gemm_ex(Handle h, const sdk_cuda_gemm_desc& d, const gemm::Plan& p, bool batched) {
  const bool tf32 = p.route == gemm::kGemmExTf32;
  const int type = tf32 ? gemm::kR32F : d.dtype == SDK_FLOAT16 ? gemm::kR16F : gemm::kR16BF;
  const int compute = tf32 ? gemm::kComputeTf32 : gemm::kComputeF32;
  const float alpha = static_cast<float>(d.alpha), beta = static_cast<float>(d.beta);
  const int m = static_cast<int>(d.n), n = static_cast<int>(d.m), k = static_cast<int>(d.k);
  const int ldc = static_cast<int>(d.c_rs < 1 ? 1 : d.c_rs);
  const int lda = static_cast<int>(p.a.ld), ldb = static_cast<int>(p.b.ld);
  if (batched) {
    return cublas().gemm_batched_ex(h, p.b.trans, p.a.trans, m, n, k, &alpha, d.b, type, ldb,
                                    d.b_bs, d.a, type, lda, d.a_bs, &beta, d.c, type, ldc, d.c_bs,
                                    static_cast<int>(gemm::batch_of(d)), compute,
                                    gemm::kAlgoDefault);
  }
  return cublas().gemm_ex(h, p.b.trans, p.a.trans, m, n, k, &alpha, d.b, type, ldb, d.a, type, lda,
                          &beta, d.c, type, ldc, compute, gemm::kAlgoDefault);
}

// Whether this cuBLAS has the strided-batched form of the call d takes (GemmEx when `ex`).
bool has_batched(const sdk_cuda_gemm_desc& d, bool ex) {
  if (ex) return cublas().gemm_batched_ex != nullptr;
  return d.dtype == SDK_FLOAT32 ? cublas().sgemm_batched != nullptr
                                : cublas().dgemm_batched != nullptr;
}

}  // namespace

bool cublas_gemm(const sdk_cuda_gemm_desc& d, cudaStream_t s) {
  const gemm::Plan p = gemm::plan_gemm(d, cublas().ok);
  if (p.route == gemm::kNaive) return false;
  const bool ex = p.route == gemm::kGemmEx16 || p.route == gemm::kGemmExTf32;
  if (ex && !cublas().gemm_ex) return false;
  Handle h = handle_for(d.device);
  bind_stream(h, d.device, s);
  const int64_t count = gemm::batch_of(d);
  const bool one_call = count == 1 || has_batched(d, ex);
  const int64_t isz = d.dtype == SDK_FLOAT64 ? 8 : d.dtype == SDK_FLOAT32 ? 4 : 2;
  for (int64_t i = 0; i < (one_call ? 1 : count); ++i) {
    const sdk_cuda_gemm_desc di = one_call ? d : gemm::product(d, i, isz);
    const bool batched = one_call && count > 1;
    const int st = ex ? run_gemm_ex(h, di, p, batched) : run_sgemm_dgemm(h, di, p, batched);
    if (st != 0) fail(SDK_ERROR_RUNTIME, "cuBLAS gemm failed with status ", st);
  }
  return true;
}

}  // namespace sdk::cuda
