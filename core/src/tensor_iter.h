// core/src/tensor_iter.h: broadcasting, dim reordering/coalescing and strided loops over N
// operands.
//
// Usage (operand 0 is the output, already shaped to the broadcast shape):
//   TensorIter it;
//   it.build({out, a, b});            // broadcast a, b to out's shape; reorder + coalesce
//   it.for_each(grain, [&](char** p, const int64_t* s, int64_t n) { ... });
// The loop gets one data pointer and one BYTE stride per operand for an inner
// run of n elements. Kernels test is_contiguous_run()/stride 0 to pick a
// vectorizable path. for_each splits large iterations across threads.
#pragma once

#include <algorithm>
#include <initializer_list>

#include "dtype.h"
#include "parallel.h"
#include "tensor_impl.h"

namespace sdk::detail {

constexpr int kIterMaxOps = 6;
constexpr int kIterMaxDims = 64;
// Elements per thread below which splitting costs more than it saves.
constexpr int64_t kParallelGrain = 32768;

// Broadcast the shapes of n tensors (numpy rules) into out_sizes; returns
// ndim. ValueError naming `op` and the shapes when they do not broadcast.
inline int64_t broadcast_shapes(const char* op, int n, const TensorImpl* const* ts,
                                int64_t* out_sizes) {
  int64_t nd = 0;
  for (int i = 0; i < n; ++i) nd = std::max(nd, ts[i]->ndim);
  if (nd > kIterMaxDims) SDK_FAIL(SDK_ERROR_VALUE, op, ": too many dims (", nd, ")");
  for (int64_t d = 0; d < nd; ++d) out_sizes[d] = 1;
  for (int i = 0; i < n; ++i) {
    const TensorImpl& t = *ts[i];
    int64_t lead = nd - t.ndim;
    for (int64_t d = 0; d < t.ndim; ++d) {
      int64_t s = t.sizes[d];
      int64_t& o = out_sizes[lead + d];
      if (s == o || s == 1) continue;
      if (o == 1) {
        o = s;
        continue;
      }
      std::string shapes;
      for (int j = 0; j < n; ++j) shapes += (j ? " and " : "") + shape_str(*ts[j]);
      SDK_FAIL(SDK_ERROR_VALUE, op, ": shapes ", shapes, " cannot be broadcast together (dim ",
               lead + d, ": ", o, " vs ", s, ")");
    }
  }
  return nd;
}

inline bool same_shape(const TensorImpl& a, const TensorImpl& b) {
  if (a.ndim != b.ndim) return false;
  for (int64_t d = 0; d < a.ndim; ++d)
    if (a.sizes[d] != b.sizes[d]) return false;
  return true;
}

inline bool same_shape(const TensorImpl& a, int64_t nd, const int64_t* sz) {
  if (a.ndim != nd) return false;
  for (int64_t d = 0; d < nd; ++d)
    if (a.sizes[d] != sz[d]) return false;
  return true;
}

// Allocate a result of the given shape. When an input of exactly that shape
// is dense but not row-major (a transposed view), the result copies its
// memory layout, so the whole op runs as one contiguous loop (numpy's and
// torch's behaviour).
inline Ref empty_like_layout(int64_t nd, const int64_t* sz, sdk_dtype dtype, sdk_device device,
                             std::initializer_list<const TensorImpl*> inputs) {
  Ref r = make_tensor(nd, sz, dtype, device);
  if (nd < 2) return r;
  for (const TensorImpl* t : inputs) {
    if (!t || !same_shape(*t, nd, sz)) continue;
    if (t->contiguous) return r;  // the first full-shape input decides the layout
    int perm[kIterMaxDims];
    for (int d = 0; d < nd; ++d) perm[d] = d;
    std::stable_sort(perm, perm + nd, [&](int a, int b) { return t->strides[a] > t->strides[b]; });
    int64_t st[kIterMaxDims], expect = 1;
    for (int i = static_cast<int>(nd) - 1; i >= 0; --i) {
      int d = perm[i];
      if (sz[d] != 1 && t->strides[d] != expect) return r;  // overlapping or gappy: row-major
      st[d] = expect;
      expect *= sz[d];
    }
    r->set_shape(nd, sz, st);
    return r;
  }
  return r;
}

class TensorIter {
 public:
  int nops = 0;
  int ndim = 0;  // after coalescing; dims are stored innermost FIRST
  int64_t numel = 0;
  int64_t shape[kIterMaxDims];
  char* data[kIterMaxOps];
  int64_t itemsize[kIterMaxOps];
  int64_t strides[kIterMaxDims][kIterMaxOps];  // bytes

