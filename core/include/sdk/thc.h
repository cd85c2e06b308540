// sdk/thc.h: what the THC headers (THC/THC.h, THC/THCGeneral.h, THC/THCDeviceUtils.cuh) gave
// old CUDA extensions and today's SDK has no spelling for: the THCState type and THC's cuBLAS
// wrappers (THCudaBlas_Sgemm, Dgemm, Sgemv, Dgemv, SgemmBatched, DgemmBatched), with THC's
// signatures. It brings what the rest of THC became, which the porter rewrites calls to:
// THCCeilDiv -> sdk::ceil_div, THCudaMalloc / THCudaFree -> the caching allocator's
// raw_alloc / raw_delete, THCState_getCurrentStream -> getCurrentCUDAStream, THCudaCheck ->
// SDK_CUDA_CHECK, the warp helpers of THCDeviceUtils.cuh (sdk/cuda_warp.h), and THCNumerics
// with ScalarConvert (sdk/thc_numerics.h).
//
// The SDK keeps no THC state: a THCState* is never dereferenced, so the porter makes the
// `THCState *state = at::globalContext().lazyInitCUDA();` of old code a null pointer, and the
// functions here ignore theirs. cuBLAS calls run on the current stream's handle
// (getCurrentCUDABlasHandle); a program that calls them links cublas.
#ifndef SDK_THC_H_
#define SDK_THC_H_

#include <cstdint>
#include <limits>

#include "sdk/cuda.h"
#include "sdk/cuda_warp.h"
#include "sdk/thc_numerics.h"
#include "sdk/util.h"

/*! \brief THC's library state: a stand-in type, only ever a (null) pointer. */
struct THCState;

#if __has_include(<cublas_v2.h>)

