// The module: PYBIND11_MODULE with no include but the ops' header (torch/torch.h there).
#include "ops.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("threshold_mask", &threshold_mask, "uint8 mask of scores above thresh, and their order");
  m.def("as_type_of", &as_type_of, "x in y's dtype, two ways");
  m.def("clamp_with_mask", &clamp_with_mask, "x clamped, the mask of the clamped places, count");
  m.def("deprecated_types_by_device", &deprecated_types_by_device, "at::CPU/at::CUDA types");
  m.def("mask_type_is_byte", &mask_type_is_byte, "whether the mask's type is uint8 on the CPU");
}
