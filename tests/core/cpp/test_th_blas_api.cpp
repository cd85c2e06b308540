// test_th_blas_api.cpp: TH's column-major BLAS calls (sdk/th.h, for ported TH-era CPU code)
// against plain loops over the same column-major storage, every transpose case, with leading
// dimensions larger than the rows, beta 0 over garbage and a nonzero beta; exits nonzero on
// any failure.
#include <sdk/th.h>

#include <cmath>
#include <limits>
#include <vector>

#include "expect.h"

namespace {

// element (i, j) of a column-major matrix with leading dimension ld
template <typename T>
T at(const std::vector<T>& v, int64_t i, int64_t j, int64_t ld) {
  return v[static_cast<size_t>(i + j * ld)];
}

template <typename T>
std::vector<T> filled(size_t n, T scale) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(std::sin(0.7 * double(i) + 0.3)) * scale;
  return v;
}

template <typename T, typename F>
void gemm_cases(F gemm, double tol) {
  const int64_t m = 5, n = 4, k = 3;
  for (char ta : {'n', 't'}) {
    for (char tb : {'n', 'T'}) {
      for (T beta : {T(0), T(0.5)}) {
        const bool at_ = ta != 'n', bt = tb != 'n' && tb != 'N';
        const int64_t lda = (at_ ? k : m) + 2, ldb = (bt ? n : k) + 1, ldc = m + 3;
        auto a = filled<T>(size_t(lda * (at_ ? m : k)), T(1));
        auto b = filled<T>(size_t(ldb * (bt ? k : n)), T(2));
        auto c = filled<T>(size_t(ldc * n), T(3));
        if (beta == T(0)) c.assign(c.size(), std::numeric_limits<T>::quiet_NaN());
        auto want = c;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p) {
              const double x = at_ ? at(a, p, i, lda) : at(a, i, p, lda);
              const double y = bt ? at(b, j, p, ldb) : at(b, p, j, ldb);
              s += x * y;
            }
            const double old = beta == T(0) ? 0.0 : double(beta) * at(c, i, j, ldc);
            want[size_t(i + j * ldc)] = static_cast<T>(1.5 * s + old);
          }
        }
        gemm(ta, tb, m, n, k, T(1.5), a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
        bool ok = true;
        for (size_t i = 0; i < c.size(); ++i) {
          ok = ok && (std::isnan(double(want[i])) ? std::isnan(double(c[i]))
                                                  : std::fabs(double(c[i] - want[i])) <= tol);
        }
        EXPECT(ok);  // rows past m (padding of ldc) untouched: NaN stays NaN there
      }
    }
  }
}

void gemv_cases() {
  const int64_t m = 4, n = 3, lda = 6;
  auto a = filled<double>(size_t(lda * n), 1.0);
  for (char t : {'n', 't'}) {
    const int64_t xs = t == 'n' ? n : m, ys = t == 'n' ? m : n;
    auto x = filled<double>(size_t(2 * xs), 2.0);  // incx 2
    auto y = filled<double>(size_t(ys), 3.0);
    auto want = y;
    for (int64_t i = 0; i < ys; ++i) {
      double s = 0;
      for (int64_t p = 0; p < xs; ++p) {
        s += (t == 'n' ? at(a, i, p, lda) : at(a, p, i, lda)) * x[size_t(2 * p)];
      }
      want[size_t(i)] = -2.0 * s + 0.25 * y[size_t(i)];
    }
    THDoubleBlas_gemv(t, m, n, -2.0, a.data(), lda, x.data(), 2, 0.25, y.data(), 1);
    bool ok = true;
    for (int64_t i = 0; i < ys; ++i) ok = ok && std::fabs(y[size_t(i)] - want[size_t(i)]) < 1e-12;
    EXPECT(ok);
  }
}

void bad_arguments() {
  float a[4] = {}, c[4] = {};
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "trans must be one of",
               THFloatBlas_gemm('x', 'n', 2, 2, 2, 1.f, a, 2, a, 2, 0.f, c, 2));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "lda = 1 is less than the 2 rows",
               THFloatBlas_gemm('n', 'n', 2, 2, 2, 1.f, a, 1, a, 2, 0.f, c, 2));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "must be positive",
               THFloatBlas_gemv('n', 2, 2, 1.f, a, 2, a, 0, 0.f, c, 1));
}

}  // namespace

int main() {
  gemm_cases<float>(
      [](char ta, char tb, int64_t m, int64_t n, int64_t k, float al, const float* a, int64_t lda,
         const float* b, int64_t ldb, float be, float* c,
         int64_t ldc) { THFloatBlas_gemm(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc); },
      1e-4);
  gemm_cases<double>(
      [](char ta, char tb, int64_t m, int64_t n, int64_t k, double al, const double* a, int64_t lda,
         const double* b, int64_t ldb, double be, double* c,
         int64_t ldc) { THDoubleBlas_gemm(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc); },
      1e-12);
  gemv_cases();
  bad_arguments();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures != 0;
}
