// sdk/composite.h: torch's composite ops, built from the other ops of the C++ API (no C ABI of
// their own): the comparison and sign aliases, splits, flips and stacks, scatters into a view,
// (the math ones in sdk/composite_math.h). Methods are declared in sdk/tensor_composite_decl.h
// (inside class Tensor); their bodies are at the end of this file.
#ifndef SDK_COMPOSITE_H_
#define SDK_COMPOSITE_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sdk/layout.h"
#include "sdk/linalg.h"
#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/ops_bits.h"
#include "sdk/ops_data.h"
#include "sdk/ops_out.h"
#include "sdk/tensor_base.h"
#include "sdk/util.h"

namespace sdk {
namespace detail {

constexpr double kPi = 3.14159265358979323846;

// Integer and bool inputs of a float-valued op computed in the default float dtype (torch's
// rule for deg2rad, sinc, float_power's exponent ...).
inline Tensor as_floating(const Tensor& self) {
  return self.is_floating_point() ? self : self.to(kFloat);
}
// SDK_CHECK_TENSOR_ALL's test: a bool tensor whose elements are all true.
inline bool all_true(const Tensor& cond) {
  SDK_CHECK_TYPE(cond.scalar_type() == kBool, "cond tensor must have dtype bool, got ",
                 toString(cond.scalar_type()));
  return cond.all().item<bool>();
}
// A 1-d float64 tensor of host values, converted to the options' dtype (default float32).
inline Tensor host_values(const std::vector<double>& v, const TensorOptions& options) {
  const ScalarType dtype = options.has_dtype() ? options.scalar_type() : kFloat;
  return tensor(v, TensorOptions(kDouble)).to(dtype).to(options.device());
}

}  // namespace detail

// ---- aliases (torch keeps several spellings of one op) -----------------------------------
inline Tensor absolute(const Tensor& self) { return self.abs(); }
inline Tensor negative(const Tensor& self) { return self.neg(); }
/*! \brief self itself (torch's unary plus); refused for bool, as torch. */
inline Tensor positive(const Tensor& self) {
  SDK_CHECK_TYPE(self.scalar_type() != kBool,
                 "The `+` operator, on a bool tensor is not supported.");
  return self;
}
inline Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  return self.sub(other, alpha);
}
inline Tensor subtract(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {
  return self.sub(other, alpha);
}
#define SDK_DETAIL_COMPARE_ALIAS(alias, op)                                                     \
  inline Tensor alias(const Tensor& self, const Tensor& other) { return self.op(other); }       \
  inline Tensor alias(const Tensor& self, const Scalar& other) { return self.op(other); }       \
  inline Tensor Tensor::alias(const Tensor& other) const { return op(other); }                  \
  inline Tensor Tensor::alias(const Scalar& other) const { return op(other); }                  \
  inline const Tensor& Tensor::alias##_(const Tensor& other) const { return copy_(op(other)); } \
  inline const Tensor& Tensor::alias##_(const Scalar& other) const { return copy_(op(other)); }
SDK_DETAIL_COMPARE_ALIAS(greater, gt)
SDK_DETAIL_COMPARE_ALIAS(greater_equal, ge)
SDK_DETAIL_COMPARE_ALIAS(less, lt)
SDK_DETAIL_COMPARE_ALIAS(less_equal, le)
SDK_DETAIL_COMPARE_ALIAS(not_equal, ne)
#undef SDK_DETAIL_COMPARE_ALIAS
inline Tensor concat(TensorList tensors, int64_t dim = 0) { return cat(tensors, dim); }
inline Tensor concatenate(TensorList tensors, int64_t dim = 0) { return cat(tensors, dim); }
inline Tensor row_stack(TensorList tensors) { return vstack(tensors); }
inline Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}
inline Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return self.movedim(source, destination);
}
inline Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}
inline Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return self.movedim(source, destination);
}
inline Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) {
  return self.transpose(axis0, axis1);
}
inline Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) {
  return self.transpose(dim0, dim1);
}
/*! \brief The elements as a 1-d tensor (a view when the tensor is contiguous). */
inline Tensor ravel(const Tensor& self) { return self.reshape({-1}); }
inline Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.expand(size); }
inline Tensor argwhere(const Tensor& self) { return self.nonzero(); }
// ATen's free-function forms of a few methods
inline int64_t size(const Tensor& tensor, int64_t dim) { return tensor.size(dim); }
inline int64_t stride(const Tensor& tensor, int64_t dim) { return tensor.stride(dim); }
inline Tensor detach(const Tensor& self) { return self.detach(); }
inline bool equal(const Tensor& self, const Tensor& other) { return self.equal(other); }
inline Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  return self.unflatten(dim, sizes);
}
/*! \brief A copy of self filled with value (out of place). */
inline Tensor fill(const Tensor& self, const Scalar& value) {
  return empty_like(self).fill_(value);
}
inline Tensor zero(const Tensor& self) { return zeros_like(self); }
/*! \brief A copy of self with src's values (broadcast to self's shape) in self's dtype. */
inline Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking = false) {
  Tensor out = empty_like(self);
  out.copy_(src, non_blocking);
  return out;
}
inline Tensor matrix_power(const Tensor& self, int64_t n) { return self.matrix_power(n); }
inline Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2,
                   const Scalar& beta = 1, const Scalar& alpha = 1) {
  return self.addr(vec1, vec2, beta, alpha);
}
inline Tensor adjoint(const Tensor& self) { return self.adjoint(); }
inline Tensor msort(const Tensor& self) { return std::get<0>(self.sort(0)); }
inline Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length).clone(MemoryFormat::Contiguous);
}
inline std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim = 0) {
  return chunk(self, chunks, dim);
}
inline std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim = 0) {
  return split(self, split_size, dim);
}
inline std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                                   int64_t dim = 0) {
  return split_with_sizes(self, split_sizes, dim);
}

