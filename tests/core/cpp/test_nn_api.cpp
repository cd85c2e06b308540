// test_nn_api.cpp: sdk/nn.h (nn::functional with torch's options structs, nn::Module and the
// built-in modules) against hand-computed values; exits nonzero on any failure.
#include <sdk/nn.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "expect.h"

namespace {

namespace F = sdk::nn::functional;
using V = std::vector<double>;

V values(const sdk::Tensor& t) {
  auto c = t.to(sdk::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return V(p, p + c.numel());
}

bool near(const V& a, const V& b, double tol = 1e-6) {
  if (a.size() != b.size()) {
    std::printf("  size %zu != %zu\n", a.size(), b.size());
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::fabs(a[i] - b[i]) <= tol)) {
      std::printf("  at %zu: %.9g != %.9g\n", i, a[i], b[i]);
      return false;
    }
  }
  return true;
}

sdk::Tensor mat(V v, std::vector<int64_t> shape) {
  return sdk::from_blob(v.data(), {static_cast<int64_t>(v.size())}, sdk::kFloat64)
      .clone()
      .reshape(shape);
}

sdk::Tensor longs(std::vector<int64_t> v) {
  return sdk::from_blob(v.data(), {static_cast<int64_t>(v.size())}, sdk::kLong).clone();
}

void test_pad_and_modes() {
  auto x = mat({1, 2, 3}, {1, 1, 3});
  EXPECT(
      near(values(F::pad(x, F::PadFuncOptions({2, 1}).mode(sdk::kReflect))), {3, 2, 1, 2, 3, 2}));
  EXPECT(
      near(values(F::pad(x, F::PadFuncOptions({1, 2}).mode(sdk::kReplicate))), {1, 1, 2, 3, 3, 3}));
  EXPECT(near(values(F::pad(x, F::PadFuncOptions({1, 1}).mode(sdk::kCircular))), {3, 1, 2, 3, 1}));
  EXPECT(near(values(F::pad(x, F::PadFuncOptions({1, 0}).value(7))), {7, 1, 2, 3}));
  F::PadFuncOptions o({1, 1});
  EXPECT(std::holds_alternative<sdk::enumtype::kConstant>(o.mode()));
  EXPECT(o.pad().size() == 2 && o.value() == 0);
}

