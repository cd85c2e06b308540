// sdk/ops_struct.h: sorting, scans, scatter/index and reordering ops over the C ABI (sort, topk,
// cumsum, scatter_, index_copy_, masked_select, flip, tril, diagonal, unfold, resize_, ...):
// free functions and the bodies of their Tensor methods, with torch's names and arguments.
#ifndef SDK_OPS_STRUCT_H_
#define SDK_OPS_STRUCT_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
namespace detail {

// (values, indices) of a two-result call.
inline std::tuple<Tensor, Tensor> pair_of(sdk_tensor* values, sdk_tensor* indices) {
  return std::tuple<Tensor, Tensor>(Tensor::steal(values), Tensor::steal(indices));
}

// scatter_reduce's reduce names as the C ABI's reduction codes.
inline int32_t scatter_reduce_code(std::string_view reduce, const char* op) {
  if (reduce == "sum") return SDK_SUM;
  if (reduce == "prod") return SDK_PROD;
  if (reduce == "mean") return SDK_MEAN;
  if (reduce == "amax") return SDK_AMAX;
  if (reduce == "amin") return SDK_AMIN;
  throw_error(SDK_ERROR_VALUE,
              concat(op, ": reduce argument must be one of sum, prod, mean, amax, amin, got '",
                     std::string(reduce), "'"));
}

}  // namespace detail

// ====================================================================================
// Sorting and scans
// ====================================================================================

/*! \brief (values, indices) sorted along dim; NaN above every number; always stable. */
inline std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1,
                                       bool descending = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_sort(self.get(), dim, descending ? 1 : 0, 0, &v, &i), "sort");
  return detail::pair_of(v, i);
}
inline std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim,
                                       bool descending = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(
      sdk_sort(self.get(), dim, descending ? 1 : 0, stable.value_or(false) ? 1 : 0, &v, &i),
      "sort");
  return detail::pair_of(v, i);
}
inline Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false) {
  return std::get<1>(sort(self, dim, descending));
}
inline Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending = false) {
  return std::get<1>(sort(self, stable, dim, descending));
}
/*! \brief (values, indices) of the k largest (or smallest) elements along dim. */
inline std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                       bool largest = true, bool sorted = true) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_topk(self.get(), k, dim, largest ? 1 : 0, sorted ? 1 : 0, &v, &i),
                       "topk");
  return detail::pair_of(v, i);
}
/*! \brief (values, indices) of the k-th smallest element (k from 1) along dim. */
inline std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                           bool keepdim = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_kthvalue(self.get(), k, dim, keepdim ? 1 : 0, &v, &i), "kthvalue");
  return detail::pair_of(v, i);
}
/*! \brief (values, indices) of the lower median along dim (NaN where a NaN is). */
inline std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_median_dim(self.get(), dim, keepdim ? 1 : 0, &v, &i), "median");
  return detail::pair_of(v, i);
}
/*! \brief The lower median of all elements (0-dim). */
inline Tensor median(const Tensor& self) {
  return std::get<0>(median(self.reshape({-1}), 0, false));
}

/*! \brief Running sum along dim (integer and bool inputs give int64 unless dtype is given). */
inline Tensor cumsum(const Tensor& self, int64_t dim,
                     std::optional<ScalarType> dtype = std::nullopt) {
  SDK_DETAIL_RETURN("cumsum", sdk_cumsum(self.get(), dim, detail::opt_dtype(dtype), nullptr, &r_));
}
inline Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<ScalarType> dtype = std::nullopt) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_cumsum(self.get(), dim, detail::opt_dtype(dtype), out.get(), &r),
                       "cumsum_out");
  return detail::finish_out(out, r);
}
/*! \brief Running product along dim (dtype as cumsum). */
inline Tensor cumprod(const Tensor& self, int64_t dim,
                      std::optional<ScalarType> dtype = std::nullopt) {
  SDK_DETAIL_RETURN("cumprod",
                    sdk_cumprod(self.get(), dim, detail::opt_dtype(dtype), nullptr, &r_));
}
inline Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim,
                           std::optional<ScalarType> dtype = std::nullopt) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_cumprod(self.get(), dim, detail::opt_dtype(dtype), out.get(), &r),
                       "cumprod_out");
  return detail::finish_out(out, r);
}
/*! \brief (values, indices) of the running max along dim (the last index of equal values). */
inline std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_cummax(self.get(), dim, &v, &i), "cummax");
  return detail::pair_of(v, i);
}
/*! \brief (values, indices) of the running min along dim. */
inline std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  sdk_tensor *v = nullptr, *i = nullptr;
  detail::check_status(sdk_cummin(self.get(), dim, &v, &i), "cummin");
  return detail::pair_of(v, i);
}

