// sdk/dtype_table.h: the SDK_DTYPES rows as a C++ array indexed by dtype code, read by the C++
// API (sdk/dtype.h) and by the core alike.
#ifndef SDK_DTYPE_TABLE_H_
#define SDK_DTYPE_TABLE_H_

#include <cstdint>

#include "sdk/c_api.h"

namespace sdk {
namespace detail {

/*! \brief One SDK_DTYPES row, indexed by code. */
struct DtypeFacts {
  const char* name;
  int64_t itemsize;
  int kind;  // sdk_dl_type_code
};
#define SDK_DETAIL_DTYPE_FACTS(NAME, code, name, Torch, itemsize, kind, ...) \
  DtypeFacts{name, itemsize, SDK_DL_##kind},
inline constexpr DtypeFacts kDtypeFacts[] = {SDK_DTYPES(SDK_DETAIL_DTYPE_FACTS)};
#undef SDK_DETAIL_DTYPE_FACTS
inline constexpr int kDtypeCount = static_cast<int>(sizeof(kDtypeFacts) / sizeof(kDtypeFacts[0]));
constexpr bool dtype_codes_are_indices() {
  int i = 0;
#define SDK_DETAIL_DTYPE_CODE(NAME, code, ...) \
  if (SDK_##NAME != i++) return false;
  SDK_DTYPES(SDK_DETAIL_DTYPE_CODE)
#undef SDK_DETAIL_DTYPE_CODE
  return true;
}
static_assert(dtype_codes_are_indices(), "SDK_DTYPES rows must have the codes 0, 1, ... in order");
/*! \brief What a code without a row answers: no name, no size, no kind. */
inline constexpr DtypeFacts kUndefinedFacts{"undefined", 0, -1};
/*! \brief The row of `code`, or kUndefinedFacts. A reference, never a pointer tested for null:
 *  gcc does not fold `&kDtypeFacts[i] != nullptr` in constant expressions under
 *  -fsanitize=undefined or address, and these lookups are used in static_asserts. */
constexpr const DtypeFacts& dtype_facts_of(int code) {
  return code >= 0 && code < kDtypeCount ? kDtypeFacts[code] : kUndefinedFacts;
}

}  // namespace detail
}  // namespace sdk

#endif  // SDK_DTYPE_TABLE_H_
