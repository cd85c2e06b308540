// sdk/linalg.h: linear algebra with torch's names and arguments: cross / linalg_cross and
// cdist composed from elementwise ops (any device), and inverse, det, cholesky and
// triangular_solve over batches of float32/float64 matrices, computed on the CPU in float64
// (Gauss-Jordan and LU with partial pivoting, Cholesky-Banachiewicz, substitution).
#ifndef SDK_LINALG_H_
#define SDK_LINALG_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
namespace detail {

inline void check_linalg_input(const Tensor& A, const char* op, const char* name) {
  SDK_CHECK_TYPE(A.scalar_type() == kFloat || A.scalar_type() == kDouble, op, ": expected ", name,
                 " to be a float32 or float64 tensor, got ", A.scalar_type());
  SDK_CHECK_NOT_IMPLEMENTED(A.is_cpu(), op, ": runs on the CPU only, but ", name, " is on ",
                            A.device(), "; move it with .cpu()");
  SDK_CHECK_VALUE(A.dim() >= 2, op, ": ", name, " must have at least 2 dimensions, got size ",
                  A.sizes());
}

// A float64 contiguous copy (never `A` itself: the caller writes to it) of a batch of square
// matrices (..., n, n).
inline Tensor square_batch(const Tensor& A, const char* op) {
  check_linalg_input(A, op, "A");
  SDK_CHECK_VALUE(A.size(-1) == A.size(-2), op,
                  ": A must be batches of square matrices, but they are ", A.size(-2), " by ",
                  A.size(-1), " matrices");
  return A.to(kDouble, false, true).contiguous();
}

inline int64_t batch_count(const Tensor& a) {
  const int64_t rows = a.size(-2) * a.size(-1);
  return rows ? a.numel() / rows : 0;
}

// Where in a batch a failing matrix is, for the error message.
inline std::string batch_where(const Tensor& a, int64_t b) {
  return a.dim() > 2 ? concat("(Batch element ", b, "): ") : std::string();
}

inline std::vector<int64_t> broadcast_batch(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    SDK_CHECK_VALUE(x == y || x == 1 || y == 1, op, ": the batch dimensions ", a, " and ", b,
                    " do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

}  // namespace detail

/*! \brief The cross product along dim (default -1) of inputs broadcast together; that dim
 *  must have 3 elements. */
inline Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim = -1) {
  SDK_CHECK_VALUE(self.dim() == other.dim(),
                  "linalg.cross: inputs must have the same number of dimensions, got ",
                  self.sizes(), " and ", other.sizes());
  std::vector<Tensor> ab = broadcast_tensors({self, other});
  const Tensor &a = ab[0], &b = ab[1];
  const int64_t n = a.dim(), d = dim < 0 ? dim + n : dim;
  SDK_CHECK_INDEX(d >= 0 && d < n, "linalg.cross: dim ", dim, " out of range for a ", n,
                  "-d tensor");
  SDK_CHECK_VALUE(a.size(d) == 3, "linalg.cross: inputs dimension ", dim,
                  " must have length 3. Got ", self.size(d), " and ", other.size(d));
  Tensor a0 = a.select(d, 0), a1 = a.select(d, 1), a2 = a.select(d, 2);
  Tensor b0 = b.select(d, 0), b1 = b.select(d, 1), b2 = b.select(d, 2);
  return stack({a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0}, d);
}
/*! \brief at::cross: linalg_cross along dim, or (deprecated in torch) along the first dim
 *  of size 3 when dim is not given. */
inline Tensor cross(const Tensor& self, const Tensor& other,
                    std::optional<int64_t> dim = std::nullopt) {
  if (!dim) {
    for (int64_t d = 0; d < self.dim() && !dim; ++d) {
      if (self.size(d) == 3) dim = d;
    }
    SDK_CHECK_VALUE(dim.has_value(), "cross: no dimension of size 3 in input of size ",
                    self.sizes());
  }
  return linalg_cross(self, other, *dim);
}

/*! \brief p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R),
 *  batch dims broadcast. compute_mode is accepted and ignored (always the direct sum). */
inline Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0,
                    std::optional<int64_t> compute_mode = std::nullopt) {
  (void)compute_mode;
  SDK_CHECK_VALUE(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(),
                  "D");
  SDK_CHECK_VALUE(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(),
                  "D");
  SDK_CHECK_VALUE(x1.size(-1) == x2.size(-1),
                  "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
                  " X2: ", x2.size(-1));
  SDK_CHECK_TYPE(x1.is_floating_point() && x2.is_floating_point(),
                 "cdist only supports floating-point dtypes, X1 got: ", x1.scalar_type(),
                 ", X2 got: ", x2.scalar_type());
  SDK_CHECK_VALUE(p >= 0, "cdist only supports non-negative p values, got ", p);
  Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  return norm(diff, std::optional<Scalar>(p), {-1});
}