// ---- splits ------------------------------------------------------------------------------
/*! \brief `sections` pieces along dim, the first size % sections one element longer (views). */
inline std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0) {
  SDK_CHECK_VALUE(self.dim() > 0,
                  "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                  "with 0 dims");
  SDK_CHECK_VALUE(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  const int64_t size = self.size(d), each = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = each + (i < extra ? 1 : 0);
    out.push_back(self.narrow(d, start, len));
    start += len;
  }
  return out;
}
/*! \brief Pieces between the split points `indices` along dim (clamped to the size; views). */
inline std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0) {
  SDK_CHECK_VALUE(self.dim() > 0,
                  "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
                  "with 0 dims");
  const int64_t d = maybe_wrap_dim(dim, self.dim()), size = self.size(d);
  auto clamp = [size](int64_t i) {
    if (i < 0) i += size;
    return i < 0 ? int64_t(0) : (i > size ? size : i);
  };
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t index : indices) {
    const int64_t stop = clamp(index), from = start > stop ? stop : start;
    out.push_back(self.slice(d, from, stop));
    start = stop > start ? stop : start;
  }
  out.push_back(self.slice(d, start, size));
  return out;
}
/*! \brief A 0-d tensor gives the number of sections, a 1-d int64 tensor the split points. */
inline std::vector<Tensor> tensor_split(const Tensor& self,
                                        const Tensor& tensor_indices_or_sections, int64_t dim = 0) {
  const Tensor& t = tensor_indices_or_sections;
  SDK_CHECK_VALUE(t.is_cpu(), "tensor_split expected tensor_indices_or_sections to be on cpu");
  SDK_CHECK_TYPE(t.scalar_type() == kLong,
                 "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
                 toString(t.scalar_type()));
  SDK_CHECK_VALUE(t.dim() <= 1,
                  "tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                  "or one-dimensional tensor, but got a tensor with ",
                  t.dim(), " dims");
  if (t.dim() == 0) return tensor_split(self, t.item<int64_t>(), dim);
  Tensor c = t.contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return tensor_split(self, IntArrayRef(p, static_cast<size_t>(c.numel())), dim);
}
namespace detail {
inline std::vector<Tensor> split_even(const Tensor& self, int64_t sections, int64_t dim,
                                      const char* op) {
  SDK_CHECK_VALUE(sections != 0 && self.size(dim) % sections == 0, "torch.", op,
                  " attempted to split along dimension ", dim, ", but the size of the dimension ",
                  self.size(dim), " is not divisible by the split_size ", sections, "!");
  return tensor_split(self, sections, dim);
}
inline void check_min_dims(const Tensor& self, int64_t n, const char* op) {
  SDK_CHECK_VALUE(self.dim() >= n, "torch.", op, " requires a tensor with at least ", n,
                  " dimension", n > 1 ? "s" : "", ", but got a tensor with ", self.dim(),
                  " dimensions!");
}
}  // namespace detail
inline std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  detail::check_min_dims(self, 1, "hsplit");
  return detail::split_even(self, sections, self.dim() == 1 ? 0 : 1, "hsplit");
}
inline std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  detail::check_min_dims(self, 1, "hsplit");
  return tensor_split(self, indices, self.dim() == 1 ? 0 : 1);
}
inline std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  detail::check_min_dims(self, 2, "vsplit");
  return detail::split_even(self, sections, 0, "vsplit");
}
inline std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  detail::check_min_dims(self, 2, "vsplit");
  return tensor_split(self, indices, 0);
}
inline std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  detail::check_min_dims(self, 3, "dsplit");
  return detail::split_even(self, sections, 2, "dsplit");
}
inline std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  detail::check_min_dims(self, 3, "dsplit");
  return tensor_split(self, indices, 2);
}