void test_conv_and_pool() {
  auto x = mat({1, 2, 3, 4, 5}, {1, 1, 5});
  auto w = mat({1, 0, -1}, {1, 1, 3});
  // cross-correlation with zero padding 1: [0-2, 1-3, 2-4, 3-5, 4-0]
  EXPECT(near(values(F::conv1d(x, w, F::Conv1dFuncOptions().padding(1))), {-2, -2, -2, -2, 4}));
  EXPECT(near(values(F::conv1d(x, w, F::Conv1dFuncOptions().stride(2))), {-2, -2}));
  EXPECT(F::conv1d(x, w, F::Conv1dFuncOptions().padding(sdk::kSame)).size(2) == 5);
  auto b = mat({10}, {1});
  EXPECT(near(values(F::conv1d(x, w, F::Conv1dFuncOptions().bias(b))), {8, 8, 8}));
  auto img = mat({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {1, 1, 4, 4});
  auto k = sdk::ones({1, 1, 2, 2}, sdk::kFloat64);
  EXPECT(near(values(F::conv2d(img, k, F::Conv2dFuncOptions().stride({2, 2}))), {14, 22, 46, 54}));
  EXPECT(near(values(F::max_pool2d(img, F::MaxPool2dFuncOptions(2))), {6, 8, 14, 16}));
  EXPECT(near(values(F::avg_pool2d(img, F::AvgPool2dFuncOptions({2, 2}))), {3.5, 5.5, 11.5, 13.5}));
  EXPECT(near(values(F::max_pool2d(img, F::MaxPool2dFuncOptions(2).stride(1))),
              {6, 7, 8, 10, 11, 12, 14, 15, 16}));
  EXPECT(near(values(F::adaptive_avg_pool2d(img, F::AdaptiveAvgPool2dFuncOptions(1))), {8.5}));
  EXPECT(near(values(F::max_pool1d(x, F::MaxPool1dFuncOptions(2))), {2, 4}));
  EXPECT(
      near(values(F::avg_pool1d(x, F::AvgPool1dFuncOptions(2).stride(1))), {1.5, 2.5, 3.5, 4.5}));
}

void test_interpolate_and_grid() {
  auto x = mat({1, 2}, {1, 1, 2});
  auto nearest = F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}));
  EXPECT(near(values(nearest), {1, 1, 2, 2}));
  auto lin = F::interpolate(x, F::InterpolateFuncOptions()
                                   .size(std::vector<int64_t>{3})
                                   .mode(sdk::kLinear)
                                   .align_corners(true));
  EXPECT(near(values(lin), {1, 1.5, 2}));
  auto img = mat({1, 2, 3, 4}, {1, 1, 2, 2});
  auto bil = F::interpolate(img, F::InterpolateFuncOptions()
                                     .scale_factor(std::vector<double>{2})
                                     .mode(sdk::kBilinear)
                                     .align_corners(false));
  // half-pixel centres: row 0 = [1, 1.25, 1.75, 2]
  EXPECT(bil.size(2) == 4 && bil.size(3) == 4);
  const V bv = values(bil);
  EXPECT(near(V(bv.begin(), bv.begin() + 4), {1, 1.25, 1.75, 2}));
  auto area = F::interpolate(
      img, F::InterpolateFuncOptions().size(std::vector<int64_t>{1, 1}).mode(sdk::kArea));
  EXPECT(near(values(area), {2.5}));
  EXPECT_ERROR(
      SDK_ERROR_VALUE, "align_corners",
      F::interpolate(
          img, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 4}).align_corners(true)));
  EXPECT_ERROR(SDK_ERROR_VALUE, "only one of size or scale_factor",
               F::interpolate(img, F::InterpolateFuncOptions()));
  // the identity grid with align_corners returns the input
  auto grid = mat({-1, -1, 1, -1, -1, 1, 1, 1}, {1, 2, 2, 2});
  EXPECT(near(values(F::grid_sample(img, grid, F::GridSampleFuncOptions().align_corners(true))),
              {1, 2, 3, 4}));
  EXPECT(near(values(F::grid_sample(img, grid * 3,
                                    F::GridSampleFuncOptions()
                                        .mode(sdk::kNearest)
                                        .padding_mode(sdk::kBorder)
                                        .align_corners(true))),
              {1, 2, 3, 4}));
}

void test_activations() {
  auto x = mat({-2, -0.5, 0, 1.5}, {4});
  EXPECT(near(values(F::relu(x)), {0, 0, 0, 1.5}));
  EXPECT(near(values(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.1))),
              {-0.2, -0.05, 0, 1.5}));
  EXPECT(near(values(F::elu(x, F::ELUFuncOptions().alpha(2))),
              {2 * (std::exp(-2.0) - 1), 2 * (std::exp(-0.5) - 1), 0, 1.5}));
  EXPECT(near(values(F::celu(x, F::CELUFuncOptions().alpha(2))),
              {2 * (std::exp(-1.0) - 1), 2 * (std::exp(-0.25) - 1), 0, 1.5}));
  EXPECT(near(values(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1).max_val(1))),
              {-1, -0.5, 0, 1}));
  EXPECT(near(values(F::softplus(x, F::SoftplusFuncOptions().beta(2))),
              {std::log1p(std::exp(-4.0)) / 2, std::log1p(std::exp(-1.0)) / 2, std::log(2.0) / 2,
               std::log1p(std::exp(3.0)) / 2}));
  EXPECT(near(values(F::logsigmoid(x)), {-std::log1p(std::exp(2.0)), -std::log1p(std::exp(0.5)),
                                         -std::log(2.0), -std::log1p(std::exp(-1.5))}));
  EXPECT(near(values(F::softshrink(x, 1.0)), {-1, 0, 0, 0.5}));
  EXPECT(near(values(F::hardshrink(x, F::HardshrinkFuncOptions(1.0))), {-2, 0, 0, 1.5}));
  EXPECT(near(values(F::threshold(x, F::ThresholdFuncOptions(0.5, -9))), {-9, -9, -9, 1.5}));
  EXPECT(near(values(F::glu(mat({1, 2, 0, 0}, {4}))), {0.5, 1}));
  auto y = x.clone();
  F::relu(y, F::ReLUFuncOptions(true));
  EXPECT(near(values(y), {0, 0, 0, 1.5}));
  auto s = F::softmax(mat({0, std::log(3.0)}, {1, 2}), F::SoftmaxFuncOptions(1));
  EXPECT(near(values(s), {0.25, 0.75}));
  EXPECT(near(values(F::softmin(mat({0, std::log(3.0)}, {1, 2}), 1)), {0.75, 0.25}));
  EXPECT(near(values(F::log_softmax(mat({0, 0}, {1, 2}), 1)), {-std::log(2.0), -std::log(2.0)}));
  EXPECT(near(values(F::prelu(mat({-1, 2, -3, 4}, {1, 2, 2}), mat({0.5, 0.25}, {2}))),
              {-0.5, 2, -0.75, 4}));
}

