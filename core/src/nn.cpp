// core/src/nn.cpp: layer_norm and convolution, forward and backward (CPU). Convolution is
// im2col + the BLAS GEMM, batched over as many samples as fit a bounded column buffer.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "blas.h"
#include "kernel_util.h"

namespace sdk::detail::k2 {
namespace {

// ---- layer_norm -------------------------------------------------------------------------

// The input seen as m rows of the n elements that normalized_shape covers.
struct LnShape {
  int64_t m = 0, n = 1;
};

LnShape ln_shape(const TensorImpl& x, int64_t nd, const char* op) {
  SDK_VALUE_CHECK(nd >= 1 && nd <= x.ndim, op, ": normalized_shape has ", nd,
                  " dims but the input ", describe(x), " has ", x.ndim);
  LnShape s;
  for (int64_t k = x.ndim - nd; k < x.ndim; ++k) s.n *= x.sizes[k];
  s.m = s.n ? x.numel / s.n : 0;
  if (!s.n) {
    s.m = 1;
    for (int64_t k = 0; k < x.ndim - nd; ++k) s.m *= x.sizes[k];
  }
  return s;
}

void check_affine(const TensorImpl* w, const TensorImpl& x, int64_t nd, const char* op,
                  const char* arg) {
  if (!w) return;
  check_cpu(*w, op, arg);
  bool same = w->ndim == nd;
  for (int64_t k = 0; same && k < nd; ++k) same = w->sizes[k] == x.sizes[x.ndim - nd + k];
  SDK_VALUE_CHECK(same, op, ": ", arg, " ", describe(*w), " does not match the normalized shape ",
                  sizes_str(nd, x.sizes + x.ndim - nd), " of the input ", describe(x));
  SDK_TYPE_CHECK(w->dtype == x.dtype, op, ": ", arg, " ", describe(*w),
                 " has another dtype than the input ", describe(x));
}

inline sdk_dtype stats_dtype(sdk_dtype d) { return d == SDK_FLOAT64 ? SDK_FLOAT64 : SDK_FLOAT32; }

// Sum of (p[i] - mu)^2 with 8 independent accumulators (vectorisable without reassociation).
template <typename A>
A sum_sq_dev(const A* p, int64_t n, A mu) {
  A acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) {
      A d = p[i + k] - mu;
      acc[k] += d * d;
    }
  }
  A s = 0;
  for (; i < n; ++i) s += (p[i] - mu) * (p[i] - mu);
  for (A a : acc) s += a;
  return s;
}

template <typename T>
void ln_forward(const T* x, const T* w, const T* b, T* y, typename OpMath<T>::type* mean,
                typename OpMath<T>::type* rstd, int64_t m, int64_t n, double eps) {
  using A = typename OpMath<T>::type;
  parallel_for(0, m, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)),
               [&](int64_t rb, int64_t re) {
                 std::unique_ptr<A[]> buf;
                 if constexpr (!std::is_same_v<A, T>) buf.reset(new A[n]);
                 for (int64_t r = rb; r < re; ++r) {
                   const T* xr = x + r * n;
                   const A* xa;
                   if constexpr (std::is_same_v<A, T>) {
                     xa = xr;
                   } else {
                     for (int64_t j = 0; j < n; ++j) buf[j] = A(static_cast<float>(xr[j]));
                     xa = buf.get();
                   }
                   const A mu = sum_contig16(xa, n) / A(n);
                   const A rs = A(1) / std::sqrt(sum_sq_dev(xa, n, mu) / A(n) + A(eps));
                   T* yr = y + r * n;
                   if (w && b) {
                     for (int64_t j = 0; j < n; ++j)
                       yr[j] = T((xa[j] - mu) * rs * A(w[j]) + A(b[j]));
                   } else if (w) {
                     for (int64_t j = 0; j < n; ++j) yr[j] = T((xa[j] - mu) * rs * A(w[j]));
                   } else if (b) {
                     for (int64_t j = 0; j < n; ++j) yr[j] = T((xa[j] - mu) * rs + A(b[j]));
                   } else {
                     for (int64_t j = 0; j < n; ++j) yr[j] = T((xa[j] - mu) * rs);
                   }
                   if (mean) mean[r] = mu;
                   if (rstd) rstd[r] = rs;
                 }
               });
}

