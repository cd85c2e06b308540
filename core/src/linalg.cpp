// core/src/linalg.cpp: mm, addmm, bmm, matmul, mv, dot (BLAS for float32/64, blocked loops else).
//
// Every product is reduced to a batched GEMM over strided operands: the
// batch dims carry their own strides (0 for broadcast), and each matrix is
// handed to the BLAS without copying when it is row- or column-major with a
// leading dimension (a column-major matrix is passed as a transposed one).
#include <cmath>
#include <memory>

#include "blas.h"
#include "cuda/glue/cuda_glue.h"
#include "kernel_util.h"

namespace sdk::detail::k2 {
namespace {

// Row- or column-major layout of a rows x cols matrix with strides (rs, cs):
// returns false when the BLAS cannot take it without a copy.
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool& trans, int64_t& ld) {
  if (cs == 1 || cols <= 1) {
    int64_t need = std::max<int64_t>(1, cols);
    if (rows <= 1 || rs >= need) {
      trans = false;
      ld = rows <= 1 ? need : rs;
      return true;
    }
  }
  if (rs == 1 || rows <= 1) {
    int64_t need = std::max<int64_t>(1, rows);
    if (cols <= 1 || cs >= need) {
      trans = true;
      ld = cols <= 1 ? need : cs;
      return true;
    }
  }
  return false;
}

// A batched operand: nb batch dims then the two matrix dims.
struct Operand {
  Ref t;
  int64_t nb;
  int64_t rows() const { return t->sizes[nb]; }
  int64_t cols() const { return t->sizes[nb + 1]; }
  int64_t rs() const { return t->strides[nb]; }
  int64_t cs() const { return t->strides[nb + 1]; }
};

// Offsets (elements) of each batch of an operand, in row-major batch order.
std::vector<int64_t> batch_offsets(const Operand& o, int64_t nbatch) {
  std::vector<int64_t> off(nbatch, 0);
  std::vector<int64_t> idx(o.nb, 0);
  int64_t cur = 0;
  for (int64_t b = 0; b < nbatch; ++b) {
    off[b] = cur;
    for (int64_t d = o.nb - 1; d >= 0; --d) {
      cur += o.t->strides[d];
      if (++idx[d] < o.t->sizes[d]) break;
      cur -= o.t->strides[d] * o.t->sizes[d];
      idx[d] = 0;
    }
  }
  return off;
}

// ---------------------------------------------------------------------------
// Blocked GEMM for float16/bfloat16 (float accumulation) and integers (int64, wrapping).
// ---------------------------------------------------------------------------
template <typename T, typename Acc>
void gemm_blocked(const T* a, int64_t ars, int64_t acs, const T* b, int64_t brs, int64_t bcs, T* c,
                  int64_t n, int64_t m, int64_t k, Acc alpha, Acc beta) {
  // B packed once as Acc, row-major k x m.
  std::unique_ptr<Acc[]> bp(new Acc[std::max<int64_t>(1, k * m)]);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < m; ++j) bp[p * m + j] = convert<Acc>(b[p * brs + j * bcs]);
  }
  constexpr int64_t kKB = 128, kMB = 512;
  parallel_for(0, n, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, k * m)),
               [&](int64_t i0, int64_t i1) {
                 const int64_t rows = i1 - i0;
                 std::unique_ptr<Acc[]> ap(new Acc[std::max<int64_t>(1, rows * k)]);
                 std::unique_ptr<Acc[]> cacc(new Acc[std::max<int64_t>(1, rows * m)]);
                 for (int64_t i = 0; i < rows; ++i) {
                   for (int64_t p = 0; p < k; ++p) {
                     ap[i * k + p] = convert<Acc>(a[(i0 + i) * ars + p * acs]);
                   }
                 }
                 std::fill(cacc.get(), cacc.get() + rows * m, Acc(0));
                 // Tiles of B (kKB x kMB) stay in cache while every row uses them.
                 for (int64_t p0 = 0; p0 < k; p0 += kKB) {
                   const int64_t p1 = std::min(k, p0 + kKB);
                   for (int64_t j0 = 0; j0 < m; j0 += kMB) {
                     const int64_t len = std::min(m, j0 + kMB) - j0;
                     for (int64_t i = 0; i < rows; ++i) {
                       Acc* __restrict cr = cacc.get() + i * m + j0;
                       for (int64_t p = p0; p < p1; ++p) {
                         const Acc av = ap[i * k + p];
                         const Acc* __restrict br = bp.get() + p * m + j0;
                         for (int64_t j = 0; j < len; ++j)
                           cr[j] = wrap_add(cr[j], wrap_mul(av, br[j]));
                       }
                     }
                   }
                 }
                 for (int64_t i = 0; i < rows; ++i) {
                   T* cr = c + (i0 + i) * m;
                   for (int64_t j = 0; j < m; ++j) {
                     Acc v = wrap_mul(alpha, cacc[i * m + j]);
                     if (beta != Acc(0)) v = wrap_add(v, wrap_mul(beta, convert<Acc>(cr[j])));
                     cr[j] = convert<T>(v);
                   }
                 }
               });
}

