/*
 * sdk/export.h: export plain C functions to Python through the ctypes bridge.
 *
 * An extension built with `cpp_extension.load(..., is_python_module=False)`
 * needs no binding library: each function is marked with SDK_EXPORT, which
 * also stores its signature in the binary. The loader reads the dynamic
 * symbol table, finds every `sdk_sig_<name>` string, and builds a Python
 * callable per function that converts arguments and raises errors.
 * Valid C99 and C++; depends only on sdk/c_api.h.
 *
 *   #include <sdk/export.h>
 *
 *   SDK_EXPORT(scale, "(Tensor x, float alpha) -> Tensor")
 *   sdk_status scale(const sdk_tensor* x, double alpha, sdk_tensor** out) {
 *     ...
 *     return SDK_OK;   // or: return sdk_set_last_error(SDK_ERROR_VALUE, "msg");
 *   }
 *
 * ---------------------------------------------------------------------------
 * Signature grammar
 * ---------------------------------------------------------------------------
 *   signature := "(" [ arg { "," arg } ] ")" "->" results
 *   arg       := kind [ name ]
 *   kind      := "Tensor" | "Tensor?" | "float" | "int" | "bool"
 *   results   := "()" | "Tensor" [ name ] | "(" "Tensor" [ name ] { "," ... } ")"
 *
 * C parameter for each kind, in order, followed by one out-pointer per result:
 *   Tensor    const sdk_tensor*   borrowed; never NULL
 *   Tensor?   const sdk_tensor*   borrowed; NULL when Python passes None
 *   float     double
 *   int       int64_t
 *   bool      int32_t             0 or 1
 *   result    sdk_tensor**        the function stores a NEW reference
 * The function returns sdk_status: SDK_OK, or the kind recorded with
 * sdk_set_last_error(), which Python raises as ValueError, TypeError, ...
 *
 * Rationale: the kinds are the ones every FFI passes by value without
 * structs, so the bridge stays a thin ctypes layer; outputs are always
 * out-pointers so the status is free to report errors.
 */
#ifndef SDK_EXPORT_H_
#define SDK_EXPORT_H_

#include "sdk/c_api.h"

#ifdef __cplusplus
#define SDK_EXPORT_LINKAGE extern "C"
#else
#define SDK_EXPORT_LINKAGE
#endif

#if defined(_WIN32)
#define SDK_EXPORT_VISIBLE __declspec(dllexport)
#define SDK_EXPORT_WEAK __declspec(selectany)
#else
#define SDK_EXPORT_VISIBLE __attribute__((visibility("default")))
#define SDK_EXPORT_WEAK __attribute__((weak))
#endif

/*! \brief Prefix of the data symbol holding a function's signature. */
#define SDK_EXPORT_SIGNATURE_PREFIX "sdk_sig_"
/*! \brief Name of the data symbol holding the ABI version built against. */
#define SDK_EXPORT_ABI_SYMBOL "sdk_extension_abi_version"

/*! \brief ABI version this extension was compiled against,
 *  (major << 16) | minor, checked by the loader against the running core.
 *  Rationale: weak, so every translation unit may define it and the linker
 *  keeps one; defined here so that it exists once per binary without a
 *  separate "module" macro. */
SDK_EXPORT_LINKAGE SDK_EXPORT_WEAK SDK_EXPORT_VISIBLE const uint32_t sdk_extension_abi_version =
    ((uint32_t)SDK_ABI_VERSION_MAJOR << 16) | (uint32_t)SDK_ABI_VERSION_MINOR;

/*! \brief Export the function defined right after this macro under `name`
 *  with signature `sig` (see the grammar above). Gives the function C
 *  linkage and default visibility. */
#define SDK_EXPORT(name, sig)                                              \
  SDK_EXPORT_LINKAGE SDK_EXPORT_VISIBLE const char sdk_sig_##name[] = sig; \
  SDK_EXPORT_LINKAGE SDK_EXPORT_VISIBLE

#ifdef __cplusplus
#include "sdk/error.h"

/*! \brief C++ only: wrap a function body so that no exception crosses the
 *  C boundary; exceptions become recorded errors of the matching kind
 *  (sdk::Error keeps its own; see sdk::detail::status_of_exception).
 *    SDK_EXPORT(f, "(Tensor x) -> Tensor")
 *    sdk_status f(const sdk_tensor* x, sdk_tensor** out) {
 *      SDK_EXPORT_TRY ... return SDK_OK; SDK_EXPORT_CATCH
 *    }
 */
#define SDK_EXPORT_TRY try {
#define SDK_EXPORT_CATCH                                                 \
  }                                                                      \
  catch (...) {                                                          \
    return ::sdk::detail::status_of_exception("an SDK_EXPORT function"); \
  }
#endif /* __cplusplus */

#endif /* SDK_EXPORT_H_ */
