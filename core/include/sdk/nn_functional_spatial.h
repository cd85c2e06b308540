// sdk/nn_functional_spatial.h: the spatial part of torch::nn::functional (pad, convolutions,
// pooling, interpolate, grid_sample, unfold/fold, pixel_shuffle) over the sdk:: layers.
#ifndef SDK_NN_FUNCTIONAL_SPATIAL_H_
#define SDK_NN_FUNCTIONAL_SPATIAL_H_

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

inline Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  const bool constant = std::holds_alternative<enumtype::kConstant>(options.mode());
  return sdk::pad(input, options.pad(), sdk::detail::mode_name(options.mode()),
                  constant ? std::optional<double>(options.value()) : std::nullopt);
}

namespace detail {
template <size_t D, typename Conv, typename ConvPadded>
Tensor conv(const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& o, Conv conv_int,
            ConvPadded conv_str) {
  const auto& p = o.padding();
  if (const auto* ints = std::get_if<ExpandingArray<D>>(&p)) {
    return conv_int(input, weight, o.bias(), o.stride(), *ints, o.dilation(), o.groups());
  }
  const std::string mode = std::holds_alternative<enumtype::kSame>(p) ? "same" : "valid";
  return conv_str(input, weight, o.bias(), o.stride(), mode, o.dilation(), o.groups());
}
}  // namespace detail

inline Tensor conv1d(const Tensor& input, const Tensor& weight,
                     const Conv1dFuncOptions& options = {}) {
  return detail::conv(
      input, weight, options, [](auto&&... a) { return sdk::conv1d(a...); },
      [](auto&&... a) { return sdk::conv1d(a...); });
}
inline Tensor conv2d(const Tensor& input, const Tensor& weight,
                     const Conv2dFuncOptions& options = {}) {
  return detail::conv(
      input, weight, options, [](auto&&... a) { return sdk::conv2d(a...); },
      [](auto&&... a) { return sdk::conv2d(a...); });
}
/*! \brief 3-d convolution; padding kValid is 0, kSame is not implemented for 3-d. */
inline Tensor conv3d(const Tensor& input, const Tensor& weight,
                     const Conv3dFuncOptions& options = {}) {
  const auto& p = options.padding();
  SDK_CHECK_NOT_IMPLEMENTED(!std::holds_alternative<enumtype::kSame>(p),
                            "conv3d: padding kSame is not implemented");
  const auto* ints = std::get_if<ExpandingArray<3>>(&p);
  return sdk::conv3d(input, weight, options.bias(), options.stride(),
                     ints ? IntArrayRef(*ints) : IntArrayRef(0), options.dilation(),
                     options.groups());
}
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose2dFuncOptions& options = {}) {
  return sdk::conv_transpose2d(input, weight, options.bias(), options.stride(), options.padding(),
                               options.output_padding(), options.groups(), options.dilation());
}

// ---- pooling ----------------------------------------------------------------------------

inline Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return sdk::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                         options.dilation(), options.ceil_mode());
}
inline Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  return sdk::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(),
                         options.ceil_mode(), options.count_include_pad(),
                         options.divisor_override());
}
/*! \brief max_pool2d over a (…, 1, L) view of (N, C, L) or (C, L) input. */
inline Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  SDK_CHECK_VALUE(input.dim() == 2 || input.dim() == 3,
                  "max_pool1d: expected a 2-d or 3-d input, got shape ", input.sizes());
  Tensor out =
      sdk::max_pool2d(input.unsqueeze(-2), {1, options.kernel_size()[0]}, {1, options.stride()[0]},
                      {0, options.padding()[0]}, {1, options.dilation()[0]}, options.ceil_mode());
  return out.squeeze(-2);
}
inline Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  SDK_CHECK_VALUE(input.dim() == 2 || input.dim() == 3,
                  "avg_pool1d: expected a 2-d or 3-d input, got shape ", input.sizes());
  Tensor out =
      sdk::avg_pool2d(input.unsqueeze(-2), {1, options.kernel_size()[0]}, {1, options.stride()[0]},
                      {0, options.padding()[0]}, options.ceil_mode(), options.count_include_pad());
  return out.squeeze(-2);
}
inline Tensor adaptive_avg_pool2d(const Tensor& input,
                                  const AdaptiveAvgPool2dFuncOptions& options) {
  return sdk::adaptive_avg_pool2d(input, options.output_size());
}

// ---- interpolate ------------------------------------------------------------------------

