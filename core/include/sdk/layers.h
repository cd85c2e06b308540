// sdk/layers.h: the neural-network layers of ATen's namespace (at::linear, at::layer_norm,
// at::conv1d/conv2d, at::embedding, at::dropout, at::constant_pad_nd, at::mse_loss,
// at::cosine_similarity, at::pad, at::binary_cross_entropy, at::pairwise_distance,
// at::adaptive_avg_pool2d, at::conv3d, at::conv_transpose2d) as sdk:: functions, with torch's
// arguments. layer_norm and the convolutions run the core's fused kernels (sdk_layer_norm,
// sdk_convolution); Python's sdk.nn.functional calls the same kernels.
#ifndef SDK_LAYERS_H_
#define SDK_LAYERS_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/tensor_base.h"

namespace sdk {

// torch's at::Reduction: how a loss reduces its elements.
namespace Reduction {
enum Reduction { None, Mean, Sum, END };
}  // namespace Reduction

inline Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value);

namespace detail {

inline const sdk_tensor* opt_handle(const std::optional<Tensor>& t) {
  return t && t->defined() ? t->get() : nullptr;
}

// A convolution parameter as n values (one given value applies to every spatial dim).
inline std::vector<int64_t> expand_param(IntArrayRef v, size_t n, const char* op,
                                         const char* what) {
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() != n) {
    throw_error(SDK_ERROR_VALUE, concat(op, ": ", what, " must have 1 or ", n, " values, got ", v));
  }
  return std::vector<int64_t>(v.begin(), v.end());
}

inline Tensor convolution(const char* op, size_t n, const Tensor& input, const Tensor& weight,
                          const std::optional<Tensor>& bias, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const bool batched = input.dim() == static_cast<int64_t>(n) + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  std::vector<int64_t> s = expand_param(stride, n, op, "stride");
  std::vector<int64_t> p = expand_param(padding, n, op, "padding");
  std::vector<int64_t> d = expand_param(dilation, n, op, "dilation");
  sdk_tensor* r = nullptr;
  check_status(sdk_convolution(x.get(), weight.get(), opt_handle(bias), static_cast<int64_t>(n),
                               s.data(), p.data(), d.data(), groups, &r),
               op);
  Tensor out = Tensor::steal(r);
  return batched ? out : out.squeeze(0);
}

// Strings and string literals, not integers (a literal 0 converts to both const char* and
// IntArrayRef: the padding overloads would be ambiguous).
template <typename S>
using if_string_like = std::enable_if_t<std::is_convertible_v<const S&, std::string_view> &&
                                        !std::is_arithmetic_v<S> && !std::is_null_pointer_v<S>>;

// padding="valid" (none) or "same" (the output as long as the input; stride 1 only, an odd
// total goes to the end, as torch): the input padded by hand, then a convolution without.
inline Tensor convolution_padded(const char* op, size_t n, const Tensor& input,
                                 const Tensor& weight, const std::optional<Tensor>& bias,
                                 IntArrayRef stride, std::string_view padding, IntArrayRef dilation,
                                 int64_t groups) {
  if (padding == "valid") {
    return convolution(op, n, input, weight, bias, stride, 0, dilation, groups);
  }
  if (padding != "same") {
    throw_error(SDK_ERROR_VALUE, concat(op, ": padding must be 'valid', 'same' or numbers, got '",
                                        std::string(padding), "'"));
  }
  for (int64_t s : expand_param(stride, n, op, "stride")) {
    if (s != 1) throw_error(SDK_ERROR_VALUE, concat(op, ": padding='same' needs stride 1"));
  }
  std::vector<int64_t> d = expand_param(dilation, n, op, "dilation");
  if (weight.dim() != static_cast<int64_t>(n) + 2) {
    throw_error(SDK_ERROR_VALUE,
                concat(op, ": weight must be ", n + 2, "-d, got shape ", weight.sizes()));
  }
  std::vector<int64_t> pad;  // constant_pad_nd order: last dim first
  bool symmetric = true;
  std::vector<int64_t> half(n);
  for (size_t i = n; i-- > 0;) {
    const int64_t total = d[i] * (weight.size(static_cast<int64_t>(i) + 2) - 1);
    half[i] = total / 2;
    pad.push_back(total / 2);
    pad.push_back(total - total / 2);
    symmetric = symmetric && total % 2 == 0;
  }
  if (symmetric) return convolution(op, n, input, weight, bias, stride, half, dilation, groups);
  // an odd total: pad explicitly (more at the end), then convolve without padding
  return convolution(op, n, constant_pad_nd(input, pad, 0), weight, bias, stride, 0, dilation,
                     groups);
}

}  // namespace detail