void test_normalization_and_misc() {
  auto x = mat({3, 4, 0, 5}, {2, 2});
  EXPECT(near(values(F::normalize(x, F::NormalizeFuncOptions().p(2).dim(1))), {0.6, 0.8, 0, 1}));
  EXPECT(near(values(F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0))),
              {1, 4.0 / 9, 0, 5.0 / 9}));
  auto ln = F::layer_norm(mat({1, 3}, {1, 2}), F::LayerNormFuncOptions({2}).eps(0));
  EXPECT(near(values(ln), {-1, 1}));
  auto w = mat({1, 2, 3, 4, 5, 6}, {3, 2});
  EXPECT(near(values(F::embedding(longs({2, 0}), w)), {5, 6, 1, 2}));
  auto oh = F::one_hot(longs({0, 2}));
  EXPECT(oh.size(1) == 3 && oh.scalar_type() == sdk::kLong);
  EXPECT(near(values(oh), {1, 0, 0, 0, 0, 1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "smaller than num_classes", F::one_hot(longs({3}), 2));
  EXPECT(near(values(F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false))), values(x)));
  EXPECT(near(values(F::dropout(x, F::DropoutFuncOptions().p(1))), {0, 0, 0, 0}));
  EXPECT(near(values(F::cosine_similarity(x, x, F::CosineSimilarityFuncOptions().dim(1))), {1, 1}));
  EXPECT(near(values(F::linear(mat({1, 2}, {1, 2}), mat({1, 1, 0, 1}, {2, 2}), mat({0, 1}, {2}))),
              {3, 3}));
  auto px = sdk::arange(8, sdk::kFloat64).reshape({1, 4, 1, 2});
  // channel c = 2 i + j goes to (i, j) of each 2x2 block
  EXPECT(near(values(F::pixel_shuffle(px, 2)), {0, 2, 1, 3, 4, 6, 5, 7}));
}

void test_unfold_fold() {
  auto img = sdk::arange(9, sdk::kFloat64).reshape({1, 1, 3, 3});
  auto cols = F::unfold(img, F::UnfoldFuncOptions({2, 2}));
  EXPECT(cols.size(1) == 4 && cols.size(2) == 4);
  // rows: kernel offsets (0,0) (0,1) (1,0) (1,1); columns: the 4 window positions
  EXPECT(near(values(cols), {0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8}));
  auto back = F::fold(cols, F::FoldFuncOptions({3, 3}, {2, 2}));
  // each pixel summed once per window that covers it
  EXPECT(near(values(back), {0, 2, 2, 6, 16, 10, 6, 14, 8}));
  auto padded = F::unfold(img, F::UnfoldFuncOptions(3).padding(1));
  EXPECT(padded.size(1) == 9 && padded.size(2) == 9);
}

