// core/src/scatter.cpp: scatter, scatter_add_, scatter_reduce, index_add_, index_copy,
// index_fill, masked_select, masked_scatter, take and repeat_interleave.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "bits.h"
#include "index_util.h"

namespace sdk::detail::k2 {
namespace {

// Where an op with `out` writes (c_api.h, "Scatter and friends"): t itself in place
// (out == t), else a fresh copy of t that finish() delivers through out.
struct Target {
  Ref r;
  bool inplace = false;
};

Target fresh_target(const TensorImpl& t) {
  Ref r = make_tensor(t.ndim, t.sizes, t.dtype, t.device());
  cast_copy(t, *r);
  return {r, false};
}

Target target_of(const TensorImpl& t, sdk_tensor* out, const char* op) {
  if (out && to_impl(out) == &t) {
    check_writable(t, op);
    check_no_internal_overlap(t, op);
    return {Ref::borrow(out), true};
  }
  return fresh_target(t);
}

Ref finish(Target& tg, sdk_tensor* out, const char* op) {
  if (out && to_impl(out) == tg.r.get()) {
    tg.r->bump_version();
    return tg.r;
  }
  return finish_out(tg.r, out, op);
}

// `src` itself, or a copy when it shares memory with the tensor being written in place.
Ref unaliased(const TensorImpl& src, const Target& tg) {
  if (tg.inplace && src.storage == tg.r->storage) {
    Ref c = make_tensor(src.ndim, src.sizes, src.dtype, src.device());
    cast_copy(src, *c);
    return c;
  }
  return Ref::borrow(to_handle(const_cast<TensorImpl*>(&src)));
}

void check_same_dtype(const TensorImpl& t, const TensorImpl& src, const char* op, const char* arg) {
  SDK_TYPE_CHECK(t.dtype == src.dtype, op, ": expected ", arg,
                 " to have the dtype of the input, got ", describe(src), " and ", describe(t));
}

// A tensor of `shape` whose every element is `value` (one element, stride 0 everywhere).
Ref value_tensor(const sdk_scalar& value, sdk_dtype dtype, const TensorImpl& shape_like,
                 const char* op) {
  check_scalar(value, op, "value");
  check_fill_value(value, dtype, op);
  Ref one = make_tensor(0, nullptr, dtype, shape_like.device());
  fill_tensor(*one, value);
  Shape zeros(size_t(shape_like.ndim), 0);
  return make_view(*one, shape_like.ndim, shape_like.sizes, zeros.data(), 0);
}

// torch's shape rule of scatter: index has t's (and src's) number of dims, and is no
// larger than src anywhere, nor than t outside dim d. An empty index is a no-op.
void check_scatter_shapes(const TensorImpl& t, int64_t d, const TensorImpl& index,
                          const TensorImpl& src, const char* op) {
  if (index.numel == 0) return;
  SDK_VALUE_CHECK(index.ndim == t.ndim && src.ndim == t.ndim, op,
                  ": index and src must have as many dims as the input, got shapes ",
                  shape_str(index), ", ", shape_str(src), " and ", shape_str(t));
  for (int64_t k = 0; k < t.ndim; ++k) {
    SDK_VALUE_CHECK(k == d || index.sizes[k] <= t.sizes[k], op, ": index of shape ",
                    shape_str(index), " is larger than the input of shape ", shape_str(t),
                    " in dim ", k);
    SDK_VALUE_CHECK(index.sizes[k] <= src.sizes[k], op, ": index of shape ", shape_str(index),
                    " is larger than src of shape ", shape_str(src), " in dim ", k);
  }
}

void check_all_in_range(const TensorImpl& index, int64_t size, int64_t d, const char* op) {
  for (int64_t v : read_index(index)) check_range(v, size, d, op);
}

// fn(dst, s) for every index position: dst is the element of `target` that the index
// value names along d, s the element of `src` at the position. Lines along d run in
// parallel: positions that differ outside d never share a destination.
template <typename F>
void scatter_walk(TensorImpl& target, int64_t d, const TensorImpl& index, const TensorImpl& src,
                  const F& fn) {
  LineGrid<3> g({&index, &src, &target}, d);
  const int64_t n = size_along(index, d);
  const bool i64 = index.dtype == SDK_INT64;
  const char* ib = static_cast<const char*>(index.data());
  const char* sb = static_cast<const char*>(src.data());
  char* tb = static_cast<char*>(target.data());
  const std::array<int64_t, 3> along = g.along;
  // By value: the stores through char pointers below could alias anything captured by reference.
  parallel_grid<3>(g.sizes, g.stride_ptrs(), n, [=, &fn](const int64_t* off, int64_t) {
    const F f = fn;
    for (int64_t j = 0; j < n; ++j) {
      const char* ip = ib + off[0] + j * along[0];
      const int64_t v =
          i64 ? *reinterpret_cast<const int64_t*>(ip) : *reinterpret_cast<const int32_t*>(ip);
      f(tb + off[2] + v * along[2], sb + off[1] + j * along[1]);
    }
  });
}

void scatter_add(TensorImpl& t, int64_t dim, const TensorImpl& index, const TensorImpl& src,
                 const char* op) {
  check_cpu(t, op, "t");
  check_writable(t, op);
  check_cpu(src, op, "src");
  check_index_dtype(index, op, "index");
  SDK_TYPE_CHECK(t.dtype == src.dtype, op, ": expected t and src to have the same dtype, got ",
                 describe(t), " and ", describe(src));
  const int64_t d = wrap_dim(dim, t.ndim, op);
  SDK_VALUE_CHECK(src.ndim == t.ndim, op,
                  ": src must have the same number of dimensions as t, got shapes ", shape_str(src),
                  " and ", shape_str(t));
  check_gather_shapes(t, d, index, &src, op);
  if (index.numel == 0) return;
  const int64_t size = t.ndim == 0 ? 1 : t.sizes[d];
  for (int64_t v : read_index(index)) check_range(v, size, d, op);  // no partial update
  const int64_t dstride = (t.ndim == 0 ? 0 : t.strides[d]) * t.itemsize();
  SDK_DISPATCH_ALL(t.dtype, op, [&] {
    using A = typename OpMath<scalar_t>::type;
    walk_gather(index, src, t, d, [dstride](int64_t v, char* ps, char* pt) {
      scalar_t* q = reinterpret_cast<scalar_t*>(pt + v * dstride);
      *q = convert<scalar_t>(convert<A>(*q) + convert<A>(*reinterpret_cast<scalar_t*>(ps)));
    });
  });
  t.bump_version();
}

void index_add(TensorImpl& t, int64_t dim, const TensorImpl& index, const TensorImpl& src,
               const char* op) {
  check_cpu(t, op, "t");
  check_writable(t, op);
  check_cpu(src, op, "src");
  check_index_dtype(index, op, "index");
  SDK_VALUE_CHECK(index.ndim <= 1, op, ": index must be 1-D or 0-d, got shape ", shape_str(index));
  SDK_TYPE_CHECK(t.dtype == src.dtype, op, ": expected t and src to have the same dtype, got ",
                 describe(t), " and ", describe(src));
  const int64_t d = wrap_dim(dim, t.ndim, op);
  std::vector<int64_t> idx = read_index(index);
  Shape want = shape_of(t);
  if (t.ndim > 0) want[d] = int64_t(idx.size());
  bool ok = shape_of(src) == want || (index.ndim == 0 && t.ndim > 0 && src.ndim == t.ndim - 1);
  SDK_VALUE_CHECK(ok, op, ": src of shape ", shape_str(src), " does not match t of shape ",
                  shape_str(t), " with dim ", d, " replaced by the ", idx.size(), " indices");
  const int64_t size = t.ndim == 0 ? 1 : t.sizes[d];
  for (int64_t v : idx) check_range(v, size, d, op);
  // The dims other than d, with the strides of t and of src.
  Shape rs, ts, ss;
  const Shape tb = byte_strides(t);
  Shape sb = byte_strides(src);
  if (src.ndim == t.ndim - 1 && t.ndim > 0) sb.insert(sb.begin() + d, 0);
  for (int64_t k = 0; k < t.ndim; ++k) {
    if (k == d) continue;
    rs.push_back(t.sizes[k]);
    ts.push_back(tb[k]);
    ss.push_back(sb[k]);
  }
  const int64_t tdst = t.ndim ? tb[d] : 0, sdst = t.ndim ? sb[d] : 0;
  SDK_DISPATCH_ALL(t.dtype, op, [&] {
    using A = typename OpMath<scalar_t>::type;
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t* strides[2] = {ts.data(), ss.data()};
      char* bases[2] = {static_cast<char*>(t.data()) + idx[i] * tdst,
                        static_cast<char*>(src.data()) + int64_t(i) * sdst};
      nd_loop_erased<2>(int64_t(rs.size()), rs.data(), strides, bases,
                        [](char* const* p, int64_t n, const int64_t* st) {
                          for (int64_t j = 0; j < n; ++j) {
                            scalar_t* q = reinterpret_cast<scalar_t*>(p[0] + j * st[0]);
                            const scalar_t* s = reinterpret_cast<const scalar_t*>(p[1] + j * st[1]);
                            *q = convert<scalar_t>(convert<A>(*q) + convert<A>(*s));
                          }
                        });
    }
  });
  t.bump_version();
}

// scatter with src, or with `value` when src is null.
Ref scatter_impl(const TensorImpl& t, int64_t dim, const TensorImpl& index, const TensorImpl* src,
                 const sdk_scalar& value, sdk_tensor* out, const char* op) {
  check_cpu(t, op, "t");
  check_index_dtype(index, op, "index");
  const int64_t d = wrap_dim(dim, t.ndim, op);
  Ref s;
  if (src) {
    check_cpu(*src, op, "src");
    check_same_dtype(t, *src, op, "src");
    s = Ref::borrow(to_handle(const_cast<TensorImpl*>(src)));
  } else {
    s = value_tensor(value, t.dtype, index, op);
  }
  check_scatter_shapes(t, d, index, *s, op);
  check_all_in_range(index, size_along(t, d), d, op);
  Target tg = target_of(t, out, op);
  if (index.numel > 0) {
    Ref sa = unaliased(*s, tg);
    const int64_t isz = t.itemsize();
    scatter_walk(*tg.r, d, index, *sa,
                 [isz](char* dst, const char* sp) { copy_elem(dst, sp, isz); });
  }
  return finish(tg, out, op);
}

template <typename A>
inline bool nan_of(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return v != v;
  } else {
    return false;
  }
}

