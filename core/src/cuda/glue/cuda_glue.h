// core/src/cuda/glue/cuda_glue.h: the core's side of CUDA: loading the backend library and
// running the core's ops on CUDA tensors through it.
//
// Compiled into libsdk_core with no CUDA header. Entry points keep their own argument,
// dtype and shape logic (shared with the CPU) and call these only where the CPU would run
// its loops, so both devices follow the same rules.
#pragma once

#include <string>
#include <vector>

#include "cuda/backend_api.h"
#include "tensor_impl.h"

namespace sdk::detail::cuda {

inline bool is_cuda(const TensorImpl& t) { return t.device().type == SDK_CUDA; }
inline bool is_cuda(sdk_device d) { return d.type == SDK_CUDA; }

// Every device's default CUDA generator to `seed`, offset 0 (philox.cpp; no CUDA call).
void reseed_philox_all(uint64_t seed);
// Where the backend library is looked for: $SDK_CUDA_LIBRARY, else beside the core.
std::string backend_path();
// The loaded backend; throws RuntimeError "CUDA is not available: <reason>" otherwise.
const sdk_cuda_backend& backend();
// Availability without throwing; `reason` is "" when available.
bool available(const char** reason = nullptr);
// RuntimeError unless CUDA is usable and d.index names a visible device.
void check_device(sdk_device d, const char* op);
// Every tensor on one device (the first one's); RuntimeError naming both otherwise.
void check_same_device(const char* op, std::initializer_list<const TensorImpl*> ts);

// dst <- src with broadcasting and casting, between any devices (one of them CUDA).
void copy_into(TensorImpl& dst, const TensorImpl& src);
// Every element of t <- v (t on CUDA).
void fill(TensorImpl& t, const sdk_scalar& v);
// `t` on device d: t itself when already there, else a contiguous copy.
Ref to_device(const TensorImpl& t, sdk_device d);

// Elementwise kernels: inputs already have the compute dtype, out has the result dtype and
// the broadcast shape (inputs broadcast to it). p0/p1: parameters of internal ops.
void unary(int op, TensorImpl& out, const TensorImpl& in);
void unary_params(int op, TensorImpl& out, const TensorImpl& in, bool has_p0, double p0,
                  bool has_p1, double p1, double p2 = 0.0);
// p0, p1: parameters of internal ops (add_scaled's alpha, isclose's rtol and atol).
void binary(int op, TensorImpl& out, const TensorImpl& a, const TensorImpl& b, double p0 = 1.0,
            double p1 = 0.0);
// op(a, s) or op(s, a); `s` is converted to `compute` (the dtype of a) first.
void binary_scalar(int op, TensorImpl& out, const TensorImpl& a, const sdk_scalar& s,
                   sdk_dtype compute, bool scalar_first);
void where(TensorImpl& out, const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b);
// An input of a ternary op: a tensor of the compute dtype, or (tensor null) a scalar.
struct TernaryInput {
  const TensorImpl* tensor;
  sdk_scalar scalar;
};
// out = op(a, b, c) (SDK_CUDA_OP_LERP, ...) in the math of `compute`; p0: the op's value.
void ternary(int op, TensorImpl& out, const TernaryInput (&in)[3], sdk_dtype compute, double p0);
// out = mask ? value : t (value converted to t's dtype).
void masked_fill(TensorImpl& out, const TensorImpl& t, const TensorImpl& mask, const sdk_scalar& v);
// acc <- reduction of x over the dims where mask is true (acc holds the kept dims in order).
void reduce(int op, const TensorImpl& x, const std::vector<bool>& mask, TensorImpl& acc);
// c <- alpha * a @ b + beta * c for 2-D a (m x k), b (k x n), c (m x n) of one float dtype;
// with batch > 1, that many products in one backend call: a's and b's next ones a_bs and b_bs
// elements on (0 repeats one), c's right after c.
void gemm(TensorImpl& c, const TensorImpl& a, const TensorImpl& b, double alpha, double beta,
          int64_t batch = 1, int64_t a_bs = 0, int64_t b_bs = 0);
// out <- running sum (op SDK_SUM) or product (SDK_PROD) of `in` along the middle dim of
// (outer, n, inner); both contiguous, of one dtype, on one CUDA device.
void scan(int op, TensorImpl& out, const TensorImpl& in, int64_t outer, int64_t n, int64_t inner);
// sdk.backends.cuda.matmul.allow_tf32 (off by default, as torch's).
bool allow_tf32();
void set_allow_tf32(bool allow);
// True if any element of t is zero (integer division checks).
bool has_zero(const TensorImpl& t);

// Fill a CUDA tensor through a host tensor of its shape and dtype: `fill(host_handle)` is
// the CPU entry point (random numbers come from the host generators, so a seed gives the
// same values on every device).
template <typename F>
sdk_status via_host(sdk_tensor* t, const char* op, F&& fill) {
  TensorImpl& x = *to_impl(t);
  check_writable(x, op);
  Ref host = make_tensor(x.ndim, x.sizes, x.dtype, sdk_device{SDK_CPU, 0});
  sdk_status st = fill(to_handle(host.get()));
  if (st != SDK_OK) return st;
  ::sdk::detail::cuda::copy_into(x, *host);
  x.bump_version();
  return SDK_OK;
}

}  // namespace sdk::detail::cuda
