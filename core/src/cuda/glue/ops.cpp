// core/src/cuda/glue/ops.cpp: elementwise problems, copies between devices, reductions and
// matmul on CUDA tensors, described for the backend's kernels; and sdk_to_device.
#include <atomic>
#include <cstring>

#include "cuda/glue/cuda_glue.h"
#include "dtype.h"
#include "elementwise.h"

namespace sdk::detail::cuda {
namespace {

void call(int rc) {
  if (rc != 0) throw_error(rc, backend().last_error());
}

// A scalar as an operand of dtype `d` (converted the way the CPU converts it).
sdk_cuda_operand scalar_operand(const sdk_scalar& s, sdk_dtype d) {
  sdk_cuda_operand o{};
  o.is_scalar = 1;
  o.dtype = d;
  SDK_DISPATCH_ALL(d, "cuda scalar", [&] {
    scalar_t v = scalar_as<scalar_t>(s);  // rounded to the dtype first, as on the CPU
    if (is_floating(d)) {
      o.f = cast_to<double>(v);
    } else {
      o.i = cast_to<int64_t>(v);
    }
  });
  return o;
}

// Builds an sdk_cuda_iter over out's shape; inputs broadcast to it; dims merged when every
// operand is contiguous across them.
class IterBuilder {
 public:
  IterBuilder(TensorImpl& out, const char* op) : op_(op), out_(out) {
    SDK_REQUIRE(out.ndim <= kIterMaxDims, SDK_ERROR_VALUE, op, ": too many dims");
    nd_ = out.ndim;
    for (int64_t d = 0; d < nd_; ++d) sizes_[d] = out.sizes[d];
    add_strided(out);
  }
  void add(const TensorImpl& t) {
    SDK_REQUIRE(t.device().type == SDK_CUDA && t.device().index == out_.device().index,
                SDK_ERROR_RUNTIME, op_, ": all operands must be on the output's CUDA device");
    add_strided(t);
  }
  void add_scalar(const sdk_cuda_operand& o) { ops_[nops_++] = Op{o, {}}; }
  void params(bool has_p0, double p0, bool has_p1, double p1, double p2 = 0.0) {
    it_.has_p0 = has_p0, it_.p0 = p0, it_.has_p1 = has_p1, it_.p1 = p1, it_.p2 = p2;
  }
  // The merged problem; numel 0 when there is nothing to do.
  const sdk_cuda_iter& build() {
    it_.nops = nops_;
    it_.device = out_.device().index;
    it_.numel = out_.numel;
    // Drop size-1 dims, then merge a dim into its inner neighbour where strides allow.
    int64_t sz[kIterMaxDims];
    int64_t st[SDK_CUDA_MAX_OPERANDS][kIterMaxDims];
    int n = 0;
    for (int64_t d = 0; d < nd_; ++d) {
      if (sizes_[d] == 1) continue;
      sz[n] = sizes_[d];
      for (int k = 0; k < nops_; ++k) st[k][n] = ops_[k].strides[d];
      ++n;
    }
    int m = 0;  // merged dims, outermost first, built in place
    for (int d = 0; d < n; ++d) {
      if (m > 0) {
        bool merge = true;
        for (int k = 0; k < nops_ && merge; ++k) {
          if (ops_[k].op.is_scalar) continue;
          merge = st[k][m - 1] == st[k][d] * sz[d];
        }
        if (merge) {
          sz[m - 1] *= sz[d];
          for (int k = 0; k < nops_; ++k) st[k][m - 1] = st[k][d];
          continue;
        }
      }
      sz[m] = sz[d];
      for (int k = 0; k < nops_; ++k) st[k][m] = st[k][d];
      ++m;
    }
    SDK_REQUIRE(m <= SDK_CUDA_MAX_DIMS, SDK_ERROR_NOT_IMPLEMENTED, op_,
                ": CUDA tensors with more than ", SDK_CUDA_MAX_DIMS,
                " non-mergeable dims are not supported; make them contiguous first");
    it_.ndim = m;
    for (int d = 0; d < m; ++d) it_.sizes[d] = sz[d];
    for (int k = 0; k < nops_; ++k) {
      it_.ops[k] = ops_[k].op;
      for (int d = 0; d < m; ++d) it_.ops[k].strides[d] = ops_[k].op.is_scalar ? 0 : st[k][d];
    }
    return it_;
  }

