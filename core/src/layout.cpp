// core/src/layout.cpp: flip, roll, tril/triu, the diagonal and unfold views, and resize_.
//
// flip and roll are strided copies (a view with negative strides, blocks of a view), so the
// CUDA copy kernel runs them as well; tril/triu on CUDA are a masked fill.
#include <cstring>
#include <memory>

#include "allocator.h"
#include "cuda/glue/cuda_glue.h"
#include "index_util.h"

namespace sdk::detail::k2 {
namespace {

// dims as a mask over t's dims; ValueError for a repeated dim.
std::vector<bool> dim_set(const TensorImpl& t, int64_t ndims, const int64_t* dims, const char* op) {
  SDK_VALUE_CHECK(ndims >= 0, op, ": ndims must be >= 0, got ", ndims);
  if (ndims > 0) check_not_null(dims, op, "dims");
  std::vector<bool> mask(size_t(std::max<int64_t>(t.ndim, 1)), false);
  for (int64_t i = 0; i < ndims; ++i) {
    const int64_t d = wrap_dim(dims[i], t.ndim, op);
    SDK_VALUE_CHECK(!mask[size_t(d)], op, ": dim ", dims[i],
                    " appears multiple times in the list of dims");
    mask[size_t(d)] = true;
  }
  return mask;
}

Ref copy_of(const TensorImpl& view, const TensorImpl& like) {
  Ref res = make_tensor(like.ndim, like.sizes, like.dtype, like.device());
  cast_copy(view, *res);
  return res;
}

Ref flip_impl(const TensorImpl& t, int64_t ndims, const int64_t* dims, const char* op) {
  const std::vector<bool> mask = dim_set(t, ndims, dims, op);
  Shape st(t.strides, t.strides + t.ndim);
  int64_t offset = t.offset;
  for (int64_t d = 0; d < t.ndim; ++d) {
    if (!mask[size_t(d)] || t.sizes[d] == 0) continue;
    offset += (t.sizes[d] - 1) * st[d];
    st[d] = -st[d];
  }
  // Internal only: a view walking the flipped dims backwards (strides < 0 never leave the core).
  Ref backwards = make_view(t, t.ndim, t.sizes, st.data(), offset);
  return copy_of(*backwards, t);
}

// One block of a roll: along each rolled dim, the part [from, from + len) of the input lands
// at [to, to + len) of the result.
struct Piece {
  int64_t from, to, len;
};

// Roll `t` along the dims with nonzero shifts in `shift` (already reduced mod the size) into
// `res`: 2^k block copies for k rolled dims.
void roll_into(const TensorImpl& t, const Shape& shift, TensorImpl& res) {
  std::vector<int64_t> rolled;
  for (int64_t d = 0; d < t.ndim; ++d)
    if (shift[size_t(d)] != 0) rolled.push_back(d);
  const int64_t k = int64_t(rolled.size());
  for (int64_t combo = 0; combo < (int64_t(1) << k); ++combo) {
    Shape sz = shape_of(t);
    int64_t src_off = t.offset, dst_off = res.offset;
    bool empty = false;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t d = rolled[size_t(j)], n = t.sizes[d], s = shift[size_t(d)];
      // bit clear: input [0, n - s) -> result [s, n); set: input [n - s, n) -> result [0, s)
      const Piece p = (combo >> j) & 1 ? Piece{n - s, 0, s} : Piece{0, s, n - s};
      sz[d] = p.len;
      empty = empty || p.len == 0;
      src_off += p.from * t.strides[d];
      dst_off += p.to * res.strides[d];
    }
    if (empty) continue;
    Ref src = make_view(t, t.ndim, sz.data(), t.strides, src_off);
    Ref dst = make_view(res, res.ndim, sz.data(), res.strides, dst_off);
    cast_copy(*src, *dst);
  }
}

Ref roll_impl(const TensorImpl& t, int64_t nshifts, const int64_t* shifts, int64_t ndims,
              const int64_t* dims, const char* op) {
  SDK_VALUE_CHECK(nshifts > 0, op, ": shifts must not be empty");
  check_not_null(shifts, op, "shifts");
  if (ndims == 0) {  // the flattened tensor, shape restored
    SDK_VALUE_CHECK(nshifts == 1, op, ": without dims, shifts must have one element, got ",
                    nshifts);
    Ref c = contiguous(t);
    const int64_t n = t.numel, zero = 0;
    Ref flat = make_view(*c, 1, &n, nullptr, c->offset);
    Ref r = roll_impl(*flat, 1, shifts, 1, &zero, op);
    return make_view(*r, t.ndim, t.sizes, nullptr, r->offset);
  }
  SDK_VALUE_CHECK(nshifts == ndims, op, ": shifts and dims must have the same length, got ",
                  nshifts, " and ", ndims);
  check_not_null(dims, op, "dims");
  Shape shift(size_t(std::max<int64_t>(t.ndim, 1)), 0);
  for (int64_t i = 0; i < ndims; ++i) {  // a dim named twice rolls by the sum
    const int64_t d = wrap_dim(dims[i], t.ndim, op);
    const int64_t n = size_along(t, d);
    if (n > 0) shift[size_t(d)] = ((shift[size_t(d)] + shifts[i] % n) % n + n) % n;
  }
  if (t.ndim == 0) shift[0] = 0;
  Ref res = make_tensor(t.ndim, t.sizes, t.dtype, t.device());
  if (t.numel == 0) return res;
  // Six rolled dims at most per pass (64 blocks); more dims roll in further passes.
  Ref cur = Ref::borrow(to_handle(const_cast<TensorImpl*>(&t)));
  int64_t d = 0;
  while (true) {
    Shape part(shift.size(), 0);
    int64_t taken = 0;
    for (; d < t.ndim && taken < 6; ++d) {
      if (shift[size_t(d)] == 0) continue;
      part[size_t(d)] = shift[size_t(d)];
      ++taken;
    }
    bool more = false;
    for (int64_t e = d; e < t.ndim; ++e) more = more || shift[size_t(e)] != 0;
    Ref dst = more ? make_tensor(t.ndim, t.sizes, t.dtype, t.device()) : res;
    if (taken == 0) {
      cast_copy(*cur, *dst);
    } else {
      roll_into(*cur, part, *dst);
    }
    if (!more) return res;
    cur = dst;
  }
}

// CUDA: zero the other triangle with a masked fill (the mask made on the host, one matrix).
void triangle_cuda(const TensorImpl& t, int64_t rows, int64_t cols, int64_t diagonal, bool upper,
                   TensorImpl& res) {
  Ref zero_here = make_tensor(Shape{rows, cols}, SDK_BOOL, sdk_device{SDK_CPU, 0});
  bool* m = static_cast<bool*>(zero_here->data());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      m[i * cols + j] = upper ? j - i < diagonal : j - i > diagonal;
    }
  }
  Ref mask = cuda::to_device(*zero_here, t.device());
  sdk_scalar zero{};
  zero.kind = SDK_SCALAR_INT;
  cuda::masked_fill(res, t, *mask, zero);
}

