// aten_idioms.cpp: common ATen calls from extension code, renamed torch:: -> sdk:: (compile + run
// check).
#include <sdk/extension.h>

#include <iostream>
#include <sstream>
#include <tuple>
#include <vector>

// Common ATen idioms from extension code, renamed torch:: -> sdk::.
std::string idioms(sdk::Tensor x) {
  std::ostringstream os;
  auto options = sdk::TensorOptions().dtype(sdk::kFloat32);
  auto e = sdk::empty({2, 3}, options);
  auto e2 = sdk::empty({2, 3}, x.options());
  auto z = sdk::zeros({2, 3}, sdk::dtype(sdk::kFloat64));
  auto o = sdk::ones({2, 3}, sdk::kFloat32);
  auto r = sdk::randn({2, 3});
  auto a = sdk::arange(6).view({2, 3});
  auto f = sdk::full({2}, 3.5);
  os << x << "\n";
  os << x.sizes() << " " << x.dtype() << " " << x.device() << "\n";
  float* p = o.data_ptr<float>();
  auto acc = o.accessor<float, 2>();
  os << p[0] << acc[1][2] << "\n";
  auto y = x.to(sdk::kFloat64).contiguous().clone();
  auto s = x.sum();
  double sv = s.item<double>();
  auto m = std::get<0>(x.max(/*dim=*/1));
  auto mx = x.max(1, /*keepdim=*/true);
  auto [vals, idx] = x.max(1);
  auto sm = sdk::softmax(x, /*dim=*/1);
  auto lsm = sdk::log_softmax(x, 1);
  auto t = x.transpose(0, 1).contiguous();
  auto w = sdk::where(x > 0, x, sdk::zeros_like(x));
  auto c = x.clamp(0, 1);
  auto c2 = x.clamp_min(0);
  auto mm = sdk::matmul(x, x.t());
  auto bm = sdk::bmm(x.unsqueeze(0), x.t().unsqueeze(0));
  auto st = sdk::stack({x, x}, 0);
  auto ch = x.chunk(2, 1);
  auto sp = x.split(1, 0);
  auto nr = x.narrow(1, 0, 1);
  auto sel = x.select(0, 0);
  auto ix = x.index_select(0, sdk::arange(2));
  x.add_(1);
  x.mul_(2.0);
  x.zero_();
  x.fill_(1.5);
  x.copy_(y);
  auto v = x.view({-1});
  auto rs = x.reshape({3, 2});
  auto fl = x.flatten();
  auto pm = x.permute({1, 0});
  auto ex = x.unsqueeze(0).expand({4, -1, -1});
  auto sq = ex.squeeze();
  auto mean = x.mean({0}, /*keepdim=*/true);
  auto sum1 = x.sum({0, 1});
  auto cnt = x.numel() + x.dim() + x.size(0) + x.ndimension();
  bool ok = x.defined() && x.is_contiguous() && !x.is_cuda() && x.scalar_type() == sdk::kFloat;
  auto em = sdk::empty_like(x);
  auto ab =
      sdk::abs(x) + sdk::exp(x) + sdk::log1p(x.abs()) + sdk::sqrt(x.abs()) + x.pow(2) + x.pow(x);
  auto rl = sdk::relu(x);
  auto ne = -x;
  auto cmp = ((x == x) & (x != 0)) | (x >= 1);
  auto asum = x.abs().sum(1);
  auto cp = x.cpu();
  os << sv << cnt << ok << sdk::toString(x.scalar_type()) << "\n";
  os << x.is_floating_point() << "\n";
  SDK_CHECK(x.dim() == 2, "x must be 2-D, got ", x.dim());
  SDK_INTERNAL_ASSERT(x.dim() == 2);
  SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "idioms", [&] {
    auto pa = x.data_ptr<scalar_t>();
    os << pa[0];
  });
  SDK_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "idioms2", [&] { os << sizeof(scalar_t); });
  SDK_DISPATCH_ALL_TYPES(x.scalar_type(), "idioms3", [&] { os << sizeof(scalar_t); });
  std::cout << x << "\n" << x.sizes() << x.dtype() << x.scalar_type() << x.device() << std::endl;
  SDK_INTERNAL_ASSERT(x.dim() == 2, "msg");
  SDK_CHECK(x.dim() == 2);
  return os.str();
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("idioms", &idioms, "idioms", pybind11::arg("x")); }
