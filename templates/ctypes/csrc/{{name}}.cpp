// {{name}}.cpp: the fused Mish op and its backward over the C ABI (ctypes bridge).
//
// Mish(x) = x * tanh(softplus(x)). No binding library: each function is marked with
// SDK_EXPORT and its signature; Python calls it through cpp_extension's ctypes bridge.
// Errors are recorded with sdk_set_last_error and raised in Python.
#include <sdk/export.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace {

// softplus(x) = log(1 + e^x), without overflow for large x.
template <typename T>
T softplus(T x) {
  return x > T(20) ? x : std::log1p(std::exp(x));
}

template <typename T>
T mish(T x) {
  return x * std::tanh(softplus(x));
}

// d/dx [x tanh(sp(x))] = tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x)
template <typename T>
T mish_grad(T x) {
  const T t = std::tanh(softplus(x));
  const T s = T(1) / (T(1) + std::exp(-x));
  return t + x * (T(1) - t * t) * s;
}

sdk_status fail(sdk_status kind, const std::string& msg) {
  return sdk_set_last_error(kind, ("{{name}}: " + msg).c_str());
}

sdk_status check_floating(const sdk_tensor* t, const char* what) {
  const sdk_dtype d = sdk_tensor_dtype(t);
  if (d == SDK_FLOAT32 || d == SDK_FLOAT64) return SDK_OK;
  std::string msg = what;
  msg += " must be a floating-point tensor (float32/float64), got dtype ";
  return fail(SDK_ERROR_TYPE, msg + sdk_dtype_name(d));
}

bool same_shape(const sdk_tensor* a, const sdk_tensor* b) {
  if (sdk_tensor_ndim(a) != sdk_tensor_ndim(b)) return false;
  for (int64_t d = 0; d < sdk_tensor_ndim(a); ++d) {
    if (sdk_tensor_sizes(a)[d] != sdk_tensor_sizes(b)[d]) return false;
  }
  return true;
}

// Owns one reference; released on every return path.
struct Ref {
  sdk_tensor* t = nullptr;
  ~Ref() { sdk_tensor_release(t); }
};

sdk_status empty_like(const sdk_tensor* x, sdk_tensor** out) {
  return sdk_empty(sdk_tensor_ndim(x), sdk_tensor_sizes(x), sdk_tensor_dtype(x),
                   sdk_tensor_device(x), out);
}

template <typename T>
void forward_kernel(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = mish(x[i]);
}

template <typename T>
void backward_kernel(const T* g, const T* x, T* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dx[i] = g[i] * mish_grad(x[i]);
}

}  // namespace
{{#cuda}}

#ifdef WITH_CUDA
// Defined in {{name}}_cuda.cu; contiguous device tensors of the same dtype.
sdk_status mish_forward_cuda(const sdk_tensor* x, sdk_tensor* y);
sdk_status mish_backward_cuda(const sdk_tensor* g, const sdk_tensor* x, sdk_tensor* dx);
#endif
{{/cuda}}

SDK_EXPORT(mish_forward, "(Tensor input) -> Tensor")
sdk_status mish_forward(const sdk_tensor* input, sdk_tensor** result) {
  SDK_EXPORT_TRY
  sdk_status st = check_floating(input, "input");
  if (st != SDK_OK) return st;
  Ref x, y;
  if ((st = sdk_contiguous(input, &x.t)) != SDK_OK) return st;
  if ((st = empty_like(x.t, &y.t)) != SDK_OK) return st;
  const int64_t n = sdk_tensor_numel(x.t);
{{#cuda}}
#ifdef WITH_CUDA
  if (sdk_tensor_device(x.t).type == SDK_CUDA) {
    if ((st = mish_forward_cuda(x.t, y.t)) != SDK_OK) return st;
    *result = y.t;
    y.t = nullptr;
    return SDK_OK;
  }
#endif
{{/cuda}}
  if (sdk_tensor_dtype(x.t) == SDK_FLOAT32) {
    forward_kernel(static_cast<const float*>(sdk_tensor_data_ptr(x.t)),
                   static_cast<float*>(sdk_tensor_data_ptr(y.t)), n);
  } else {
    forward_kernel(static_cast<const double*>(sdk_tensor_data_ptr(x.t)),
                   static_cast<double*>(sdk_tensor_data_ptr(y.t)), n);
  }
  *result = y.t;
  y.t = nullptr;
  return SDK_OK;
  SDK_EXPORT_CATCH
}

SDK_EXPORT(mish_backward, "(Tensor grad_output, Tensor input) -> Tensor")
sdk_status mish_backward(const sdk_tensor* grad_output, const sdk_tensor* input,
                         sdk_tensor** result) {
  SDK_EXPORT_TRY
  sdk_status st = check_floating(input, "input");
  if (st != SDK_OK) return st;
  if (!same_shape(grad_output, input)) {
    return fail(SDK_ERROR_VALUE, "grad_output and input must have the same shape");
  }
  if (sdk_tensor_dtype(grad_output) != sdk_tensor_dtype(input)) {
    std::string msg = "grad_output dtype ";
    msg += sdk_dtype_name(sdk_tensor_dtype(grad_output));
    msg += " differs from input dtype ";
    return fail(SDK_ERROR_TYPE, msg + sdk_dtype_name(sdk_tensor_dtype(input)));
  }
  Ref x, g, dx;
  if ((st = sdk_contiguous(input, &x.t)) != SDK_OK) return st;
  if ((st = sdk_contiguous(grad_output, &g.t)) != SDK_OK) return st;
  if ((st = empty_like(x.t, &dx.t)) != SDK_OK) return st;
  const int64_t n = sdk_tensor_numel(x.t);
{{#cuda}}
#ifdef WITH_CUDA
  if (sdk_tensor_device(x.t).type == SDK_CUDA) {
    if ((st = mish_backward_cuda(g.t, x.t, dx.t)) != SDK_OK) return st;
    *result = dx.t;
    dx.t = nullptr;
    return SDK_OK;
  }
#endif
{{/cuda}}
  if (sdk_tensor_dtype(x.t) == SDK_FLOAT32) {
    backward_kernel(static_cast<const float*>(sdk_tensor_data_ptr(g.t)),
                    static_cast<const float*>(sdk_tensor_data_ptr(x.t)),
                    static_cast<float*>(sdk_tensor_data_ptr(dx.t)), n);
  } else {
    backward_kernel(static_cast<const double*>(sdk_tensor_data_ptr(g.t)),
                    static_cast<const double*>(sdk_tensor_data_ptr(x.t)),
                    static_cast<double*>(sdk_tensor_data_ptr(dx.t)), n);
  }
  *result = dx.t;
  dx.t = nullptr;
  return SDK_OK;
  SDK_EXPORT_CATCH
}