  // ops[0] fixes the iteration shape; the others broadcast to it.
  void build(std::initializer_list<const TensorImpl*> ops, const char* op = "op") {
    build(static_cast<int>(ops.size()), ops.begin(), op);
  }
  void build(int n, const TensorImpl* const* ops, const char* op = "op") {
    if (n > kIterMaxOps) fatal("TensorIter: too many operands");
    nops = n;
    const TensorImpl& out = *ops[0];
    int nd = static_cast<int>(out.ndim);
    numel = out.numel;
    for (int k = 0; k < n; ++k) {
      data[k] = static_cast<char*>(ops[k]->data());
      itemsize[k] = ops[k]->itemsize();
    }
    // Reverse into innermost-first order; broadcast dims get stride 0.
    for (int d = 0; d < nd; ++d) {
      int src = nd - 1 - d;
      shape[d] = out.sizes[src];
      for (int k = 0; k < n; ++k) {
        const TensorImpl& t = *ops[k];
        int64_t td = t.ndim - (nd - src);
        int64_t st = 0;
        if (td >= 0) {
          if (t.sizes[td] == out.sizes[src]) {
            st = t.strides[td] * itemsize[k];
          } else if (t.sizes[td] != 1) {
            SDK_FAIL(SDK_ERROR_VALUE, op, ": shape ", shape_str(t), " cannot be broadcast to ",
                     shape_str(out));
          }
        }
        strides[d][k] = st;
      }
    }
    for (int k = 0; k < n; ++k)
      if (ops[k]->ndim > nd) {
        SDK_FAIL(SDK_ERROR_VALUE, op, ": shape ", shape_str(*ops[k]), " cannot be broadcast to ",
                 shape_str(out));
      }
    ndim = nd;
    reorder();
    coalesce();
  }

  // Add an operand at `pos` that never moves (stride 0): a scalar in memory.
  void insert_constant(int pos, char* p) {
    if (nops >= kIterMaxOps) fatal("TensorIter: too many operands");
    for (int k = nops; k > pos; --k) {
      data[k] = data[k - 1];
      itemsize[k] = itemsize[k - 1];
      for (int d = 0; d < ndim; ++d) strides[d][k] = strides[d][k - 1];
    }
    data[pos] = p;
    itemsize[pos] = 0;
    for (int d = 0; d < ndim; ++d) strides[d][pos] = 0;
    ++nops;
  }

  // True when every operand advances by its itemsize along the inner dim.
  static bool is_contiguous_run(const int64_t* s, const int64_t* isz, int n) {
    for (int k = 0; k < n; ++k)
      if (s[k] != isz[k]) return false;
    return true;
  }