template <typename A>
A identity_of(int32_t reduce) {
  switch (reduce) {
    case SDK_PROD:
      return A(1);
    case SDK_AMAX:
      if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
      return std::numeric_limits<A>::lowest();
    case SDK_AMIN:
      if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
      return std::numeric_limits<A>::max();
    default:
      return A(0);
  }
}

template <typename A>
A combine(int32_t reduce, A a, A b) {
  if constexpr (std::is_same_v<A, bool>) {  // sum and prod of truth values: or, and
    if (reduce == SDK_SUM || reduce == SDK_PROD) return reduce == SDK_SUM ? (a || b) : (a && b);
  }
  switch (reduce) {
    case SDK_PROD:
      return wrap_mul(a, b);
    case SDK_AMAX:
      return nan_of(b) ? b : (nan_of(a) || !(a < b)) ? a : b;
    case SDK_AMIN:
      return nan_of(b) ? b : (nan_of(a) || !(b < a)) ? a : b;
    default:
      return wrap_add(a, b);
  }
}

// a / c, rounded down for integers (c > 0).
template <typename A>
A divide_by_count(A a, int64_t c) {
  if constexpr (std::is_integral_v<A>) {
    A q = static_cast<A>(a / c);
    return (a % c != 0 && a < 0) ? A(q - 1) : q;
  } else {
    return static_cast<A>(a / static_cast<A>(c));
  }
}

