// sdk/math.h: elementwise ops, reductions, linear algebra and operators as free functions over the
// C ABI.
#ifndef SDK_MATH_H_
#define SDK_MATH_H_

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "sdk/op_table.h"
#include "sdk/ops.h"

namespace sdk {
namespace detail {

inline sdk_scalar opt_scalar(const std::optional<Scalar>& s) {
  return s ? s->raw() : Scalar::none().raw();
}
inline Tensor clamp_raw(const Tensor& self, sdk_scalar min, sdk_scalar max, const char* name) {
  SDK_DETAIL_RETURN(name, sdk_clamp(self.get(), min, max, nullptr, &r_));
}

inline Tensor reduce(int32_t op, const char* name, const Tensor& self, IntArrayRef dim,
                     bool keepdim, std::optional<ScalarType> dtype) {
  // An empty dim list means "all dims", as torch's sum(dim=[]) (NULL in the ABI).
  SDK_DETAIL_RETURN(name, sdk_reduce(op, self.get(), len(dim), dim.empty() ? nullptr : dim.data(),
                                     keepdim ? 1 : 0, opt_dtype(dtype), nullptr, &r_));
}
inline Tensor& reduce_out(int32_t op, const char* name, Tensor& out, const Tensor& self,
                          IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  sdk_tensor* r = nullptr;
  check_status(sdk_reduce(op, self.get(), len(dim), dim.empty() ? nullptr : dim.data(),
                          keepdim ? 1 : 0, opt_dtype(dtype), out.get(), &r),
               name);
  return finish_out(out, r);
}

// other * alpha as one scalar: ints stay ints, anything else becomes a float.
inline Scalar scalar_mul(const Scalar& a, const Scalar& b) {
  if (a.isFloatingPoint() || b.isFloatingPoint()) return Scalar(a.toDouble() * b.toDouble());
  return Scalar(a.toLong() * b.toLong());
}

}  // namespace detail

// ====================================================================================
// Elementwise (generated from the op tables of c_api.h, see op_table.h)
// ====================================================================================

#define SDK_DETAIL_DEFINE_UNARY(NAME, name, code)                                   \
  inline Tensor name(const Tensor& self) {                                          \
    SDK_DETAIL_RETURN(#name, sdk_unary(code, self.get(), nullptr, &r_));            \
  }                                                                                 \
  inline Tensor& name##_out(Tensor& out, const Tensor& self) {                      \
    sdk_tensor* r = nullptr;                                                        \
    detail::check_status(sdk_unary(code, self.get(), out.get(), &r), #name "_out"); \
    return detail::finish_out(out, r);                                              \
  }
SDK_UNARY_OPS(SDK_DETAIL_DEFINE_UNARY)
#undef SDK_DETAIL_DEFINE_UNARY

// In place (self = op(self)), for the ops whose result is not bool (SDK_UNARY_OP_FACTS).
#define SDK_DETAIL_DEFINE_UNARY_(NAME, name, differentiable, inplace, bool_result)    \
  SDK_DETAIL_IF_INPLACE(                                                              \
      inplace, bool_result, inline const Tensor& name##_(const Tensor& self) {        \
        return detail::finish_inplace(                                                \
            self, sdk_unary(SDK_##NAME, self.get(), self.get(), nullptr), #name "_"); \
      })
SDK_UNARY_OP_FACTS(SDK_DETAIL_DEFINE_UNARY_)
#undef SDK_DETAIL_DEFINE_UNARY_

#define SDK_DETAIL_DEFINE_BINARY(NAME, name, code)                                                \
  inline Tensor name(const Tensor& self, const Tensor& other) {                                   \
    SDK_DETAIL_RETURN(#name, sdk_binary(code, self.get(), other.get(), nullptr, &r_));            \
  }                                                                                               \
  inline Tensor name(const Tensor& self, const Scalar& other) {                                   \
    SDK_DETAIL_RETURN(#name, sdk_binary_scalar(code, self.get(), other.raw(), 0, nullptr, &r_));  \
  }                                                                                               \
  inline Tensor name(const Scalar& self, const Tensor& other) {                                   \
    SDK_DETAIL_RETURN(#name, sdk_binary_scalar(code, other.get(), self.raw(), 1, nullptr, &r_));  \
  }                                                                                               \
  inline Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {               \
    sdk_tensor* r = nullptr;                                                                      \
    detail::check_status(sdk_binary(code, self.get(), other.get(), out.get(), &r), #name "_out"); \
    return detail::finish_out(out, r);                                                            \
  }                                                                                               \
  inline Tensor& name##_out(Tensor& out, const Tensor& self, const Scalar& other) {               \
    sdk_tensor* r = nullptr;                                                                      \
    detail::check_status(sdk_binary_scalar(code, self.get(), other.raw(), 0, out.get(), &r),      \
                         #name "_out");                                                           \
    return detail::finish_out(out, r);                                                            \
  }
SDK_BINARY_OPS(SDK_DETAIL_DEFINE_BINARY)
#undef SDK_DETAIL_DEFINE_BINARY

/*! \brief self + alpha * other (add(self, other) without alpha is generated above). */
inline Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  SDK_DETAIL_RETURN("add", sdk_add_scaled(self.get(), other.get(), alpha.raw(), nullptr, &r_));
}
inline Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  if (alpha.isIntegral(false) && alpha.toLong() == 1) {
    SDK_DETAIL_RETURN("add", sdk_binary_scalar(SDK_ADD, self.get(), other.raw(), 0, nullptr, &r_));
  }
  SDK_DETAIL_RETURN(
      "add", sdk_binary_scalar(SDK_ADD, self.get(), detail::scalar_mul(other, alpha).raw(), 0,
                               nullptr, &r_));
}
/*! \brief self - alpha * other (sub(self, other) without alpha is generated above). */
inline Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Scalar neg = alpha.isFloatingPoint() ? Scalar(-alpha.toDouble()) : Scalar(-alpha.toLong());
  SDK_DETAIL_RETURN("sub", sdk_add_scaled(self.get(), other.get(), neg.raw(), nullptr, &r_));
}
inline Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  if (alpha.isIntegral(false) && alpha.toLong() == 1) {
    SDK_DETAIL_RETURN("sub", sdk_binary_scalar(SDK_SUB, self.get(), other.raw(), 0, nullptr, &r_));
  }
  SDK_DETAIL_RETURN(
      "sub", sdk_binary_scalar(SDK_SUB, self.get(), detail::scalar_mul(other, alpha).raw(), 0,
                               nullptr, &r_));
}
inline Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_add_scaled(self.get(), other.get(), alpha.raw(), out.get(), &r),
                       "add_out");
  return detail::finish_out(out, r);
}
inline Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Scalar neg = alpha.isFloatingPoint() ? Scalar(-alpha.toDouble()) : Scalar(-alpha.toLong());
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_add_scaled(self.get(), other.get(), neg.raw(), out.get(), &r),
                       "sub_out");
  return detail::finish_out(out, r);
}
inline Tensor multiply(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor divide(const Tensor& a, const Tensor& b) { return div(a, b); }

/*! \brief x if x > 0 else alpha * (exp(x) - 1). */
inline Tensor elu(const Tensor& self, const Scalar& alpha = 1) {
  SDK_DETAIL_RETURN("elu", sdk_elu(self.get(), alpha.toDouble(), nullptr, &r_));
}
inline Tensor& elu_out(Tensor& out, const Tensor& self, const Scalar& alpha = 1) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_elu(self.get(), alpha.toDouble(), out.get(), &r), "elu_out");
  return detail::finish_out(out, r);
}
/*! \brief min(max(x, min), max); an absent bound is open. */
inline Tensor clamp(const Tensor& self, const std::optional<Scalar>& min,
                    const std::optional<Scalar>& max = std::nullopt) {
  return detail::clamp_raw(self, detail::opt_scalar(min), detail::opt_scalar(max), "clamp");
}
inline Tensor& clamp_out(Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                         const std::optional<Scalar>& max = std::nullopt) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_clamp(self.get(), detail::opt_scalar(min), detail::opt_scalar(max), out.get(), &r),
      "clamp_out");
  return detail::finish_out(out, r);
}
// One-sided clamps pass the open bound as a raw "none" scalar: going through a disengaged
// std::optional here makes GCC 12 (-O1 and up, -Wall) warn "may be used uninitialized" in
// every user build that inlines it.
inline Tensor clamp_min(const Tensor& self, const Scalar& min) {
  return detail::clamp_raw(self, min.raw(), Scalar::none().raw(), "clamp_min");
}
inline Tensor clamp_max(const Tensor& self, const Scalar& max) {
  return detail::clamp_raw(self, Scalar::none().raw(), max.raw(), "clamp_max");
}
/*! \brief condition ? self : other, all three broadcast. */
inline Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  SDK_DETAIL_RETURN("where", sdk_where(condition.get(), self.get(), other.get(), nullptr, &r_));
}
inline Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return where(condition, self, full({}, other, self.options().dtype(other.type())));
}
inline Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return where(condition, full({}, self, other.options().dtype(self.type())), other);
}
inline Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  SDK_DETAIL_RETURN("masked_fill",
                    sdk_masked_fill(self.get(), mask.get(), value.raw(), nullptr, &r_));
}

