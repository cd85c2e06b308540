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
