// test_tensor_api.cpp: exercises sdk/tensor.h against hand-computed values; exits nonzero on any
// failure.
#include <sdk/tensor.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "expect.h"

namespace {

// Element (i, j) of a 2-D double tensor of any strides, through the accessor.
double at2(const sdk::Tensor& t, int64_t i, int64_t j) {
  auto c = t.to(sdk::kFloat64);
  return c.accessor<double, 2>()[i][j];
}

bool all_close(const sdk::Tensor& a, const std::vector<double>& expected, double tol = 1e-12) {
  auto flat = a.to(sdk::kFloat64).contiguous().reshape({-1});
  if (flat.numel() != static_cast<int64_t>(expected.size())) return false;
  const double* p = flat.data_ptr<double>();
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::fabs(p[i] - expected[i]) > tol) {
      std::printf("  element %zu: %.17g vs expected %.17g\n", i, p[i], expected[i]);
      return false;
    }
  }
  return true;
}

void test_handles_and_metadata() {
  sdk::Tensor undefined;
  EXPECT(!undefined.defined());
  EXPECT(undefined.use_count() == 0);
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "undefined", undefined.dim());

  auto x = sdk::zeros({2, 3}, sdk::kFloat64);
  EXPECT(x.defined());
  EXPECT(x.dim() == 2 && x.numel() == 6);
  EXPECT(x.sizes() == std::vector<int64_t>({2, 3}));
  EXPECT(x.sizes().vec() == std::vector<int64_t>({2, 3}));
  EXPECT(x.sizes()[1] == 3 && x.sizes().size() == 2);
  EXPECT(x.strides() == std::vector<int64_t>({3, 1}));
  EXPECT(x.size(-1) == 3 && x.size(0) == 2 && x.stride(-2) == 3);
  EXPECT_ERROR(SDK_ERROR_INDEX, "out of range", x.size(2));
  EXPECT(x.scalar_type() == sdk::kFloat64 && x.scalar_type() == sdk::kDouble);
  EXPECT(x.dtype() == sdk::kFloat64);
  EXPECT(std::string(x.dtype().name()) == "float64");
  EXPECT(x.element_size() == 8 && x.nbytes() == 48);
  EXPECT(x.is_contiguous() && x.is_cpu() && !x.is_cuda());
  EXPECT(x.device().is_cpu() && x.device().type() == sdk::kCPU && x.device().index() == -1);
  EXPECT(x.storage_offset() == 0);
  EXPECT(x.use_count() == 1);
  {
    sdk::Tensor copy = x;
    EXPECT(x.use_count() == 2 && copy.get() == x.get());
    sdk::Tensor moved = std::move(copy);
    EXPECT(x.use_count() == 2 && !copy.defined());
  }
  EXPECT(x.use_count() == 1);
  sdk_tensor* raw = x.release();
  EXPECT(!x.defined());
  sdk::Tensor back = sdk::Tensor::steal(raw);
  EXPECT(back.use_count() == 1);
  sdk::Tensor shared = sdk::Tensor::borrow(back.get());
  EXPECT(back.use_count() == 2);

  auto opts = sdk::TensorOptions().dtype(sdk::kInt32).device(sdk::kCPU);
  auto z = sdk::zeros({4}, opts);
  EXPECT(z.scalar_type() == sdk::kInt32);
  auto zl = sdk::zeros_like(back);
  EXPECT(zl.scalar_type() == sdk::kFloat64 && zl.sizes() == back.sizes());
  auto ol = sdk::ones_like(back, sdk::kFloat32);
  EXPECT(ol.scalar_type() == sdk::kFloat32 && all_close(ol, {1, 1, 1, 1, 1, 1}));
  EXPECT(sdk::empty({3}, sdk::kFloat64).scalar_type() == sdk::kFloat64);
  EXPECT(sdk::zeros({2, 3}, back.options()).scalar_type() == sdk::kFloat64);
  EXPECT(sdk::full({2}, 7).scalar_type() == sdk::kInt64);
  EXPECT(sdk::full({2}, 2.5).scalar_type() == sdk::kFloat32);
  EXPECT(all_close(sdk::full({2}, 2.5, sdk::kFloat64), {2.5, 2.5}));
  EXPECT(sdk::arange(5).scalar_type() == sdk::kInt64);
  EXPECT(all_close(sdk::arange(1, 7, 2), {1, 3, 5}));
  EXPECT(all_close(sdk::linspace(0, 1, 5, sdk::kFloat64), {0, 0.25, 0.5, 0.75, 1}));
  EXPECT(all_close(sdk::eye(2, 3), {1, 0, 0, 0, 1, 0}));
  auto ri = sdk::randint(0, 10, {50});
  EXPECT(ri.scalar_type() == sdk::kInt64 && ri.min().item<int64_t>() >= 0 &&
         ri.max().item<int64_t>() < 10);
  EXPECT(sdk::randint(3, {4}, sdk::kInt32).scalar_type() == sdk::kInt32);
  auto u = sdk::rand({1000}, sdk::kFloat64);
  EXPECT(u.min().item<double>() >= 0 && u.max().item<double>() < 1);
  EXPECT(std::fabs(u.mean().item<double>() - 0.5) < 0.1);
  EXPECT(static_cast<float>(sdk::full({}, 1.5, sdk::kHalf).item<sdk::Half>()) == 1.5f);
  EXPECT(sdk::full({}, 2, sdk::kInt32).item().isIntegral(false));
  sdk::Generator g1(123), g2(123);
  auto r1 = sdk::randn({8}, g1, sdk::kFloat64), r2 = sdk::randn({8}, g2, sdk::kFloat64);
  EXPECT((r1 == r2).all().item<bool>() &&
         !(r1 == sdk::randn({8}, g1, sdk::kFloat64)).all().item<bool>());
  EXPECT(sdk::promote_types(sdk::kInt32, sdk::kFloat32) == sdk::kFloat32);
  auto dl = sdk::toDLPack(r1);
  auto back_dl = sdk::fromDLPack(dl);
  EXPECT(back_dl.data_ptr() == r1.data_ptr() && back_dl.sizes() == r1.sizes());
  EXPECT(r1.slice(0, 2).storage_nbytes() == 64 &&
         r1.slice(0, 2).storage_data_ptr() == r1.data_ptr());
  EXPECT(sdk::Device("cuda:1").index() == 1 && sdk::Device("cpu").is_cpu());
  EXPECT_ERROR(SDK_ERROR_VALUE, "tpu", sdk::Device("tpu"));
  // meta tensors: sizes, strides, dtype, no data (ABI 1.7)
  EXPECT(sdk::Device("meta").is_meta() && sdk::Device("meta").str() == "meta" &&
         sdk::DeviceTypeName(sdk::kMeta, true) == "meta");
  sdk::Tensor m = sdk::empty({2, 3}, sdk::device(sdk::kMeta));
  EXPECT(m.is_meta() && !r1.is_meta() && m.size(1) == 3 && m.t().size(0) == 3);
  EXPECT(sdk::empty_like(m).is_meta() && m.device().is_meta());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "meta device", m.data_ptr());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "meta device", m.data_ptr<float>());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "no data", m + 1);
}

