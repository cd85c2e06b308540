// sdk/nn_aten.h: ATen's top-level spellings of the nn functions (at::one_hot, at::glu,
// at::im2col, at::l1_loss(..., int64_t reduction), at::scaled_dot_product_attention, ...), with
// ATen's positional arguments. Each forwards to sdk::nn::functional (sdk/nn_functional*.h,
// sdk/nn_losses.h) or is composed from the sdk:: ops.
#ifndef SDK_NN_ATEN_H_
#define SDK_NN_ATEN_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "sdk/nn_functional.h"
#include "sdk/nn_functional_spatial.h"
#include "sdk/nn_losses.h"
#include "sdk/tensor.h"

namespace sdk {
namespace detail {

// A loss reduced as ATen's int64_t reduction says (Reduction::None, Mean or Sum).
inline Tensor reduce_loss(const Tensor& loss, int64_t reduction, const char* op) {
  SDK_CHECK_VALUE(reduction >= Reduction::None && reduction < Reduction::END, op,
                  ": reduction must be Reduction::None, Mean or Sum, got ", reduction);
  if (reduction == Reduction::Mean) return loss.mean();
  return reduction == Reduction::Sum ? loss.sum() : loss;
}
// The nn::functional loss options asking for no reduction (the positional form reduces).
template <typename Options>
Options unreduced(Options options) {
  return options.reduction(enumtype::kNone());
}

}  // namespace detail

// ---- activations -------------------------------------------------------------------------
inline Tensor one_hot(const Tensor& self, int64_t num_classes = -1) {
  return nn::functional::one_hot(self, num_classes);
}
inline Tensor glu(const Tensor& self, int64_t dim = -1) { return nn::functional::glu(self, dim); }
inline Tensor selu(const Tensor& self) { return nn::functional::selu(self); }
inline Tensor celu(const Tensor& self, const Scalar& alpha = 1.0) {
  return nn::functional::celu(self, nn::functional::CELUFuncOptions().alpha(alpha.toDouble()));
}
inline Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5) {
  return nn::functional::hardshrink(self, lambd.toDouble());
}
inline Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5) {
  return nn::functional::softshrink(self, lambd.toDouble());
}
inline Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return nn::functional::threshold(
      self, nn::functional::ThresholdFuncOptions(threshold.toDouble(), value.toDouble()));
}
inline Tensor log_sigmoid(const Tensor& self) { return nn::functional::logsigmoid(self); }
/*! \brief relu6(x + 3) / 6. */
inline Tensor hardsigmoid(const Tensor& self) { return ((self + 3).clamp(0, 6)) / 6; }
/*! \brief x relu6(x + 3) / 6. */
inline Tensor hardswish(const Tensor& self) { return self * hardsigmoid(self); }
inline Tensor prelu(const Tensor& self, const Tensor& weight) {
  return nn::functional::prelu(self, weight);
}

// ---- losses (ATen's int64_t reduction: Reduction::None, Mean, Sum) -----------------------
inline Tensor l1_loss(const Tensor& self, const Tensor& target,
                      int64_t reduction = Reduction::Mean) {
  return detail::reduce_loss(
      nn::functional::l1_loss(self, target, detail::unreduced(nn::functional::L1LossFuncOptions())),
      reduction, "l1_loss");
}
inline Tensor smooth_l1_loss(const Tensor& self, const Tensor& target,
                             int64_t reduction = Reduction::Mean, double beta = 1.0) {
  auto options = detail::unreduced(nn::functional::SmoothL1LossFuncOptions()).beta(beta);
  return detail::reduce_loss(nn::functional::smooth_l1_loss(self, target, options), reduction,
                             "smooth_l1_loss");
}
inline Tensor huber_loss(const Tensor& self, const Tensor& target,
                         int64_t reduction = Reduction::Mean, double delta = 1.0) {
  auto options = detail::unreduced(nn::functional::HuberLossFuncOptions()).delta(delta);
  return detail::reduce_loss(nn::functional::huber_loss(self, target, options), reduction,
                             "huber_loss");
}
inline Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
                     bool log_target = false) {
  auto options = detail::unreduced(nn::functional::KLDivFuncOptions()).log_target(log_target);
  return detail::reduce_loss(nn::functional::kl_div(self, target, options), reduction, "kl_div");
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                               const std::optional<Tensor>& weight = {},
                                               const std::optional<Tensor>& pos_weight = {},
                                               int64_t reduction = Reduction::Mean) {
  auto options = detail::unreduced(nn::functional::BinaryCrossEntropyWithLogitsFuncOptions());
  if (weight && weight->defined()) options = options.weight(*weight);
  if (pos_weight && pos_weight->defined()) options = options.pos_weight(*pos_weight);
  return detail::reduce_loss(
      nn::functional::binary_cross_entropy_with_logits(self, target, options), reduction,
      "binary_cross_entropy_with_logits");
}