Ref scatter_reduce_impl(const TensorImpl& t, int64_t dim, const TensorImpl& index,
                        const TensorImpl& src, int32_t reduce, bool include_self, sdk_tensor* out,
                        const char* op) {
  check_cpu(t, op, "t");
  check_cpu(src, op, "src");
  check_index_dtype(index, op, "index");
  SDK_VALUE_CHECK(reduce == SDK_SUM || reduce == SDK_PROD || reduce == SDK_MEAN ||
                      reduce == SDK_AMAX || reduce == SDK_AMIN,
                  op, ": reduce must be SDK_SUM, SDK_PROD, SDK_MEAN, SDK_AMAX or SDK_AMIN, got ",
                  reduce);
  SDK_TYPE_CHECK(!(reduce == SDK_MEAN && t.dtype == SDK_BOOL), op,
                 ": reduce 'mean' is not supported for bool tensors");
  check_same_dtype(t, src, op, "src");
  const int64_t d = wrap_dim(dim, t.ndim, op);
  check_scatter_shapes(t, d, index, src, op);
  check_all_in_range(index, size_along(t, d), d, op);
  // mean counts per element of a contiguous result
  Target tg = reduce == SDK_MEAN ? fresh_target(t) : target_of(t, out, op);
  if (index.numel == 0) return finish(tg, out, op);
  Ref sa = unaliased(src, tg);
  TensorImpl& r = *tg.r;
  SDK_DISPATCH_ALL(t.dtype, op, [&] {
    using A = typename OpMath<scalar_t>::type;
    auto at = [](char* p) { return reinterpret_cast<scalar_t*>(p); };
    auto val = [](const char* p) { return convert<A>(*reinterpret_cast<const scalar_t*>(p)); };
    if (!include_self) {
      const scalar_t init = convert<scalar_t>(identity_of<A>(reduce));
      scatter_walk(r, d, index, *sa, [init, at](char* dst, const char*) { *at(dst) = init; });
    }
    if (reduce != SDK_MEAN) {
      scatter_walk(r, d, index, *sa, [=](char* dst, const char* sp) {
        *at(dst) = convert<scalar_t>(combine<A>(reduce, val(dst), val(sp)));
      });
      return;
    }
    std::vector<int64_t> count(size_t(r.numel), include_self ? 1 : 0);
    scalar_t* base = static_cast<scalar_t*>(r.data());
    scatter_walk(r, d, index, *sa, [&count, base, at, val](char* dst, const char* sp) {
      *at(dst) = convert<scalar_t>(combine<A>(SDK_SUM, val(dst), val(sp)));
      ++count[size_t(at(dst) - base)];
    });
    for (int64_t e = 0; e < r.numel; ++e) {
      const int64_t c = count[size_t(e)];
      if (c > 1) base[e] = convert<scalar_t>(divide_by_count(convert<A>(base[e]), c));
    }
  });
  return finish(tg, out, op);
}