 private:
  struct Op {
    sdk_cuda_operand op;
    int64_t strides[kIterMaxDims];
  };
  void add_strided(const TensorImpl& t) {
    SDK_REQUIRE(nops_ < SDK_CUDA_MAX_OPERANDS, SDK_ERROR_RUNTIME, op_, ": too many operands");
    Op& o = ops_[nops_++];
    o.op = sdk_cuda_operand{};
    o.op.data = static_cast<char*>(t.data());
    o.op.dtype = t.dtype;
    int64_t isz = itemsize(t.dtype);
    int64_t lead = nd_ - t.ndim;
    SDK_REQUIRE(lead >= 0, SDK_ERROR_VALUE, op_, ": operand of shape ", shape_str(t),
                " has more dims than the result ", sizes_str(nd_, sizes_));
    for (int64_t d = 0; d < nd_; ++d) {
      if (d < lead) {
        o.strides[d] = 0;
        continue;
      }
      int64_t s = t.sizes[d - lead];
      SDK_REQUIRE(s == sizes_[d] || s == 1, SDK_ERROR_VALUE, op_, ": operand of shape ",
                  shape_str(t), " does not broadcast to ", sizes_str(nd_, sizes_));
      o.strides[d] = (s == 1 && sizes_[d] != 1) ? 0 : t.strides[d - lead] * isz;
    }
  }

