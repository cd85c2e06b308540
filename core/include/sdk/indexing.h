// sdk/indexing.h: torch::indexing for C++ -- x.index({Slice(1, None), 0, None, Ellipsis, t}).
//
// Same meaning as Python's x[1:, 0, None, ..., t]: integers select (as torch's C++ API does,
// also next to tensor indices), slices and None make views, integer/bool tensors index
// (advanced indexing, numpy's placement of the broadcast dims). index_put_ assigns.
#ifndef SDK_INDEXING_H_
#define SDK_INDEXING_H_

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <vector>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
namespace indexing {

struct NoneIndexType {};
struct EllipsisIndexType {};
/*! \brief Python's None: a new dim of size 1 (also an absent Slice bound). */
constexpr NoneIndexType None{};
/*! \brief Python's `...`. */
constexpr EllipsisIndexType Ellipsis{};

/*! \brief A Slice bound: an integer or None. */
class SliceBound {
 public:
  SliceBound(NoneIndexType) {}  // NOLINT: implicit
  template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
  SliceBound(T v) : set_(true), v_(static_cast<int64_t>(v)) {}  // NOLINT: implicit
  int64_t value_or(int64_t d) const { return set_ ? v_ : d; }
  bool has_value() const { return set_; }

 private:
  bool set_ = false;
  int64_t v_ = 0;
};

/*! \brief Python's start:stop:step; Slice() is `:`. */
class Slice {
 public:
  Slice(SliceBound start = None, SliceBound stop = None, SliceBound step = None)  // NOLINT
      : start_(start), stop_(stop), step_(step) {}
  int64_t start() const { return start_.value_or(0); }
  int64_t stop() const { return stop_.value_or(std::numeric_limits<int64_t>::max()); }
  int64_t step() const { return step_.value_or(1); }

 private:
  SliceBound start_, stop_, step_;
};

/*! \brief One entry of an index list: integer, bool, Slice, None, Ellipsis or Tensor. */
class TensorIndex {
 public:
  enum Kind { kInt, kBool, kSlice, kNone, kEllipsis, kTensor };
  TensorIndex(NoneIndexType) : kind_(kNone) {}          // NOLINT: implicit
  TensorIndex(EllipsisIndexType) : kind_(kEllipsis) {}  // NOLINT: implicit
  TensorIndex(const char* s) : kind_(kEllipsis) {       // NOLINT: "..." as in torch
    SDK_CHECK_VALUE(s && std::string(s) == "...", "index: the only string index is \"...\"");
  }
  TensorIndex(Slice s) : kind_(kSlice), slice_(s) {}               // NOLINT: implicit
  TensorIndex(Tensor t) : kind_(kTensor), tensor_(std::move(t)) {  // NOLINT: implicit
    SDK_CHECK_VALUE(tensor_.defined(), "index: an undefined tensor is not an index");
  }
  template <typename T, std::enable_if_t<std::is_same<T, bool>::value, int> = 0>
  TensorIndex(T b) : kind_(kBool), int_(b ? 1 : 0) {}  // NOLINT: implicit
  template <typename T,
            std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  TensorIndex(T v) : kind_(kInt), int_(static_cast<int64_t>(v)) {}  // NOLINT: implicit

