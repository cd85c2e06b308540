// sdk/composite_math.h: torch's composite math and creation ops, built from the other ops of
// the C++ API: deg2rad, sinc, logaddexp2, nansum, kron, cov, isin, unique_consecutive,
// tril_indices, range, the window functions, ... Method declarations in
// sdk/tensor_composite_decl.h; the aliases, splits and flips in sdk/composite.h.
#ifndef SDK_COMPOSITE_MATH_H_
#define SDK_COMPOSITE_MATH_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "sdk/composite.h"

namespace sdk {

// ---- small math --------------------------------------------------------------------------
inline Tensor deg2rad(const Tensor& self) {
  return detail::as_floating(self) * (detail::kPi / 180);
}
inline Tensor rad2deg(const Tensor& self) {
  return detail::as_floating(self) * (180 / detail::kPi);
}
/*! \brief Whether the sign bit is set (true for -0.0 and a negative NaN, as std::signbit). */
inline Tensor signbit(const Tensor& self) {
  if (self.scalar_type() == kBool) return zeros_like(self, TensorOptions(kBool));
  if (!self.is_floating_point()) return self.lt(0);
  return ones_like(self).copysign(self).lt(0);
}
/*! \brief sin(pi x) / (pi x), 1 at 0. */
inline Tensor sinc(const Tensor& self) {
  Tensor x = detail::as_floating(self) * detail::kPi;
  return where(x.eq(0), ones_like(x), x.sin() / x);
}
/*! \brief log2(2^self + 2^other) without overflow. */
inline Tensor logaddexp2(const Tensor& self, const Tensor& other) {
  Tensor a = detail::as_floating(self), b = detail::as_floating(other);
  Tensor m = maximum(a, b);
  Tensor r = m + (-(a - b).abs()).exp2().log1p() * (1 / std::log(2.0));
  return where(a.eq(b).logical_and(a.isinf()), a, r);  // equal infinities: a - b is NaN
}
/*! \brief 0 below zero, 1 above, `values` at zero (same dtypes, as torch). */
inline Tensor heaviside(const Tensor& self, const Tensor& values) {
  SDK_CHECK_TYPE(self.scalar_type() == values.scalar_type(),
                 "heaviside is not yet implemented for tensors with different dtypes");
  return where(self.eq(0), values, self.gt(0).to(self.scalar_type()));
}
/*! \brief pow in float64. */
inline Tensor float_power(const Tensor& self, const Tensor& exponent) {
  return self.to(kDouble).pow(exponent.to(kDouble));
}
inline Tensor float_power(const Tensor& self, const Scalar& exponent) {
  return self.to(kDouble).pow(exponent.toDouble());
}
inline Tensor float_power(const Scalar& self, const Tensor& exponent) {
  return full({}, self.toDouble(), TensorOptions(kDouble)).pow(exponent.to(kDouble));
}
/*! \brief self * 2^other, in a float dtype. */
inline Tensor ldexp(const Tensor& self, const Tensor& other) {
  Tensor x = detail::as_floating(self);
  return x * full({}, 2.0, x.options()).pow(other.to(x.scalar_type()));
}
inline Tensor nansum(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false,
                     std::optional<ScalarType> dtype = std::nullopt) {
  Tensor x = self.is_floating_point() ? where(self.isnan(), zeros_like(self), self) : self;
  return dim.empty() && !keepdim ? x.sum(dtype) : x.sum(dim, keepdim, dtype);
}
/*! \brief The mean of the elements that are not NaN (float dtypes, as torch). */
inline Tensor nanmean(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt) {
  SDK_CHECK_TYPE(self.is_floating_point(),
                 "nanmean(): expected input to have floating point or complex dtype but got ",
                 toString(self.scalar_type()));
  Tensor count = self.isnan().logical_not().sum(dim, keepdim);
  return nansum(self, dim, keepdim, dtype) / count;
}
/*! \brief (min, max) over all elements, or along dim. */
inline std::tuple<Tensor, Tensor> aminmax(const Tensor& self,
                                          std::optional<int64_t> dim = std::nullopt,
                                          bool keepdim = false) {
  if (!dim) {
    Tensor flat = self.reshape({-1});
    Tensor lo = flat.amin({0}, false), hi = flat.amax({0}, false);
    if (keepdim) {
      std::vector<int64_t> ones(static_cast<size_t>(self.dim()), 1);
      return std::make_tuple(lo.reshape(ones), hi.reshape(ones));
    }
    return std::make_tuple(lo, hi);
  }
  return std::make_tuple(self.amin({*dim}, keepdim), self.amax({*dim}, keepdim));
}
/*! \brief Sum of the main diagonal of a matrix. */
inline Tensor trace(const Tensor& self) {
  SDK_CHECK_VALUE(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ",
                  self.dim());
  return self.diagonal().sum();
}
/*! \brief Kronecker product (dims of the shorter operand padded with leading 1s). */
inline Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t n = self.dim() > other.dim() ? self.dim() : other.dim();
  std::vector<int64_t> a(static_cast<size_t>(n - self.dim()), 1), b(n - other.dim(), 1);
  a.insert(a.end(), self.sizes().begin(), self.sizes().end());
  b.insert(b.end(), other.sizes().begin(), other.sizes().end());
  std::vector<int64_t> av, bv, out;
  for (int64_t i = 0; i < n; ++i) {
    av.insert(av.end(), {a[i], 1});
    bv.insert(bv.end(), {1, b[i]});
    out.push_back(a[i] * b[i]);
  }
  return (self.reshape(av) * other.reshape(bv)).reshape(out);
}
/*! \brief Sums of products over the last dims (a 0-d operand multiplies). */
inline Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return self * other;
  const int64_t k = self.size(-1);
  SDK_CHECK_VALUE(k == other.size(-1),
                  "inner() the last dimension must match on both input "
                  "tensors but got shapes ",
                  self.sizes(), " and ", other.sizes());
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 1);
  shape.insert(shape.end(), other.sizes().begin(), other.sizes().end() - 1);
  return self.reshape({-1, k}).matmul(other.reshape({-1, k}).t()).reshape(shape);
}
/*! \brief Dot product of two 1-d tensors (real dtypes: no conjugation to do). */
inline Tensor vdot(const Tensor& self, const Tensor& other) { return self.dot(other); }
/*! \brief The p-norm of self - other. */
inline Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2) {
  return (self - other).norm(p);
}
/*! \brief All true: the SDK's dtypes are real. */
inline Tensor isreal(const Tensor& self) { return ones_like(self, TensorOptions(kBool)); }
/*! \brief Whether each element of `elements` occurs in `test_elements` (invert: does not). */
inline Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false,
                   bool invert = false) {
  (void)assume_unique;  // a hint only: the result is the same
  const ScalarType common = promote_types(elements.scalar_type(), test_elements.scalar_type());
  Tensor sorted = std::get<0>(test_elements.reshape({-1}).to(common).sort());
  Tensor x = elements.to(common);
  Tensor hit;
  if (sorted.numel() == 0) {
    hit = zeros_like(elements, TensorOptions(kBool));
  } else {
    Tensor pos = searchsorted(sorted, x).clamp_max(sorted.numel() - 1);
    hit = sorted.index_select(0, pos.reshape({-1})).reshape(x.sizes()).eq(x);
  }
  return invert ? hit.logical_not() : hit;
}
inline Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false,
                   bool invert = false) {
  return isin(elements, full({}, test_element, elements.options()), assume_unique, invert);
}
inline Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false,
                   bool invert = false) {
  return isin(full({}, element, test_elements.options()), test_elements, assume_unique, invert);
}
/*! \brief Covariance of the variables in the rows of `input` (observations in columns), with
 *  optional integer frequency and float observation weights, as torch.cov. */
