// Kernels in the idiom of extensions written for torch 1.x: the deprecated Tensor::type() to
// pick the dtype and make a uint8 mask on the input's device, and ATen/NativeFunctions.h
// included by habit.
#include "ops.h"

#include <ATen/ATen.h>
#include <ATen/NativeFunctions.h>

namespace {

template <typename scalar_t>
void fill_mask(const at::Tensor& scores, double thresh, unsigned char* mask) {
  const scalar_t* s = scores.data_ptr<scalar_t>();
  for (int64_t i = 0; i < scores.numel(); ++i) mask[i] = s[i] > thresh ? 1 : 0;
}

}  // namespace

std::vector<at::Tensor> threshold_mask(const at::Tensor& scores, double thresh) {
  TORCH_CHECK(scores.is_contiguous(), "scores must be contiguous");
  TORCH_CHECK(scores.type().scalarType() == at::kFloat || scores.type().scalarType() == at::kDouble,
              "scores must be float32 or float64");
  auto mask = torch::zeros(scores.sizes(), scores.type().toScalarType(at::kByte));
  if (scores.type().scalarType() == at::kFloat) {
    fill_mask<float>(scores, thresh, mask.data_ptr<unsigned char>());
  } else {
    fill_mask<double>(scores, thresh, mask.data_ptr<unsigned char>());
  }
  at::Tensor order = std::get<1>(scores.sort(-1, true));
  return {mask, order};
}

bool mask_type_is_byte(const at::Tensor& scores) {
  auto type = scores.type().toScalarType(at::kByte);
  return type.scalarType() == at::kByte && type != scores.type() && !type.is_cuda();
}

std::vector<at::Tensor> as_type_of(const at::Tensor& x, const at::Tensor& y) {
  return {x.to(y.type()), x.to(y.dtype())};
}

std::vector<at::Tensor> clamp_with_mask(const at::Tensor& x, double lo, double hi) {
  TORCH_CHECK(x.is_contiguous() && x.scalar_type() == at::kFloat, "x must be contiguous float32");
  auto out = at::zeros_like(x);
  auto mask = at::zeros_like(x, at::CPU(at::kByte));
  auto count = torch::zeros({1}, torch::CPU(at::kLong));
  const float* in = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  uint8_t* m = mask.data_ptr<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    m[i] = in[i] < lo || in[i] > hi;
    o[i] = in[i] < lo ? lo : in[i] > hi ? hi : in[i];
    count.data_ptr<int64_t>()[0] += m[i];
  }
  return {out, mask, count};
}

std::vector<bool> deprecated_types_by_device(const at::Tensor& x) {
  return {at::CPU(at::kFloat) == x.type(), at::CPU(at::kDouble) == x.type(),
          at::CUDA(at::kFloat).is_cuda(), at::CPU(at::kFloat).is_cuda(),
          at::CUDA(at::kByte).scalarType() == at::kByte};
}
