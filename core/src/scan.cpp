// core/src/scan.cpp: running sums, products, maxima and minima along one dim (cumsum,
// cumprod, cummax, cummin).
#include "index_util.h"

namespace sdk::detail::k2 {
namespace {

// Inner positions handled together by one task: the running values of a block of
// neighbouring lines live in registers/L1 while the scan walks down the dim.
constexpr int64_t kBlock = 256;

// x (contiguous) viewed as (outer, n, inner) around dim d.
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};
Around around(const TensorImpl& x, int64_t d) {
  Around a;
  for (int64_t k = 0; k < x.ndim; ++k) {
    if (k < d) a.outer *= x.sizes[k];
    if (k == d) a.n = x.sizes[k];
    if (k > d) a.inner *= x.sizes[k];
  }
  return a;
}

// Run task(o, i0, w) over every outer index o and block [i0, i0 + w) of inner positions, in
// parallel.
template <typename F>
void for_blocks(const Around& a, const F& task) {
  const int64_t nblk = (a.inner + kBlock - 1) / kBlock;
  const int64_t tasks = a.outer * nblk;
  const int64_t per_task = a.n * std::min(a.inner, kBlock);
  parallel_for(0, tasks, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, per_task)),
               [&](int64_t b, int64_t e) {
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t o = t / nblk, i0 = (t % nblk) * kBlock;
                   task(o, i0, std::min(kBlock, a.inner - i0));
                 }
               });
}

// The accumulator of a running sum or product of R: double for float and double (as
// torch's CPU scans), float for the half types, int64 (wrapping) for integers and bool.
template <typename R>
using ScanAcc = std::conditional_t<std::is_floating_point_v<R>, double,
                                   std::conditional_t<std::is_integral_v<R>, int64_t, float>>;

// Scans along the last dim: kRows rows at a time, so kRows running values advance together (one
// row alone waits on its add's latency at every element: cumsum over 256x1024 took 3.7x
// torch's time).
constexpr int64_t kRows = 8;

// A tensor of one row: a plain loop (scan_rows's eight-row blocks cost one row twice its
// time: 1024 floats 4.9 us against torch's 3.1). Only there: a lone-row branch inside
// scan_rows's block loop made its rows of 1024 1.25x slower at one thread.
template <bool kProd, typename R>
void scan_one_row(const R* src, R* dst, int64_t n) {
  using Acc = ScanAcc<R>;
  Acc acc = Acc(kProd ? 1 : 0);
  for (int64_t j = 0; j < n; ++j) {
    Acc v = convert<Acc>(src[j]);
    acc = kProd ? wrap_mul(acc, v) : wrap_add(acc, v);
    dst[j] = convert<R>(acc);
  }
}

template <bool kProd, typename R>
void scan_rows(const R* in, R* out, const Around& a) {
  using Acc = ScanAcc<R>;
  const int64_t nblk = (a.outer + kRows - 1) / kRows;
  parallel_for(0, nblk, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, a.n * kRows)),
               [&](int64_t b, int64_t e) {
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t r0 = t * kRows, h = std::min(kRows, a.outer - r0);
                   const R* src = in + r0 * a.n;
                   R* dst = out + r0 * a.n;
                   Acc acc[kRows];
                   for (int64_t r = 0; r < kRows; ++r) acc[r] = Acc(kProd ? 1 : 0);
                   for (int64_t j = 0; j < a.n; ++j) {
                     for (int64_t r = 0; r < h; ++r) {
                       Acc v = convert<Acc>(src[r * a.n + j]);
                       acc[r] = kProd ? wrap_mul(acc[r], v) : wrap_add(acc[r], v);
                       dst[r * a.n + j] = convert<R>(acc[r]);
                     }
                   }
                 }
               });
}

// out = running sum (kProd false) or product of in, both contiguous of dtype R.
template <bool kProd, typename R>
void scan_kernel(const R* in, R* out, const Around& a) {
  using Acc = ScanAcc<R>;
  if (a.inner == 1 && a.outer == 1) return scan_one_row<kProd>(in, out, a.n);
  if (a.inner == 1) return scan_rows<kProd>(in, out, a);
  for_blocks(a, [&](int64_t o, int64_t i0, int64_t w) {
    Acc acc[kBlock];
    for (int64_t c = 0; c < w; ++c) acc[c] = Acc(kProd ? 1 : 0);
    const int64_t base = o * a.n * a.inner + i0;
    for (int64_t j = 0; j < a.n; ++j) {
      const R* src = in + base + j * a.inner;
      R* dst = out + base + j * a.inner;
      for (int64_t c = 0; c < w; ++c) {
        Acc v = convert<Acc>(src[c]);
        acc[c] = kProd ? wrap_mul(acc[c], v) : wrap_add(acc[c], v);
        dst[c] = convert<R>(acc[c]);
      }
    }
  });
}

// torch's result dtype of cumsum/cumprod: `dtype` when given, else int64 for integer and
// bool inputs, else the input's.
sdk_dtype scan_dtype(const TensorImpl& x, sdk_dtype dtype, const char* op) {
  if (dtype >= 0) {
    check_dtype(dtype, op);
    return dtype;
  }
  return is_floating(x.dtype) ? x.dtype : SDK_INT64;
}

