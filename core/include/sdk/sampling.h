// sdk/sampling.h: resampling with torch's names and arguments, composed from gathers and
// elementwise ops (any device): at::upsample_bilinear2d and at::grid_sampler (2-d; bilinear
// or nearest, zeros / border / reflection padding).
#ifndef SDK_SAMPLING_H_
#define SDK_SAMPLING_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {

namespace detail {

// Bilinear resampling of dim `d` to `out` samples (torch's source index rule).
inline Tensor linear_resample(const Tensor& x, int64_t d, int64_t out, bool align_corners,
                              std::optional<double> scale) {
  const int64_t in = x.size(d);
  const double step = align_corners ? (out > 1 ? static_cast<double>(in - 1) / (out - 1) : 0.0)
                      : (scale && *scale > 0) ? 1.0 / *scale
                                              : static_cast<double>(in) / out;
  std::vector<int64_t> lo(static_cast<size_t>(out)), hi(static_cast<size_t>(out));
  std::vector<double> w(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    double src = align_corners ? step * i : step * (i + 0.5) - 0.5;
    if (src < 0) src = 0;
    const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    lo[static_cast<size_t>(i)] = i0;
    hi[static_cast<size_t>(i)] = i0 < in - 1 ? i0 + 1 : i0;
    w[static_cast<size_t>(i)] = src - static_cast<double>(i0);
  }
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[static_cast<size_t>(d)] = out;
  auto index = [&](std::vector<int64_t>& v) {
    return from_blob(v.data(), {out}, kLong).clone().to(x.device());
  };
  Tensor w1 = from_blob(w.data(), {out}, kDouble).to(x.options(), false, true).view(shape);
  Tensor a = x.index_select(d, index(lo)), b = x.index_select(d, index(hi));
  return a + (b - a) * w1;
}

}  // namespace detail

/*! \brief Bilinear upsampling (or downsampling) of (N, C, H, W) input to output_size
 *  (oH, oW); scales_h/scales_w, when given, set the source step as torch does. Float dtypes. */
inline Tensor upsample_bilinear2d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                                  std::optional<double> scales_h = std::nullopt,
                                  std::optional<double> scales_w = std::nullopt) {
  SDK_CHECK_VALUE(output_size.size() == 2,
                  "upsample_bilinear2d: It is expected output_size equals to 2, but got size ",
                  output_size.size());
  SDK_CHECK_VALUE(input.dim() == 4, "upsample_bilinear2d: expected a 4-d input (N, C, H, W), got ",
                  input.sizes());
  SDK_CHECK_VALUE(
      input.size(2) > 0 && input.size(3) > 0 && output_size[0] > 0 && output_size[1] > 0,
      "upsample_bilinear2d: input and output sizes should be greater than 0, but got "
      "input (H: ",
      input.size(2), ", W: ", input.size(3), ") output (H: ", output_size[0],
      ", W: ", output_size[1], ")");
  SDK_CHECK_TYPE(input.is_floating_point(), "upsample_bilinear2d: not implemented for '",
                 input.scalar_type(), "'");
  Tensor rows = detail::linear_resample(input, 2, output_size[0], align_corners, scales_h);
  return detail::linear_resample(rows, 3, output_size[1], align_corners, scales_w);
}