// The source of index_copy as a tensor of t's number of dims (a 0-d index may come with a
// source lacking dim d).
Ref index_source(const TensorImpl& t, int64_t d, const TensorImpl& index, int64_t len,
                 const TensorImpl& source, const char* op) {
  Shape want = shape_of(t);
  if (t.ndim > 0) want[d] = len;
  if (shape_of(source) == want) return Ref::borrow(to_handle(const_cast<TensorImpl*>(&source)));
  SDK_VALUE_CHECK(index.ndim == 0 && t.ndim > 0 && source.ndim == t.ndim - 1, op,
                  ": source of shape ", shape_str(source), " does not match the input of shape ",
                  shape_str(t), " with dim ", d, " replaced by the ", len, " indices");
  Shape sz = shape_of(source), st(source.strides, source.strides + source.ndim);
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, 0);
  Ref v = make_view(source, t.ndim, sz.data(), st.data(), source.offset);
  SDK_VALUE_CHECK(shape_of(*v) == want, op, ": source of shape ", shape_str(source),
                  " does not match the input of shape ", shape_str(t));
  return v;
}

Ref index_copy_impl(const TensorImpl& t, int64_t dim, const TensorImpl& index,
                    const TensorImpl& source, sdk_tensor* out, const char* op) {
  check_cpu(t, op, "t");
  check_cpu(source, op, "source");
  check_index_dtype(index, op, "index");
  SDK_VALUE_CHECK(index.ndim <= 1, op, ": index must be 1-D or 0-d, got shape ", shape_str(index));
  check_same_dtype(t, source, op, "source");
  const int64_t d = wrap_dim(dim, t.ndim, op);
  const std::vector<int64_t> idx = read_index(index);
  const int64_t len = int64_t(idx.size());
  SDK_VALUE_CHECK(t.ndim > 0 || len == 1, op, ": a 0-d input takes exactly one index, got ", len);
  for (int64_t v : idx) check_range(v, size_along(t, d), d, op);
  Ref src = index_source(t, d, index, len, source, op);
  Target tg = target_of(t, out, op);
  Ref sa = unaliased(*src, tg);
  LineGrid<2> g({tg.r.get(), sa.get()}, d);
  char* tb = static_cast<char*>(tg.r->data());
  const char* sb = static_cast<const char*>(sa->data());
  const int64_t isz = t.itemsize();
  if (tg.r->contiguous && sa->contiguous) {
    // Row-major operands: each index moves one slab of the dims after d (a memcpy), where
    // the strided path below would walk every line across the indices.
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < d; ++k) outer *= t.sizes[k];
    for (int64_t k = d + 1; k < t.ndim; ++k) inner *= t.sizes[k];
    const int64_t size_d = size_along(t, d), slab = inner * isz;
    const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, len * inner));
    parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        for (int64_t i = 0; i < len; ++i) {  // in order: a repeated index keeps the last
          std::memcpy(tb + (o * size_d + idx[size_t(i)]) * slab, sb + (o * len + i) * slab,
                      size_t(slab));
        }
      }
    });
    return finish(tg, out, op);
  }
  parallel_grid<2>(g.sizes, g.stride_ptrs(), len, [&](const int64_t* off, int64_t) {
    for (int64_t i = 0; i < len; ++i) {
      copy_elem(tb + off[0] + idx[size_t(i)] * g.along[0], sb + off[1] + i * g.along[1], isz);
    }
  });
  return finish(tg, out, op);
}