  // loop(char** ptrs, const int64_t* inner_strides, int64_t n), over [begin, end)
  // of the linear (innermost-fastest) index.
  template <typename Loop>
  void run_range(int64_t begin, int64_t end, const Loop& loop) const {
    if (begin >= end) return;
    if (ndim <= 1) {
      char* p[kIterMaxOps] = {};
      int64_t s[kIterMaxOps];
      for (int k = 0; k < nops; ++k) {
        s[k] = ndim ? strides[0][k] : 0;
        p[k] = data[k] + begin * s[k];
      }
      loop(p, s, end - begin);
      return;
    }
    int64_t idx[kIterMaxDims];
    int64_t rem = begin;
    for (int d = 0; d < ndim; ++d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    char* p[kIterMaxOps] = {};
    for (int k = 0; k < nops; ++k) {
      p[k] = data[k];
      for (int d = 0; d < ndim; ++d) p[k] += idx[d] * strides[d][k];
    }
    const int64_t* s0 = strides[0];
    int64_t pos = begin;
    while (pos < end) {
      int64_t n = std::min(shape[0] - idx[0], end - pos);
      char* q[kIterMaxOps];
      for (int k = 0; k < nops; ++k) q[k] = p[k];
      loop(q, s0, n);
      pos += n;
      if (pos >= end) break;
      // Advance to the start of the next inner run (idx[0] becomes 0).
      for (int k = 0; k < nops; ++k) p[k] -= idx[0] * s0[k];
      idx[0] = 0;
      for (int d = 1; d < ndim; ++d) {
        ++idx[d];
        for (int k = 0; k < nops; ++k) p[k] += strides[d][k];
        if (idx[d] < shape[d]) break;
        for (int k = 0; k < nops; ++k) p[k] -= shape[d] * strides[d][k];
        idx[d] = 0;
      }
    }
  }

  template <typename Loop>
  void for_each(const Loop& loop, int64_t grain = kParallelGrain) const {
    if (numel == 0) return;
    if (numel < 2 * grain) {
      run_range(0, numel, loop);
      return;
    }
    parallel_for(0, numel, grain, [&](int64_t b, int64_t e) { run_range(b, e, loop); });
  }

 private:
  // Sort dims so the innermost has the smallest strides (output first, then
  // inputs break ties), like numpy's K order: a transposed input then walks
  // memory sequentially.
  void reorder() {
    if (ndim <= 1) return;
    int perm[kIterMaxDims];
    for (int d = 0; d < ndim; ++d) perm[d] = d;
    auto inner_than = [&](int a, int b) {  // should dim a be more inner than b?
      for (int k = 0; k < nops; ++k) {
        int64_t sa = strides[a][k], sb = strides[b][k];
        if (sa == 0 || sb == 0) continue;  // broadcast dims say nothing
        if (sa != sb) return sa < sb;
      }
      return false;
    };
    // Insertion sort: stable, and ndim is tiny.
    for (int i = 1; i < ndim; ++i) {
      int v = perm[i];
      int j = i - 1;
      while (j >= 0 && inner_than(v, perm[j])) {
        perm[j + 1] = perm[j];
        --j;
      }
      perm[j + 1] = v;
    }
    bool identity = true;
    for (int d = 0; d < ndim; ++d) identity &= perm[d] == d;
    if (identity) return;
    int64_t sh[kIterMaxDims], st[kIterMaxDims][kIterMaxOps];
    for (int d = 0; d < ndim; ++d) {
      sh[d] = shape[perm[d]];
      for (int k = 0; k < nops; ++k) st[d][k] = strides[perm[d]][k];
    }
    for (int d = 0; d < ndim; ++d) {
      shape[d] = sh[d];
      for (int k = 0; k < nops; ++k) strides[d][k] = st[d][k];
    }
  }

  // Merge neighbouring dims that every operand walks as one, and drop size-1 dims.
  void coalesce() {
    int w = 0;
    for (int d = 0; d < ndim; ++d) {
      if (shape[d] == 1) continue;
      if (w > 0) {
        bool ok = true;
        for (int k = 0; k < nops && ok; ++k) ok = strides[d][k] == strides[w - 1][k] * shape[w - 1];
        if (ok) {
          shape[w - 1] *= shape[d];
          continue;
        }
      }
      shape[w] = shape[d];
      for (int k = 0; k < nops; ++k) strides[w][k] = strides[d][k];
      ++w;
    }
    ndim = w;
    if (ndim == 0 && numel == 1) {  // a single element: one run of length 1
      ndim = 1;
      shape[0] = 1;
      for (int k = 0; k < nops; ++k) strides[0][k] = itemsize[k];
    }
  }
};

}  // namespace sdk::detail
