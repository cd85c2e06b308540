// core/src/index_util.h: helpers shared by the index, scatter, sort and layout kernels:
// index-tensor checks, element copies, broadcast views and a parallel walk over lines.
#pragma once

#include <string>
#include <vector>

#include "kernel_util.h"

namespace sdk::detail {
// From elementwise_copy.cpp (elementwise.h, whose loop machinery these kernels do not need).
void check_no_internal_overlap(const TensorImpl& t, const char* op);
void check_scalar(const sdk_scalar& s, const char* op, const char* arg);
void check_fill_value(const sdk_scalar& v, sdk_dtype dtype, const char* op);
void fill_tensor(TensorImpl& t, const sdk_scalar& v);
}  // namespace sdk::detail

namespace sdk::detail::k2 {

inline void check_index_dtype(const TensorImpl& idx, const char* op, const char* arg) {
  check_cpu(idx, op, arg);
  SDK_TYPE_CHECK(idx.dtype != SDK_BOOL, op, ": argument '", arg,
                 "' is a bool tensor; bool masks are not accepted here (convert them to "
                 "integer indices with sdk_nonzero)");
  SDK_TYPE_CHECK(idx.dtype == SDK_INT64 || idx.dtype == SDK_INT32, op, ": argument '", arg,
                 "' must be an int64 or int32 tensor, got ", describe(idx));
}

// The index values as int64, in row-major order.
inline std::vector<int64_t> read_index(const TensorImpl& idx) {
  std::vector<int64_t> v(size_t(idx.numel));
  if (idx.numel == 0) return v;
  Ref c = to_dtype(idx, SDK_INT64, true);
  std::memcpy(v.data(), c->data(), size_t(idx.numel) * 8);
  return v;
}

// Check 0 <= i < size (negative indices are errors here, as in torch).
inline void check_range(int64_t i, int64_t size, int64_t dim, const char* op) {
  SDK_INDEX_CHECK(i >= 0 && i < size, op, ": index ", i, " is out of bounds for dim ", dim,
                  " with size ", size);
}

// Copy one element of `isz` bytes.
inline void copy_elem(char* d, const char* s, int64_t isz) {
  switch (isz) {
    case 1:
      *d = *s;
      break;
    case 2:
      std::memcpy(d, s, 2);
      break;
    case 4:
      std::memcpy(d, s, 4);
      break;
    case 8:
      std::memcpy(d, s, 8);
      break;
    default:  // complex128
      std::memcpy(d, s, size_t(isz));
      break;
  }
}

// View of t broadcast to `shape` (stride 0 on broadcast dims).
inline Ref expand_to(const TensorImpl& t, const Shape& shape, const char* op, const char* what) {
  const int64_t nd = int64_t(shape.size());
  SDK_VALUE_CHECK(t.ndim <= nd, op, ": shape mismatch: ", what, " of shape ", shape_str(t),
                  " cannot be broadcast to ", vec_str(shape));
  Shape st(nd, 0);
  for (int64_t k = 0; k < t.ndim; ++k) {
    int64_t o = nd - t.ndim + k;
    SDK_VALUE_CHECK(t.sizes[k] == shape[o] || t.sizes[k] == 1, op, ": shape mismatch: ", what,
                    " of shape ", shape_str(t), " cannot be broadcast to ", vec_str(shape));
    st[o] = t.sizes[k] == 1 ? 0 : t.strides[k];
  }
  return make_view(t, nd, shape.data(), st.data(), t.offset);
}

// numpy's broadcast of two shapes; ValueError naming both otherwise.
inline Shape broadcast_pair(const TensorImpl& a, const TensorImpl& b, const char* op) {
  const size_t nd = size_t(std::max(a.ndim, b.ndim));
  Shape r(nd, 1);
  for (size_t j = 0; j < nd; ++j) {
    int64_t x = j + size_t(a.ndim) >= nd ? a.sizes[j + a.ndim - nd] : 1;
    int64_t y = j + size_t(b.ndim) >= nd ? b.sizes[j + b.ndim - nd] : 1;
    SDK_VALUE_CHECK(x == y || x == 1 || y == 1, op, ": shapes ", shape_str(a), " and ",
                    shape_str(b), " cannot be broadcast together");
    r[j] = x == 1 ? y : x;
  }
  return r;
}

// Size and stride (elements) of t along d; a 0-dim t counts as one element.
inline int64_t size_along(const TensorImpl& t, int64_t d) { return t.ndim == 0 ? 1 : t.sizes[d]; }
inline int64_t stride_along(const TensorImpl& t, int64_t d) {
  return t.ndim == 0 ? 0 : t.strides[d];
}

// Run fn(state, offsets, i) for every position i of the grid `sizes` (row-major), where
// offsets[k] is the byte offset of operand k at that position (strides[k] per dim), in
// parallel over contiguous ranges of positions; each range gets its own default-made
// `State` (scratch buffers). `cost` estimates the work per position (elements touched) to
// size the ranges.
template <int K, typename State, typename F>
void parallel_grid_with(const Shape& sizes, const std::array<const int64_t*, K>& strides,
                        int64_t cost, const F& fn) {
  const int64_t nd = int64_t(sizes.size());
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, cost));
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    State state;
    std::vector<int64_t> idx(size_t(nd), 0);
    int64_t off[K] = {};
    int64_t rem = b;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
      for (int k = 0; k < K; ++k) off[k] += idx[d] * strides[k][d];
    }
    for (int64_t i = b; i < e; ++i) {
      fn(state, static_cast<const int64_t*>(off), i);
      for (int64_t d = nd - 1; d >= 0; --d) {
        for (int k = 0; k < K; ++k) off[k] += strides[k][d];
        if (++idx[d] < sizes[d]) break;
        for (int k = 0; k < K; ++k) off[k] -= strides[k][d] * sizes[d];
        idx[d] = 0;
      }
    }
  });
}

