// indexing.cpp: torch::indexing idioms renamed (torch::indexing -> sdk::indexing), checked
// against Python indexing by test_tutorial_port.py.
#include <sdk/extension.h>

#include <vector>

using namespace sdk::indexing;

std::vector<sdk::Tensor> get(sdk::Tensor x, sdk::Tensor i, sdk::Tensor m) {
  return {
      x.index({Slice(), 0}),
      x.index({Slice(1, None), Slice(None, None, 2)}),
      x.index({"...", -1}),
      x.index({None, 0, Ellipsis}),
      x.index({i}),
      x.index({Slice(), i}),
      x.index({i, Slice(), i}),
      x.index({0, Slice(), i}),
      x.index({m}),
      x.index({Slice(), Slice(), i, None}),
      x.index({-1, -2, -3}),
      x.index({true}),
  };
}

sdk::Tensor put(sdk::Tensor x, sdk::Tensor i, sdk::Tensor m) {
  x.index_put_({Slice(), 0}, 7.5);
  x.index_put_({0, Slice(1, 3)}, sdk::ones({6}, x.options()) * -1);
  x.index_put_({m}, 0);
  x.index_put_({Slice(), i, 1}, sdk::full({}, 3.0, x.options()));
  x.index_put_({i, Slice(), i}, x.index({i, Slice(), i}) * 10);
  return x;
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("get", &get);
  m.def("put", &put);
}