// ====================================================================================
// Reductions
// ====================================================================================

#define SDK_DETAIL_DEFINE_REDUCE(name, code)                                               \
  inline Tensor name(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt) { \
    return detail::reduce(code, #name, self, {}, false, dtype);                            \
  }                                                                                        \
  inline Tensor name(const Tensor& self, IntArrayRef dim, bool keepdim = false,            \
                     std::optional<ScalarType> dtype = std::nullopt) {                     \
    return detail::reduce(code, #name, self, dim, keepdim, dtype);                         \
  }                                                                                        \
  inline Tensor& name##_out(Tensor& out, const Tensor& self, IntArrayRef dim,              \
                            bool keepdim = false,                                          \
                            std::optional<ScalarType> dtype = std::nullopt) {              \
    return detail::reduce_out(code, #name "_out", out, self, dim, keepdim, dtype);         \
  }
SDK_DETAIL_DEFINE_REDUCE(sum, SDK_SUM)
SDK_DETAIL_DEFINE_REDUCE(mean, SDK_MEAN)
SDK_DETAIL_DEFINE_REDUCE(prod, SDK_PROD)
#undef SDK_DETAIL_DEFINE_REDUCE

inline Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false) {
  return detail::reduce(SDK_AMAX, "amax", self, dim, keepdim, std::nullopt);
}
inline Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false) {
  return detail::reduce(SDK_AMIN, "amin", self, dim, keepdim, std::nullopt);
}
inline Tensor& amax_out(Tensor& out, const Tensor& self, IntArrayRef dim = {},
                        bool keepdim = false) {
  return detail::reduce_out(SDK_AMAX, "amax_out", out, self, dim, keepdim, std::nullopt);
}
inline Tensor& amin_out(Tensor& out, const Tensor& self, IntArrayRef dim = {},
                        bool keepdim = false) {
  return detail::reduce_out(SDK_AMIN, "amin_out", out, self, dim, keepdim, std::nullopt);
}
inline Tensor max(const Tensor& self) { return amax(self); }
inline Tensor min(const Tensor& self) { return amin(self); }
inline Tensor max(const Tensor& self, const Tensor& other) { return maximum(self, other); }
inline Tensor min(const Tensor& self, const Tensor& other) { return minimum(self, other); }
/*! \brief (values, indices) of the max over dim. */
inline std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false) {
  sdk_tensor* values = nullptr;
  sdk_tensor* indices = nullptr;
  detail::check_status(sdk_max_dim(self.get(), dim, keepdim ? 1 : 0, &values, &indices), "max");
  return std::tuple<Tensor, Tensor>(Tensor::steal(values), Tensor::steal(indices));
}
inline std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false) {
  sdk_tensor* values = nullptr;
  sdk_tensor* indices = nullptr;
  detail::check_status(sdk_min_dim(self.get(), dim, keepdim ? 1 : 0, &values, &indices), "min");
  return std::tuple<Tensor, Tensor>(Tensor::steal(values), Tensor::steal(indices));
}
inline Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false) {
  SDK_DETAIL_RETURN(
      "argmax", sdk_arg_extremum(self.get(), 0, dim ? 1 : 0, dim ? *dim : 0, keepdim ? 1 : 0, &r_));
}
inline Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false) {
  SDK_DETAIL_RETURN(
      "argmin", sdk_arg_extremum(self.get(), 1, dim ? 1 : 0, dim ? *dim : 0, keepdim ? 1 : 0, &r_));
}
inline Tensor all(const Tensor& self) {
  return detail::reduce(SDK_ALL, "all", self, {}, false, std::nullopt);
}
inline Tensor all(const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::reduce(SDK_ALL, "all", self, dim, keepdim, std::nullopt);
}
inline Tensor any(const Tensor& self) {
  return detail::reduce(SDK_ANY, "any", self, {}, false, std::nullopt);
}
inline Tensor any(const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::reduce(SDK_ANY, "any", self, dim, keepdim, std::nullopt);
}
inline Tensor var(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false) {
  SDK_DETAIL_RETURN("var", sdk_var(self.get(), detail::len(dim), dim.empty() ? nullptr : dim.data(),
                                   unbiased ? 1.0 : 0.0, keepdim ? 1 : 0, &r_));
}
inline Tensor var(const Tensor& self, bool unbiased = true) { return var(self, {}, unbiased); }
inline Tensor std(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false) {
  SDK_DETAIL_RETURN("std", sdk_std(self.get(), detail::len(dim), dim.empty() ? nullptr : dim.data(),
                                   unbiased ? 1.0 : 0.0, keepdim ? 1 : 0, &r_));
}
inline Tensor std(const Tensor& self, bool unbiased = true) { return std(self, {}, unbiased); }
inline Tensor softmax(const Tensor& self, int64_t dim,
                      std::optional<ScalarType> dtype = std::nullopt) {
  Tensor in = dtype ? self.to(*dtype) : self;
  SDK_DETAIL_RETURN("softmax", sdk_softmax(in.get(), dim, &r_));
}
inline Tensor log_softmax(const Tensor& self, int64_t dim,
                          std::optional<ScalarType> dtype = std::nullopt) {
  Tensor in = dtype ? self.to(*dtype) : self;
  SDK_DETAIL_RETURN("log_softmax", sdk_log_softmax(in.get(), dim, &r_));
}