// ---- shuffles, im2col/col2im -------------------------------------------------------------
inline Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  return nn::functional::pixel_shuffle(self, upscale_factor);
}
/*! \brief (..., C, H * r, W * r) to (..., C * r * r, H, W): the inverse of pixel_shuffle. */
inline Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  const int64_t r = downscale_factor, nd = self.dim();
  SDK_CHECK_VALUE(nd >= 3 && r > 0 && self.size(nd - 2) % r == 0 && self.size(nd - 1) % r == 0,
                  "pixel_unshuffle: expected input of at least 3 dims whose height and width are "
                  "divisible by downscale_factor ",
                  r, ", got shape ", self.sizes());
  const int64_t c = self.size(nd - 3), h = self.size(nd - 2) / r, w = self.size(nd - 1) / r;
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - 3);
  shape.insert(shape.end(), {c * r * r, h, w});
  return self.reshape({-1, c, h, r, w, r}).permute({0, 1, 3, 5, 2, 4}).reshape(shape);
}
/*! \brief The channels (dim 1) of `groups` groups interleaved: (N, g, C / g, ...) transposed. */
inline Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  SDK_CHECK_VALUE(self.dim() >= 3,
                  "channel_shuffle expects input to have at least 3 "
                  "dimensions, but got input with sizes ",
                  self.sizes());
  SDK_CHECK_VALUE(groups > 0 && self.size(1) % groups == 0,
                  "Number of channels must be divisible by groups. Got ", self.size(1),
                  " channels and ", groups, " groups.");
  std::vector<int64_t> split(self.sizes().begin(), self.sizes().end());
  split[1] = self.size(1) / groups;
  split.insert(split.begin() + 1, groups);
  return self.reshape(split).transpose(1, 2).reshape(self.sizes());
}
inline Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
                     IntArrayRef padding, IntArrayRef stride) {
  return nn::functional::unfold(self, nn::functional::UnfoldFuncOptions(kernel_size)
                                          .dilation(dilation)
                                          .padding(padding)
                                          .stride(stride));
}
inline Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
                     IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  return nn::functional::fold(self, nn::functional::FoldFuncOptions(output_size, kernel_size)
                                        .dilation(dilation)
                                        .padding(padding)
                                        .stride(stride));
}

// ---- 1-d pooling and convolution through their 2-d forms ---------------------------------
namespace detail {
// {first, v[0]} (or {first, fill} for an empty v): a 1-d argument as its 2-d form's, with
// the added leading dim of size 1.
inline std::vector<int64_t> as_2d(IntArrayRef v, int64_t first, int64_t fill) {
  return {first, v.empty() ? fill : v[0]};
}
}  // namespace detail
inline Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, IntArrayRef dilation = 1,
                         bool ceil_mode = false) {
  const std::vector<int64_t> k = detail::as_2d(kernel_size, 1, 1);
  const std::vector<int64_t> s = stride.empty() ? k : detail::as_2d(stride, 1, 1);
  return max_pool2d(self.unsqueeze(-2), k, s, detail::as_2d(padding, 0, 0),
                    detail::as_2d(dilation, 1, 1), ceil_mode)
      .squeeze(-2);
}
inline Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, bool ceil_mode = false,
                         bool count_include_pad = true) {
  const std::vector<int64_t> k = detail::as_2d(kernel_size, 1, 1);
  const std::vector<int64_t> s = stride.empty() ? k : detail::as_2d(stride, 1, 1);
  return avg_pool2d(self.unsqueeze(-2), k, s, detail::as_2d(padding, 0, 0), ceil_mode,
                    count_include_pad)
      .squeeze(-2);
}
inline Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  SDK_CHECK_VALUE(output_size.size() == 1, "adaptive_avg_pool1d: output_size must be 1, got ",
                  output_size.size(), " values");
  return adaptive_avg_pool2d(self.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}
inline Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                               const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
                               IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                               int64_t groups = 1, IntArrayRef dilation = 1) {
  return conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias,
                          detail::as_2d(stride, 1, 1), detail::as_2d(padding, 0, 0),
                          detail::as_2d(output_padding, 0, 0), groups,
                          detail::as_2d(dilation, 1, 1))
      .squeeze(-2);
}

// ---- normalization and attention ---------------------------------------------------------
/*! \brief Each (sample, channel) plane normalized by its own mean and (biased) variance; with
 *  running stats given and use_input_stats, they move towards the batch's by momentum. */
