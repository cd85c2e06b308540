// A torch-style extension with the idioms of published detection/graph packages: a per-device
// kernel registry filled by a token-pasting macro, the global context's switches, sampling
// with torch::multinomial and an index list built with torch::tensor.
#include <ATen/Context.h>
#include <torch/extension.h>

#include <string>

namespace {

using ScaleFn = at::Tensor (*)(const at::Tensor&, double);

class Registry {
 public:
  static Registry& instance() {
    static Registry r;
    return r;
  }
  void set(c10::DeviceType type, ScaleFn fn) { fns_[static_cast<int>(type)] = fn; }
  ScaleFn get(c10::DeviceType type) const { return fns_[static_cast<int>(type)]; }

 private:
  ScaleFn fns_[static_cast<int>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)] = {};
};

// the device name is pasted on, so the porter never sees a whole name here
#define REGISTER_IMPL(device, fn)                                      \
  struct fn##_registerer {                                             \
    fn##_registerer() { Registry::instance().set(at::k##device, fn); } \
  };                                                                   \
  static fn##_registerer fn##_instance;

at::Tensor scale_cpu(const at::Tensor& x, double a) { return x * a; }
REGISTER_IMPL(CPU, scale_cpu)

}  // namespace

at::Tensor scale(const at::Tensor& x, double a) {
  ScaleFn fn = Registry::instance().get(x.device().type());
  // DeviceTypeName is found by argument-dependent lookup, as the packages call it
  TORCH_CHECK(fn != nullptr, "scale: no kernel for ", DeviceTypeName(x.device().type(), true));
  return fn(x, a);
}

std::string device_name(const at::Tensor& x) { return DeviceTypeName(x.device().type(), true); }

bool deterministic() { return at::globalContext().deterministicAlgorithms(); }

bool has_cuda() { return at::globalContext().hasCUDA(); }

// the rows of an edge index swapped, as graph packages write it
at::Tensor swap_rows(const at::Tensor& edges) {
  return edges.index_select(0, torch::tensor({1, 0}));
}

at::Tensor sample(const at::Tensor& weights, int64_t n, bool replacement) {
  std::unique_ptr<int> owner(new int(0));  // <memory> comes with torch/extension.h
  return torch::multinomial(weights, n + *owner, replacement);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scale", &scale);
  m.def("device_name", &device_name);
  m.def("deterministic", &deterministic);
  m.def("has_cuda", &has_cuda);
  m.def("swap_rows", &swap_rows);
  m.def("sample", &sample);
}