// ====================================================================================
// Scatter and indexing
// ====================================================================================

/*! \brief A copy of self with self[index[i][j]][j] = src[i][j] (dim 0). */
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  SDK_DETAIL_RETURN("scatter", sdk_scatter(self.get(), dim, index.get(), src.get(), nullptr, &r_));
}
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  SDK_DETAIL_RETURN("scatter",
                    sdk_scatter_value(self.get(), dim, index.get(), value.raw(), nullptr, &r_));
}
/*! \brief A copy of self where src is combined into self[index...] by reduce ("sum",
 *  "prod", "mean", "amax", "amin"); without include_self, hit positions start from src. */
inline Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor& src, std::string_view reduce, bool include_self = true) {
  const int32_t code = detail::scatter_reduce_code(reduce, "scatter_reduce");
  SDK_DETAIL_RETURN("scatter_reduce", sdk_scatter_reduce(self.get(), dim, index.get(), src.get(),
                                                         code, include_self ? 1 : 0, nullptr, &r_));
}
/*! \brief scatter with reduce "add" or "multiply" (torch's older form). */
inline Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce) {
  if (reduce != "add" && reduce != "multiply") {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("scatter: reduce argument must be either add or "
                                       "multiply, got '",
                                       std::string(reduce), "'"));
  }
  return scatter_reduce(self, dim, index, src, reduce == "add" ? "sum" : "prod", true);
}
/*! \brief A copy of self with self.index_select(dim, index) replaced by source. */
inline Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& source) {
  SDK_DETAIL_RETURN("index_copy",
                    sdk_index_copy(self.get(), dim, index.get(), source.get(), nullptr, &r_));
}
/*! \brief A copy of self with the slices at index along dim set to value. */
inline Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                         const Scalar& value) {
  SDK_DETAIL_RETURN("index_fill",
                    sdk_index_fill(self.get(), dim, index.get(), value.raw(), nullptr, &r_));
}
inline Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& value) {
  return index_fill(self, dim, index, value.item());
}
/*! \brief The elements of self where mask is true (broadcast together), 1-D. */
inline Tensor masked_select(const Tensor& self, const Tensor& mask) {
  SDK_DETAIL_RETURN("masked_select", sdk_masked_select(self.get(), mask.get(), &r_));
}
/*! \brief A copy of self whose elements where mask is true take source's, in order. */
inline Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  SDK_DETAIL_RETURN("masked_scatter",
                    sdk_masked_scatter(self.get(), mask.get(), source.get(), nullptr, &r_));
}
/*! \brief self read as 1-D at index (negative from the end), shaped like index. */
inline Tensor take(const Tensor& self, const Tensor& index) {
  SDK_DETAIL_RETURN("take", sdk_take(self.get(), index.get(), &r_));
}
/*! \brief gather along dim with indices broadcast against self outside dim (the flattened
 *  self without dim). */
inline Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                             std::optional<int64_t> dim = std::nullopt) {
  if (!dim) return gather(self.reshape({-1}), 0, indices.reshape({-1}));
  const int64_t n = self.dim();
  if (indices.dim() != n) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("take_along_dim: input and indices should have the same "
                                       "number of dimensions, got ",
                                       n, " and ", indices.dim()));
  }
  const int64_t d = *dim < 0 ? *dim + n : *dim;
  std::vector<int64_t> xs(self.sizes().begin(), self.sizes().end());
  std::vector<int64_t> is(indices.sizes().begin(), indices.sizes().end());
  for (int64_t k = 0; k < n; ++k) {
    if (k == d) continue;
    const int64_t m = xs[k] == 1 ? is[k] : xs[k];
    xs[k] = is[k] = m;
  }
  return gather(self.expand(xs), d, indices.expand(is));
}

