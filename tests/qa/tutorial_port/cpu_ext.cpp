// cpu_ext.cpp: a typical CPU extension's idioms renamed (at::parallel_for -> sdk::parallel_for,
// x.repeat, x.norm, std::cout << x).
#include <sdk/extension.h>

#include <iostream>
#include <sstream>

sdk::Tensor scaled_relu(sdk::Tensor x, double scale) {
  SDK_CHECK(x.is_contiguous(), "x must be contiguous");
  auto out = sdk::empty_like(x);
  SDK_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scaled_relu", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    sdk::parallel_for(0, x.numel(), 1024, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        o[i] = in[i] > 0 ? in[i] * scalar_t(scale) : scalar_t(0);
    });
  });
  return out;
}

void throws_in_worker(int64_t n) {
  sdk::parallel_for(
      0, n, 1, [&](int64_t begin, int64_t) { SDK_CHECK(begin == 0, "worker failed at ", begin); });
}

std::string show(sdk::Tensor x) {
  std::ostringstream os;
  os << x.repeat({2, 1}).sizes() << " " << x.norm().item<double>();
  return os.str();
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("scaled_relu", &scaled_relu);
  m.def("throws_in_worker", &throws_in_worker);
  m.def("show", &show);
  m.def("repeat", [](sdk::Tensor x, std::vector<int64_t> r) { return x.repeat(r); });
}
