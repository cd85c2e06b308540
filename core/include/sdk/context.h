// sdk/context.h: sdk::globalContext(), the process-wide switches of torch's at::Context that
// extensions read before picking a kernel (deterministic algorithms, TF32, whether CUDA is
// there).
//
// The SDK's kernels have no nondeterministic variants, its Python package has no
// use_deterministic_algorithms(), and its matmuls never use TF32: those settings read as
// torch's defaults (off). CUDA needs no lazy initialization (the backend loads on first use).
#ifndef SDK_CONTEXT_H_
#define SDK_CONTEXT_H_

#include <string>

#include "sdk/cuda_guard.h"
#include "sdk/device.h"
#include "sdk/error.h"

namespace sdk {

/*! \brief The switches of torch's at::Context that extension code asks about.
 *
 *  Rationale: the deterministic flags start false and change only through
 *  setDeterministicAlgorithms() (which an extension may call to make its own choice visible
 *  to its other kernels); they live in the extension that includes this header. */
class Context {
 public:
  bool deterministicAlgorithms() const { return deterministic_; }
  bool deterministicAlgorithmsWarnOnly() const { return warn_only_; }
  void setDeterministicAlgorithms(bool enabled, bool warn_only = false) {
    deterministic_ = enabled;
    warn_only_ = enabled && warn_only;
  }
  /*! \brief Raise (or, when warn-only, do nothing) if deterministic algorithms were asked
   *  for: `caller` has no deterministic implementation. */
  void alertNotDeterministic(const std::string& caller) const {
    SDK_CHECK_NOT_IMPLEMENTED(!deterministic_ || warn_only_, caller,
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

 private:
  bool deterministic_ = false;
  bool warn_only_ = false;
};

/*! \brief The one Context of this extension (torch: at::globalContext()). */
inline Context& globalContext() {
  static Context context;
  return context;
}

}  // namespace sdk

#endif  // SDK_CONTEXT_H_
