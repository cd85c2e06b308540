/* tests/core/c_program.c: a pure C99 client of libsdk_core; exits nonzero on the first failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sdk/c_api.h"

static int failures = 0;
#define EXPECT(cond)                                                     \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

int main(void) {
  sdk_device cpu = {SDK_CPU, 0};
  int64_t sizes[2] = {2, 3};
  sdk_tensor *a = NULL, *b = NULL, *c = NULL, *t = NULL, *bad = NULL;
  sdk_scalar two = {2.0, 0, SDK_SCALAR_FLOAT, 0};
  sdk_scalar start = {0.0, 0, SDK_SCALAR_INT, 0}, end = {0.0, 6, SDK_SCALAR_INT, 0};
  sdk_scalar step = {0.0, 1, SDK_SCALAR_INT, 0};
  const float* pc;
  const char* msg;
  int i;

  EXPECT(SDK_ABI_CHECK() == SDK_OK);
  EXPECT(sdk_abi_check(SDK_ABI_VERSION_MAJOR + 1, 0) == SDK_ERROR_RUNTIME);
  EXPECT(strstr(sdk_last_error_message(), "2.0") != NULL);

  /* a = arange(6) as float32 viewed (2, 3); b = full 2.0 */
  EXPECT(sdk_arange(start, end, step, SDK_FLOAT32, cpu, &t) == SDK_OK);
  EXPECT(sdk_view(t, 2, sizes, &a) == SDK_OK);
  EXPECT(sdk_full(2, sizes, two, SDK_FLOAT32, cpu, &b) == SDK_OK);
  EXPECT(sdk_binary(SDK_MUL, a, b, NULL, &c) == SDK_OK);
  EXPECT(sdk_tensor_ndim(c) == 2 && sdk_tensor_sizes(c)[1] == 3);
  EXPECT(sdk_tensor_dtype(c) == SDK_FLOAT32);
  pc = (const float*)sdk_tensor_data_ptr(c);
  for (i = 0; i < 6; ++i) EXPECT(pc[i] == 2.0f * (float)i);
  sdk_tensor_release(c);

  /* exp through the vectorized path */
  EXPECT(sdk_unary(SDK_EXP, a, NULL, &c) == SDK_OK);
  pc = (const float*)sdk_tensor_data_ptr(c);
  for (i = 0; i < 6; ++i) EXPECT(fabs(pc[i] - exp((double)i)) <= 1e-6 * exp((double)i));
  sdk_tensor_release(c);

  /* in place: a += b bumps the version */
  {
    int64_t v0 = sdk_tensor_version(a);
    EXPECT(sdk_binary(SDK_ADD, a, b, a, NULL) == SDK_OK);
    EXPECT(sdk_tensor_version(a) == v0 + 1);
    EXPECT(((const float*)sdk_tensor_data_ptr(a))[5] == 7.0f);
  }

  /* error paths: bad dim, NULL argument, shape mismatch */
  EXPECT(sdk_transpose(a, 0, 7, &bad) == SDK_ERROR_INDEX);
  EXPECT(bad == NULL);
  msg = sdk_last_error_message();
  EXPECT(strstr(msg, "transpose") != NULL && strstr(msg, "7") != NULL);
  EXPECT(sdk_last_error_kind() == SDK_ERROR_INDEX);
  EXPECT(sdk_binary(SDK_ADD, a, NULL, NULL, &bad) == SDK_ERROR_VALUE);
  EXPECT(strstr(sdk_last_error_message(), "'b' is NULL") != NULL);
  {
    int64_t s4[1] = {4};
    sdk_tensor* d = NULL;
    EXPECT(sdk_full(1, s4, two, SDK_FLOAT32, cpu, &d) == SDK_OK);
    EXPECT(sdk_binary(SDK_ADD, a, d, NULL, &bad) == SDK_ERROR_VALUE);
    EXPECT(strstr(sdk_last_error_message(), "[2, 3]") != NULL);
    sdk_tensor_release(d);
  }
  EXPECT(sdk_unary(999, a, NULL, &bad) == SDK_ERROR_VALUE);
  sdk_clear_last_error();
  EXPECT(sdk_last_error_kind() == SDK_OK);

  sdk_tensor_release(a);
  sdk_tensor_release(b);
  sdk_tensor_release(t);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