Ref index_fill_impl(const TensorImpl& t, int64_t dim, const TensorImpl& index,
                    const sdk_scalar& value, sdk_tensor* out, const char* op) {
  check_cpu(t, op, "t");
  check_index_dtype(index, op, "index");
  SDK_VALUE_CHECK(index.ndim <= 1, op, ": index must be 1-D or 0-d, got shape ", shape_str(index));
  check_scalar(value, op, "value");
  check_fill_value(value, t.dtype, op);
  const int64_t d = wrap_dim(dim, t.ndim, op);
  const int64_t size = size_along(t, d);
  std::vector<int64_t> idx = read_index(index);
  for (int64_t& v : idx) {
    SDK_INDEX_CHECK(v >= -size && v < size, op, ": index ", v, " is out of bounds for dim ", d,
                    " with size ", size);
    if (v < 0) v += size;
  }
  Target tg = target_of(t, out, op);
  LineGrid<1> g({tg.r.get()}, d);
  char* tb = static_cast<char*>(tg.r->data());
  const int64_t len = int64_t(idx.size());
  SDK_DISPATCH_ALL(t.dtype, op, [&] {
    const scalar_t x = scalar_as<scalar_t>(value);
    parallel_grid<1>(g.sizes, g.stride_ptrs(), len, [&](const int64_t* off, int64_t) {
      for (int64_t i = 0; i < len; ++i) {
        *reinterpret_cast<scalar_t*>(tb + off[0] + idx[size_t(i)] * g.along[0]) = x;
      }
    });
  });
  return finish(tg, out, op);
}

