// sdk/th.h: what TH's header (TH/TH.h) gave old CPU code and today's SDK has no spelling for:
// TH's BLAS calls (THFloatBlas_gemm, THDoubleBlas_gemm, THFloatBlas_gemv, THDoubleBlas_gemv),
// column-major as BLAS is, with TH's signatures, computed by the SDK's matmul. The porter
// rewrites THArgCheck to SDK_CHECK; TH's tensor API has no counterpart.
#ifndef SDK_TH_H_
#define SDK_TH_H_

#include <cstdint>

#include "sdk/error.h"
#include "sdk/tensor.h"

namespace sdk {
namespace detail {

inline bool th_blas_transposed(char trans, const char* fn) {
  SDK_CHECK(
      trans == 'n' || trans == 'N' || trans == 't' || trans == 'T' || trans == 'c' || trans == 'C',
      fn, ": trans must be one of n, t, c; got '", trans, "'");
  return trans != 'n' && trans != 'N';
}

// A column-major rows x cols matrix with leading dimension ld, as the row-major cols x rows
// view of the same memory (its transpose). One column never steps by ld: any ld goes, as in TH.
template <typename T>
Tensor th_blas_view(const T* p, int64_t rows, int64_t cols, int64_t ld, const char* what,
                    const char* fn) {
  SDK_CHECK(cols <= 1 || ld >= (rows > 1 ? rows : 1), fn, ": ", what, " = ", ld,
            " is less than the ", rows, " rows of the matrix");
  const int64_t step = cols <= 1 ? (rows > 1 ? rows : 1) : ld;
  return from_blob(const_cast<T*>(p), {cols, rows}, {step, 1}, CppTypeToScalarType<T>::value);
}

template <typename T>
void th_blas_gemm(const char* fn, char transa, char transb, int64_t m, int64_t n, int64_t k,
                  T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                  int64_t ldc) {
  const bool ta = th_blas_transposed(transa, fn), tb = th_blas_transposed(transb, fn);
  SDK_CHECK(m >= 0 && n >= 0 && k >= 0, fn, ": m, n, k = ", m, ", ", n, ", ", k,
            " must not be negative");
  if (m == 0 || n == 0) return;
  // C = alpha op(A) op(B) + beta C, column-major, is C^T = alpha op(B)^T op(A)^T + beta C^T
  // on the row-major views (which are the transposes)
  Tensor ct = th_blas_view<T>(c, m, n, ldc, "ldc", fn);
  Tensor prod = zeros({n, m}, CppTypeToScalarType<T>::value);
  if (k > 0) {
    Tensor av = th_blas_view<T>(a, ta ? k : m, ta ? m : k, lda, "lda", fn);
    Tensor bv = th_blas_view<T>(b, tb ? n : k, tb ? k : n, ldb, "ldb", fn);
    prod = matmul(tb ? bv.t() : bv, ta ? av.t() : av);
  }
  // beta 0 ignores C's contents (BLAS: they may be uninitialised)
  ct.copy_(beta == T(0) ? prod * alpha : ct * beta + prod * alpha);
}

template <typename T>
void th_blas_gemv(const char* fn, char trans, int64_t m, int64_t n, T alpha, const T* a,
                  int64_t lda, const T* x, int64_t incx, T beta, T* y, int64_t incy) {
  const bool t = th_blas_transposed(trans, fn);
  SDK_CHECK(m >= 0 && n >= 0, fn, ": m, n = ", m, ", ", n, " must not be negative");
  SDK_CHECK(incx > 0 && incy > 0, fn, ": incx = ", incx, " and incy = ", incy, " must be positive");
  const int64_t xs = t ? m : n, ys = t ? n : m;
  if (ys == 0) return;
  const auto dtype = CppTypeToScalarType<T>::value;
  Tensor yv = from_blob(y, {ys}, {incy}, dtype);
  Tensor prod = zeros({ys}, dtype);
  if (xs > 0) {
    Tensor av = th_blas_view<T>(a, m, n, lda, "lda", fn);  // A^T, n x m
    prod = mv(t ? av : av.t(), from_blob(const_cast<T*>(x), {xs}, {incx}, dtype));
  }
  yv.copy_(beta == T(0) ? prod * alpha : yv * beta + prod * alpha);
}

}  // namespace detail
}  // namespace sdk

/*! \brief C = alpha op(A) op(B) + beta C, column-major (TH's). */
inline void THFloatBlas_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                             const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                             float* c, int64_t ldc) {
  sdk::detail::th_blas_gemm("THFloatBlas_gemm", transa, transb, m, n, k, alpha, a, lda, b, ldb,
                            beta, c, ldc);
}
inline void THDoubleBlas_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k,
                              double alpha, const double* a, int64_t lda, const double* b,
                              int64_t ldb, double beta, double* c, int64_t ldc) {
  sdk::detail::th_blas_gemm("THDoubleBlas_gemm", transa, transb, m, n, k, alpha, a, lda, b, ldb,
                            beta, c, ldc);
}
/*! \brief y = alpha op(A) x + beta y, column-major (TH's; positive increments only). */
inline void THFloatBlas_gemv(char trans, int64_t m, int64_t n, float alpha, const float* a,
                             int64_t lda, const float* x, int64_t incx, float beta, float* y,
                             int64_t incy) {
  sdk::detail::th_blas_gemv("THFloatBlas_gemv", trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
inline void THDoubleBlas_gemv(char trans, int64_t m, int64_t n, double alpha, const double* a,
                              int64_t lda, const double* x, int64_t incx, double beta, double* y,
                              int64_t incy) {
  sdk::detail::th_blas_gemv("THDoubleBlas_gemv", trans, m, n, alpha, a, lda, x, incx, beta, y,
                            incy);
}

#endif  // SDK_TH_H_
