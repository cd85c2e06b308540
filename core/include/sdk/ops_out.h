// sdk/ops_out.h: torch's `name_out(out..., args...)` variants of the ops that are not in the
// elementwise and reduction tables (those get theirs from the tables, see sdk/op_table.h).
//
// Each computes the op and delivers the result the way the table ops' out= does: `out` must
// have the result's shape and a dtype the result casts to (a float result is not written to
// an integer `out`); it is written in place (its version bumps) and returned. Two
// conveniences follow torch: an undefined `out` receives the result itself, and an `out`
// with no elements is first resized to the result's shape (`at::empty({0}, opts)` outs).
#ifndef SDK_OPS_OUT_H_
#define SDK_OPS_OUT_H_

#include <cstdint>
#include <optional>
#include <tuple>

#include "sdk/linalg.h"
#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/ops_data.h"
#include "sdk/ops_struct.h"
#include "sdk/tensor_base.h"

namespace sdk {
namespace detail {

// Whether a value of dtype `from` may be written to a tensor of dtype `to` (the table ops'
// rule: no float into an integer tensor, nothing but bool into a bool tensor).
inline bool out_can_cast(ScalarType from, ScalarType to) {
  const bool from_float = isFloatingType(from) || isComplexType(from);
  const bool to_float = isFloatingType(to) || isComplexType(to);
  if (from_float && !to_float) return false;
  return from == kBool || to != kBool;
}

inline Tensor& assign_out(Tensor& out, const Tensor& result, const char* op) {
  if (!out.defined()) {
    out = result;
    return out;
  }
  if (out.numel() == 0 && !out.sizes().equals(result.sizes())) out.resize_(result.sizes());
  if (!out.sizes().equals(result.sizes())) {
    throw_error(SDK_ERROR_VALUE, concat(op, ": out has shape ", out.sizes(),
                                        " but the result has shape ", result.sizes()));
  }
  if (!out_can_cast(result.scalar_type(), out.scalar_type())) {
    throw_error(SDK_ERROR_TYPE,
                concat(op, ": result type ", result.scalar_type(),
                       " can't be cast to the desired output type ", out.scalar_type()));
  }
  if (out.device() != result.device()) {
    throw_error(SDK_ERROR_VALUE, concat(op, ": out is on ", out.device(), " but the result is on ",
                                        result.device()));
  }
  out.copy_(result);
  return out;
}

inline std::tuple<Tensor&, Tensor&> assign_out(Tensor& first, Tensor& second,
                                               std::tuple<Tensor, Tensor> result, const char* op) {
  assign_out(first, std::get<0>(result), op);
  assign_out(second, std::get<1>(result), op);
  return std::tuple<Tensor&, Tensor&>(first, second);
}

}  // namespace detail

// ---- (values, indices) results -------------------------------------------------------------
inline std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& self,
                                             int64_t k, int64_t dim = -1, bool largest = true,
                                             bool sorted = true) {
  return detail::assign_out(values, indices, topk(self, k, dim, largest, sorted), "topk_out");
}
inline std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& self,
                                             int64_t dim = -1, bool descending = false) {
  return detail::assign_out(values, indices, sort(self, dim, descending), "sort_out");
}
inline std::tuple<Tensor&, Tensor&> max_out(Tensor& max, Tensor& max_values, const Tensor& self,
                                            int64_t dim, bool keepdim = false) {
  return detail::assign_out(max, max_values, sdk::max(self, dim, keepdim), "max_out");
}
inline std::tuple<Tensor&, Tensor&> min_out(Tensor& min, Tensor& min_indices, const Tensor& self,
                                            int64_t dim, bool keepdim = false) {
  return detail::assign_out(min, min_indices, sdk::min(self, dim, keepdim), "min_out");
}
inline std::tuple<Tensor&, Tensor&> kthvalue_out(Tensor& values, Tensor& indices,
                                                 const Tensor& self, int64_t k, int64_t dim = -1,
                                                 bool keepdim = false) {
  return detail::assign_out(values, indices, kthvalue(self, k, dim, keepdim), "kthvalue_out");
}
inline std::tuple<Tensor&, Tensor&> median_out(Tensor& values, Tensor& indices, const Tensor& self,
                                               int64_t dim, bool keepdim = false) {
  return detail::assign_out(values, indices, median(self, dim, keepdim), "median_out");
}

