// core/src/cuda/backend/gemm_plan.h: which cuBLAS call (if any) does a matmul, and how
// cuBLAS (column-major) sees the row-major operands. Plain C++: blas.cpp and the host-memory
// test backend both use it, so tests see the GPU build's choice.
#pragma once

#include <stdint.h>

#include "../backend_api.h"

namespace sdk::cuda::gemm {

enum Route {
  kNaive = 0,       // the backend's own kernel (no cuBLAS, or a layout cuBLAS cannot take)
  kSgemmD = 1,      // cublasSgemm / cublasDgemm (float32 / float64)
  kGemmEx16 = 2,    // cublasGemmEx, float16/bfloat16 in and out, float accumulation
  kGemmExTf32 = 3,  // cublasGemmEx, float32 with TF32 tensor cores (allow_tf32 only)
};

// cublasComputeType_t and cudaDataType_t values (from the cuBLAS / CUDA headers).
constexpr int kComputeF32 = 68;   // CUBLAS_COMPUTE_32F
constexpr int kComputeTf32 = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kR32F = 0;          // CUDA_R_32F
constexpr int kR16F = 2;          // CUDA_R_16F
constexpr int kR16BF = 14;        // CUDA_R_16BF
constexpr int kAlgoDefault = -1;  // CUBLAS_GEMM_DEFAULT

struct Layout {
  bool ok;
  int trans;  // 0: N, 1: T
  int64_t ld;
};

// X is r x c with element strides (rs, cs). Column-major cuBLAS sees a row-major matrix's
// memory as its transpose, so row-major X is "X^T stored column-major" (trans 0 in the
// swapped product C^T = B^T A^T) and column-major X needs trans 1.
inline Layout layout_of(int64_t r, int64_t c, int64_t rs, int64_t cs) {
  if (c == 1) cs = 1;
  if (r == 1) rs = c > 1 ? c : 1;
  if (cs == 1 && rs >= (c > 1 ? c : 1)) return {true, 0, rs};
  if (rs == 1 && cs >= (r > 1 ? r : 1)) return {true, 1, cs};
  return {false, 0, 0};
}

inline bool fits_int(int64_t v) { return v >= 0 && v <= 0x7fffffff; }

// How many products d asks for (batch 0 and 1 both mean one).
inline int64_t batch_of(const sdk_cuda_gemm_desc& d) { return d.batch > 1 ? d.batch : 1; }

// Product i of d alone, as a one-product desc (`isz`: bytes per element).
inline sdk_cuda_gemm_desc product(const sdk_cuda_gemm_desc& d, int64_t i, int64_t isz) {
  sdk_cuda_gemm_desc one = d;
  one.a += i * d.a_bs * isz;
  one.b += i * d.b_bs * isz;
  one.c += i * d.c_bs * isz;
  one.batch = 1;
  return one;
}

struct Plan {
  int route;
  Layout a, b;
};

// The route for d when cuBLAS is (`have_cublas`) or is not loaded.
inline Plan plan_gemm(const sdk_cuda_gemm_desc& d, bool have_cublas) {
  Plan p{kNaive, {false, 0, 0}, {false, 0, 0}};
  const bool half = d.dtype == SDK_FLOAT16 || d.dtype == SDK_BFLOAT16;
  if (!half && d.dtype != SDK_FLOAT32 && d.dtype != SDK_FLOAT64) return p;
  if (d.m == 0 || d.n == 0 || d.k == 0 || !have_cublas) return p;  // kernel: beta-only work
  // C must be row-major for the swapped product: C^T (n x m, col-major, ld c_rs).
  if (!(d.c_cs == 1 || d.n == 1) || d.c_rs < d.n) return p;
  p.a = layout_of(d.m, d.k, d.a_rs, d.a_cs);
  p.b = layout_of(d.k, d.n, d.b_rs, d.b_cs);
  if (!p.a.ok || !p.b.ok) return p;
  if (!fits_int(d.m) || !fits_int(d.n) || !fits_int(d.k) || !fits_int(p.a.ld) ||
      !fits_int(p.b.ld) || !fits_int(d.c_rs) || !fits_int(batch_of(d))) {
    return p;
  }
  // batches: cuBLAS takes nonnegative strides, and the outputs must not overlap
  if (batch_of(d) > 1 && (d.a_bs < 0 || d.b_bs < 0 || d.c_bs < (d.m - 1) * d.c_rs + d.n)) return p;
  p.route = half ? kGemmEx16 : (d.dtype == SDK_FLOAT32 && d.allow_tf32 ? kGemmExTf32 : kSgemmD);
  return p;
}

}  // namespace sdk::cuda::gemm