// dx = rstd * (dxh - mean(dxh) - xh * mean(dxh * xh)) with dxh = dy * w, xh = (x - mean) * rstd;
// dw = sum over rows of dy * xh, db = sum over rows of dy (partial sums per chunk of rows).
template <typename T>
void ln_backward(const T* dy, const T* x, const typename OpMath<T>::type* mean,
                 const typename OpMath<T>::type* rstd, const T* w, T* dx, T* dw, T* db, int64_t m,
                 int64_t n) {
  using A = typename OpMath<T>::type;
  int64_t chunks = in_parallel_region() ? 1 : std::min<int64_t>(max_concurrency(), m);
  if (m * n < 32768) chunks = 1;
  chunks = std::max<int64_t>(chunks, 1);
  std::vector<A> pw((dw ? chunks * n : 0), A(0)), pb((db ? chunks * n : 0), A(0));
  struct Ctx {
    const T *dy, *x, *w;
    const A *mean, *rstd;
    T* dx;
    A *pw, *pb;
    int64_t m, n, chunks;
  } ctx{dy, x, w, mean, rstd, dx, dw ? pw.data() : nullptr, db ? pb.data() : nullptr, m, n, chunks};
  run_chunks(
      chunks,
      [](void* p, int64_t c) {
        const Ctx& k = *static_cast<const Ctx*>(p);
        const int64_t n = k.n;
        std::unique_ptr<A[]> xh(new A[n]), g(new A[n]);
        A* pw = k.pw ? k.pw + c * n : nullptr;
        A* pb = k.pb ? k.pb + c * n : nullptr;
        for (int64_t r = k.m * c / k.chunks; r < k.m * (c + 1) / k.chunks; ++r) {
          const T* dyr = k.dy + r * n;
          const T* xr = k.x + r * n;
          const A mu = k.mean[r], rs = k.rstd[r];
          A s1 = 0, s2 = 0;
          for (int64_t j = 0; j < n; ++j) {
            const A d = A(dyr[j]);
            xh[j] = (A(xr[j]) - mu) * rs;
            g[j] = k.w ? d * A(k.w[j]) : d;
            s1 += g[j];
            s2 += g[j] * xh[j];
            if (pw) pw[j] += d * xh[j];
            if (pb) pb[j] += d;
          }
          if (k.dx) {
            const A a = s1 / A(n), b = s2 / A(n);
            T* dxr = k.dx + r * n;
            for (int64_t j = 0; j < n; ++j) dxr[j] = T(rs * (g[j] - a - xh[j] * b));
          }
        }
      },
      &ctx);
  for (int64_t j = 0; dw && j < n; ++j) {
    A s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += pw[c * n + j];
    dw[j] = T(s);
  }
  for (int64_t j = 0; db && j < n; ++j) {
    A s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += pb[c * n + j];
    db[j] = T(s);
  }
}

// ---- convolution --------------------------------------------------------------------------

// The geometry of one convolution, 1-d cases seen as 2-d with a height of 1.
struct Conv {
  int64_t n = 0, cin = 0, cout = 0, groups = 1;
  int64_t ih = 1, iw = 1, kh = 1, kw = 1, oh = 1, ow = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t cg() const { return cin / groups; }      // input channels per group
  int64_t coutg() const { return cout / groups; }  // output channels per group
  int64_t kk() const { return kh * kw; }           // kernel positions
  int64_t krows() const { return cg() * kk(); }    // rows of a column matrix
  int64_t il() const { return ih * iw; }           // input positions
  int64_t ol() const { return oh * ow; }           // output positions
};

