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

#include "common.h"

namespace sdk::cuda {
namespace {

using Handle = void*;
using CreateFn = int (*)(Handle*);
using SetStreamFn = int (*)(Handle, cudaStream_t);
// cublasStatus_t cublas<t>gemm_v2(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb,
//                                  beta, C, ldc); operations: 0 = N, 1 = T.
using SgemmFn = int (*)(Handle, int, int, int, int, int, const float*, const float*, int,
                        const float*, int, const float*, float*, int);
using DgemmFn = int (*)(Handle, int, int, int, int, int, const double*, const double*, int,
                        const double*, int, const double*, double*, int);

struct Cublas {
  bool ok = false;
  CreateFn create = nullptr;
  SetStreamFn set_stream = nullptr;
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
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
  c.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cublasSgemm_v2"));
  c.dgemm = reinterpret_cast<DgemmFn>(dlsym(lib, "cublasDgemm_v2"));
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

// How cuBLAS (column-major) sees a row-major-indexed matrix with element strides
// (rs, cs): op 'N' when rows are contiguous in memory... see gemm below.
struct Layout {
  bool ok;
  int trans;  // 0: N, 1: T
  int64_t ld;
};

// X is r x c with strides (rs, cs). Column-major cuBLAS sees memory of a row-major matrix
// as its transpose, so row-major X is "X^T stored column-major" (trans = 0 in the
// swapped product below) and column-major X needs trans = 1.
Layout layout_of(int64_t r, int64_t c, int64_t rs, int64_t cs) {
  if (c == 1) cs = 1;
  if (r == 1) rs = c > 1 ? c : 1;
  if (cs == 1 && rs >= (c > 1 ? c : 1)) return {true, 0, rs};
  if (rs == 1 && cs >= (r > 1 ? r : 1)) return {true, 1, cs};
  return {false, 0, 0};
}

bool fits_int(int64_t v) { return v >= 0 && v <= 0x7fffffff; }

}  // namespace

bool cublas_gemm(const sdk_cuda_gemm_desc& d, cudaStream_t s) {
  if (d.dtype != SDK_FLOAT32 && d.dtype != SDK_FLOAT64) return false;
  if (d.m == 0 || d.n == 0 || d.k == 0) return false;  // the kernel handles beta-only work
  if (!cublas().ok) return false;
  // C must be row-major for the swapped product: C^T (n x m, col-major, ld c_rs).
  if (!(d.c_cs == 1 || d.n == 1) || d.c_rs < d.n) return false;
  Layout la = layout_of(d.m, d.k, d.a_rs, d.a_cs);
  Layout lb = layout_of(d.k, d.n, d.b_rs, d.b_cs);
  if (!la.ok || !lb.ok) return false;
  if (!fits_int(d.m) || !fits_int(d.n) || !fits_int(d.k) || !fits_int(la.ld) || !fits_int(lb.ld) ||
      !fits_int(d.c_rs)) {
    return false;
  }
  Handle h = handle_for(d.device);
  int st = cublas().set_stream(h, s);
  if (st != 0) fail(SDK_ERROR_RUNTIME, "cublasSetStream failed with status ", st);
  int m = static_cast<int>(d.n), n = static_cast<int>(d.m), k = static_cast<int>(d.k);
  int ldc = static_cast<int>(d.c_rs < 1 ? 1 : d.c_rs);
  // C^T = B^T A^T: the first cuBLAS operand is b, the second a.
  if (d.dtype == SDK_FLOAT32) {
    float alpha = static_cast<float>(d.alpha), beta = static_cast<float>(d.beta);
    st = cublas().sgemm(h, lb.trans, la.trans, m, n, k, &alpha, reinterpret_cast<const float*>(d.b),
                        static_cast<int>(lb.ld), reinterpret_cast<const float*>(d.a),
                        static_cast<int>(la.ld), &beta, reinterpret_cast<float*>(d.c), ldc);
  } else {
    st = cublas().dgemm(h, lb.trans, la.trans, m, n, k, &d.alpha,
                        reinterpret_cast<const double*>(d.b), static_cast<int>(lb.ld),
                        reinterpret_cast<const double*>(d.a), static_cast<int>(la.ld), &d.beta,
                        reinterpret_cast<double*>(d.c), ldc);
  }
  if (st != 0) fail(SDK_ERROR_RUNTIME, "cuBLAS gemm failed with status ", st);
  return true;
}

}  // namespace sdk::cuda
