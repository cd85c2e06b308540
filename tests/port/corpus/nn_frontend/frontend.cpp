// A small image classifier written against the C++ frontend: a Module subclass with a conv and a
// linear submodule, a parameter and a buffer, torch::nn::functional calls with options structs,
// and the class bound to Python with torch::python::bind_module.
#include <torch/extension.h>
#include <torch/nn.h>
#include <torch/python.h>

#include <vector>

namespace F = torch::nn::functional;

struct TinyNetImpl : torch::nn::Module {
  TinyNetImpl(int64_t channels, int64_t classes) {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, channels, 3)));
    head = register_module("head", torch::nn::Linear(channels, classes));
    gain = register_parameter("gain", torch::ones({channels}));
    calls = register_buffer("calls", torch::zeros({1}, torch::kLong));
  }

  // (N, 1, H, W) -> (N, classes) logits
  torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.dim() == 4 && x.size(1) == 1, "TinyNet: expected (N, 1, H, W), got ", x.sizes());
    calls.add_(1);
    auto h = F::pad(x, F::PadFuncOptions({1, 1, 1, 1}).mode(torch::kReflect));
    h = F::relu(conv(h)) * gain.view({1, -1, 1, 1});
    h = F::max_pool2d(h, F::MaxPool2dFuncOptions(2));
    h = F::interpolate(
        h,
        F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kNearest));
    auto pooled = F::adaptive_avg_pool2d(h, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
    return head(F::normalize(pooled, F::NormalizeFuncOptions().p(2).dim(1)));
  }

  torch::Tensor loss(torch::Tensor x, torch::Tensor target, double smoothing) {
    return F::cross_entropy(forward(x), target,
                            F::CrossEntropyFuncOptions().label_smoothing(smoothing));
  }

  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear head{nullptr};
  torch::Tensor gain, calls;
};

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  torch::python::bind_module<TinyNetImpl>(m, "TinyNet")
      .def(py::init<int64_t, int64_t>())
      .def("loss", &TinyNetImpl::loss);
}