void test_losses() {
  auto logits = mat({0, 0, std::log(3.0), 0}, {2, 2});
  auto target = longs({1, 0});
  // p(target) = 0.5 and 0.75
  const double l0 = std::log(2.0), l1 = -std::log(0.75);
  EXPECT_NEAR(F::cross_entropy(logits, target).item<double>(), (l0 + l1) / 2, 1e-9);
  EXPECT(near(
      values(F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().reduction(sdk::kNone))),
      {l0, l1}));
  EXPECT_NEAR(F::cross_entropy(logits, longs({1, -100})).item<double>(), l0, 1e-9);
  auto cw = mat({1, 3}, {2});
  EXPECT_NEAR(
      F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().weight(cw)).item<double>(),
      (3 * l0 + l1) / 4, 1e-9);
  // label smoothing 0.2 over 2 classes: 0.8 nll + 0.2 mean(-logp)
  const double sm1 = (-std::log(0.75) - std::log(0.25)) / 2;
  EXPECT_NEAR(F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().label_smoothing(0.2))
                  .item<double>(),
              (0.8 * l0 + 0.2 * std::log(2.0) + 0.8 * l1 + 0.2 * sm1) / 2, 1e-9);
  auto probs = mat({0, 1, 1, 0}, {2, 2});
  EXPECT_NEAR(F::cross_entropy(logits, probs).item<double>(), (l0 + l1) / 2, 1e-9);
  auto logp = sdk::log_softmax(logits, 1);
  EXPECT_NEAR(
      F::nll_loss(logp, target, F::NLLLossFuncOptions().reduction(sdk::kSum)).item<double>(),
      l0 + l1, 1e-9);
  auto a = mat({1, 2, 3}, {3}), b = mat({1, 4, 0}, {3});
  EXPECT_NEAR(F::mse_loss(a, b).item<double>(), 13.0 / 3, 1e-12);
  EXPECT_NEAR(F::mse_loss(a, b, F::MSELossFuncOptions(sdk::kSum)).item<double>(), 13, 1e-12);
  EXPECT_NEAR(F::l1_loss(a, b).item<double>(), 5.0 / 3, 1e-12);
  EXPECT_NEAR(F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions().beta(2.5)).item<double>(),
              (0 + 0.8 + 3 - 1.25) / 3, 1e-12);
  EXPECT_NEAR(F::huber_loss(a, b, F::HuberLossFuncOptions().delta(2.5)).item<double>(),
              (0 + 2 + 2.5 * (3 - 1.25)) / 3, 1e-12);
  auto lp = mat({std::log(0.5), std::log(0.5)}, {1, 2}), q = mat({0.25, 0.75}, {1, 2});
  const double kl = 0.25 * std::log(0.5) + 0.75 * std::log(1.5);
  EXPECT_NEAR(F::kl_div(lp, q, F::KLDivFuncOptions().reduction(sdk::kBatchMean)).item<double>(), kl,
              1e-12);
  auto x = mat({0, 2}, {2}), t = mat({1, 0}, {2});
  const double bce = (std::log(2.0) + 2 + std::log1p(std::exp(-2.0))) / 2;
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(x, t).item<double>(), bce, 1e-12);
  auto pw = mat({3, 3}, {2});
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(
                  x, t, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(pw))
                  .item<double>(),
              (3 * std::log(2.0) + 2 + std::log1p(std::exp(-2.0))) / 2, 1e-12);
  EXPECT_NEAR(F::binary_cross_entropy(mat({0.5}, {1}), mat({1}, {1})).item<double>(), std::log(2.0),
              1e-12);
}

