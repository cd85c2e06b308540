// sdk/nn_losses.h: the losses of torch::nn::functional (cross_entropy, nll_loss, mse_loss, ...)
// with torch's options structs, composed from sdk:: ops.
#ifndef SDK_NN_LOSSES_H_
#define SDK_NN_LOSSES_H_

#include <cstdint>
#include <vector>

#include "sdk/nn_options.h"
#include "sdk/tensor.h"

namespace sdk {
namespace nn {
namespace functional {

namespace detail {

inline Tensor reduce(const Tensor& loss, const reduction_t& r) {
  if (std::holds_alternative<enumtype::kNone>(r)) return loss;
  return std::holds_alternative<enumtype::kSum>(r) ? loss.sum() : loss.mean();
}

// Per-class weights shaped to broadcast against (N, C, d1, ...) log-probabilities.
inline Tensor class_weight(const Tensor& logp, const Tensor& weight) {
  std::vector<int64_t> shape(static_cast<size_t>(logp.dim()), 1);
  shape[1] = logp.size(1);
  return weight.reshape(shape);
}

// The negative log-likelihood of class-index targets with label smoothing `ls`, for
// log-probabilities (N, C, d1, ...) and targets (N, d1, ...): torch's weighted mean divides by
// the summed weights of the targets that are not ignored.
inline Tensor nll_smoothed(const Tensor& logp, const Tensor& target, const Tensor& weight,
                           int64_t ignore_index, const reduction_t& reduction, double ls) {
  const int64_t classes = logp.size(1);
  SDK_CHECK_VALUE(target.dim() == logp.dim() - 1 && target.size(0) == logp.size(0),
                  "nll_loss: expected target of shape (N, d1, ...) for input of shape ",
                  logp.sizes(), ", got ", target.sizes());
  SDK_CHECK_VALUE(!weight.defined() || weight.numel() == classes, "nll_loss: weight should have ",
                  classes, " elements, got ", weight.defined() ? weight.numel() : 0);
  Tensor keep = target.ne(ignore_index);
  Tensor safe = sdk::where(keep, target, 0);
  if (safe.numel() > 0) {
    SDK_CHECK_VALUE(safe.min().item<int64_t>() >= 0 && safe.max().item<int64_t>() < classes,
                    "nll_loss: Target out of bounds (classes 0 to ", classes - 1, ")");
  }
  Tensor w = keep.to(logp.scalar_type());
  if (weight.defined())
    w = w * weight.to(logp.scalar_type()).index_select(0, safe.reshape({-1})).view(safe.sizes());
  Tensor loss = -logp.gather(1, safe.unsqueeze(1)).squeeze(1) * w;
  if (ls > 0) {
    Tensor wl = weight.defined() ? logp * class_weight(logp, weight.to(logp.scalar_type())) : logp;
    Tensor smooth = -wl.sum(1) * keep.to(logp.scalar_type()) / static_cast<double>(classes);
    loss = loss * (1 - ls) + smooth * ls;
  }
  if (std::holds_alternative<enumtype::kMean>(reduction)) return loss.sum() / w.sum();
  return reduce(loss, reduction);
}

// (C) input with a scalar target: add the batch dim and drop it again.
inline bool unbatched(const Tensor& input, const Tensor& target) {
  return input.dim() == 1 && target.dim() == 0;
}

}  // namespace detail

/*! \brief Negative log-likelihood of log-probabilities (N, C, d1, ...) or (C) at class indices. */
inline Tensor nll_loss(const Tensor& input, const Tensor& target,
                       const NLLLossFuncOptions& options = {}) {
  if (detail::unbatched(input, target)) {
    return nll_loss(input.unsqueeze(0), target.unsqueeze(0), options);
  }
  SDK_CHECK_VALUE(input.dim() >= 2, "nll_loss: expected input of 1 or more dims, got shape ",
                  input.sizes());
  return detail::nll_smoothed(input, target, options.weight(), options.ignore_index(),
                              options.reduction(), 0);
}

/*! \brief log_softmax over dim 1, then nll_loss for class indices (integer target) or the
 *  cross entropy with class probabilities (float target shaped as input). */
inline Tensor cross_entropy(const Tensor& input, const Tensor& target,
                            const CrossEntropyFuncOptions& options = {}) {
  if (detail::unbatched(input, target) ||
      (input.dim() == 1 && target.dim() == 1 && target.is_floating_point())) {
    return cross_entropy(input.unsqueeze(0), target.unsqueeze(0), options);
  }
  const double ls = options.label_smoothing();
  SDK_CHECK_VALUE(ls >= 0 && ls <= 1,
                  "cross_entropy: label_smoothing must be between 0.0 and 1.0. ", "Got: ", ls);
  SDK_CHECK_VALUE(input.dim() >= 2, "cross_entropy: expected input of 1 or more dims, got shape ",
                  input.sizes());
  Tensor logp = sdk::log_softmax(input, 1);
  if (!target.is_floating_point()) {
    return detail::nll_smoothed(logp, target, options.weight(), options.ignore_index(),
                                options.reduction(), ls);
  }
  SDK_CHECK_VALUE(target.sizes() == input.sizes(),
                  "cross_entropy: class-probability target must have the input's shape ",
                  input.sizes(), ", got ", target.sizes());
  const int64_t classes = input.size(1);
  Tensor t = ls > 0 ? target * (1 - ls) + ls / static_cast<double>(classes) : target;
  Tensor wl =
      options.weight().defined() ? logp * detail::class_weight(logp, options.weight()) : logp;
  Tensor loss = -(wl * t).sum(1);
  if (std::holds_alternative<enumtype::kMean>(options.reduction())) {
    return loss.sum() / static_cast<double>(input.numel() / classes);
  }
  return detail::reduce(loss, options.reduction());
}

inline Tensor mse_loss(const Tensor& input, const Tensor& target,
                       const MSELossFuncOptions& options = {}) {
  Tensor d = input - target;
  return detail::reduce(d * d, options.reduction());
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target,
                      const L1LossFuncOptions& options = {}) {
  return detail::reduce(sdk::abs(input - target), options.reduction());
}
/*! \brief 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (beta 0: l1). */
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                             const SmoothL1LossFuncOptions& options = {}) {
  const double beta = options.beta();
  SDK_CHECK_VALUE(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  Tensor d = sdk::abs(input - target);
  if (beta == 0) return detail::reduce(d, options.reduction());
  return detail::reduce(sdk::where(d.lt(beta), d * d * (0.5 / beta), d - 0.5 * beta),
                        options.reduction());
}
/*! \brief 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere. */
inline Tensor huber_loss(const Tensor& input, const Tensor& target,
                         const HuberLossFuncOptions& options = {}) {
  const double delta = options.delta();
  SDK_CHECK_VALUE(delta > 0, "huber_loss does not support non-positive values for delta.");
  Tensor d = sdk::abs(input - target);
  return detail::reduce(sdk::where(d.lt(delta), d * d * 0.5, (d - 0.5 * delta) * delta),
                        options.reduction());
}
/*! \brief target (log target - input), input being log-probabilities; batchmean divides the
 *  sum by the batch size. */
inline Tensor kl_div(const Tensor& input, const Tensor& target,
                     const KLDivFuncOptions& options = {}) {
  Tensor loss = options.log_target()
                    ? sdk::exp(target) * (target - input)
                    : sdk::where(target.gt(0), target * sdk::log(target), 0) - target * input;
  const auto& r = options.reduction();
  if (std::holds_alternative<enumtype::kNone>(r)) return loss;
  if (std::holds_alternative<enumtype::kSum>(r)) return loss.sum();
  if (std::holds_alternative<enumtype::kMean>(r)) return loss.mean();
  return loss.sum() / static_cast<double>(input.dim() > 0 ? input.size(0) : 1);
}
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                   const BinaryCrossEntropyFuncOptions& options = {}) {
  return sdk::binary_cross_entropy(input, target, options.weight(),
                                   static_cast<int64_t>(options.reduction().index()));
}
/*! \brief (1 - t) x + (1 + (pos_weight - 1) t) log(1 + exp(-x)), computed stably. */
inline Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {}) {
  SDK_CHECK_VALUE(input.sizes() == target.sizes(),
                  "binary_cross_entropy_with_logits: Target size (", target.sizes(),
                  ") must be the same as input size (", input.sizes(), ")");
  // log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))
  Tensor log_1p_exp_neg = sdk::relu(-input) + sdk::log1p(sdk::exp(-sdk::abs(input)));
  Tensor coef = options.pos_weight().defined() ? (options.pos_weight() - 1) * target + 1
                                               : sdk::ones_like(target);
  Tensor loss = (1 - target) * input + coef * log_1p_exp_neg;
  if (options.weight().defined()) loss = loss * options.weight();
  return detail::reduce(loss, options.reduction());
}

}  // namespace functional
}  // namespace nn
}  // namespace sdk

#endif  // SDK_NN_LOSSES_H_
