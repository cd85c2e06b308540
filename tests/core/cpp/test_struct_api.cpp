// test_struct_api.cpp: the sorting, scan, scatter/index and reordering ops of sdk/ops_struct.h
// (torch's spellings, as ported extensions call them) against hand-computed values; exits
// nonzero on any failure.
#include <sdk/tensor.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <vector>

#include "expect.h"

namespace {

// The elements of t, row-major, as doubles.
std::vector<double> values(const sdk::Tensor& t) {
  auto c = t.to(sdk::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

sdk::Tensor vec(std::vector<double> v) {
  return sdk::from_blob(v.data(), {static_cast<int64_t>(v.size())}, sdk::kFloat64).clone();
}

sdk::Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return sdk::from_blob(v.data(), shape, sdk::kLong).clone();
}

void sorting_and_scans() {
  sdk::Tensor x = vec({3, 1, 2, 1}).reshape({2, 2});  // [[3, 1], [2, 1]]
  sdk::Tensor v, i;
  std::tie(v, i) = x.sort(1);
  EXPECT(values(v) == std::vector<double>{1, 3, 1, 2});
  EXPECT(values(i) == std::vector<double>{1, 0, 1, 0});
  std::tie(v, i) = sdk::sort(x, /*dim=*/0, /*descending=*/true);
  EXPECT(values(v) == std::vector<double>{3, 1, 2, 1});
  std::tie(v, i) = x.sort(std::optional<bool>(true), /*dim=*/0);
  EXPECT(values(i) == std::vector<double>{1, 0, 0, 1});  // equal 1s keep their order
  EXPECT(values(sdk::argsort(vec({2, 0, 1}))) == std::vector<double>{1, 2, 0});
  auto top = sdk::topk(vec({5, 9, 1, 7}), 2);
  EXPECT(values(std::get<0>(top)) == std::vector<double>{9, 7});
  EXPECT(values(std::get<1>(top)) == std::vector<double>{1, 3});
  auto low = vec({5, 9, 1, 7}).topk(1, -1, /*largest=*/false);
  EXPECT(values(std::get<0>(low)) == std::vector<double>{1});
  EXPECT(values(std::get<0>(vec({4, 2, 8}).kthvalue(2))) == std::vector<double>{4});
  EXPECT(vec({4, 2, 8, 6}).median().item<double>() == 4.0);
  EXPECT(values(std::get<1>(x.median(1, true))) == std::vector<double>{1, 1});
  sdk::Tensor c = vec({1, 2, 3, 4}).cumsum(0);
  EXPECT(values(c) == std::vector<double>{1, 3, 6, 10});
  sdk::Tensor ints = longs({1, 2, 3}, {3}).to(sdk::kInt);
  EXPECT(ints.cumsum(0).scalar_type() == sdk::kLong);  // integers scan in int64
  EXPECT(values(ints.cumprod(0, sdk::kDouble)) == std::vector<double>{1, 2, 6});
  sdk::Tensor inplace = vec({1, 2, 3});
  inplace.cumsum_(0);
  EXPECT(values(inplace) == std::vector<double>{1, 3, 6});
  auto cm = vec({1, 3, 2, 3}).cummax(0);
  EXPECT(values(std::get<0>(cm)) == std::vector<double>{1, 3, 3, 3});
  EXPECT(values(std::get<1>(cm)) == std::vector<double>{0, 1, 1, 3});
  EXPECT(values(std::get<0>(sdk::cummin(vec({2, 3, 1}), 0))) == std::vector<double>{2, 2, 1});
  EXPECT_ERROR(SDK_ERROR_INDEX, "topk", sdk::topk(vec({1, 2}), 3));
}

void scatter_and_index() {
  sdk::Tensor z = sdk::zeros({2, 3}, sdk::kFloat64);
  sdk::Tensor idx = longs({2, 0}, {1, 2});
  sdk::Tensor r = z.scatter(1, idx, vec({7, 8}).reshape({1, 2}));
  EXPECT(values(r) == std::vector<double>{8, 0, 7, 0, 0, 0});
  EXPECT(values(z).at(0) == 0.0);  // out of place
  z.scatter_(1, idx, 5.0);
  EXPECT(values(z) == std::vector<double>{5, 0, 5, 0, 0, 0});
  z.scatter_(1, idx, vec({1, 2}).reshape({1, 2}), "add");
  EXPECT(values(z) == std::vector<double>{7, 0, 6, 0, 0, 0});
  sdk::Tensor acc = vec({1, 1, 1}).scatter_reduce(0, longs({0, 0, 2}, {3}), vec({4, 6, 2}), "amax");
  EXPECT(values(acc) == std::vector<double>{6, 1, 2});
  acc = vec({1, 1, 1}).scatter_reduce(0, longs({0, 0, 2}, {3}), vec({4, 6, 2}), "mean", false);
  EXPECT(values(acc) == std::vector<double>{5, 1, 2});
  EXPECT_ERROR(SDK_ERROR_VALUE, "reduce argument",
               vec({1}).scatter_reduce(0, longs({0}, {1}), vec({1}), "max"));
  sdk::Tensor m = sdk::zeros({3, 2}, sdk::kFloat64);
  m.index_copy_(0, longs({2}, {1}), vec({1, 2}).reshape({1, 2}));
  m.index_fill_(1, longs({0}, {1}), -1.0);
  EXPECT(values(m) == std::vector<double>{-1, 0, -1, 0, -1, 2});
  sdk::Tensor mask = vec({1, 0, 1}).gt(0.5);
  EXPECT(values(vec({4, 5, 6}).masked_select(mask)) == std::vector<double>{4, 6});
  EXPECT(values(vec({4, 5, 6}).masked_scatter(mask, vec({9, 8}))) == std::vector<double>{9, 5, 8});
  EXPECT(values(vec({4, 5, 6}).take(longs({-1, 0}, {2}))) == std::vector<double>{6, 4});
  sdk::Tensor g = vec({1, 2, 3, 4}).reshape({2, 2});
  EXPECT(values(g.take_along_dim(longs({1, 0}, {2, 1}), 1)) == std::vector<double>{2, 3});
  EXPECT(values(vec({1, 2}).repeat_interleave(2)) == std::vector<double>{1, 1, 2, 2});
  EXPECT(values(vec({1, 2}).repeat_interleave(longs({0, 3}, {2}))) == std::vector<double>{2, 2, 2});
  EXPECT(values(sdk::repeat_interleave(longs({2, 1}, {2}))) == std::vector<double>{0, 0, 1});
  EXPECT_ERROR(SDK_ERROR_INDEX, "take(): ", vec({1}).take(longs({1}, {1})));
}

void reordering_and_views() {
  sdk::Tensor x = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  EXPECT(values(x.flip({0, 1})) == std::vector<double>{6, 5, 4, 3, 2, 1});
  EXPECT(values(x.roll({1}, {1})) == std::vector<double>{3, 1, 2, 6, 4, 5});
  EXPECT(values(sdk::roll(x, {1})) == std::vector<double>{6, 1, 2, 3, 4, 5});
  EXPECT(values(x.tril()) == std::vector<double>{1, 0, 0, 4, 5, 0});
  EXPECT(values(sdk::triu(x, 1)) == std::vector<double>{0, 2, 3, 0, 0, 6});
  sdk::Tensor y = x.clone();
  y.triu_();
  EXPECT(values(y) == std::vector<double>{1, 2, 3, 0, 5, 6});
  sdk::Tensor d = x.diagonal(1);
  EXPECT(values(d) == std::vector<double>{2, 6});
  d.fill_(0);  // a view
  EXPECT(values(x) == std::vector<double>{1, 0, 3, 4, 5, 0});
  EXPECT(values(vec({1, 2}).diag()) == std::vector<double>{1, 0, 0, 2});
  EXPECT(values(vec({1, 2}).diag_embed(1)) == std::vector<double>{0, 1, 0, 0, 0, 2, 0, 0, 0});
  sdk::Tensor w = vec({1, 2, 3, 4, 5}).unfold(0, 2, 2);
  EXPECT(w.size(0) == 2 && w.size(1) == 2);
  EXPECT(values(w) == std::vector<double>{1, 2, 3, 4});
  sdk::Tensor grow = vec({1, 2});
  grow.resize_({2, 3});
  EXPECT(grow.size(0) == 2 && grow.size(1) == 3 && grow.is_contiguous());
  EXPECT(values(grow).at(1) == 2.0);
  EXPECT_ERROR(SDK_ERROR_VALUE, "tril(): ", vec({1}).tril());
}

}  // namespace

int main() {
  sorting_and_scans();
  scatter_and_index();
  reordering_and_views();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