namespace detail {

// Output sizes of the spatial dims from size or scale_factor (exactly one is given).
inline std::vector<int64_t> interpolate_sizes(const Tensor& input,
                                              const InterpolateFuncOptions& o) {
  const size_t n = static_cast<size_t>(input.dim() - 2);
  SDK_CHECK_VALUE(o.size().has_value() != o.scale_factor().has_value(),
                  "interpolate: only one of size or scale_factor should be defined");
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = input.size(static_cast<int64_t>(i) + 2);
    if (o.size()) {
      const auto& s = *o.size();
      SDK_CHECK_VALUE(s.size() == 1 || s.size() == n, "interpolate: Input and output must have ",
                      "the same number of spatial dimensions, but got input with spatial "
                      "dimensions of ",
                      n, " and output size of ", s.size());
      out[i] = s[s.size() == 1 ? 0 : i];
    } else {
      const auto& s = *o.scale_factor();
      SDK_CHECK_VALUE(s.size() == 1 || s.size() == n,
                      "interpolate: scale_factor shape must match input shape. Input is ", n,
                      "D, scale_factor size is ", s.size());
      out[i] = static_cast<int64_t>(std::floor(static_cast<double>(in) * s[s.size() == 1 ? 0 : i]));
    }
    SDK_CHECK_VALUE(out[i] > 0, "interpolate: output size must be positive, got ", out[i]);
  }
  return out;
}

// The scale a linear or nearest mode uses for dim i: the user's, unless recomputed from sizes.
inline std::optional<double> user_scale(const InterpolateFuncOptions& o, size_t i) {
  if (!o.scale_factor() || o.recompute_scale_factor().value_or(false)) return std::nullopt;
  const auto& s = *o.scale_factor();
  return s[s.size() == 1 ? 0 : i];
}

// Nearest (floor(dst * in / out)) or nearest-exact (floor((dst + 0.5) * in / out)) along dim d.
inline Tensor nearest_resample(const Tensor& x, int64_t d, int64_t out, std::optional<double> scale,
                               bool exact) {
  const int64_t in = x.size(d);
  const double step = scale && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / out;
  std::vector<int64_t> src(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const double pos =
        exact ? (static_cast<double>(i) + 0.5) * step : static_cast<double>(i) * step;
    src[static_cast<size_t>(i)] = std::min(static_cast<int64_t>(std::floor(pos)), in - 1);
  }
  Tensor index = from_blob(src.data(), {out}, kLong).clone().to(x.device());
  return x.index_select(d, index);
}

}  // namespace detail

/*! \brief Resize the spatial dims of (N, C, ...) input: nearest, nearest-exact, linear (3-d),
 *  bilinear (4-d), trilinear (5-d), area (3-d, 4-d). bicubic and antialias are not
 *  implemented. */
inline Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {}) {
  const std::string mode = sdk::detail::mode_name(options.mode());
  SDK_CHECK_VALUE(input.dim() >= 3 && input.dim() <= 5,
                  "interpolate: expected a 3-d, 4-d or 5-d input (N, C, ...), got shape ",
                  input.sizes());
  SDK_CHECK_NOT_IMPLEMENTED(mode != "bicubic", "interpolate: mode bicubic is not implemented");
  SDK_CHECK_NOT_IMPLEMENTED(!options.antialias(), "interpolate: antialias is not implemented");
  const bool is_linear = mode == "linear" || mode == "bilinear" || mode == "trilinear";
  SDK_CHECK_VALUE(is_linear || !options.align_corners().has_value(),
                  "interpolate: align_corners option can only be set with the interpolating modes: "
                  "linear | bilinear | bicubic | trilinear");
  const std::vector<int64_t> out = detail::interpolate_sizes(input, options);
  const size_t n = out.size();
  if (is_linear) {
    const size_t want = mode == "linear" ? 1 : mode == "bilinear" ? 2 : 3;
    SDK_CHECK_VALUE(n == want, "interpolate: Got ", input.dim(), "D input, but ", mode,
                    " mode needs ", want + 2, "D input");
    SDK_CHECK_TYPE(input.is_floating_point(), "interpolate: ", mode, " mode needs a float input, ",
                   "got ", input.scalar_type());
  }
  if (mode == "area") {
    SDK_CHECK_NOT_IMPLEMENTED(n <= 2, "interpolate: mode area is not implemented for 5-d input");
    if (n == 1) {
      return sdk::adaptive_avg_pool2d(input.unsqueeze(2), {1, out[0]}).squeeze(2);
    }
    return sdk::adaptive_avg_pool2d(input, out);
  }
  Tensor x = input;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = static_cast<int64_t>(i) + 2;
    const auto scale = detail::user_scale(options, i);
    x = is_linear ? sdk::detail::linear_resample(x, d, out[i],
                                                 options.align_corners().value_or(false), scale)
                  : detail::nearest_resample(x, d, out[i], scale, mode == "nearest-exact");
  }
  return x;
}

/*! \brief grid_sampler with the options' modes (bicubic is not implemented). */
inline Tensor grid_sample(const Tensor& input, const Tensor& grid,
                          const GridSampleFuncOptions& options = {}) {
  const int64_t mode = static_cast<int64_t>(options.mode().index());  // bilinear, nearest, bicubic
  const int64_t padding = static_cast<int64_t>(options.padding_mode().index());
  return sdk::grid_sampler(input, grid, mode, padding, options.align_corners().value_or(false));
}

