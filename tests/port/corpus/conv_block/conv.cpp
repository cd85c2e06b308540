// Convolution blocks: conv2d + bias + ReLU, and a causal depthwise dilated conv1d (groups =
// channels) that pads on the left with constant_pad_nd so the length is kept.
#include <ATen/ATen.h>
#include <torch/extension.h>

at::Tensor conv2d_relu(const at::Tensor& x, const at::Tensor& weight,
                       const c10::optional<at::Tensor>& bias, int64_t stride, int64_t padding) {
  TORCH_CHECK(x.dim() == 4, "conv2d_relu: expected an NCHW input, got ", x.dim(), " dims");
  TORCH_CHECK(x.size(1) == weight.size(1), "conv2d_relu: input has ", x.size(1),
              " channels but the weight expects ", weight.size(1));
  return at::relu(at::conv2d(x, weight, bias, stride, padding));
}

at::Tensor causal_depthwise_conv1d(const at::Tensor& x, const at::Tensor& weight,
                                   const at::Tensor& bias, int64_t dilation) {
  const int64_t channels = x.size(1);
  TORCH_CHECK(weight.dim() == 3 && weight.size(0) == channels && weight.size(1) == 1,
              "causal_depthwise_conv1d: weight must be [", channels, ", 1, k], got ",
              weight.sizes());
  const int64_t k = weight.size(2);
  const int64_t stride = 1;
  const int64_t padding = 0;
  auto padded = at::constant_pad_nd(x, {(k - 1) * dilation, 0}, 0);
  return at::conv1d(padded, weight, bias, stride, padding, dilation, /*groups=*/channels);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("conv2d_relu", &conv2d_relu, py::arg("x"), py::arg("weight"), py::arg("bias") = py::none(),
        py::arg("stride") = 1, py::arg("padding") = 0);
  m.def("causal_depthwise_conv1d", &causal_depthwise_conv1d, py::arg("x"), py::arg("weight"),
        py::arg("bias"), py::arg("dilation") = 1);
}