Ref triangle_impl(const TensorImpl& t, int64_t diagonal, bool upper, sdk_tensor* out,
                  const char* op) {
  SDK_VALUE_CHECK(t.ndim >= 2, op, ": expected a tensor with at least 2 dims, got shape ",
                  shape_str(t));
  const bool inplace = out && to_impl(out) == &t;
  if (inplace) check_writable(t, op);
  if (inplace) check_no_internal_overlap(t, op);
  Ref res = inplace ? Ref::borrow(out) : make_tensor(t.ndim, t.sizes, t.dtype, t.device());
  const int64_t rows = t.sizes[t.ndim - 2], cols = t.sizes[t.ndim - 1];
  if (t.numel > 0 && cuda::is_cuda(t)) {
    triangle_cuda(t, rows, cols, diagonal, upper, *res);
  } else if (t.numel > 0) {
    Shape batch(t.sizes, t.sizes + t.ndim - 2);
    Shape rs = byte_strides(*res), ts = byte_strides(t);
    const int64_t isz = t.itemsize();
    const int64_t rr = rs[size_t(t.ndim) - 2], rc = rs[size_t(t.ndim) - 1];
    const int64_t tr = ts[size_t(t.ndim) - 2], tc = ts[size_t(t.ndim) - 1];
    char* rb = static_cast<char*>(res->data());
    const char* tb = static_cast<const char*>(t.data());
    parallel_grid<2>(batch, {rs.data(), ts.data()}, rows * cols, [&](const int64_t* off, int64_t) {
      for (int64_t i = 0; i < rows; ++i) {
        // kept columns: [lo, hi)
        const int64_t lo = upper ? std::clamp<int64_t>(i + diagonal, 0, cols) : 0;
        const int64_t hi = upper ? cols : std::clamp<int64_t>(i + diagonal + 1, 0, cols);
        char* rp = rb + off[0] + i * rr;
        const char* tp = tb + off[1] + i * tr;
        if (rc == isz && tc == isz) {  // contiguous rows: zero, copy, zero (lo <= hi)
          std::memset(rp, 0, size_t(lo * isz));
          if (!inplace) std::memcpy(rp + lo * isz, tp + lo * isz, size_t((hi - lo) * isz));
          std::memset(rp + hi * isz, 0, size_t((cols - hi) * isz));
          continue;
        }
        for (int64_t j = 0; j < cols; ++j) {
          if (j >= lo && j < hi) {
            if (!inplace) copy_elem(rp + j * rc, tp + j * tc, isz);
          } else {
            std::memset(rp + j * rc, 0, size_t(isz));  // zero bytes: 0 of every dtype
          }
        }
      }
    });
  }
  if (inplace) {
    res->bump_version();
    return res;
  }
  return finish_out(res, out, op);
}

