// core/src/sort.cpp: sort, topk, kthvalue and median along one dim.
#include <algorithm>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "index_util.h"

namespace sdk::detail::k2 {
namespace {

// A value of a line and its position in the line.
template <typename A>
struct Keyed {
  A v;
  int64_t i;
};

template <typename A>
inline bool nan_of(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return v != v;
  } else {
    return false;
  }
}

// Strict total orders on Keyed values: NaN above every number (torch's order), equal values
// by position, so that every sort is stable and every selection deterministic. kNan false
// skips the NaN tests for lines known to hold none.
template <typename A, bool kDescending, bool kNan>
struct Order {
  bool operator()(const Keyed<A>& a, const Keyed<A>& b) const {
    if constexpr (kNan) {
      const bool an = nan_of(a.v), bn = nan_of(b.v);
      if (an || bn) return an == bn ? a.i < b.i : (kDescending ? an : bn);
    }
    if constexpr (kDescending) {
      return a.v > b.v || (!(b.v > a.v) && a.i < b.i);
    } else {
      return a.v < b.v || (!(b.v < a.v) && a.i < b.i);
    }
  }
};

// The type lines are sorted in: halves as float, the narrow integers and bool as int32 (the
// same order, converted exactly both ways), so the sorts and selections are compiled for four
// types, not eight.
template <typename T>
using SortKey = std::conditional_t<
    std::is_same_v<T, double> || std::is_same_v<T, int64_t>, T,
    std::conditional_t<std::is_floating_point_v<typename OpMath<T>::type>, float, int32_t>>;

// Values of a line as stored for a selection (not std::vector<bool>, a bit set).
template <typename A>
using Stored = std::conditional_t<std::is_same_v<A, bool>, uint8_t, A>;

// An allocator whose resize() leaves new elements uninitialised (value-initialising them would
// zero them): the line buffers are written before they are read, and a fresh buffer's zeroing
// was a third of a topk's instructions on a 1M-element line.
template <typename T>
struct NoInitAlloc : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = NoInitAlloc<U>;
  };
  NoInitAlloc() = default;
  template <typename U>
  NoInitAlloc(const NoInitAlloc<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <typename T>
using LineVec = std::vector<T, NoInitAlloc<T>>;

// Scratch of one parallel range: the current line, a copy to select in, and the chosen
// entries (all of the line for a sort) as Keyed values.
template <typename A>
struct LineBuffer {
  LineVec<Stored<A>> vals, work, spare;
  LineVec<Keyed<A>> keyed;
};

// Read the line of n elements at p (byte stride s) into b.vals; returns whether it holds a NaN.
template <typename T, typename A>
bool load_line(const char* p, int64_t s, int64_t n, LineBuffer<A>& b) {
  b.vals.resize(size_t(n));
  Stored<A>* out = b.vals.data();
  bool nan = false;
  if (s == int64_t(sizeof(T))) {  // a contiguous line: a loop the compiler vectorises
    const T* q = reinterpret_cast<const T*>(p);
    for (int64_t j = 0; j < n; ++j) {
      A v = convert<A>(q[j]);
      nan |= nan_of(v);
      out[j] = v;
    }
    return nan;
  }
  for (int64_t j = 0; j < n; ++j) {
    A v = convert<A>(*reinterpret_cast<const T*>(p + j * s));
    nan |= nan_of(v);
    out[j] = v;
  }
  return nan;
}

// b.keyed = every entry of the line, in position order.
template <typename A>
void key_all(LineBuffer<A>& b) {
  const size_t n = b.vals.size();
  b.keyed.resize(n);
  for (size_t j = 0; j < n; ++j) b.keyed[j] = Keyed<A>{A(b.vals[j]), int64_t(j)};
}

// The value of rank r (from 0) among the n values at `in` (left unchanged) by `ahead`, a
// strict order on values without NaN; buf[0] and buf[1] are scratch of n values each.
// Quickselect whose three-way partition writes every value to both ends of the other buffer
// and moves one end: no branch depends on the data. (A partition's comparisons are random,
// and in std::nth_element their mispredicted branches, not the work, take most of the time.)
// Pivots that keep missing hand the rest to std::nth_element, so the worst case stays
// O(n log n).
template <typename S, typename Ahead>
S select_value(const S* in, S* const buf[2], int64_t n, int64_t r, Ahead ahead) {
  const S* src = in;
  int round = 0;
  for (int budget = 2 * (64 - __builtin_clzll(uint64_t(n) | 1)); n > 32 && budget > 0;
       --budget, ++round) {
    S x = src[0], p = src[n / 2], z = src[n - 1];  // the pivot: the median of three
    if (ahead(p, x)) std::swap(x, p);
    if (ahead(z, p)) p = ahead(z, x) ? x : z;
    S* dst = buf[round & 1];
    int64_t lo = 0, hi = n;  // dst[0, lo) ahead of p, dst[hi, n) behind it
    for (int64_t j = 0; j < n; ++j) {
      const S v = src[j];
      const bool lt = ahead(v, p), gt = ahead(p, v);
      dst[lo] = v;
      dst[hi - 1] = v;  // lo + (n - hi) <= j < n, so lo <= hi - 1
      lo += lt;
      hi -= gt;
    }
    if (r < lo) {
      src = dst;
      n = lo;
    } else if (r >= hi) {
      src = dst + hi;
      r -= hi;
      n -= hi;
    } else {
      return p;  // rank r falls among the values equal to the pivot
    }
  }
  S* w = buf[round & 1];
  if (src != w) std::copy(src, src + n, w);  // never over itself: src is in the other buffer
  std::nth_element(w, w + r, w + n, ahead);
  return w[r];
}

// For a line without NaN: the value of rank r in the bare values (ascending or descending).
template <bool kDescending, typename A>
Stored<A> rank_value(LineBuffer<A>& b, int64_t r) {
  using S = Stored<A>;
  const size_t n = b.vals.size();
  auto ahead = [](S x, S y) { return kDescending ? x > y : x < y; };
  if (r < 32 && int64_t(n) > 16 * r) {
    // A few from the front: the best r + 1 so far in a heap whose top is the last of them;
    // most values are behind it, so the one test per value is predictable.
    const int64_t m = r + 1;
    b.work.resize(size_t(m));
    S* h = b.work.data();
    std::copy(b.vals.begin(), b.vals.begin() + m, h);
    std::make_heap(h, h + m, ahead);
    for (size_t j = size_t(m); j < n; ++j) {
      const S v = b.vals[j];
      if (ahead(v, h[0])) {
        std::pop_heap(h, h + m, ahead);
        h[m - 1] = v;
        std::push_heap(h, h + m, ahead);
      }
    }
    return h[0];
  }
  b.work.resize(n);
  b.spare.resize(n);
  S* const buf[2] = {b.work.data(), b.spare.data()};
  return select_value(b.vals.data(), buf, int64_t(n), r, ahead);
}

// For a line without NaN: b.keyed = its entries of rank 0..r in Order<A, kDescending, false>,
// in position order. The value t of rank r comes from the bare values; the entries are every
// value ahead of t and, of the values equal to it, the first by position (the order's tie
// break), as a selection in the full order gives.
template <bool kDescending, typename A>
void select_front(LineBuffer<A>& b, int64_t r) {
  using S = Stored<A>;
  auto ahead = [](S x, S y) { return kDescending ? x > y : x < y; };
  const S t = rank_value<kDescending>(b, r);
  // One pass keeps every value not behind t (ahead of it or equal); then, of the values equal
  // to t, only the first r + 1 - (values ahead) by position stay. (Counting the values ahead
  // first took a second pass over the line; the entries kept are few unless t repeats.)
  b.keyed.clear();
  const size_t n = b.vals.size();
  for (size_t j = 0; j < n; ++j) {
    const S v = b.vals[j];
    if (!ahead(t, v)) b.keyed.push_back(Keyed<A>{A(v), int64_t(j)});
  }
  int64_t equal = r + 1;  // >= 1 after the values ahead are taken off: t itself has rank r
  for (const Keyed<A>& e : b.keyed) equal -= ahead(S(e.v), t) ? 1 : 0;
  size_t kept = 0;
  for (const Keyed<A>& e : b.keyed) {
    const bool eq = !ahead(S(e.v), t);
    if (!eq | (equal > 0)) {
      b.keyed[kept++] = e;
      equal -= eq;
    }
  }
  b.keyed.resize(kept);
}

// For a line without NaN: the position of its entry of rank r in Order<A, false, false>.
template <typename A>
int64_t rank_position(LineBuffer<A>& b, int64_t r) {
  using S = Stored<A>;
  const S t = rank_value<false>(b, r);
  int64_t before = 0;
  for (S v : b.vals) before += v < t ? 1 : 0;
  int64_t skip = r - before;  // values equal to t ahead of the one of rank r
  const int64_t n = int64_t(b.vals.size());
  for (int64_t j = 0; j < n; ++j) {
    const S v = b.vals[size_t(j)];
    if ((!(v < t) & !(t < v)) && skip-- == 0) return j;
  }
  return n - 1;  // not reached: t is one of the values
}

// Call algo(order) with the order for `descending` and the presence of NaN.
template <typename A, typename F>
void with_order(bool descending, bool nan, const F& algo) {
  if (descending) {
    nan ? algo(Order<A, true, true>{}) : algo(Order<A, true, false>{});
  } else {
    nan ? algo(Order<A, false, true>{}) : algo(Order<A, false, false>{});
  }
}

// The outputs of a line op: values and int64 indices of x's shape with dim d sized `len`.
struct LineOutputs {
  Ref values, indices;
};

LineOutputs make_outputs(const TensorImpl& x, int64_t d, int64_t len) {
  Shape shape = shape_of(x);
  if (x.ndim > 0) shape[d] = len;
  return {make_tensor(shape, x.dtype, x.device()), make_tensor(shape, SDK_INT64, x.device())};
}

// Write the first len entries of e as values (element type T) and int64 indices.
template <typename T, typename A>
void store_line(const Keyed<A>* e, int64_t len, char* vp, int64_t vs, char* ip, int64_t is) {
  for (int64_t j = 0; j < len; ++j) {
    *reinterpret_cast<T*>(vp + j * vs) = convert<T>(e[j].v);
    *reinterpret_cast<int64_t*>(ip + j * is) = e[j].i;
  }
}

// line_op's walk for one key type A; the element type is reached only through load and store,
// so each op's selection is compiled once per key type, not once per element type.
template <typename A, typename Select>
SDK_COMPILED_ONCE void line_walk(
    const TensorImpl& x, const LineOutputs& out, const LineGrid<3>& g, int64_t n, int64_t len,
    bool (*load)(const char*, int64_t, int64_t, LineBuffer<A>&),
    void (*store)(const Keyed<A>*, int64_t, char*, int64_t, char*, int64_t), const Select& select) {
  const char* xb = static_cast<const char*>(x.data());
  char* vb = static_cast<char*>(out.values->data());
  char* ib = static_cast<char*>(out.indices->data());
  parallel_grid_with<3, LineBuffer<A>>(
      g.sizes, g.stride_ptrs(), n * 4, [&](LineBuffer<A>& sb, const int64_t* off, int64_t) {
        bool nan = load(xb + off[0], g.along[0], n, sb);
        select(sb, nan, n);
        store(sb.keyed.data(), len, vb + off[1], g.along[1], ib + off[2], g.along[2]);
      });
}

// Run `select(b, nan, n)` on every line of x along d (loaded into b.vals); it leaves the
// chosen `len` entries at the front of b.keyed, which are written to the outputs.
template <typename Select>
LineOutputs line_op(const TensorImpl& x, int64_t d, int64_t len, const char* op,
                    const Select& select) {
  LineOutputs out = make_outputs(x, d, len);
  const int64_t n = size_along(x, d);
  if (out.values->numel == 0) return out;
  LineGrid<3> g({&x, out.values.get(), out.indices.get()}, d);
  SDK_DISPATCH_ALL(x.dtype, op, [&] {
    using A = SortKey<scalar_t>;
    line_walk<A>(x, out, g, n, len, &load_line<scalar_t, A>, &store_line<scalar_t, A>, select);
  });
  return out;
}

// keepdim false: the outputs without their size-1 dim d.
void drop_dim(LineOutputs& o, const TensorImpl& x, int64_t d, bool keepdim) {
  if (keepdim || x.ndim == 0) return;
  Shape shape = shape_of(x);
  shape.erase(shape.begin() + d);
  o.values = make_view(*o.values, int64_t(shape.size()), shape.data(), nullptr, 0);
  o.indices = make_view(*o.indices, int64_t(shape.size()), shape.data(), nullptr, 0);
}

LineOutputs sort_impl(const TensorImpl& x, int64_t dim, bool descending, const char* op) {
  check_cpu(x, op, "x");
  const int64_t d = wrap_dim(dim, x.ndim, op);
  return line_op(x, d, size_along(x, d), op, [&](auto& b, bool nan, int64_t) {
    using A = decltype(b.keyed[0].v);
    key_all(b);
    with_order<std::decay_t<A>>(
        descending, nan, [&](auto order) { std::sort(b.keyed.begin(), b.keyed.end(), order); });
  });
}

LineOutputs topk_impl(const TensorImpl& x, int64_t k, int64_t dim, bool largest, bool sorted,
                      const char* op) {
  check_cpu(x, op, "x");
  const int64_t d = wrap_dim(dim, x.ndim, op);
  const int64_t n = size_along(x, d);
  SDK_INDEX_CHECK(k >= 0 && k <= n, op, ": k ", k, " is out of range for dim ", dim, " of size ", n,
                  " (input of shape ", shape_str(x), ")");
  return line_op(x, d, k, op, [&](auto& b, bool nan, int64_t) {
    using A = std::decay_t<decltype(b.keyed[0].v)>;
    if (k == 0) return;
    if (sorted && !nan) {  // the same k entries, picked on bare values, then sorted
      largest ? select_front<true>(b, k - 1) : select_front<false>(b, k - 1);
      with_order<A>(largest, false,
                    [&](auto order) { std::sort(b.keyed.begin(), b.keyed.end(), order); });
      return;
    }
    key_all(b);
    with_order<A>(largest, nan, [&](auto order) {
      std::nth_element(b.keyed.begin(), b.keyed.begin() + (k - 1), b.keyed.end(), order);
      if (sorted) std::sort(b.keyed.begin(), b.keyed.begin() + k, order);
    });
  });
}

// The k-th smallest (from 1) of each line; median_nan: a line holding NaN gives its first
// NaN instead (torch's median).
LineOutputs kth_impl(const TensorImpl& x, int64_t k, int64_t dim, bool keepdim, bool median_nan,
                     const char* op) {
  check_cpu(x, op, "x");
  const int64_t d = wrap_dim(dim, x.ndim, op);
  const int64_t n = size_along(x, d);
  SDK_INDEX_CHECK(n > 0, op, ": expected dim ", dim, " to have a non-zero size (input of shape ",
                  shape_str(x), ")");
  if (median_nan) k = (n - 1) / 2 + 1;
  SDK_INDEX_CHECK(k >= 1 && k <= n, op, ": k ", k, " is out of range for dim ", dim, " of size ", n,
                  " (k counts from 1)");
  LineOutputs o = line_op(x, d, 1, op, [&](auto& b, bool nan, int64_t) {
    using A = std::decay_t<decltype(b.keyed[0].v)>;
    if (!nan) {
      const int64_t j = rank_position(b, k - 1);
      b.keyed.resize(1);
      b.keyed[0] = Keyed<A>{A(b.vals[size_t(j)]), j};
      return;
    }
    key_all(b);
    if (median_nan) {
      auto first =
          std::find_if(b.keyed.begin(), b.keyed.end(), [](const auto& e) { return nan_of(e.v); });
      b.keyed[0] = *first;
      return;
    }
    with_order<A>(false, true, [&](auto order) {
      std::nth_element(b.keyed.begin(), b.keyed.begin() + (k - 1), b.keyed.end(), order);
    });
    b.keyed[0] = b.keyed[size_t(k - 1)];
  });
  drop_dim(o, x, d, keepdim);
  return o;
}

sdk_status deliver(LineOutputs o, sdk_tensor** values, sdk_tensor** indices) {
  *values = o.values.release_handle();
  *indices = o.indices.release_handle();
  return SDK_OK;
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_sort(const sdk_tensor* x, int64_t dim, int32_t descending, int32_t stable,
                            sdk_tensor** values, sdk_tensor** indices) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_sort";
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(values, op, "values");
  check_not_null(indices, op, "indices");
  (void)stable;  // every sort here is stable
  deliver(sort_impl(t, dim, descending != 0, op), values, indices);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_topk(const sdk_tensor* x, int64_t k, int64_t dim, int32_t largest,
                            int32_t sorted, sdk_tensor** values, sdk_tensor** indices) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_topk";
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(values, op, "values");
  check_not_null(indices, op, "indices");
  deliver(topk_impl(t, k, dim, largest != 0, sorted != 0, op), values, indices);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_kthvalue(const sdk_tensor* x, int64_t k, int64_t dim, int32_t keepdim,
                                sdk_tensor** values, sdk_tensor** indices) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_kthvalue";
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(values, op, "values");
  check_not_null(indices, op, "indices");
  deliver(kth_impl(t, k, dim, keepdim != 0, false, op), values, indices);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_median_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim,
                                  sdk_tensor** values, sdk_tensor** indices) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_median";
  const TensorImpl& t = checked(x, op, "x");
  check_not_null(values, op, "values");
  check_not_null(indices, op, "indices");
  deliver(kth_impl(t, 0, dim, keepdim != 0, true, op), values, indices);
  SDK_SAFE_CALL_END;
}

}  // extern "C"
