/* relu.c: ReLU and its backward in plain C, exported through the ctypes bridge.
 *
 * Shows the lowest layer an extension can use: the C ABI (sdk/c_api.h) and SDK_EXPORT,
 * a hand-written loop over the data, errors reported with sdk_set_last_error. Builds in
 * milliseconds: cpp_extension.load("relu_c", ["relu.c"], is_python_module=False).
 */
#include <sdk/export.h>
#include <stdio.h>

/* A contiguous float32/float64 copy (or new reference) of x, or an error. */
static sdk_status contiguous_float(const char* op, const sdk_tensor* x, sdk_tensor** out) {
  sdk_dtype dtype = sdk_tensor_dtype(x);
  if (dtype != SDK_FLOAT32 && dtype != SDK_FLOAT64) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s: expected a float32 or float64 tensor, got %s", op,
             sdk_dtype_name(dtype));
    return sdk_set_last_error(SDK_ERROR_TYPE, msg);
  }
  return sdk_contiguous(x, out);
}

static sdk_status empty_like(const sdk_tensor* x, sdk_tensor** out) {
  return sdk_empty(sdk_tensor_ndim(x), sdk_tensor_sizes(x), sdk_tensor_dtype(x),
                   sdk_tensor_device(x), out);
}

SDK_EXPORT(relu, "(Tensor x) -> Tensor")
sdk_status relu(const sdk_tensor* x, sdk_tensor** result) {
  sdk_tensor* in = NULL;
  sdk_status status = contiguous_float("relu", x, &in);
  if (status != SDK_OK) return status;
  status = empty_like(in, result);
  if (status == SDK_OK) {
    int64_t n = sdk_tensor_numel(in);
    if (sdk_tensor_dtype(in) == SDK_FLOAT32) {
      const float* src = (const float*)sdk_tensor_data_ptr(in);
      float* dst = (float*)sdk_tensor_data_ptr(*result);
      for (int64_t k = 0; k < n; ++k) dst[k] = src[k] > 0.0f ? src[k] : 0.0f;
    } else {
      const double* src = (const double*)sdk_tensor_data_ptr(in);
      double* dst = (double*)sdk_tensor_data_ptr(*result);
      for (int64_t k = 0; k < n; ++k) dst[k] = src[k] > 0.0 ? src[k] : 0.0;
    }
  }
  sdk_tensor_release(in);
  return status;
}

/* grad_in = grad * [x > 0] */
SDK_EXPORT(relu_backward, "(Tensor grad, Tensor x) -> Tensor")
sdk_status relu_backward(const sdk_tensor* grad, const sdk_tensor* x, sdk_tensor** result) {
  int64_t d;
  if (sdk_tensor_ndim(grad) != sdk_tensor_ndim(x)) {
    return sdk_set_last_error(SDK_ERROR_VALUE, "relu_backward: grad and x differ in shape");
  }
  for (d = 0; d < sdk_tensor_ndim(x); ++d) {
    if (sdk_tensor_sizes(grad)[d] != sdk_tensor_sizes(x)[d]) {
      return sdk_set_last_error(SDK_ERROR_VALUE, "relu_backward: grad and x differ in shape");
    }
  }
  sdk_tensor* mask = NULL;
  sdk_scalar zero = {0.0, 0, SDK_SCALAR_FLOAT, 0};
  sdk_status status = sdk_binary_scalar(SDK_GT, x, zero, 0, NULL, &mask);
  if (status == SDK_OK) status = sdk_binary(SDK_MUL, grad, mask, NULL, result);
  sdk_tensor_release(mask);
  return status;
}