void test_arithmetic() {
  auto x = sdk::arange(6, sdk::kFloat64).reshape({2, 3});  // [[0,1,2],[3,4,5]]
  EXPECT(all_close(1 - x, {1, 0, -1, -2, -3, -4}));
  EXPECT(all_close(x - 1, {-1, 0, 1, 2, 3, 4}));
  EXPECT(all_close(2.0 * (x - 1), {-2, 0, 2, 4, 6, 8}));
  EXPECT(all_close(-x, {0, -1, -2, -3, -4, -5}));
  EXPECT(all_close(x / 2, {0, 0.5, 1, 1.5, 2, 2.5}));
  EXPECT(all_close(x * x + x, {0, 2, 6, 12, 20, 30}));
  EXPECT(all_close(x.pow(2), {0, 1, 4, 9, 16, 25}));
  EXPECT(all_close(sdk::pow(2, x), {1, 2, 4, 8, 16, 32}));
  EXPECT(all_close(sdk::add(x, x, 2), {0, 3, 6, 9, 12, 15}));
  EXPECT(all_close(sdk::sub(x, x, 0.5), {0, 0.5, 1, 1.5, 2, 2.5}));
  EXPECT(all_close(x.add(1, 3), {3, 4, 5, 6, 7, 8}));
  auto mask = x > 2;
  EXPECT(mask.scalar_type() == sdk::kBool);
  EXPECT(all_close(mask.type_as(x), {0, 0, 0, 1, 1, 1}));
  EXPECT(mask.type_as(x).scalar_type() == sdk::kFloat64);
  EXPECT(all_close((1 < x).to(sdk::kInt64), {0, 0, 1, 1, 1, 1}));
  EXPECT(all_close(x == 4, {0, 0, 0, 0, 1, 0}));
  EXPECT(all_close(sdk::exp(x.slice(1, 0, 1)), {1, std::exp(3.0)}, 1e-12));
  EXPECT(
      all_close(x.sigmoid().slice(1, 1, 2), {1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(-4.0))}));
  EXPECT(all_close(sdk::elu(x - 1, 2.0).slice(1, 0, 1), {2 * (std::exp(-1.0) - 1), 2}));
  EXPECT(all_close(sdk::clamp(x, 1, 3), {1, 1, 2, 3, 3, 3}));
  EXPECT(all_close(x.clamp(std::nullopt, 2), {0, 1, 2, 2, 2, 2}));
  EXPECT(all_close(x.clamp_min(4), {4, 4, 4, 4, 4, 5}));
  EXPECT(all_close(sdk::where(x > 2, x, -x), {0, -1, -2, 3, 4, 5}));
  EXPECT(all_close(x.masked_fill(x < 2, 9), {9, 9, 2, 3, 4, 5}));
  EXPECT(all_close(sdk::maximum(x, 2.5), {2.5, 2.5, 2.5, 3, 4, 5}));

  // In place: same handle, new values, through the ABI's out argument.
  auto y = x.clone();
  sdk_tensor* handle = y.get();
  y *= 2;
  y += x;
  y -= 1;
  y /= 2;
  EXPECT(y.get() == handle);
  EXPECT(all_close(y, {-0.5, 1, 2.5, 4, 5.5, 7}));
  y *= x;
  EXPECT(all_close(y, {0, 1, 5, 12, 22, 35}));
  y.zero_();
  EXPECT(all_close(y, {0, 0, 0, 0, 0, 0}));
  y.fill_(3).add_(1);
  EXPECT(all_close(y, {4, 4, 4, 4, 4, 4}));
  y.copy_(x);
  EXPECT(all_close(y, {0, 1, 2, 3, 4, 5}));
  y.exp_();
  EXPECT_NEAR((y.accessor<double, 2>()[1][2]), std::exp(5.0), 1e-9);
  auto i = sdk::arange(4);
  i += 1;
  EXPECT(all_close(i, {1, 2, 3, 4}) && i.scalar_type() == sdk::kInt64);

  // Out variants: into a preallocated tensor, or bound to the result when undefined.
  auto out = sdk::empty({2, 3}, sdk::kFloat64);
  sdk::mul_out(out, x, x);
  EXPECT(all_close(out, {0, 1, 4, 9, 16, 25}));
  sdk::add_out(out, x, x, 10);
  EXPECT(all_close(out, {0, 11, 22, 33, 44, 55}));
  sdk::Tensor fresh;
  sdk::exp_out(fresh, sdk::zeros({2}));
  EXPECT(fresh.defined() && all_close(fresh, {1, 1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "", x + sdk::zeros({4}));
}

void test_reductions() {
  auto x = sdk::arange(6, sdk::kFloat64).reshape({2, 3});
  auto s = x.sum(0, true);
  EXPECT(s.sizes() == std::vector<int64_t>({1, 3}) && all_close(s, {3, 5, 7}));
  EXPECT(all_close(x.sum(), {15}) && x.sum().dim() == 0);
  EXPECT(all_close(x.sum(-1), {3, 12}));
  EXPECT(all_close(x.sum({0, 1}), {15}));
  EXPECT(sdk::arange(4).sum().scalar_type() == sdk::kInt64);
  EXPECT(sdk::arange(4).sum(sdk::kFloat64).scalar_type() == sdk::kFloat64);
  EXPECT(all_close(x.mean(1), {1, 4}));
  EXPECT(all_close((x + 1).prod(1), {6, 120}));
  EXPECT(all_close(x.amax(1), {2, 5}) && all_close(x.amin(), {0}));
  EXPECT(all_close(x.max(), {5}));
  auto [values, indices] = (-x).max(1);
  EXPECT(all_close(values, {0, -3}) && all_close(indices, {0, 0}));
  EXPECT(indices.scalar_type() == sdk::kInt64);
  auto mn = sdk::min(x, 0, true);
  EXPECT(std::get<0>(mn).sizes() == std::vector<int64_t>({1, 3}));
  EXPECT(all_close(x.argmax(), {5}) && all_close(x.argmax(0), {1, 1, 1}));
  EXPECT(all_close(x.argmin(1), {0, 0}));
  EXPECT((x >= 0).all().item<bool>() && !(x > 0).all().item<bool>() && (x > 4).any().item<bool>());
  EXPECT(all_close(x.var(1), {1, 1}) && all_close(x.var(1, false), {2.0 / 3, 2.0 / 3}));
  EXPECT(all_close(x.std(0), {std::sqrt(4.5), std::sqrt(4.5), std::sqrt(4.5)}));
  auto sm = x.softmax(1);
  double z = std::exp(0.0) + std::exp(1.0) + std::exp(2.0);
  EXPECT(all_close(sm.slice(0, 0, 1), {1 / z, std::exp(1.0) / z, std::exp(2.0) / z}));
  EXPECT(all_close(x.log_softmax(1).exp(), {1 / z, std::exp(1.0) / z, std::exp(2.0) / z, 1 / z,
                                            std::exp(1.0) / z, std::exp(2.0) / z}));
  EXPECT(x.sum().item<double>() == 15.0 && x.sum().item().toDouble() == 15.0);
  EXPECT(sdk::arange(3).sum().item<int>() == 3);
  EXPECT_ERROR(SDK_ERROR_VALUE, "6 elements", x.item<double>());
}

void test_views() {
  auto x = sdk::arange(12, sdk::kFloat64).reshape({3, 4});
  auto t = x.t();
  EXPECT(t.sizes() == std::vector<int64_t>({4, 3}) && !t.is_contiguous());
  EXPECT(at2(t, 1, 2) == 9.0);
  EXPECT(t.contiguous().is_contiguous() && all_close(t.contiguous().select(0, 1), {1, 5, 9}));
  EXPECT(x.transpose(0, 1).stride(0) == 1);
  EXPECT(all_close(x.slice(1, 2), {2, 3, 6, 7, 10, 11}));
  EXPECT(all_close(x.slice(0, 1, 2), {4, 5, 6, 7}));
  EXPECT(x.slice().sizes() == x.sizes());
  EXPECT(all_close(x.slice(1, 0, 4, 2), {0, 2, 4, 6, 8, 10}));
  EXPECT(all_close(x.narrow(1, -2, 1), {2, 6, 10}));
  EXPECT(all_close(x[2], {8, 9, 10, 11}));
  auto chunks = sdk::arange(7).chunk(3);
  EXPECT(chunks.size() == 3 && chunks[0].numel() == 3 && chunks[1].numel() == 3 &&
         chunks[2].numel() == 1);
  EXPECT(all_close(chunks[2], {6}));
  auto cols = x.chunk(2, 1);
  EXPECT(cols.size() == 2 && all_close(cols[1], {2, 3, 6, 7, 10, 11}));
  auto parts = x.split({1, 3}, 1);
  EXPECT(parts.size() == 2 && parts[1].size(1) == 3);
  auto rows = x.unbind(0);
  EXPECT(rows.size() == 3 && all_close(rows[1], {4, 5, 6, 7}));
  EXPECT(x.unsqueeze(0).sizes() == std::vector<int64_t>({1, 3, 4}));
  EXPECT(x.unsqueeze(-1).squeeze().sizes() == x.sizes());
  EXPECT(x.unsqueeze(1).squeeze(1).sizes() == x.sizes());
  auto e = sdk::arange(3).unsqueeze(1).expand({3, 2});
  EXPECT(e.sizes() == std::vector<int64_t>({3, 2}) && e.stride(1) == 0);
  EXPECT(all_close(e, {0, 0, 1, 1, 2, 2}));
  EXPECT(x.reshape({2, 2, 3}).flatten(1, 2).sizes() == std::vector<int64_t>({2, 6}));
  EXPECT(x.flatten().sizes() == std::vector<int64_t>({12}));
  EXPECT(x.view({4, -1}).sizes() == std::vector<int64_t>({4, 3}));
  EXPECT(x.reshape({2, 2, 3}).permute({2, 0, 1}).sizes() == std::vector<int64_t>({3, 2, 2}));
  auto strided = x.as_strided({2, 2}, {1, 4}, 1);
  EXPECT(all_close(strided, {1, 5, 2, 6}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "", x.view({5, -1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "", x.t().view({12}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "t()", x.reshape({2, 2, 3}).t());
  // Views share memory: writing through one is seen by the other.
  x.select(0, 0).fill_(-1);
  EXPECT(at2(x, 0, 3) == -1.0);
}

void test_linalg_and_joins() {
  auto a = sdk::arange(6, sdk::kFloat64).reshape({2, 3});
  auto b = sdk::arange(12, sdk::kFloat64).reshape({3, 4});
  // a @ b by hand: row0 = [20, 23, 26, 29], row1 = [56, 68, 80, 92]
  EXPECT(all_close(a.mm(b), {20, 23, 26, 29, 56, 68, 80, 92}));
  EXPECT(all_close(sdk::matmul(a, b), {20, 23, 26, 29, 56, 68, 80, 92}));
  auto bias = sdk::ones({1, 4}, sdk::kFloat64);
  EXPECT(all_close(sdk::addmm(bias, a, b), {21, 24, 27, 30, 57, 69, 81, 93}));
  EXPECT(all_close(sdk::addmm(bias, a, b, 2, 0.5), {12, 13.5, 15, 16.5, 30, 36, 42, 48}));
  EXPECT(all_close(sdk::addmm(bias, a, b.t().contiguous().t()), {21, 24, 27, 30, 57, 69, 81, 93}));
  auto out = sdk::zeros({2, 4}, sdk::kFloat64);
  sdk::mm_out(out, a, b);
  EXPECT(all_close(out, {20, 23, 26, 29, 56, 68, 80, 92}));
  EXPECT(all_close(a.mv(sdk::ones({3}, sdk::kFloat64)), {3, 12}));
  EXPECT(all_close(sdk::dot(sdk::arange(3.0), sdk::arange(3.0)), {5}));
  EXPECT(sdk::bmm(a.unsqueeze(0), b.unsqueeze(0)).sizes() == std::vector<int64_t>({1, 2, 4}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "mm", a.mm(a));

  auto c = sdk::cat({a, a * 10}, 1);
  EXPECT(c.sizes() == std::vector<int64_t>({2, 6}));
  EXPECT(all_close(c.slice(0, 1, 2), {3, 4, 5, 30, 40, 50}));
  std::vector<sdk::Tensor> list = {a, a};
  EXPECT(sdk::cat(list).sizes() == std::vector<int64_t>({4, 3}));
  EXPECT(sdk::stack(list, 1).sizes() == std::vector<int64_t>({2, 2, 3}));

  auto src = sdk::arange(12, sdk::kFloat64).reshape({3, 4});
  auto index = sdk::arange(2, 0, -1);  // [2, 1]
  EXPECT(all_close(src.index_select(0, index), {8, 9, 10, 11, 4, 5, 6, 7}));
  auto g = src.gather(1, sdk::zeros({3, 1}, sdk::kInt64) + 3);
  EXPECT(all_close(g, {3, 7, 11}));
  auto acc = sdk::zeros({3}, sdk::kFloat64);
  acc.index_add_(0, sdk::zeros({4}, sdk::kInt64), sdk::ones({4}, sdk::kFloat64));
  EXPECT(all_close(acc, {4, 0, 0}));
  auto sa = sdk::zeros({2}, sdk::kFloat64)
                .scatter_add(0, sdk::arange(4) % 2, sdk::arange(4, sdk::kFloat64));
  EXPECT(all_close(sa, {2, 4}));
  auto nz = (src > 9).nonzero();
  EXPECT(nz.sizes() == std::vector<int64_t>({2, 2}) && all_close(nz, {2, 2, 2, 3}));
  auto picked = src.index({sdk::arange(3), sdk::arange(3)});
  EXPECT(all_close(picked, {0, 5, 10}));
  EXPECT_ERROR(SDK_ERROR_INDEX, "", src.index_select(0, sdk::arange(2) + 5));
}

void test_data_access_and_dispatch() {
  auto x = sdk::arange(6, sdk::kFloat64).reshape({2, 3});
  EXPECT(x.data_ptr<double>()[4] == 4.0);
  EXPECT_ERROR(SDK_ERROR_TYPE, "expected scalar type float32 but found float64",
               x.data_ptr<float>());
  // torch's older spellings: data<T>() (behind DATA_PTR macros), and CppTypeToScalarType<T>()
  // converting to its ScalarType (a map keyed by dtype pairs, as an optimizer's invokers)
  EXPECT(x.data<double>() == x.data_ptr<double>());
  EXPECT_ERROR(SDK_ERROR_TYPE, "expected scalar type float32 but found float64", x.data<float>());
  sdk::ScalarType from_type = sdk::CppTypeToScalarType<sdk::Half>();
  constexpr sdk::ScalarType at_compile_time = sdk::CppTypeToScalarType<int64_t>{};
  EXPECT(from_type == sdk::kHalf && at_compile_time == sdk::kLong &&
         sdk::CppTypeToScalarType<const float>::value == sdk::kFloat);
  EXPECT_ERROR(SDK_ERROR_VALUE, "expected a 3-d tensor", x.accessor<double, 3>());
  auto acc = x.accessor<double, 2>();
  EXPECT(acc.size(0) == 2 && acc.size(1) == 3 && acc.stride(0) == 3 && acc[1][2] == 5.0);
  acc[0][1] = 42.0;
  EXPECT(x.data_ptr<double>()[1] == 42.0);
  {  // read-only memory: reads go through, mutable_data_ptr refuses
    auto ro = x.clone();
    EXPECT(!ro.is_read_only() && ro.mutable_data_ptr<double>() != nullptr);
    EXPECT(sdk_tensor_set_read_only(ro.get(), "a test buffer") == SDK_OK);
    EXPECT(ro.is_read_only() && ro.const_data_ptr<double>()[1] == 42.0);
    EXPECT_ERROR(SDK_ERROR_RUNTIME, "mutable_data_ptr(): the tensor is read-only",
                 ro.mutable_data_ptr<double>());
    EXPECT_ERROR(SDK_ERROR_RUNTIME, "read-only", ro.mutable_data_ptr());
  }
  auto t = x.t();
  auto tacc = t.accessor<double, 2>();
  EXPECT(tacc[2][1] == 5.0);
  auto packed = t.packed_accessor32<double, 2, sdk::RestrictPtrTraits>();
  EXPECT(packed.size(0) == 3 && packed.stride(0) == 1 && packed[2][1] == 5.0 &&
         packed[1][0] == 42.0);
  auto p64 = x.packed_accessor64<double, 2>();
  EXPECT(p64[1][0] == 3.0);

  // Dispatch: with a ScalarType or a dtype(), as a statement or returning a value.
  auto sum_elems = [](const sdk::Tensor& t) {
    return SDK_DISPATCH_FLOATING_TYPES(t.scalar_type(), "sum_elems", [&] {
      const scalar_t* p = t.contiguous().data_ptr<scalar_t>();
      double s = 0;
      for (int64_t i = 0; i < t.numel(); ++i) s += static_cast<double>(p[i]);
      return s;
    });
  };
  EXPECT(sum_elems(sdk::arange(4, sdk::kFloat32)) == 6.0);
  EXPECT(sum_elems(sdk::arange(4, sdk::kFloat64)) == 6.0);
  EXPECT_ERROR(SDK_ERROR_TYPE, "\"sum_elems\" not implemented for 'int64'",
               sum_elems(sdk::arange(4)));
  int64_t bytes = 0;
  SDK_DISPATCH_ALL_TYPES(sdk::arange(3).dtype(), "bytes", [&] { bytes = sizeof(scalar_t); });
  EXPECT(bytes == 8);
  SDK_DISPATCH_INTEGRAL_TYPES(sdk::kInt16, "bytes", [&] { bytes = sizeof(scalar_t); });
  EXPECT(bytes == 2);
  SDK_DISPATCH_FLOATING_TYPES_AND_HALF(sdk::kHalf, "half", [&] { bytes = sizeof(scalar_t); });
  EXPECT(bytes == 2);
  SDK_DISPATCH_FLOATING_TYPES_AND2(sdk::kHalf, sdk::kBFloat16, sdk::kBFloat16, "bf16",
                                   [&] { bytes = std::is_same<scalar_t, sdk::BFloat16>::value; });
  EXPECT(bytes == 1);

  // from_blob: no copy; the deleter runs when the last view dies.
  std::vector<float> buffer = {1, 2, 3, 4, 5, 6};
  int deleted = 0;
  {
    auto wrapped = sdk::from_blob(buffer.data(), {2, 3}, [&](void*) { ++deleted; }, sdk::kFloat32);
    EXPECT(wrapped.data_ptr<float>() == buffer.data());
    auto view = wrapped.t();
    wrapped.reset();
    EXPECT(deleted == 0);
    EXPECT(view.accessor<float, 2>()[2][1] == 6.0f);
  }
  EXPECT(deleted == 1);
  auto strided = sdk::from_blob(buffer.data(), {3}, {2}, sdk::kFloat32);
  EXPECT(all_close(strided, {1, 3, 5}));
  EXPECT(sdk::to_string(sdk::arange(3)) == "tensor([0, 1, 2], dtype=int64)");
  EXPECT(sdk::to_string(sdk::Tensor()) == "tensor(undefined)");
}

void test_half_and_scalar() {
  EXPECT(sdk::Half(1.0f).x == 0x3c00 && sdk::Half(-2.0f).x == 0xc000);
  EXPECT(sdk::Half(65504.0f).x == 0x7bff && sdk::Half(65520.0f).x == 0x7c00);
  EXPECT(sdk::Half(5.9604644775390625e-8f).x == 0x0001);   // smallest subnormal
  EXPECT(sdk::Half(2.98023223876953125e-8f).x == 0x0000);  // half of it: ties to even (0)
  EXPECT(std::isnan(static_cast<float>(sdk::Half(NAN))));
  EXPECT(sdk::Half(1.0f + 1.0f / 2048).x == 0x3c00);  // tie rounds to even
  EXPECT(sdk::Half(1.0f + 3.0f / 2048).x == 0x3c02);  // tie rounds up to even
  int roundtrip_bad = 0;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    sdk::Half h = sdk::Half::from_bits(static_cast<uint16_t>(bits));
    float f = h;
    if (std::isnan(f)) continue;
    if (sdk::Half(f).x != bits) ++roundtrip_bad;
  }
  EXPECT(roundtrip_bad == 0);
  EXPECT(sdk::BFloat16(1.0f).x == 0x3f80 && static_cast<float>(sdk::BFloat16(3.0f)) == 3.0f);
  sdk::Half h = 1.5f;
  h += 1;
  EXPECT(static_cast<float>(h) == 2.5f && static_cast<float>(h * h) == 6.25f);
  // torch's arithmetic: 16-bit op 16-bit (or an int) stays 16-bit, so a kernel's `?:` between
  // T(0) and a quotient of Ts has one type; with a float or a double it widens
  static_assert(std::is_same_v<decltype(h / h), sdk::Half> &&
                std::is_same_v<decltype(h * 2), sdk::Half>);
  static_assert(std::is_same_v<decltype(h * 2.0f), float> &&
                std::is_same_v<decltype(h + 1.0), double>);
  static_assert(std::is_same_v<decltype(-sdk::BFloat16(1.0f)), sdk::BFloat16>);
  const bool empty_bin = roundtrip_bad != 0;
  sdk::Half third = empty_bin ? static_cast<sdk::Half>(0) : sdk::Half(1.0f) / sdk::Half(3.0f);
  EXPECT(third.x == sdk::Half(1.0f / 3.0f).x);
  sdk::BFloat16 bf = sdk::BFloat16(1.5f) * sdk::BFloat16(1.5f) - 1;
  EXPECT(static_cast<float>(bf) == 1.25f);
  auto halves = sdk::ones({3}, sdk::kHalf) * 2;
  EXPECT(halves.scalar_type() == sdk::kHalf);
  EXPECT(static_cast<float>(halves.data_ptr<sdk::Half>()[2]) == 2.0f);

  sdk::Scalar i = 3, d = 2.5, b = true, f = 1.5f, l = int64_t(1) << 40;
  EXPECT(i.isIntegral(false) && i.toLong() == 3 && d.isFloatingPoint() && d.toDouble() == 2.5);
  EXPECT(b.isBoolean() && f.toFloat() == 1.5f && l.toLong() == (int64_t(1) << 40));
  EXPECT(sdk::arange(3).mul(2.5).scalar_type() == sdk::kFloat32);  // int tensor * float scalar
}

void test_check_macro() {
  bool thrown = false;
  try {
    int rank = 3;
    SDK_CHECK(rank == 2, "expected a 2-d input, got ", rank, "-d of size ",
              sdk::IntArrayRef({4, 5, 6}));
  } catch (const sdk::Error& e) {
    thrown = true;
    std::string msg = e.what();
    EXPECT(e.kind() == SDK_ERROR_RUNTIME);
    EXPECT(msg.find("expected a 2-d input, got 3-d of size [4, 5, 6]") == 0);
    EXPECT(msg.find("test_tensor_api.cpp:") != std::string::npos);
  }
  EXPECT(thrown);
  try {
    SDK_CHECK_VALUE(1 + 1 == 3);
  } catch (const std::exception& e) {  // sdk::Error is a std::exception
    EXPECT(std::string(e.what()).find("1 + 1 == 3") != std::string::npos);
  }
}

// ---- LLTM forward: the tutorial's code with sdk:: against naive loops ----------------

std::vector<sdk::Tensor> lltm_forward(sdk::Tensor input, sdk::Tensor weights, sdk::Tensor bias,
                                      sdk::Tensor old_h, sdk::Tensor old_cell) {
  auto X = sdk::cat({old_h, input}, /*dim=*/1);

  auto gate_weights = sdk::addmm(bias, X, weights.transpose(0, 1));
  auto gates = gate_weights.chunk(3, /*dim=*/1);

  auto input_gate = sdk::sigmoid(gates[0]);
  auto output_gate = sdk::sigmoid(gates[1]);
  auto candidate_cell = sdk::elu(gates[2], /*alpha=*/1.0);

  auto new_cell = old_cell + candidate_cell * input_gate;
  auto new_h = sdk::tanh(new_cell) * output_gate;

  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights};
}

void test_lltm_forward() {
  const int64_t B = 3, F = 17, S = 5;
  sdk::manual_seed(7);
  auto input = sdk::randn({B, F}, sdk::kFloat64);
  auto weights = sdk::rand({3 * S, S + F}, sdk::kFloat64) * 2 - 1;
  auto bias = sdk::randn({1, 3 * S}, sdk::kFloat64);
  auto old_h = sdk::randn({B, S}, sdk::kFloat64);
  auto old_cell = sdk::randn({B, S}, sdk::kFloat64);
  auto result = lltm_forward(input, weights, bias, old_h, old_cell);
  EXPECT(result.size() == 7);

  auto in = input.accessor<double, 2>();
  auto w = weights.accessor<double, 2>();
  auto bi = bias.accessor<double, 2>();
  auto h0 = old_h.accessor<double, 2>();
  auto c0 = old_cell.accessor<double, 2>();
  auto h1 = result[0].accessor<double, 2>();
  auto c1 = result[1].accessor<double, 2>();
  double worst = 0;
  for (int64_t b = 0; b < B; ++b) {
    std::vector<double> x(S + F), g(3 * S);
    for (int64_t k = 0; k < S; ++k) x[k] = h0[b][k];
    for (int64_t k = 0; k < F; ++k) x[S + k] = in[b][k];
    for (int64_t j = 0; j < 3 * S; ++j) {
      g[j] = bi[0][j];
      for (int64_t k = 0; k < S + F; ++k) g[j] += x[k] * w[j][k];
    }
    for (int64_t s = 0; s < S; ++s) {
      double ig = 1 / (1 + std::exp(-g[s])), og = 1 / (1 + std::exp(-g[S + s]));
      double z = g[2 * S + s], cc = z > 0 ? z : std::exp(z) - 1;
      double cell = c0[b][s] + cc * ig, h = std::tanh(cell) * og;
      worst = std::fmax(worst, std::fabs(cell - c1[b][s]));
      worst = std::fmax(worst, std::fabs(h - h1[b][s]));
    }
  }
  EXPECT(worst < 1e-12);
  EXPECT(result[5].sizes() == std::vector<int64_t>({B, S + F}));
  EXPECT(result[6].sizes() == std::vector<int64_t>({B, 3 * S}));
}

}  // namespace

void test_memory_formats() {
  // *_like and clone keep a dense source's layout (torch's preserve_format): a result
  // walked by the same linear index as its source lines up with it.
  auto x = sdk::arange(12, sdk::kFloat64).reshape({3, 4});
  auto t = x.t();
  std::vector<int64_t> transposed{1, 4}, row_major{3, 1};
  EXPECT(sdk::empty_like(t).strides() == transposed);
  EXPECT(sdk::zeros_like(t).strides() == transposed &&
         all_close(sdk::zeros_like(t), std::vector<double>(12, 0.0)));
  EXPECT(sdk::ones_like(t, sdk::kFloat32).strides() == transposed &&
         sdk::ones_like(t, sdk::kFloat32).scalar_type() == sdk::kFloat32);
  EXPECT(sdk::full_like(t, 2.5).strides() == transposed &&
         at2(sdk::full_like(t, 2.5), 3, 2) == 2.5);
  EXPECT(sdk::rand_like(t).strides() == transposed && sdk::randn_like(t).strides() == transposed);
  auto c = t.clone();
  EXPECT(c.strides() == transposed && all_close(c, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  EXPECT(c.data_ptr() != t.data_ptr());
  const double* src = t.data_ptr<double>();
  auto out = sdk::empty_like(t);
  double* dst = out.data_ptr<double>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i] = 2 * src[i];  // the linear-index idiom
  EXPECT(at2(out, 3, 1) == 2 * at2(t, 3, 1) && at2(out, 0, 2) == 2 * at2(t, 0, 2));
  // Contiguous on request, through the argument or the options.
  EXPECT(sdk::empty_like(t, {}, sdk::MemoryFormat::Contiguous).strides() == row_major);
  EXPECT(sdk::zeros_like(t, sdk::MemoryFormat::Contiguous).strides() == row_major);
  EXPECT(sdk::empty_like(t, t.options().memory_format(sdk::MemoryFormat::Contiguous)).strides() ==
         row_major);
  EXPECT(t.clone(sdk::MemoryFormat::Contiguous).strides() == row_major);
  EXPECT(t.contiguous(sdk::MemoryFormat::Contiguous).strides() == row_major);
  EXPECT_ERROR(SDK_ERROR_VALUE, "preserve memory format is unsupported",
               t.contiguous(sdk::MemoryFormat::Preserve));
  // A view with gaps gets dense strides in its own order.
  EXPECT(sdk::empty_like(x.slice(1, 0, 4, 2)).strides() == std::vector<int64_t>({2, 1}));
  EXPECT(sdk::empty_like(t.slice(0, 0, 4, 2)).strides() == std::vector<int64_t>({1, 2}));
}

int main() {
  std::printf("sdk ABI %u.%u, core %s\n", sdk_abi_version() >> 16, sdk_abi_version() & 0xffff,
              sdk_version_string());
  if (SDK_ABI_CHECK() != SDK_OK) {
    std::printf("FAIL ABI check: %s\n", sdk_last_error_message());
    return 2;
  }
  void (*tests[])() = {test_handles_and_metadata, test_arithmetic,
                       test_reductions,           test_views,
                       test_linalg_and_joins,     test_data_access_and_dispatch,
                       test_half_and_scalar,      test_check_macro,
                       test_lltm_forward,         test_memory_formats};
  for (auto test : tests) {
    try {
      test();
    } catch (const std::exception& e) {
      ++g_failures;
      std::printf("FAIL uncaught exception: %s\n", e.what());
    }
  }
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
