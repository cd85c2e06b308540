// The error and warning macros, DimVector, ceil_div and c10::str as extensions use them.
#include <ATen/ATen.h>
#include <ATen/ceil_div.h>
#include <torch/extension.h>

#include <string>

at::Tensor blocks(const at::Tensor& x, int64_t block) {
  TORCH_CHECK_GT(block, 0) << "block must be positive";
  TORCH_CHECK_EQ(x.dim(), 1) << "blocks: a 1-d tensor";
  at::DimVector shape{at::ceil_div(x.size(0), block), block};
  auto padded = torch::zeros({shape[0] * shape[1]}, x.options());
  padded.slice(0, 0, x.size(0)).copy_(x);
  return padded.view(shape);
}

std::string describe(const at::Tensor& x) {
  if (x.numel() == 0) {
    AT_ERROR("describe: empty tensor of shape ", x.sizes());
  }
  TORCH_WARN_ONCE("describe is slow for large tensors");
  return c10::str("tensor of ", x.numel(), " elements, dtype ", x.scalar_type());
}

at::Tensor halve(const at::Tensor& x) {
  AT_ASSERTM(x.defined(), "halve: undefined tensor");
  return AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "halve", [&] {
    TORCH_INTERNAL_ASSERT(sizeof(scalar_t) >= 2, "unexpected scalar size");
    return x / 2;
  });
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("blocks", &blocks);
  m.def("describe", &describe);
  m.def("halve", &halve);
}