Ref diagonal_impl(const TensorImpl& t, int64_t offset, int64_t dim1, int64_t dim2, const char* op) {
  SDK_VALUE_CHECK(t.ndim >= 2, op, ": expected a tensor with at least 2 dims, got shape ",
                  shape_str(t));
  const int64_t d1 = wrap_dim(dim1, t.ndim, op), d2 = wrap_dim(dim2, t.ndim, op);
  SDK_VALUE_CHECK(d1 != d2, op, ": diagonal dimensions cannot be identical (", dim1, ", ", dim2,
                  ")");
  const int64_t n1 = t.sizes[d1], n2 = t.sizes[d2];
  const int64_t len = offset >= 0 ? std::max<int64_t>(0, std::min(n1, n2 - offset))
                                  : std::max<int64_t>(0, std::min(n1 + offset, n2));
  int64_t start = t.offset;
  if (len > 0) start += offset >= 0 ? offset * t.strides[d2] : -offset * t.strides[d1];
  Shape sz, st;
  for (int64_t d = 0; d < t.ndim; ++d) {
    if (d == d1 || d == d2) continue;
    sz.push_back(t.sizes[d]);
    st.push_back(t.strides[d]);
  }
  sz.push_back(len);
  st.push_back(t.strides[d1] + t.strides[d2]);
  return make_view(t, int64_t(sz.size()), sz.data(), st.data(), start);
}

Ref unfold_impl(const TensorImpl& t, int64_t dimension, int64_t size, int64_t step,
                const char* op) {
  const int64_t d = wrap_dim(dimension, t.ndim, op);
  const int64_t n = size_along(t, d);
  SDK_VALUE_CHECK(size >= 0 && size <= n, op, ": size ", size, " must be in [0, ", n, "] for dim ",
                  dimension, " of the input of shape ", shape_str(t));
  SDK_VALUE_CHECK(step > 0, op, ": step must be positive, got ", step);
  Shape sz(t.sizes, t.sizes + t.ndim), st(t.strides, t.strides + t.ndim);
  if (t.ndim > 0) {
    sz[size_t(d)] = (n - size) / step + 1;
    st[size_t(d)] = t.strides[d] * step;
  }
  sz.push_back(size);
  st.push_back(t.ndim > 0 ? t.strides[d] : 1);
  return make_view(t, int64_t(sz.size()), sz.data(), st.data(), t.offset);
}

// A uint8 tensor over the first n bytes of storage s.
Ref bytes_of(Storage* s, int64_t n) {
  TensorImpl* v = new TensorImpl();
  s->retain();
  v->storage = s;
  v->dtype = SDK_UINT8;
  Ref r(v);
  r->set_shape(1, &n, nullptr);
  return r;
}

// A storage grown by resize_: its memory comes from the device's allocator, and it keeps
// the storages it replaced alive (memory exported from them before, numpy() or DLPack,
// stays valid) until it dies itself.
struct Grown {
  int64_t nbytes;
  sdk_device device;
  std::vector<Storage*> kept;
};

void free_grown(void* data, void* ctx) {
  Grown* g = static_cast<Grown*>(ctx);
  if (data) get_allocator(g->device.type)->deallocate(data, g->nbytes, g->device.index);
  for (Storage* s : g->kept) s->release();
  delete g;
}