// ---- shapes, flips and stacks ------------------------------------------------------------
/*! \brief The tensor repeated `dims` times per dim (dims padded with leading 1s either way). */
inline Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> reps(dims.begin(), dims.end());
  if (static_cast<int64_t>(reps.size()) < self.dim()) {
    reps.insert(reps.begin(), static_cast<size_t>(self.dim()) - reps.size(), 1);
  }
  return self.repeat(reps);
}
inline Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
inline Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}
inline Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  return self.dim() == 2 ? self.unsqueeze(-1) : self;
}
#define SDK_DETAIL_ATLEAST_LIST(name)                       \
  inline std::vector<Tensor> name(TensorList tensors) {     \
    std::vector<Tensor> out;                                \
    for (const Tensor& t : tensors) out.push_back(name(t)); \
    return out;                                             \
  }
SDK_DETAIL_ATLEAST_LIST(atleast_1d)
SDK_DETAIL_ATLEAST_LIST(atleast_2d)
SDK_DETAIL_ATLEAST_LIST(atleast_3d)
#undef SDK_DETAIL_ATLEAST_LIST
inline Tensor fliplr(const Tensor& self) {
  SDK_CHECK_VALUE(self.dim() >= 2, "Input must be >= 2-d.");
  return self.flip({1});
}
inline Tensor flipud(const Tensor& self) {
  SDK_CHECK_VALUE(self.dim() >= 1, "Input must be >= 1-d.");
  return self.flip({0});
}
/*! \brief Rotation by 90 degrees k times in the plane of `dims`, from the first towards the
 *  second (a copy, as torch). */
