// core/src/cuda/backend/fast_path.h: the host-side choice between the contiguous fast
// elementwise kernels and the general strided ones, and the split of long problems into
// launches that index in 32 bits. Plain C++ (no CUDA header): the kernels' launchers and the
// host-memory test backend both call it, so tests see the choice the GPU build makes.
#pragma once

#include <stdint.h>

#include "../backend_api.h"

namespace sdk::cuda::fast {

// Elements per launch of a fast kernel: indices and tile ends stay below 2^32 in uint32.
// A multiple of every vector width, so each chunk's pointers keep the first one's alignment.
constexpr int64_t kIndexLimit = int64_t{1} << 31;
// Bytes per vector access.
constexpr int kVectorBytes = 16;

enum Path { kStrided = 0, kContiguous = 1 };

struct Plan {
  int path;      // kStrided or kContiguous
  int vec;       // elements per 16-byte access (1: some pointer is not 16-byte aligned)
  int itemsize;  // bytes per element of the (single) dtype
};

// Bytes per element of the dtypes the fast kernels handle; 0 for the others.
inline int fast_itemsize(int dtype) {
  switch (dtype) {
    case SDK_FLOAT16:
    case SDK_BFLOAT16:
      return 2;
    case SDK_FLOAT32:
      return 4;
    case SDK_FLOAT64:
      return 8;
    default:
      return 0;
  }
}

// True when, after the glue merged dims, the problem is one contiguous run and every tensor
// operand (output included) has the output's dtype (scalars are converted anyway).
inline bool contiguous_one_dtype(const sdk_cuda_iter& it, int itemsize) {
  if (it.ndim > 1 || itemsize == 0) return false;
  for (int k = 0; k < it.nops; ++k) {
    const sdk_cuda_operand& o = it.ops[k];
    if (o.is_scalar) continue;
    if (o.dtype != it.ops[0].dtype) return false;
    if (it.ndim == 1 && o.strides[0] != itemsize) return false;
  }
  return true;
}

// Elements per vector access: 16 bytes' worth when every tensor pointer is 16-byte aligned,
// else 1 (the scalar kernel).
inline int vector_width(const sdk_cuda_iter& it, int itemsize) {
  for (int k = 0; k < it.nops; ++k) {
    const sdk_cuda_operand& o = it.ops[k];
    if (o.is_scalar) continue;
    if (reinterpret_cast<uintptr_t>(o.data) % kVectorBytes != 0) return 1;
  }
  return kVectorBytes / itemsize;
}

inline Plan plan_elementwise(const sdk_cuda_iter& it) {
  int isz = fast_itemsize(it.ops[0].dtype);
  if (it.numel <= 0 || !contiguous_one_dtype(it, isz)) return Plan{kStrided, 1, isz};
  return Plan{kContiguous, vector_width(it, isz), isz};
}

// Number of launches for numel elements at `limit` elements each.
inline int64_t chunk_count(int64_t numel, int64_t limit = kIndexLimit) {
  return numel <= 0 ? 0 : (numel + limit - 1) / limit;
}

// Calls f(sub) for each launch: `sub` is `it` advanced to the chunk's first element, with
// numel at most `limit` (a multiple of the vector width keeps every chunk aligned).
template <typename F>
void for_each_chunk(const sdk_cuda_iter& it, int itemsize, F&& f, int64_t limit = kIndexLimit) {
  for (int64_t start = 0; start < it.numel; start += limit) {
    sdk_cuda_iter sub = it;
    sub.numel = it.numel - start < limit ? it.numel - start : limit;
    for (int k = 0; k < it.nops; ++k) {
      if (!sub.ops[k].is_scalar) sub.ops[k].data += start * itemsize;
    }
    f(sub);
  }
}

// ---- reductions

enum ReducePath {
  kReduceGeneral = 0,  // the strided kernel (reduce.cu)
  kReduceFull = 1,     // one output over one contiguous run
  kReduceInner = 2,    // rows x cols contiguous, one output per row (cols reduced)
  kReduceOuter = 3,    // rows x cols contiguous, one output per column (rows reduced)
};

struct ReducePlan {
  int path;
  int vec;  // elements per vector load, 16 bytes (8 for kReduceOuter); 1: unaligned base or pitch
  int itemsize;
  int64_t rows, cols;  // the input as a rows x cols row-major matrix
};

// Dims (sizes, strides in bytes) that form one run with innermost stride `inner`; size-1
// dims are ignored. *n: elements in the run.
inline bool one_run(int ndim, const int64_t* sizes, const int64_t* strides, int64_t inner,
                    int64_t* n) {
  int64_t expect = inner, total = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expect) return false;
    expect *= sizes[d];
    total *= sizes[d];
  }
  *n = total;
  return true;
}

inline bool fast_reduce_op(int op) {
  return op == SDK_SUM || op == SDK_MEAN || op == SDK_AMAX || op == SDK_AMIN;
}

// Bytes per thread per row of an outer reduction: a warp reads 32 x 8 adjacent bytes of a
// row, so 16-bit inputs keep as many bytes in flight as float32 ones (4 columns a thread).
constexpr int kOuterVectorBytes = 8;

inline int vector_width_rows(const void* base, int64_t row_bytes, int itemsize,
                             int bytes = kVectorBytes) {
  bool aligned = reinterpret_cast<uintptr_t>(base) % bytes == 0 && row_bytes % bytes == 0;
  return aligned && itemsize < bytes ? bytes / itemsize : 1;
}

inline ReducePlan plan_reduce(const sdk_cuda_reduce_desc& d) {
  const int isz = fast_itemsize(d.in_dtype);
  ReducePlan p{kReduceGeneral, 1, isz, 0, 0};
  if (isz == 0 || !fast_reduce_op(d.op) || d.red_numel <= 0 || d.out_numel <= 0 ||
      fast_itemsize(d.out_dtype) == 0) {
    return p;
  }
  int64_t nr = 0, no = 0;
  if (one_run(d.red_ndim, d.red_sizes, d.in_red_strides, isz, &nr)) {
    if (d.out_numel == 1)
      return ReducePlan{kReduceFull, vector_width_rows(d.in, 0, isz), isz, 1, nr};
    if (one_run(d.out_ndim, d.out_sizes, d.in_out_strides, nr * isz, &no)) {
      return ReducePlan{kReduceInner, vector_width_rows(d.in, nr * isz, isz), isz, no, nr};
    }
    return p;
  }
  if (one_run(d.out_ndim, d.out_sizes, d.in_out_strides, isz, &no) &&
      one_run(d.red_ndim, d.red_sizes, d.in_red_strides, no * isz, &nr)) {
    return ReducePlan{kReduceOuter, vector_width_rows(d.in, no * isz, isz, kOuterVectorBytes), isz,
                      nr, no};
  }
  return p;
}

}  // namespace sdk::cuda::fast
