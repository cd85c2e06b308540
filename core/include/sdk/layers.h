// sdk/layers.h: the neural-network layers of ATen's namespace (at::layer_norm, at::conv2d,
// at::embedding, at::dropout, at::constant_pad_nd) as sdk:: functions, with torch's
// arguments. layer_norm and the convolutions run the core's fused kernels
// (sdk_layer_norm, sdk_convolution); Python's sdk.nn.functional calls the same kernels.
#ifndef SDK_LAYERS_H_
#define SDK_LAYERS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "sdk/ops.h"
#include "sdk/tensor_base.h"

namespace sdk {

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

}  // namespace detail

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

}  // namespace sdk

#endif  // SDK_LAYERS_H_