/*! \brief The inverse of each square matrix (..., n, n); throws for a singular one. */
inline Tensor inverse(const Tensor& self) {
  Tensor a = detail::square_batch(self, "linalg.inv");
  const int64_t n = a.size(-1), batches = detail::batch_count(a);
  Tensor inv = zeros(a.sizes(), kDouble);
  double* base = a.data_ptr<double>();
  double* out = inv.data_ptr<double>();
  for (int64_t b = 0; b < batches; ++b) {
    double* m = base + b * n * n;
    double* r = out + b * n * n;
    for (int64_t i = 0; i < n; ++i) r[i * n + i] = 1;
    for (int64_t c = 0; c < n; ++c) {
      int64_t piv = c;
      for (int64_t i = c + 1; i < n; ++i) {
        if (std::fabs(m[i * n + c]) > std::fabs(m[piv * n + c])) piv = i;
      }
      if (m[piv * n + c] == 0) {
        detail::throw_error(
            SDK_ERROR_RUNTIME,
            detail::concat("linalg.inv: ", detail::batch_where(a, b), "The diagonal element ",
                           c + 1,
                           " is zero, the inversion could not be completed because the "
                           "input matrix is singular."));
      }
      if (piv != c) {
        for (int64_t j = 0; j < n; ++j) {
          std::swap(m[piv * n + j], m[c * n + j]);
          std::swap(r[piv * n + j], r[c * n + j]);
        }
      }
      const double s = 1.0 / m[c * n + c];
      for (int64_t j = 0; j < n; ++j) {
        m[c * n + j] *= s;
        r[c * n + j] *= s;
      }
      for (int64_t i = 0; i < n; ++i) {
        const double f = m[i * n + c];
        if (i == c || f == 0) continue;
        for (int64_t j = 0; j < n; ++j) {
          m[i * n + j] -= f * m[c * n + j];
          r[i * n + j] -= f * r[c * n + j];
        }
      }
    }
  }
  return inv.to(self.scalar_type());
}
inline Tensor linalg_inv(const Tensor& A) { return inverse(A); }

/*! \brief The determinant of each square matrix (..., n, n): shape (...). */
inline Tensor det(const Tensor& self) {
  Tensor a = detail::square_batch(self, "linalg.det");
  const int64_t n = a.size(-1), batches = detail::batch_count(a);
  std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end() - 2);
  Tensor out = empty(shape, kDouble);
  double* base = a.data_ptr<double>();
  double* res = out.data_ptr<double>();
  for (int64_t b = 0; b < (n ? batches : out.numel()); ++b) {
    double* m = base + b * n * n;
    double d = 1;
    for (int64_t c = 0; c < n && d != 0; ++c) {
      int64_t piv = c;
      for (int64_t i = c + 1; i < n; ++i) {
        if (std::fabs(m[i * n + c]) > std::fabs(m[piv * n + c])) piv = i;
      }
      if (m[piv * n + c] == 0) {
        d = 0;
        break;
      }
      if (piv != c) {
        for (int64_t j = 0; j < n; ++j) std::swap(m[piv * n + j], m[c * n + j]);
        d = -d;
      }
      d *= m[c * n + c];
      for (int64_t i = c + 1; i < n; ++i) {
        const double f = m[i * n + c] / m[c * n + c];
        for (int64_t j = c; j < n; ++j) m[i * n + j] -= f * m[c * n + j];
      }
    }
    res[b] = d;
  }
  return out.to(self.scalar_type());
}
inline Tensor linalg_det(const Tensor& A) { return det(A); }

/*! \brief The Cholesky factor L (A = L L^T) of each symmetric positive-definite matrix,
 *  read from its lower triangle; upper gives U = L^T, read from the upper triangle. */