void check_mask(const TensorImpl& mask, const char* op) {
  check_cpu(mask, op, "mask");
  SDK_TYPE_CHECK(mask.dtype == SDK_BOOL, op, ": expected a bool mask, got ", describe(mask));
}

// Number of true elements of a bool tensor (any strides).
int64_t count_true(const TensorImpl& m) {
  int64_t count = 0;
  Shape ms = byte_strides(m);
  const int64_t* strides[1] = {ms.data()};
  char* bases[1] = {static_cast<char*>(m.data())};
  nd_loop_erased<1>(m.ndim, m.sizes, strides, bases,
                    [&count](char* const* p, int64_t n, const int64_t* st) {
                      int64_t c = 0;
                      for (int64_t i = 0; i < n; ++i) c += p[0][i * st[0]] != 0;
                      count += c;
                    });
  return count;
}

// masked_select and masked_scatter inline their walk (one instantiation each, no dtypes): through
// nd_loop_erased the int16 masked_select ran 29% more instructions (callgrind).
Ref masked_select_impl(const TensorImpl& t, const TensorImpl& mask, const char* op) {
  check_cpu(t, op, "t");
  check_mask(mask, op);
  const Shape shape = broadcast_pair(t, mask, op);
  Ref te = expand_to(t, shape, op, "input"), me = expand_to(mask, shape, op, "mask");
  Ref res = make_tensor(Shape{count_true(*me)}, t.dtype, t.device());
  if (res->numel == 0) return res;
  const int64_t isz = t.itemsize();
  char* dst = static_cast<char*>(res->data());
  Shape ts = byte_strides(*te), ms = byte_strides(*me);
  const int64_t* strides[2] = {ts.data(), ms.data()};
  char* bases[2] = {static_cast<char*>(te->data()), static_cast<char*>(me->data())};
  nd_loop<2>(int64_t(shape.size()), shape.data(), strides, bases,
             [&dst, isz](char* const* p, int64_t n, const int64_t* st) {
               char* o = dst;  // locals, which the stores below cannot alias
               const int64_t sz = isz;
               for (int64_t i = 0; i < n; ++i) {
                 if (p[1][i * st[1]] == 0) continue;
                 copy_elem(o, p[0] + i * st[0], sz);
                 o += sz;
               }
               dst = o;
             });
  return res;
}

Ref masked_scatter_impl(const TensorImpl& t, const TensorImpl& mask, const TensorImpl& source,
                        sdk_tensor* out, const char* op) {
  check_cpu(t, op, "t");
  check_cpu(source, op, "source");
  check_mask(mask, op);
  check_same_dtype(t, source, op, "source");
  Ref me = expand_to(mask, shape_of(t), op, "mask");
  const int64_t count = count_true(*me);
  SDK_VALUE_CHECK(source.numel >= count, op, ": the mask selects ", count,
                  " elements but source has only ", source.numel, " (shape ", shape_str(source),
                  ")");
  Target tg = target_of(t, out, op);
  if (count == 0) return finish(tg, out, op);
  Ref sc = contiguous(source);
  Ref sa = unaliased(*sc, tg);
  const int64_t isz = t.itemsize();
  const char* next = static_cast<const char*>(sa->data());
  Shape ts = byte_strides(*tg.r), ms = byte_strides(*me);
  const int64_t* strides[2] = {ts.data(), ms.data()};
  char* bases[2] = {static_cast<char*>(tg.r->data()), static_cast<char*>(me->data())};
  nd_loop<2>(t.ndim, t.sizes, strides, bases,
             [&next, isz](char* const* p, int64_t n, const int64_t* st) {
               const char* q = next;  // locals, as in masked_select
               const int64_t sz = isz;
               for (int64_t i = 0; i < n; ++i) {
                 if (p[1][i * st[1]] == 0) continue;
                 copy_elem(p[0] + i * st[0], q, sz);
                 q += sz;
               }
               next = q;
             });
  return finish(tg, out, op);
}