// The step between consecutive offsets when they all share one (>= 0), else -1.
int64_t evenly_spaced(const std::vector<int64_t>& off) {
  const int64_t step = off.size() > 1 ? off[1] - off[0] : 0;
  if (step < 0) return -1;
  for (size_t i = 1; i < off.size(); ++i) {
    if (off[i] - off[i - 1] != step) return -1;
  }
  return step;
}

// C (nbatch x n x m, contiguous) = alpha * A @ B + beta * C.
void batched_gemm(Operand a, Operand b, TensorImpl& c, int64_t nbatch, sdk_scalar alpha,
                  sdk_scalar beta, const char* op) {
  const int64_t n = a.rows(), k = a.cols(), m = b.cols();
  const sdk_dtype dt = c.dtype;
  if (nbatch == 0 || n == 0 || m == 0) return;
  const int64_t isz = c.itemsize();
  char* cbase = static_cast<char*>(c.data());
  if (cuda::is_cuda(c)) {  // one batched gemm when the batches are evenly spaced, else one each
    std::vector<int64_t> ao = batch_offsets(a, nbatch), bo = batch_offsets(b, nbatch);
    const int64_t a_bs = evenly_spaced(ao), b_bs = evenly_spaced(bo);
    const bool one_call = a_bs >= 0 && b_bs >= 0;
    for (int64_t i = 0; i < (one_call ? 1 : nbatch); ++i) {
      int64_t asz[2] = {n, k}, ast[2] = {a.rs(), a.cs()};
      int64_t bsz[2] = {k, m}, bst[2] = {b.rs(), b.cs()};
      int64_t csz[2] = {n, m};
      Ref av = make_view(*a.t, 2, asz, ast, a.t->offset + ao[i]);
      Ref bv = make_view(*b.t, 2, bsz, bst, b.t->offset + bo[i]);
      Ref cv = make_view(c, 2, csz, nullptr, c.offset + i * n * m);
      cuda::gemm(*cv, *av, *bv, scalar_as<double>(alpha), scalar_as<double>(beta),
                 one_call ? nbatch : 1, a_bs, b_bs);
    }
    return;
  }
  if (dt == SDK_FLOAT32 || dt == SDK_FLOAT64) {
    double al = scalar_as<double>(alpha), be = scalar_as<double>(beta);
    if (k == 0) {  // the BLAS is not asked about empty products
      SDK_DISPATCH_FLOATING(dt, op, [&] {
        scalar_t* p = reinterpret_cast<scalar_t*>(cbase);
        for (int64_t i = 0; i < nbatch * n * m; ++i)
          p[i] = be == 0 ? scalar_t(0) : scalar_t(be * p[i]);
      });
      return;
    }
    bool ta, tb;
    int64_t lda, ldb;
    if (!blas_layout(n, k, a.rs(), a.cs(), ta, lda)) {
      a.t = contiguous(*a.t);
      blas_layout(n, k, a.rs(), a.cs(), ta, lda);
    }
    if (!blas_layout(k, m, b.rs(), b.cs(), tb, ldb)) {
      b.t = contiguous(*b.t);
      blas_layout(k, m, b.rs(), b.cs(), tb, ldb);
    }
    std::vector<int64_t> aoff = batch_offsets(a, nbatch), boff = batch_offsets(b, nbatch);
    const char* abase = static_cast<const char*>(a.t->data());
    const char* bbase = static_cast<const char*>(b.t->data());
    for (int64_t i = 0; i < nbatch; ++i) {
      blas::gemm(dt, ta, tb, n, m, k, al, abase + aoff[i] * isz, lda, bbase + boff[i] * isz, ldb,
                 be, cbase + i * n * m * isz, std::max<int64_t>(1, m));
    }
    return;
  }
  SDK_TYPE_CHECK(dt != SDK_BOOL, op, ": not implemented for bool tensors");
  std::vector<int64_t> aoff = batch_offsets(a, nbatch), boff = batch_offsets(b, nbatch);
  SDK_DISPATCH_ALL(dt, op, [&] {
    using Acc = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, float>;
    const scalar_t* ab = static_cast<const scalar_t*>(a.t->data());
    const scalar_t* bb = static_cast<const scalar_t*>(b.t->data());
    for (int64_t i = 0; i < nbatch; ++i) {
      gemm_blocked<scalar_t, Acc>(ab + aoff[i], a.rs(), a.cs(), bb + boff[i], b.rs(), b.cs(),
                                  reinterpret_cast<scalar_t*>(cbase) + i * n * m, n, m, k,
                                  scalar_as<Acc>(alpha), scalar_as<Acc>(beta));
    }
  });
}