// ====================================================================================
// Linear algebra
// ====================================================================================

#define SDK_DETAIL_DEFINE_MATMUL(name, cfunc)                                          \
  inline Tensor name(const Tensor& self, const Tensor& other) {                        \
    SDK_DETAIL_RETURN(#name, cfunc(self.get(), other.get(), nullptr, &r_));            \
  }                                                                                    \
  inline Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {    \
    sdk_tensor* r = nullptr;                                                           \
    detail::check_status(cfunc(self.get(), other.get(), out.get(), &r), #name "_out"); \
    return detail::finish_out(out, r);                                                 \
  }
SDK_DETAIL_DEFINE_MATMUL(mm, sdk_mm)
SDK_DETAIL_DEFINE_MATMUL(bmm, sdk_bmm)
SDK_DETAIL_DEFINE_MATMUL(matmul, sdk_matmul)
SDK_DETAIL_DEFINE_MATMUL(mv, sdk_mv)
#undef SDK_DETAIL_DEFINE_MATMUL

inline Tensor dot(const Tensor& self, const Tensor& other) {
  SDK_DETAIL_RETURN("dot", sdk_dot(self.get(), other.get(), &r_));
}
/*! \brief beta * self + alpha * (mat1 @ mat2); self broadcasts to the product's shape. */
inline Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                    const Scalar& beta = 1, const Scalar& alpha = 1) {
  SDK_DETAIL_RETURN("addmm", sdk_addmm(self.get(), mat1.get(), mat2.get(), beta.raw(), alpha.raw(),
                                       nullptr, &r_));
}
inline Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                         const Scalar& beta = 1, const Scalar& alpha = 1) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_addmm(self.get(), mat1.get(), mat2.get(), beta.raw(), alpha.raw(), out.get(), &r),
      "addmm_out");
  return detail::finish_out(out, r);
}
/*! \brief torch's einsum ("ij,jk->ik"); the contraction path argument is ignored. */
inline Tensor einsum(std::string_view equation, TensorList tensors,
                     std::optional<IntArrayRef> /*path*/ = std::nullopt) {
  const std::string eq(equation);
  SDK_DETAIL_RETURN("einsum", sdk_einsum(eq.c_str(), static_cast<int64_t>(tensors.size()),
                                         detail::handles(tensors), &r_));
}

