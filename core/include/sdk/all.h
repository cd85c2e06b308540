// sdk/all.h: every header-only C++ API of the SDK except the pybind11 bridge and the CUDA
// toolkit helpers (what ATen/ATen.h and torch/torch.h are to torch): tensors and ops,
// dispatch, parallel_for, operator registration, C++ autograd, List/Dict, argument checks,
// device guards, accumulation types and the c10-style utilities.
#ifndef SDK_ALL_H_
#define SDK_ALL_H_
// while defined, sdk/cuda_guard.h leaves the global cudaStream_t undeclared (see there)
#define SDK_ALL_H_BODY_

// The standard headers torch/torch.h brings in transitively, which ported code uses without
// including them itself.
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sdk/acc_type.h"
#include "sdk/autograd.h"
#include "sdk/containers.h"
#include "sdk/context.h"
#include "sdk/cuda_guard.h"
#include "sdk/expand_utils.h"
#include "sdk/flags.h"  // torch/torch.h brings c10/util/Flags.h (through Logging.h)
#include "sdk/library.h"
#include "sdk/logging.h"
#include "sdk/nn.h"
#include "sdk/nn_aten.h"
#include "sdk/parallel.h"
#include "sdk/tensor.h"
#include "sdk/tensor_utils.h"
#include "sdk/util.h"

#undef SDK_ALL_H_BODY_

#endif  // SDK_ALL_H_
