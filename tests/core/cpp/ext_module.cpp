// ext_module.cpp: a pybind11 module over sdk/extension.h, built and imported by
// tests/core/test_cpp_api.py.
#include <sdk/extension.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace {

sdk::Tensor scale(sdk::Tensor x, double alpha) { return x * alpha; }

std::vector<sdk::Tensor> split3(const sdk::Tensor& x) { return x.chunk(3, /*dim=*/1); }

std::tuple<sdk::Tensor, sdk::Tensor> max_dim(const sdk::Tensor& x, int64_t dim) {
  return x.max(dim);
}

bool is_given(std::optional<sdk::Tensor> x) { return x.has_value() && x->defined(); }

// Where the tensor's data lives, to check that numpy arrays arrive without a copy.
uintptr_t data_address(const sdk::Tensor& x) { return reinterpret_cast<uintptr_t>(x.data_ptr()); }

void fill_inplace(sdk::Tensor x, double value) { x.fill_(value); }

sdk::Scalar scalar_roundtrip(sdk::Scalar s) { return s; }

sdk::Tensor add_scalar(const sdk::Tensor& x, sdk::Scalar s) { return x + s; }

sdk::Tensor checked_mm(const sdk::Tensor& a, const sdk::Tensor& b) { return a.mm(b); }

void fail(const std::string& kind) {
  if (kind == "check") SDK_CHECK(false, "custom check failed with value ", 42);
  if (kind == "value") SDK_CHECK_VALUE(false, "bad value");
  if (kind == "type") sdk::zeros({2}, sdk::kFloat64).data_ptr<float>();
  if (kind == "index") sdk::zeros({2}).size(5);
  if (kind == "not_implemented") SDK_CHECK_NOT_IMPLEMENTED(false, "not here");
  if (kind == "std") throw std::out_of_range("plain std exception");
}

}  // namespace

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("scale", &scale, "x * alpha", pybind11::arg("x"), pybind11::arg("alpha"));
  m.def("scale_strict", &scale, pybind11::arg("x").noconvert(), pybind11::arg("alpha"));
  m.def("split3", &split3);
  m.def("max_dim", &max_dim);
  m.def("is_given", &is_given, pybind11::arg("x") = pybind11::none());
  m.def("undefined", [] { return sdk::Tensor(); });
  m.def("data_address", &data_address);
  m.def("fill_inplace", &fill_inplace);
  m.def("scalar_roundtrip", &scalar_roundtrip);
  m.def("add_scalar", &add_scalar);
  m.def("checked_mm", &checked_mm);
  m.def("arange", [](int64_t n) { return sdk::arange(n, sdk::kFloat64); });
  m.def("fail", &fail);
}
