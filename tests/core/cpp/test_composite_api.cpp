// test_composite_api.cpp: torch's composite ops of sdk/composite.h and the c10/ATen utilities
// ported code calls (expand_utils.h, util.h, numeric_limits.h, acc_type.h). With the argument
// `values` it prints each op's result on fixed inputs ("name|shape|values") for the Python
// test to compare with numpy; otherwise it checks errors and the utilities, exiting nonzero on
// a failure.
#include <sdk/all.h>
#include <sdk/div_rtn.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "expect.h"

namespace {

using Ints = std::vector<int64_t>;
using sdk::Tensor;

// The inputs; the Python test builds the same ones with numpy.
Tensor x3() { return sdk::arange(24, sdk::kDouble).sin().reshape({2, 3, 4}); }
Tensor m2() { return (sdk::arange(12, sdk::kDouble) * 0.7).sin().reshape({3, 4}); }
Tensor v1() { return sdk::tensor({0.5, -1.5, 2.0, -0.0, 3.25}, sdk::kDouble); }
Tensor specials() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  return sdk::tensor({-0.0, 0.0, -nan, nan, -inf, inf, 1.0, -2.0}, sdk::kDouble);
}

void print(const char* name, const Tensor& t) {
  Tensor c = t.to(sdk::kDouble).contiguous();
  std::printf("%s|", name);
  for (int64_t d = 0; d < c.dim(); ++d) std::printf("%s%lld", d ? " " : "", (long long)c.size(d));
  std::printf("|");
  const double* p = c.data_ptr<double>();
  for (int64_t i = 0; i < c.numel(); ++i) std::printf("%s%.17g", i ? " " : "", p[i]);
  std::printf("\n");
}
void print_all(const char* name, const std::vector<Tensor>& ts) {
  for (size_t i = 0; i < ts.size(); ++i)
    print((std::string(name) + "." + std::to_string(i)).c_str(), ts[i]);
}

