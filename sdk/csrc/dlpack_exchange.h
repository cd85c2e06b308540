// sdk/csrc/dlpack_exchange.h: another framework's tensors in and out through the DLPack C
// exchange API (the capsule "dlpack_exchange_api" a framework sets on its tensor type as
// __dlpack_c_exchange_api__): C function pointers, no Python call per tensor.
#pragma once

#include <Python.h>

namespace sdkpy {

struct ExchangeApi;

// The API in `capsule`; NULL with a Python error when it is not one this build can use.
const ExchangeApi* exchange_api_of(PyObject* capsule);
// Whether `o` is a tensor of the framework that gave `api` (its type carries the capsule).
bool exchange_owns(PyObject* capsule, PyObject* o);
// `o` (a tensor of that framework) as a new sdk.Tensor sharing its memory; NULL on error.
PyObject* exchange_in(const ExchangeApi* api, PyObject* o);
// sdk tensor object `t` as a new tensor of that framework sharing its memory; NULL on error.
PyObject* exchange_out(const ExchangeApi* api, PyObject* t);

}  // namespace sdkpy
