// sdk/all.h: every header-only C++ API of the SDK except the pybind11 bridge and CUDA (what
// ATen/ATen.h and torch/torch.h are to torch): tensors and ops, dispatch, parallel_for,
// operator registration, C++ autograd, accumulation types and the c10-style utilities.
#ifndef SDK_ALL_H_
#define SDK_ALL_H_

#include "sdk/acc_type.h"
#include "sdk/autograd.h"
#include "sdk/library.h"
#include "sdk/nn.h"
#include "sdk/tensor.h"
#include "sdk/util.h"

#endif  // SDK_ALL_H_
