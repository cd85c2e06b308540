// sdk/nn_functional.h: torch::nn::functional (`namespace F = sdk::nn::functional;`), each
// function taking torch's options struct (sdk/nn_options.h) and composed from the sdk:: ops.
#ifndef SDK_NN_FUNCTIONAL_H_
#define SDK_NN_FUNCTIONAL_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sdk/nn_options.h"
#include "sdk/tensor.h"

namespace sdk {
namespace nn {
namespace functional {

namespace detail {

// An activation's result, written into the input when `inplace` (torch returns the input then).
inline Tensor finish(const Tensor& input, const Tensor& result, bool inplace) {
  if (!inplace) return result;
  input.copy_(result);
  return input;
}

// Shape [1, n, 1, ...] for a per-channel tensor broadcast against `like` (channels at dim 1).
inline std::vector<int64_t> channel_shape(const Tensor& like, int64_t n) {
  std::vector<int64_t> shape(static_cast<size_t>(like.dim()), 1);
  if (like.dim() > 1) shape[1] = n;
  if (like.dim() == 1) shape[0] = n;
  return shape;
}

}  // namespace detail

// ---- activations -------------------------------------------------------------------------

inline Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {}) {
  return detail::finish(input, sdk::relu(input), options.inplace());
}
inline Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {}) {
  return detail::finish(input, sdk::hardtanh(input, 0, 6), options.inplace());
}
inline Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {}) {
  return detail::finish(input, sdk::leaky_relu(input, options.negative_slope()), options.inplace());
}
inline Tensor elu(const Tensor& input, const ELUFuncOptions& options = {}) {
  return detail::finish(input, sdk::elu(input, options.alpha()), options.inplace());
}
/*! \brief scale * elu(x, alpha) with torch's fixed alpha and scale. */
inline Tensor selu(const Tensor& input, const SELUFuncOptions& options = {}) {
  constexpr double alpha = 1.6732632423543772848170429916717;
  constexpr double scale = 1.0507009873554804934193349852946;
  return detail::finish(input, sdk::elu(input, alpha) * scale, options.inplace());
}
/*! \brief alpha * elu(x / alpha): x for x > 0, alpha (exp(x / alpha) - 1) else. */
inline Tensor celu(const Tensor& input, const CELUFuncOptions& options = {}) {
  SDK_CHECK_VALUE(options.alpha() != 0, "celu: alpha must be non-zero");
  Tensor out = sdk::elu(input / options.alpha(), 1) * options.alpha();
  return detail::finish(input, out, options.inplace());
}
inline Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {}) {
  return sdk::gelu(input, options.approximate());
}
inline Tensor silu(const Tensor& input) { return sdk::silu(input); }
inline Tensor mish(const Tensor& input) { return sdk::mish(input); }
inline Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {}) {
  return sdk::softplus(input, options.beta(), options.threshold());
}
inline Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {}) {
  SDK_CHECK_VALUE(options.max_val() >= options.min_val(),
                  "hardtanh: max_val must be greater than or equal to min_val, got min_val ",
                  options.min_val(), " and max_val ", options.max_val());
  Tensor out = sdk::hardtanh(input, options.min_val(), options.max_val());
  return detail::finish(input, out, options.inplace());
}
/*! \brief log(sigmoid(x)) = -softplus(-x), stable for large |x|. */
inline Tensor logsigmoid(const Tensor& input) { return -sdk::softplus(-input, 1, 20); }
inline Tensor tanhshrink(const Tensor& input) { return input - sdk::tanh(input); }
inline Tensor softsign(const Tensor& input) { return input / (sdk::abs(input) + 1); }
inline Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {}) {
  return sdk::where(sdk::abs(input).gt(options.lambda()), input, 0);
}
inline Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {}) {
  const double l = options.lambda();
  SDK_CHECK_VALUE(l >= 0, "softshrink: lambda must be non-negative, got ", l);
  return sdk::where(input.gt(l), input - l, sdk::where(input.lt(-l), input + l, 0));
}
inline Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options) {
  Tensor out = sdk::where(input.gt(options.threshold()), input, options.value());
  return detail::finish(input, out, options.inplace());
}
/*! \brief a * sigmoid(b) for the two halves a, b of `dim`. */
inline Tensor glu(const Tensor& input, const GLUFuncOptions& options = {}) {
  const int64_t d = options.dim() < 0 ? options.dim() + input.dim() : options.dim();
  SDK_CHECK_VALUE(d >= 0 && d < input.dim() && input.size(d) % 2 == 0,
                  "glu: Halving dimension must be even, but dimension ", options.dim(),
                  " of input of shape ", input.sizes(), " is not");
  const int64_t half = input.size(d) / 2;
  return input.narrow(d, 0, half) * sdk::sigmoid(input.narrow(d, half, half));
}
/*! \brief x for x >= 0, weight * x else; weight has 1 or C (dim 1) elements. */
inline Tensor prelu(const Tensor& input, const Tensor& weight) {
  const int64_t n = weight.numel();
  const int64_t channels = input.dim() > 1 ? input.size(1) : input.dim() == 1 ? input.size(0) : 1;
  SDK_CHECK_VALUE(n == 1 || n == channels,
                  "prelu: Mismatch of parameter numbers and input channel ",
                  "size. Found parameter numbers = ", n, " and channel size = ", channels);
  Tensor w = n == 1 ? weight.reshape({}) : weight.reshape(detail::channel_shape(input, n));
  return sdk::where(input.ge(0), input, w * input);
}

