// test_vec_api.cpp: sdk/vec.h (torch's at::vec) in the way CPU kernels use it -- load a group,
// compute, store, with a tail; reductions; masks and blends; the 16-bit floats widened to
// float and back. Each result is checked against the same computation written as a scalar
// loop; exits nonzero on any failure.
#include <sdk/vec.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "expect.h"

namespace {

using sdk::vec::Vectorized;

// A softplus-like kernel over n floats with a tail, as extension CPU kernels write it.
void kernel(const float* x, float* y, int64_t n) {
  using Vec = Vectorized<float>;
  int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    Vec v = Vec::loadu(x + i);
    sdk::vec::maximum(v, Vec(0.0f)).store(y + i);
    (Vec(1.0f) + (-(v.abs())).exp()).log().store(y + i);
    (sdk::vec::maximum(v, Vec(0.0f)) + Vec::loadu(y + i)).store(y + i);
  }
  if (i < n) {
    Vec v = Vec::loadu(x + i, n - i);
    Vec r = sdk::vec::maximum(v, Vec(0.0f)) + (Vec(1.0f) + (-(v.abs())).exp()).log();
    r.store(y + i, n - i);
  }
}

void groups_and_tails() {
  EXPECT(Vectorized<float>::size() == 8 && Vectorized<double>::size() == 4);
  EXPECT(Vectorized<sdk::Half>::size() == 16 && Vectorized<int8_t>::size() == 32);
  std::vector<float> x(37), y(37, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i)) * 4;
  kernel(x.data(), y.data(), 37);
  bool ok = true;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = std::max(x[i], 0.0f) + std::log(1.0f + std::exp(-std::fabs(x[i])));
    ok = ok && std::fabs(y[i] - want) <= 1e-6f;
  }
  EXPECT(ok);
  float out[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  Vectorized<float>::arange(1.0f, 2).store(out, 3);  // a partial store leaves the rest
  EXPECT(out[0] == 1 && out[2] == 5 && out[3] == 9);
  Vectorized<float> loaded = Vectorized<float>::loadu(out, 2);
  EXPECT(loaded[1] == 3 && loaded[2] == 0);
}

void reductions_and_maps() {
  std::vector<double> d(23);
  double sum = 0, mx = -1e300;
  for (size_t i = 0; i < d.size(); ++i) {
    d[i] = std::cos(double(i) * 1.3) * 10;
    sum += d[i];
    mx = std::max(mx, d[i]);
  }
  using VD = Vectorized<double>;
  const double got_sum = sdk::vec::reduce_all([](VD a, VD b) { return a + b; }, d.data(), 23);
  const double got_max =
      sdk::vec::reduce_all([](VD a, VD b) { return sdk::vec::maximum(a, b); }, d.data(), 23);
  EXPECT_NEAR(got_sum, sum, 1e-9);
  EXPECT(got_max == mx);
  EXPECT(sdk::vec::reduce_all([](VD a, VD b) { return a + b; }, d.data(), 3) ==
         d[0] + d[1] + d[2]);  // shorter than one group
  std::vector<double> sq(23), sum2(23);
  sdk::vec::map([](VD v) { return v * v; }, sq.data(), d.data(), 23);
  sdk::vec::map2([](VD a, VD b) { return sdk::vec::fmadd(a, b, VD(1.0)); }, sum2.data(), d.data(),
                 sq.data(), 23);
  // kernels' lambdas often take non-const references, which torch's helpers allow
  const double by_ref = sdk::vec::reduce_all([](VD& a, VD& b) { return a + b; }, d.data(), 23);
  EXPECT_NEAR(by_ref, sum, 1e-9);
  EXPECT(sq[22] == d[22] * d[22] && sum2[21] == d[21] * sq[21] + 1.0);
  std::vector<int> ints(23);
  sdk::vec::convert(d.data(), ints.data(), 23);
  EXPECT(ints[5] == static_cast<int>(d[5]));
}

void masks_and_nan() {
  using V = Vectorized<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  V a(1.0f, -2.0f, 3.0f, nan, 5.0f, -6.0f, 0.0f, 8.0f), b(0.5f);
  V picked = V::blendv(a, b, a < V(0.0f));  // b where a is negative
  EXPECT(picked[1] == 0.5f && picked[0] == 1.0f && picked[5] == 0.5f);
  V blended = V::blend<0b101>(a, b);
  EXPECT(blended[0] == 0.5f && blended[1] == -2.0f && blended[2] == 0.5f);
  EXPECT(std::isnan(sdk::vec::maximum(a, b)[3]) && std::isnan(sdk::vec::minimum(b, a)[3]));
  EXPECT(sdk::vec::clamp(a, V(-1.0f), V(4.0f))[5] == -1.0f && a.gt(b)[2] == 1.0f);
  EXPECT(a.zero_mask() == (1 << 6) && a.has_inf_nan() && !b.has_inf_nan());
  EXPECT(a.isnan().any_bit(3) && !a.isnan().any_bit(2));
  Vectorized<int32_t> i(12), j(10);
  EXPECT(((i & j)[0] == 8) && ((i | j)[7] == 14) && ((i ^ j)[3] == 6));
}

void reduced_floats() {
  EXPECT(sdk::vec::is_reduced_floating_point_v<sdk::BFloat16> &&
         !sdk::vec::is_reduced_floating_point_v<float>);
  Vectorized<sdk::BFloat16> h = Vectorized<sdk::BFloat16>::arange(sdk::BFloat16(0.0f), 0.5f);
  auto halves = sdk::vec::convert_to_float(h);
  EXPECT(std::get<0>(halves)[3] == 1.5f && std::get<1>(halves)[0] == 4.0f);
  auto back = sdk::vec::convert_from_float<sdk::BFloat16>(
      std::get<0>(halves) * Vectorized<float>(2.0f), std::get<1>(halves));
  EXPECT(static_cast<float>(back[3]) == 3.0f && static_cast<float>(back[8]) == 4.0f);
  Vectorized<sdk::Half> e = Vectorized<sdk::Half>(sdk::Half(1.0f)).exp();
  EXPECT(std::fabs(static_cast<float>(e[0]) - 2.71875f) < 1e-3f);
}

}  // namespace

int main() {
  groups_and_tails();
  reductions_and_maps();
  masks_and_nan();
  reduced_floats();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