namespace detail {

// torch's reflect_coordinates: fold `c` into [twice_low / 2, twice_high / 2].
inline Tensor reflect_coordinates(const Tensor& c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return zeros_like(c);
  const double low = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  Tensor in = (c - low).abs();
  Tensor extra = in.fmod(span);
  Tensor even = (in / span).floor().remainder(2).eq(0);
  return where(even, extra + low, (extra - span).neg() + low);
}

// Pixel coordinates of grid values in [-1, 1] along an axis of `size`, with padding applied.
inline Tensor grid_source(const Tensor& g, int64_t size, int64_t padding_mode, bool align_corners) {
  Tensor c = align_corners ? (g + 1) / 2 * static_cast<double>(size - 1)
                           : ((g + 1) * static_cast<double>(size) - 1) / 2;
  if (padding_mode == 2) {
    c = align_corners ? reflect_coordinates(c, 0, 2 * (size - 1))
                      : reflect_coordinates(c, -1, 2 * size - 1);
  }
  if (padding_mode >= 1) c = sdk::clamp(c, Scalar(0), Scalar(static_cast<double>(size - 1)));
  return c;
}

// input (N, C, H, W) at integer pixel coordinates iy, ix (N, Ho, Wo), 0 outside: (N, C, Ho, Wo).
inline Tensor grid_pick(const Tensor& input, const Tensor& iy, const Tensor& ix) {
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  Tensor inside =
      ix.ge(0).logical_and(ix.le(w - 1)).logical_and(iy.ge(0)).logical_and(iy.le(h - 1));
  Tensor flat = where(inside, iy * w + ix, zeros_like(ix)).to(kLong).reshape({n, 1, -1});
  Tensor got = input.reshape({n, c, h * w}).gather(2, flat.expand({n, c, flat.size(2)}));
  got = got.view({n, c, iy.size(1), iy.size(2)});
  return got * inside.unsqueeze(1).to(input.scalar_type());
}

}  // namespace detail

/*! \brief Sample (N, C, H, W) input at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1]: (N, C, Ho, Wo).
 *  interpolation_mode 0 bilinear, 1 nearest (2, bicubic, is not implemented); padding_mode 0
 *  zeros, 1 border, 2 reflection. 5-d (volumetric) input is not implemented. */
inline Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                           int64_t padding_mode, bool align_corners) {
  SDK_CHECK_NOT_IMPLEMENTED(input.dim() != 5,
                            "grid_sampler: 5-d (volumetric) input is not "
                            "implemented");
  SDK_CHECK_VALUE(
      input.dim() == 4 && grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == input.size(0),
      "grid_sampler(): expected 4D input (N, C, H, W) and grid (N, H_out, W_out, 2) "
      "with the same batch size, but got input with sizes ",
      input.sizes(), " and grid with sizes ", grid.sizes());
  SDK_CHECK_TYPE(input.is_floating_point() && input.scalar_type() == grid.scalar_type(),
                 "grid_sampler(): expected input and grid to have the same floating point "
                 "dtype, but input has ",
                 input.scalar_type(), " and grid has ", grid.scalar_type());
  SDK_CHECK_VALUE(input.size(2) > 0 && input.size(3) > 0,
                  "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                  "input has sizes ",
                  input.sizes());
  SDK_CHECK_VALUE(padding_mode >= 0 && padding_mode <= 2,
                  "grid_sampler(): padding_mode must be "
                  "0 (zeros), 1 (border) or 2 (reflection), got ",
                  padding_mode);
  SDK_CHECK_NOT_IMPLEMENTED(interpolation_mode != 2,
                            "grid_sampler(): bicubic interpolation is not implemented");
  SDK_CHECK_VALUE(interpolation_mode == 0 || interpolation_mode == 1,
                  "grid_sampler(): interpolation_mode must be 0 (bilinear) or 1 (nearest), got ",
                  interpolation_mode);
  Tensor ix = detail::grid_source(grid.select(3, 0), input.size(3), padding_mode, align_corners);
  Tensor iy = detail::grid_source(grid.select(3, 1), input.size(2), padding_mode, align_corners);
  if (interpolation_mode == 1) return detail::grid_pick(input, iy.round(), ix.round());
  Tensor x0 = ix.floor(), y0 = iy.floor();
  Tensor wx = (ix - x0).unsqueeze(1), wy = (iy - y0).unsqueeze(1);
  Tensor x1 = x0 + 1, y1 = y0 + 1;
  Tensor top = detail::grid_pick(input, y0, x0) * (1 - wx) + detail::grid_pick(input, y0, x1) * wx;
  Tensor bottom =
      detail::grid_pick(input, y1, x0) * (1 - wx) + detail::grid_pick(input, y1, x1) * wx;
  return top * (1 - wy) + bottom * wy;
}

}  // namespace sdk

#endif  // SDK_SAMPLING_H_