Conv conv_geometry(const TensorImpl& x, const TensorImpl& w, int64_t nsp, const int64_t* stride,
                   const int64_t* padding, const int64_t* dilation, int64_t groups,
                   const char* op) {
  SDK_VALUE_CHECK(nsp == 1 || nsp == 2, op, ": ", nsp,
                  " spatial dims; conv1d and conv2d are supported (1 or 2)");
  check_not_null(stride, op, "stride");
  check_not_null(padding, op, "padding");
  check_not_null(dilation, op, "dilation");
  check_cpu(x, op, "input");
  check_cpu(w, op, "weight");
  SDK_VALUE_CHECK(x.ndim == nsp + 2, op, ": expected a ", nsp + 2, "-d input (batch, channels, ",
                  nsp == 1 ? "length" : "height, width", "), got ", describe(x));
  SDK_VALUE_CHECK(w.ndim == nsp + 2, op, ": expected a ", nsp + 2,
                  "-d weight (out_channels, in_channels / groups, kernel...), got ", describe(w));
  SDK_TYPE_CHECK(x.dtype == SDK_FLOAT32 || x.dtype == SDK_FLOAT64, op,
                 ": expected a float32 or float64 input, got ", describe(x));
  SDK_TYPE_CHECK(w.dtype == x.dtype, op, ": the weight ", describe(w),
                 " has another dtype than the input ", describe(x));
  SDK_VALUE_CHECK(groups >= 1, op, ": groups must be positive, got ", groups);
  Conv c;
  c.n = x.sizes[0];
  c.cin = x.sizes[1];
  c.cout = w.sizes[0];
  c.groups = groups;
  SDK_VALUE_CHECK(c.cin % groups == 0 && c.cout % groups == 0, op, ": in_channels (", c.cin,
                  ") and out_channels (", c.cout, ") must be divisible by groups (", groups, ")");
  SDK_VALUE_CHECK(w.sizes[1] == c.cin / groups, op, ": the weight ", describe(w), " expects ",
                  w.sizes[1] * groups, " input channels, but the input ", describe(x), " has ",
                  c.cin);
  for (int64_t i = 0; i < nsp; ++i) {
    SDK_VALUE_CHECK(stride[i] >= 1 && dilation[i] >= 1 && padding[i] >= 0, op,
                    ": stride and dilation must be positive and padding non-negative, got "
                    "stride ",
                    sizes_str(nsp, stride), ", padding ", sizes_str(nsp, padding), ", dilation ",
                    sizes_str(nsp, dilation));
  }
  int64_t* in[2] = {&c.ih, &c.iw};
  int64_t* k[2] = {&c.kh, &c.kw};
  int64_t* o[2] = {&c.oh, &c.ow};
  int64_t* s[2] = {&c.sh, &c.sw};
  int64_t* p[2] = {&c.ph, &c.pw};
  int64_t* d[2] = {&c.dh, &c.dw};
  for (int64_t i = 0; i < nsp; ++i) {
    int64_t j = i + 2 - nsp;  // 1-d fills the width
    *in[j] = x.sizes[2 + i];
    *k[j] = w.sizes[2 + i];
    *s[j] = stride[i];
    *p[j] = padding[i];
    *d[j] = dilation[i];
    const int64_t span = dilation[i] * (w.sizes[2 + i] - 1) + 1;
    const int64_t padded = x.sizes[2 + i] + 2 * padding[i];
    SDK_VALUE_CHECK(padded >= span, op, ": the (padded) input ", describe(x),
                    " is smaller than the dilated kernel ", describe(w), " in spatial dim ", i);
    SDK_VALUE_CHECK(w.sizes[2 + i] >= 1, op, ": the kernel ", describe(w), " is empty");
    *o[j] = (padded - span) / stride[i] + 1;
  }
  return c;
}

