// core/src/index.cpp: index_select, gather, advanced index/index_put_, nonzero (scatter_add_
// and index_add_ are with the other scatters in scatter.cpp).
#include "index_util.h"

namespace sdk::detail::k2 {
namespace {

Ref index_select_impl(const TensorImpl& t, int64_t dim, const TensorImpl& index, sdk_tensor* out,
                      const char* op) {
  check_cpu(t, op, "t");
  check_index_dtype(index, op, "index");
  SDK_VALUE_CHECK(index.ndim <= 1, op, ": index must be 1-D or 0-d, got shape ", shape_str(index));
  const int64_t d = wrap_dim(dim, t.ndim, op);
  std::vector<int64_t> idx = read_index(index);
  const int64_t size = t.ndim == 0 ? 1 : t.sizes[d];
  for (int64_t i : idx) check_range(i, size, d, op);
  Shape shape = shape_of(t);
  if (t.ndim > 0) {
    shape[d] = int64_t(idx.size());
  } else {
    SDK_VALUE_CHECK(idx.size() == 1, op, ": a 0-d input takes exactly one index");
  }
  Ref res = make_tensor(shape, t.dtype, t.device());
  if (res->numel > 0) {
    Ref c = contiguous(t);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < t.ndim; ++k) {
      if (k < d) outer *= t.sizes[k];
      if (k > d) inner *= t.sizes[k];
    }
    const int64_t isz = t.itemsize(), len = int64_t(idx.size()), blk = inner * isz;
    const char* src = static_cast<const char*>(c->data());
    char* dst = static_cast<char*>(res->data());
    parallel_for(0, outer, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, len * blk)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o) {
                     for (int64_t i = 0; i < len; ++i) {
                       char* dp = dst + (o * len + i) * blk;
                       const char* sp = src + (o * size + idx[i]) * blk;
                       if (inner == 1) {
                         copy_elem(dp, sp, isz);
                       } else {
                         std::memcpy(dp, sp, size_t(blk));
                       }
                     }
                   }
                 });
  }
  return finish_out(res, out, op);
}

Ref gather_impl(const TensorImpl& t, int64_t dim, const TensorImpl& index, sdk_tensor* out,
                const char* op) {
  check_cpu(t, op, "t");
  check_index_dtype(index, op, "index");
  const int64_t d = wrap_dim(dim, t.ndim, op);
  check_gather_shapes(t, d, index, nullptr, op);
  Ref res = make_tensor(index.ndim, index.sizes, t.dtype, t.device());
  if (res->numel == 0) return finish_out(res, out, op);
  const int64_t size = t.ndim == 0 ? 1 : t.sizes[d];
  const int64_t dstride = (t.ndim == 0 ? 0 : t.strides[d]) * t.itemsize();
  const int64_t isz = t.itemsize();
  walk_gather(index, *res, t, d, [=](int64_t v, char* pr, char* pt) {
    check_range(v, size, d, op);
    copy_elem(pr, pt + v * dstride, isz);
  });
  return finish_out(res, out, op);
}

// Advanced indexing: offsets (elements, in t's strides) of the indexed
// blocks, in row-major order of the broadcast index shape.
struct Advanced {
  Shape index_shape;  // broadcast shape of the index tensors
  std::vector<int64_t> offsets;
};