bool shares_storage(const TensorImpl& a, const TensorImpl* b) {
  return b && a.storage == b->storage;
}

// The tensor a result is computed into: `out` itself when it is contiguous,
// has the result's dtype and shape and does not alias an input.
Ref result_target(sdk_tensor* out, const Shape& shape, sdk_dtype dtype, sdk_device dev,
                  const TensorImpl* in0, const TensorImpl* in1, const TensorImpl* in2,
                  const char* op) {
  if (out) {
    TensorImpl& o = *to_impl(out);
    check_out(o, shape, dtype, op);
    if (o.dtype == dtype && o.contiguous && !shares_storage(o, in0) && !shares_storage(o, in1) &&
        !shares_storage(o, in2)) {
      return Ref::borrow(out);
    }
  }
  return make_tensor(shape, dtype, dev);
}

void zero_result(TensorImpl& c) {
  if (cuda::is_cuda(c)) return cuda::fill(c, sdk_scalar{0.0, 0, SDK_SCALAR_INT, 0});
  std::memset(c.data(), 0, size_t(c.numel * c.itemsize()));
}

void check_pair(const TensorImpl& a, const TensorImpl& b, const char* op) {
  cuda::check_same_device(op, {&a, &b});
  SDK_TYPE_CHECK(a.dtype == b.dtype, op,
                 ": expected both operands to have the same dtype, but got ", describe(a), " and ",
                 describe(b));
}

[[noreturn]] void shape_fail(const TensorImpl& a, const TensorImpl& b, const char* op) {
  SDK_FAIL(SDK_ERROR_VALUE, op, ": shapes ", shape_str(a), " and ", shape_str(b),
           " cannot be multiplied");
}

sdk_scalar int_scalar(int64_t v) {
  sdk_scalar s{};
  s.i = v;
  s.f = double(v);
  s.kind = SDK_SCALAR_INT;
  return s;
}