// Columns of samples [b0, b0 + nb) of group g: cols[(c * kk + ky * kw + kx), b * ol + oy * ow + ox]
// = x[b0 + b, g * cg + c, oy * sh - ph + ky * dh, ox * sw - pw + kx * dw], 0 outside.
template <typename T>
void im2col(const Conv& c, const T* x, int64_t b0, int64_t nb, int64_t g, T* cols) {
  const int64_t ld = nb * c.ol();
  parallel_for(0, c.krows() * nb, std::max<int64_t>(1, 4096 / std::max<int64_t>(c.ol(), 1)),
               [&](int64_t rb, int64_t re) {
                 for (int64_t rr = rb; rr < re; ++rr) {
                   const int64_t row = rr / nb, b = rr % nb;
                   const int64_t ch = row / c.kk(), ky = row % c.kk() / c.kw, kx = row % c.kw;
                   const T* src = x + ((b0 + b) * c.cin + g * c.cg() + ch) * c.il();
                   T* dst = cols + row * ld + b * c.ol();
                   for (int64_t oy = 0; oy < c.oh; ++oy) {
                     const int64_t iy = oy * c.sh - c.ph + ky * c.dh;
                     T* d = dst + oy * c.ow;
                     if (iy < 0 || iy >= c.ih) {
                       std::fill(d, d + c.ow, T(0));
                       continue;
                     }
                     const T* s = src + iy * c.iw;
                     const int64_t off = kx * c.dw - c.pw;
                     for (int64_t ox = 0; ox < c.ow; ++ox) {
                       const int64_t ix = ox * c.sw + off;
                       d[ox] = (ix >= 0 && ix < c.iw) ? s[ix] : T(0);
                     }
                   }
                 }
               });
}

// The reverse: dx[...] += cols[...] (each input channel of the group owned by one thread).
template <typename T>
void col2im(const Conv& c, const T* cols, int64_t b0, int64_t nb, int64_t g, T* dx) {
  const int64_t ld = nb * c.ol();
  parallel_for(0, c.cg() * nb, 1, [&](int64_t qb, int64_t qe) {
    for (int64_t q = qb; q < qe; ++q) {
      const int64_t ch = q / nb, b = q % nb;
      T* dst = dx + ((b0 + b) * c.cin + g * c.cg() + ch) * c.il();
      for (int64_t kr = 0; kr < c.kk(); ++kr) {
        const int64_t ky = kr / c.kw, kx = kr % c.kw;
        const T* src = cols + (ch * c.kk() + kr) * ld + b * c.ol();
        for (int64_t oy = 0; oy < c.oh; ++oy) {
          const int64_t iy = oy * c.sh - c.ph + ky * c.dh;
          if (iy < 0 || iy >= c.ih) continue;
          T* d = dst + iy * c.iw;
          const T* s = src + oy * c.ow;
          const int64_t off = kx * c.dw - c.pw;
          for (int64_t ox = 0; ox < c.ow; ++ox) {
            const int64_t ix = ox * c.sw + off;
            if (ix >= 0 && ix < c.iw) d[ix] += s[ox];
          }
        }
      }
    }
  });
}

// Samples per batch of columns: as many as fit ~32 MB of columns (at least one).
int64_t conv_batch(const Conv& c, int64_t itemsize) {
  const int64_t per = std::max<int64_t>(1, c.krows() * c.ol() * itemsize);
  return std::max<int64_t>(1, std::min<int64_t>(c.n, (int64_t(32) << 20) / per));
}

template <typename T>
void conv_forward(const Conv& c, const T* x, const T* w, const T* bias, T* y, sdk_dtype dt) {
  const int64_t nbmax = conv_batch(c, sizeof(T));
  std::vector<T> cols(static_cast<size_t>(c.krows() * nbmax * c.ol()));
  std::vector<T> out(static_cast<size_t>(c.coutg() * nbmax * c.ol()));
  for (int64_t b0 = 0; b0 < c.n; b0 += nbmax) {
    const int64_t nb = std::min(nbmax, c.n - b0), ld = nb * c.ol();
    for (int64_t g = 0; g < c.groups; ++g) {
      im2col(c, x, b0, nb, g, cols.data());
      // out (coutg x nb*ol) = W_g (coutg x krows) @ cols (krows x nb*ol)
      blas::gemm(dt, false, false, c.coutg(), ld, c.krows(), 1.0, w + g * c.coutg() * c.krows(),
                 c.krows(), cols.data(), ld, 0.0, out.data(), ld);
      parallel_for(0, c.coutg() * nb, 4, [&](int64_t qb, int64_t qe) {
        for (int64_t q = qb; q < qe; ++q) {
          const int64_t co = q / nb, b = q % nb, oc = g * c.coutg() + co;
          const T* s = out.data() + co * ld + b * c.ol();
          T* d = y + ((b0 + b) * c.cout + oc) * c.ol();
          const T bv = bias ? bias[oc] : T(0);
          for (int64_t l = 0; l < c.ol(); ++l) d[l] = s[l] + bv;
        }
      });
    }
  }
}

