// core/src/blas.h: row-major GEMM/GEMV/DOT for float32/float64 over a lazily loaded OpenBLAS.
#pragma once

#include <cstdint>

#include "tensor_impl.h"

namespace sdk::detail::blas {

// All matrices are row-major with leading dimensions in elements; `ta`/`tb`
// mean the stored matrix is the transpose of the operand. dtype is
// SDK_FLOAT32 or SDK_FLOAT64. The library is loaded on first use; failure to
// load throws SDK_ERROR_RUNTIME naming the paths tried. Sizes must fit int32
// (SDK_ERROR_VALUE otherwise).

// C (m x n) = alpha * op(A) (m x k) @ op(B) (k x n) + beta * C.
void gemm(sdk_dtype dtype, bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha,
          const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c,
          int64_t ldc);

// y = alpha * op(A) @ x + beta * y, A stored as rows x cols; op = transpose when `ta`.
void gemv(sdk_dtype dtype, bool ta, int64_t rows, int64_t cols, double alpha, const void* a,
          int64_t lda, const void* x, int64_t incx, double beta, void* y, int64_t incy);

// sum_i x[i] * y[i] (accumulated by the BLAS in the element type).
double dot(sdk_dtype dtype, int64_t n, const void* x, int64_t incx, const void* y, int64_t incy);

// The BLAS's thread count now (loads the library; throws as gemm does when it cannot).
int threads();

// True when the BLAS hands its parallel work to the core's pool (its threading hook exists).
bool on_pool();

// True when the BLAS library is (or can be) loaded; never throws.
bool available();

}  // namespace sdk::detail::blas
