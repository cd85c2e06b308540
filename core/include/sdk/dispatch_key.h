// sdk/dispatch_key.h: sdk::DispatchKey and every name a dispatch key is known by, derived from
// SDK_DISPATCH_KEYS (c_api.h) and the aliases below; sdk.library reads the same names.
#ifndef SDK_DISPATCH_KEY_H_
#define SDK_DISPATCH_KEY_H_

#include <cstdint>

#include "sdk/c_api.h"

/*! \brief torch's other spellings of the keys of SDK_DISPATCH_KEYS: X(name, KEY). KEY IGNORED
 *  marks dispatch steps the SDK does not have (backend selection): kernels registered for
 *  them are accepted and never called, so code written for torch registers unchanged. Meta
 *  is a key of its own since ABI 1.7 (before, its kernels were dropped this way). */
#define SDK_DISPATCH_KEY_ALIASES(X)                                      \
  X(AutogradCPU, AUTOGRAD)                                               \
  X(AutogradCUDA, AUTOGRAD)                                              \
  X(Math, COMPOSITE_IMPLICIT_AUTOGRAD)                                   \
  X(DefaultBackend, COMPOSITE_EXPLICIT_AUTOGRAD)                         \
  X(CompositeExplicitAutogradNonFunctional, COMPOSITE_EXPLICIT_AUTOGRAD) \
  X(BackendSelect, IGNORED)

/*! \brief torch.library's device types, which its Python functions take where they take a
 *  dispatch key ("cpu", "cuda"; "default": every device): X("name", KEY). Not C++ names. */
#define SDK_DISPATCH_DEVICE_TYPES(X) \
  X("cpu", CPU)                      \
  X("cuda", CUDA)                    \
  X("default", COMPOSITE_EXPLICIT_AUTOGRAD)

/*! \brief The code of the keys whose kernels are accepted and dropped (SDK_DISPATCH_KEY_ALIASES).
 */
#define SDK_DISPATCH_IGNORED (-2)

namespace sdk {

/*! \brief Dispatch keys by torch's c10::DispatchKey names: SDK_DISPATCH_KEYS, then the
 *  other spellings of SDK_DISPATCH_KEY_ALIASES. */
enum class DispatchKey : int32_t {
  Undefined = -1,
#define SDK_DETAIL_KEY_ENUM(key, code, name, meaning) name = SDK_DISPATCH_##key,
  SDK_DISPATCH_KEYS(SDK_DETAIL_KEY_ENUM)
#undef SDK_DETAIL_KEY_ENUM
#define SDK_DETAIL_ALIAS_ENUM(name, key) name = SDK_DISPATCH_##key,
      SDK_DISPATCH_KEY_ALIASES(SDK_DETAIL_ALIAS_ENUM)
#undef SDK_DETAIL_ALIAS_ENUM
};

namespace detail {

/*! \brief The number of keys with kernels (codes 0 .. kNumDispatchKeys - 1). */
#define SDK_DETAIL_KEY_COUNT(key, code, name, meaning) +1
constexpr int kNumDispatchKeys = 0 SDK_DISPATCH_KEYS(SDK_DETAIL_KEY_COUNT);
#undef SDK_DETAIL_KEY_COUNT

/*! \brief Whether kernels for `key` are accepted and dropped (see SDK_DISPATCH_KEY_ALIASES). */
constexpr bool is_ignored_key(DispatchKey key) {
  return static_cast<int32_t>(key) == SDK_DISPATCH_IGNORED;
}

/*! \brief The name of a key's code as messages print it ("?" for any other code). */
constexpr const char* dispatch_key_name(int code) {
#define SDK_DETAIL_KEY_NAME(key, code_, name, meaning) \
  if (code == SDK_DISPATCH_##key) return #name;
  SDK_DISPATCH_KEYS(SDK_DETAIL_KEY_NAME)
#undef SDK_DETAIL_KEY_NAME
  return "?";
}

/*! \brief Every name a key is known by and its code (SDK_DISPATCH_IGNORED for ignored ones), in
 *  table order: canonical names, their aliases, then torch.library's device types. */
struct DispatchKeyName {
  const char* name;
  int32_t code;
};
#define SDK_DETAIL_KEY_ROW(key, code, name, meaning) {#name, SDK_DISPATCH_##key},
#define SDK_DETAIL_ALIAS_ROW(name, key) {#name, SDK_DISPATCH_##key},
#define SDK_DETAIL_DEVICE_ROW(name, key) {name, SDK_DISPATCH_##key},
inline constexpr DispatchKeyName kDispatchKeyNames[] = {
    SDK_DISPATCH_KEYS(SDK_DETAIL_KEY_ROW) SDK_DISPATCH_KEY_ALIASES(SDK_DETAIL_ALIAS_ROW)
        SDK_DISPATCH_DEVICE_TYPES(SDK_DETAIL_DEVICE_ROW)};
#undef SDK_DETAIL_KEY_ROW
#undef SDK_DETAIL_ALIAS_ROW
#undef SDK_DETAIL_DEVICE_ROW

}  // namespace detail
}  // namespace sdk

#endif  // SDK_DISPATCH_KEY_H_