struct NoState {};
// parallel_grid's walk for K operands, compiled once per K: fn(ctx, offsets, i) per position,
// reached through a pointer (a position is a line or a block, so the call costs nothing).
using GridFn = void (*)(const void* ctx, const int64_t* off, int64_t i);
template <int K>
SDK_COMPILED_ONCE void parallel_grid_fn(const Shape& sizes,
                                        const std::array<const int64_t*, K>& strides, int64_t cost,
                                        GridFn fn, const void* ctx) {
  parallel_grid_with<K, NoState>(sizes, strides, cost,
                                 [&](NoState&, const int64_t* off, int64_t i) { fn(ctx, off, i); });
}
// parallel_grid_with without scratch: fn(offsets, i).
template <int K, typename F>
void parallel_grid(const Shape& sizes, const std::array<const int64_t*, K>& strides, int64_t cost,
                   const F& fn) {
  parallel_grid_fn<K>(
      sizes, strides, cost,
      [](const void* c, const int64_t* off, int64_t i) { (*static_cast<const F*>(c))(off, i); },
      &fn);
}

// nd_loop (kernel_util.h) with its walk compiled once per K: fn(p, n, st) per inner run.
using RunFn = void (*)(const void* ctx, char* const* p, int64_t n, const int64_t* st);
template <int K>
SDK_COMPILED_ONCE void nd_loop_fn(int64_t ndim, const int64_t* sizes,
                                  const int64_t* const* byte_strides, char* const* bases, RunFn fn,
                                  const void* ctx) {
  nd_loop<K>(ndim, sizes, byte_strides, bases,
             [&](char* const* p, int64_t n, const int64_t* st) { fn(ctx, p, n, st); });
}
template <int K, typename F>
void nd_loop_erased(int64_t ndim, const int64_t* sizes, const int64_t* const* byte_strides,
                    char* const* bases, const F& fn) {
  nd_loop_fn<K>(
      ndim, sizes, byte_strides, bases,
      [](const void* c, char* const* p, int64_t n, const int64_t* st) {
        (*static_cast<const F*>(c))(p, n, st);
      },
      &fn);
}