// A module of the kind a ported extension defines: parameters, a buffer, a submodule.
struct BlockImpl : sdk::nn::Module {
  BlockImpl() : sdk::nn::Module("Block") {
    fc = register_module("fc", sdk::nn::Linear(sdk::nn::LinearOptions(2, 3).bias(false)));
    scale = register_parameter("scale", sdk::ones({3}));
    steps = register_buffer("steps", sdk::zeros({1}, sdk::kLong));
  }
  sdk::Tensor forward(const sdk::Tensor& x) { return F::relu(fc(x)) * scale; }
  sdk::nn::Linear fc{nullptr};
  sdk::Tensor scale, steps;
};
SDK_MODULE(Block);

void test_modules() {
  Block block;
  auto named = block->named_parameters();
  EXPECT(named.size() == 2);
  EXPECT(named.keys() == std::vector<std::string>{"scale", "fc.weight"});
  EXPECT(block->parameters(false).size() == 1);
  EXPECT(block->named_buffers().keys() == std::vector<std::string>{"steps"});
  // no autograd engine in a plain C++ program: parameters register as plain tensors
  EXPECT(!named["scale"].requires_grad());
  EXPECT(named["fc.weight"].size(0) == 3 && named["fc.weight"].size(1) == 2);
  EXPECT(block->children().size() == 1 && block->modules().size() == 2);
  EXPECT(block->name() == "Block" && block->fc->name() == "Linear");
  // Linear's default init: |w| <= 1 / sqrt(in_features)
  EXPECT(values(block->fc->weight.abs().max())[0] <= 1 / std::sqrt(2.0));
  block->fc->weight.detach().copy_(mat({1, 0, 0, 1, -1, -1}, {3, 2}));
  EXPECT(near(values(block(mat({2, 3}, {1, 2}).to(sdk::kFloat))), {2, 3, 0}));
  block->eval();
  EXPECT(!block->is_training() && !block->fc->is_training());
  block->train();
  EXPECT(block->fc->is_training());
  block->to(sdk::kFloat64);
  EXPECT(block->fc->weight.scalar_type() == sdk::kFloat64);
  EXPECT(block->named_buffers()["steps"].scalar_type() == sdk::kLong);
  EXPECT_ERROR(SDK_ERROR_VALUE, "already registered",
               block->register_parameter("scale", sdk::ones({1})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "no dot", block->register_buffer("a.b", sdk::ones({1})));

  sdk::nn::Linear lin(2, 2);
  sdk::nn::ModuleHolder<sdk::nn::LinearImpl> holder = lin, same = holder;  // copies share
  EXPECT(same.ptr() == lin.ptr() && !sdk::nn::Linear(nullptr));
  auto copy = lin->clone();
  EXPECT(near(values(copy->weight), values(lin->weight)));
  copy->weight.detach().fill_(0);
  EXPECT(values(lin->weight) != values(copy->weight));

  sdk::nn::Sequential seq(sdk::nn::Linear(2, 2), sdk::nn::ReLU());
  seq->named_parameters()["0.weight"].detach().copy_(mat({1, 0, 0, -1}, {2, 2}).to(sdk::kFloat));
  seq->named_parameters()["0.bias"].detach().zero_();
  EXPECT(near(values(seq(mat({3, 4}, {1, 2}).to(sdk::kFloat))), {3, 0}));
  EXPECT(seq->size() == 2 && seq->parameters().size() == 2);
  sdk::nn::Conv2d conv(sdk::nn::Conv2dOptions(1, 2, 3).padding(1).bias(false));
  EXPECT(conv(sdk::ones({1, 1, 4, 4})).size(1) == 2);
  sdk::nn::ModuleList list(sdk::nn::Linear(1, 1), conv);
  EXPECT(list->size() == 2 && list->ptr<sdk::nn::Conv2dImpl>(1) == conv.ptr());
  EXPECT_ERROR(SDK_ERROR_TYPE, "requested type", list->ptr<sdk::nn::LinearImpl>(1));
  EXPECT(list->parameters().size() == 3);
}

}  // namespace

int main() {
  test_pad_and_modes();
  test_conv_and_pool();
  test_interpolate_and_grid();
  test_activations();
  test_normalization_and_misc();
  test_unfold_fold();
  test_losses();
  test_modules();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