Advanced advanced_offsets(const TensorImpl& t, int64_t n, const sdk_tensor* const* indices,
                          const char* op) {
  SDK_INDEX_CHECK(n >= 0 && n <= t.ndim, op, ": too many indices for a tensor of dimension ",
                  t.ndim, " (got ", n, ")");
  SDK_VALUE_CHECK(n == 0 || indices, op, ": argument 'indices' is NULL");
  std::vector<const TensorImpl*> idx;
  Advanced a;
  for (int64_t k = 0; k < n; ++k) {
    SDK_VALUE_CHECK(indices[k], op, ": indices[", k, "] is NULL");
    const TensorImpl& i = *to_impl(indices[k]);
    check_index_dtype(i, op, "indices");
    idx.push_back(&i);
    // numpy broadcast of the index shapes
    Shape s = shape_of(i), r = a.index_shape;
    size_t nd = std::max(s.size(), r.size());
    Shape b(nd, 1);
    for (size_t j = 0; j < nd; ++j) {
      int64_t x = j + s.size() >= nd ? s[j + s.size() - nd] : 1;
      int64_t y = j + r.size() >= nd ? r[j + r.size() - nd] : 1;
      if (x != y && x != 1 && y != 1) {
        std::string shapes;
        for (const TensorImpl* p : idx) shapes += (shapes.empty() ? "" : ", ") + shape_str(*p);
        SDK_FAIL(SDK_ERROR_VALUE, op,
                 ": shape mismatch: indexing tensors could not be broadcast together with shapes ",
                 shapes);
      }
      b[j] = x == 1 ? y : x;
    }
    a.index_shape = b;
  }
  int64_t count = 1;
  for (int64_t s : a.index_shape) count *= s;
  a.offsets.assign(size_t(count), t.offset);
  for (int64_t k = 0; k < n; ++k) {
    Ref e = expand_to(*idx[k], a.index_shape, op, "index");
    Ref c = make_tensor(a.index_shape, SDK_INT64, t.device());
    cast_copy(*e, *c);
    const int64_t* v = static_cast<const int64_t*>(c->data());
    const int64_t size = t.sizes[k], stride = t.strides[k];
    for (int64_t p = 0; p < count; ++p) {
      int64_t x = v[p];
      SDK_INDEX_CHECK(x >= -size && x < size, op, ": index ", x, " is out of bounds for dimension ",
                      k, " with size ", size);
      a.offsets[p] += (x < 0 ? x + size : x) * stride;
    }
  }
  return a;
}

Ref index_impl(const TensorImpl& t, int64_t n, const sdk_tensor* const* indices, const char* op) {
  check_cpu(t, op, "t");
  Advanced a = advanced_offsets(t, n, indices, op);
  Shape shape = a.index_shape;
  for (int64_t k = n; k < t.ndim; ++k) shape.push_back(t.sizes[k]);
  Ref res = make_tensor(shape, t.dtype, t.device());
  if (res->numel == 0) return res;
  // Each indexed block has t's trailing dims: copy it as a strided view.
  const int64_t isz = t.itemsize();
  Shape tsz(t.sizes + n, t.sizes + t.ndim), tst(t.strides + n, t.strides + t.ndim);
  int64_t inner = 1;
  for (int64_t s : tsz) inner *= s;
  bool trail_contig = compute_contiguous(int64_t(tsz.size()), tsz.data(), tst.data());
  char* dst = static_cast<char*>(res->data());
  const char* base = static_cast<const char*>(t.storage->data);
  for (size_t p = 0; p < a.offsets.size(); ++p) {
    char* dp = dst + int64_t(p) * inner * isz;
    if (trail_contig) {
      std::memcpy(dp, base + a.offsets[p] * isz, size_t(inner * isz));
    } else {
      Ref src = make_view(t, int64_t(tsz.size()), tsz.data(), tst.data(), a.offsets[p]);
      Ref d = make_view(*res, int64_t(tsz.size()), tsz.data(), nullptr,
                        res->offset + int64_t(p) * inner);
      cast_copy(*src, *d);
    }
  }
  return res;
}