/*! \brief Each element (or slice along dim) repeated repeats[i] times. */
inline Tensor repeat_interleave(const Tensor& self, const Tensor& repeats,
                                std::optional<int64_t> dim = std::nullopt,
                                std::optional<int64_t> output_size = std::nullopt) {
  (void)output_size;
  SDK_DETAIL_RETURN("repeat_interleave", sdk_repeat_interleave(self.get(), repeats.get(),
                                                               dim ? 1 : 0, dim.value_or(0), &r_));
}
inline Tensor repeat_interleave(const Tensor& self, int64_t repeats,
                                std::optional<int64_t> dim = std::nullopt,
                                std::optional<int64_t> output_size = std::nullopt) {
  (void)output_size;
  if (repeats < 0) {
    detail::throw_error(SDK_ERROR_VALUE, "repeat_interleave: repeats can not be negative");
  }
  Tensor x = dim ? self : self.reshape({-1});
  if (x.dim() == 0) x = x.reshape({1});
  const int64_t n = x.dim();
  const int64_t d = !dim ? 0 : (*dim < 0 ? *dim + n : *dim);
  std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end()), expanded = sizes, out = sizes;
  expanded.insert(expanded.begin() + d + 1, repeats);
  out[d] *= repeats;
  return x.unsqueeze(d + 1).expand(expanded).reshape(out);
}
/*! \brief arange(repeats.size(0)) with element i repeated repeats[i] times. */
inline Tensor repeat_interleave(const Tensor& repeats,
                                std::optional<int64_t> output_size = std::nullopt) {
  (void)output_size;
  SDK_DETAIL_RETURN("repeat_interleave", sdk_repeat_interleave(nullptr, repeats.get(), 0, 0, &r_));
}

// ====================================================================================
// Reordering and views
// ====================================================================================

/*! \brief A copy with the order of elements along dims reversed. */
inline Tensor flip(const Tensor& self, IntArrayRef dims) {
  SDK_DETAIL_RETURN("flip", sdk_flip(self.get(), detail::len(dims), dims.data(), &r_));
}
/*! \brief Elements shifted by shifts along dims, wrapping (dims empty: the flattened tensor). */
inline Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {}) {
  SDK_DETAIL_RETURN("roll", sdk_roll(self.get(), detail::len(shifts), shifts.data(),
                                     detail::len(dims), dims.data(), &r_));
}
/*! \brief The lower triangle of the last two dims (col - row <= diagonal), the rest zero. */
inline Tensor tril(const Tensor& self, int64_t diagonal = 0) {
  SDK_DETAIL_RETURN("tril", sdk_tril(self.get(), diagonal, nullptr, &r_));
}
/*! \brief The upper triangle of the last two dims (col - row >= diagonal), the rest zero. */
inline Tensor triu(const Tensor& self, int64_t diagonal = 0) {
  SDK_DETAIL_RETURN("triu", sdk_triu(self.get(), diagonal, nullptr, &r_));
}
/*! \brief The diagonal of the (dim1, dim2) planes as a view, appended as the last dim. */
inline Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) {
  SDK_DETAIL_RETURN("diagonal", sdk_diagonal(self.get(), offset, dim1, dim2, &r_));
}
/*! \brief Zeros with self's last dim on the diagonal of the (dim1, dim2) planes. */
inline Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2,
                         int64_t dim2 = -1) {
  const int64_t n = self.dim() + 1;
  const int64_t d1 = dim1 < 0 ? dim1 + n : dim1, d2 = dim2 < 0 ? dim2 + n : dim2;
  if (d1 < 0 || d1 >= n || d2 < 0 || d2 >= n || d1 == d2) {
    detail::throw_error(SDK_ERROR_INDEX, detail::concat("diag_embed: bad dims ", dim1, ", ", dim2,
                                                        " for a result of ", n, " dims"));
  }
  const int64_t size = (self.dim() > 0 ? self.size(-1) : 1) + (offset < 0 ? -offset : offset);
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (!shape.empty()) shape.pop_back();
  shape.insert(shape.begin() + std::min(d1, d2), size);
  shape.insert(shape.begin() + std::max(d1, d2), size);
  Tensor out = zeros(shape, self.options());
  diagonal(out, offset, d1, d2).copy_(self);
  return out;
}
/*! \brief 1-D: a square matrix with self on a diagonal; 2-D: a copy of that diagonal. */
inline Tensor diag(const Tensor& self, int64_t diagonal = 0) {
  if (self.dim() == 1) return diag_embed(self, diagonal, 0, 1);
  if (self.dim() != 2) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("diag: expected a 1-D or 2-D tensor, got ",
                                                        self.dim(), "-D"));
  }
  return sdk::diagonal(self, diagonal, 0, 1).clone();
}