// ---- unfold / fold / pixel_shuffle -----------------------------------------------------------

namespace detail {
inline int64_t sliding_count(int64_t size, int64_t k, int64_t d, int64_t p, int64_t s,
                             const char* op) {
  const int64_t n = (size + 2 * p - d * (k - 1) - 1) / s + 1;
  SDK_CHECK_VALUE(k > 0 && d > 0 && s > 0 && p >= 0 && n > 0, op,
                  ": kernel_size, dilation, stride must be positive and padding non-negative, and "
                  "the padded input at least one (dilated) kernel large; got size ",
                  size, ", kernel ", k, ", dilation ", d, ", padding ", p, ", stride ", s);
  return n;
}
}  // namespace detail

/*! \brief im2col: (N, C, H, W) to (N, C * kH * kW, L) of sliding blocks, channel-major. */
inline Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  SDK_CHECK_VALUE(input.dim() == 4 || input.dim() == 3,
                  "unfold: Input Error: Only 3D or 4D input Tensors are supported (got ",
                  input.dim(), "D)");
  if (input.dim() == 3) return unfold(input.unsqueeze(0), o).squeeze(0);
  const auto &k = o.kernel_size(), &d = o.dilation(), &p = o.padding(), &s = o.stride();
  const int64_t oh = detail::sliding_count(input.size(2), k[0], d[0], p[0], s[0], "unfold");
  const int64_t ow = detail::sliding_count(input.size(3), k[1], d[1], p[1], s[1], "unfold");
  Tensor x = (p[0] || p[1]) ? sdk::constant_pad_nd(input, {p[1], p[1], p[0], p[0]}, 0) : input;
  std::vector<Tensor> blocks;
  for (int64_t i = 0; i < k[0]; ++i) {
    for (int64_t j = 0; j < k[1]; ++j) {
      blocks.push_back(x.slice(2, i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
                           .slice(3, j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1]));
    }
  }
  return sdk::stack(blocks, 2).reshape({input.size(0), input.size(1) * k[0] * k[1], oh * ow});
}

/*! \brief col2im: sums (N, C * kH * kW, L) blocks into (N, C, output_size); the inverse layout
 *  of unfold. */
inline Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  SDK_CHECK_VALUE(input.dim() == 3 || input.dim() == 2,
                  "fold: Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
                  "supported (got ",
                  input.dim(), "D)");
  if (input.dim() == 2) return fold(input.unsqueeze(0), o).squeeze(0);
  const auto &out = o.output_size(), &k = o.kernel_size(), &d = o.dilation();
  const auto &p = o.padding(), &s = o.stride();
  const int64_t oh = detail::sliding_count(out[0], k[0], d[0], p[0], s[0], "fold");
  const int64_t ow = detail::sliding_count(out[1], k[1], d[1], p[1], s[1], "fold");
  SDK_CHECK_VALUE(input.size(1) % (k[0] * k[1]) == 0 && input.size(2) == oh * ow,
                  "fold: expected input of shape (N, C * ", k[0] * k[1], ", ", oh * ow,
                  ") for these options, got ", input.sizes());
  const int64_t n = input.size(0), c = input.size(1) / (k[0] * k[1]);
  Tensor cols = input.reshape({n, c, k[0], k[1], oh, ow});
  Tensor acc = sdk::zeros({n, c, out[0] + 2 * p[0], out[1] + 2 * p[1]}, input.options());
  for (int64_t i = 0; i < k[0]; ++i) {
    for (int64_t j = 0; j < k[1]; ++j) {
      acc.slice(2, i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
          .slice(3, j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
          .add_(cols.select(2, i).select(2, j));
    }
  }
  return acc.slice(2, p[0], p[0] + out[0]).slice(3, p[1], p[1] + out[1]).contiguous();
}

/*! \brief (..., C * r * r, H, W) to (..., C, H * r, W * r). */
inline Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  const int64_t r = options.upscale_factor(), nd = input.dim();
  SDK_CHECK_VALUE(nd >= 3 && r > 0 && input.size(nd - 3) % (r * r) == 0,
                  "pixel_shuffle: expected input of at least 3 dims whose channel count is "
                  "divisible by the square of upscale_factor ",
                  r, ", got shape ", input.sizes());
  const int64_t c = input.size(nd - 3) / (r * r), h = input.size(nd - 2), w = input.size(nd - 1);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3);
  Tensor x = input.reshape({-1, c, r, r, h, w}).permute({0, 1, 4, 2, 5, 3});
  std::vector<int64_t> shape = lead;
  for (int64_t v : {c, h * r, w * r}) shape.push_back(v);
  return x.reshape(shape);
}

}  // namespace functional
}  // namespace nn
}  // namespace sdk

#endif  // SDK_NN_FUNCTIONAL_SPATIAL_H_
