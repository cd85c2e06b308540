// sdk/headeronly.h: torch's header-only names (torch::headeronly: ScalarType, Layout, the
// array-ref spellings, the error-code check) as the SDK's own types, for stable-ABI ports.
//
// torch keeps a second, header-only copy of its basic types so that stable-ABI extensions do
// not link against libtorch. The SDK's types are header-only over a stable C ABI already, so
// torch::headeronly::X is sdk::X: a ScalarType from a tensor compares equal to
// sdk::headeronly::ScalarType::Float without conversion.
#ifndef SDK_HEADERONLY_H_
#define SDK_HEADERONLY_H_

#include <cstdint>

#include "sdk/array_ref.h"
#include "sdk/c_api.h"
#include "sdk/device.h"
#include "sdk/dtype.h"
#include "sdk/error.h"
#include "sdk/options.h"

namespace sdk {
namespace headeronly {

// kBool, kByte, ..., kDouble: one per SDK_DTYPES row.
#define SDK_DETAIL_HEADERONLY_DTYPE(NAME, code, name, Torch, ...) using sdk::k##Torch;
SDK_DTYPES(SDK_DETAIL_HEADERONLY_DTYPE)
#undef SDK_DETAIL_HEADERONLY_DTYPE
using sdk::ScalarType;

using sdk::DeviceType;
using sdk::kCPU;
using sdk::kCUDA;
using sdk::kStrided;
using sdk::Layout;
using sdk::MemoryFormat;

/*! \brief torch's HeaderOnlyArrayRef<T>: a non-owning view of T values. */
template <typename T>
using HeaderOnlyArrayRef = ArrayRef<T>;
using IntHeaderOnlyArrayRef = ArrayRef<int64_t>;

}  // namespace headeronly
}  // namespace sdk

/*! \brief torch's TORCH_ERROR_CODE_CHECK(call): throw when a C ABI call fails. Here `call`
 *  returns an sdk_status; the exception carries the core's message for the failure. */
#define SDK_ERROR_CODE_CHECK(call)                                      \
  if (SDK_UNLIKELY((call) != SDK_OK)) {                                 \
    ::sdk::detail::throw_last_error("SDK_ERROR_CODE_CHECK(" #call ")"); \
  }

#endif  // SDK_HEADERONLY_H_