// View of t with a batch dim of size 1 in front (stride 0).
Operand as_batched(const TensorImpl& t) {
  int64_t sz[3] = {1, t.sizes[0], t.sizes[1]};
  int64_t st[3] = {0, t.strides[0], t.strides[1]};
  return Operand{make_view(t, 3, sz, st, t.offset), 1};
}

Ref mm_impl(const TensorImpl* bias, const TensorImpl& a, const TensorImpl& b, sdk_scalar beta,
            sdk_scalar alpha, sdk_tensor* out, const char* op) {
  check_pair(a, b, op);
  SDK_VALUE_CHECK(a.ndim == 2 && b.ndim == 2, op, ": expected 2-D matrices, got shapes ",
                  shape_str(a), " and ", shape_str(b));
  if (a.sizes[1] != b.sizes[0]) shape_fail(a, b, op);
  const int64_t n = a.sizes[0], m = b.sizes[1];
  if (is_integral(a.dtype, true)) {
    SDK_TYPE_CHECK(alpha.kind != SDK_SCALAR_FLOAT && beta.kind != SDK_SCALAR_FLOAT, op,
                   ": for integral input tensors, alpha and beta must not be floating point");
  }
  Shape shape{n, m};
  Ref c = result_target(out, shape, a.dtype, a.device(), &a, &b, bias, op);
  const bool use_bias = bias && scalar_as<double>(beta) != 0.0;
  if (use_bias) {
    cuda::check_same_device(op, {&a, bias});
    // Broadcast the bias to (n, m) by strides, then copy it into C.
    SDK_VALUE_CHECK(bias->ndim <= 2, op, ": bias of shape ", shape_str(*bias),
                    " cannot broadcast to ", vec_str(shape));
    int64_t st[2] = {0, 0};
    for (int64_t d = 0; d < bias->ndim; ++d) {
      int64_t od = 2 - bias->ndim + d;
      int64_t s = bias->sizes[d];
      SDK_VALUE_CHECK(s == shape[od] || s == 1, op, ": bias of shape ", shape_str(*bias),
                      " cannot broadcast to ", vec_str(shape));
      st[od] = s == 1 ? 0 : bias->strides[d];
    }
    Ref bv = make_view(*bias, 2, shape.data(), st, bias->offset);
    cast_copy(*bv, *c);
  }
  sdk_scalar be = use_bias ? beta : int_scalar(0);
  if (cuda::is_cuda(a)) {
    cuda::gemm(*c, a, b, scalar_as<double>(alpha), scalar_as<double>(be));
    return finish_out(c, out, op);
  }
  // Fast path (no views, no copies): both operands already in a BLAS layout.
  bool ta, tb;
  int64_t lda, ldb;
  const int64_t k = a.sizes[1];
  if ((a.dtype == SDK_FLOAT32 || a.dtype == SDK_FLOAT64) && k > 0 && n > 0 && m > 0 &&
      blas_layout(n, k, a.strides[0], a.strides[1], ta, lda) &&
      blas_layout(k, m, b.strides[0], b.strides[1], tb, ldb)) {
    blas::gemm(a.dtype, ta, tb, n, m, k, scalar_as<double>(alpha), a.data(), lda, b.data(), ldb,
               scalar_as<double>(be), c->data(), std::max<int64_t>(1, m));
    return finish_out(c, out, op);
  }
  batched_gemm(as_batched(a), as_batched(b), *c, 1, alpha, be, op);
  return finish_out(c, out, op);
}

// numpy's broadcast of two batch shapes.
Shape broadcast_batch(const Shape& x, const Shape& y, const TensorImpl& a, const TensorImpl& b,
                      const char* op) {
  size_t nd = std::max(x.size(), y.size());
  Shape r(nd, 1);
  for (size_t i = 0; i < nd; ++i) {
    int64_t xs = i + x.size() >= nd ? x[i + x.size() - nd] : 1;
    int64_t ys = i + y.size() >= nd ? y[i + y.size() - nd] : 1;
    if (xs != ys && xs != 1 && ys != 1) {
      SDK_FAIL(SDK_ERROR_VALUE, op, ": batch dimensions of shapes ", shape_str(a), " and ",
               shape_str(b), " cannot be broadcast together");
    }
    r[i] = xs == 1 ? ys : xs;
  }
  return r;
}