/*! \brief input @ weight.T + bias: weight (out_features, in_features), as nn.Linear. */
inline Tensor linear(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias = {}) {
  const bool has_bias = bias && bias->defined();
  if (input.dim() == 2 && has_bias) return addmm(*bias, input, weight.t());
  Tensor out = matmul(input, weight.t());
  return has_bias ? out + *bias : out;
}

/*! \brief Normalize over the trailing dims `normalized_shape`, then scale and shift by
 *  weight and bias (optional, shaped like normalized_shape). cudnn_enable is ignored. */
inline Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                         const std::optional<Tensor>& weight = {},
                         const std::optional<Tensor>& bias = {}, double eps = 1e-05,
                         bool /*cudnn_enable*/ = true) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  bool match = nd <= input.dim();
  for (int64_t k = 0; match && k < nd; ++k) {
    match = input.size(input.dim() - nd + k) == normalized_shape[static_cast<size_t>(k)];
  }
  if (!match) {
    detail::throw_error(
        SDK_ERROR_VALUE,
        detail::concat("layer_norm: normalized_shape ", normalized_shape,
                       " does not match the trailing dims of the input of shape ", input.sizes()));
  }
  SDK_DETAIL_RETURN("layer_norm",
                    sdk_layer_norm(input.get(), nd, detail::opt_handle(weight),
                                   detail::opt_handle(bias), eps, &r_, nullptr, nullptr));
}

/*! \brief 1-d cross-correlation: input (N, C_in, L) or (C_in, L), weight
 *  (C_out, C_in / groups, k). stride/padding/dilation: one value or one per dim. */
inline Tensor conv1d(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return detail::convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

/*! \brief 2-d cross-correlation: input (N, C_in, H, W) or (C_in, H, W), weight
 *  (C_out, C_in / groups, kH, kW). */
inline Tensor conv2d(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return detail::convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

/*! \brief conv1d with padding "valid" or "same" (a string: an integer padding such as 0
 *  takes the overload above). */
template <typename S, typename = detail::if_string_like<S>>
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     IntArrayRef stride, const S& padding, IntArrayRef dilation = 1,
                     int64_t groups = 1) {
  return detail::convolution_padded("conv1d", 1, input, weight, bias, stride, padding, dilation,
                                    groups);
}

/*! \brief conv2d with padding "valid" or "same" (a string: an integer padding such as 0
 *  takes the overload above). */
template <typename S, typename = detail::if_string_like<S>>
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     IntArrayRef stride, const S& padding, IntArrayRef dilation = 1,
                     int64_t groups = 1) {
  return detail::convolution_padded("conv2d", 2, input, weight, bias, stride, padding, dilation,
                                    groups);
}

/*! \brief Rows of weight (num_embeddings, dim) picked by the integer tensor indices;
 *  the result has shape indices.sizes() + [dim]. padding_idx and the gradient options
 *  only matter for autograd, which C++ ops do not record. */
inline Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/ = -1,
                        bool /*scale_grad_by_freq*/ = false, bool /*sparse*/ = false) {
  if (weight.dim() != 2) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("embedding: weight must be 2-d, got shape ",
                                                        weight.sizes()));
  }
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(weight.size(1));
  return index_select(weight, 0, indices.reshape({-1})).view(shape);
}

/*! \brief In training, zero each element with probability p and scale the rest by
 *  1 / (1 - p); else the input itself. */
inline Tensor dropout(const Tensor& input, double p, bool train) {
  if (p < 0 || p > 1) {
    detail::throw_error(
        SDK_ERROR_VALUE,
        detail::concat("dropout probability has to be between 0 and 1, but got ", p));
  }
  if (!train || p == 0) return input;
  if (p == 1) return zeros_like(input);
  Tensor keep = rand_like(input).ge(p).to(input.scalar_type());
  return input * keep * (1.0 / (1.0 - p));
}

