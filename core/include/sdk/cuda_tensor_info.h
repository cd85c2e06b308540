// sdk/cuda_tensor_info.h: torch's indexing helpers for CUDA kernels that walk strided tensors
// (ATen/cuda/detail/TensorInfo.cuh, ATen/cuda/detail/IndexUtils.cuh, ATen/CollapseDims.h):
// cuda::detail::TensorInfo, IndexToOffset, getTensorInfo, canUse32BitIndexMath,
// MAX_TENSORINFO_DIMS and collapse_dims, with torch's signatures.
//
// The host builds a TensorInfo (data pointer, sizes, strides) from a tensor and passes it to a
// kernel by value; the kernel maps a linear element index to the element's offset with
// IndexToOffset. Nothing here needs the CUDA toolkit: a plain C++ compiler builds and runs the
// host side (the test does), nvcc adds the device qualifiers.
#ifndef SDK_CUDA_TENSOR_INFO_H_
#define SDK_CUDA_TENSOR_INFO_H_

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "sdk/error.h"
#include "sdk/macros.h"
#include "sdk/tensor.h"

/*! \brief The most dimensions a TensorInfo holds (torch's limit for these kernels). */
#define MAX_TENSORINFO_DIMS 25

namespace sdk {

/*! \brief Merge the dimensions of (sizes, strides) that address memory as one would, in place
 *  (torch's at::collapse_dims). Size-1 dimensions are dropped; `excludeDim` (-1: none) is kept
 *  as a dimension of its own. Returns (the new index of excludeDim, or -1 when none was given,
 *  0 when everything collapsed to a single element; the new number of dimensions). */
template <typename T>
inline std::pair<int64_t, int64_t> collapse_dims(T* sizes, T* strides, int64_t dims,
                                                 const int excludeDim = -1) {
  SDK_CHECK(excludeDim >= -1 && excludeDim < dims, "collapse_dims: excludeDim ", excludeDim,
            " is not -1 or a dimension of a ", dims, "-d tensor");
  int64_t out = -1;  // the last dimension written
  int64_t kept = -1;
  bool merge = false;  // whether the next dimension may merge into `out`
  for (int64_t d = 0; d < dims; ++d) {
    const bool excluded = d == excludeDim;
    if (sizes[d] == 1 && !excluded) continue;
    // row-major: `out` (outer) and d (inner) are one dimension when stepping over all of d
    // lands exactly on the next element of `out`
    if (merge && !excluded && strides[out] == sizes[d] * strides[d]) {
      sizes[out] *= sizes[d];
      strides[out] = strides[d];
      continue;
    }
    ++out;
    sizes[out] = sizes[d];
    strides[out] = strides[d];
    merge = !excluded;  // nothing merges into the excluded dimension
    if (excluded) kept = out;
  }
  if (out == -1 || (out == 0 && sizes[0] == 1)) {  // a single element
    sizes[0] = 1;
    strides[0] = 1;
    return {0, 1};
  }
  return {kept, out + 1};
}

namespace cuda {
namespace detail {

/*! \brief A tensor's data pointer, sizes and strides in fixed arrays, for a kernel argument
 *  (torch's at::cuda::detail::TensorInfo). */
template <typename T, typename IndexType>
struct TensorInfo {
  TensorInfo() : data(nullptr), dims(0) {}
  TensorInfo(T* p, int dim, IndexType sz[MAX_TENSORINFO_DIMS], IndexType st[MAX_TENSORINFO_DIMS])
      : data(p), dims(dim) {
    SDK_CHECK(dim >= 0 && dim <= MAX_TENSORINFO_DIMS, "TensorInfo: a tensor of ", dim,
              " dimensions; at most ", MAX_TENSORINFO_DIMS, " are supported");
    for (int i = 0; i < dim; ++i) {
      sizes[i] = sz[i];
      strides[i] = st[i];
    }
  }

