// test_elementwise_api.cpp: the elementwise C++ API added with ABI 1.3 (sdk/elementwise.h, the
// new table ops, new_*, toType) against hand-computed values; exits nonzero on any failure.
#include <sdk/tensor.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "expect.h"

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

sdk::Tensor vec(const std::vector<double>& v) {
  auto t = sdk::empty({static_cast<int64_t>(v.size())}, sdk::kFloat64);
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
  return t;
}

// Values equal (NaN equal to NaN) within tol.
bool same(const sdk::Tensor& a, const std::vector<double>& expected, double tol = 1e-12) {
  auto flat = a.to(sdk::kFloat64).contiguous().reshape({-1});
  if (flat.numel() != static_cast<int64_t>(expected.size())) return false;
  const double* p = flat.data_ptr<double>();
  for (size_t i = 0; i < expected.size(); ++i) {
    bool ok = (std::isnan(p[i]) && std::isnan(expected[i])) || p[i] == expected[i] ||
              std::fabs(p[i] - expected[i]) <= tol * (1 + std::fabs(expected[i]));
    if (!ok) {
      std::printf("  element %zu: %.17g vs expected %.17g\n", i, p[i], expected[i]);
      return false;
    }
  }
  return true;
}

void test_table_ops() {
  auto x = vec({0.5, -0.25, 1.0});
  EXPECT(same(sdk::tan(x), {std::tan(0.5), std::tan(-0.25), std::tan(1.0)}));
  EXPECT(same(x.asin(), {std::asin(0.5), std::asin(-0.25), std::asin(1.0)}));
  EXPECT(same(x.arcsin(), {std::asin(0.5), std::asin(-0.25), std::asin(1.0)}));
  EXPECT(same(sdk::log2(vec({8, 0.5})), {3, -1}));
  EXPECT(same(vec({100, 0.001}).log10(), {2, -3}));
  EXPECT(same(sdk::exp2(vec({3, -1})), {8, 0.5}));
  EXPECT(same(sdk::erfc(vec({0})), {1}));
  EXPECT(same(sdk::erfinv(vec({0, std::erf(0.75)})), {0, 0.75}, 1e-15));
  EXPECT(same(sdk::silu(vec({0, 2})), {0, 2 / (1 + std::exp(-2.0))}));
  auto i = sdk::arange(-3, 4);  // int64
  EXPECT(sdk::trunc(i).scalar_type() == sdk::kInt64 && same(i.fix(), {-3, -2, -1, 0, 1, 2, 3}));
  EXPECT(sdk::log2(i.abs() + 1).scalar_type() == sdk::kFloat32);
  EXPECT(same(vec({-2.5, 2.5, -0.5}).trunc(), {-2, 2, -0.0}));
  EXPECT(same(vec({-2.5, 2.75}).frac(), {-0.5, 0.75}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "frac: only floating point", sdk::frac(i));
  auto special = vec({kNan, kInf, -kInf, 1});
  EXPECT(special.isnan().scalar_type() == sdk::kBool && same(special.isnan(), {1, 0, 0, 0}));
  EXPECT(same(sdk::isinf(special), {0, 1, 1, 0}));
  EXPECT(same(special.isfinite(), {0, 0, 0, 1}));
  EXPECT(same(sdk::isposinf(special), {0, 1, 0, 0}) && same(special.isneginf(), {0, 0, 1, 0}));
  EXPECT(same(sdk::isnan(i), {0, 0, 0, 0, 0, 0, 0}));
  EXPECT(same(sdk::sgn(vec({-3, 0, 2})), {-1, 0, 1}));
  auto y = vec({0.25, 0.5});
  y.tan_();
  EXPECT(same(y, {std::tan(0.25), std::tan(0.5)}));
}

void test_binary_and_rounding() {
  auto a = vec({7.5, -7.5, 7.5});
  EXPECT(same(sdk::fmod(a, 2), {1.5, -1.5, 1.5}));
  EXPECT(same(a.fmod(vec({2, 2, -2})), {1.5, -1.5, 1.5}));
  EXPECT(same(sdk::remainder(a, 2), {1.5, 0.5, 1.5}));
  EXPECT(same(sdk::hypot(vec({3, 5}), vec({4, 12})), {5, 13}));
  EXPECT(same(sdk::copysign(vec({1, 2}), vec({-0.0, 3})), {-1, 2}));
  EXPECT(same(sdk::logaddexp(vec({0, -kInf}), vec({0, -kInf})), {std::log(2.0), -kInf}));
  EXPECT(same(sdk::xlogy(vec({0, 2}), vec({0, std::exp(1.0)})), {0, 2}));
  auto n = sdk::arange(-7, 8, 7);  // [-7, 0, 7]
  EXPECT(sdk::div(n, 2, "trunc").scalar_type() == sdk::kInt64);
  EXPECT(same(sdk::div(n, 2, "trunc"), {-3, 0, 3}));
  EXPECT(same(sdk::div(n, 2, "floor"), {-4, 0, 3}));
  EXPECT(same(n.div(sdk::full({3}, 2, sdk::kInt64), std::nullopt), {-3.5, 0, 3.5}));
  EXPECT(sdk::true_divide(n, 2).scalar_type() == sdk::kFloat32);
  EXPECT(same(n.true_divide(2), {-3.5, 0, 3.5}));
  auto m = vec({-7.5, 7.5});
  m.div_(2, "trunc");
  EXPECT(same(m, {-3, 3}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "rounding_mode to be one of", sdk::div(n, 2, "round"));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "div: integer division by zero", sdk::div(n, 0, "trunc"));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "fmod: integer division by zero", sdk::fmod(n, 0));
}

