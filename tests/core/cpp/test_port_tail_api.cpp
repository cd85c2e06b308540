// test_port_tail_api.cpp: the last torch names two or more census repositories use: diff,
// the bitwise shifts, numeric_limits, scalar_value_type and TensorBase. With the argument
// `shifts` it prints the shifts over a grid instead (the Python test compares them with
// numpy); otherwise it checks and exits nonzero on any failure.
#include <sdk/all.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "expect.h"

namespace {

using Ints = std::vector<int64_t>;

Ints values(const sdk::Tensor& t) {
  sdk::Tensor c = t.to(sdk::kLong).contiguous().reshape({-1});
  const int64_t* p = c.data_ptr<int64_t>();
  return Ints(p, p + c.numel());
}

void diffs() {
  sdk::Tensor x = sdk::tensor({1, 4, 9, 16, 25});
  EXPECT(values(sdk::diff(x)) == Ints({3, 5, 7, 9}));
  EXPECT(values(x.diff(2)) == Ints({2, 2, 2}));
  EXPECT(values(x.diff(0)) == values(x));
  EXPECT(values(x.diff(0, 0, sdk::tensor({7}))) == values(x));  // no prepend for n == 0
  EXPECT(!x.diff(0).is_alias_of(x));
  EXPECT(x.diff(5).numel() == 0 && x.diff(7).numel() == 0);  // stops at an empty dim
  EXPECT(values(x.diff(1, 0, sdk::tensor({0}), sdk::tensor({36}))) == Ints({1, 3, 5, 7, 9, 11}));
  sdk::Tensor m = sdk::arange(6).reshape({2, 3}).mul(sdk::arange(6).reshape({2, 3}));
  EXPECT(values(m.diff(1, 0)) == Ints({9, 15, 21}));  // [[0,1,4],[9,16,25]]
  EXPECT(values(m.diff(1, -1)) == Ints({1, 3, 7, 9}));
  EXPECT((m.diff(1, 0).sizes().vec() == Ints{1, 3}));
  sdk::Tensor b = sdk::tensor({true, true, false, true});
  sdk::Tensor db = b.diff();
  EXPECT(db.scalar_type() == sdk::kBool && values(db) == Ints({0, 1, 1}));
  sdk::Tensor f = sdk::tensor({0.5, 2.0, 1.0}, sdk::kFloat).diff();
  EXPECT(f.scalar_type() == sdk::kFloat);
  EXPECT_NEAR(f[0].item<float>(), 1.5f, 1e-6);
  EXPECT_ERROR(SDK_ERROR_VALUE, "order must be non-negative", x.diff(-1));
  EXPECT_ERROR(SDK_ERROR_VALUE, "at least one-dimensional", sdk::tensor(3).diff());
  EXPECT_ERROR(SDK_ERROR_INDEX, "out of range", x.diff(1, 1));
  EXPECT_ERROR(SDK_ERROR_VALUE, "same number of dimensions", x.diff(1, 0, m));
}

// torch's rule, written plainly: the reference the composed shifts are checked against.
template <typename T>
T ref_shift(T a, int64_t s, bool left) {
  const int64_t bits = sizeof(T) * 8;
  using U = std::make_unsigned_t<T>;
  if (s < 0 || s >= bits) return left ? T(0) : (a < 0 ? T(-1) : T(0));
  return left ? T(U(U(a) << s)) : T(a >> s);
}

template <typename T>
void shifts_of(sdk::ScalarType dtype) {
  std::vector<int64_t> as = {0, 1, 2, 3, 5, 7, 100};
  if (std::is_signed<T>::value) as.insert(as.end(), {-1, -2, -7, -100});
  as.push_back(std::numeric_limits<T>::max());
  as.push_back(std::numeric_limits<T>::min());
  const int64_t bits = sizeof(T) * 8;
  std::vector<int64_t> ss = {0, 1, 2, 3, bits / 2, bits - 2, bits - 1};
  if (std::is_signed<T>::value) ss.insert(ss.end(), {-1, -5, bits, bits + 3});
  sdk::Tensor a = sdk::tensor(as).to(dtype).reshape({-1, 1});
  sdk::Tensor s = sdk::tensor(ss).to(dtype).reshape({1, -1});
  Ints l = values(a.bitwise_left_shift(s)), r = values(sdk::bitwise_right_shift(a, s));
  EXPECT(a.bitwise_left_shift(s).scalar_type() == dtype);
  for (size_t i = 0; i < as.size(); ++i) {
    for (size_t j = 0; j < ss.size(); ++j) {
      T av = static_cast<T>(as[i]);
      bool ok = l[i * ss.size() + j] == ref_shift<T>(av, ss[j], true) &&
                r[i * ss.size() + j] == ref_shift<T>(av, ss[j], false);
      if (!ok) std::printf("  %lld shifted by %lld\n", (long long)as[i], (long long)ss[j]);
      EXPECT(ok);
    }
  }
}

void shifts() {
  shifts_of<int8_t>(sdk::kChar);
  shifts_of<uint8_t>(sdk::kByte);
  shifts_of<int16_t>(sdk::kShort);
  shifts_of<int32_t>(sdk::kInt);
  shifts_of<int64_t>(sdk::kLong);
  sdk::Tensor x = sdk::tensor({1, -8, 12}).to(sdk::kInt);
  EXPECT(values(x.bitwise_left_shift(3)) == Ints({8, -64, 96}));
  EXPECT(values(x.bitwise_right_shift(2)) == Ints({0, -2, 3}));
  EXPECT(x.bitwise_right_shift(2).scalar_type() == sdk::kInt);  // a scalar keeps the dtype
  // tensors promote: int8 by int64 gives int64 (no wrap at 8 bits)
  sdk::Tensor big = sdk::tensor({100}).to(sdk::kChar).bitwise_left_shift(sdk::tensor({4}));
  EXPECT(big.scalar_type() == sdk::kLong && values(big) == Ints({1600}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "only integer tensors",
               sdk::tensor({1.0}).bitwise_left_shift(sdk::tensor({1})));
  EXPECT_ERROR(SDK_ERROR_TYPE, "must be an integer", x.bitwise_right_shift(1.5));
  EXPECT_ERROR(SDK_ERROR_TYPE, "only integer tensors", sdk::tensor({true}).bitwise_left_shift(1));
}

void limits_and_types() {
  EXPECT(sdk::numeric_limits<int8_t>::lowest() == -128);
  EXPECT(sdk::numeric_limits<int64_t>::max() == std::numeric_limits<int64_t>::max());
  EXPECT(sdk::numeric_limits<uint8_t>::upper_bound() == 255);
  EXPECT(sdk::numeric_limits<bool>::lower_bound() == false);
  EXPECT(sdk::numeric_limits<float>::lowest() == -std::numeric_limits<float>::max());
  EXPECT(sdk::numeric_limits<double>::upper_bound() == std::numeric_limits<double>::infinity());
  EXPECT(sdk::numeric_limits<float>::lower_bound() == -std::numeric_limits<float>::infinity());
  EXPECT(static_cast<float>(sdk::numeric_limits<sdk::Half>::max()) == 65504.0f);
  EXPECT(static_cast<float>(sdk::numeric_limits<sdk::Half>::lowest()) == -65504.0f);
  EXPECT(std::isinf(static_cast<float>(sdk::numeric_limits<sdk::Half>::upper_bound())));
  EXPECT(static_cast<float>(sdk::numeric_limits<sdk::BFloat16>::max()) ==
         3.38953139e38f);  // (2 - 2^-7) * 2^127
  EXPECT(static_cast<float>(sdk::numeric_limits<sdk::BFloat16>::lower_bound()) ==
         -std::numeric_limits<float>::infinity());
  static_assert(std::is_same<sdk::scalar_value_type<float>::type, float>::value, "");
  static_assert(std::is_same<sdk::scalar_value_type<sdk::Half>::type, sdk::Half>::value, "");
  const sdk::TensorBase& base = sdk::arange(3, sdk::kFloat);
  EXPECT(base.data_ptr() != nullptr && base.data_ptr<float>()[2] == 2.0f);
}

// `shifts DTYPE`: "a s left right" lines over a grid, for the comparison with numpy.
template <typename T>
int print_shifts(sdk::ScalarType dtype) {
  Ints as, ss;
  for (int64_t a = -130; a <= 300; a += 7) as.push_back(a);
  for (int64_t s = -3; s <= 70; ++s) ss.push_back(s);
  sdk::Tensor a = sdk::tensor(as).to(dtype), s = sdk::tensor(ss).to(dtype);
  sdk::Tensor ag = a.reshape({-1, 1}).expand({a.numel(), s.numel()}).reshape({-1});
  sdk::Tensor sg = s.reshape({1, -1}).expand({a.numel(), s.numel()}).reshape({-1});
  Ints av = values(ag), sv = values(sg);
  Ints l = values(ag.bitwise_left_shift(sg)), r = values(ag.bitwise_right_shift(sg));
  for (size_t i = 0; i < av.size(); ++i) {
    std::printf("%lld %lld %lld %lld\n", (long long)av[i], (long long)sv[i], (long long)l[i],
                (long long)r[i]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "shifts") == 0) {
    if (!std::strcmp(argv[2], "int8")) return print_shifts<int8_t>(sdk::kChar);
    if (!std::strcmp(argv[2], "uint8")) return print_shifts<uint8_t>(sdk::kByte);
    if (!std::strcmp(argv[2], "int16")) return print_shifts<int16_t>(sdk::kShort);
    if (!std::strcmp(argv[2], "int32")) return print_shifts<int32_t>(sdk::kInt);
    if (!std::strcmp(argv[2], "int64")) return print_shifts<int64_t>(sdk::kLong);
    return 2;
  }
  diffs();
  shifts();
  limits_and_types();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