/*! \brief Pad (negative values crop) the last pad.size() / 2 dims with `value`:
 *  pad = {last_begin, last_end, second_last_begin, ...}. */
inline Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0) {
  const int64_t np = static_cast<int64_t>(pad.size()) / 2;
  if (pad.size() % 2 || np > self.dim()) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("constant_pad_nd: padding of length ", pad.size(),
                                       " does not fit a ", self.dim(), "-d input"));
  }
  Tensor src = self;
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = self.dim() - 1 - i, lo = pad[2 * i], hi = pad[2 * i + 1];
    const int64_t start = lo < 0 ? -lo : 0, stop = src.size(d) - (hi < 0 ? -hi : 0);
    if (stop < start) {
      detail::throw_error(SDK_ERROR_VALUE, detail::concat("constant_pad_nd: padding ", pad,
                                                          " leaves no elements in dim ", d));
    }
    src = src.narrow(d, start, stop - start);
    shape[static_cast<size_t>(d)] = (stop - start) + (lo > 0 ? lo : 0) + (hi > 0 ? hi : 0);
  }
  Tensor out = full(shape, value, self.options());
  Tensor dst = out;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = self.dim() - 1 - i, lo = pad[2 * i];
    dst = dst.narrow(d, lo > 0 ? lo : 0, src.size(d));
  }
  dst.copy_(src);
  return out;
}

/*! \brief Normalize each channel of (N, C, *) input by the batch's statistics (training;
 *  running_mean / running_var, when given, are updated in place with momentum, the variance
 *  unbiased) or by the running ones; then scale and shift by weight and bias (optional, C). */
inline Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias,
                         const std::optional<Tensor>& running_mean,
                         const std::optional<Tensor>& running_var, bool training, double momentum,
                         double eps, bool /*cudnn_enabled*/ = true) {
  if (input.dim() < 2) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("batch_norm: expected input of shape "
                                                        "(N, C, *), got ",
                                                        input.sizes()));
  }
  std::vector<int64_t> dims{0}, shape(static_cast<size_t>(input.dim()), 1);
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  shape[1] = input.size(1);
  const bool have_running =
      running_mean && running_mean->defined() && running_var && running_var->defined();
  Tensor mean, var;
  if (training || !have_running) {
    const int64_t n = input.numel() / (input.size(1) ? input.size(1) : 1);
    if (n <= 1) {
      detail::throw_error(SDK_ERROR_VALUE,
                          detail::concat("batch_norm: expected more than 1 value per channel "
                                         "when training, got input size ",
                                         input.sizes()));
    }
    mean = input.mean(dims);
    var = input.var(dims, /*unbiased=*/false);
    if (training && have_running) {
      running_mean->mul_(1 - momentum).add_(mean * momentum);
      running_var->mul_(1 - momentum).add_(var * (momentum * n / (n - 1)));
    }
  } else {
    mean = *running_mean;
    var = *running_var;
  }
  Tensor out = (input - mean.view(shape)) * (var.view(shape) + eps).rsqrt();
  if (weight && weight->defined()) out = out * weight->view(shape);
  if (bias && bias->defined()) out = out + bias->view(shape);
  return out;
}

/*! \brief Mean over kernel_size windows of (N, C, H, W) or (C, H, W) input (stride defaults
 *  to the kernel; zero padding counted in the mean, as torch's default count_include_pad).
 *  ceil_mode and divisor_override are not supported (an error says so). */
inline Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, bool ceil_mode = false,
                         bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  if (ceil_mode || !count_include_pad || divisor_override) {
    detail::throw_error(SDK_ERROR_NOT_IMPLEMENTED,
                        "avg_pool2d: ceil_mode, count_include_pad=false and divisor_override "
                        "are not supported in C++ (sdk.nn.functional.avg_pool2d has them)");
  }
  if (input.dim() != 3 && input.dim() != 4) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("avg_pool2d: expected a 3-d or 4-d "
                                                        "input, got shape ",
                                                        input.sizes()));
  }
  std::vector<int64_t> k = detail::expand_param(kernel_size, 2, "avg_pool2d", "kernel_size");
  const int64_t c = input.size(input.dim() - 3);
  // one averaging filter per channel: a depthwise convolution
  Tensor w = full({c, 1, k[0], k[1]}, 1.0 / static_cast<double>(k[0] * k[1]), input.options());
  return detail::convolution("avg_pool2d", 2, input, w, std::nullopt,
                             stride.empty() ? IntArrayRef(k) : stride, padding, 1, c);
}

