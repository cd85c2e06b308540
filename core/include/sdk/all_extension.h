// sdk/all_extension.h: sdk/all.h plus, in an extension build, the pybind11 bridge of
// sdk/extension.h: what torch/torch.h is in a torch extension build (torch's tooling defines
// TORCH_API_INCLUDE_EXTENSION_H, so torch/torch.h brings PYBIND11_MODULE and py:: there, and
// extensions declare their ops in a header including only torch/torch.h).
#ifndef SDK_ALL_EXTENSION_H_
#define SDK_ALL_EXTENSION_H_

#include "sdk/all.h"

// An extension build is one the SDK's tooling runs (it defines SDK_EXTENSION_NAME) with
// Python's and pybind11's headers on the include path (not a standalone executable). nvcc
// translation units keep to sdk/all.h: pybind11 is for the host C++ side.
#if defined(SDK_EXTENSION_NAME) && !defined(__CUDACC__) && defined(__has_include)
#if __has_include(<Python.h>) && __has_include(<pybind11/pybind11.h>)
#include "sdk/extension.h"
#endif
#endif

#endif  // SDK_ALL_EXTENSION_H_