// ---- one result ------------------------------------------------------------------------------
/*! \brief max of all elements (0-dim) into out. */
inline Tensor& max_out(Tensor& out, const Tensor& self) {
  return detail::assign_out(out, sdk::max(self), "max_out");
}
/*! \brief elementwise maximum into out. */
inline Tensor& max_out(Tensor& out, const Tensor& self, const Tensor& other) {
  return detail::assign_out(out, maximum(self, other), "max_out");
}
inline Tensor& min_out(Tensor& out, const Tensor& self) {
  return detail::assign_out(out, sdk::min(self), "min_out");
}
inline Tensor& min_out(Tensor& out, const Tensor& self, const Tensor& other) {
  return detail::assign_out(out, minimum(self, other), "min_out");
}
inline Tensor& argmax_out(Tensor& out, const Tensor& self,
                          std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return detail::assign_out(out, argmax(self, dim, keepdim), "argmax_out");
}
inline Tensor& argmin_out(Tensor& out, const Tensor& self,
                          std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return detail::assign_out(out, argmin(self, dim, keepdim), "argmin_out");
}
inline Tensor& softmax_out(Tensor& out, const Tensor& self, int64_t dim,
                           std::optional<ScalarType> dtype = std::nullopt) {
  return detail::assign_out(out, softmax(self, dim, dtype), "softmax_out");
}
inline Tensor& log_softmax_out(Tensor& out, const Tensor& self, int64_t dim,
                               std::optional<ScalarType> dtype = std::nullopt) {
  return detail::assign_out(out, log_softmax(self, dim, dtype), "log_softmax_out");
}
inline Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::assign_out(out, all(self, dim, keepdim), "all_out");
}
inline Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::assign_out(out, any(self, dim, keepdim), "any_out");
}
inline Tensor& var_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool unbiased = true,
                       bool keepdim = false) {
  return detail::assign_out(out, var(self, dim, unbiased, keepdim), "var_out");
}
inline Tensor& std_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool unbiased = true,
                       bool keepdim = false) {
  return detail::assign_out(out, sdk::std(self, dim, unbiased, keepdim), "std_out");
}
inline Tensor& logsumexp_out(Tensor& out, const Tensor& self, IntArrayRef dim,
                             bool keepdim = false) {
  return detail::assign_out(out, logsumexp(self, dim, keepdim), "logsumexp_out");
}
inline Tensor& norm_out(Tensor& out, const Tensor& self, const std::optional<Scalar>& p,
                        IntArrayRef dim, bool keepdim = false) {
  return detail::assign_out(out, norm(self, p, dim, keepdim), "norm_out");
}
inline Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self,
                         const Tensor& other) {
  return detail::assign_out(out, where(condition, self, other), "where_out");
}
inline Tensor& clamp_min_out(Tensor& out, const Tensor& self, const Scalar& min) {
  return detail::assign_out(out, clamp_min(self, min), "clamp_min_out");
}
inline Tensor& clamp_max_out(Tensor& out, const Tensor& self, const Scalar& max) {
  return detail::assign_out(out, clamp_max(self, max), "clamp_max_out");
}
inline Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask) {
  return detail::assign_out(out, masked_select(self, mask), "masked_select_out");
}
inline Tensor& nonzero_out(Tensor& out, const Tensor& self) {
  return detail::assign_out(out, nonzero(self), "nonzero_out");
}
inline Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor& source, const Scalar& alpha = 1) {
  const bool unit = alpha.isFloatingPoint() ? alpha.toDouble() == 1.0 : alpha.toLong() == 1;
  return detail::assign_out(out, index_add(self, dim, index, unit ? source : source * alpha),
                            "index_add_out");
}
inline Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& src) {
  return detail::assign_out(out, scatter(self, dim, index, src), "scatter_out");
}
inline Tensor& dot_out(Tensor& out, const Tensor& self, const Tensor& tensor) {
  return detail::assign_out(out, dot(self, tensor), "dot_out");
}
inline Tensor& outer_out(Tensor& out, const Tensor& self, const Tensor& vec2) {
  return detail::assign_out(out, outer(self, vec2), "outer_out");
}
inline Tensor& addmv_out(Tensor& out, const Tensor& self, const Tensor& mat, const Tensor& vec,
                         const Scalar& beta = 1, const Scalar& alpha = 1) {
  return detail::assign_out(out, addmv(self, mat, vec, beta, alpha), "addmv_out");
}
inline Tensor& baddbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1,
                           const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) {
  return detail::assign_out(out, baddbmm(self, batch1, batch2, beta, alpha), "baddbmm_out");
}

// ---- creation into an existing tensor (its dtype and device are kept) -------------------------
inline Tensor& zeros_out(Tensor& out, IntArrayRef size) {
  if (!out.defined()) return out = zeros(size);
  if (!out.sizes().equals(size)) out.resize_(size);
  out.zero_();
  return out;
}
inline Tensor& ones_out(Tensor& out, IntArrayRef size) {
  if (!out.defined()) return out = ones(size);
  if (!out.sizes().equals(size)) out.resize_(size);
  out.fill_(1);
  return out;
}
inline Tensor& arange_out(Tensor& out, const Scalar& start, const Scalar& end,
                          const Scalar& step = 1) {
  TensorOptions options = out.defined() ? out.options() : TensorOptions();
  Tensor values = arange(start, end, step, options);
  if (out.defined() && !out.sizes().equals(values.sizes())) out.resize_(values.sizes());
  return detail::assign_out(out, values, "arange_out");
}
inline Tensor& arange_out(Tensor& out, const Scalar& end) { return arange_out(out, 0, end, 1); }
inline Tensor& linspace_out(Tensor& out, double start, double end, int64_t steps) {
  TensorOptions options = out.defined() ? out.options() : TensorOptions();
  Tensor values = linspace(start, end, steps, options);
  if (out.defined() && !out.sizes().equals(values.sizes())) out.resize_(values.sizes());
  return detail::assign_out(out, values, "linspace_out");
}

}  // namespace sdk

#endif  // SDK_OPS_OUT_H_
