// core/src/softmax.cpp: softmax and log_softmax along one dim (max-shifted, float types only).
#include <cmath>
#include <memory>

#include "kernel_util.h"
#include "vec_math.h"

namespace sdk::detail::k2 {
namespace {

template <typename A>
inline A exp_acc(A v) {
  if constexpr (std::is_same_v<A, float>) {
    return vm::exp_f32(v);
  } else {
    return std::exp(v);
  }
}

// One contiguous row of n: y = softmax(x) or log_softmax(x), computed in A.
template <bool kLog, typename A>
void softmax_row(const A* __restrict x, A* __restrict y, int64_t n) {
  A m = x[0];
  for (int64_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (m != m || std::isinf(m)) {  // NaN anywhere, or +-inf max: plain formula gives torch's answer
    bool has_nan = false;
    for (int64_t i = 0; i < n; ++i) has_nan = has_nan || x[i] != x[i];
    if (has_nan) {
      for (int64_t i = 0; i < n; ++i) y[i] = A(NAN);
      return;
    }
    if (m < 0) m = 0;  // all -inf: exp gives 0/0 = NaN, as in torch
  }
  A sum = 0;
  if constexpr (kLog) {
    for (int64_t i = 0; i < n; ++i) sum += exp_acc(x[i] - m);
    const A shift = m + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      A e = exp_acc(x[i] - m);
      y[i] = e;
      sum += e;
    }
    const A inv = A(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

template <bool kLog, typename T>
void softmax_kernel(const T* base, T* out, int64_t outer, int64_t r, int64_t inner) {
  using A = typename OpMath<T>::type;
  constexpr bool kDirect = std::is_same_v<A, T>;
  const int64_t slab = r * inner;
  parallel_for(0, outer, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, slab)),
               [&](int64_t b, int64_t e) {
                 // Halves and strided (inner > 1) slabs go through a row buffer in A.
                 std::unique_ptr<A[]> xin, yout;
                 if (!kDirect || inner > 1) {
                   xin.reset(new A[r]);
                   yout.reset(new A[r]);
                 }
                 for (int64_t o = b; o < e; ++o) {
                   const T* xs = base + o * slab;
                   T* ys = out + o * slab;
                   for (int64_t j = 0; j < inner; ++j) {
                     if constexpr (kDirect) {
                       if (inner == 1) {
                         softmax_row<kLog, A>(xs, ys, r);
                         continue;
                       }
                     }
                     for (int64_t i = 0; i < r; ++i) xin[i] = convert<A>(xs[i * inner + j]);
                     softmax_row<kLog, A>(xin.get(), yout.get(), r);
                     for (int64_t i = 0; i < r; ++i) ys[i * inner + j] = convert<T>(yout[i]);
                   }
                 }
               });
}

Ref softmax_impl(const TensorImpl& x, int64_t dim, bool log, const char* op) {
  check_cpu(x, op, "x");
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating point input, got ", describe(x));
  int64_t d = wrap_dim(dim, x.ndim, op);
  Ref c = contiguous(x);
  Ref res = make_tensor(x.ndim, x.sizes, x.dtype, x.device());
  if (x.numel == 0) return res;
  int64_t outer = 1, r = 1, inner = 1;
  for (int64_t k = 0; k < x.ndim; ++k) {
    if (k < d) outer *= x.sizes[k];
    if (k == d) r = x.sizes[k];
    if (k > d) inner *= x.sizes[k];
  }
  SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
    const scalar_t* in = static_cast<const scalar_t*>(c->data());
    scalar_t* o = static_cast<scalar_t*>(res->data());
    if (log) {
      softmax_kernel<true>(in, o, outer, r, inner);
    } else {
      softmax_kernel<false>(in, o, outer, r, inner);
    }
  });
  return res;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_softmax(const sdk_tensor* x, int64_t dim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, "sdk_softmax", "x");
  check_not_null(result, "sdk_softmax", "result");
  set_result(result, softmax_impl(t, dim, false, "sdk_softmax"));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_log_softmax(const sdk_tensor* x, int64_t dim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, "sdk_log_softmax", "x");
  check_not_null(result, "sdk_log_softmax", "result");
  set_result(result, softmax_impl(t, dim, true, "sdk_log_softmax"));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
