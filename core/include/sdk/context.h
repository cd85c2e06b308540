// sdk/context.h: sdk::globalContext(), the process-wide switches of torch's at::Context that
// extensions read before picking a kernel (deterministic algorithms, TF32, whether CUDA is
// there).
//
// The SDK's kernels have no nondeterministic variants and its matmuls never use TF32. The
// deterministic switch is the process's (sdk.use_deterministic_algorithms in Python, or
// setDeterministicAlgorithms here: both set the core's, sdk_set_deterministic_algorithms), so
// an extension's kernels see what the user asked for. CUDA needs no lazy initialization (the
// backend loads on first use).
#ifndef SDK_CONTEXT_H_
#define SDK_CONTEXT_H_

#include <string>

#include "sdk/cuda_guard.h"
#include "sdk/device.h"
#include "sdk/error.h"

namespace sdk {

/*! \brief The switches of torch's at::Context that extension code asks about.
 *
 *  Rationale: the deterministic switch is the core's (process-wide, as torch's), so Python's
 *  sdk.use_deterministic_algorithms(True) reaches every extension's kernels. */
class Context {
 public:
  bool deterministicAlgorithms() const { return sdk_deterministic_algorithms() != 0; }
  bool deterministicAlgorithmsWarnOnly() const { return sdk_deterministic_algorithms() == 2; }
  void setDeterministicAlgorithms(bool enabled, bool warn_only = false) {
    sdk_set_deterministic_algorithms(enabled ? 1 : 0, warn_only ? 1 : 0);
  }
  /*! \brief Raise (when warn-only: warn) if deterministic algorithms were asked for:
   *  `caller` has no deterministic implementation. */
  void alertNotDeterministic(const std::string& caller) const {
    const int32_t mode = sdk_deterministic_algorithms();
    if (mode == 2) {
      SDK_WARN(caller,
               " does not have a deterministic implementation, but deterministic "
               "algorithms were asked for (warn_only=True)");
    }
    SDK_CHECK_NOT_IMPLEMENTED(mode != 1, caller,
                              " does not have a deterministic implementation, but "
                              "deterministic algorithms were asked for");
  }
  /*! \brief The SDK's matmuls never use TF32. */
  bool allowTF32CuBLAS() const { return false; }
  /*! \brief Nothing to do: the CUDA backend loads on first use. */
  void lazyInitCUDA() const {}
  void lazyInitDevice(DeviceType /*type*/) const {}
  /*! \brief Whether the core was built with CUDA and a device is present. */
  bool hasCUDA() const { return cuda::is_available(); }
  /*! \brief The SDK does not link cuDNN. */
  bool hasCuDNN() const { return false; }
  bool userEnabledCuDNN() const { return false; }
};

/*! \brief The one Context of this extension (torch: at::globalContext()). */
inline Context& globalContext() {
  static Context context;
  return context;
}

}  // namespace sdk

#endif  // SDK_CONTEXT_H_