// ====================================================================================
// Operators (tensors or scalars on either side)
// ====================================================================================

inline Tensor operator-(const Tensor& x) { return neg(x); }
inline Tensor operator~(const Tensor& x) { return bitwise_not(x); }

#define SDK_DETAIL_DEFINE_OPERATOR(op, code)                                            \
  inline Tensor operator op(const Tensor& a, const Tensor& b) {                         \
    SDK_DETAIL_RETURN(#op, sdk_binary(code, a.get(), b.get(), nullptr, &r_));           \
  }                                                                                     \
  inline Tensor operator op(const Tensor& a, const Scalar& b) {                         \
    SDK_DETAIL_RETURN(#op, sdk_binary_scalar(code, a.get(), b.raw(), 0, nullptr, &r_)); \
  }                                                                                     \
  inline Tensor operator op(const Scalar& a, const Tensor& b) {                         \
    SDK_DETAIL_RETURN(#op, sdk_binary_scalar(code, b.get(), a.raw(), 1, nullptr, &r_)); \
  }
SDK_DETAIL_DEFINE_OPERATOR(+, SDK_ADD)
SDK_DETAIL_DEFINE_OPERATOR(-, SDK_SUB)
SDK_DETAIL_DEFINE_OPERATOR(*, SDK_MUL)
SDK_DETAIL_DEFINE_OPERATOR(/, SDK_DIV)
SDK_DETAIL_DEFINE_OPERATOR(%, SDK_REMAINDER)
SDK_DETAIL_DEFINE_OPERATOR(==, SDK_EQ)
SDK_DETAIL_DEFINE_OPERATOR(!=, SDK_NE)
SDK_DETAIL_DEFINE_OPERATOR(<, SDK_LT)
SDK_DETAIL_DEFINE_OPERATOR(<=, SDK_LE)
SDK_DETAIL_DEFINE_OPERATOR(>, SDK_GT)
SDK_DETAIL_DEFINE_OPERATOR(>=, SDK_GE)
SDK_DETAIL_DEFINE_OPERATOR(&, SDK_BITWISE_AND)
SDK_DETAIL_DEFINE_OPERATOR(|, SDK_BITWISE_OR)
SDK_DETAIL_DEFINE_OPERATOR(^, SDK_BITWISE_XOR)
#undef SDK_DETAIL_DEFINE_OPERATOR

// ====================================================================================
// Composites (built from the ops above)
// ====================================================================================

/*! \brief GELU with torch's approximate argument: "none" (the exact erf form, the op of the
 *  table) or "tanh" (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); Half and BFloat16
 *  compute it in float and round once, as torch does). */
inline Tensor gelu(const Tensor& self, std::string_view approximate) {
  if (approximate == "none") return gelu(self);
  if (approximate != "tanh") {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("gelu: approximate must be 'none' or "
                                                        "'tanh', got '",
                                                        std::string(approximate), "'"));
  }
  const double k = 0.7978845608028654;  // sqrt(2 / pi)
  const ScalarType st = self.scalar_type();
  const bool half = st == ScalarType::Half || st == ScalarType::BFloat16;
  const Tensor x = half ? self.to(ScalarType::Float) : self;
  const Tensor y = 0.5 * x * (1.0 + ((x + 0.044715 * x * x * x) * k).tanh());
  return half ? y.to(st) : y;
}
/*! \brief (var, mean) over dim, as torch's var_mean. */
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim,
                                           bool unbiased = true, bool keepdim = false) {
  return {var(self, dim, unbiased, keepdim), self.mean(dim, keepdim)};
}
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased = true) {
  return {var(self, unbiased), self.mean()};
}
/*! \brief (std, mean) over dim, as torch's std_mean. */
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim,
                                           bool unbiased = true, bool keepdim = false) {
  return {std(self, dim, unbiased, keepdim), self.mean(dim, keepdim)};
}
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased = true) {
  return {std(self, unbiased), self.mean()};
}
/*! \brief log(sum(exp(self))) over dim, computed stably (integers give float32). */
inline Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false) {
  Tensor x = self.is_floating_point() ? self : self.to(kFloat);
  if (x.numel() == 0) return x.exp().sum(dim, keepdim).log();
  Tensor m = x.amax(dim, /*keepdim=*/true);
  m = m.masked_fill(m.abs().eq(INFINITY), 0);  // all -inf (or an inf): no shift
  Tensor r = (x - m).exp().sum(dim, /*keepdim=*/true).log() + m;
  return keepdim ? r : r.squeeze(dim);
}
/*! \brief Vector p-norm over dim (every element when dim is empty): p = 2 by default, inf
 *  and -inf give the largest and smallest absolute value, 0 counts the non-zeros. */