// A storage of `nbytes` holding old's bytes first; adopts the caller's reference to `old`.
Storage* grow(Storage* old, int64_t nbytes) {
  Allocator* a = get_allocator(old->device.type);
  SDK_REQUIRE(a, SDK_ERROR_RUNTIME, "resize_: no allocator for device type ", old->device.type);
  std::unique_ptr<Grown> g(new Grown{nbytes, old->device, {}});
  void* data = a->allocate(nbytes, old->device.index);
  Storage* s;
  try {
    s = wrap_storage(data, nbytes, old->device, &free_grown, g.get());
  } catch (...) {
    a->deallocate(data, nbytes, old->device.index);
    throw;
  }
  Grown* ctx = g.release();  // s owns it now; releasing s frees the memory on any failure
  Ref guard = bytes_of(s, 0);
  s->release();        // the guard's reference is the only one until the end
  s->foreign = false;  // the core's own memory: it may grow again
  s->version.store(old->version.load());
  Ref from = bytes_of(old, old->nbytes), to = bytes_of(s, old->nbytes);
  cast_copy(*from, *to);  // a device copy for CUDA storages
  // Flatten chains: what an unshared grown storage kept moves here, so that releasing a
  // storage grown many times never recurses deeply.
  if (old->deleter == &free_grown && old->refcount.load() == 1) {
    Grown* prev = static_cast<Grown*>(old->deleter_ctx);
    ctx->kept.swap(prev->kept);
  }
  ctx->kept.push_back(old);
  s->retain();  // the caller's reference; the guard's goes with it
  return s;
}

void resize_impl(TensorImpl& t, int64_t ndim, const int64_t* sizes, const char* op) {
  SDK_VALUE_CHECK(ndim >= 0 && ndim <= 64, op, ": ndim must be in [0, 64], got ", ndim);
  if (ndim > 0) check_not_null(sizes, op, "sizes");
  const int64_t numel = checked_numel(ndim, sizes, op);
  check_writable(t, op);  // a resize_ is an in-place op (and may move the memory)
  int64_t need = 0;
  if (numel > 0) {
    SDK_REQUIRE(!__builtin_add_overflow(t.offset, numel, &need) &&
                    !__builtin_mul_overflow(need, t.itemsize(), &need),
                SDK_ERROR_MEMORY, op, ": ", sizes_str(ndim, sizes), " elements of ", dname(t.dtype),
                " are too many");
  }
  if (need > t.storage->nbytes) {
    SDK_REQUIRE(!t.storage->foreign, SDK_ERROR_RUNTIME, op,
                ": cannot grow a tensor over memory the core did not allocate (from_blob, "
                "DLPack): its storage holds ",
                t.storage->nbytes, " bytes, ", need, " are needed");
    t.storage = grow(t.storage, need);
  }
  t.set_shape(ndim, sizes, nullptr);
  t.bump_version();
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_flip(const sdk_tensor* t, int64_t ndims, const int64_t* dims,
                            sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_flip";
  const TensorImpl& tt = checked(t, op, "t");
  check_not_null(result, op, "result");
  set_result(result, flip_impl(tt, ndims, dims, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_roll(const sdk_tensor* t, int64_t nshifts, const int64_t* shifts,
                            int64_t ndims, const int64_t* dims, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_roll";
  const TensorImpl& tt = checked(t, op, "t");
  check_not_null(result, op, "result");
  SDK_VALUE_CHECK(ndims >= 0, op, ": ndims must be >= 0, got ", ndims);
  set_result(result, roll_impl(tt, nshifts, shifts, ndims, dims, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_tril(const sdk_tensor* t, int64_t diagonal, sdk_tensor* out,
                            sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_tril";
  const TensorImpl& tt = checked(t, op, "t");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, triangle_impl(tt, diagonal, false, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_triu(const sdk_tensor* t, int64_t diagonal, sdk_tensor* out,
                            sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_triu";
  const TensorImpl& tt = checked(t, op, "t");
  SDK_VALUE_CHECK(out || result, op, ": both out and result are NULL");
  set_result(result, triangle_impl(tt, diagonal, true, out, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_diagonal(const sdk_tensor* t, int64_t offset, int64_t dim1, int64_t dim2,
                                sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_diagonal";
  const TensorImpl& tt = checked(t, op, "t");
  check_not_null(result, op, "result");
  set_result(result, diagonal_impl(tt, offset, dim1, dim2, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_unfold(const sdk_tensor* t, int64_t dimension, int64_t size, int64_t step,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_unfold";
  const TensorImpl& tt = checked(t, op, "t");
  check_not_null(result, op, "result");
  set_result(result, unfold_impl(tt, dimension, size, step, op));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_resize_(sdk_tensor* t, int64_t ndim, const int64_t* sizes) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_resize_";
  resize_impl(const_cast<TensorImpl&>(checked(t, op, "t")), ndim, sizes, op);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