  Kind kind() const { return kind_; }
  int64_t integer() const { return int_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t int_ = 0;
  Slice slice_;
  Tensor tensor_;
};

namespace detail {

// Basic indices applied as views; the advanced (tensor) ones left as (dim, long index) pairs.
struct Applied {
  Tensor view;
  std::vector<int64_t> dims;
  std::vector<Tensor> index;
};

inline Applied apply_basic(const Tensor& self, const TensorIndex* idx, size_t n) {
  int64_t consumed = 0;
  bool ellipsis = false;
  for (size_t i = 0; i < n; ++i) {
    switch (idx[i].kind()) {
      case TensorIndex::kInt:
      case TensorIndex::kSlice:
        ++consumed;
        break;
      case TensorIndex::kTensor: {
        const Tensor& t = idx[i].tensor();
        consumed += t.scalar_type() == kBool ? t.dim() : 1;
        break;
      }
      case TensorIndex::kEllipsis:
        SDK_CHECK_INDEX(!ellipsis, "index: an index can only have a single ellipsis ('...')");
        ellipsis = true;
        break;
      default:
        break;
    }
  }
  SDK_CHECK_INDEX(consumed <= self.dim(), "index: too many indices for tensor of dimension ",
                  self.dim(), " (got ", consumed, ")");
  Applied a{self, {}, {}};
  int64_t dim = 0;
  for (size_t i = 0; i < n; ++i) {
    const TensorIndex& e = idx[i];
    switch (e.kind()) {
      case TensorIndex::kInt:
        a.view = a.view.select(dim, e.integer());
        break;
      case TensorIndex::kSlice:
        a.view = a.view.slice(dim, e.slice().start(), e.slice().stop(), e.slice().step());
        ++dim;
        break;
      case TensorIndex::kNone:
        a.view = a.view.unsqueeze(dim++);
        break;
      case TensorIndex::kBool:
        a.view = a.view.unsqueeze(dim);
        if (!e.integer()) a.view = a.view.slice(dim, 0, 0);
        ++dim;
        break;
      case TensorIndex::kEllipsis:
        dim += self.dim() - consumed;
        break;
      case TensorIndex::kTensor: {
        const Tensor& t = e.tensor();
        if (t.scalar_type() == kBool) {
          Tensor nz = t.nonzero();  // (N, t.dim()): one long index per masked dim
          for (int64_t k = 0; k < t.dim(); ++k) {
            a.dims.push_back(dim + k);
            a.index.push_back(nz.select(1, k));
          }
          dim += t.dim();
        } else {
          SDK_CHECK_TYPE(!t.is_floating_point(),
                         "index: tensors used as indices must be long, "
                         "int or bool tensors, got ",
                         t.scalar_type());
          a.dims.push_back(dim++);
          a.index.push_back(t);
        }
        break;
      }
    }
  }
  return a;
}

// The indexed dims of `a.view` moved to the front, in order (for sdk_index/index_put_).
inline Tensor front(const Applied& a) {
  std::vector<int64_t> perm(a.dims);
  for (int64_t d = 0; d < a.view.dim(); ++d) {
    bool used = false;
    for (int64_t u : a.dims) used = used || u == d;
    if (!used) perm.push_back(d);
  }
  return a.view.permute(perm);
}

// numpy keeps the broadcast index dims in place when the indexed dims are adjacent.
inline int64_t placement(const Applied& a) {
  for (size_t i = 1; i < a.dims.size(); ++i) {
    if (a.dims[i] != a.dims[i - 1] + 1) return 0;
  }
  return a.dims.empty() ? 0 : a.dims[0];
}

// Moves `count` dims starting at `from` to start at `to` (a permutation).
inline Tensor move_block(const Tensor& t, int64_t from, int64_t count, int64_t to) {
  if (from == to || count == 0) return t;
  std::vector<int64_t> rest, perm;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < from || d >= from + count) rest.push_back(d);
  }
  for (int64_t i = 0; i < to; ++i) perm.push_back(rest[i]);
  for (int64_t i = 0; i < count; ++i) perm.push_back(from + i);
  for (size_t i = to; i < rest.size(); ++i) perm.push_back(rest[i]);
  return t.permute(perm);
}

inline Tensor index(const Tensor& self, const TensorIndex* idx, size_t n) {
  Applied a = apply_basic(self, idx, n);
  if (a.index.empty()) return a.view;
  Tensor r = sdk::index(front(a), a.index);
  const int64_t nb = r.dim() - (a.view.dim() - static_cast<int64_t>(a.dims.size()));
  return move_block(r, 0, nb, placement(a));
}

inline void index_put(const Tensor& self, const TensorIndex* idx, size_t n, const Tensor& v) {
  Applied a = apply_basic(self, idx, n);
  if (a.index.empty()) {
    a.view.copy_(v);
    return;
  }
  // The value broadcasts against x[idx] (numpy layout); index_put_ wants index-first.
  Tensor shaped = index(self, idx, n);
  Tensor vv = v.expand(shaped.sizes());
  const int64_t nb = shaped.dim() - (a.view.dim() - static_cast<int64_t>(a.dims.size()));
  vv = move_block(vv, placement(a), nb, 0);
  front(a).index_put_(TensorList(a.index), vv.to(self.scalar_type()));
}

}  // namespace detail
}  // namespace indexing

inline Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return indexing::detail::index(*this, indices.begin(), indices.size());
}
inline Tensor Tensor::index(const std::vector<indexing::TensorIndex>& indices) const {
  return indexing::detail::index(*this, indices.data(), indices.size());
}
inline const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices,
                                        const Tensor& values) const {
  indexing::detail::index_put(*this, indices.begin(), indices.size(), values);
  return *this;
}
inline const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices,
                                        const Scalar& value) const {
  indexing::detail::index_put(*this, indices.begin(), indices.size(), full({}, value, options()));
  return *this;
}
inline const Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices,
                                        const Tensor& values) const {
  indexing::detail::index_put(*this, indices.data(), indices.size(), values);
  return *this;
}
inline const Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices,
                                        const Scalar& value) const {
  indexing::detail::index_put(*this, indices.data(), indices.size(), full({}, value, options()));
  return *this;
}

}  // namespace sdk

#endif  // SDK_INDEXING_H_