void test_params_and_ternary() {
  auto x = vec({-2, 0.5, 30});
  EXPECT(same(sdk::softplus(x), {std::log1p(std::exp(-2.0)), std::log1p(std::exp(0.5)), 30}));
  // linear only strictly above the threshold (beta * 0.5 == 1 is not)
  EXPECT(same(sdk::softplus(x, 2, 1),
              {std::log1p(std::exp(-4.0)) / 2, std::log1p(std::exp(1.0)) / 2, 30}));
  EXPECT(same(sdk::softplus(x, 2, 0.5), {std::log1p(std::exp(-4.0)) / 2, 0.5, 30}));
  EXPECT(same(sdk::leaky_relu(x), {-0.02, 0.5, 30}));
  EXPECT(same(sdk::leaky_relu(x, 0.5), {-1, 0.5, 30}));
  EXPECT(same(sdk::hardtanh(x), {-1, 0.5, 1}));
  EXPECT(same(sdk::relu6(x), {0, 0.5, 6}));
  auto ints = sdk::arange(-3, 10, 4);  // [-3, 1, 5, 9]
  EXPECT(sdk::relu6(ints).scalar_type() == sdk::kInt64 && same(sdk::relu6(ints), {0, 1, 5, 6}));
  auto special = vec({kNan, kInf, -kInf, 2});
  double big = std::numeric_limits<double>::max();
  EXPECT(same(sdk::nan_to_num(special), {0, big, -big, 2}));
  EXPECT(same(special.nan_to_num(1.0, 9.0, -9.0), {1, 9, -9, 2}));
  EXPECT(same(sdk::nan_to_num(special.to(sdk::kFloat16)), {0, 65504, -65504, 2}));
  special.nan_to_num_(std::nullopt, 5.0);
  EXPECT(same(special, {0, 5, -big, 2}));

  auto a = vec({0, 10}), b = vec({10, 20});
  EXPECT(same(sdk::lerp(a, b, 0.25), {2.5, 12.5}));
  EXPECT(same(a.lerp(b, vec({1, 0.5})), {10, 15}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "expected dtype float64 for `end`",
               sdk::lerp(a, b.to(sdk::kFloat32), 0.5));
  EXPECT(same(sdk::addcmul(a, a, b, 2), {0, 410}));
  EXPECT(same(a.addcdiv(b, vec({4, 5}), -1), {-2.5, 6}));
  auto c = a.clone();
  c.addcmul_(b, b, 0.5);
  EXPECT(same(c, {50, 210}));
  c.lerp_(a, 1.0);
  EXPECT(same(c, {0, 10}));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "integer division with addcdiv",
               sdk::addcdiv(a, sdk::arange(2), sdk::arange(1, 3)));

  auto v = vec({-5, 0.5, 5});
  auto lo = vec({-1, 1, -1}), hi = vec({1, 2, 3});
  EXPECT(same(sdk::clamp(v, lo, hi), {-1, 1, 3}));
  EXPECT(same(v.clamp(lo), {-1, 1, 5}));
  EXPECT(same(v.clamp(std::nullopt, hi), {-5, 0.5, 3}));
  EXPECT(same(sdk::clamp_min(v, lo), {-1, 1, 5}) && same(v.clamp_max(hi), {-5, 0.5, 3}));
  EXPECT(same(v.clamp(0.0, 1.0), {0, 0.5, 1}));  // the Scalar overload still wins for numbers
  auto w = v.clone();
  w.clamp_(lo, hi);
  EXPECT(same(w, {-1, 1, 3}));
  w.clamp_min_(0);
  EXPECT(same(w, {0, 1, 3}));
  w.clamp_max_(vec({0.5, 0.5, 0.5}));
  EXPECT(same(w, {0, 0.5, 0.5}));
  EXPECT(same(sdk::clip(v, -1.0, 1.0), {-1, 0.5, 1}));
  EXPECT(same(sdk::where(v > 0, 1.5, -1), {-1, 1.5, 1.5}));
  EXPECT(sdk::where(v > 0, 1, 0).scalar_type() == sdk::kLong);
}