inline Tensor cov(const Tensor& input, int64_t correction = 1,
                  const std::optional<Tensor>& fweights = {},
                  const std::optional<Tensor>& aweights = {}) {
  SDK_CHECK_VALUE(input.dim() <= 2,
                  "cov(): expected input to have two or fewer dimensions but "
                  "got an input with ",
                  input.dim(), " dimensions");
  Tensor x = detail::as_floating(input.dim() < 2 ? input.reshape({1, -1}) : input);
  const int64_t n = x.size(1);
  std::optional<Tensor> w;
  if (fweights && fweights->defined()) {
    SDK_CHECK_TYPE(!fweights->is_floating_point(),
                   "cov(): expected fweights to have integral "
                   "dtype but got fweights with ",
                   toString(fweights->scalar_type()), " dtype");
    SDK_CHECK_VALUE(fweights->dim() == 1 && fweights->numel() == n,
                    "cov(): expected fweights "
                    "to have one dimension with ",
                    n, " elements");
    SDK_CHECK_VALUE(fweights->ge(0).all().item<bool>(), "cov(): fweights cannot be negative");
    w = fweights->to(x.scalar_type());
  }
  if (aweights && aweights->defined()) {
    SDK_CHECK_TYPE(aweights->is_floating_point(),
                   "cov(): expected aweights to have floating "
                   "point dtype but got aweights with ",
                   toString(aweights->scalar_type()), " dtype");
    SDK_CHECK_VALUE(aweights->dim() == 1 && aweights->numel() == n,
                    "cov(): expected aweights "
                    "to have one dimension with ",
                    n, " elements");
    SDK_CHECK_VALUE(aweights->ge(0).all().item<bool>(), "cov(): aweights cannot be negative");
    w = w ? *w * aweights->to(x.scalar_type()) : aweights->to(x.scalar_type());
  }
  Tensor w_sum = w ? w->sum() : full({}, static_cast<double>(n), x.options());
  Tensor avg = (w ? (x * *w).sum({1}) : x.sum({1})) / w_sum;
  Tensor norm = w_sum;
  if (correction != 0) {
    if (w && aweights && aweights->defined()) {
      norm = w_sum - (*w * aweights->to(x.scalar_type())).sum() / w_sum * double(correction);
    } else {
      norm = w_sum - double(correction);
    }
  }
  norm = norm.clamp_min(0);
  Tensor xm = x - avg.unsqueeze(1);
  Tensor c = (w ? xm * *w : xm).matmul(xm.t()) / norm;
  return input.dim() < 2 ? c.squeeze() : c;
}
/*! \brief Pearson correlation coefficients of the rows (clamped to [-1, 1], as torch). */
inline Tensor corrcoef(const Tensor& self) {
  Tensor c = cov(self);
  if (c.dim() == 0) return c / c;
  Tensor sd = c.diagonal().sqrt();
  return (c / sd.unsqueeze(1) / sd.unsqueeze(0)).clamp(-1, 1);
}
/*! \brief Integral of y along dim by the trapezoidal rule, spacing dx or the sample points x. */
inline Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1) {
  const int64_t d = maybe_wrap_dim(dim, y.dim()), n = y.size(d);
  if (n == 0) return y.sum({d}) * 0;
  return (y.sum({d}) - (y.select(d, 0) + y.select(d, n - 1)) * 0.5) * dx;
}
inline Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1) {
  const int64_t d = maybe_wrap_dim(dim, y.dim()), n = y.size(d);
  if (n == 0) return y.sum({d}) * 0;
  Tensor dx = x.dim() == 1 ? x.diff() : x.diff(1, dim);
  if (x.dim() == 1) {  // 1-d sample points run along dim
    std::vector<int64_t> shape(static_cast<size_t>(y.dim()), 1);
    shape[static_cast<size_t>(d)] = n - 1;
    dx = dx.reshape(shape);
  }
  return ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * dx).sum({d}) * 0.5;
}
inline Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1) {
  return trapezoid(y, x, dim);
}
inline Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1) {
  return trapezoid(y, dx, dim);
}
/*! \brief (output, inverse_indices, counts) of runs of equal elements of the flattened tensor
 *  (torch's default; `dim` is refused, as unique's). */