/*! \brief Max over kernel_size windows of (N, C, H, W) or (C, H, W) float input (stride
 *  defaults to the kernel; padding counts as -inf). ceil_mode is not supported in C++. */
inline Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, IntArrayRef dilation = 1,
                         bool ceil_mode = false) {
  const char* op = "max_pool2d";
  if (ceil_mode) {
    detail::throw_error(SDK_ERROR_NOT_IMPLEMENTED,
                        "max_pool2d: ceil_mode is not supported in C++ "
                        "(sdk.nn.functional.max_pool2d has it)");
  }
  if ((input.dim() != 3 && input.dim() != 4) || !input.is_floating_point()) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat(op,
                                       ": expected a 3-d or 4-d float input, "
                                       "got ",
                                       input.scalar_type(), " of shape ", input.sizes()));
  }
  std::vector<int64_t> k = detail::expand_param(kernel_size, 2, op, "kernel_size");
  std::vector<int64_t> st = stride.empty() ? k : detail::expand_param(stride, 2, op, "stride");
  std::vector<int64_t> p = detail::expand_param(padding, 2, op, "padding");
  std::vector<int64_t> d = detail::expand_param(dilation, 2, op, "dilation");
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t size = input.size(input.dim() - 2 + i);
    if (k[i] < 1 || st[i] < 1 || d[i] < 1 || p[i] < 0 || 2 * p[i] > k[i]) {
      detail::throw_error(
          SDK_ERROR_VALUE,
          detail::concat(op, ": bad kernel_size ", kernel_size, ", stride ", stride, ", padding ",
                         padding, " or dilation ", dilation, " (padding at most half the kernel)"));
    }
    out[i] = (size + 2 * p[i] - d[i] * (k[i] - 1) - 1) / st[i] + 1;
    if (out[i] < 1) {
      detail::throw_error(SDK_ERROR_VALUE,
                          detail::concat(op, ": the input of shape ", input.sizes(),
                                         " is smaller than the "
                                         "kernel"));
    }
  }
  const Tensor x =
      (p[0] || p[1]) ? constant_pad_nd(input, {p[1], p[1], p[0], p[0]}, -INFINITY) : input;
  Tensor best;
  for (int64_t i = 0; i < k[0]; ++i) {
    for (int64_t j = 0; j < k[1]; ++j) {
      Tensor w = x.slice(-2, i * d[0], i * d[0] + st[0] * (out[0] - 1) + 1, st[0])
                     .slice(-1, j * d[1], j * d[1] + st[1] * (out[1] - 1) + 1, st[1]);
      best = best.defined() ? maximum(best, w) : w.clone();
    }
  }
  return best;
}

/*! \brief Mean (or sum, or none: Reduction::) of the squared differences. */
inline Tensor mse_loss(const Tensor& self, const Tensor& target,
                       int64_t reduction = Reduction::Mean) {
  Tensor d = self - target;
  Tensor sq = d * d;
  if (reduction == Reduction::None) return sq;
  if (reduction == Reduction::Sum) return sq.sum();
  if (reduction == Reduction::Mean) return sq.mean();
  detail::throw_error(SDK_ERROR_VALUE, detail::concat("mse_loss: unknown reduction ", reduction,
                                                      " (Reduction::None, Mean or Sum)"));
}

/*! \brief x1 . x2 / max(|x1| |x2|, eps) along dim (broadcasting), as torch. */
inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1,
                                double eps = 1e-8) {
  Tensor n1 = (x1 * x1).sum(dim), n2 = (x2 * x2).sum(dim);
  return (x1 * x2).sum(dim) / (n1 * n2).clamp_min(eps * eps).sqrt();
}

