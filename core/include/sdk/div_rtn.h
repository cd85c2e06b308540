// sdk/div_rtn.h: div_rtn, integer division rounding towards negative infinity, at global scope
// as torch's ATen/div_rtn.h declares it (ported code calls it unqualified).
#ifndef SDK_DIV_RTN_H_
#define SDK_DIV_RTN_H_

#include "sdk/macros.h"

/*! \brief x / y rounded towards negative infinity, for integers. */
template <typename T>
SDK_DEVICE_INLINE T div_rtn(T x, T y) {
  T q = x / y, r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) --q;
  return q;
}

#endif  // SDK_DIV_RTN_H_