  const char* op_;
  TensorImpl& out_;
  int64_t nd_ = 0;
  int64_t sizes_[kIterMaxDims];
  Op ops_[SDK_CUDA_MAX_OPERANDS];
  int nops_ = 0;
  sdk_cuda_iter it_{};
};

int32_t host() { return -1; }

void memcpy_between(void* dst, int32_t dst_dev, const void* src, int32_t src_dev, int64_t n) {
  call(backend().memcpy(dst, dst_dev, src, src_dev, n));
}

bool same_layout_contiguous(const TensorImpl& a, const TensorImpl& b) {
  return a.dtype == b.dtype && a.contiguous && b.contiguous && same_shape(a, b);
}

// dst <- src, both on dst's CUDA device.
void copy_on_device(TensorImpl& dst, const TensorImpl& src) {
  if (dst.numel == 0) return;
  if (same_layout_contiguous(dst, src)) {
    memcpy_between(dst.data(), dst.device().index, src.data(), src.device().index,
                   dst.numel * dst.itemsize());
    return;
  }
  IterBuilder b(dst, "copy_");
  b.add(src);
  call(backend().copy(&b.build()));
}

}  // namespace

void copy_into(TensorImpl& dst, const TensorImpl& src) {
  if (dst.numel == 0) return;
  backend();
  sdk_device dd = dst.device(), sd = src.device();
  if (dd.type == SDK_CUDA && sd.type == SDK_CUDA) {
    if (dd.index == sd.index) return copy_on_device(dst, src);
    Ref moved = to_device(src, dd);
    return copy_on_device(dst, *moved);
  }
  if (dd.type == SDK_CUDA) {
    // host -> device: broadcast and cast on the host, one transfer, then a device copy
    // only when dst is strided.
    Ref staged = make_tensor(dst.ndim, dst.sizes, dst.dtype, sdk_device{SDK_CPU, 0});
    ::sdk::detail::copy_into(*staged, src);
    if (dst.contiguous) {
      memcpy_between(dst.data(), dd.index, staged->data(), host(), dst.numel * dst.itemsize());
    } else {
      Ref dev = make_tensor(dst.ndim, dst.sizes, dst.dtype, dd);
      memcpy_between(dev->data(), dd.index, staged->data(), host(), dst.numel * dst.itemsize());
      copy_on_device(dst, *dev);
    }
    return;
  }
  // device -> host: broadcast and cast on the device, one transfer, then a host copy only
  // when dst is strided.
  Ref dev = make_tensor(dst.ndim, dst.sizes, dst.dtype, sd);
  copy_on_device(*dev, src);
  if (dst.contiguous) {
    memcpy_between(dst.data(), host(), dev->data(), sd.index, dst.numel * dst.itemsize());
  } else {
    Ref staged = make_tensor(dst.ndim, dst.sizes, dst.dtype, sdk_device{SDK_CPU, 0});
    memcpy_between(staged->data(), host(), dev->data(), sd.index, dst.numel * dst.itemsize());
    ::sdk::detail::copy_into(dst, *staged);
  }
}

void fill(TensorImpl& t, const sdk_scalar& v) {
  if (t.numel == 0) return;
  IterBuilder b(t, "fill_");
  b.add_scalar(scalar_operand(v, t.dtype));
  call(backend().copy(&b.build()));
}

Ref to_device(const TensorImpl& t, sdk_device d) {
  sdk_device s = t.device();
  if (s.type == d.type && (d.type == SDK_CPU || s.index == d.index)) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  if (d.type == SDK_CUDA) check_device(d, "to");
  if (s.type == SDK_CUDA) backend();
  Ref r = make_tensor(t.ndim, t.sizes, t.dtype, d);
  if (t.numel == 0) return r;
  int64_t nbytes = t.numel * t.itemsize();
  int32_t dst_dev = d.type == SDK_CUDA ? d.index : host();
  if (s.type == SDK_CPU) {
    Ref c = t.contiguous ? Ref::borrow(to_handle(const_cast<TensorImpl*>(&t))) : contiguous_copy(t);
    memcpy_between(r->data(), dst_dev, c->data(), host(), nbytes);
  } else {
    Ref c = Ref::borrow(to_handle(const_cast<TensorImpl*>(&t)));
    if (!t.contiguous) {
      c = make_tensor(t.ndim, t.sizes, t.dtype, s);
      copy_on_device(*c, t);
    }
    memcpy_between(r->data(), dst_dev, c->data(), s.index, nbytes);
  }
  return r;
}

void unary_params(int op, TensorImpl& out, const TensorImpl& in, bool has_p0, double p0,
                  bool has_p1, double p1, double p2) {
  if (out.numel == 0) return;
  IterBuilder b(out, "unary");
  b.add(in);
  b.params(has_p0, p0, has_p1, p1, p2);
  call(backend().unary(op, &b.build()));
}

void unary(int op, TensorImpl& out, const TensorImpl& in) {
  unary_params(op, out, in, false, 0.0, false, 0.0);
}

void binary(int op, TensorImpl& out, const TensorImpl& a, const TensorImpl& b, double p0,
            double p1) {
  if (out.numel == 0) return;
  IterBuilder ib(out, "binary");
  ib.add(a);
  ib.add(b);
  ib.params(true, p0, true, p1);
  call(backend().binary(op, &ib.build()));
}

void binary_scalar(int op, TensorImpl& out, const TensorImpl& a, const sdk_scalar& s,
                   sdk_dtype compute, bool scalar_first) {
  if (out.numel == 0) return;
  IterBuilder ib(out, "binary");
  if (scalar_first) {
    ib.add_scalar(scalar_operand(s, compute));
    ib.add(a);
  } else {
    ib.add(a);
    ib.add_scalar(scalar_operand(s, compute));
  }
  call(backend().binary(op, &ib.build()));
}

void where(TensorImpl& out, const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b) {
  if (out.numel == 0) return;
  IterBuilder ib(out, "where");
  ib.add(cond);
  ib.add(a);
  ib.add(b);
  call(backend().where(&ib.build()));
}

void ternary(int op, TensorImpl& out, const TernaryInput (&in)[3], sdk_dtype compute, double p0) {
  if (out.numel == 0) return;
  IterBuilder ib(out, "ternary");
  for (const TernaryInput& x : in) {
    if (x.tensor) {
      ib.add(*x.tensor);
    } else {
      ib.add_scalar(scalar_operand(x.scalar, compute));
    }
  }
  ib.params(true, p0, false, 0.0);
  call(backend().ternary(op, &ib.build()));
}

void masked_fill(TensorImpl& out, const TensorImpl& t, const TensorImpl& mask,
                 const sdk_scalar& v) {
  if (out.numel == 0) return;
  IterBuilder ib(out, "masked_fill");
  ib.add(mask);
  ib.add_scalar(scalar_operand(v, t.dtype));
  ib.add(t);
  call(backend().where(&ib.build()));
}

void reduce(int op, const TensorImpl& x, const std::vector<bool>& mask, TensorImpl& acc) {
  check_same_device("reduce", {&x, &acc});
  sdk_cuda_reduce_desc d{};
  d.op = op;
  d.device = x.device().index;
  d.in = static_cast<const char*>(x.data());
  d.out = static_cast<char*>(acc.data());
  d.in_dtype = x.dtype;
  d.out_dtype = acc.dtype;
  d.out_numel = 1;
  d.red_numel = 1;
  int64_t isz = x.itemsize();
  for (int64_t dim = 0; dim < x.ndim; ++dim) {
    bool red = dim < static_cast<int64_t>(mask.size()) && mask[dim];
    int32_t& n = red ? d.red_ndim : d.out_ndim;
    SDK_REQUIRE(n < SDK_CUDA_MAX_DIMS, SDK_ERROR_NOT_IMPLEMENTED,
                "reduce: too many dims for a CUDA reduction");
    if (red) {
      d.red_sizes[n] = x.sizes[dim];
      d.in_red_strides[n] = x.strides[dim] * isz;
      d.red_numel *= x.sizes[dim];
    } else {
      d.out_sizes[n] = x.sizes[dim];
      d.in_out_strides[n] = x.strides[dim] * isz;
      d.out_numel *= x.sizes[dim];
    }
    ++n;
  }
  SDK_REQUIRE(acc.contiguous && acc.numel == d.out_numel, SDK_ERROR_RUNTIME,
              "reduce: internal error: accumulator layout");
  // acc is contiguous over the kept dims in order.
  int64_t s = acc.itemsize();
  for (int32_t k = d.out_ndim - 1; k >= 0; --k) {
    d.out_strides[k] = s;
    s *= d.out_sizes[k];
  }
  if (d.out_numel == 0) return;
  call(backend().reduce(&d));
}

void scan(int op, TensorImpl& out, const TensorImpl& in, int64_t outer, int64_t n, int64_t inner) {
  check_same_device(op == SDK_PROD ? "cumprod" : "cumsum", {&out, &in});
  SDK_REQUIRE(out.contiguous && in.contiguous && out.dtype == in.dtype, SDK_ERROR_RUNTIME,
              "cuda scan: expected contiguous operands of one dtype");
  sdk_cuda_scan_desc d{};
  d.op = op;
  d.device = out.device().index;
  d.dtype = out.dtype;
  d.outer = outer;
  d.n = n;
  d.inner = inner;
  d.in = static_cast<const char*>(in.data());
  d.out = static_cast<char*>(out.data());
  if (out.numel == 0) return;
  call(backend().scan(&d));
}

// c, a, b: the first product's 2-D views; `batch` products in all, a's and b's further ones
// a_bs and b_bs elements apart (0 repeats one), c's contiguous after c.
void gemm(TensorImpl& c, const TensorImpl& a, const TensorImpl& b, double alpha, double beta,
          int64_t batch, int64_t a_bs, int64_t b_bs) {
  check_same_device("mm", {&c, &a, &b});
  SDK_REQUIRE(a.ndim == 2 && b.ndim == 2 && c.ndim == 2, SDK_ERROR_VALUE,
              "mm: CUDA gemm expects 2-D operands");
  SDK_TYPE_CHECK(is_floating(a.dtype) && a.dtype == b.dtype && b.dtype == c.dtype,
                 "mm: CUDA matmul needs one floating dtype, got ", dtype_name(a.dtype), ", ",
                 dtype_name(b.dtype), " and ", dtype_name(c.dtype));
  sdk_cuda_gemm_desc d{};
  d.dtype = a.dtype;
  d.device = a.device().index;
  d.m = a.sizes[0];
  d.k = a.sizes[1];
  d.n = b.sizes[1];
  d.a = static_cast<const char*>(a.data());
  d.a_rs = a.strides[0];
  d.a_cs = a.strides[1];
  d.b = static_cast<const char*>(b.data());
  d.b_rs = b.strides[0];
  d.b_cs = b.strides[1];
  d.c = static_cast<char*>(c.data());
  d.c_rs = c.strides[0];
  d.c_cs = c.strides[1];
  d.alpha = alpha;
  d.beta = beta;
  d.allow_tf32 = allow_tf32() ? 1 : 0;
  d.batch = batch;
  d.a_bs = a_bs;
  d.b_bs = b_bs;
  d.c_bs = d.m * d.n;
  if (d.m == 0 || d.n == 0 || batch == 0) return;
  call(backend().gemm(&d));
}

namespace {
std::atomic<bool> g_allow_tf32{false};
}  // namespace
bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

bool has_zero(const TensorImpl& t) {
  Ref host_copy = to_device(t, sdk_device{SDK_CPU, 0});
  bool found = false;
  SDK_DISPATCH_ALL(t.dtype, "has_zero", [&] {
    Ref c = host_copy->contiguous ? host_copy : contiguous_copy(*host_copy);
    const scalar_t* p = static_cast<const scalar_t*>(c->data());
    for (int64_t i = 0; i < c->numel && !found; ++i) found = cast_to<bool>(p[i]) == false;
  });
  return found;
}

}  // namespace sdk::detail::cuda

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_to_device(const sdk_tensor* t, sdk_device device, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const TensorImpl& x = checked(t, "sdk_to_device", "t");
  check_not_null(result, "sdk_to_device", "result");
  if (device.type != SDK_CPU && device.type != SDK_CUDA) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_to_device: unknown device type ", device.type);
  }
  if (device.type == SDK_CPU) device.index = 0;
  *result = cuda::to_device(x, device).release_handle();
  SDK_SAFE_CALL_END;
}

}  // extern "C"