inline Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return sdk::softmax(input, options.dim(), options.dtype());
}
inline Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return sdk::log_softmax(input, options.dim(), options.dtype());
}
inline Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  Tensor in = options.dtype() ? input.to(*options.dtype()) : input;
  return sdk::softmax(-in, options.dim());
}

// ---- linear, dropout, normalization, embedding --------------------------------------------

inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return sdk::linear(input, weight, bias);
}
inline Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {}) {
  Tensor out = sdk::dropout(input, options.p(), options.training());
  return detail::finish(input, out, options.inplace());
}
/*! \brief x / max(||x||_p over dim, eps). */
inline Tensor normalize(const Tensor& input, const NormalizeFuncOptions& options = {}) {
  Tensor n = sdk::norm(input, std::optional<Scalar>(options.p()), {options.dim()}, true);
  return input / n.clamp_min(options.eps()).expand_as(input);
}
inline Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return sdk::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(),
                         options.eps());
}
inline Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return sdk::group_norm(input, options.num_groups(), options.weight(), options.bias(),
                         options.eps());
}
inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                         const BatchNormFuncOptions& options = {}) {
  SDK_CHECK_NOT_IMPLEMENTED(options.momentum().has_value() || !options.training(),
                            "batch_norm: momentum=None (a cumulative average) is not implemented");
  return sdk::batch_norm(input, options.weight(), options.bias(), running_mean, running_var,
                         options.training(), options.momentum().value_or(0.1), options.eps());
}
/*! \brief Rows of weight picked by input. max_norm (renormalizing weight) is not implemented;
 *  padding_idx, scale_grad_by_freq and sparse only concern gradients. */
inline Tensor embedding(const Tensor& input, const Tensor& weight,
                        const EmbeddingFuncOptions& options = {}) {
  SDK_CHECK_NOT_IMPLEMENTED(!options.max_norm(), "embedding: max_norm is not implemented");
  return sdk::embedding(weight, input);
}
/*! \brief Int64 class indices to 0/1 rows of num_classes (-1: the largest index + 1). */
inline Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1) {
  SDK_CHECK_TYPE(tensor.scalar_type() == kLong,
                 "one_hot is only applicable to index tensor of type Long, got ",
                 tensor.scalar_type());
  if (tensor.numel() == 0) {
    SDK_CHECK_VALUE(num_classes > 0,
                    "one_hot: Can not infer total number of classes from empty "
                    "tensor.");
  } else {
    SDK_CHECK_VALUE(tensor.min().item<int64_t>() >= 0,
                    "one_hot: Class values must be non-negative.");
    const int64_t top = tensor.max().item<int64_t>();
    if (num_classes == -1) num_classes = top + 1;
    SDK_CHECK_VALUE(top < num_classes, "one_hot: Class values must be smaller than num_classes.");
  }
  std::vector<int64_t> shape(tensor.sizes().begin(), tensor.sizes().end());
  shape.push_back(num_classes);
  Tensor out = sdk::zeros(shape, tensor.options());
  out.scatter_(-1, tensor.unsqueeze(-1), 1);
  return out;
}
inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                                const CosineSimilarityFuncOptions& options = {}) {
  return sdk::cosine_similarity(x1, x2, options.dim(), options.eps());
}
inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                                const PairwiseDistanceFuncOptions& options = {}) {
  return sdk::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

}  // namespace functional
}  // namespace nn
}  // namespace sdk

#include "sdk/nn_functional_spatial.h"  // IWYU pragma: export
#include "sdk/nn_losses.h"              // IWYU pragma: export

#endif  // SDK_NN_FUNCTIONAL_H_
