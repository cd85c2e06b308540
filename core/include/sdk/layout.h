// sdk/layout.h: reordering ops over the C ABI (flip, roll, tril, triu, diagonal, diag_embed,
// diag, repeat_interleave, unfold, resize_): free functions and the bodies of their Tensor
// methods, with torch's names and arguments (core/src/layout.cpp; Python: sdk/_ops_layout.py).
#ifndef SDK_LAYOUT_H_
#define SDK_LAYOUT_H_

#include <cstdint>
#include <optional>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
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

#endif  // SDK_LAYOUT_H_