// ---- the Tensor methods of this file -------------------------------------------------
inline std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return sdk::sort(*this, dim, descending);
}
inline std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                               bool descending) const {
  return sdk::sort(*this, stable, dim, descending);
}
inline Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return sdk::argsort(*this, dim, descending);
}
inline std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest,
                                               bool sorted) const {
  return sdk::topk(*this, k, dim, largest, sorted);
}
inline std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return sdk::kthvalue(*this, k, dim, keepdim);
}
inline Tensor Tensor::median() const { return sdk::median(*this); }
inline std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return sdk::median(*this, dim, keepdim);
}
inline Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return sdk::cumsum(*this, dim, dtype);
}
inline const Tensor& Tensor::cumsum_(int64_t dim, std::optional<ScalarType> dtype) const {
  return detail::finish_inplace(
      *this, sdk_cumsum(get(), dim, detail::opt_dtype(dtype), get(), nullptr), "cumsum_");
}
inline Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return sdk::cumprod(*this, dim, dtype);
}
inline const Tensor& Tensor::cumprod_(int64_t dim, std::optional<ScalarType> dtype) const {
  return detail::finish_inplace(
      *this, sdk_cumprod(get(), dim, detail::opt_dtype(dtype), get(), nullptr), "cumprod_");
}
inline std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return sdk::cummax(*this, dim);
}
inline std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return sdk::cummin(*this, dim);
}
inline Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return sdk::scatter(*this, dim, index, src);
}
inline Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return sdk::scatter(*this, dim, index, value);
}
inline const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return detail::finish_inplace(
      *this, sdk_scatter(get(), dim, index.get(), src.get(), get(), nullptr), "scatter_");
}
inline const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_scatter_value(get(), dim, index.get(), value.raw(), get(), nullptr), "scatter_");
}
inline const Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                                      std::string_view reduce) const {
  if (reduce != "add" && reduce != "multiply") {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("scatter_: reduce argument must be either add or "
                                       "multiply, got '",
                                       std::string(reduce), "'"));
  }
  return scatter_reduce_(dim, index, src, reduce == "add" ? "sum" : "prod", true);
}
inline Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                                     std::string_view reduce, bool include_self) const {
  return sdk::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
inline const Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                             std::string_view reduce, bool include_self) const {
  const int32_t code = detail::scatter_reduce_code(reduce, "scatter_reduce_");
  return detail::finish_inplace(*this,
                                sdk_scatter_reduce(get(), dim, index.get(), src.get(), code,
                                                   include_self ? 1 : 0, get(), nullptr),
                                "scatter_reduce_");
}
inline Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return sdk::index_copy(*this, dim, index, source);
}
inline const Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index,
                                         const Tensor& source) const {
  return detail::finish_inplace(
      *this, sdk_index_copy(get(), dim, index.get(), source.get(), get(), nullptr), "index_copy_");
}
inline Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return sdk::index_fill(*this, dim, index, value);
}
inline const Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index,
                                         const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_index_fill(get(), dim, index.get(), value.raw(), get(), nullptr), "index_fill_");
}
inline Tensor Tensor::masked_select(const Tensor& mask) const {
  return sdk::masked_select(*this, mask);
}
inline Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return sdk::masked_scatter(*this, mask, source);
}
inline const Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  return detail::finish_inplace(*this,
                                sdk_masked_scatter(get(), mask.get(), source.get(), get(), nullptr),
                                "masked_scatter_");
}
inline Tensor Tensor::take(const Tensor& index) const { return sdk::take(*this, index); }
inline Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return sdk::take_along_dim(*this, indices, dim);
}
inline Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                        std::optional<int64_t> output_size) const {
  return sdk::repeat_interleave(*this, repeats, dim, output_size);
}
inline Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                        std::optional<int64_t> output_size) const {
  return sdk::repeat_interleave(*this, repeats, dim, output_size);
}
inline Tensor Tensor::flip(IntArrayRef dims) const { return sdk::flip(*this, dims); }
inline Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return sdk::roll(*this, shifts, dims);
}
inline Tensor Tensor::tril(int64_t diagonal) const { return sdk::tril(*this, diagonal); }
inline Tensor Tensor::triu(int64_t diagonal) const { return sdk::triu(*this, diagonal); }
inline const Tensor& Tensor::tril_(int64_t diagonal) const {
  return detail::finish_inplace(*this, sdk_tril(get(), diagonal, get(), nullptr), "tril_");
}
inline const Tensor& Tensor::triu_(int64_t diagonal) const {
  return detail::finish_inplace(*this, sdk_triu(get(), diagonal, get(), nullptr), "triu_");
}
inline Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  return sdk::diagonal(*this, offset, dim1, dim2);
}
inline Tensor Tensor::diag(int64_t diagonal) const { return sdk::diag(*this, diagonal); }
inline Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return sdk::diag_embed(*this, offset, dim1, dim2);
}
inline Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  SDK_DETAIL_RETURN("unfold", sdk_unfold(get(), dimension, size, step, &r_));
}
inline const Tensor& Tensor::resize_(IntArrayRef size) const {
  return detail::finish_inplace(*this, sdk_resize_(get(), detail::len(size), size.data()),
                                "resize_");
}

}  // namespace sdk

#endif  // SDK_OPS_STRUCT_H_
