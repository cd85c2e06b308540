// The module: the CPU kernels under the names the Python side calls.
#include "global.h"

std::tuple<at::Tensor, at::Tensor> NearestCpu(const at::Tensor& points, const at::Tensor& queries);
void SplatCpu(const at::Tensor& points, const at::Tensor& values, const at::Tensor& volume);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("nearest", &NearestCpu);
  m.def("splat", &SplatCpu);
}
