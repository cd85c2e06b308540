// test_more_api.cpp: the ops of sdk/ops_data.h, sdk/linalg.h, sdk/sampling.h and the later
// nn functions of sdk/layers.h (torch's spellings, as ported extensions call them) against
// hand-computed values; exits nonzero on any failure.
#include <sdk/tensor.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <tuple>
#include <vector>

#include "expect.h"

namespace {

using V = std::vector<double>;

// The elements of t, row-major, as doubles.
V values(const sdk::Tensor& t) {
  auto c = t.to(sdk::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return V(p, p + c.numel());
}

bool near(const V& a, const V& b, double tol = 1e-6) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::fabs(a[i] - b[i]) <= tol)) return false;
  }
  return true;
}

sdk::Tensor vec(V v) {
  return sdk::from_blob(v.data(), {static_cast<int64_t>(v.size())}, sdk::kFloat64).clone();
}

sdk::Tensor mat(V v, std::vector<int64_t> shape) { return vec(std::move(v)).reshape(shape); }

sdk::Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return sdk::from_blob(v.data(), shape, sdk::kLong).clone();
}

bool same_sizes(const sdk::Tensor& t, std::vector<int64_t> s) {
  return t.sizes() == sdk::IntArrayRef(s);
}

void creation_and_methods() {
  sdk::Tensor x = vec({1, 2});
  EXPECT(!x.is_complex() && !x.is_sparse());
  sdk::Tensor n = x.new_tensor({1, 2, 3});
  EXPECT(n.scalar_type() == sdk::kDouble && values(n) == V{1, 2, 3});
  sdk::Tensor nl = x.new_tensor(std::vector<int64_t>{4, 5}, sdk::kLong);
  EXPECT(nl.scalar_type() == sdk::kLong && values(nl) == V{4, 5});
  sdk::Tensor nb = x.new_tensor(std::vector<bool>{true, false}, sdk::kBool);
  EXPECT(nb.scalar_type() == sdk::kBool && values(nb) == V{1, 0});

  sdk::Tensor s = sdk::scalar_tensor(3);
  EXPECT(s.dim() == 0 && s.scalar_type() == sdk::kFloat && s.item<double>() == 3.0);
  EXPECT(sdk::scalar_tensor(2, sdk::kLong).scalar_type() == sdk::kLong);

  sdk::Tensor ls = sdk::logspace(0, 2, 3);
  EXPECT(ls.scalar_type() == sdk::kFloat && near(values(ls), V{1, 10, 100}, 1e-4));
  EXPECT(near(values(sdk::logspace(0, 3, 4, 2.0, sdk::kDouble)), V{1, 2, 4, 8}));
  EXPECT(sdk::logspace(1, 2, 0).numel() == 0);
  EXPECT_ERROR(SDK_ERROR_VALUE, "steps", sdk::logspace(0, 1, -1));

  sdk::Tensor p = sdk::randperm(10);
  EXPECT(p.scalar_type() == sdk::kLong && p.numel() == 10);
  EXPECT(values(std::get<0>(p.sort())) == values(sdk::arange(10)));
  sdk::Generator g1(7), g2(7);
  EXPECT(values(sdk::randperm(50, g1)) == values(sdk::randperm(50, g2)));
  EXPECT(sdk::randperm(5, sdk::kInt).scalar_type() == sdk::kInt);
  EXPECT(sdk::randperm(0).numel() == 0);
  EXPECT_ERROR(SDK_ERROR_VALUE, "too large", sdk::randperm(300, sdk::kByte));
  EXPECT_ERROR(SDK_ERROR_VALUE, "non-negative", sdk::randperm(-1));
}