int print_values() {
  const Tensor x = x3(), m = m2(), v = v1(), s = specials();
  const Tensor ints = sdk::tensor({3, 3, 1, 4, 4, 4, 2, 3, 3}, sdk::kLong);
  print("absolute", sdk::absolute(v));
  print("negative", v.negative());
  print("greater", sdk::greater(m, 0.1));
  print("less_equal", m.less_equal(m.flip({0})));
  print("not_equal", sdk::not_equal(ints, 3));
  print("ravel", m.t().ravel());
  print("broadcast_to", sdk::broadcast_to(v, {2, 5}));
  print("tile", sdk::tile(m, {2, 1, 3}));
  print("tile_short", m.tile({2}));
  print_all("tensor_split_sections", sdk::tensor_split(sdk::arange(10), 3));
  print_all("tensor_split_indices", x.tensor_split(Ints{1, 3, 9}, 2));
  print_all("tensor_split_tensor", x.tensor_split(sdk::tensor({1, 2}), 1));
  print_all("hsplit", m.hsplit(2));
  print_all("vsplit", x.vsplit(Ints{1}));
  print_all("dsplit", x.dsplit(2));
  print("atleast_3d", sdk::atleast_3d(v));
  print("atleast_2d", sdk::atleast_2d(sdk::tensor(2.5)));
  print("fliplr", m.fliplr());
  print("flipud", sdk::flipud(m));
  print("rot90_1", m.rot90());
  print("rot90_2", sdk::rot90(m, 2));
  print("rot90_3", x.rot90(3, {2, 0}));
  print("rot90_m1", x.rot90(-1, {1, 2}));
  print("diagflat", v.diagflat(1));
  print("column_stack", sdk::column_stack({v, v * 2, sdk::ones({5, 2}, sdk::kDouble)}));
  print("dstack", sdk::dstack({m, m * 3}));
  print("row_stack", sdk::row_stack({v, v}));
  print("block_diag", sdk::block_diag({m, sdk::tensor(7.0), v}));
  print("cartesian_prod", sdk::cartesian_prod({sdk::arange(3), sdk::arange(2) * 10}));
  print("select_scatter", m.select_scatter(sdk::zeros({3}, sdk::kDouble), 1, 2));
  print("slice_scatter",
        x.slice_scatter(sdk::ones({2, 3, 2}, sdk::kDouble), 2, 1, std::nullopt, 2));
  print("diagonal_scatter", m.diagonal_scatter(sdk::full({3}, 5.0, sdk::kDouble), 1));
  print("sum_to_size", x.sum_to_size({3, 1}));
  print("movedim", x.movedim(Ints{0, 2}, Ints{2, 0}));
  print("moveaxis", sdk::moveaxis(x, Ints{0}, Ints{-1}));
  print("deg2rad", sdk::deg2rad(ints));
  print("rad2deg", m.rad2deg());
  print("signbit", s.signbit());
  print("signbit_int", sdk::signbit(sdk::tensor({-3, 0, 5})));
  print("sinc", sdk::sinc(sdk::cat({v, sdk::zeros({1}, sdk::kDouble)})));
  print("logaddexp2", m.logaddexp2(m.flip({1}) * 3));
  print("logaddexp2_inf", sdk::logaddexp2(s, s));
  print("heaviside", sdk::heaviside(s, sdk::full({8}, 0.5, sdk::kDouble)));
  print("float_power", sdk::float_power(m.abs(), 1.5));
  print("float_power_t", sdk::float_power(sdk::tensor({2, 3, 4}), sdk::tensor({-1, 2, 0})));
  print("ldexp", sdk::ldexp(v, sdk::tensor({1, 2, -1, 3, 0})));
  print("nansum", s.narrow(0, 2, 2).add(1).nansum());
  print("nansum_dim", sdk::nansum(x.where(x.gt(0.5), sdk::full({}, NAN, x.options())), {1}));
  print("nanmean_dim", x.where(x.gt(0.5), sdk::full({}, NAN, x.options())).nanmean({2}, true));
  print("aminmax_min", std::get<0>(x.aminmax(1)));
  print("aminmax_max", std::get<1>(sdk::aminmax(x)));
  print("trace", m.trace());
  print("kron", sdk::kron(m.narrow(0, 0, 2), sdk::tensor({1.0, -1.0})));
  print("kron3", x.narrow(1, 0, 2).kron(m.narrow(1, 0, 2)));
  print("inner", sdk::inner(x, m));
  print("vdot", v.vdot(v.flip({0})));
  print("dist", sdk::dist(m, m.flip({0}), 3));
  print("isin", sdk::isin(ints, sdk::tensor({4, 2, 9})));
  print("isin_invert", sdk::isin(m.gt(0).to(sdk::kLong), sdk::tensor({1}), false, true));
  print("cov", m.cov());
  print("cov_weights",
        sdk::cov(m, 0, sdk::tensor({1, 2, 1, 3}), sdk::tensor({0.5, 1.0, 2.0, 1.0}, sdk::kDouble)));
  print("corrcoef", m.corrcoef());
  print("trapezoid", sdk::trapezoid(m, 0.5));
  print("trapezoid_x", sdk::trapezoid(m, sdk::tensor({0.0, 1.0, 3.0, 3.5}, sdk::kDouble)));
  auto u = sdk::unique_consecutive(ints, true, true);
  print("unique_consecutive.0", std::get<0>(u));
  print("unique_consecutive.1", std::get<1>(u));
  print("unique_consecutive.2", std::get<2>(u));
  print("tril_indices", sdk::tril_indices(4, 3, 1));
  print("triu_indices", sdk::triu_indices(3, 5, -1));
  print("range", sdk::range(1, 4, 0.5, sdk::kDouble));
  print("hann", sdk::hann_window(7, sdk::kDouble));
  print("hann_sym", sdk::hann_window(7, false, sdk::kDouble));
  print("hamming", sdk::hamming_window(6, sdk::kDouble));
  print("bartlett_sym", sdk::bartlett_window(6, false, sdk::kDouble));
  print("blackman", sdk::blackman_window(9, sdk::kDouble));
  // ATen's top-level nn spellings (sdk/nn_aten.h)
  const Tensor img = sdk::arange(96, sdk::kDouble).sin().reshape({2, 2, 4, 6});
  const Tensor w3 = sdk::tensor({0.1, 0.2, 0.3}, sdk::kDouble);
  print("one_hot", sdk::one_hot(sdk::tensor({0, 2, 1}), 4));
  print("glu", sdk::glu(m, -1));
  print("selu", sdk::selu(v));
  print("celu", sdk::celu(v, 0.5));
  print("hardshrink", sdk::hardshrink(v, 1.0));
  print("softshrink", sdk::softshrink(v, 1.0));
  print("threshold", sdk::threshold(v, 0.6, -7));
  print("log_sigmoid", sdk::log_sigmoid(v));
  print("hardsigmoid", sdk::hardsigmoid(v * 2));
  print("hardswish", sdk::hardswish(v * 2));
  print("prelu", sdk::prelu(x, w3));
  print("l1_loss_mean", sdk::l1_loss(m, m.flip({0})));
  print("l1_loss_none", sdk::l1_loss(m, m.flip({0}), sdk::Reduction::None));
  print("smooth_l1_loss", sdk::smooth_l1_loss(m, sdk::zeros_like(m), sdk::Reduction::Sum, 0.5));
  print("huber_loss", sdk::huber_loss(m * 3, sdk::zeros_like(m), sdk::Reduction::Mean, 1.5));
  print("kl_div", sdk::kl_div(m.log_softmax(1), m.flip({1}).softmax(1), sdk::Reduction::Sum));
  print("bce_logits",
        sdk::binary_cross_entropy_with_logits(m * 2, m.flip({0}).sigmoid(), w3.reshape({3, 1}),
                                              sdk::full({4}, 1.5, sdk::kDouble)));
  print("pixel_unshuffle", sdk::pixel_unshuffle(img, 2));
  print("pixel_round_trip", sdk::pixel_shuffle(sdk::pixel_unshuffle(img, 2), 2));
  print("channel_shuffle",
        sdk::channel_shuffle(sdk::arange(24, sdk::kDouble).reshape({2, 6, 2}), 3));
  const Tensor cols = sdk::im2col(img, {2, 3}, {1, 1}, {0, 1}, {2, 1});
  print("im2col", cols);
  print("col2im", sdk::col2im(cols, {4, 6}, {2, 3}, {1, 1}, {0, 1}, {2, 1}));
  print("max_pool1d", sdk::max_pool1d(x, {2}));
  print("avg_pool1d", sdk::avg_pool1d(x, {3}, {1}, {1}));
  print("adaptive_avg_pool1d", sdk::adaptive_avg_pool1d(x, {2}));
  const Tensor wt = (sdk::arange(18, sdk::kDouble) * 0.3).cos().reshape({3, 2, 3});
  print("conv_transpose1d",
        sdk::conv_transpose1d(x, wt, sdk::tensor({0.5, -0.5}, sdk::kDouble), {2}, {1}, {1}));
  print("instance_norm",
        sdk::instance_norm(img, sdk::tensor({2.0, 3.0}, sdk::kDouble),
                           sdk::tensor({0.1, -0.1}, sdk::kDouble), {}, {}, true, 0.1, 1e-5));
  print("rms_norm", sdk::rms_norm(x, {4}, sdk::tensor({1.0, 2.0, 3.0, 4.0}, sdk::kDouble), 1e-6));
  print("sdpa_causal", sdk::scaled_dot_product_attention(x, x.flip({2}), x * 2, {}, 0.0, true));
  print("sdpa_mask",
        sdk::scaled_dot_product_attention(x, x, x, m.narrow(1, 0, 3), 0.0, false, 0.5));
  print("pdist", sdk::pdist(m));
  print("pdist_1", sdk::pdist(m, 1));
  // torch's operator spellings as methods and functions (Tensor::__rshift__, at::__and__, ...)
  const Tensor bits = sdk::tensor({5, -7, 12, -1}, sdk::kInt);
  const Tensor amounts = sdk::tensor({1, 2, 40, 31}, sdk::kInt);
  print("dunder_rshift", bits.__rshift__(1));
  print("dunder_rshift_t", bits.__rshift__(amounts));
  print("dunder_lshift", sdk::__lshift__(bits, 3));
  print("dunder_and", bits.__and__(6));
  print("dunder_or_t", sdk::__or__(bits, amounts));
  print("dunder_xor", bits.__xor__(3));
  Tensor inplace = bits.clone();
  inplace.__irshift__(1).__iand__(amounts).__ixor__(1);
  print("dunder_inplace", inplace);
  Tensor shifted = bits.clone();
  shifted.bitwise_left_shift_(2).bitwise_right_shift_(sdk::tensor({1}, sdk::kInt));
  print("shift_inplace", shifted);
  print("addr", m.narrow(1, 0, 3).addr(v.narrow(0, 0, 3), w3, 0.5, 2));
  print("matrix_power_3", m.narrow(1, 0, 3).matrix_power(3));
  print("matrix_power_m2",
        sdk::matrix_power(m.narrow(1, 0, 3) + sdk::eye(3, sdk::kDouble) * 2, -2));
  print("matrix_power_0", x.narrow(2, 0, 3).matrix_power(0));
  print("copy", sdk::copy(m, w3.narrow(0, 0, 1)));
  print("as_strided_scatter",
        m.as_strided_scatter(sdk::zeros({2, 2}, sdk::kDouble), {2, 2}, {1, 4}, 1));
  print("nonzero_static_pad", m.gt(0.9).nonzero_static(4, -5));
  print("nonzero_static_cut", m.gt(0).nonzero_static(2));
  print_all("nonzero_numpy", x.gt(0.5).nonzero_numpy());
  print("renorm", x.renorm(2, 1, 1.2));
  print("renorm_p1", m.renorm(1, 0, 2.0));
  const Tensor ri = sdk::tensor({0, 2, 0, 1});
  print("index_reduce_prod", m.index_reduce(1, ri, x[0], "prod"));
  print("index_reduce_amax_excl", m.index_reduce(1, ri, x[1], "amax", false));
  print("index_reduce_mean", m.index_reduce(1, ri, x[0], "mean"));
  print("softmax_out", [&] {
    Tensor out = sdk::empty({0}, sdk::kDouble);
    sdk::softmax_out(out, m, 1);
    return out;
  }());
  return 0;
}

