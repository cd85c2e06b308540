// The ops of an older-style extension, declared in a header that includes only torch/torch.h:
// in an extension build that header brings pybind11 too, which module.cpp relies on.
#include <torch/torch.h>

#include <vector>

// 1 where a score passes `thresh`, else 0 (uint8), and the scores' descending order.
std::vector<at::Tensor> threshold_mask(const at::Tensor& scores, double thresh);
// Whether the deprecated type of the mask is uint8 on the CPU (and differs from the scores').
bool mask_type_is_byte(const at::Tensor& scores);
// x in y's dtype, through the deprecated type and through the dtype (both old idioms).
std::vector<at::Tensor> as_type_of(const at::Tensor& x, const at::Tensor& y);
// x clamped to [lo, hi], the uint8 mask of the clamped places and their count (int64), the
// mask and count made with the deprecated at::CPU(dtype) as options.
std::vector<at::Tensor> clamp_with_mask(const at::Tensor& x, double lo, double hi);
// Whether x's type is at::CPU(kFloat), at::CPU(kDouble); whether at::CUDA(kFloat) and
// at::CPU(kFloat) are CUDA types; at::CUDA(kByte)'s dtype.
std::vector<bool> deprecated_types_by_device(const at::Tensor& x);