inline std::tuple<Tensor, Tensor, Tensor> unique_consecutive(
    const Tensor& self, bool return_inverse = false, bool return_counts = false,
    std::optional<int64_t> dim = std::nullopt) {
  SDK_CHECK_NOT_IMPLEMENTED(!dim,
                            "unique_consecutive: dim is not supported (the SDK "
                            "deduplicates the flattened tensor only)");
  Tensor x = self.reshape({-1});
  const int64_t n = x.numel();
  Tensor starts = ones_like(x, TensorOptions(kBool));
  if (n > 1) starts.narrow(0, 1, n - 1).copy_(x.narrow(0, 1, n - 1).ne(x.narrow(0, 0, n - 1)));
  Tensor output = x.masked_select(starts);
  Tensor inverse = return_inverse ? starts.to(kLong).cumsum(0).sub(1).reshape(self.sizes())
                                  : empty({0}, TensorOptions(kLong).device(self.device()));
  Tensor counts = empty({0}, TensorOptions(kLong).device(self.device()));
  if (return_counts) {
    Tensor first = starts.nonzero().reshape({-1});
    counts = cat({first, full({1}, n, first.options())}).diff();
  }
  return std::make_tuple(output, inverse, counts);
}

// ---- creation ----------------------------------------------------------------------------
namespace detail {
inline Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, bool lower,
                               const TensorOptions& options) {
  SDK_CHECK_VALUE(row >= 0 && col >= 0, "row and col must be non-negative, got ", row, " and ",
                  col);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i) {
    for (int64_t j = 0; j < col; ++j) {
      if (lower ? j - i <= offset : j - i >= offset) {
        rows.push_back(i);
        cols.push_back(j);
      }
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  const ScalarType dtype = options.has_dtype() ? options.scalar_type() : kLong;
  return tensor(rows, TensorOptions(kLong)).reshape({2, n}).to(dtype).to(options.device());
}
}  // namespace detail
/*! \brief (2, N) row and column indices of the lower triangle of a row x col matrix. */
inline Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                           const TensorOptions& options = TensorOptions(kLong)) {
  return detail::triangle_indices(row, col, offset, true, options);
}
inline Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                           const TensorOptions& options = TensorOptions(kLong)) {
  return detail::triangle_indices(row, col, offset, false, options);
}
/*! \brief start, start + step, ... up to and including end (torch's deprecated range;
 *  float32 by default). */