// The lines of `x` along `d`, as a grid over x's other dims: for each operand (all of x's
// number of dims, sizes equal outside d) its byte strides over that grid and along d.
template <int K>
struct LineGrid {
  Shape sizes;
  std::array<Shape, K> strides;
  std::array<int64_t, K> along{};  // byte stride along d
  int64_t count = 1;

  LineGrid(const std::array<const TensorImpl*, K>& ts, int64_t d) {
    const TensorImpl& x = *ts[0];
    for (int64_t k = 0; k < x.ndim; ++k) {
      if (k == d) continue;
      sizes.push_back(x.sizes[k]);
      count *= x.sizes[k];
    }
    for (int j = 0; j < K; ++j) {
      const TensorImpl& t = *ts[j];
      const int64_t isz = t.itemsize();
      for (int64_t k = 0; k < t.ndim; ++k)
        if (k != d) strides[j].push_back(t.strides[k] * isz);
      along[j] = t.ndim == 0 ? 0 : t.strides[d] * isz;
    }
  }
  std::array<const int64_t*, K> stride_ptrs() const {
    std::array<const int64_t*, K> p;
    for (int j = 0; j < K; ++j) p[j] = strides[j].data();
    return p;
  }
};

// Shape checks shared by gather and scatter_add_.
inline void check_gather_shapes(const TensorImpl& t, int64_t d, const TensorImpl& index,
                                const TensorImpl* src, const char* op) {
  SDK_VALUE_CHECK(index.ndim == t.ndim, op,
                  ": index must have the same number of dimensions as the input, got shapes ",
                  shape_str(index), " and ", shape_str(t));
  for (int64_t k = 0; k < t.ndim; ++k) {
    SDK_VALUE_CHECK(k == d || index.sizes[k] <= t.sizes[k], op, ": index of shape ",
                    shape_str(index), " is larger than the input of shape ", shape_str(t),
                    " in dimension ", k);
    if (src) {
      SDK_VALUE_CHECK(index.sizes[k] <= src->sizes[k], op, ": index of shape ", shape_str(index),
                      " is larger than src of shape ", shape_str(*src), " in dimension ", k);
    }
  }
}

// Walk the index shape with (index, a, b) operands; b's stride along d is 0
// and `fn(idx_value, pa, pb)` applies one element where b is offset by the index.
template <typename F>
void walk_gather(const TensorImpl& index, const TensorImpl& a, const TensorImpl& b, int64_t d,
                 const F& fn) {
  Shape si = byte_strides(index), sa = byte_strides(a), sb = byte_strides(b);
  if (b.ndim > 0) sb[d] = 0;
  const int64_t* strides[3] = {si.data(), sa.data(), sb.data()};
  char* bases[3] = {static_cast<char*>(index.data()), static_cast<char*>(a.data()),
                    static_cast<char*>(b.data())};
  const bool i64 = index.dtype == SDK_INT64;
  // nd_loop inlined here, not reached through nd_loop_erased: through the pointer, gather of 1M
  // float32 ran 22% more instructions and scatter_add of int64 11% more (callgrind).
  nd_loop<3>(
      index.ndim, index.sizes, strides, bases, [&](char* const* p, int64_t n, const int64_t* st) {
        for (int64_t i = 0; i < n; ++i) {
          const char* ip = p[0] + i * st[0];
          int64_t v =
              i64 ? *reinterpret_cast<const int64_t*>(ip) : *reinterpret_cast<const int32_t*>(ip);
          fn(v, p[1] + i * st[1], p[2] + i * st[2]);
        }
      });
}

}  // namespace sdk::detail::k2
