// sdk/accessor.h: TensorAccessor and PackedTensorAccessor32/64, typed N-d indexing usable in CUDA
// kernels.
#ifndef SDK_ACCESSOR_H_
#define SDK_ACCESSOR_H_

#include <cstddef>
#include <cstdint>

#include "sdk/macros.h"

namespace sdk {

/*! \brief Plain element pointers. */
template <typename T>
struct DefaultPtrTraits {
  typedef T* PtrType;
};

/*! \brief __restrict__ element pointers: promises the compiler no aliasing. */
template <typename T>
struct RestrictPtrTraits {
  typedef T* SDK_RESTRICT PtrType;
};

/*! \brief Common part of the accessors: data pointer plus sizes/strides (in elements)
 *  that live elsewhere (the tensor, or the enclosing packed accessor). */
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;

  SDK_HOST_DEVICE TensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  SDK_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  SDK_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  SDK_HOST_DEVICE PtrType data() { return data_; }
  SDK_HOST_DEVICE const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

/*! \brief Indexes a CPU tensor: a[i][j] is a sub-accessor, then a T& at the last dim.
 *  Valid while the tensor lives. Obtained from Tensor::accessor<T, N>(). */
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor : public TensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;

  SDK_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : TensorAccessorBase<T, N, PtrTraits, index_t>(data, sizes, strides) {}

  SDK_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i,
                                                        this->sizes_ + 1, this->strides_ + 1);
  }
  SDK_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i,
                                                        this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t>
    : public TensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;

  SDK_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : TensorAccessorBase<T, 1, PtrTraits, index_t>(data, sizes, strides) {}
  SDK_HOST_DEVICE T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  SDK_HOST_DEVICE const T& operator[](index_t i) const {
    return this->data_[this->strides_[0] * i];
  }
};

/*! \brief Like TensorAccessor but holding copies of sizes and strides, so it can be passed
 *  by value to a __global__ kernel. Sub-accessors point into it: keep it alive meanwhile. */
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;

  // Copies sizes/strides from the source type (int64 in a tensor) into index_t arrays.
  template <typename source_index_t>
  SDK_HOST_DEVICE GenericPackedTensorAccessorBase(PtrType data, const source_index_t* sizes,
                                                  const source_index_t* strides)
      : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = static_cast<index_t>(sizes[i]);
      strides_[i] = static_cast<index_t>(strides[i]);
    }
  }
  SDK_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  SDK_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  SDK_HOST_DEVICE PtrType data() { return data_; }
  SDK_HOST_DEVICE const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessor
    : public GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;

  template <typename source_index_t>
  SDK_HOST_DEVICE GenericPackedTensorAccessor(PtrType data, const source_index_t* sizes,
                                              const source_index_t* strides)
      : GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t>(data, sizes, strides) {}

  SDK_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i,
                                                        this->sizes_ + 1, this->strides_ + 1);
  }
  SDK_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i,
                                                        this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t>
    : public GenericPackedTensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;

  template <typename source_index_t>
  SDK_HOST_DEVICE GenericPackedTensorAccessor(PtrType data, const source_index_t* sizes,
                                              const source_index_t* strides)
      : GenericPackedTensorAccessorBase<T, 1, PtrTraits, index_t>(data, sizes, strides) {}

  SDK_HOST_DEVICE T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  SDK_HOST_DEVICE const T& operator[](index_t i) const {
    return this->data_[this->strides_[0] * i];
  }
};

/*! \brief Packed accessor with 32-bit indexing (faster in kernels; sizes must fit). */
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
/*! \brief Packed accessor with 64-bit indexing. */
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
/*! \brief torch's older name, with the index type as a parameter (64-bit by default). */
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;

/*! \brief torch's header-only spellings of the accessors (torch/headeronly/core/
 *  TensorAccessor.h), which stable-ABI kernels build from data_ptr(), sizes() and strides(). */
namespace headeronly {
using ::sdk::DefaultPtrTraits;
using ::sdk::RestrictPtrTraits;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
using HeaderOnlyTensorAccessor = TensorAccessor<T, N, PtrTraits, index_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
using HeaderOnlyGenericPackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;
}  // namespace headeronly

}  // namespace sdk

#endif  // SDK_ACCESSOR_H_