inline Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim,
                   bool keepdim = false) {
  if (!self.is_floating_point()) {
    detail::throw_error(
        SDK_ERROR_TYPE,
        detail::concat("norm(): expected a floating point tensor, got ", self.scalar_type()));
  }
  const double q = p ? p->toDouble() : 2.0;
  if (q == 2.0) return (self * self).sum(dim, keepdim).sqrt();
  Tensor a = self.abs();
  if (q == INFINITY) return a.amax(dim, keepdim);
  if (q == -INFINITY) return a.amin(dim, keepdim);
  if (q == 0.0) return a.ne(0).to(self.scalar_type()).sum(dim, keepdim);
  if (q == 1.0) return a.sum(dim, keepdim);
  return a.pow(q).sum(dim, keepdim).pow(1.0 / q);
}
inline Tensor norm(const Tensor& self, const Scalar& p = 2) {
  return norm(self, std::optional<Scalar>(p), IntArrayRef{});
}
/*! \brief The Frobenius norm, sqrt(sum(self * self)), over at most two dims (torch's
 *  frobenius_norm, which molecular-dynamics code calls for pair distances). */
inline Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim = false) {
  if (dim.size() > 2) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("frobenius_norm(): expected at most 2 dims, got ",
                                       static_cast<int64_t>(dim.size())));
  }
  return norm(self, std::optional<Scalar>(2), dim, keepdim);
}
/*! \brief beta * self + alpha * (batch1 @ batch2) over a batch of matrices. */
inline Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                      const Scalar& beta = 1, const Scalar& alpha = 1) {
  Tensor prod = bmm(batch1, batch2);
  if (!(alpha.isIntegral(false) && alpha.toLong() == 1)) prod = prod * alpha;
  if (beta.isIntegral(false) && beta.toLong() == 0) return prod;  // self ignored, NaNs too
  return beta.isIntegral(false) && beta.toLong() == 1 ? prod + self : prod + self * beta;
}
/*! \brief Outer product of two 1-D tensors. */
inline Tensor outer(const Tensor& self, const Tensor& vec2) {
  if (self.dim() != 1 || vec2.dim() != 1) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("outer: expected 1-D tensors, got shapes ",
                                                        self.sizes(), " and ", vec2.sizes()));
  }
  return self.unsqueeze(1) * vec2.unsqueeze(0);
}
inline Tensor ger(const Tensor& self, const Tensor& vec2) { return outer(self, vec2); }
/*! \brief Elementwise max ignoring NaN (NaN only where both are NaN). */
inline Tensor fmax(const Tensor& self, const Tensor& other) {
  return where(self.isnan(), other, where(other.isnan(), self, maximum(self, other)));
}
/*! \brief Elementwise min ignoring NaN. */
inline Tensor fmin(const Tensor& self, const Tensor& other) {
  return where(self.isnan(), other, where(other.isnan(), self, minimum(self, other)));
}
/*! \brief log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given. */
inline Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt) {
  Tensor p = eps ? self.clamp(*eps, 1.0 - *eps) : self;
  return (p / (1.0 - p)).log();
}
/*! \brief beta * self + alpha * (mat @ vec). */
inline Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec,
                    const Scalar& beta = 1, const Scalar& alpha = 1) {
  return self * beta + mv(mat, vec) * alpha;
}
/*! \brief beta * self + alpha * (sum over the batch of batch1[i] @ batch2[i]). */
inline Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                     const Scalar& beta = 1, const Scalar& alpha = 1) {
  return self * beta + bmm(batch1, batch2).sum(0) * alpha;
}
/*! \brief Number of non-zero elements (over dim when given). */
inline Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt) {
  Tensor nz = self.ne(0).to(kLong);
  return dim ? nz.sum(*dim) : nz.sum();
}
/*! \brief Concatenation along dim 1 (dim 0 for 1-D tensors), as numpy's hstack. */
inline Tensor hstack(TensorList tensors) {
  return cat(tensors, !tensors.empty() && tensors[0].dim() == 1 ? 0 : 1);
}
/*! \brief Concatenation along dim 0 of the tensors made at least 2-D. */
inline Tensor vstack(TensorList tensors) {
  std::vector<Tensor> rows;
  for (const Tensor& t : tensors) rows.push_back(t.dim() < 2 ? t.reshape({1, -1}) : t);
  return cat(rows, 0);
}
/*! \brief The tensors expanded to their common broadcast shape (views). */
inline std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) {
    std::vector<int64_t> s(t.sizes().begin(), t.sizes().end());
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& have = shape[shape.size() - s.size() + i];
      if (have == 1) {
        have = s[i];
      } else if (s[i] != 1 && s[i] != have) {
        detail::throw_error(SDK_ERROR_VALUE,
                            detail::concat("broadcast_tensors: shape ", t.sizes(),
                                           " does not broadcast to ", IntArrayRef(shape)));
      }
    }
  }
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}
/*! \brief Coordinate grids of 1-D tensors: indexing "ij" (matrix, the default) or "xy". */
inline std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing = "ij") {
  if (indexing != "ij" && indexing != "xy") {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("meshgrid: indexing must be 'ij' or "
                                                        "'xy', got '",
                                                        std::string(indexing), "'"));
  }
  const size_t n = tensors.size();
  const bool xy = indexing == "xy" && n >= 2;
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) {
    if (t.dim() > 1) {
      detail::throw_error(SDK_ERROR_VALUE, detail::concat("meshgrid: expected 0-d or 1-d "
                                                          "tensors, got shape ",
                                                          t.sizes()));
    }
    shape.push_back(t.numel());
  }
  if (xy) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    size_t at = xy && i < 2 ? 1 - i : i;
    std::vector<int64_t> view(n, 1);
    view[at] = shape[at];
    out.push_back(tensors[i].reshape(view).expand(shape));
  }
  return out;
}
/*! \brief Negative log likelihood of log-probabilities (N, C) at integer targets (N),
 *  reduced by Reduction:: (entries equal to ignore_index count for nothing). */