// t (nd >= 2, last two are the matrix) expanded to batch + matrix dims.
Operand expand_operand(const TensorImpl& t, const Shape& batch) {
  const int64_t nb = int64_t(batch.size()), tb = t.ndim - 2;
  Shape sz(batch), st(nb, 0);
  for (int64_t i = 0; i < tb; ++i) {
    int64_t d = nb - tb + i;
    st[d] = t.sizes[i] == 1 ? 0 : t.strides[i];
  }
  sz.push_back(t.sizes[tb]);
  sz.push_back(t.sizes[tb + 1]);
  st.push_back(t.strides[tb]);
  st.push_back(t.strides[tb + 1]);
  return Operand{make_view(t, nb + 2, sz.data(), st.data(), t.offset), nb};
}

// Batch and row dims of t fold into one strided dim: returns its stride, or -1.
int64_t foldable_rows(const TensorImpl& t) {
  int64_t stride = t.strides[t.ndim - 2], size = t.sizes[t.ndim - 2];
  for (int64_t d = t.ndim - 3; d >= 0; --d) {
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != stride * size) return -1;
    stride = t.strides[d];
    size = t.sizes[d];
  }
  return t.strides[t.ndim - 2];
}

Ref matmul_impl(const TensorImpl& a, const TensorImpl& b, sdk_tensor* out, const char* op) {
  check_pair(a, b, op);
  SDK_VALUE_CHECK(a.ndim >= 1 && b.ndim >= 1, op,
                  ": both arguments need to be at least 1-D, got shapes ", shape_str(a), " and ",
                  shape_str(b));
  // Promote 1-D operands to matrices by views.
  Ref am = Ref::borrow(to_handle(const_cast<TensorImpl*>(&a)));
  Ref bm = Ref::borrow(to_handle(const_cast<TensorImpl*>(&b)));
  if (a.ndim == 1) {
    int64_t sz[2] = {1, a.sizes[0]}, st[2] = {0, a.strides[0]};
    am = make_view(a, 2, sz, st, a.offset);
  }
  if (b.ndim == 1) {
    int64_t sz[2] = {b.sizes[0], 1}, st[2] = {b.strides[0], 0};
    bm = make_view(b, 2, sz, st, b.offset);
  }
  const int64_t n = am->sizes[am->ndim - 2], k = am->sizes[am->ndim - 1];
  const int64_t m = bm->sizes[bm->ndim - 1];
  if (bm->sizes[bm->ndim - 2] != k) shape_fail(a, b, op);
  Shape ba(am->sizes, am->sizes + am->ndim - 2), bb(bm->sizes, bm->sizes + bm->ndim - 2);
  Shape batch = broadcast_batch(ba, bb, a, b, op);
  Shape shape(batch);
  if (a.ndim > 1) shape.push_back(n);
  if (b.ndim > 1) shape.push_back(m);
  Ref c = result_target(out, shape, a.dtype, a.device(), &a, &b, nullptr, op);
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  if (c->numel > 0 && k == 0) zero_result(*c);
  if (c->numel > 0 && k > 0) {
    int64_t fold = bb.empty() ? foldable_rows(*am) : -1;
    if (fold >= 0 && nbatch > 1) {
      // (..., n, k) @ (k, m): one GEMM over all rows (the Linear layer case).
      int64_t sz[3] = {1, nbatch * n, k}, st[3] = {0, fold, am->strides[am->ndim - 1]};
      Operand ao{make_view(*am, 3, sz, st, am->offset), 1};
      batched_gemm(ao, as_batched(*bm), *c, 1, int_scalar(1), int_scalar(0), op);
    } else {
      batched_gemm(expand_operand(*am, batch), expand_operand(*bm, batch), *c, nbatch,
                   int_scalar(1), int_scalar(0), op);
    }
  }
  return finish_out(c, out, op);
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_mm(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                          sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_mm", "a");
  const TensorImpl& tb = checked(b, "sdk_mm", "b");
  SDK_VALUE_CHECK(out || result, "sdk_mm: both out and result are NULL");
  set_result(result, mm_impl(nullptr, ta, tb, int_scalar(0), int_scalar(1), out, "sdk_mm"));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_addmm(const sdk_tensor* bias, const sdk_tensor* a, const sdk_tensor* b,
                             sdk_scalar beta, sdk_scalar alpha, sdk_tensor* out,
                             sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& tc = checked(bias, "sdk_addmm", "bias");
  const TensorImpl& ta = checked(a, "sdk_addmm", "a");
  const TensorImpl& tb = checked(b, "sdk_addmm", "b");
  SDK_VALUE_CHECK(out || result, "sdk_addmm: both out and result are NULL");
  set_result(result, mm_impl(&tc, ta, tb, beta, alpha, out, "sdk_addmm"));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_bmm(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                           sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_bmm";
  const TensorImpl& ta = checked(a, op, "a");
  const TensorImpl& tb = checked(b, op, "b");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  check_pair(ta, tb, op);
  SDK_VALUE_CHECK(ta.ndim == 3 && tb.ndim == 3, op, ": expected 3-D tensors, got shapes ",
                  shape_str(ta), " and ", shape_str(tb));
  SDK_VALUE_CHECK(ta.sizes[0] == tb.sizes[0], op, ": batch sizes of shapes ", shape_str(ta),
                  " and ", shape_str(tb), " differ");
  if (ta.sizes[2] != tb.sizes[1]) shape_fail(ta, tb, op);
  Shape shape{ta.sizes[0], ta.sizes[1], tb.sizes[2]};
  Ref c = result_target(out, shape, ta.dtype, ta.device(), &ta, &tb, nullptr, op);
  if (c->numel > 0 && ta.sizes[2] == 0) zero_result(*c);
  if (c->numel > 0 && ta.sizes[2] > 0) {
    batched_gemm(Operand{Ref::borrow(a), 1}, Operand{Ref::borrow(b), 1}, *c, ta.sizes[0],
                 int_scalar(1), int_scalar(0), op);
  }
  set_result(result, finish_out(c, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_matmul(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& ta = checked(a, "sdk_matmul", "a");
  const TensorImpl& tb = checked(b, "sdk_matmul", "b");
  SDK_VALUE_CHECK(out || result, "sdk_matmul: both out and result are NULL");
  set_result(result, matmul_impl(ta, tb, out, "sdk_matmul"));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_mv(const sdk_tensor* a, const sdk_tensor* x, sdk_tensor* out,
                          sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_mv";
  const TensorImpl& ta = checked(a, op, "a");
  const TensorImpl& tx = checked(x, op, "x");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  check_pair(ta, tx, op);
  check_cpu(ta, op, "a");
  SDK_VALUE_CHECK(ta.ndim == 2 && tx.ndim == 1, op,
                  ": expected a 2-D matrix and a 1-D vector, got shapes ", shape_str(ta), " and ",
                  shape_str(tx));
  if (ta.sizes[1] != tx.sizes[0]) shape_fail(ta, tx, op);
  const int64_t n = ta.sizes[0], k = ta.sizes[1];
  Shape shape{n};
  Ref y = result_target(out, shape, ta.dtype, ta.device(), &ta, &tx, nullptr, op);
  bool tr;
  int64_t lda;
  const bool blas_type = ta.dtype == SDK_FLOAT32 || ta.dtype == SDK_FLOAT64;
  if (n > 0 && k == 0) std::memset(y->data(), 0, size_t(n * y->itemsize()));
  if (n > 0 && k > 0 && blas_type) {
    Ref am = Ref::borrow(a);
    if (!blas_layout(n, k, ta.strides[0], ta.strides[1], tr, lda)) {
      am = contiguous(ta);
      blas_layout(n, k, am->strides[0], am->strides[1], tr, lda);
    }
    Ref xm = Ref::borrow(x);
    int64_t incx = k == 1 ? 1 : tx.strides[0];
    if (incx <= 0) {
      xm = contiguous(tx);
      incx = 1;
    }
    if (!tr) {
      blas::gemv(ta.dtype, false, n, k, 1.0, am->data(), lda, xm->data(), incx, 0.0, y->data(), 1);
    } else {
      blas::gemv(ta.dtype, true, k, n, 1.0, am->data(), lda, xm->data(), incx, 0.0, y->data(), 1);
    }
  } else if (n > 0 && k > 0) {
    int64_t sz[2] = {k, 1}, st[2] = {tx.strides[0], 0};
    Ref xv = make_view(tx, 2, sz, st, tx.offset);
    batched_gemm(as_batched(ta), as_batched(*xv), *y, 1, int_scalar(1), int_scalar(0), op);
  }
  set_result(result, finish_out(y, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_dot(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_dot";
  const TensorImpl& ta = checked(a, op, "a");
  const TensorImpl& tb = checked(b, op, "b");
  check_not_null(result, op, "result");
  check_pair(ta, tb, op);
  check_cpu(ta, op, "a");
  SDK_VALUE_CHECK(ta.ndim == 1 && tb.ndim == 1, op, ": expected 1-D tensors, got shapes ",
                  shape_str(ta), " and ", shape_str(tb));
  SDK_VALUE_CHECK(ta.sizes[0] == tb.sizes[0], op,
                  ": 1-D tensors must have the same size, got shapes ", shape_str(ta), " and ",
                  shape_str(tb));
  const int64_t n = ta.sizes[0];
  Ref r = make_tensor(0, nullptr, ta.dtype, ta.device());
  SDK_TYPE_CHECK(ta.dtype != SDK_BOOL, op, ": not implemented for bool tensors");
  if ((ta.dtype == SDK_FLOAT32 || ta.dtype == SDK_FLOAT64) && n > 0) {
    Ref am = Ref::borrow(a), bm = Ref::borrow(b);
    int64_t ia = n == 1 ? 1 : ta.strides[0], ib = n == 1 ? 1 : tb.strides[0];
    if (ia <= 0) am = contiguous(ta), ia = 1;
    if (ib <= 0) bm = contiguous(tb), ib = 1;
    double v = blas::dot(ta.dtype, n, am->data(), ia, bm->data(), ib);
    if (ta.dtype == SDK_FLOAT32) {
      *static_cast<float*>(r->data()) = float(v);
    } else {
      *static_cast<double*>(r->data()) = v;
    }
  } else {
    SDK_DISPATCH_ALL(ta.dtype, op, [&] {
      using Acc = std::conditional_t<std::is_integral_v<scalar_t>, int64_t,
                                     typename OpMath<scalar_t>::type>;
      const scalar_t* pa = static_cast<const scalar_t*>(ta.data());
      const scalar_t* pb = static_cast<const scalar_t*>(tb.data());
      // integers wrap as numpy's and torch's do: the sum is taken in unsigned arithmetic,
      // where overflow is defined
      using Sum = std::conditional_t<std::is_integral_v<scalar_t>, uint64_t, Acc>;
      Sum acc = 0;
      for (int64_t i = 0; i < n; ++i) {
        acc += static_cast<Sum>(convert<Acc>(pa[i * ta.strides[0]])) *
               static_cast<Sum>(convert<Acc>(pb[i * tb.strides[0]]));
      }
      *static_cast<scalar_t*>(r->data()) = convert<scalar_t>(static_cast<Acc>(acc));
    });
  }
  set_result(result, std::move(r));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