inline Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1}) {
  SDK_CHECK_VALUE(dims.size() == 2,
                  "expected total rotation dims == 2, but got dims = ", dims.size());
  SDK_CHECK_VALUE(self.dim() >= 2, "expected total dims >= 2, but got total dims = ", self.dim());
  const int64_t d0 = maybe_wrap_dim(dims[0], self.dim());
  const int64_t d1 = maybe_wrap_dim(dims[1], self.dim());
  SDK_CHECK_VALUE(d0 != d1, "expected rotation dims to be different, but got dim0 = ", d0,
                  " and dim1 = ", d1);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return self.flip({d1}).transpose(d0, d1);
    case 2:
      return self.flip({d0, d1});
    case 3:
      return self.flip({d0}).transpose(d0, d1);
    default:
      return self.clone(MemoryFormat::Contiguous);
  }
}
/*! \brief The flattened input on the `offset` diagonal of a square matrix. */
inline Tensor diagflat(const Tensor& self, int64_t offset = 0) {
  return self.reshape({-1}).diag(offset);
}
/*! \brief Columns side by side: 0-d and 1-d tensors become columns, then hstack. */
inline Tensor column_stack(TensorList tensors) {
  SDK_CHECK_VALUE(!tensors.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> cols;
  for (const Tensor& t : tensors) cols.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return hstack(cols);
}
/*! \brief Concatenation along the third dim of the tensors made at least 3-d. */
inline Tensor dstack(TensorList tensors) {
  SDK_CHECK_VALUE(!tensors.empty(), "dstack expects a non-empty TensorList");
  return cat(atleast_3d(tensors), 2);
}
/*! \brief The tensors (0-d, 1-d or 2-d) on the diagonal of a zero matrix, in their promoted
 *  dtype. */
inline Tensor block_diag(TensorList tensors) {
  std::vector<Tensor> blocks;
  ScalarType dtype = tensors.empty() ? kFloat : tensors[0].scalar_type();
  int64_t rows = 0, cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    SDK_CHECK_VALUE(t.dim() <= 2,
                    "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                    "Input ",
                    i, " has ", t.dim(), " dimensions");
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, t.dim() == 0 ? 1 : t.numel()}));
    dtype = promote_types(dtype, t.scalar_type());
    rows += blocks.back().size(0);
    cols += blocks.back().size(1);
  }
  TensorOptions options(dtype);
  if (!tensors.empty()) options = options.device(tensors[0].device());
  Tensor out = zeros({rows, cols}, options);
  int64_t r = 0, c = 0;
  for (const Tensor& b : blocks) {
    out.narrow(0, r, b.size(0)).narrow(1, c, b.size(1)).copy_(b);
    r += b.size(0);
    c += b.size(1);
  }
  return out;
}
/*! \brief Every combination of the 1-d inputs' elements, one per row. */
inline Tensor cartesian_prod(TensorList tensors) {
  for (const Tensor& t : tensors) {
    SDK_CHECK_VALUE(t.dim() == 1, "Expect a 1D vector, but got shape ", t.sizes());
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij"), cols;
  for (const Tensor& g : grids) cols.push_back(g.reshape({-1}));
  return stack(cols, 1);
}

// ---- scatters into a view: a copy of self with the view replaced by src -----------------
namespace detail {
// A copy of self whose view `view_of(copy)` holds src (same sizes as the view).
template <typename View>
Tensor scatter_into_view(const Tensor& self, const Tensor& src, const View& view_of) {
  Tensor out = self.clone(MemoryFormat::Preserve);
  Tensor view = view_of(out);
  SDK_CHECK_VALUE(view.sizes() == src.sizes(),
                  "expected src to have a size equal to the slice of "
                  "self. src size = ",
                  src.sizes(), ", slice size = ", view.sizes());
  view.copy_(src);
  return out;
}
}  // namespace detail
inline Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return detail::scatter_into_view(self, src,
                                   [&](const Tensor& t) { return t.select(dim, index); });
}
inline Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                            std::optional<int64_t> start = std::nullopt,
                            std::optional<int64_t> end = std::nullopt, int64_t step = 1) {
  return detail::scatter_into_view(self, src, [&](const Tensor& t) {
    return t.slice(dim, start.value_or(0), end.value_or(INT64_MAX), step);
  });
}
inline Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0,
                               int64_t dim1 = 0, int64_t dim2 = 1) {
  return detail::scatter_into_view(self, src,
                                   [&](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}

// ---- method bodies -----------------------------------------------------------------------
inline Tensor Tensor::view_symint(SymIntArrayRef size) const { return view(size); }
inline Tensor Tensor::reshape_symint(SymIntArrayRef shape) const { return reshape(shape); }
inline Tensor Tensor::expand_symint(SymIntArrayRef size, bool implicit) const {
  return expand(size, implicit);
}
inline Tensor Tensor::repeat_symint(SymIntArrayRef repeats) const { return repeat(repeats); }
inline Tensor Tensor::narrow_symint(int64_t dim, SymInt start, SymInt length) const {
  return narrow(dim, start, length);
}
inline Tensor Tensor::select_symint(int64_t dim, SymInt index) const { return select(dim, index); }
inline Tensor Tensor::slice_symint(int64_t dim, std::optional<SymInt> start,
                                   std::optional<SymInt> end, SymInt step) const {
  return slice(dim, start ? int64_t(*start) : 0, end ? int64_t(*end) : INT64_MAX, step);
}
inline Tensor Tensor::as_strided_symint(SymIntArrayRef size, SymIntArrayRef stride,
                                        std::optional<SymInt> storage_offset) const {
  return as_strided(size, stride,
                    storage_offset ? std::optional<int64_t>(*storage_offset) : std::nullopt);
}
inline std::vector<Tensor> Tensor::split_symint(SymInt split_size, int64_t dim) const {
  return split(int64_t(split_size), dim);
}
inline std::vector<Tensor> Tensor::split_with_sizes_symint(SymIntArrayRef split_sizes,
                                                           int64_t dim) const {
  return split_with_sizes(split_sizes, dim);
}
inline Tensor Tensor::new_empty_symint(SymIntArrayRef size, const TensorOptions& options) const {
  return new_empty(size, options);
}
inline Tensor Tensor::new_zeros_symint(SymIntArrayRef size, const TensorOptions& options) const {
  return new_zeros(size, options);
}
inline Tensor Tensor::new_ones_symint(SymIntArrayRef size, const TensorOptions& options) const {
  return new_ones(size, options);
}
inline Tensor Tensor::new_full_symint(SymIntArrayRef size, const Scalar& fill_value,
                                      const TensorOptions& options) const {
  return new_full(size, fill_value, options);
}
inline Tensor Tensor::new_empty_strided(IntArrayRef size, IntArrayRef stride,
                                        const TensorOptions& options) const {
  return empty_strided(size, stride, options.merged_with(this->options()));
}
inline bool Tensor::is_nonzero() const {
  SDK_CHECK(numel() == 1, numel() == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                       : "Boolean value of Tensor with more than one value is "
                                         "ambiguous");
  return item().toDouble() != 0;
}
inline bool Tensor::is_distributed() const { return false; }
inline Tensor Tensor::to_dense(std::optional<ScalarType> dtype, std::optional<bool>) const {
  return dtype ? to(*dtype) : *this;
}
inline Tensor Tensor::tensor_data() const { return detach(); }
inline Tensor Tensor::variable_data() const { return detach(); }
inline Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                           const Scalar& alpha) const {
  Tensor prod = vec1.outer(vec2) * alpha;
  if (beta.isIntegral(false) && beta.toLong() == 0) return prod.expand(sizes()).clone();
  return *this * beta + prod;
}
inline const Tensor& Tensor::addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                                   const Scalar& alpha) const {
  return copy_(addr(vec1, vec2, beta, alpha));
}
inline Tensor Tensor::adjoint() const { return transpose(-2, -1); }
inline Tensor Tensor::mH() const { return transpose(-2, -1); }
inline Tensor Tensor::matrix_H() const { return transpose(-2, -1); }
inline Tensor Tensor::matrix_power(int64_t n) const {
  SDK_CHECK_VALUE(dim() >= 2 && size(-1) == size(-2),
                  "matrix_power: expected a square matrix "
                  "or a batch of them, got shape ",
                  sizes());
  if (n == 0) {
    return eye(size(-1), options()).expand(sizes()).clone(MemoryFormat::Contiguous);
  }
  Tensor base = n < 0 ? inverse() : *this, result;
  for (uint64_t k = n < 0 ? uint64_t(-(n + 1)) + 1 : uint64_t(n); k; k >>= 1) {
    if (k & 1) result = result.defined() ? result.matmul(base) : base;
    if (k > 1) base = base.matmul(base);
  }
  return result;
}
inline Tensor Tensor::as_strided_scatter(const Tensor& src, IntArrayRef size, IntArrayRef stride,
                                         std::optional<int64_t> storage_offset) const {
  return detail::scatter_into_view(
      *this, src, [&](const Tensor& t) { return t.as_strided(size, stride, storage_offset); });
}
inline Tensor Tensor::nonzero_static(int64_t size, int64_t fill_value) const {
  SDK_CHECK_VALUE(size >= 0, "nonzero_static: 'size' must be an non-negative integer, got ", size);
  Tensor nz = nonzero();
  const int64_t n = nz.size(0);
  if (n >= size) return nz.narrow(0, 0, size).clone(MemoryFormat::Contiguous);
  Tensor pad = full({size - n, nz.size(1)}, fill_value, nz.options());
  return cat({nz, pad}, 0);
}
inline std::vector<Tensor> Tensor::nonzero_numpy() const {
  Tensor nz = dim() == 0 ? reshape({1}).nonzero() : nonzero();
  std::vector<Tensor> out;
  for (int64_t d = 0; d < nz.size(1); ++d) out.push_back(nz.select(1, d));
  return out;
}
inline bool Tensor::is_set_to(const Tensor& tensor) const {
  return is_alias_of(tensor) && storage_offset() == tensor.storage_offset() &&
         sizes() == tensor.sizes() && strides() == tensor.strides();
}
inline bool Tensor::is_variable() const { return true; }
inline Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  SDK_CHECK_VALUE(p.toDouble() > 0, "renorm: non-positive-norm not supported");
  SDK_CHECK_VALUE(maxnorm.toDouble() >= 0, "renorm: expected maxnorm to be >= 0 but got ",
                  maxnorm.toDouble());
  SDK_CHECK_VALUE(this->dim() > 1, "renorm: input needs at least 2 dimensions, got ", this->dim(),
                  " dimensions");
  const int64_t d = maybe_wrap_dim(dim, this->dim());
  std::vector<int64_t> others;
  for (int64_t i = 0; i < this->dim(); ++i) {
    if (i != d) others.push_back(i);
  }
  Tensor norms = norm(p, others, true);
  const double mx = maxnorm.toDouble();
  return *this * sdk::where(norms.gt(mx), mx / (norms + 1e-7), ones_like(norms));
}
inline const Tensor& Tensor::renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return copy_(renorm(p, dim, maxnorm));
}
inline Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source,
                                   std::string_view reduce, bool include_self) const {
  SDK_CHECK_VALUE(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
                  "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ",
                  std::string(reduce), ".");
  SDK_CHECK_VALUE(index.dim() <= 1, "index_reduce(): Index is supposed to be a vector");
  const int64_t d = maybe_wrap_dim(dim, this->dim());
  SDK_CHECK_VALUE(source.dim() == this->dim() && index.numel() == source.size(d),
                  "index_reduce(): source must have the dims of self and index.numel() == "
                  "source.size(dim), got source ",
                  source.sizes(), " and ", index.numel(), " indices");
  std::vector<int64_t> shape(static_cast<size_t>(source.dim()), 1);
  shape[static_cast<size_t>(d)] = index.numel();
  Tensor idx = index.reshape(shape).expand(source.sizes());
  return scatter_reduce(d, idx, source, reduce, include_self);
}
inline const Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source,
                                           std::string_view reduce, bool include_self) const {
  return copy_(index_reduce(dim, index, source, reduce, include_self));
}
inline bool Tensor::is_inference() const { return false; }
inline bool Tensor::is_nested() const { return false; }
inline Tensor Tensor::absolute() const { return abs(); }
inline const Tensor& Tensor::absolute_() const { return abs_(); }
inline Tensor Tensor::negative() const { return neg(); }
inline const Tensor& Tensor::negative_() const { return neg_(); }
inline Tensor Tensor::positive() const { return sdk::positive(*this); }
inline Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  SDK_CHECK_VALUE(source.size() == destination.size(),
                  "movedim: Invalid source or destination "
                  "dims: source (",
                  source,
                  " dims) should contain the same number of dims as "
                  "destination (",
                  destination, " dims)");
  const int64_t n = dim();
  std::vector<int64_t> order(static_cast<size_t>(n), -1);
  std::vector<bool> taken(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = maybe_wrap_dim(source[i], n);
    const int64_t d = maybe_wrap_dim(destination[i], n);
    SDK_CHECK_VALUE(order[d] < 0 && !taken[s],
                    "movedim: repeated dim in `source` or "
                    "`destination` (",
                    source, " -> ", destination, ")");
    order[d] = s;
    taken[s] = true;
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o >= 0) continue;
    while (taken[next]) ++next;
    o = next++;
  }
  return permute(order);
}
inline Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return movedim(source, destination);
}
inline Tensor Tensor::ravel() const { return sdk::ravel(*this); }
inline Tensor Tensor::broadcast_to(IntArrayRef size) const { return expand(size); }
inline Tensor Tensor::argwhere() const { return nonzero(); }
inline Tensor Tensor::msort() const { return sdk::msort(*this); }
inline Tensor Tensor::narrow_copy(int64_t dim, int64_t start, int64_t length) const {
  return sdk::narrow_copy(*this, dim, start, length);
}
inline std::vector<Tensor> Tensor::unsafe_chunk(int64_t chunks, int64_t dim) const {
  return chunk(chunks, dim);
}
inline std::vector<Tensor> Tensor::unsafe_split(int64_t split_size, int64_t dim) const {
  return split(split_size, dim);
}
inline std::vector<Tensor> Tensor::unsafe_split_with_sizes(IntArrayRef split_sizes,
                                                           int64_t dim) const {
  return split_with_sizes(split_sizes, dim);
}
inline std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return sdk::tensor_split(*this, sections, dim);
}
inline std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  return sdk::tensor_split(*this, indices, dim);
}
inline std::vector<Tensor> Tensor::tensor_split(const Tensor& tensor_indices_or_sections,
                                                int64_t dim) const {
  return sdk::tensor_split(*this, tensor_indices_or_sections, dim);
}
inline std::vector<Tensor> Tensor::hsplit(int64_t sections) const {
  return sdk::hsplit(*this, sections);
}
inline std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const {
  return sdk::hsplit(*this, indices);
}
inline std::vector<Tensor> Tensor::vsplit(int64_t sections) const {
  return sdk::vsplit(*this, sections);
}
inline std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const {
  return sdk::vsplit(*this, indices);
}
inline std::vector<Tensor> Tensor::dsplit(int64_t sections) const {
  return sdk::dsplit(*this, sections);
}
inline std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const {
  return sdk::dsplit(*this, indices);
}
inline Tensor Tensor::tile(IntArrayRef dims) const { return sdk::tile(*this, dims); }
inline Tensor Tensor::fliplr() const { return sdk::fliplr(*this); }
inline Tensor Tensor::flipud() const { return sdk::flipud(*this); }
inline Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const {
  return sdk::rot90(*this, k, dims);
}
inline Tensor Tensor::diagflat(int64_t offset) const { return sdk::diagflat(*this, offset); }
inline Tensor Tensor::select_scatter(const Tensor& src, int64_t dim, int64_t index) const {
  return sdk::select_scatter(*this, src, dim, index);
}
inline Tensor Tensor::slice_scatter(const Tensor& src, int64_t dim, std::optional<int64_t> start,
                                    std::optional<int64_t> end, int64_t step) const {
  return sdk::slice_scatter(*this, src, dim, start, end, step);
}
inline Tensor Tensor::diagonal_scatter(const Tensor& src, int64_t offset, int64_t dim1,
                                       int64_t dim2) const {
  return sdk::diagonal_scatter(*this, src, offset, dim1, dim2);
}
inline Tensor Tensor::sum_to_size(IntArrayRef size) const {
  const int64_t n = dim(), m = static_cast<int64_t>(size.size()), lead = n - m;
  bool ok = lead >= 0;
  std::vector<int64_t> dims;
  for (int64_t i = 0; ok && i < n; ++i) {
    if (i < lead) {
      dims.push_back(i);
    } else if (size[i - lead] == 1 && this->size(i) != 1) {
      dims.push_back(i);
    } else {
      ok = size[i - lead] == this->size(i);
    }
  }
  SDK_CHECK_VALUE(ok, "size {", size, "} is not expandable to size {", sizes(), "}.");
  if (dims.empty()) return *this;
  return sum(dims, true).reshape(size);
}