namespace sdk {
namespace cuda {
namespace detail {

// THC took BLAS's characters for the operation on a matrix.
inline cublasOperation_t thc_blas_op(char trans, const char* fn) {
  switch (trans) {
    case 'n':
    case 'N':
      return CUBLAS_OP_N;
    case 't':
    case 'T':
      return CUBLAS_OP_T;
    case 'c':
    case 'C':
      return CUBLAS_OP_C;
    default:
      ::sdk::detail::throw_error(
          SDK_ERROR_VALUE,
          ::sdk::detail::concat(fn, ": trans must be one of n, t, c; got '", trans, "'"));
  }
}

// cuBLAS takes int sizes; THC took int64_t ones and refused what int cannot hold.
inline int thc_blas_int(int64_t v, const char* what, const char* fn) {
  SDK_CHECK(v >= 0 && v <= std::numeric_limits<int>::max(), fn, ": ", what, " = ", v,
            " is not in [0, ", std::numeric_limits<int>::max(), "]");
  return static_cast<int>(v);
}

// A column-major matrix with one column (or none) never steps by its leading dimension, but
// cuBLAS still wants it at least the number of rows: THC raised it to that, so callers pass any.
inline int64_t thc_blas_ld(int64_t ld, int64_t rows, int64_t cols) {
  return cols <= 1 ? (rows > 1 ? rows : 1) : ld;
}

inline bool thc_blas_transposed(char trans) { return trans != 'n' && trans != 'N'; }

struct ThcGemmShape {
  cublasOperation_t opa, opb;
  int m, n, k, lda, ldb, ldc;
};

inline ThcGemmShape thc_gemm_shape(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                   int64_t lda, int64_t ldb, int64_t ldc, const char* fn) {
  const bool ta = thc_blas_transposed(transa), tb = thc_blas_transposed(transb);
  ThcGemmShape s{thc_blas_op(transa, fn), thc_blas_op(transb, fn), 0, 0, 0, 0, 0, 0};
  s.m = thc_blas_int(m, "m", fn);
  s.n = thc_blas_int(n, "n", fn);
  s.k = thc_blas_int(k, "k", fn);
  s.lda = thc_blas_int(thc_blas_ld(lda, ta ? k : m, ta ? m : k), "lda", fn);
  s.ldb = thc_blas_int(thc_blas_ld(ldb, tb ? n : k, tb ? k : n), "ldb", fn);
  s.ldc = thc_blas_int(thc_blas_ld(ldc, m, n), "ldc", fn);
  return s;
}

inline cublasStatus_t thc_gemm(cublasHandle_t h, const ThcGemmShape& s, const float* alpha,
                               const float* a, const float* b, const float* beta, float* c) {
  return cublasSgemm(h, s.opa, s.opb, s.m, s.n, s.k, alpha, a, s.lda, b, s.ldb, beta, c, s.ldc);
}
inline cublasStatus_t thc_gemm(cublasHandle_t h, const ThcGemmShape& s, const double* alpha,
                               const double* a, const double* b, const double* beta, double* c) {
  return cublasDgemm(h, s.opa, s.opb, s.m, s.n, s.k, alpha, a, s.lda, b, s.ldb, beta, c, s.ldc);
}
inline cublasStatus_t thc_gemm_batched(cublasHandle_t h, const ThcGemmShape& s, const float* alpha,
                                       const float* const a[], const float* const b[],
                                       const float* beta, float* const c[], int batch) {
  return cublasSgemmBatched(h, s.opa, s.opb, s.m, s.n, s.k, alpha, a, s.lda, b, s.ldb, beta, c,
                            s.ldc, batch);
}
inline cublasStatus_t thc_gemm_batched(cublasHandle_t h, const ThcGemmShape& s, const double* alpha,
                                       const double* const a[], const double* const b[],
                                       const double* beta, double* const c[], int batch) {
  return cublasDgemmBatched(h, s.opa, s.opb, s.m, s.n, s.k, alpha, a, s.lda, b, s.ldb, beta, c,
                            s.ldc, batch);
}
inline cublasStatus_t thc_gemv(cublasHandle_t h, cublasOperation_t op, int m, int n,
                               const float* alpha, const float* a, int lda, const float* x,
                               int incx, const float* beta, float* y, int incy) {
  return cublasSgemv(h, op, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
inline cublasStatus_t thc_gemv(cublasHandle_t h, cublasOperation_t op, int m, int n,
                               const double* alpha, const double* a, int lda, const double* x,
                               int incx, const double* beta, double* y, int incy) {
  return cublasDgemv(h, op, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

template <typename T>
void thc_blas_gemm(const char* fn, char transa, char transb, int64_t m, int64_t n, int64_t k,
                   T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                   int64_t ldc) {
  const ThcGemmShape s = thc_gemm_shape(transa, transb, m, n, k, lda, ldb, ldc, fn);
  SDK_CUDABLAS_CHECK(thc_gemm(getCurrentCUDABlasHandle(), s, &alpha, a, b, &beta, c));
}

template <typename T>
void thc_blas_gemm_batched(const char* fn, char transa, char transb, int64_t m, int64_t n,
                           int64_t k, T alpha, const T* a[], int64_t lda, const T* b[], int64_t ldb,
                           T beta, T* c[], int64_t ldc, int64_t batchCount) {
  const ThcGemmShape s = thc_gemm_shape(transa, transb, m, n, k, lda, ldb, ldc, fn);
  const int batch = thc_blas_int(batchCount, "batchCount", fn);
  SDK_CUDABLAS_CHECK(
      thc_gemm_batched(getCurrentCUDABlasHandle(), s, &alpha, a, b, &beta, c, batch));
}

template <typename T>
void thc_blas_gemv(const char* fn, char trans, int64_t m, int64_t n, T alpha, const T* a,
                   int64_t lda, const T* x, int64_t incx, T beta, T* y, int64_t incy) {
  const cublasOperation_t op = thc_blas_op(trans, fn);
  const int im = thc_blas_int(m, "m", fn), in = thc_blas_int(n, "n", fn);
  const int ilda = thc_blas_int(thc_blas_ld(lda, m, n), "lda", fn);
  SDK_CHECK(incx != 0 && incy != 0, fn, ": incx and incy must not be 0");
  const int ix = thc_blas_int(incx < 0 ? -incx : incx, "|incx|", fn) * (incx < 0 ? -1 : 1);
  const int iy = thc_blas_int(incy < 0 ? -incy : incy, "|incy|", fn) * (incy < 0 ? -1 : 1);
  SDK_CUDABLAS_CHECK(
      thc_gemv(getCurrentCUDABlasHandle(), op, im, in, &alpha, a, ilda, x, ix, &beta, y, iy));
}

}  // namespace detail
}  // namespace cuda
}  // namespace sdk

/*! \brief C = alpha op(A) op(B) + beta C, column-major, on the current stream (THC's). */
inline void THCudaBlas_Sgemm(THCState* /*state*/, char transa, char transb, int64_t m, int64_t n,
                             int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                             int64_t ldb, float beta, float* c, int64_t ldc) {
  sdk::cuda::detail::thc_blas_gemm("THCudaBlas_Sgemm", transa, transb, m, n, k, alpha, a, lda, b,
                                   ldb, beta, c, ldc);
}
inline void THCudaBlas_Dgemm(THCState* /*state*/, char transa, char transb, int64_t m, int64_t n,
                             int64_t k, double alpha, const double* a, int64_t lda, const double* b,
                             int64_t ldb, double beta, double* c, int64_t ldc) {
  sdk::cuda::detail::thc_blas_gemm("THCudaBlas_Dgemm", transa, transb, m, n, k, alpha, a, lda, b,
                                   ldb, beta, c, ldc);
}
/*! \brief Sgemm over arrays of device pointers to batchCount matrices (THC's). */
inline void THCudaBlas_SgemmBatched(THCState* /*state*/, char transa, char transb, int64_t m,
                                    int64_t n, int64_t k, float alpha, const float* a[],
                                    int64_t lda, const float* b[], int64_t ldb, float beta,
                                    float* c[], int64_t ldc, int64_t batchCount) {
  sdk::cuda::detail::thc_blas_gemm_batched("THCudaBlas_SgemmBatched", transa, transb, m, n, k,
                                           alpha, a, lda, b, ldb, beta, c, ldc, batchCount);
}
inline void THCudaBlas_DgemmBatched(THCState* /*state*/, char transa, char transb, int64_t m,
                                    int64_t n, int64_t k, double alpha, const double* a[],
                                    int64_t lda, const double* b[], int64_t ldb, double beta,
                                    double* c[], int64_t ldc, int64_t batchCount) {
  sdk::cuda::detail::thc_blas_gemm_batched("THCudaBlas_DgemmBatched", transa, transb, m, n, k,
                                           alpha, a, lda, b, ldb, beta, c, ldc, batchCount);
}
/*! \brief y = alpha op(A) x + beta y, column-major, on the current stream (THC's). */
inline void THCudaBlas_Sgemv(THCState* /*state*/, char trans, int64_t m, int64_t n, float alpha,
                             const float* a, int64_t lda, const float* x, int64_t incx, float beta,
                             float* y, int64_t incy) {
  sdk::cuda::detail::thc_blas_gemv("THCudaBlas_Sgemv", trans, m, n, alpha, a, lda, x, incx, beta, y,
                                   incy);
}
inline void THCudaBlas_Dgemv(THCState* /*state*/, char trans, int64_t m, int64_t n, double alpha,
                             const double* a, int64_t lda, const double* x, int64_t incx,
                             double beta, double* y, int64_t incy) {
  sdk::cuda::detail::thc_blas_gemv("THCudaBlas_Dgemv", trans, m, n, alpha, a, lda, x, incx, beta, y,
                                   incy);
}

#endif  // __has_include(<cublas_v2.h>)

#endif  // SDK_THC_H_