/*! \brief at::pad: constant_pad_nd for mode "constant" (value, default 0); "reflect",
 *  "replicate" and "circular" gather the border elements (non-negative pads, last dims
 *  first, as constant_pad_nd). */
inline Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode = "constant",
                  std::optional<double> value = std::nullopt) {
  const std::string m(mode);
  if (mode == "constant") return constant_pad_nd(self, pad, value ? Scalar(*value) : Scalar(0));
  SDK_CHECK_VALUE(mode == "reflect" || mode == "replicate" || mode == "circular",
                  "pad: unrecognised padding mode '", m,
                  "' (expected constant, reflect, replicate or circular)");
  SDK_CHECK_VALUE(!value, "pad: padding mode \"", m, "\" doesn't take in value argument");
  const int64_t np = static_cast<int64_t>(pad.size()) / 2;
  SDK_CHECK_VALUE(pad.size() % 2 == 0 && np <= self.dim(), "pad: padding length ", pad.size(),
                  " must be even and at most twice the number of dimensions (", self.dim(), ")");
  Tensor out = self;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = self.dim() - 1 - i, n = self.size(d), l = pad[2 * i], r = pad[2 * i + 1];
    SDK_CHECK_VALUE(l >= 0 && r >= 0, "pad: mode ", m, " needs non-negative padding, got ", pad);
    if (l == 0 && r == 0) continue;
    SDK_CHECK_VALUE(n > 0, "pad: cannot pad dimension ", d, " of size 0 in mode ", m);
    SDK_CHECK_VALUE(mode != "reflect" || (l < n && r < n),
                    "pad: padding size should be less "
                    "than the corresponding input dimension, but got: padding (",
                    l, ", ", r, ") at dimension ", d, " of input ", self.sizes());
    SDK_CHECK_VALUE(mode != "circular" || (l <= n && r <= n),
                    "pad: padding value causes "
                    "wrapping around more than once (padding (",
                    l, ", ", r, ") at dimension ", d, " of input ", self.sizes(), ")");
    std::vector<int64_t> from;
    for (int64_t j = -l; j < n + r; ++j) {
      if (mode == "replicate") {
        from.push_back(j < 0 ? 0 : j >= n ? n - 1 : j);
      } else if (mode == "reflect") {
        from.push_back(j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j);
      } else {
        from.push_back(((j % n) + n) % n);
      }
    }
    Tensor index = from_blob(from.data(), {static_cast<int64_t>(from.size())}, kLong).clone();
    out = out.index_select(d, index.to(self.device()));
  }
  return out;
}

/*! \brief -w (t log(x) + (1 - t) log(1 - x)) with the logs clamped at -100, reduced as
 *  mse_loss (Reduction::None, Mean or Sum); x must hold probabilities. */
inline Tensor binary_cross_entropy(const Tensor& self, const Tensor& target,
                                   const std::optional<Tensor>& weight = {},
                                   int64_t reduction = Reduction::Mean) {
  SDK_CHECK_VALUE(self.sizes() == target.sizes(), "binary_cross_entropy: Using a target size (",
                  target.sizes(), ") that is different to the input size (", self.sizes(),
                  ") is deprecated. Please ensure they have the same size.");
  SDK_CHECK_TYPE(self.is_floating_point() && target.is_floating_point(),
                 "binary_cross_entropy: expected floating point input and target, got ",
                 self.scalar_type(), " and ", target.scalar_type());
  SDK_CHECK_VALUE(reduction >= Reduction::None && reduction < Reduction::END,
                  "binary_cross_entropy: unknown reduction ", reduction,
                  " (Reduction::None, Mean or Sum)");
  SDK_CHECK_VALUE(self.numel() == 0 || self.ge(0).logical_and(self.le(1)).all().cpu().item<bool>(),
                  "binary_cross_entropy: all elements of input should be between 0 and 1");
  // In place on fresh tensors: clamp_min(Scalar) trips gcc's -Wmaybe-uninitialized at -O1
  // with the sanitizers (a false positive, see tensor_methods.h).
  Tensor log_x = self.log(), log_1mx = self.neg().log1p();
  log_x.clamp_min_(-100);
  log_1mx.clamp_min_(-100);
  Tensor loss = (target - 1) * log_1mx - target * log_x;
  if (weight && weight->defined()) loss = loss * *weight;
  if (reduction == Reduction::None) return loss;
  return reduction == Reduction::Sum ? loss.sum() : loss.mean();
}

