// sdk/nn.h: torch/nn.h's counterpart: nn::functional, nn::Module and the built-in modules.
#ifndef SDK_NN_H_
#define SDK_NN_H_

#include "sdk/nn_functional.h"  // IWYU pragma: export
#include "sdk/nn_module.h"      // IWYU pragma: export
#include "sdk/nn_modules.h"     // IWYU pragma: export

#endif  // SDK_NN_H_