inline Tensor range(const Scalar& start, const Scalar& end, const Scalar& step = 1,
                    const TensorOptions& options = {}) {
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  SDK_CHECK_VALUE(st != 0, "range: step must be nonzero");
  SDK_CHECK_VALUE(st > 0 ? e >= s : e <= s,
                  "upper bound and larger bound inconsistent with step sign");
  const int64_t n = static_cast<int64_t>(std::floor((e - s) / st)) + 1;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = s + double(i) * st;
  return detail::host_values(v, options);
}
inline Tensor range(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return range(start, end, 1, options);
}
namespace detail {
// A window of n points from f(i, N): N is n when symmetric, n + 1 when periodic (the last
// point of the symmetric window dropped), as torch's window functions.
template <typename F>
Tensor window(int64_t n, bool periodic, const TensorOptions& options, const char* op, F f) {
  SDK_CHECK_VALUE(n >= 0, op, " requires non-negative window_length, got window_length=", n);
  const ScalarType dtype = options.has_dtype() ? options.scalar_type() : kFloat;
  SDK_CHECK_TYPE(isFloatingType(dtype), op,
                 " expects floating point dtypes, got: ", toString(dtype));
  if (n == 1) return host_values({1.0}, options);
  const int64_t m = periodic ? n + 1 : n;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = f(double(i), double(m - 1));
  return host_values(v, options);
}
}  // namespace detail
inline Tensor hann_window(int64_t window_length, bool periodic = true,
                          const TensorOptions& options = {}) {
  return detail::window(window_length, periodic, options, "hann_window", [](double i, double d) {
    return 0.5 - 0.5 * std::cos(2 * detail::kPi * i / d);
  });
}
inline Tensor hann_window(int64_t window_length, const TensorOptions& options) {
  return hann_window(window_length, true, options);
}
inline Tensor hamming_window(int64_t window_length, bool periodic = true, double alpha = 0.54,
                             double beta = 0.46, const TensorOptions& options = {}) {
  return detail::window(window_length, periodic, options, "hamming_window",
                        [alpha, beta](double i, double d) {
                          return alpha - beta * std::cos(2 * detail::kPi * i / d);
                        });
}
inline Tensor hamming_window(int64_t window_length, const TensorOptions& options) {
  return hamming_window(window_length, true, 0.54, 0.46, options);
}
inline Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return hamming_window(window_length, periodic, 0.54, 0.46, options);
}
inline Tensor bartlett_window(int64_t window_length, bool periodic = true,
                              const TensorOptions& options = {}) {
  return detail::window(window_length, periodic, options, "bartlett_window",
                        [](double i, double d) { return 1 - std::abs(2 * i / d - 1); });
}
inline Tensor bartlett_window(int64_t window_length, const TensorOptions& options) {
  return bartlett_window(window_length, true, options);
}
inline Tensor blackman_window(int64_t window_length, bool periodic = true,
                              const TensorOptions& options = {}) {
  return detail::window(window_length, periodic, options, "blackman_window",
                        [](double i, double d) {
                          return 0.42 - 0.5 * std::cos(2 * detail::kPi * i / d) +
                                 0.08 * std::cos(4 * detail::kPi * i / d);
                        });
}
inline Tensor blackman_window(int64_t window_length, const TensorOptions& options) {
  return blackman_window(window_length, true, options);
}