/*! \brief The p-norm of x1 - x2 + eps over the last dim (inputs broadcast). */
inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2,
                                double eps = 1e-06, bool keepdim = false) {
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  SDK_CHECK_VALUE(last >= 0, "pairwise_distance: expected inputs with at least 1 dimension");
  return norm(x1 - x2 + eps, std::optional<Scalar>(p), {last}, keepdim);
}

/*! \brief Average pooling of (C, H, W) or (N, C, H, W) input to output_size (oH, oW): bin i of
 *  a dim of n covers [floor(i n / o), ceil((i + 1) n / o)). Float dtypes. */
inline Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  SDK_CHECK_VALUE(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2, got ",
                  output_size);
  SDK_CHECK_VALUE(input.dim() == 3 || input.dim() == 4,
                  "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ", input.sizes());
  for (int64_t d = input.dim() - 3; d < input.dim(); ++d) {
    SDK_CHECK_VALUE(input.size(d) > 0,
                    "adaptive_avg_pool2d(): Expected input to have non-zero "
                    "size for non-batch dimensions, but input has sizes ",
                    input.sizes());
  }
  SDK_CHECK_VALUE(output_size[0] >= 0 && output_size[1] >= 0,
                  "adaptive_avg_pool2d: elements of output_size must be greater than or equal "
                  "to 0 but received ",
                  output_size);
  SDK_CHECK_TYPE(input.is_floating_point(), "adaptive_avg_pool2d: not implemented for '",
                 input.scalar_type(), "'");
  Tensor x = input;
  for (int64_t k = 0; k < 2; ++k) {  // rows, then columns: the mean of a box is separable
    const int64_t d = input.dim() - 2 + k, n = x.size(d), o = output_size[k];
    std::vector<Tensor> bins;
    for (int64_t i = 0; i < o; ++i) {
      const int64_t start = i * n / o, end = ((i + 1) * n + o - 1) / o;
      bins.push_back(x.narrow(d, start, end - start).mean({d}, true));
    }
    x = o ? cat(bins, d) : x.narrow(d, 0, 0);
  }
  return x;
}

/*! \brief 3-d cross-correlation: input (N, C_in, D, H, W) or (C_in, D, H, W), weight
 *  (C_out, C_in / groups, kD, kH, kW): for each output depth, the sum over kD of conv2d of
 *  the matching input slices (the core's kernels are 1-d and 2-d). */
inline Tensor conv3d(const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  const bool batched = input.dim() == 5;
  SDK_CHECK_VALUE(batched || input.dim() == 4,
                  "conv3d: expected a 4-d or 5-d input (N, C, D, H, W), got size ", input.sizes());
  SDK_CHECK_VALUE(weight.dim() == 5, "conv3d: weight must be 5-d, got shape ", weight.sizes());
  const std::vector<int64_t> s = detail::expand_param(stride, 3, "conv3d", "stride");
  const std::vector<int64_t> p = detail::expand_param(padding, 3, "conv3d", "padding");
  const std::vector<int64_t> d = detail::expand_param(dilation, 3, "conv3d", "dilation");
  SDK_CHECK_VALUE(s[0] >= 1 && d[0] >= 1 && p[0] >= 0,
                  "conv3d: stride and dilation must be positive and padding non-negative, got ",
                  stride, ", ", dilation, ", ", padding);
  Tensor x = batched ? input : input.unsqueeze(0);
  if (p[0]) x = constant_pad_nd(x, {0, 0, 0, 0, p[0], p[0]});
  const int64_t kd = weight.size(2), span = d[0] * (kd - 1) + 1;
  SDK_CHECK_VALUE(kd >= 1 && x.size(2) >= span, "conv3d: the padded input depth ", x.size(2),
                  " is smaller than the dilated kernel depth ", span);
  const int64_t od = (x.size(2) - span) / s[0] + 1;
  std::vector<Tensor> planes;
  for (int64_t o = 0; o < od; ++o) {
    Tensor acc;
    for (int64_t k = 0; k < kd; ++k) {
      Tensor part = conv2d(x.select(2, o * s[0] + k * d[0]), weight.select(2, k),
                           k == 0 ? bias : std::optional<Tensor>(), {s[1], s[2]}, {p[1], p[2]},
                           {d[1], d[2]}, groups);
      acc = k == 0 ? part : acc + part;
    }
    planes.push_back(acc);
  }
  Tensor out = stack(planes, 2);
  return batched ? out : out.squeeze(0);
}