void index_put(TensorImpl& t, int64_t n, const sdk_tensor* const* indices, const TensorImpl& values,
               bool accumulate, const char* op) {
  check_cpu(t, op, "t");
  check_writable(t, op);
  check_cpu(values, op, "values");
  Advanced a = advanced_offsets(t, n, indices, op);
  Shape shape = a.index_shape;
  for (int64_t k = n; k < t.ndim; ++k) shape.push_back(t.sizes[k]);
  Ref vexp = expand_to(values, shape, op, "value tensor");
  // values are cast to t's dtype in a fresh buffer (this also breaks aliasing with t).
  Ref vals = make_tensor(shape, t.dtype, t.device());
  cast_copy(*vexp, *vals);
  if (vals->numel > 0) {
    const int64_t isz = t.itemsize();
    Shape tsz(t.sizes + n, t.sizes + t.ndim), tst(t.strides + n, t.strides + t.ndim);
    Shape tbs(tst);
    for (int64_t& s : tbs) s *= isz;
    Shape vbs(tsz.size());
    int64_t inner = 1;
    for (int64_t k = int64_t(tsz.size()) - 1; k >= 0; --k) {
      vbs[k] = inner * isz;
      inner *= tsz[k];
    }
    char* base = static_cast<char*>(t.storage->data);
    const char* vp = static_cast<const char*>(vals->data());
    SDK_DISPATCH_ALL(t.dtype, op, [&] {
      using A = typename OpMath<scalar_t>::type;
      for (size_t p = 0; p < a.offsets.size(); ++p) {
        const int64_t* strides[2] = {tbs.data(), vbs.data()};
        char* bases[2] = {base + a.offsets[p] * isz,
                          const_cast<char*>(vp) + int64_t(p) * inner * isz};
        nd_loop_erased<2>(
            int64_t(tsz.size()), tsz.data(), strides, bases,
            [accumulate](char* const* q, int64_t cnt, const int64_t* st) {
              for (int64_t j = 0; j < cnt; ++j) {
                scalar_t* dq = reinterpret_cast<scalar_t*>(q[0] + j * st[0]);
                const scalar_t* sq = reinterpret_cast<const scalar_t*>(q[1] + j * st[1]);
                *dq = accumulate ? convert<scalar_t>(convert<A>(*dq) + convert<A>(*sq)) : *sq;
              }
            });
      }
    });
  }
  t.bump_version();
}

template <typename T>
void nonzero_fill(const TensorImpl& c, int64_t* out) {
  const T* p = static_cast<const T*>(c.data());
  const int64_t nd = c.ndim;
  std::vector<int64_t> coord(size_t(nd), 0);
  for (int64_t i = 0; i < c.numel; ++i) {
    if (convert<bool>(p[i])) {
      for (int64_t k = 0; k < nd; ++k) *out++ = coord[k];
    }
    for (int64_t k = nd - 1; k >= 0; --k) {
      if (++coord[k] < c.sizes[k]) break;
      coord[k] = 0;
    }
  }
}

Ref nonzero_impl(const TensorImpl& t, const char* op) {
  check_cpu(t, op, "t");
  Ref c = contiguous(t);
  int64_t count = 0;
  SDK_DISPATCH_ALL(t.dtype, op, [&] {
    const scalar_t* p = static_cast<const scalar_t*>(c->data());
    for (int64_t i = 0; i < c->numel; ++i) count += convert<bool>(p[i]) ? 1 : 0;
  });
  Shape shape{count, t.ndim};
  Ref res = make_tensor(shape, SDK_INT64, t.device());
  if (count > 0 && t.ndim > 0) {
    SDK_DISPATCH_ALL(t.dtype, op,
                     [&] { nonzero_fill<scalar_t>(*c, static_cast<int64_t*>(res->data())); });
  }
  return res;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_index_select(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                    sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_index_select";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, index_select_impl(tt, dim, ti, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_gather(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                              sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_gather";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, gather_impl(tt, dim, ti, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_index(const sdk_tensor* t, int64_t n, const sdk_tensor* const* indices,
                             sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_index";
  const TensorImpl& tt = checked(t, op, "t");
  check_not_null(result, op, "result");
  set_result(result, index_impl(tt, n, indices, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_index_put_(sdk_tensor* t, int64_t n, const sdk_tensor* const* indices,
                                  const sdk_tensor* values, int32_t accumulate) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_index_put_";
  index_put(const_cast<TensorImpl&>(checked(t, op, "t")), n, indices, checked(values, op, "values"),
            accumulate != 0, op);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_nonzero(const sdk_tensor* t, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_nonzero";
  const TensorImpl& tt = checked(t, op, "t");
  check_not_null(result, op, "result");
  set_result(result, nonzero_impl(tt, op));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