inline Tensor Tensor::deg2rad() const { return sdk::deg2rad(*this); }
inline const Tensor& Tensor::deg2rad_() const { return copy_(sdk::deg2rad(*this)); }
inline Tensor Tensor::rad2deg() const { return sdk::rad2deg(*this); }
inline const Tensor& Tensor::rad2deg_() const { return copy_(sdk::rad2deg(*this)); }
inline Tensor Tensor::signbit() const { return sdk::signbit(*this); }
inline Tensor Tensor::sinc() const { return sdk::sinc(*this); }
inline const Tensor& Tensor::sinc_() const { return copy_(sdk::sinc(*this)); }
inline Tensor Tensor::logaddexp2(const Tensor& other) const {
  return sdk::logaddexp2(*this, other);
}
inline Tensor Tensor::heaviside(const Tensor& values) const {
  return sdk::heaviside(*this, values);
}
inline const Tensor& Tensor::heaviside_(const Tensor& values) const {
  return copy_(sdk::heaviside(*this, values));
}
inline Tensor Tensor::float_power(const Tensor& exponent) const {
  return sdk::float_power(*this, exponent);
}
inline Tensor Tensor::float_power(const Scalar& exponent) const {
  return sdk::float_power(*this, exponent);
}
// float_power_ keeps self's dtype, so torch allows it on float64 tensors only.
inline const Tensor& Tensor::float_power_(const Tensor& exponent) const {
  SDK_CHECK_TYPE(scalar_type() == kDouble, "the base given to float_power_ has dtype ",
                 toString(scalar_type()), " but the operation's result requires dtype float64");
  return copy_(sdk::float_power(*this, exponent));
}
inline const Tensor& Tensor::float_power_(const Scalar& exponent) const {
  SDK_CHECK_TYPE(scalar_type() == kDouble, "the base given to float_power_ has dtype ",
                 toString(scalar_type()), " but the operation's result requires dtype float64");
  return copy_(sdk::float_power(*this, exponent));
}
inline Tensor Tensor::ldexp(const Tensor& other) const { return sdk::ldexp(*this, other); }
inline const Tensor& Tensor::ldexp_(const Tensor& other) const {
  return copy_(sdk::ldexp(*this, other));
}
inline Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return sdk::nansum(*this, dim, keepdim, dtype);
}
inline Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim,
                              std::optional<ScalarType> dtype) const {
  return sdk::nanmean(*this, dim, keepdim, dtype);
}
inline std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return sdk::aminmax(*this, dim, keepdim);
}
inline Tensor Tensor::trace() const { return sdk::trace(*this); }
inline Tensor Tensor::kron(const Tensor& other) const { return sdk::kron(*this, other); }
inline Tensor Tensor::inner(const Tensor& other) const { return sdk::inner(*this, other); }
inline Tensor Tensor::vdot(const Tensor& other) const { return sdk::vdot(*this, other); }
inline Tensor Tensor::dist(const Tensor& other, const Scalar& p) const {
  return sdk::dist(*this, other, p);
}
inline Tensor Tensor::isreal() const { return sdk::isreal(*this); }
inline Tensor Tensor::cov(int64_t correction, const std::optional<Tensor>& fweights,
                          const std::optional<Tensor>& aweights) const {
  return sdk::cov(*this, correction, fweights, aweights);
}
inline Tensor Tensor::corrcoef() const { return sdk::corrcoef(*this); }

}  // namespace sdk

#endif  // SDK_COMPOSITE_MATH_H_