/*! \brief The transpose (gradient) of conv2d: input (N, C_in, H, W) or (C_in, H, W), weight
 *  (C_in, C_out / groups, kH, kW); the output grows to (H - 1) stride - 2 padding +
 *  dilation (kH - 1) + output_padding + 1. Computed as conv2d of the stride-spread, padded
 *  input with the flipped, transposed weight. */
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                               const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
                               IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                               int64_t groups = 1, IntArrayRef dilation = 1) {
  const bool batched = input.dim() == 4;
  SDK_CHECK_VALUE(batched || input.dim() == 3,
                  "conv_transpose2d: expected a 3-d or 4-d input (N, C, H, W), got size ",
                  input.sizes());
  SDK_CHECK_VALUE(weight.dim() == 4, "conv_transpose2d: weight must be 4-d, got shape ",
                  weight.sizes());
  SDK_CHECK_VALUE(groups >= 1 && weight.size(0) % groups == 0,
                  "conv_transpose2d: weight's first dim ", weight.size(0),
                  " must be divisible by groups (", groups, ")");
  const char* op = "conv_transpose2d";
  const std::vector<int64_t> s = detail::expand_param(stride, 2, op, "stride");
  const std::vector<int64_t> p = detail::expand_param(padding, 2, op, "padding");
  const std::vector<int64_t> op_ = detail::expand_param(output_padding, 2, op, "output_padding");
  const std::vector<int64_t> d = detail::expand_param(dilation, 2, op, "dilation");
  Tensor x = batched ? input : input.unsqueeze(0);
  SDK_CHECK_VALUE(x.size(1) == weight.size(0), "conv_transpose2d: input has ", x.size(1),
                  " channels, weight expects ", weight.size(0));
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end()), pad;
  for (int64_t i = 0; i < 2; ++i) {
    SDK_CHECK_VALUE(s[i] >= 1 && d[i] >= 1 && p[i] >= 0 && op_[i] >= 0,
                    "conv_transpose2d: stride and dilation must be positive, padding and "
                    "output_padding non-negative");
    SDK_CHECK_VALUE(op_[i] < s[i] || op_[i] < d[i],
                    "conv_transpose2d: output padding must be smaller than either stride or "
                    "dilation, but got output_padding ",
                    output_padding, ", stride ", stride, ", dilation ", dilation);
    shape[2 + i] = x.size(2 + i) ? (x.size(2 + i) - 1) * s[i] + 1 : 0;
  }
  Tensor spread = x;
  if (s[0] > 1 || s[1] > 1) {
    spread = zeros(shape, x.options());
    spread.slice(2, 0, INT64_MAX, s[0]).slice(3, 0, INT64_MAX, s[1]).copy_(x);
  }
  for (int64_t i = 1; i >= 0; --i) {  // constant_pad_nd lists the last dim first
    const int64_t edge = d[i] * (weight.size(2 + i) - 1) - p[i];
    pad.insert(pad.end(), {edge, edge + op_[i]});
  }
  const int64_t cin = weight.size(0), cout = weight.size(1) * groups;
  Tensor w = weight.reshape({groups, cin / groups, weight.size(1), weight.size(2), weight.size(3)})
                 .transpose(1, 2)
                 .reshape({cout, cin / groups, weight.size(2), weight.size(3)})
                 .flip({2, 3});
  Tensor out = conv2d(constant_pad_nd(spread, pad), w, bias, 1, 0, {d[0], d[1]}, groups);
  return batched ? out : out.squeeze(0);
}

}  // namespace sdk

#endif  // SDK_LAYERS_H_
