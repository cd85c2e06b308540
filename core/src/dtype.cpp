// core/src/dtype.cpp: torch's type promotion rules and the dtype ABI functions.
#include "dtype.h"

namespace sdk::detail {

// A complex dtype with any other: the complex one, widened to complex128 when the other holds
// float64 parts (complex64 with float64), as torch's table.
sdk_dtype promote_complex(sdk_dtype a, sdk_dtype b) {
  if (is_complex(a) && is_complex(b)) return a > b ? a : b;
  const sdk_dtype c = is_complex(a) ? a : b, other = is_complex(a) ? b : a;
  return other == SDK_FLOAT64 ? SDK_COMPLEX128 : c;
}

// The complex dtype whose parts hold `d` (torch's toComplexType; float16 and bfloat16, whose
// complex32 the SDK lacks, take complex64).
sdk_dtype to_complex(sdk_dtype d) {
  if (is_complex(d)) return d;
  return d == SDK_FLOAT64 ? SDK_COMPLEX128 : SDK_COMPLEX64;
}

// torch's lattice: bool < integers < floats; within integers uint8 and int8
// meet at int16; within floats float16 and bfloat16 meet at float32.
sdk_dtype promote(sdk_dtype a, sdk_dtype b) {
  if (a == b) return a;
  if (is_float8(a) || is_float8(b)) {  // torch promotes no 8-bit float with another dtype
    SDK_FAIL(SDK_ERROR_TYPE, "Promotion for Float8 Types is not supported, attempted to promote ",
             dtype_name(a), " and ", dtype_name(b));
  }
  if (is_complex(a) || is_complex(b)) return promote_complex(a, b);
  if (a == SDK_BOOL) return b;
  if (b == SDK_BOOL) return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (fa) {  // both floating
    if ((a == SDK_FLOAT16 && b == SDK_BFLOAT16) || (a == SDK_BFLOAT16 && b == SDK_FLOAT16)) {
      return SDK_FLOAT32;
    }
    return a > b ? a : b;
  }
  // both integral, different
  if ((a == SDK_UINT8 && b == SDK_INT8) || (a == SDK_INT8 && b == SDK_UINT8)) return SDK_INT16;
  return a > b ? a : b;  // codes grow with width; uint8 < int16 < int32 < int64
}

// torch's result_type for two tensors: a 0-dim operand only decides the dtype when its
// category (bool < integral < floating) is higher than the other operand's, so
// uint8[2] + tensor(2) stays uint8 and float16[2] * tensor(2.) stays float16.
sdk_dtype promote_operands(sdk_dtype a, bool a_zero_dim, sdk_dtype b, bool b_zero_dim) {
  if (a_zero_dim == b_zero_dim) return promote(a, b);
  auto category = [](sdk_dtype d) {
    return is_complex(d) ? 3 : is_floating(d) ? 2 : (d == SDK_BOOL ? 0 : 1);
  };
  sdk_dtype dims = a_zero_dim ? b : a;
  sdk_dtype zero = a_zero_dim ? a : b;
  if (category(zero) <= category(dims)) return dims;
  // A complex 0-dim operand keeps a floating tensor's width: float64[n] * complex64 is
  // complex128, float32[n] * complex128 complex64 (torch's combine_categories).
  return is_complex(zero) && is_floating(dims) ? to_complex(dims) : zero;
}

sdk_dtype promote_with_scalar(sdk_dtype t, int32_t scalar_kind) {
  switch (scalar_kind) {
    case SDK_SCALAR_FLOAT:
      return is_floating(t) || is_complex(t) ? t : SDK_FLOAT32;
    case SDK_SCALAR_INT:
      return t == SDK_BOOL ? SDK_INT64 : t;
    default:
      return t;
  }
}

double round_to_float8(sdk_dtype d, double v) {
  return SDK_DISPATCH_FLOAT8(d, "float8", [&] {
    return static_cast<double>(static_cast<float>(scalar_t(static_cast<float>(v))));
  });
}

void check_dtype(sdk_dtype d, const char* op) {
  if (!is_valid_dtype(d)) SDK_FAIL(SDK_ERROR_TYPE, op, ": unknown dtype code ", d);
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API int32_t sdk_dtype_count(void) { return kNumDtypes; }
SDK_API int64_t sdk_dtype_itemsize(sdk_dtype dtype) { return itemsize(dtype); }
SDK_API const char* sdk_dtype_name(sdk_dtype dtype) { return dtype_name(dtype); }
SDK_API sdk_dtype sdk_promote_types(sdk_dtype a, sdk_dtype b) {
  // Unknown codes have no promotion: report -1 rather than guessing.
  if (!is_valid_dtype(a) || !is_valid_dtype(b)) return -1;
  if (a != b && (is_float8(a) || is_float8(b))) return -1;  // torch has no such promotion
  return promote(a, b);
}

}  // extern "C"