Ref scan_impl(const TensorImpl& x, int64_t dim, sdk_dtype dtype, bool prod, sdk_tensor* out,
              const char* op) {
  const int64_t d = wrap_dim(dim, x.ndim, op);
  const sdk_dtype rd = scan_dtype(x, dtype, op);
  Ref c = to_dtype(x, rd, true);  // torch casts the input to the result dtype first
  Ref res = make_tensor(x.ndim, x.sizes, rd, x.device());
  if (res->numel > 0 && cuda::is_cuda(x)) {
    const Around a = around(x, d);
    cuda::scan(prod ? SDK_PROD : SDK_SUM, *res, *c, a.outer, a.n, a.inner);
  } else if (res->numel > 0) {
    const Around a = around(x, d);
    SDK_DISPATCH_ALL(rd, op, [&] {
      const scalar_t* in = static_cast<const scalar_t*>(c->data());
      scalar_t* o = static_cast<scalar_t*>(res->data());
      if (prod) {
        scan_kernel<true>(in, o, a);
      } else {
        scan_kernel<false>(in, o, a);
      }
    });
  }
  return finish_out(res, out, op);
}

template <typename A>
inline bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return v != v;
  } else {
    return false;
  }
}

// Running max (kMin false) or min with the index where it was reached: a value equal to
// the current one takes over (the last index wins), and so does any NaN.
template <bool kMin, typename T>
void cum_extremum_kernel(const T* in, T* values, int64_t* indices, const Around& a) {
  using A = typename OpMath<T>::type;
  for_blocks(a, [&](int64_t o, int64_t i0, int64_t w) {
    A best[kBlock];
    int64_t at[kBlock];
    const int64_t base = o * a.n * a.inner + i0;
    for (int64_t j = 0; j < a.n; ++j) {
      const int64_t row = base + j * a.inner;
      for (int64_t c = 0; c < w; ++c) {
        const A v = convert<A>(in[row + c]);
        const bool take =
            j == 0 || is_nan(v) || (!is_nan(best[c]) && (kMin ? !(best[c] < v) : !(v < best[c])));
        if (take) {
          best[c] = v;
          at[c] = j;
        }
        values[row + c] = convert<T>(best[c]);
        indices[row + c] = at[c];
      }
    }
  });
}

void cum_extremum(const TensorImpl& x, int64_t dim, bool is_min, Ref& values, Ref& indices,
                  const char* op) {
  check_cpu(x, op, "x");
  const int64_t d = wrap_dim(dim, x.ndim, op);
  values = make_tensor(x.ndim, x.sizes, x.dtype, x.device());
  indices = make_tensor(x.ndim, x.sizes, SDK_INT64, x.device());
  if (x.numel == 0) return;
  Ref c = contiguous(x);
  const Around a = around(x, d);
  SDK_DISPATCH_ALL(x.dtype, op, [&] {
    const scalar_t* in = static_cast<const scalar_t*>(c->data());
    scalar_t* v = static_cast<scalar_t*>(values->data());
    int64_t* ix = static_cast<int64_t*>(indices->data());
    if (is_min) {
      cum_extremum_kernel<true>(in, v, ix, a);
    } else {
      cum_extremum_kernel<false>(in, v, ix, a);
    }
  });
}

sdk_status scan_entry(const sdk_tensor* x, int64_t dim, sdk_dtype dtype, sdk_tensor* out,
                      sdk_tensor** result, bool prod) {
  const char* op = prod ? "sdk_cumprod" : "sdk_cumsum";
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, op, "x");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, scan_impl(t, dim, dtype, prod, out, op));
  SDK_SAFE_CALL_END;
}

sdk_status cum_extremum_entry(const sdk_tensor* x, int64_t dim, sdk_tensor** values,
                              sdk_tensor** indices, bool is_min) {
  const char* op = is_min ? "sdk_cummin" : "sdk_cummax";
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(values, op, "values");
  check_not_null(indices, op, "indices");
  Ref v, i;
  cum_extremum(t, dim, is_min, v, i, op);
  *values = v.release_handle();
  *indices = i.release_handle();
  SDK_SAFE_CALL_END;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_cumsum(const sdk_tensor* x, int64_t dim, sdk_dtype dtype, sdk_tensor* out,
                              sdk_tensor** result) {
  return scan_entry(x, dim, dtype, out, result, false);
}

SDK_API sdk_status sdk_cumprod(const sdk_tensor* x, int64_t dim, sdk_dtype dtype, sdk_tensor* out,
                               sdk_tensor** result) {
  return scan_entry(x, dim, dtype, out, result, true);
}

SDK_API sdk_status sdk_cummax(const sdk_tensor* x, int64_t dim, sdk_tensor** values,
                              sdk_tensor** indices) {
  return cum_extremum_entry(x, dim, values, indices, false);
}

SDK_API sdk_status sdk_cummin(const sdk_tensor* x, int64_t dim, sdk_tensor** values,
                              sdk_tensor** indices) {
  return cum_extremum_entry(x, dim, values, indices, true);
}

}  // extern "C"