inline Tensor nll_loss(const Tensor& self, const Tensor& target,
                       const std::optional<Tensor>& weight = {}, int64_t reduction = 1,
                       int64_t ignore_index = -100) {
  if (self.dim() != 2 || target.dim() != 1 || target.size(0) != self.size(0)) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("nll_loss: expected input (N, C) and target (N), got ",
                                       self.sizes(), " and ", target.sizes()));
  }
  Tensor keep = target.ne(ignore_index);
  Tensor safe = where(keep, target, Scalar(0)).to(kLong);
  Tensor picked = -self.gather(1, safe.unsqueeze(1)).squeeze(1);
  Tensor w = (weight && weight->defined()) ? weight->index_select(0, safe) : ones_like(picked);
  w = w * keep.to(w.scalar_type());
  Tensor losses = picked * w;
  if (reduction == 0) return losses;
  if (reduction == 2) return losses.sum();
  return losses.sum() / w.sum();
}
/*! \brief nll_loss of log_softmax(self, 1): the classification loss of logits (N, C). */
inline Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                                 const std::optional<Tensor>& weight = {}, int64_t reduction = 1,
                                 int64_t ignore_index = -100) {
  return nll_loss(self.log_softmax(1), target, weight, reduction, ignore_index);
}
/*! \brief Normalize (N, C, *) input over groups of C / num_groups channels, then scale and
 *  shift per channel. */
inline Tensor group_norm(const Tensor& input, int64_t num_groups,
                         const std::optional<Tensor>& weight = {},
                         const std::optional<Tensor>& bias = {}, double eps = 1e-05,
                         bool /*cudnn_enabled*/ = true) {
  if (input.dim() < 2 || num_groups < 1 || input.size(1) % num_groups != 0) {
    detail::throw_error(
        SDK_ERROR_VALUE,
        detail::concat("group_norm: ", input.size(1), " channels do not split into ", num_groups,
                       " groups (input shape ", input.sizes(), ")"));
  }
  const int64_t n = input.size(0);
  Tensor g = input.reshape({n, num_groups, -1});
  Tensor mean = g.mean({2}, true);
  Tensor var = g.var({2}, /*unbiased=*/false, /*keepdim=*/true);
  Tensor out = ((g - mean) * (var + eps).rsqrt()).view(input.sizes());
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = input.size(1);
  if (weight && weight->defined()) out = out * weight->view(shape);
  if (bias && bias->defined()) out = out + bias->view(shape);
  return out;
}
}  // namespace sdk

#endif  // SDK_MATH_H_