template <typename T>
void conv_backward(const Conv& c, const T* gy, const T* x, const T* w, T* gx, T* gw, T* gb,
                   sdk_dtype dt) {
  if (gb) {
    parallel_for(0, c.cout, 1, [&](int64_t ob, int64_t oe) {
      for (int64_t oc = ob; oc < oe; ++oc) {
        double s = 0;
        for (int64_t b = 0; b < c.n; ++b) {
          const T* p = gy + (b * c.cout + oc) * c.ol();
          for (int64_t l = 0; l < c.ol(); ++l) s += p[l];
        }
        gb[oc] = T(s);
      }
    });
  }
  if (!gx && !gw) return;
  if (gx) std::fill(gx, gx + c.n * c.cin * c.il(), T(0));
  if (gw) std::fill(gw, gw + c.cout * c.krows(), T(0));
  const int64_t nbmax = conv_batch(c, sizeof(T));
  std::vector<T> cols(static_cast<size_t>(c.krows() * nbmax * c.ol()));
  std::vector<T> go(static_cast<size_t>(c.coutg() * nbmax * c.ol()));
  for (int64_t b0 = 0; b0 < c.n; b0 += nbmax) {
    const int64_t nb = std::min(nbmax, c.n - b0), ld = nb * c.ol();
    for (int64_t g = 0; g < c.groups; ++g) {
      // go (coutg x nb*ol): this group's output gradients, samples side by side
      parallel_for(0, c.coutg() * nb, 4, [&](int64_t qb, int64_t qe) {
        for (int64_t q = qb; q < qe; ++q) {
          const int64_t co = q / nb, b = q % nb;
          const T* s = gy + ((b0 + b) * c.cout + g * c.coutg() + co) * c.ol();
          std::copy(s, s + c.ol(), go.data() + co * ld + b * c.ol());
        }
      });
      const T* wg = w + g * c.coutg() * c.krows();
      if (gw) {
        im2col(c, x, b0, nb, g, cols.data());
        // gW_g (coutg x krows) += go (coutg x nb*ol) @ cols^T (nb*ol x krows)
        blas::gemm(dt, false, true, c.coutg(), c.krows(), ld, 1.0, go.data(), ld, cols.data(), ld,
                   1.0, gw + g * c.coutg() * c.krows(), c.krows());
      }
      if (gx) {
        // dcols (krows x nb*ol) = W_g^T (krows x coutg) @ go (coutg x nb*ol)
        blas::gemm(dt, true, false, c.krows(), ld, c.coutg(), 1.0, wg, c.krows(), go.data(), ld,
                   0.0, cols.data(), ld);
        col2im(c, cols.data(), b0, nb, g, gx);
      }
    }
  }
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

namespace {

const TensorImpl* optional_tensor(const sdk_tensor* t, const char* op, const char* arg) {
  return t ? &checked(t, op, arg) : nullptr;
}

template <typename T>
const T* data_or_null(const Ref& r) {
  return r ? static_cast<const T*>(r->data()) : nullptr;
}

}  // namespace

extern "C" {

SDK_API sdk_status sdk_layer_norm(const sdk_tensor* input, int64_t normalized_ndim,
                                  const sdk_tensor* weight, const sdk_tensor* bias, double eps,
                                  sdk_tensor** result, sdk_tensor** mean, sdk_tensor** rstd) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "layer_norm";
  const TensorImpl& x = checked(input, op, "input");
  check_not_null(result, op, "result");
  check_cpu(x, op, "input");
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating point input, got ", describe(x));
  const LnShape s = ln_shape(x, normalized_ndim, op);
  check_affine(optional_tensor(weight, op, "weight"), x, normalized_ndim, op, "weight");
  check_affine(optional_tensor(bias, op, "bias"), x, normalized_ndim, op, "bias");
  Ref xc = contiguous(x);
  Ref wc = weight ? contiguous(*to_impl(weight)) : Ref();
  Ref bc = bias ? contiguous(*to_impl(bias)) : Ref();
  Ref y = make_tensor(x.ndim, x.sizes, x.dtype, x.device());
  const int64_t batch_nd = x.ndim - normalized_ndim;
  Ref mu = make_tensor(batch_nd, x.sizes, stats_dtype(x.dtype), x.device());
  Ref rs = make_tensor(batch_nd, x.sizes, stats_dtype(x.dtype), x.device());
  if (s.m && s.n) {
    SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
      using A = typename OpMath<scalar_t>::type;
      ln_forward(static_cast<const scalar_t*>(xc->data()), data_or_null<scalar_t>(wc),
                 data_or_null<scalar_t>(bc), static_cast<scalar_t*>(y->data()),
                 static_cast<A*>(mu->data()), static_cast<A*>(rs->data()), s.m, s.n, eps);
    });
  }
  set_result(result, std::move(y));
  set_result(mean, std::move(mu));
  set_result(rstd, std::move(rs));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_layer_norm_backward(const sdk_tensor* grad_output, const sdk_tensor* input,
                                           const sdk_tensor* mean, const sdk_tensor* rstd,
                                           int64_t normalized_ndim, const sdk_tensor* weight,
                                           int32_t output_mask, sdk_tensor** grad_input,
                                           sdk_tensor** grad_weight, sdk_tensor** grad_bias) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "layer_norm_backward";
  const TensorImpl& gy = checked(grad_output, op, "grad_output");
  const TensorImpl& x = checked(input, op, "input");
  const TensorImpl& mu = checked(mean, op, "mean");
  const TensorImpl& rs = checked(rstd, op, "rstd");
  for (sdk_tensor** r : {grad_input, grad_weight, grad_bias}) {
    if (r) *r = nullptr;
  }
  check_cpu(x, op, "input");
  check_cpu(gy, op, "grad_output");
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating point input, got ", describe(x));
  const LnShape s = ln_shape(x, normalized_ndim, op);
  SDK_VALUE_CHECK(shape_of(gy) == shape_of(x) && gy.dtype == x.dtype, op, ": grad_output ",
                  describe(gy), " does not match the input ", describe(x));
  for (const TensorImpl* st : {&mu, &rs}) {
    SDK_VALUE_CHECK(st->numel == s.m && st->dtype == stats_dtype(x.dtype), op,
                    ": mean and rstd must be the statistics layer_norm returned for this input "
                    "(",
                    s.m, " values of ", dname(stats_dtype(x.dtype)), "), got ", describe(*st));
    check_cpu(*st, op, "mean/rstd");
  }
  const TensorImpl* w = optional_tensor(weight, op, "weight");
  check_affine(w, x, normalized_ndim, op, "weight");
  const bool want_x = (output_mask & 1) && grad_input;
  const bool want_w = (output_mask & 2) && grad_weight && w;
  const bool want_b = (output_mask & 4) && grad_bias;
  Ref gyc = contiguous(gy), xc = contiguous(x), muc = contiguous(mu), rsc = contiguous(rs);
  Ref wc = w ? contiguous(*w) : Ref();
  const int64_t* nshape = x.sizes + x.ndim - normalized_ndim;
  Ref gx = want_x ? make_tensor(x.ndim, x.sizes, x.dtype, x.device()) : Ref();
  Ref gw = want_w ? make_tensor(normalized_ndim, nshape, x.dtype, x.device()) : Ref();
  Ref gb = want_b ? make_tensor(normalized_ndim, nshape, x.dtype, x.device()) : Ref();
  SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
    using A = typename OpMath<scalar_t>::type;
    auto out = [](Ref& r) { return r ? static_cast<scalar_t*>(r->data()) : nullptr; };
    if (s.m && s.n) {
      ln_backward(static_cast<const scalar_t*>(gyc->data()),
                  static_cast<const scalar_t*>(xc->data()), static_cast<const A*>(muc->data()),
                  static_cast<const A*>(rsc->data()), data_or_null<scalar_t>(wc), out(gx), out(gw),
                  out(gb), s.m, s.n);
    } else {
      for (Ref* r : {&gw, &gb}) {
        if (*r) std::fill(out(*r), out(*r) + (*r)->numel, scalar_t(0));
      }
    }
  });
  set_result(grad_input, std::move(gx));
  set_result(grad_weight, std::move(gw));
  set_result(grad_bias, std::move(gb));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_convolution(const sdk_tensor* input, const sdk_tensor* weight,
                                   const sdk_tensor* bias, int64_t n_spatial, const int64_t* stride,
                                   const int64_t* padding, const int64_t* dilation, int64_t groups,
                                   sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = n_spatial == 1 ? "conv1d" : "conv2d";
  const TensorImpl& x = checked(input, op, "input");
  const TensorImpl& w = checked(weight, op, "weight");
  check_not_null(result, op, "result");
  const Conv c = conv_geometry(x, w, n_spatial, stride, padding, dilation, groups, op);
  const TensorImpl* b = optional_tensor(bias, op, "bias");
  if (b) {
    check_cpu(*b, op, "bias");
    SDK_VALUE_CHECK(b->ndim == 1 && b->sizes[0] == c.cout && b->dtype == x.dtype, op,
                    ": expected a bias of ", c.cout, " ", dname(x.dtype), " values, got ",
                    describe(*b));
  }
  Shape os = {c.n, c.cout};
  if (n_spatial == 2) os.push_back(c.oh);
  os.push_back(c.ow);
  Ref y = make_tensor(os, x.dtype, x.device());
  if (y->numel) {
    Ref xc = contiguous(x), wc = contiguous(w), bc = b ? contiguous(*b) : Ref();
    SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
      if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
        conv_forward(c, static_cast<const scalar_t*>(xc->data()),
                     static_cast<const scalar_t*>(wc->data()), data_or_null<scalar_t>(bc),
                     static_cast<scalar_t*>(y->data()), x.dtype);
      }
    });
  }
  set_result(result, std::move(y));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_convolution_backward(const sdk_tensor* grad_output, const sdk_tensor* input,
                                            const sdk_tensor* weight, int64_t n_spatial,
                                            const int64_t* stride, const int64_t* padding,
                                            const int64_t* dilation, int64_t groups,
                                            int32_t output_mask, sdk_tensor** grad_input,
                                            sdk_tensor** grad_weight, sdk_tensor** grad_bias) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = n_spatial == 1 ? "conv1d_backward" : "conv2d_backward";
  const TensorImpl& gy = checked(grad_output, op, "grad_output");
  const TensorImpl& x = checked(input, op, "input");
  const TensorImpl& w = checked(weight, op, "weight");
  for (sdk_tensor** r : {grad_input, grad_weight, grad_bias}) {
    if (r) *r = nullptr;
  }
  const Conv c = conv_geometry(x, w, n_spatial, stride, padding, dilation, groups, op);
  check_cpu(gy, op, "grad_output");
  Shape os = {c.n, c.cout};
  if (n_spatial == 2) os.push_back(c.oh);
  os.push_back(c.ow);
  SDK_VALUE_CHECK(shape_of(gy) == os && gy.dtype == x.dtype, op, ": grad_output ", describe(gy),
                  " does not match the output shape ", vec_str(os));
  Ref gx =
      (output_mask & 1) && grad_input ? make_tensor(x.ndim, x.sizes, x.dtype, x.device()) : Ref();
  Ref gw =
      (output_mask & 2) && grad_weight ? make_tensor(w.ndim, w.sizes, w.dtype, w.device()) : Ref();
  Ref gb = (output_mask & 4) && grad_bias ? make_tensor(Shape{c.cout}, x.dtype, x.device()) : Ref();
  Ref gyc = contiguous(gy), xc = contiguous(x), wc = contiguous(w);
  SDK_DISPATCH_FLOATING(x.dtype, op, [&] {
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
      auto out = [](Ref& r) { return r ? static_cast<scalar_t*>(r->data()) : nullptr; };
      conv_backward(c, static_cast<const scalar_t*>(gyc->data()),
                    static_cast<const scalar_t*>(xc->data()),
                    static_cast<const scalar_t*>(wc->data()), out(gx), out(gw), out(gb), x.dtype);
    }
  });
  set_result(grad_input, std::move(gx));
  set_result(grad_weight, std::move(gw));
  set_result(grad_bias, std::move(gb));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
