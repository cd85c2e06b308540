// sdk/context.h: at::globalContext(), torch's process-wide settings object, answering for the
// settings the SDK has.
//
// Extensions read it to pick a code path: a deterministic backward when
// torch.use_deterministic_algorithms(True) is on, TF32 in their own cuBLAS calls when
// allowed. The SDK has no switch for deterministic algorithms and its matmuls never use TF32,
// so those settings read as torch's defaults (off) and alertNotDeterministic never raises;
// CUDA needs no lazy initialization (the backend loads on first use).
#ifndef SDK_CONTEXT_H_
#define SDK_CONTEXT_H_

#include <string_view>

#include "sdk/cuda_guard.h"
#include "sdk/device.h"

namespace sdk {

/*! \brief torch's at::Context, for the settings extensions read. */
class Context {
 public:
  /*! \brief Whether deterministic algorithms were requested: never (there is no switch). */
  bool deterministicAlgorithms() const { return false; }
  bool deterministicAlgorithmsWarnOnly() const { return false; }
  /*! \brief torch raises here when deterministic algorithms are requested; they cannot be. */
  void alertNotDeterministic(std::string_view /*caller*/) const {}
  /*! \brief Whether cuBLAS may use TF32 for float32 matmuls: no, the SDK's never do. */
  bool allowTF32CuBLAS() const { return false; }
  /*! \brief CUDA starts on first use: nothing to do. */
  void lazyInitCUDA() const {}
  void lazyInitDevice(DeviceType /*type*/) const {}
  /*! \brief Whether a CUDA device can be used. */
  bool hasCUDA() const { return cuda::is_available(); }
  /*! \brief The SDK calls no cuDNN. */
  bool hasCuDNN() const { return false; }
  bool userEnabledCuDNN() const { return false; }
};

/*! \brief The process's settings (torch's at::globalContext()). */
inline Context& globalContext() {
  static Context context;
  return context;
}

}  // namespace sdk

#endif  // SDK_CONTEXT_H_