// ---- torch's operator spellings (Tensor::__and__ ... __irshift__, at::__and__ ...) --------
namespace detail {
// An in-place op's result written back into self, with torch's checks: the shape broadcasting
// gave must be self's, and the result's dtype one that self's may take.
inline const Tensor& assign_inplace(const Tensor& self, const Tensor& result, const char* op) {
  SDK_CHECK_VALUE(result.sizes().equals(self.sizes()), op, ": output with shape ", self.sizes(),
                  " doesn't match the broadcast shape ", result.sizes());
  SDK_CHECK_TYPE(out_can_cast(result.scalar_type(), self.scalar_type()), op, ": result type ",
                 result.scalar_type(), " can't be cast to the desired output type ",
                 self.scalar_type());
  return self.copy_(result);
}
}  // namespace detail
#define SDK_DETAIL_DUNDER(name, iname, op)                                                     \
  inline Tensor Tensor::name(const Tensor& other) const { return sdk::op(*this, other); }      \
  inline Tensor Tensor::name(const Scalar& other) const { return sdk::op(*this, other); }      \
  inline const Tensor& Tensor::iname(const Tensor& other) const {                              \
    return detail::assign_inplace(*this, sdk::op(*this, other), #iname);                       \
  }                                                                                            \
  inline const Tensor& Tensor::iname(const Scalar& other) const {                              \
    return detail::assign_inplace(*this, sdk::op(*this, other), #iname);                       \
  }                                                                                            \
  inline Tensor name(const Tensor& self, const Tensor& other) { return sdk::op(self, other); } \
  inline Tensor name(const Tensor& self, const Scalar& other) { return sdk::op(self, other); }
SDK_DETAIL_DUNDER(__and__, __iand__, bitwise_and)
SDK_DETAIL_DUNDER(__or__, __ior__, bitwise_or)
SDK_DETAIL_DUNDER(__xor__, __ixor__, bitwise_xor)
SDK_DETAIL_DUNDER(__lshift__, __ilshift__, bitwise_left_shift)
SDK_DETAIL_DUNDER(__rshift__, __irshift__, bitwise_right_shift)
#undef SDK_DETAIL_DUNDER
inline const Tensor& Tensor::bitwise_left_shift_(const Tensor& other) const {
  return __ilshift__(other);
}
inline const Tensor& Tensor::bitwise_left_shift_(const Scalar& other) const {
  return __ilshift__(other);
}
inline const Tensor& Tensor::bitwise_right_shift_(const Tensor& other) const {
  return __irshift__(other);
}
inline const Tensor& Tensor::bitwise_right_shift_(const Scalar& other) const {
  return __irshift__(other);
}
}  // namespace sdk

#endif  // SDK_COMPOSITE_H_