inline Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias,
                            const std::optional<Tensor>& running_mean,
                            const std::optional<Tensor>& running_var, bool use_input_stats,
                            double momentum, double eps, bool cudnn_enabled = false) {
  (void)cudnn_enabled;
  SDK_CHECK_VALUE(input.dim() >= 3,
                  "instance_norm: expected an input of at least 3 dims "
                  "(N, C, ...), got shape ",
                  input.sizes());
  std::vector<int64_t> spatial, stats(static_cast<size_t>(input.dim()), 1), chan(stats);
  for (int64_t d = 2; d < input.dim(); ++d) spatial.push_back(d);
  stats[0] = input.size(0);
  stats[1] = chan[1] = input.size(1);
  const bool have_running =
      running_mean && running_mean->defined() && running_var && running_var->defined();
  Tensor mean, var;
  if (use_input_stats) {
    mean = input.mean(spatial, true);
    var = (input - mean).square().mean(spatial, true);
    if (have_running) {
      const double n = static_cast<double>(input.numel() / (input.size(0) * input.size(1)));
      Tensor batch_var = var.mean({0}).reshape({-1}) * (n / (n > 1 ? n - 1 : 1));
      running_mean->mul_(1 - momentum).add_(mean.mean({0}).reshape({-1}) * momentum);
      running_var->mul_(1 - momentum).add_(batch_var * momentum);
    }
  } else {
    SDK_CHECK_VALUE(have_running,
                    "Expected running_mean and running_var to be defined when "
                    "use_input_stats is false");
    mean = running_mean->reshape(chan);
    var = running_var->reshape(chan);
  }
  Tensor out = (input - mean) * (var + eps).rsqrt();
  if (weight && weight->defined()) out = out * weight->reshape(chan);
  if (bias && bias->defined()) out = out + bias->reshape(chan);
  return out;
}
/*! \brief x / sqrt(mean(x^2 over the last dims) + eps) * weight (eps: the dtype's epsilon). */
inline Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape,
                       const std::optional<Tensor>& weight = {},
                       std::optional<double> eps = std::nullopt) {
  const int64_t n = static_cast<int64_t>(normalized_shape.size());
  SDK_CHECK_VALUE(n >= 1 && n <= input.dim(), "rms_norm: normalized_shape ", normalized_shape,
                  " does not fit an input of shape ", input.sizes());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < n; ++i) {
    SDK_CHECK_VALUE(input.size(input.dim() - n + i) == normalized_shape[i],
                    "rms_norm: normalized_shape ", normalized_shape,
                    " is not the trailing shape of the input ", input.sizes());
    dims.push_back(input.dim() - n + i);
  }
  const double e = eps                                ? *eps
                   : input.scalar_type() == kDouble   ? 2.220446049250313e-16
                   : input.scalar_type() == kFloat    ? 1.1920928955078125e-07
                   : input.scalar_type() == kBFloat16 ? 0.0078125
                                                      : 0.0009765625;
  Tensor out = input * (input.square().mean(dims, true) + e).rsqrt();
  return weight && weight->defined() ? out * *weight : out;
}
/*! \brief softmax(q k^T * scale + mask) v over the last two dims; is_causal masks the upper
 *  triangle, a bool mask keeps where true, a float mask adds; enable_gqa repeats k and v
 *  over the query heads (dim -3). Dropout applies when dropout_p > 0. */
inline Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                           const Tensor& value,
                                           const std::optional<Tensor>& attn_mask = {},
                                           double dropout_p = 0.0, bool is_causal = false,
                                           std::optional<double> scale = std::nullopt,
                                           bool enable_gqa = false) {
  SDK_CHECK_VALUE(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
                  "scaled_dot_product_attention: query, key and value must be at least 2-d");
  SDK_CHECK_VALUE(!(is_causal && attn_mask && attn_mask->defined()),
                  "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                  "is_causal=True");
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.size(-3) != query.size(-3)) {
    SDK_CHECK_VALUE(query.size(-3) % key.size(-3) == 0,
                    "scaled_dot_product_attention: the "
                    "query heads (",
                    query.size(-3), ") must be a multiple of the key heads (", key.size(-3), ")");
    const int64_t rep = query.size(-3) / key.size(-3);
    k = key.repeat_interleave(rep, key.dim() - 3);
    v = value.repeat_interleave(rep, value.dim() - 3);
  }
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  Tensor scores = query.matmul(k.transpose(-2, -1)) * s;
  const int64_t l = query.size(-2), m = k.size(-2);
  if (is_causal) {
    Tensor keep = ones({l, m}, TensorOptions(kBool).device(query.device())).tril();
    scores = scores.masked_fill(keep.logical_not(), -INFINITY);
  } else if (attn_mask && attn_mask->defined()) {
    scores = attn_mask->scalar_type() == kBool
                 ? scores.masked_fill(attn_mask->logical_not(), -INFINITY)
                 : scores + *attn_mask;
  }
  Tensor attn = scores.softmax(-1);
  if (dropout_p > 0) attn = dropout(attn, dropout_p, true);
  return attn.matmul(v);
}
/*! \brief The p-norm distances between the rows of a 2-d input, upper triangle in row-major
 *  order (n (n - 1) / 2 values). */
inline Tensor pdist(const Tensor& self, double p = 2) {
  SDK_CHECK_VALUE(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  Tensor idx =
      triu_indices(self.size(0), self.size(0), 1, TensorOptions(kLong).device(self.device()));
  Tensor d = self.index_select(0, idx[0]) - self.index_select(0, idx[1]);
  return d.norm(p, {1});
}

}  // namespace sdk

#endif  // SDK_NN_ATEN_H_
