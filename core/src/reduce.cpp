// core/src/reduce.cpp: sum/mean/prod/amax/amin/all/any over any set of dims (sdk_reduce).
//
// The reduced and kept dims are separated, sorted by stride and coalesced.
// Then one of two loops runs: when the innermost (stride-1) dim is reduced,
// each output is a vectorised reduction of contiguous rows ("inner" mode);
// when it is kept, whole contiguous rows are combined elementwise into a row
// of accumulators ("outer" mode), so no strided gathers are needed. Other
// layouts are copied to contiguous first.
#include <cmath>
#include <limits>
#include <memory>

#include "cuda/glue/cuda_glue.h"
#include "kernel_util.h"
#include "op_names.h"
#include "reduce_kernels.h"
#include "vec_simd.h"

namespace sdk::detail::k2 {
namespace {

struct Dim {
  int64_t size, in, out;  // size, input stride, output stride (elements)
};

// Walks a list of dims (last fastest), tracking input and output offsets.
struct Walker {
  const std::vector<Dim>& d;
  std::vector<int64_t> idx;
  int64_t in = 0, out = 0;
  Walker(const std::vector<Dim>& dims, int64_t start) : d(dims), idx(dims.size(), 0) {
    for (int64_t k = int64_t(d.size()) - 1; k >= 0; --k) {
      idx[k] = start % d[k].size;
      start /= d[k].size;
      in += idx[k] * d[k].in;
      out += idx[k] * d[k].out;
    }
  }
  void next() {
    for (int64_t k = int64_t(d.size()) - 1; k >= 0; --k) {
      in += d[k].in;
      out += d[k].out;
      if (++idx[k] < d[k].size) return;
      in -= d[k].in * d[k].size;
      out -= d[k].out * d[k].size;
      idx[k] = 0;
    }
  }
};

struct Plan {
  std::vector<Dim> kept, red;
  int64_t out_numel = 1, red_numel = 1;
};

// Sort by input stride, outermost first; stride-0 (broadcast) dims go outermost.
void sort_dims(std::vector<Dim>& v) {
  auto key = [](const Dim& d) { return d.in == 0 ? INT64_MAX : d.in; };
  std::stable_sort(v.begin(), v.end(), [&](const Dim& a, const Dim& b) { return key(a) > key(b); });
}

void coalesce(std::vector<Dim>& v) {
  std::vector<Dim> r;
  for (const Dim& d : v) {
    if (!r.empty() && r.back().in == d.in * d.size && r.back().out == d.out * d.size) {
      r.back().size *= d.size;
      r.back().in = d.in;
      r.back().out = d.out;
    } else {
      r.push_back(d);
    }
  }
  v.swap(r);
}

Plan make_plan(const TensorImpl& x, const std::vector<bool>& mask) {
  Plan p;
  // Output strides: contiguous over the kept dims in their original order.
  std::vector<int64_t> out_stride(x.ndim, 0);
  int64_t s = 1;
  for (int64_t d = x.ndim - 1; d >= 0; --d) {
    if (!mask[d]) {
      out_stride[d] = s;
      s *= x.sizes[d];
    }
  }
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (mask[d]) {
      p.red_numel *= x.sizes[d];
      if (x.sizes[d] != 1) p.red.push_back({x.sizes[d], x.strides[d], 0});
    } else {
      p.out_numel *= x.sizes[d];
      if (x.sizes[d] != 1) p.kept.push_back({x.sizes[d], x.strides[d], out_stride[d]});
    }
  }
  sort_dims(p.kept);
  sort_dims(p.red);
  coalesce(p.kept);
  coalesce(p.red);
  return p;
}

struct Job {
  bool mean = false;
  int64_t count = 0;
};

// Work (elements) below which a reduction stays on the calling thread.
constexpr int64_t kParallelMin = int64_t(1) << 17;

// The pairwise tree of one output's reduction: rows [r0, r1) of the reduced
// outer dims, each a contiguous run of n, or (len < n) the part [off, off + len)
// of the single row r0. Rows halve down to kBlock elements' worth, then a row
// halves as reduce_contig does. Serial and parallel evaluation walk the same
// tree, so a sum does not depend on the thread count.
struct Node {
  int64_t r0, r1, off, len;
};

struct RowTree {
  const std::vector<Dim>& outer;  // the reduced dims above the contiguous one
  int64_t n;                      // length of each contiguous row
  int64_t leaf_rows() const { return std::max<int64_t>(1, kBlock / std::max<int64_t>(1, n)); }
  bool split(const Node& nd, Node& a, Node& b) const {
    if (nd.r1 - nd.r0 > leaf_rows()) {
      const int64_t mid = nd.r0 + (nd.r1 - nd.r0) / 2;
      a = {nd.r0, mid, 0, n};
      b = {mid, nd.r1, 0, n};
      return true;
    }
    if (nd.r1 - nd.r0 == 1 && nd.len > kBlock) {
      const int64_t h = (nd.len / 2) & ~int64_t(15);
      a = {nd.r0, nd.r1, nd.off, h};
      b = {nd.r0, nd.r1, nd.off + h, nd.len - h};
      return true;
    }
    return false;
  }
  // A node that is not split further: one run, or a few short rows combined in order.
  template <typename Op, typename A, typename T>
  A leaf(const T* base, const Node& nd) const {
    Walker rw(outer, nd.r0);
    if (nd.r1 - nd.r0 == 1) return reduce_contig<Op, A>(base + rw.in + nd.off, nd.len);
    A acc = reduce_contig<Op, A>(base + rw.in, n);
    rw.next();
    for (int64_t r = nd.r0 + 1; r < nd.r1; ++r, rw.next()) {
      acc = Op::combine(acc, reduce_contig<Op, A>(base + rw.in, n));
    }
    return acc;
  }
  template <typename Op, typename A, typename T>
  A eval(const T* base, const Node& nd) const {
    Node a, b;
    // One row (or part of one) is left to reduce_contig: it halves the same way as split()
    // (and float max/min take one SIMD pass).
    if (nd.r1 - nd.r0 > 1 && split(nd, a, b)) {
      const A lo = eval<Op, A>(base, a);  // in memory order, as reduce_contig
      return Op::combine(lo, eval<Op, A>(base, b));
    }
    return leaf<Op, A>(base, nd);
  }
  // The nodes at `depth` (or above, where a node does not split), in order.
  void leaves(const Node& nd, int depth, std::vector<Node>& out) const {
    Node a, b;
    if (depth > 0 && split(nd, a, b)) {
      leaves(a, depth - 1, out);
      leaves(b, depth - 1, out);
    } else {
      out.push_back(nd);
    }
  }
  // Combine leaf values back up the tree that leaves() walked.
  template <typename Op, typename A>
  A rebuild(const Node& nd, int depth, const A* vals, size_t& next) const {
    Node a, b;
    if (depth > 0 && split(nd, a, b)) {
      A x = rebuild<Op, A>(a, depth - 1, vals, next);
      return Op::combine(x, rebuild<Op, A>(b, depth - 1, vals, next));
    }
    return vals[next++];
  }
};

// One output over the whole tree with the leaves spread across threads: one pool chunk per
// leaf, so a thread that falls behind loses single leaves to the others, and a thread takes
// the same leaves call after call (the pool's chunk order), which its cache may still hold.
template <typename Op, typename A, typename T>
A reduce_tree_parallel(const T* base, const RowTree& tree, const Node& root, int64_t nt) {
  int depth = 2;  // about 4 leaves per thread: balance with little combining
  while ((int64_t(1) << depth) < 4 * nt && depth < 12) ++depth;
  std::vector<Node> nodes;
  tree.leaves(root, depth, nodes);
  std::unique_ptr<A[]> vals(new A[nodes.size()]);  // not vector<A>: A may be bool
  struct Ctx {
    const T* base;
    const RowTree* tree;
    const Node* nodes;
    A* vals;
  } ctx{base, &tree, nodes.data(), vals.get()};
  run_chunks(
      int64_t(nodes.size()),
      [](void* p, int64_t i) {
        const Ctx& c = *static_cast<const Ctx*>(p);
        c.vals[i] = c.tree->template eval<Op, A>(c.base, c.nodes[i]);
      },
      &ctx);
  size_t next = 0;
  return tree.rebuild<Op, A>(root, depth, vals.get(), next);
}

template <typename Op, typename A, typename T>
void inner_mode(const T* base, const Plan& p, A* out, const Job& job) {
  const std::vector<Dim> red_outer(p.red.begin(), p.red.end() - 1);
  const RowTree tree{red_outer, p.red.back().size};
  int64_t n_outer = 1;
  for (const Dim& d : red_outer) n_outer *= d.size;
  const Node root{0, n_outer, 0, tree.n};
  const int64_t work = std::max<int64_t>(1, tree.n * n_outer);
  // The thread count is read once: another thread may change it meanwhile.
  const int64_t nt = max_concurrency();
  // Fewer outputs than threads: each output's tree is split across the threads instead.
  if (nt > 1 && p.out_numel < nt && work >= kParallelMin && !in_parallel_region()) {
    Walker kw(p.kept, 0);
    for (int64_t o = 0; o < p.out_numel; ++o, kw.next()) {
      out[kw.out] =
          finish(reduce_tree_parallel<Op, A>(base + kw.in, tree, root, nt), job.mean, job.count);
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kParallelMin / 2 / work);
  if (red_outer.empty() && p.kept.size() == 1) {  // rows at one stride: one loop per chunk
    const Dim k = p.kept[0];
    parallel_for(0, p.out_numel, grain, [&](int64_t b, int64_t e) {
      reduce_rows<Op, A>(base + b * k.in, k.in, tree.n, e - b, out + b * k.out, k.out, job.mean,
                         job.count);
    });
    return;
  }
  parallel_for(0, p.out_numel, grain, [&](int64_t b, int64_t e) {
    Walker kw(p.kept, b);
    for (int64_t o = b; o < e; ++o, kw.next()) {
      // One row per output: the tree is reduce_contig's own (no walker needed).
      const A v = red_outer.empty() ? reduce_contig<Op, A>(base + kw.in, tree.n)
                                    : tree.eval<Op, A>(base + kw.in, root);
      out[kw.out] = finish(v, job.mean, job.count);
    }
  });
}

// Rows combined per block (bounds float error growth) and blocks per partial row.
constexpr int64_t kRowBlock = 128;
constexpr int64_t kSuperRows = 4 * kRowBlock;
// Bytes of a row a column block reads at least when threads need more blocks: shorter runs
// between 8 KB row strides starve the prefetchers (a 2048x2048 column sum stopped scaling at
// 8 threads on 128-column blocks); the reduced rows are split instead.
constexpr int64_t kMinRunBytes = 2048;

// dst[0, len) = the reduction of reduced rows [r0, r1) of one column block: blocks of
// kRowBlock rows combined four rows at a time, each block then folded into dst.
template <typename Op, typename A, typename T>
void column_partial(const T* col, const std::vector<Dim>& red, int64_t r0, int64_t r1, int64_t len,
                    A* dst, A* blk) {
  std::fill(dst, dst + len, Op::init());
  Walker rw(red, r0);
  for (int64_t b0 = r0; b0 < r1; b0 += kRowBlock) {
    const int64_t b1 = std::min(r1, b0 + kRowBlock);
    A* into = (b0 == r0) ? dst : blk;  // the first block goes straight into dst
    if (into == blk) std::fill(blk, blk + len, Op::init());
    int64_t r = b0;
    for (; r + 4 <= b1; r += 4) {
      const T* rows[4];
      for (int k = 0; k < 4; ++k, rw.next()) rows[k] = col + rw.in;
      combine_rows4<Op>(into, rows, len);
    }
    for (; r < b1; ++r, rw.next()) combine_row<Op>(into, col + rw.in, len);
    if (into == blk) combine_row<typename PartOf<Op>::type>(dst, blk, len);
  }
}

// Column block t of outer_mode: kept-outer index t / ncb, columns [j0, j0 + len).
struct ColumnBlock {
  int64_t in, out, j0, len;
};

// Outer mode: each output column is the reduction of its rows in partial rows of kSuperRows
// rows, combined in order, so the result is the same for every thread count. Threads take
// column blocks; when those are too few, (column block, partial row) pairs, combined after.
template <typename Op, typename A, typename T>
void outer_mode(const T* base, const Plan& p, A* out, const Job& job) {
  std::vector<Dim> kept_outer(p.kept.begin(), p.kept.end() - 1);
  const Dim inner = p.kept.back();
  const int64_t m = inner.size;
  int64_t n_ko = 1;
  for (const Dim& d : kept_outer) n_ko *= d.size;
  const int64_t nr = p.red_numel;
  // Column blocks keep the accumulator row in L1 and give threads work when there are few
  // outer rows, down to kMinRunBytes of a row.
  int64_t cb = sizeof(A) >= 8 ? 1024 : 2048;
  const int64_t nt = max_concurrency();
  if (n_ko < nt && nr * m >= kParallelMin) {
    const int64_t min_cb = std::max<int64_t>(64, kMinRunBytes / int64_t(sizeof(T)));
    const int64_t even = ((m * n_ko + nt - 1) / nt + 15) & ~int64_t(15);
    cb = std::min(cb, std::max(min_cb, even));
  }
  const int64_t ncb = (m + cb - 1) / cb, ntask = n_ko * ncb, w = std::min(cb, m);
  const int64_t nsb = (nr + kSuperRows - 1) / kSuperRows;  // partial rows per column block
  auto block = [&](int64_t t) {
    Walker kw(kept_outer, t / ncb);
    const int64_t j0 = (t % ncb) * cb;
    return ColumnBlock{kw.in, kw.out, j0, std::min(cb, m - j0)};
  };
  auto partial = [&](const ColumnBlock& c, int64_t s, A* dst, A* blk) {
    column_partial<Op>(base + c.in + c.j0, p.red, s * kSuperRows,
                       std::min(nr, (s + 1) * kSuperRows), c.len, dst, blk);
  };
  // acc = init combined in order with each partial row; `part(s)` gives partial row s.
  auto finish_block = [&](const ColumnBlock& c, A* acc, auto&& part) {
    std::fill(acc, acc + c.len, Op::init());
    for (int64_t s = 0; s < nsb; ++s) combine_row<typename PartOf<Op>::type>(acc, part(s), c.len);
    A* o = out + c.out + c.j0 * inner.out;
    for (int64_t j = 0; j < c.len; ++j) o[j * inner.out] = finish(acc[j], job.mean, job.count);
  };
  const bool split_rows =
      nt > 1 && ntask < nt && nsb > 1 && nr * w >= kParallelMin && !in_parallel_region();
  if (split_rows) {
    std::unique_ptr<A[]> parts(new A[size_t(ntask * nsb * w)]);
    parallel_for(0, ntask * nsb, 1, [&](int64_t b, int64_t e) {
      std::unique_ptr<A[]> blk(new A[size_t(w)]);
      for (int64_t i = b; i < e; ++i) partial(block(i / nsb), i % nsb, &parts[i * w], blk.get());
    });
    std::unique_ptr<A[]> acc(new A[size_t(w)]);
    for (int64_t t = 0; t < ntask; ++t) {
      finish_block(block(t), acc.get(), [&](int64_t s) { return &parts[(t * nsb + s) * w]; });
    }
    return;
  }
  parallel_for(0, ntask, std::max<int64_t>(1, kParallelMin / 2 / std::max<int64_t>(1, w * nr)),
               [&](int64_t b, int64_t e) {
                 std::unique_ptr<A[]> acc(new A[cb]), part(new A[cb]), blk(new A[cb]);
                 for (int64_t t = b; t < e; ++t) {
                   const ColumnBlock c = block(t);
                   // each partial row is made just before it is combined
                   finish_block(c, acc.get(), [&](int64_t s) {
                     partial(c, s, part.get(), blk.get());
                     return part.get();
                   });
                 }
               });
}

// Reduce x (T elements) into out (A elements, contiguous over kept dims).
template <typename Op, typename A, typename T>
void run_reduce(const TensorImpl& x, const std::vector<bool>& mask, A* out, const Job& job) {
  Plan p = make_plan(x, mask);
  if (p.out_numel == 0) return;
  if (p.red_numel == 0) {
    for (int64_t i = 0; i < p.out_numel; ++i) out[i] = finish(Op::init(), job.mean, job.count);
    return;
  }
  if (p.red.empty()) p.red.push_back({1, 1, 0});  // only size-1 dims reduced
  const T* base = static_cast<const T*>(x.data());
  if (p.red.back().in == 1) {
    inner_mode<Op>(base, p, out, job);
  } else if (!p.kept.empty() && p.kept.back().in == 1) {
    outer_mode<Op>(base, p, out, job);
  } else {
    Ref c = contiguous(x);
    if (!c->contiguous) {  // cannot happen: a fresh tensor is contiguous
      fatal("reduce: contiguous copy is not contiguous");
    }
    run_reduce<Op, A, T>(*c, mask, out, job);
  }
}

// dst[i] = convert<A>(src[i * stride]) for i < n: one input run read into the A buffer.
template <typename A, typename T>
void load_run(const char* src, int64_t stride, A* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = convert<A>(*reinterpret_cast<const T*>(src + i * stride));
}

// x's elements converted to A into a fresh buffer, the dims of `p` laid out densely (the
// contiguous dim of `p` stays the contiguous one), and p's input strides rewritten to it.
// The walk over `p` is unchanged, so every output combines the same values in the same order.
template <typename A>
std::unique_ptr<A[]> gather_converted(const TensorImpl& x, Plan& p, bool inner) {
  std::vector<Dim*> order;  // outermost first; the contiguous dim last
  for (Dim& d : inner ? p.kept : p.red) order.push_back(&d);
  for (Dim& d : inner ? p.red : p.kept) order.push_back(&d);
  std::vector<Dim> src;  // the same dims with x's strides in bytes, output offset = position
  int64_t total = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    src.insert(src.begin(), Dim{(*it)->size, (*it)->in * x.itemsize(), total});
    (*it)->in = total;
    total *= (*it)->size;
  }
  void (*load)(const char*, int64_t, A*, int64_t) = nullptr;
  SDK_DISPATCH_ALL(x.dtype, "reduce", [&] { load = load_run<A, scalar_t>; });
  std::unique_ptr<A[]> buf(new A[total]);
  const Dim last = src.back();
  src.pop_back();
  int64_t rows = 1;
  for (const Dim& d : src) rows *= d.size;
  const char* base = static_cast<const char*>(x.data());
  Walker w(src, 0);
  for (int64_t r = 0; r < rows; ++r, w.next())
    load(base + w.in, last.in, buf.get() + w.out, last.size);
  return buf;
}

// Reduce x of any dtype through a copy converted to A (the dtypes with no loop of their own).
template <typename Op, typename A>
void reduce_cast(const TensorImpl& x, const std::vector<bool>& mask, A* out, const Job& job) {
  Plan p = make_plan(x, mask);
  if (p.out_numel == 0) return;
  if (p.red_numel == 0) {
    for (int64_t i = 0; i < p.out_numel; ++i) out[i] = finish(Op::init(), job.mean, job.count);
    return;
  }
  if (p.red.empty()) p.red.push_back({1, 1, 0});
  const bool inner = p.red.back().in == 1;
  if (!inner && (p.kept.empty() || p.kept.back().in != 1)) {  // run_reduce copies these
    Ref c = to_dtype(x, dtype_of<A>(), true);
    return run_reduce<Op, A, A>(*c, mask, out, job);
  }
  std::unique_ptr<A[]> buf = gather_converted<A>(x, p, inner);
  if (inner) {
    inner_mode<Op>(static_cast<const A*>(buf.get()), p, out, job);
  } else {
    outer_mode<Op>(static_cast<const A*>(buf.get()), p, out, job);
  }
}

// run_reduce for the input types `Native` (compiled loops of their own: the common ones);
// any other goes through reduce_cast with CastOp. Each loop set compiled costs seconds of
// build time (benchmarks/results/MEASUREMENTS.md, "First build of the core").
template <typename Op, typename CastOp, typename A, typename... Native>
void reduce_some(const TensorImpl& x, const std::vector<bool>& mask, A* out, const Job& job) {
  bool done = false;
  auto one = [&](auto tag) {
    using T = decltype(tag);
    if (done || x.dtype != dtype_of<T>()) return;
    run_reduce<Op, A, T>(x, mask, out, job);
    done = true;
  };
  (one(Native{}), ...);
  if (!done) reduce_cast<CastOp, A>(x, mask, out, job);
}

// "sdk_reduce(sum)" and so on, for messages.
const char* op_name(int32_t op) {
  static const auto* const kNames = [] {
    auto* names = new std::string[kReduceOps];
    for (int i = 0; i < kReduceOps; ++i) names[i] = str("sdk_reduce(", reduce_op_name(i), ")");
    return names;
  }();
  return (op >= 0 && op < kReduceOps) ? kNames[op].c_str() : "sdk_reduce";
}

Shape out_shape(const TensorImpl& x, const std::vector<bool>& mask, bool keepdim) {
  Shape s;
  for (int64_t d = 0; d < x.ndim; ++d) {
    if (!mask[d]) {
      s.push_back(x.sizes[d]);
    } else if (keepdim) {
      s.push_back(1);
    }
  }
  return s;
}

// sum and mean: native loops for the float types into float, double, and every integer type
// and bool into int64; prod (rarer): A's own type only.
template <template <typename> class OpT>
void dispatch_arith(const TensorImpl& x, const std::vector<bool>& mask, TensorImpl& acc,
                    const Job& job, const char* op) {
  constexpr bool kSum = std::is_same_v<OpT<float>, SumOp<float>>;
  using CastF = std::conditional_t<kSum, SumCastOp<float>, OpT<float>>;
  using CastD = std::conditional_t<kSum, SumCastOp<double>, OpT<double>>;
  check_dtype(x.dtype, op);
  switch (acc.dtype) {
    case SDK_FLOAT32:
      if constexpr (kSum) {
        return reduce_some<OpT<float>, CastF, float, float, Half, BFloat16>(
            x, mask, static_cast<float*>(acc.data()), job);
      } else {
        return reduce_some<OpT<float>, CastF, float, float>(x, mask,
                                                            static_cast<float*>(acc.data()), job);
      }
    case SDK_FLOAT64:
      return reduce_some<OpT<double>, CastD, double, double>(x, mask,
                                                             static_cast<double*>(acc.data()), job);
    default:
      if constexpr (kSum) {
        // bool and uint8 too: counting a mask, x.sum() of uint8 pixels; int8 and int16 (rare)
        // go through a widened copy, exact, for a loop set less to compile
        return reduce_some<OpT<int64_t>, OpT<int64_t>, int64_t, int64_t, int32_t, uint8_t, bool>(
            x, mask, static_cast<int64_t*>(acc.data()), job);
      } else {
        return reduce_some<OpT<int64_t>, OpT<int64_t>, int64_t, int64_t>(
            x, mask, static_cast<int64_t*>(acc.data()), job);
      }
  }
}

// max/min: native loops for the floats, int64, int32 and uint8; bool, int8 and int16 (rare)
// reduce as int64 (exact) and are narrowed back, for two loop sets less to compile.
template <template <typename> class OpT>
void dispatch_minmax(const TensorImpl& x, const std::vector<bool>& mask, TensorImpl& acc,
                     const char* op) {
  void* out = acc.data();
  switch (x.dtype) {
    case SDK_FLOAT32:
      return run_reduce<OpT<float>, float, float>(x, mask, static_cast<float*>(out), Job{});
    case SDK_FLOAT64:
      return run_reduce<OpT<double>, double, double>(x, mask, static_cast<double*>(out), Job{});
    case SDK_FLOAT16:
      return run_reduce<OpT<float>, float, Half>(x, mask, static_cast<float*>(out), Job{});
    case SDK_BFLOAT16:
      return run_reduce<OpT<float>, float, BFloat16>(x, mask, static_cast<float*>(out), Job{});
    case SDK_INT64:
      return run_reduce<OpT<int64_t>, int64_t, int64_t>(x, mask, static_cast<int64_t*>(out), Job{});
    case SDK_INT32:
      return run_reduce<OpT<int32_t>, int32_t, int32_t>(x, mask, static_cast<int32_t*>(out), Job{});
    case SDK_UINT8:  // images: x.amax() of uint8 pixels
      return run_reduce<OpT<uint8_t>, uint8_t, uint8_t>(x, mask, static_cast<uint8_t*>(out), Job{});
    default:
      break;
  }
  std::unique_ptr<int64_t[]> wide(new int64_t[size_t(std::max<int64_t>(acc.numel, 1))]);
  reduce_cast<OpT<int64_t>, int64_t>(x, mask, wide.get(), Job{});
  SDK_DISPATCH_ALL(acc.dtype, op, [&] {
    for (int64_t i = 0; i < acc.numel; ++i)
      static_cast<scalar_t*>(out)[i] = convert<scalar_t>(wide[i]);
  });
}

template <typename Op>
void dispatch_logical(const TensorImpl& x, const std::vector<bool>& mask, TensorImpl& acc,
                      const char* op) {
  check_dtype(x.dtype, op);
  reduce_some<Op, Op, bool, bool>(x, mask, static_cast<bool*>(acc.data()), Job{});
}

// Accumulator dtype for sum/prod/mean producing `out_dtype`.
sdk_dtype arith_acc(sdk_dtype out_dtype) {
  if (out_dtype == SDK_FLOAT64) return SDK_FLOAT64;
  if (is_floating(out_dtype)) return SDK_FLOAT32;
  return SDK_INT64;
}

// The CUDA backend accumulates 16-bit floats in float inside its kernels and rounds once at
// the store: a float32 accumulator tensor would only add a cast kernel per call. Not for
// SUMSQ, whose squares are a tensor of the accumulator's type (run_op).
sdk_dtype device_acc(int32_t op, const TensorImpl& x, sdk_dtype acc, sdk_dtype out) {
  const bool half = out == SDK_FLOAT16 || out == SDK_BFLOAT16;
  return cuda::is_cuda(x) && op != SDK_SUMSQ && acc == SDK_FLOAT32 && half ? out : acc;
}

// The reduction `op` of x (x0 after an optional cast) into acc, on x0's device.
void run_op(int32_t op, const TensorImpl& x0, const TensorImpl& x, const std::vector<bool>& mask,
            TensorImpl& acc, const Job& job, const char* name) {
  if (cuda::is_cuda(x0) && op == SDK_SUMSQ) {
    // The device kernels take no squaring step: x * x in the accumulator's type (a float16
    // square overflows past 256), then a sum.
    Ref xa = to_dtype(x, acc.dtype, false);
    sdk_tensor* sq = nullptr;
    if (sdk_binary(SDK_MUL, to_handle(xa.get()), to_handle(xa.get()), nullptr, &sq) != SDK_OK) {
      SDK_FAIL(sdk_last_error_kind(), name, ": ", sdk_last_error_message());
    }
    return cuda::reduce(SDK_SUM, *Ref(to_impl(sq)), mask, acc);
  }
  if (cuda::is_cuda(x0)) return cuda::reduce(op, x, mask, acc);
  switch (op) {
    case SDK_SUM:
    case SDK_MEAN:
      return dispatch_arith<SumOp>(x, mask, acc, job, name);
    case SDK_PROD:
      return dispatch_arith<ProdOp>(x, mask, acc, job, name);
    case SDK_SUMSQ:
      return dispatch_arith<SumSqOp>(x, mask, acc, job, name);
    case SDK_AMAX:
      return dispatch_minmax<MaxOp>(x, mask, acc, name);
    case SDK_AMIN:
      return dispatch_minmax<MinOp>(x, mask, acc, name);
    case SDK_ALL:
      return dispatch_logical<AllOp>(x, mask, acc, name);
    default:
      return dispatch_logical<AnyOp>(x, mask, acc, name);
  }
}

Ref reduce_impl(int32_t op, const TensorImpl& x0, const std::vector<bool>& mask, bool keepdim,
                sdk_dtype dtype, sdk_tensor* out, const char* name) {
  Ref xr;  // x after an optional cast (amax/amin with a dtype)
  const TensorImpl* x = &x0;
  sdk_dtype out_dtype, acc_dtype;
  switch (op) {
    case SDK_SUM:
    case SDK_PROD:
    case SDK_SUMSQ:
      out_dtype = dtype >= 0 ? dtype : (is_integral(x0.dtype, true) ? SDK_INT64 : x0.dtype);
      acc_dtype = arith_acc(out_dtype);
      break;
    case SDK_MEAN:
      out_dtype = dtype >= 0 ? dtype : x0.dtype;
      SDK_TYPE_CHECK(is_floating(out_dtype), name,
                     ": could not infer output dtype. Input dtype must be a floating point "
                     "dtype (or pass dtype=), got ",
                     dname(out_dtype));
      acc_dtype = arith_acc(out_dtype);
      break;
    case SDK_AMAX:
    case SDK_AMIN:
      out_dtype = dtype >= 0 ? dtype : x0.dtype;
      if (out_dtype != x0.dtype) {
        xr = to_dtype(x0, out_dtype, false);
        x = xr.get();
      }
      acc_dtype = (out_dtype == SDK_FLOAT16 || out_dtype == SDK_BFLOAT16) ? SDK_FLOAT32 : out_dtype;
      break;
    default:  // all, any
      out_dtype = dtype >= 0 ? dtype : SDK_BOOL;
      acc_dtype = SDK_BOOL;
      break;
  }
  acc_dtype = device_acc(op, x0, acc_dtype, out_dtype);
  Shape oshape = out_shape(x0, mask, keepdim);
  int64_t red = 1, outn = 1;
  for (int64_t d = 0; d < x0.ndim; ++d) (mask[d] ? red : outn) *= x0.sizes[d];
  if ((op == SDK_AMAX || op == SDK_AMIN) && red == 0 && outn > 0) {
    SDK_FAIL(SDK_ERROR_VALUE, name, ": cannot reduce over a zero-size dimension of input of shape ",
             shape_str(x0), " (the operation has no identity)");
  }
  // Write straight into `out` when it already has the accumulator layout.
  Ref acc;
  if (out && to_impl(out)->dtype == acc_dtype && out_dtype == acc_dtype &&
      to_impl(out)->contiguous && to_impl(out)->storage != x0.storage) {
    check_out(*to_impl(out), oshape, out_dtype, name);
    acc = Ref::borrow(out);
  } else {
    acc = make_tensor(oshape, acc_dtype, x0.device());
  }
  Job job{op == SDK_MEAN, red};
  run_op(op, x0, *x, mask, *acc, job, name);
  Ref res = acc;
  if (acc_dtype != out_dtype) res = to_dtype(*acc, out_dtype, false);
  return finish_out(res, out, name);
}

}  // namespace
}  // namespace sdk::detail::k2

using namespace sdk::detail;
using namespace sdk::detail::k2;

extern "C" {

SDK_API sdk_status sdk_reduce(int32_t op, const sdk_tensor* x, int64_t ndims, const int64_t* dims,
                              int32_t keepdim, sdk_dtype dtype, sdk_tensor* out,
                              sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(op >= 0 && op < kReduceOps, "sdk_reduce: unknown reduction op ", op);
  const char* name = op_name(op);
  const TensorImpl& t = checked(x, name, "x");
  if (dtype != -1) check_dtype(dtype, name);
  SDK_VALUE_CHECK(out || result, name, ": both out and result are NULL");
  std::vector<bool> mask = dims_mask(t, ndims, dims, name);
  set_result(result, reduce_impl(op, t, mask, keepdim != 0, dtype, out, name));
  SDK_SAFE_CALL_END;
}

}  // extern "C"