// res[i] = src[idx[i]] (elements of T), negative indices counting from the end; returns
// false, having stopped, at an index out of [-n, n).
template <typename T>
bool gather_flat(T* res, const T* src, const int64_t* idx, int64_t count, int64_t n) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = idx[i];
    if (v < 0) v += n;
    if (uint64_t(v) >= uint64_t(n)) return false;
    res[i] = src[v];
  }
  return true;
}

Ref take_impl(const TensorImpl& t, const TensorImpl& index, const char* op) {
  check_cpu(t, op, "t");
  check_index_dtype(index, op, "index");
  const int64_t n = t.numel;
  Ref res = make_tensor(index.ndim, index.sizes, t.dtype, t.device());
  // The indices as one int64 buffer, read in place when they already are.
  Ref ic = index.dtype == SDK_INT64 ? contiguous(index) : to_dtype(index, SDK_INT64, true);
  const int64_t* idx = static_cast<const int64_t*>(ic->data());
  const int64_t count = index.numel;
  auto check_all = [&] {  // the first index out of range, as the error
    for (int64_t i = 0; i < count; ++i) {
      const int64_t v = idx[i];
      SDK_INDEX_CHECK(v >= -n && v < n, op, ": index ", v, " is out of range for a tensor of ", n,
                      " elements (shape ", shape_str(t), ")");
    }
  };
  if (res->numel == 0) return res;
  if (n == 0) check_all();
  Ref c = contiguous(t);
  std::atomic<bool> bad{false};
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(c->data());
    T* dst = static_cast<T*>(res->data());
    parallel_for(0, count, 32768, [&](int64_t b, int64_t e) {
      if (!gather_flat(dst + b, src, idx + b, e - b, n)) bad.store(true);
    });
  };
  if (!dispatch_bits(t.itemsize(), run)) run(Bytes16{});  // complex128
  if (bad.load()) check_all();
  return res;
}

std::vector<int64_t> read_repeats(const TensorImpl& repeats, const char* op) {
  check_cpu(repeats, op, "repeats");
  SDK_TYPE_CHECK(repeats.dtype == SDK_INT64 || repeats.dtype == SDK_INT32, op,
                 ": repeats must be an int64 or int32 tensor, got ", describe(repeats));
  SDK_VALUE_CHECK(repeats.ndim <= 1, op, ": repeats must be 0-d or 1-D, got shape ",
                  shape_str(repeats));
  std::vector<int64_t> r = read_index(repeats);
  for (int64_t v : r) SDK_VALUE_CHECK(v >= 0, op, ": repeats can not be negative, got ", v);
  return r;
}

int64_t total_of(const std::vector<int64_t>& r, const char* op) {
  int64_t total = 0;
  for (int64_t v : r) {
    SDK_VALUE_CHECK(!__builtin_add_overflow(total, v, &total), op,
                    ": the repeats add up to more than 2^63 - 1");
  }
  return total;
}