inline Tensor cholesky(const Tensor& self, bool upper = false) {
  Tensor a = detail::square_batch(upper ? self.mT() : self, "cholesky");
  const int64_t n = a.size(-1), batches = detail::batch_count(a);
  Tensor l = zeros(a.sizes(), kDouble);
  const double* base = a.data_ptr<double>();
  double* out = l.data_ptr<double>();
  for (int64_t b = 0; b < batches; ++b) {
    const double* m = base + b * n * n;
    double* L = out + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      double s = m[j * n + j];
      for (int64_t k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
      if (!(s > 0)) {
        detail::throw_error(
            SDK_ERROR_RUNTIME,
            detail::concat("cholesky: ", detail::batch_where(a, b),
                           "The factorization could not be completed because the input is not "
                           "positive-definite (the leading minor of order ",
                           j + 1, " is not positive-definite)."));
      }
      L[j * n + j] = std::sqrt(s);
      for (int64_t i = j + 1; i < n; ++i) {
        double t = m[i * n + j];
        for (int64_t k = 0; k < j; ++k) t -= L[i * n + k] * L[j * n + k];
        L[i * n + j] = t / L[j * n + j];
      }
    }
  }
  Tensor r = l.to(self.scalar_type());
  return upper ? r.mT().contiguous() : r;
}

/*! \brief (solution X, cloned_coefficient) of A X = b (A^T X = b with transpose) for the
 *  triangular A (*, n, n) (its upper triangle, or the lower one), b (*, n, k), batch dims
 *  broadcast; unitriangular takes A's diagonal as ones. */
inline std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A,
                                                   bool upper = true, bool transpose = false,
                                                   bool unitriangular = false) {
  const char* op = "triangular_solve";
  detail::check_linalg_input(self, op, "b");
  detail::check_linalg_input(A, op, "A");
  SDK_CHECK_TYPE(self.scalar_type() == A.scalar_type(), op,
                 ": Expected b and A to have the same dtype, but found b of type ",
                 self.scalar_type(), " and A of type ", A.scalar_type(), " instead.");
  SDK_CHECK_VALUE(A.size(-1) == A.size(-2), op,
                  ": A must be batches of square matrices, but they are ", A.size(-2), " by ",
                  A.size(-1), " matrices");
  SDK_CHECK_VALUE(A.size(-1) == self.size(-2), op, ": Incompatible matrix sizes for A (",
                  A.size(-2), " by ", A.size(-1), ") and b (", self.size(-2), " by ", self.size(-1),
                  ")");
  std::vector<int64_t> batch =
      detail::broadcast_batch(IntArrayRef(A.sizes().data(), A.sizes().size() - 2),
                              IntArrayRef(self.sizes().data(), self.sizes().size() - 2), op);
  const int64_t n = A.size(-1), k = self.size(-1);
  std::vector<int64_t> a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {n, k});
  Tensor Ab = A.expand(a_shape), bb = self.expand(b_shape);
  Tensor m = (transpose ? Ab.mT() : Ab).to(kDouble, false, true).contiguous();
  Tensor x = bb.to(kDouble, false, true).contiguous();
  const bool up = upper != transpose;  // the triangle of the matrix actually solved with
  const int64_t batches = detail::batch_count(m);
  const double* mb = m.data_ptr<double>();
  double* xb = x.data_ptr<double>();
  for (int64_t b = 0; b < batches; ++b) {
    const double* M = mb + b * n * n;
    double* X = xb + b * n * k;
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = up ? n - 1 - step : step;
      const int64_t lo = up ? i + 1 : 0, hi = up ? n : i;
      for (int64_t c = 0; c < k; ++c) {
        double s = X[i * k + c];
        for (int64_t j = lo; j < hi; ++j) s -= M[i * n + j] * X[j * k + c];
        X[i * k + c] = unitriangular ? s : s / M[i * n + i];
      }
    }
  }
  return std::make_tuple(x.to(self.scalar_type()), Ab.clone());
}

// ---- method bodies ---------------------------------------------------------------------
inline Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return sdk::cross(*this, other, dim);
}
inline Tensor Tensor::inverse() const { return sdk::inverse(*this); }
inline Tensor Tensor::det() const { return sdk::det(*this); }
inline Tensor Tensor::cholesky(bool upper) const { return sdk::cholesky(*this, upper); }
inline std::tuple<Tensor, Tensor> Tensor::triangular_solve(const Tensor& A, bool upper,
                                                           bool transpose,
                                                           bool unitriangular) const {
  return sdk::triangular_solve(*this, A, upper, transpose, unitriangular);
}

}  // namespace sdk

#endif  // SDK_LINALG_H_
