/* tests/core/test_abi_layout.c: compile-time checks that public structs keep their 64-bit layout.
 */
#include <stddef.h>

#include "sdk/c_api.h"

#define CHECK_SIZE(T, n) _Static_assert(sizeof(T) == (n), "sizeof(" #T ") changed")
#define CHECK_OFF(T, f, n) _Static_assert(offsetof(T, f) == (n), "offsetof(" #T ", " #f ") changed")

/* sdk_device: two int32. */
CHECK_SIZE(sdk_device, 8);
CHECK_OFF(sdk_device, type, 0);
CHECK_OFF(sdk_device, index, 4);

/* sdk_scalar: passed by value through FFIs, so every byte is fixed. */
CHECK_SIZE(sdk_scalar, 24);
CHECK_OFF(sdk_scalar, f, 0);
CHECK_OFF(sdk_scalar, i, 8);
CHECK_OFF(sdk_scalar, kind, 16);
CHECK_OFF(sdk_scalar, padding, 20);

/* DLPack 1.x (dlpack.h) on LP64. */
CHECK_SIZE(sdk_dl_version, 8);
CHECK_OFF(sdk_dl_version, major, 0);
CHECK_OFF(sdk_dl_version, minor, 4);

CHECK_SIZE(sdk_dl_device, 8);
CHECK_OFF(sdk_dl_device, device_type, 0);
CHECK_OFF(sdk_dl_device, device_id, 4);

CHECK_SIZE(sdk_dl_dtype, 4);
CHECK_OFF(sdk_dl_dtype, code, 0);
CHECK_OFF(sdk_dl_dtype, bits, 1);
CHECK_OFF(sdk_dl_dtype, lanes, 2);

CHECK_SIZE(sdk_dl_tensor, 48);
CHECK_OFF(sdk_dl_tensor, data, 0);
CHECK_OFF(sdk_dl_tensor, device, 8);
CHECK_OFF(sdk_dl_tensor, ndim, 16);
CHECK_OFF(sdk_dl_tensor, dtype, 20);
CHECK_OFF(sdk_dl_tensor, shape, 24);
CHECK_OFF(sdk_dl_tensor, strides, 32);
CHECK_OFF(sdk_dl_tensor, byte_offset, 40);

CHECK_SIZE(sdk_dl_managed_tensor, 64);
CHECK_OFF(sdk_dl_managed_tensor, dl_tensor, 0);
CHECK_OFF(sdk_dl_managed_tensor, manager_ctx, 48);
CHECK_OFF(sdk_dl_managed_tensor, deleter, 56);

CHECK_SIZE(sdk_dl_managed_tensor_versioned, 80);
CHECK_OFF(sdk_dl_managed_tensor_versioned, version, 0);
CHECK_OFF(sdk_dl_managed_tensor_versioned, manager_ctx, 8);
CHECK_OFF(sdk_dl_managed_tensor_versioned, deleter, 16);
CHECK_OFF(sdk_dl_managed_tensor_versioned, flags, 24);
CHECK_OFF(sdk_dl_managed_tensor_versioned, dl_tensor, 32);

/* sdk_op_argument: ABI 1.3's 64 bytes, then list_levels and item_tag (ABI 1.9), which the core
 * writes only for a caller whose `size` covers them. */
CHECK_SIZE(sdk_op_argument, 72);
CHECK_OFF(sdk_op_argument, name, 8);
CHECK_OFF(sdk_op_argument, tag, 24);
CHECK_OFF(sdk_op_argument, list_size, 44);
CHECK_OFF(sdk_op_argument, default_text, 56);
CHECK_OFF(sdk_op_argument, list_levels, 64);
CHECK_OFF(sdk_op_argument, item_tag, 68);

/* Enum values are part of the ABI. */
_Static_assert(SDK_FLOAT64 == 9 && SDK_BFLOAT16 == 7, "dtype codes changed");
_Static_assert(SDK_CPU == 1 && SDK_CUDA == 2, "device codes must equal DLPack's");
_Static_assert(SDK_DL_BOOL == 6 && SDK_DL_BFLOAT == 4, "DLPack type codes changed");
_Static_assert(SDK_VALUE_TENSOR_LIST == 11 && SDK_VALUE_INT_LIST_LIST == 12 && SDK_VALUE_LIST == 13,
               "value tags changed");

int sdk_abi_layout_ok(void) { return 1; }