Ref repeat_interleave_impl(const TensorImpl* t, const TensorImpl& repeats, bool dim_given,
                           int64_t dim, const char* op) {
  std::vector<int64_t> r = read_repeats(repeats, op);
  if (!t) {  // the index form: arange(len(repeats)) repeated
    SDK_VALUE_CHECK(repeats.ndim == 1, op, ": repeats must be 1-D, got shape ", shape_str(repeats));
    Ref res = make_tensor(Shape{total_of(r, op)}, SDK_INT64, repeats.device());
    int64_t* p = static_cast<int64_t*>(res->data());
    for (size_t i = 0; i < r.size(); ++i) p = std::fill_n(p, r[i], int64_t(i));
    return res;
  }
  check_cpu(*t, op, "t");
  Ref src = contiguous(*t);
  int64_t d = dim_given ? wrap_dim(dim, t->ndim, op) : 0;
  if (!dim_given || t->ndim == 0) {  // flattened (a 0-d input repeats as 1-D)
    const int64_t n = t->numel;
    src = make_view(*src, 1, &n, nullptr, src->offset);
    d = 0;
  }
  const int64_t n = src->sizes[d];
  SDK_VALUE_CHECK(int64_t(r.size()) == n || r.size() == 1, op,
                  ": repeats must have one element or as many as the input has along dim ", d, " (",
                  n, "), got ", r.size());
  if (r.size() == 1) r.assign(size_t(n), r[0]);
  Shape shape = shape_of(*src);
  shape[d] = total_of(r, op);
  Ref res = make_tensor(shape, t->dtype, t->device());
  if (res->numel == 0) return res;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < src->ndim; ++k) {
    if (k < d) outer *= src->sizes[k];
    if (k > d) inner *= src->sizes[k];
  }
  const int64_t blk = inner * t->itemsize(), total = shape[d];
  const char* sb = static_cast<const char*>(src->data());
  char* db = static_cast<char*>(res->data());
  parallel_for(0, outer, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, total * blk)),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   char* dst = db + o * total * blk;
                   for (int64_t i = 0; i < n; ++i) {
                     const char* s = sb + (o * n + i) * blk;
                     for (int64_t k = 0; k < r[size_t(i)]; ++k, dst += blk) {
                       std::memcpy(dst, s, size_t(blk));
                     }
                   }
                 }
               });
  return res;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_scatter_add_(sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                    const sdk_tensor* src) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_scatter_add_";
  scatter_add(const_cast<TensorImpl&>(checked(t, op, "t")), dim, checked(index, op, "index"),
              checked(src, op, "src"), op);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_index_add_(sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                  const sdk_tensor* src) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_index_add_";
  index_add(const_cast<TensorImpl&>(checked(t, op, "t")), dim, checked(index, op, "index"),
            checked(src, op, "src"), op);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_scatter(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                               const sdk_tensor* src, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_scatter";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  const TensorImpl& ts = checked(src, op, "src");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, scatter_impl(tt, dim, ti, &ts, sdk_scalar{}, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_scatter_value(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                     sdk_scalar value, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_scatter";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, scatter_impl(tt, dim, ti, nullptr, value, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_scatter_reduce(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                      const sdk_tensor* src, int32_t reduce, int32_t include_self,
                                      sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_scatter_reduce";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  const TensorImpl& ts = checked(src, op, "src");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, scatter_reduce_impl(tt, dim, ti, ts, reduce, include_self != 0, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_index_copy(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                  const sdk_tensor* source, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_index_copy";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  const TensorImpl& ts = checked(source, op, "source");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, index_copy_impl(tt, dim, ti, ts, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_index_fill(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                  sdk_scalar value, sdk_tensor* out, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_index_fill";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, index_fill_impl(tt, dim, ti, value, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_masked_select(const sdk_tensor* t, const sdk_tensor* mask,
                                     sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_masked_select";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& tm = checked(mask, op, "mask");
  check_not_null(result, op, "result");
  set_result(result, masked_select_impl(tt, tm, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_masked_scatter(const sdk_tensor* t, const sdk_tensor* mask,
                                      const sdk_tensor* source, sdk_tensor* out,
                                      sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_masked_scatter";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& tm = checked(mask, op, "mask");
  const TensorImpl& ts = checked(source, op, "source");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, masked_scatter_impl(tt, tm, ts, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_take(const sdk_tensor* t, const sdk_tensor* index, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_take";
  const TensorImpl& tt = checked(t, op, "t");
  const TensorImpl& ti = checked(index, op, "index");
  check_not_null(result, op, "result");
  set_result(result, take_impl(tt, ti, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_repeat_interleave(const sdk_tensor* t, const sdk_tensor* repeats,
                                         int32_t dim_given, int64_t dim, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_repeat_interleave";
  const TensorImpl& tr = checked(repeats, op, "repeats");
  check_not_null(result, op, "result");
  set_result(result, repeat_interleave_impl(t ? to_impl(t) : nullptr, tr, dim_given != 0, dim, op));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