  /*! \brief Make `dim` of size 1: offsets then address the start of each reduced slice. */
  void reduceDim(int dim) {
    SDK_CHECK(dim >= 0 && dim < dims, "TensorInfo::reduceDim: dim ", dim, " is not in [0, ", dims,
              ")");
    sizes[dim] = 1;
  }

  /*! \brief collapse_dims on this info; returns the new index of excludeDim. */
  int collapseDims(const int excludeDim = -1) {
    const auto result = ::sdk::collapse_dims(sizes, strides, dims, excludeDim);
    dims = static_cast<int>(result.second);
    return static_cast<int>(result.first);
  }

  /*! \brief True for one dimension of stride 1 (what a contiguous tensor collapses to). */
  SDK_HOST_DEVICE bool isContiguous() const { return dims == 1 && strides[0] == 1; }

  T* data;
  IndexType sizes[MAX_TENSORINFO_DIMS];
  IndexType strides[MAX_TENSORINFO_DIMS];
  int dims;
};

/*! \brief The offset (in elements) of the element with row-major index `linearId`; `Dims` is
 *  the number of dimensions when known at compile time, -1 to read it from the info. */
template <typename T, typename IndexType, int Dims>
struct IndexToOffset {
  static SDK_HOST_DEVICE IndexType get(IndexType linearId, const TensorInfo<T, IndexType>& info) {
    IndexType offset = 0;
    const int dims = Dims == -1 ? info.dims : Dims;
    for (int i = dims - 1; i > 0; --i) {  // the last dimension varies fastest
      offset += (linearId % info.sizes[i]) * info.strides[i];
      linearId /= info.sizes[i];
    }
    return offset + linearId * info.strides[0];
  }
};

/*! \brief Whether every element offset of `t` (from its data pointer) and its element count
 *  stay below `max_elem`, so kernels may index it with 32-bit integers. */
inline bool canUse32BitIndexMath(const TensorBase& t,
                                 int64_t max_elem = std::numeric_limits<int32_t>::max()) {
  const int64_t n = t.numel();
  if (n >= max_elem) return false;
  if (n == 0) return max_elem > 0;
  int64_t last = 0;  // the offset of the last element: every index at its largest
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  return last < max_elem;
}

/*! \brief The TensorInfo of `t` (its data pointer includes the storage offset). Sizes, and the
 *  strides of dimensions longer than 1, must fit IndexType: check canUse32BitIndexMath before
 *  asking for 32-bit indices. */
template <typename scalar, typename IndexType>
TensorInfo<scalar, IndexType> getTensorInfo(const TensorBase& t) {
  const int64_t dims = t.dim();
  SDK_CHECK(dims <= MAX_TENSORINFO_DIMS, "getTensorInfo: a tensor of ", dims,
            " dimensions; at most ", MAX_TENSORINFO_DIMS, " are supported");
  IndexType sz[MAX_TENSORINFO_DIMS];
  IndexType st[MAX_TENSORINFO_DIMS];
  constexpr uint64_t index_max = static_cast<uint64_t>(std::numeric_limits<IndexType>::max());
  constexpr int64_t most = index_max > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                               ? std::numeric_limits<int64_t>::max()
                               : static_cast<int64_t>(index_max);
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t size = t.size(i), stride = t.stride(i);
    SDK_CHECK(size <= most && (size == 1 || (stride <= most && -stride <= most)),
              "getTensorInfo: size ", size, " or stride ", stride, " of dimension ", i,
              " does not fit the index type (check canUse32BitIndexMath first)");
    sz[i] = static_cast<IndexType>(size);
    st[i] = static_cast<IndexType>(stride);
  }
  scalar* data;
  if constexpr (std::is_const<scalar>::value) {
    data = t.const_data_ptr<std::remove_const_t<scalar>>();
  } else {
    data = t.mutable_data_ptr<scalar>();
  }
  return TensorInfo<scalar, IndexType>(data, static_cast<int>(dims), sz, st);
}

}  // namespace detail
}  // namespace cuda
}  // namespace sdk

#endif  // SDK_CUDA_TENSOR_INFO_H_