void test_closeness_and_tensor_helpers() {
  auto a = vec({1, kInf, kNan, 100});
  auto b = vec({1 + 1e-9, kInf, kNan, 100.01});
  EXPECT(same(sdk::isclose(a, b), {1, 1, 0, 0}));
  EXPECT(same(a.isclose(b, 1e-3, 0, true), {1, 1, 1, 1}));
  EXPECT(sdk::allclose(a.slice(0, 0, 2), b.slice(0, 0, 2)));
  EXPECT(!a.allclose(b));
  EXPECT_ERROR(SDK_ERROR_TYPE, "same dtype", sdk::isclose(a, b.to(sdk::kFloat32)));

  auto t = sdk::zeros({2, 3}, sdk::kFloat64);
  EXPECT(t.toType(sdk::kInt32).scalar_type() == sdk::kInt32);
  EXPECT(t.is_same_size(sdk::ones({2, 3}, sdk::kInt64)) && !t.is_same_size(t.t()));
  auto z = t.new_zeros({4});
  EXPECT(z.scalar_type() == sdk::kFloat64 && same(z, {0, 0, 0, 0}));
  EXPECT(same(t.new_ones({2}), {1, 1}) && t.new_ones({2}).scalar_type() == sdk::kFloat64);
  EXPECT(t.new_empty({3, 1}).sizes() == std::vector<int64_t>({3, 1}));
  auto f = t.new_full({2}, 7, sdk::kInt32);
  EXPECT(f.scalar_type() == sdk::kInt32 && same(f, {7, 7}));
  EXPECT(t.new_full({1}, 2).scalar_type() == sdk::kFloat64);
}

}  // namespace

int main() {
  try {
    test_table_ops();
    test_binary_and_rounding();
    test_params_and_ternary();
    test_closeness_and_tensor_helpers();
  } catch (const std::exception& e) {
    std::printf("FAIL: uncaught exception: %s\n", e.what());
    ++g_failures;
  }
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