// Each kind is thrown as its class (torch's c10::TypeError, ...), all of them sdk::Error.
template <typename E, typename F>
bool throws_as(F f) {
  try {
    f();
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
  return false;
}

void errors() {
  const Tensor m = m2();
  EXPECT(throws_as<sdk::TypeError>([&] { m.heaviside(sdk::tensor({1.0f})); }));
  EXPECT(throws_as<sdk::IndexError>([&] { m.select(0, 7); }));
  EXPECT(throws_as<sdk::ValueError>([&] { m.view({5}); }));
  EXPECT(throws_as<sdk::NotImplementedError>([&] { sdk::unique_consecutive(m, 0, 0, 1); }));
  EXPECT(throws_as<sdk::Error>([&] { SDK_CHECK(false, "plain"); }));
  EXPECT(!throws_as<sdk::ValueError>([&] { SDK_CHECK(false, "plain"); }));
  EXPECT_ERROR(SDK_ERROR_VALUE, "not divisible by the split_size", m.hsplit(3));
  EXPECT_ERROR(SDK_ERROR_VALUE, "at least 3 dimensions", m.dsplit(2));
  EXPECT_ERROR(SDK_ERROR_VALUE, "number of sections must be larger than 0", m.tensor_split(0));
  EXPECT_ERROR(SDK_ERROR_TYPE, "dtype of long", m.tensor_split(sdk::tensor({1.0})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "rotation dims to be different", m.rot90(1, {1, -1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "not expandable to size", m.sum_to_size({2, 4}));
  EXPECT_ERROR(SDK_ERROR_TYPE, "different dtypes", m.heaviside(sdk::tensor({1.0f})));
  EXPECT_ERROR(SDK_ERROR_TYPE, "floating point or complex dtype", sdk::tensor({1, 2}).nanmean());
  EXPECT_ERROR(SDK_ERROR_TYPE, "requires dtype float64", m.to(sdk::kFloat).float_power_(2.0));
  EXPECT_ERROR(SDK_ERROR_VALUE, "fweights cannot be negative",
               sdk::cov(m, 1, sdk::tensor({1, -1, 1, 1})));
  EXPECT_ERROR(SDK_ERROR_NOT_IMPLEMENTED, "dim is not supported",
               sdk::unique_consecutive(m, false, false, 0));
  EXPECT_ERROR(SDK_ERROR_TYPE, "not supported", sdk::positive(m.gt(0)));
  EXPECT_ERROR(SDK_ERROR_TYPE, "can't be cast to the desired output type",
               m.gt(0).__iand__(sdk::tensor({1, 2, 3, 4})));
  EXPECT_ERROR(SDK_ERROR_VALUE, "doesn't match the broadcast shape",
               sdk::tensor({1, 2}).__ior__(sdk::ones({3, 2}, sdk::kLong)));
  EXPECT_ERROR(SDK_ERROR_TYPE, "shift amount must be an integer", m.__lshift__(1.5));
  EXPECT_ERROR(SDK_ERROR_VALUE, "must match the size of tensor b",
               sdk::infer_size({2, 3}, {4, 1, 2}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "only one dimension can be inferred", sdk::infer_size({-1, -1}, 4));
  EXPECT_ERROR(SDK_ERROR_VALUE, "is invalid for input of size 10", sdk::infer_size({3, -1}, 10));
  EXPECT_ERROR(SDK_ERROR_INDEX, "Dimension out of range", sdk::maybe_wrap_dim(3, 3));
  EXPECT_ERROR(SDK_ERROR_VALUE, "invalid argument 2: weight must be 2-d",
               [&] { SDK_CHECK_ARG(m.dim() == 3, 2, "weight must be 2-d"); }());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "sizes differ",
               [&] { SDK_SYM_CHECK(m.sym_size(0).sym_eq(m.sym_size(1)), "sizes differ"); }());
  SDK_SYM_CHECK(m.sym_size(0) == 3, "a plain bool condition");
  EXPECT(m.sym_numel().sym_ge(12).expect_true() && !m.sym_size(1).sym_lt(4).guard_bool("f", 1));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "all positive",
               [&] { SDK_CHECK_TENSOR_ALL(m.gt(0), "all positive"); }());
  sdk::checkBackend("f", m, sdk::Backend::CPU);
  EXPECT_ERROR(SDK_ERROR_VALUE, "Expected tensor to have cuda DeviceType",
               sdk::checkBackend("f", {m, m}, sdk::Backend::CUDA));
  EXPECT_ERROR(SDK_ERROR_VALUE, "refers to a single memory location",
               sdk::assert_no_internal_overlap(sdk::ones({1, 3}).expand({4, 3})));
}

template <int I>
using Index = std::integral_constant<int, I>;

void utilities() {
  EXPECT(sdk::infer_size({3, 1, 2}, {4, 1}) == Ints({3, 4, 2}));
  EXPECT(sdk::infer_size({2, -1, 3}, 24) == Ints({2, 4, 3}));
  EXPECT(sdk::is_expandable_to({3, 1}, {2, 3, 5}) && !sdk::is_expandable_to({3, 2}, {3, 5}));
  Tensor a = sdk::ones({3, 1}), b = sdk::ones({4});
  auto ab = sdk::expand_outplace(a, b);
  EXPECT((std::get<0>(ab)->sizes().vec() == Ints{3, 4}) &&
         (std::get<1>(ab)->sizes().vec() == Ints{3, 4}));
  const Tensor a2 = sdk::ones({3, 1});  // a named tensor: the result may borrow it
  auto same = sdk::expand_inplace(a, a2);
  EXPECT(same->sizes().vec() == Ints({3, 1}));
  EXPECT(sdk::has_internal_overlap(a) == sdk::MemOverlap::No);
  EXPECT(sdk::has_internal_overlap(b.expand({2, 4})) == sdk::MemOverlap::Yes);
  EXPECT(sdk::has_internal_overlap(sdk::ones({4, 4}).as_strided({3, 3}, {1, 1})) ==
         sdk::MemOverlap::TooHard);
  EXPECT(!sdk::borrow_from_optional_tensor(std::nullopt)->defined());
  std::optional<Tensor> some = a;
  EXPECT(sdk::borrow_from_optional_tensor(some)->is_same(a));
  EXPECT(sdk::contiguous_strides({2, 3, 4}) == sdk::DimVector({12, 4, 1}));
  EXPECT(sdk::contiguous_strides({}).empty());
  EXPECT(sdk::size_to_dim_(2, {2, 3, 4}) == 6 && sdk::size_from_dim_(1, {2, 3, 4}) == 12);
  EXPECT(sdk::size_between_dim_(0, 3, {2, 3, 4, 5}) == 12);
  EXPECT(sdk::maybe_wrap_dim(-1, 3) == 2 && sdk::maybe_wrap_dim(-1, 0) == 0);
  EXPECT(sdk::Join(", ", std::vector<int>{1, 2, 3}) == "1, 2, 3");
  EXPECT(sdk::fmap(std::vector<int>{1, 2}, [](int i) { return i * 1.5; }) ==
         std::vector<double>({1.5, 3.0}));
  for (int64_t x = -9; x <= 9; ++x) {
    for (int64_t y : {-4, -3, -1, 1, 2, 5}) {
      const int64_t floor_div = (x - ((x % y) + y) % y) / y;  // Python's x // y
      EXPECT(div_rtn(x, y) == floor_div);
    }
  }
  std::vector<int> order;
  sdk::ForcedUnroll<4>{}([&](auto i, int scale) { order.push_back(decltype(i)::value * scale); },
                         10);
  EXPECT(order == std::vector<int>({0, 10, 20, 30}));
  sdk::detail::Array<float, 3> arr(2.5f);
  arr[1] = 4.0f;
  EXPECT(arr.size() == 3 && arr[0] == 2.5f && arr[1] == 4.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  EXPECT(sdk::_isnan(nan) && !sdk::_isnan(1.0) && !sdk::_isnan(7) && sdk::_isnan(sdk::Half(nan)));
  EXPECT(sdk::_isinf(-inf) && !sdk::_isinf(nan) && !sdk::_isinf(3.0f) &&
         sdk::_isinf(sdk::BFloat16(inf)));
  EXPECT(!sdk::_isinf(sdk::Float8_e4m3fn(1.0f)) && sdk::_isnan(sdk::Float8_e4m3fn(nan)));
  EXPECT(sdk::toAccumulateType(sdk::kHalf, false) == sdk::kFloat);
  EXPECT(sdk::toAccumulateType(sdk::kFloat, false) == sdk::kDouble);
  EXPECT(sdk::toAccumulateType(sdk::kFloat, sdk::DeviceType::CUDA) == sdk::kFloat);
  EXPECT(sdk::toAccumulateType(sdk::kChar, true) == sdk::kLong);
  EXPECT(sdk::toAccumulateType(sdk::kBool, false) == sdk::kBool);
  EXPECT(sdk::promoteTypes(sdk::kInt, sdk::kFloat) == sdk::kFloat);
  EXPECT(sdk::kI32 == sdk::kInt && sdk::kF64 == sdk::kDouble && sdk::kU8 == sdk::kByte);
  [[maybe_unused]] int SDK_ANONYMOUS_VARIABLE(unused) = 0, SDK_ANONYMOUS_VARIABLE(unused) = 1;
  EXPECT(std::string(SDK_STRINGIZE(SDK_CONCATENATE(ab, cd))) == "abcd");
  Tensor m = m2();
  EXPECT(!m.is_inference() && !m.is_nested());
  EXPECT(m.narrow_copy(1, 1, 2).is_contiguous() && !m.narrow_copy(1, 1, 2).is_alias_of(m));
  EXPECT(m.positive().is_same(m) && m.broadcast_to({2, 3, 4}).is_alias_of(m));
  EXPECT(m.tensor_split(2, 1)[1].is_alias_of(m));  // views, as torch
  EXPECT(m.reshape_symint({4, 3}).size(0) == 4 && m.narrow_symint(1, 1, 2).size(1) == 2);
  EXPECT(m.slice_symint(1, 1).size(1) == 3 &&
         m.new_zeros_symint({2}).scalar_type() == sdk::kDouble);
  EXPECT(m.split_symint(2, 1).size() == 2 && m.expand_symint({2, 3, 4}).is_alias_of(m));
  EXPECT(sdk::size(m, -1) == 4 && sdk::stride(m, 0) == 4 &&
         sdk::fill(m, 2).sum().item<double>() == 24);
  EXPECT(sdk::tensor({0.5}).is_nonzero() && !sdk::tensor({0}).is_nonzero());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "more than one value", m.is_nonzero());
  EXPECT(m.new_empty_strided({2, 2}, {1, 2}).stride(1) == 2 && m.mH().size(0) == 4);
  EXPECT(m.to_dense().is_same(m) && !m.tensor_data().requires_grad());
  EXPECT_ERROR(SDK_ERROR_VALUE, "square matrix", m.matrix_power(2));
  sdk::SymDimVector sym_sizes(m.sym_sizes().begin(), m.sym_sizes().end());
  EXPECT(sym_sizes.size() == 2 && sym_sizes[1] == 4);
  const Tensor ri = sdk::tensor({0, 2, 0, 1});
  EXPECT(m.is_set_to(m.view({3, 4})) && !m.is_set_to(m.t()) && m.is_variable());
  EXPECT_ERROR(SDK_ERROR_VALUE, "one of prod, mean, amax or amin", m.index_reduce(0, ri, m, "sum"));
  Tensor c = m.clone();
  c.greater_(0.0);
  EXPECT(c.scalar_type() == sdk::kDouble && c.eq(m.gt(0).to(sdk::kDouble)).all().item<bool>());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "values") == 0) return print_values();
  errors();
  utilities();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