void counting_and_searching() {
  sdk::Tensor idx = longs({0, 1, 1, 3}, {4});
  EXPECT(values(sdk::bincount(idx)) == V{1, 2, 0, 1});
  EXPECT(idx.bincount().scalar_type() == sdk::kLong);
  EXPECT(values(idx.bincount({}, 6)) == V{1, 2, 0, 1, 0, 0});
  sdk::Tensor bw = sdk::bincount(idx, vec({0.5, 1, 2, 4}));
  EXPECT(bw.scalar_type() == sdk::kDouble && values(bw) == V{0.5, 3, 0, 4});
  EXPECT(sdk::bincount(idx, vec({1, 1, 1, 1}).to(sdk::kFloat)).scalar_type() == sdk::kFloat);
  EXPECT(sdk::bincount(sdk::empty({0}, sdk::kLong)).numel() == 0);
  EXPECT_ERROR(SDK_ERROR_TYPE, "integral", sdk::bincount(vec({1})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "non-negative", sdk::bincount(longs({1, -1}, {2})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "weights", sdk::bincount(idx, vec({1})));

  EXPECT(values(sdk::histc(vec({1, 2, 1}), 4, 0, 3)) == V{0, 2, 1, 0});
  EXPECT(values(vec({1, 2, 1, 3, 7}).histc(4, 0, 3)) == V{0, 2, 1, 1});  // 3 in the last bin
  sdk::Tensor h = vec({1, 2, 1}).to(sdk::kFloat).histc(2);  // range from the data: [1, 2]
  EXPECT(h.scalar_type() == sdk::kFloat && values(h) == V{2, 1});
  EXPECT_ERROR(SDK_ERROR_TYPE, "not implemented", sdk::histc(idx));
  EXPECT_ERROR(SDK_ERROR_VALUE, "bins", sdk::histc(vec({1}), 0));
  EXPECT_ERROR(SDK_ERROR_VALUE, "larger", sdk::histc(vec({1}), 4, 3, 1));

  sdk::Tensor bounds = vec({1, 3, 5, 7, 9});
  sdk::Tensor v = mat({3, 6, 9, 3, 6, 9}, {2, 3});
  sdk::Tensor b = sdk::bucketize(v, bounds);
  EXPECT(b.scalar_type() == sdk::kLong && same_sizes(b, {2, 3}));
  EXPECT(values(b) == V{1, 3, 4, 1, 3, 4});
  EXPECT(values(sdk::bucketize(v, bounds, false, true)) == V{2, 3, 5, 2, 3, 5});
  EXPECT(sdk::bucketize(v, bounds, true).scalar_type() == sdk::kInt);
  sdk::Tensor b0 = sdk::bucketize(4, bounds);
  EXPECT(b0.dim() == 0 && b0.item<int64_t>() == 2);
  EXPECT(values(sdk::bucketize(vec({NAN, 0}), bounds)) == V{5, 0});
  EXPECT_ERROR(SDK_ERROR_VALUE, "1 dimension", sdk::bucketize(v, v));

  sdk::Tensor seq = mat({1, 3, 5, 7, 9, 2, 4, 6, 8, 10}, {2, 5});
  EXPECT(values(sdk::searchsorted(seq, v)) == V{1, 3, 4, 1, 2, 4});
  EXPECT(values(sdk::searchsorted(seq, v, false, true)) == V{2, 3, 5, 1, 3, 4});
  EXPECT(values(sdk::searchsorted(seq, v, false, false, "right")) == V{2, 3, 5, 1, 3, 4});
  EXPECT(values(sdk::searchsorted(bounds, v)) == V{1, 3, 4, 1, 3, 4});
  EXPECT(sdk::searchsorted(bounds, 6).item<int64_t>() == 3);
  sdk::Tensor unsorted = vec({5, 1, 3});
  EXPECT(values(sdk::searchsorted(unsorted, vec({2, 4}), false, false, std::nullopt,
                                  unsorted.argsort())) == V{1, 2});
  EXPECT_ERROR(SDK_ERROR_VALUE, "opposites", sdk::searchsorted(seq, v, false, true, "left"));
  EXPECT_ERROR(SDK_ERROR_VALUE, "must match", sdk::searchsorted(seq, vec({1, 2})));

  sdk::Tensor out, inverse, counts;
  std::tie(out, inverse, counts) = sdk::unique(vec({2, 1, 2, 3, 1}), true, true, true);
  EXPECT(values(out) == V{1, 2, 3});
  EXPECT(values(inverse) == V{1, 0, 1, 2, 0});
  EXPECT(values(counts) == V{2, 2, 1});
  std::tie(out, inverse, counts) = sdk::unique(longs({4, 4, 0, 4}, {2, 2}));
  EXPECT(out.scalar_type() == sdk::kLong && values(out) == V{0, 4});
  EXPECT(inverse.numel() == 0 && counts.numel() == 0);
  std::tie(out, inverse, counts) = sdk::unique(longs({4, 4, 0, 4}, {2, 2}), true, true);
  EXPECT(same_sizes(inverse, {2, 2}) && values(inverse) == V{1, 1, 0, 1});

  sdk::Tensor m = mat({1, 2, 2, 3, 4, 4, 1, 1}, {2, 4});
  sdk::Tensor mv, mi;
  std::tie(mv, mi) = m.mode();
  EXPECT(values(mv) == V{2, 1});  // row 1: 4 and 1 twice each, the smaller wins
  EXPECT(values(mi) == V{2, 3});  // the last index of the mode
  std::tie(mv, mi) = sdk::mode(m, 0, true);
  EXPECT(same_sizes(mv, {1, 4}) && values(mv) == V{1, 2, 1, 1} && values(mi) == V{0, 0, 1, 1});
  std::tie(mv, mi) = longs({7}, {}).mode();
  EXPECT(mv.dim() == 0 && mv.item<int64_t>() == 7 && mi.item<int64_t>() == 0);
  EXPECT_ERROR(SDK_ERROR_INDEX, "non-zero size", vec({}).mode());
}

void in_place_and_random() {
  sdk::Tensor x = sdk::zeros({2, 3}, sdk::kDouble);
  x.put_(longs({0, 5, -2}, {3}), vec({1, 2, 3}));
  EXPECT(values(x) == V{1, 0, 0, 0, 3, 2});
  x.put_(longs({0, 0}, {2}), vec({1, 1}), true);
  EXPECT(values(x).at(0) == 3.0);
  sdk::Tensor t = sdk::zeros({3, 2}, sdk::kDouble).t();  // not contiguous: row-major of t
  t.put_(longs({1}, {1}), vec({9}));
  EXPECT(values(t) == V{0, 9, 0, 0, 0, 0});
  EXPECT(values(x.put(longs({1}, {1}), vec({5}))) == V{3, 5, 0, 0, 3, 2});
  EXPECT(values(x).at(1) == 0.0);
  EXPECT_ERROR(SDK_ERROR_INDEX, "out of range", x.put_(longs({6}, {1}), vec({1})));
  EXPECT_ERROR(SDK_ERROR_TYPE, "same dtype", x.put_(longs({0}, {1}), longs({1}, {1})));
  EXPECT_ERROR(SDK_ERROR_TYPE, "long tensor", x.put_(vec({0}), vec({1})));

  sdk::manual_seed(3);
  sdk::Tensor coin = sdk::zeros({4000}, sdk::kFloat);
  coin.bernoulli_(0.3);
  EXPECT_NEAR(coin.mean().item<double>(), 0.3, 0.05);
  EXPECT(values(coin.eq(0).logical_or(coin.eq(1)).all()) == V{1});
  EXPECT(values(sdk::zeros({5}, sdk::kLong).bernoulli_(1.0)) == V{1, 1, 1, 1, 1});
  EXPECT(values(sdk::ones({3}).bernoulli_(vec({0, 1, 0}))) == V{0, 1, 0});
  EXPECT_ERROR(SDK_ERROR_VALUE, "[0, 1]", coin.bernoulli_(1.5));
  sdk::Tensor e = sdk::empty({4000}, sdk::kDouble);
  e.exponential_(2.0);
  EXPECT_NEAR(e.mean().item<double>(), 0.5, 0.05);
  EXPECT(e.min().item<double>() >= 0.0);
  EXPECT_ERROR(SDK_ERROR_TYPE, "floating point", sdk::zeros({2}, sdk::kLong).exponential_());
  EXPECT_ERROR(SDK_ERROR_VALUE, "lambda", e.exponential_(0));

  sdk::Tensor g = sdk::arange(6, sdk::kDouble).reshape({1, 2, 3});
  void* data = g.data_ptr();
  EXPECT(&g.squeeze_() == &g && same_sizes(g, {2, 3}) && g.data_ptr() == data);
  g.unsqueeze_(-1);
  EXPECT(same_sizes(g, {2, 3, 1}));
  g.squeeze_(2);
  EXPECT(same_sizes(g, {2, 3}));
  g.unsqueeze_(0).squeeze_(std::vector<int64_t>{0});
  EXPECT(same_sizes(g, {2, 3}) && values(g) == V{0, 1, 2, 3, 4, 5});
  sdk::Tensor alias = g;  // another holder of the same tensor sees the new geometry
  g.transpose_(0, 1);     // to non-contiguous strides, in place (sdk_as_strided_)
  EXPECT(same_sizes(alias, {3, 2}) && !alias.is_contiguous() && g.data_ptr() == data);
  EXPECT(values(g) == V({0, 3, 1, 4, 2, 5}));
  sdk::Tensor buf = sdk::zeros({2, 3, 4});  // a kernel's out_buf.transpose_(1, 2), then a copy
  buf.transpose_(1, 2);
  EXPECT(same_sizes(buf, {2, 4, 3}) && buf.stride(1) == 1 && buf.stride(2) == 4);
  g.transpose_(0, 1);  // back: contiguous again
  EXPECT(same_sizes(g, {2, 3}) && g.is_contiguous() && values(g) == V{0, 1, 2, 3, 4, 5});
  sdk::Tensor r = vec({1, 2, 3, 4});
  r.resize_as_(sdk::empty({2, 2}));
  EXPECT(same_sizes(r, {2, 2}) && values(r) == V{1, 2, 3, 4});
  EXPECT(&r.detach_() == &r && !r.requires_grad());
}

void nn_functions() {
  sdk::Tensor x = vec({1, 2, 3});
  EXPECT(values(sdk::pad(x, {1, 2}, "constant", 9)) == V{9, 1, 2, 3, 9, 9});
  EXPECT(values(sdk::pad(x, {1, 0})) == V{0, 1, 2, 3});
  EXPECT(values(sdk::pad(x, {2, 1}, "reflect")) == V{3, 2, 1, 2, 3, 2});
  EXPECT(values(sdk::pad(x, {2, 1}, "replicate")) == V{1, 1, 1, 2, 3, 3});
  EXPECT(values(sdk::pad(x, {2, 1}, "circular")) == V{2, 3, 1, 2, 3, 1});
  sdk::Tensor sq = sdk::pad(mat({1, 2, 3, 4}, {2, 2}), {1, 1, 1, 1}, "reflect");
  EXPECT(same_sizes(sq, {4, 4}));
  EXPECT(values(sq) == V{4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1});
  EXPECT(values(sdk::pad(longs({5, 6}, {2}), {1, 1}, "replicate")) == V{5, 5, 6, 6});
  EXPECT_ERROR(SDK_ERROR_VALUE, "less than", sdk::pad(x, {3, 0}, "reflect"));
  EXPECT_ERROR(SDK_ERROR_VALUE, "unrecognised", sdk::pad(x, {1, 1}, "mirror"));
  EXPECT_ERROR(SDK_ERROR_VALUE, "value", sdk::pad(x, {1, 1}, "reflect", 1.0));

  sdk::Tensor p = vec({0.5, 0.9}), t = vec({1, 0});
  EXPECT(near(values(sdk::binary_cross_entropy(p, t, {}, sdk::Reduction::None)),
              V{0.6931471805599453, 2.302585092994045}));
  EXPECT_NEAR(sdk::binary_cross_entropy(p, t).item<double>(), 1.4978661367769952, 1e-9);
  EXPECT_NEAR(sdk::binary_cross_entropy(p, t, {}, sdk::Reduction::Sum).item<double>(),
              2.9957322735539904, 1e-9);
  EXPECT(near(values(sdk::binary_cross_entropy(p, t, vec({2, 1}), sdk::Reduction::None)),
              V{1.3862943611198906, 2.302585092994045}));
  EXPECT_NEAR(sdk::binary_cross_entropy(vec({0}), vec({1})).item<double>(), 100.0, 1e-9);
  EXPECT_ERROR(SDK_ERROR_VALUE, "between 0 and 1", sdk::binary_cross_entropy(vec({1.5}), vec({1})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "same size", sdk::binary_cross_entropy(p, vec({1})));
  EXPECT_ERROR(SDK_ERROR_TYPE, "floating point",
               sdk::binary_cross_entropy(longs({1}, {1}), longs({1}, {1})));

  sdk::Tensor a = mat({0, 0, 1, 1}, {2, 2}), b = mat({3, 4, 1, 1}, {2, 2});
  sdk::Tensor d = sdk::pairwise_distance(a, b);
  EXPECT(same_sizes(d, {2}) && near(values(d), V{4.9999986, 1.4142136e-06}, 1e-6));
  EXPECT(same_sizes(sdk::pairwise_distance(a, b, 2, 1e-6, true), {2, 1}));
  EXPECT(near(values(sdk::pairwise_distance(a, b, 1, 0)), V{7, 0}));

  sdk::Tensor img = sdk::arange(25, sdk::kDouble).reshape({1, 1, 5, 5});  // x[r][c] = 5 r + c
  sdk::Tensor pooled = sdk::adaptive_avg_pool2d(img, {2, 2});
  EXPECT(same_sizes(pooled, {1, 1, 2, 2}) && near(values(pooled), V{6, 8, 16, 18}));
  EXPECT(near(values(sdk::adaptive_avg_pool2d(img, {5, 5})), values(img)));
  EXPECT(near(values(sdk::adaptive_avg_pool2d(img[0], {1, 1})), V{12}));
  sdk::Tensor wide = sdk::adaptive_avg_pool2d(img[0], {3, 2});  // rows [0,2) [1,4) [3,5)
  EXPECT(same_sizes(wide, {1, 3, 2}) && near(values(wide), V{3.5, 5.5, 11, 13, 18.5, 20.5}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "not implemented",
               sdk::adaptive_avg_pool2d(longs({1}, {1, 1, 1}), {1, 1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "3D or 4D", sdk::adaptive_avg_pool2d(mat({1}, {1, 1}), {1, 1}));

  sdk::Tensor quad = mat({1, 2, 3, 4}, {1, 1, 2, 2});
  EXPECT(near(values(sdk::upsample_bilinear2d(quad, {3, 3}, true)),
              V{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  V up = {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4};
  EXPECT(near(values(sdk::upsample_bilinear2d(quad, {4, 4}, false)), up));
  sdk::Tensor upf = sdk::upsample_bilinear2d(quad.to(sdk::kFloat), {4, 4}, false, 2.0, 2.0);
  EXPECT(upf.scalar_type() == sdk::kFloat && near(values(upf), up, 1e-6));
  EXPECT(near(values(sdk::upsample_bilinear2d(quad, {1, 1}, false)), V{2.5}));  // the centre
  EXPECT(near(values(sdk::upsample_bilinear2d(quad, {2, 2}, true)), values(quad)));
  EXPECT_ERROR(SDK_ERROR_TYPE, "not implemented",
               sdk::upsample_bilinear2d(longs({1}, {1, 1, 1, 1}), {2, 2}, false));
  EXPECT_ERROR(SDK_ERROR_VALUE, "4-d", sdk::upsample_bilinear2d(quad[0], {2, 2}, false));
}

void grid_sampling() {
  sdk::Tensor img = mat({1, 2, 3, 4}, {1, 1, 2, 2});
  auto at = [&](V xy, int64_t mode, int64_t padding, bool align) {
    sdk::Tensor grid = vec(xy).reshape({1, 1, -1, 2});
    return values(sdk::grid_sampler(img, grid, mode, padding, align));
  };
  EXPECT(near(at({-1, -1, 1, 1, 0, 0, 0, -1}, 0, 0, true), V{1, 4, 2.5, 1.5}));
  EXPECT(near(at({0, 0, -1, -1}, 0, 0, false), V{2.5, 0.25}));  // 3 of 4 corners outside
  EXPECT(near(at({-1, -1}, 0, 1, false), V{1}));                // border
  EXPECT(near(at({-1, -1}, 0, 2, false), V{1}));                // reflection
  EXPECT(near(at({2, 0}, 0, 0, true), V{1.5}));
  EXPECT(near(at({2, 0}, 0, 1, true), V{3}));
  EXPECT(near(at({2, 0}, 0, 2, true), V{2.5}));
  EXPECT(near(at({0.2, -1, 0, 1}, 1, 0, true), V{2, 3}));  // nearest: 0.5 rounds to even
  // The identity grid reproduces the input (align_corners: pixel centres at -1 and 1).
  sdk::manual_seed(9);
  sdk::Tensor x = sdk::randn({2, 3, 4, 5}, sdk::kDouble);
  sdk::Tensor gx = sdk::linspace(-1, 1, 5, sdk::kDouble).view({1, 1, 5}).expand({2, 4, 5});
  sdk::Tensor gy = sdk::linspace(-1, 1, 4, sdk::kDouble).view({1, 4, 1}).expand({2, 4, 5});
  sdk::Tensor id = sdk::stack({gx, gy}, 3);
  EXPECT(near(values(sdk::grid_sampler(x, id, 0, 0, true)), values(x), 1e-12));
  EXPECT(near(values(sdk::grid_sampler(x, id, 1, 0, true)), values(x), 1e-12));
  EXPECT(near(values(sdk::grid_sampler(x.to(sdk::kFloat), id.to(sdk::kFloat), 0, 1, true)),
              values(x), 1e-5));
  EXPECT_ERROR(SDK_ERROR_TYPE, "same floating point",
               sdk::grid_sampler(x, id.to(sdk::kFloat), 0, 0, true));
  EXPECT_ERROR(SDK_ERROR_NOT_IMPLEMENTED, "bicubic", sdk::grid_sampler(x, id, 2, 0, true));
  EXPECT_ERROR(SDK_ERROR_VALUE, "grid", sdk::grid_sampler(x, id[0], 0, 0, true));
}

void convolutions() {
  sdk::Tensor col = vec({1, 2, 3}).reshape({1, 1, 3, 1, 1}),
              k2 = vec({1, 10}).reshape({1, 1, 2, 1, 1});
  EXPECT(values(sdk::conv3d(col, k2)) == V{21, 32});
  EXPECT(values(sdk::conv3d(col, k2, {}, 1, {1, 0, 0})) == V{10, 21, 32, 3});
  sdk::Tensor col5 = vec({1, 2, 3, 4, 5}).reshape({1, 5, 1, 1});  // unbatched (C, D, H, W)
  sdk::Tensor strided = sdk::conv3d(col5, k2, {}, {2, 1, 1}, 0, {2, 1, 1});
  EXPECT(same_sizes(strided, {1, 2, 1, 1}) && values(strided) == V{31, 53});
  sdk::manual_seed(5);
  sdk::Tensor x = sdk::randn({2, 4, 3, 6, 5}, sdk::kDouble),
              w = sdk::randn({6, 2, 1, 3, 2}, sdk::kDouble);
  sdk::Tensor bias = sdk::randn({6}, sdk::kDouble);
  sdk::Tensor y = sdk::conv3d(x, w, bias, 1, {0, 1, 0}, 1, 2);
  EXPECT(same_sizes(y, {2, 6, 3, 6, 4}));
  sdk::Tensor slice = sdk::conv2d(x.select(2, 1), w.select(2, 0), bias, 1, {1, 0}, 1, 2);
  EXPECT(near(values(y.select(2, 1)), values(slice), 1e-12));
  EXPECT_ERROR(SDK_ERROR_VALUE, "5-d", sdk::conv3d(x, w.select(2, 0)));

  sdk::Tensor img = mat({1, 2, 3, 4}, {1, 1, 2, 2}), eye2 = mat({1, 0, 0, 1}, {1, 1, 2, 2});
  EXPECT(values(sdk::conv_transpose2d(img, eye2)) == V{1, 2, 0, 3, 5, 2, 0, 3, 4});
  sdk::Tensor row = mat({1, 2}, {1, 1, 2}), k = mat({1, 10}, {1, 1, 1, 2});  // unbatched
  EXPECT(values(sdk::conv_transpose2d(row, k)) == V{1, 12, 20});
  EXPECT(values(sdk::conv_transpose2d(row, k, {}, 2)) == V{1, 10, 2, 20});
  EXPECT(values(sdk::conv_transpose2d(row, k, {}, 2, 0, {0, 1})) == V{1, 10, 2, 20, 0});
  // <conv2d(u, W), v> == <u, conv_transpose2d(v, W)>: the transpose, with every option.
  sdk::Tensor u = sdk::randn({2, 4, 7, 8}, sdk::kDouble),
              W = sdk::randn({6, 2, 3, 2}, sdk::kDouble);
  sdk::Tensor cu = sdk::conv2d(u, W, {}, {2, 1}, {1, 0}, {1, 2}, 2);
  EXPECT(same_sizes(cu, {2, 6, 4, 6}));
  sdk::Tensor v = sdk::randn({2, 6, 4, 6}, sdk::kDouble);
  sdk::Tensor tv = sdk::conv_transpose2d(v, W, {}, {2, 1}, {1, 0}, 0, 2, {1, 2});
  EXPECT(same_sizes(tv, {2, 4, 7, 8}));
  EXPECT_NEAR((cu * v).sum().item<double>(), (u * tv).sum().item<double>(), 1e-9);
  sdk::Tensor tb = sdk::conv_transpose2d(v, W, vec({1, 2, 3, 4}), {2, 1}, {1, 0}, 0, 2, {1, 2});
  EXPECT(near(values(tb - tv), values(vec({1, 2, 3, 4}).view({1, 4, 1, 1}).expand({2, 4, 7, 8})),
              1e-12));
  EXPECT_ERROR(SDK_ERROR_VALUE, "output padding", sdk::conv_transpose2d(row, k, {}, 1, 0, 1));
}

void linear_algebra() {
  EXPECT(values(sdk::cross(vec({1, 0, 0}), vec({0, 1, 0}))) == V{0, 0, 1});
  EXPECT(values(vec({1, 2, 3}).cross(vec({4, 5, 6}))) == V{-3, 6, -3});
  sdk::Tensor rows = mat({1, 2, 3, 1, 0, 0}, {2, 3}), other = mat({4, 5, 6, 0, 1, 0}, {2, 3});
  EXPECT(values(sdk::cross(rows, other, 1)) == V{-3, 6, -3, 0, 0, 1});
  EXPECT(values(sdk::linalg_cross(rows, vec({0, 1, 0}).reshape({1, 3}))) == V{-3, 0, 1, 0, 0, 1});
  EXPECT(values(sdk::cross(rows.t(), other.t())) == V{-3, 0, 6, 0, -3, 1});  // first dim of 3
  EXPECT(sdk::cross(longs({1, 0, 0}, {3}), longs({0, 1, 0}, {3})).scalar_type() == sdk::kLong);
  EXPECT_ERROR(SDK_ERROR_VALUE, "length 3", sdk::linalg_cross(vec({1, 2}), vec({3, 4})));

  sdk::Tensor x1 = mat({0, 0, 1, 0}, {2, 2}), x2 = mat({0, 3, 4, 0, 1, 0}, {3, 2});
  sdk::Tensor cd = sdk::cdist(x1, x2);
  EXPECT(same_sizes(cd, {2, 3}) && near(values(cd), V{3, 4, 1, std::sqrt(10.0), 3, 0}));
  EXPECT(near(values(sdk::cdist(x1, x2, 1)), V{3, 4, 1, 4, 3, 0}));
  EXPECT(near(values(sdk::cdist(x1, x2, INFINITY)), V{3, 4, 1, 3, 3, 0}));
  EXPECT(same_sizes(sdk::cdist(x1.expand({4, 2, 2}), x2), {4, 2, 3}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "floating-point", sdk::cdist(longs({1, 2}, {1, 2}), x1));
  EXPECT_ERROR(SDK_ERROR_VALUE, "same number of columns", sdk::cdist(x1, mat({1, 2, 3}, {1, 3})));

  sdk::Tensor A = mat({4, 7, 2, 6}, {2, 2});
  EXPECT(near(values(sdk::inverse(A)), V{0.6, -0.7, -0.2, 0.4}));
  sdk::Tensor A3 = mat({6, 1, 1, 4, -2, 5, 2, 8, 7}, {3, 3});
  EXPECT(near(values(A3.matmul(A3.inverse())), values(sdk::eye(3, sdk::kDouble)), 1e-12));
  sdk::Tensor Af = A.to(sdk::kFloat).expand({2, 2, 2});
  sdk::Tensor inv_f = Af.inverse();
  EXPECT(inv_f.scalar_type() == sdk::kFloat && same_sizes(inv_f, {2, 2, 2}));
  EXPECT(near(values(inv_f), V{0.6, -0.7, -0.2, 0.4, 0.6, -0.7, -0.2, 0.4}, 1e-6));
  EXPECT(values(A).at(0) == 4.0);  // the input is left alone
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "singular", sdk::inverse(mat({1, 2, 2, 4}, {2, 2})));
  EXPECT_ERROR(SDK_ERROR_TYPE, "float32 or float64", sdk::inverse(longs({1}, {1, 1})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "square", sdk::inverse(mat({1, 2}, {1, 2})));

  EXPECT_NEAR(sdk::det(A).item<double>(), 10.0, 1e-12);
  EXPECT_NEAR(mat({0, 1, 1, 0}, {2, 2}).det().item<double>(), -1.0, 1e-12);
  EXPECT_NEAR(A3.det().item<double>(), -306.0, 1e-9);
  EXPECT(sdk::det(mat({1, 2, 2, 4}, {2, 2})).item<double>() == 0.0);
  sdk::Tensor dets = sdk::det(sdk::stack({A, A3.narrow(0, 0, 2).narrow(1, 0, 2)}));
  EXPECT(same_sizes(dets, {2}) && near(values(dets), V{10, -16}));
  EXPECT(sdk::det(sdk::empty({0, 0}, sdk::kDouble)).item<double>() == 1.0);

  sdk::Tensor S = mat({4, 12, -16, 12, 37, -43, -16, -43, 98}, {3, 3});
  V L = {2, 0, 0, 6, 1, 0, -8, 5, 3}, U = {2, 6, -8, 0, 1, 5, 0, 0, 3};
  EXPECT(near(values(sdk::cholesky(S)), L, 1e-12));
  EXPECT(near(values(S.cholesky(true)), U, 1e-12));
  EXPECT(near(values(S.tril().cholesky()), L, 1e-12));      // reads the lower triangle
  EXPECT(near(values(S.triu().cholesky(true)), U, 1e-12));  // or the upper one
  EXPECT(S.to(sdk::kFloat).cholesky().scalar_type() == sdk::kFloat);
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "positive-definite", sdk::cholesky(mat({1, 2, 2, 1}, {2, 2})));

  sdk::Tensor T = mat({2, 1, 0, 4}, {2, 2}), rhs = mat({4, 8}, {2, 1});
  sdk::Tensor sol, coef;
  std::tie(sol, coef) = rhs.triangular_solve(T);
  EXPECT(near(values(sol), V{1, 2}) && values(coef) == values(T));
  EXPECT(near(values(std::get<0>(sdk::triangular_solve(rhs, T, true, true))), V{2, 1.5}));
  EXPECT(near(values(std::get<0>(sdk::triangular_solve(rhs, T, false))), V{2, 2}));
  EXPECT(near(values(std::get<0>(sdk::triangular_solve(rhs, T, true, false, true))), V{-4, 8}));
  std::tie(sol, coef) = sdk::triangular_solve(rhs.expand({3, 2, 1}), T);
  EXPECT(same_sizes(sol, {3, 2, 1}) && same_sizes(coef, {3, 2, 2}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "same dtype", sdk::triangular_solve(rhs.to(sdk::kFloat), T));
  EXPECT_ERROR(SDK_ERROR_VALUE, "Incompatible", sdk::triangular_solve(mat({1, 2, 3}, {3, 1}), T));
}

}  // namespace

int main() {
  creation_and_methods();
  counting_and_searching();
  in_place_and_random();
  nn_functions();
  convolutions();
  grid_sampling();
  linear_algebra();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
