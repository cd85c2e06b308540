// sdk/nn_options.h: the option structs of torch::nn::functional (chained setters, torch's
// option names and defaults) and the mode tags (sdk::kReflect, sdk::kBilinear, ...).
#ifndef SDK_NN_OPTIONS_H_
#define SDK_NN_OPTIONS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sdk/array_ref.h"
#include "sdk/dtype.h"
#include "sdk/error.h"
#include "sdk/tensor_base.h"

// An option with a chained setter `opts.name(v)` (returns the struct) and getters `name()`.
#define SDK_ARG(T, name)                                          \
 public:                                                          \
  inline auto name(const T& new_##name) -> decltype(*this) {      \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_

namespace sdk {

// Mode tags: one empty type per mode, so an option's variant admits only its own modes.
namespace enumtype {
#define SDK_DETAIL_MODE_TAG(Tag, text)        \
  struct Tag {                                \
    static constexpr const char* name = text; \
  };
SDK_DETAIL_MODE_TAG(kConstant, "constant")
SDK_DETAIL_MODE_TAG(kReflect, "reflect")
SDK_DETAIL_MODE_TAG(kReplicate, "replicate")
SDK_DETAIL_MODE_TAG(kCircular, "circular")
SDK_DETAIL_MODE_TAG(kNearest, "nearest")
SDK_DETAIL_MODE_TAG(kNearestExact, "nearest-exact")
SDK_DETAIL_MODE_TAG(kLinear, "linear")
SDK_DETAIL_MODE_TAG(kBilinear, "bilinear")
SDK_DETAIL_MODE_TAG(kBicubic, "bicubic")
SDK_DETAIL_MODE_TAG(kTrilinear, "trilinear")
SDK_DETAIL_MODE_TAG(kArea, "area")
SDK_DETAIL_MODE_TAG(kMean, "mean")
SDK_DETAIL_MODE_TAG(kSum, "sum")
SDK_DETAIL_MODE_TAG(kNone, "none")
SDK_DETAIL_MODE_TAG(kBatchMean, "batchmean")
SDK_DETAIL_MODE_TAG(kZeros, "zeros")
SDK_DETAIL_MODE_TAG(kBorder, "border")
SDK_DETAIL_MODE_TAG(kReflection, "reflection")
SDK_DETAIL_MODE_TAG(kValid, "valid")
SDK_DETAIL_MODE_TAG(kSame, "same")
#undef SDK_DETAIL_MODE_TAG
}  // namespace enumtype

inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kNearestExact kNearestExact{};
inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kArea kArea{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kBatchMean kBatchMean{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kSame kSame{};

namespace detail {
/*! \brief The text of the mode a variant of tags holds ("reflect", "mean", ...). */
template <typename... Tags>
std::string mode_name(const std::variant<Tags...>& mode) {
  return std::visit([](const auto& tag) { return std::string(std::decay_t<decltype(tag)>::name); },
                    mode);
}
}  // namespace detail

/*! \brief D integers given as one (repeated) or D values, as torch's ExpandingArray. */
template <size_t D>
class ExpandingArray {
 public:
  ExpandingArray(int64_t v) : values_(D, v) {}  // NOLINT: implicit, as torch
  ExpandingArray(std::initializer_list<int64_t> list) : ExpandingArray(IntArrayRef(list)) {}
  ExpandingArray(const std::vector<int64_t>& v) : ExpandingArray(IntArrayRef(v)) {}  // NOLINT
  ExpandingArray(IntArrayRef v) : values_(v.begin(), v.end()) {                      // NOLINT
    SDK_CHECK_VALUE(v.size() == D, "expected ", D, " values, got ", v.size(), ": ", v);
  }
  operator IntArrayRef() const { return values_; }  // NOLINT: implicit, as torch
  const int64_t* data() const { return values_.data(); }
  size_t size() const { return D; }
  int64_t operator[](size_t i) const { return values_[i]; }
  const std::vector<int64_t>& vec() const { return values_; }

 private:
  std::vector<int64_t> values_;
};

namespace nn {
namespace functional {

using reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

/*! \brief F::pad: pad (last dim first, as at::pad), mode, value (constant mode). */
struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate,
                              enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT: implicit
  SDK_ARG(std::vector<int64_t>, pad);
  SDK_ARG(mode_t, mode) = kConstant;
  SDK_ARG(double, value) = 0;
};

/*! \brief F::conv1d/conv2d/conv3d: bias, stride, padding (ints, kValid or kSame), dilation,
 *  groups. */
template <size_t D>
struct ConvFuncOptions {
  using padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
  SDK_ARG(Tensor, bias);
  SDK_ARG(ExpandingArray<D>, stride) = 1;
  SDK_ARG(ExpandingArray<D>, dilation) = 1;
  SDK_ARG(int64_t, groups) = 1;

 public:
  // overloads rather than one variant setter, so that `.padding({1, 2})` compiles
  ConvFuncOptions& padding(const ExpandingArray<D>& p) { return padding_ = p, *this; }
  ConvFuncOptions& padding(enumtype::kValid p) { return padding_ = p, *this; }
  ConvFuncOptions& padding(enumtype::kSame p) { return padding_ = p, *this; }
  const padding_t& padding() const noexcept { return padding_; }

 private:
  padding_t padding_ = ExpandingArray<D>(0);
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

/*! \brief F::conv_transpose2d. */
struct ConvTranspose2dFuncOptions {
  SDK_ARG(Tensor, bias);
  SDK_ARG(ExpandingArray<2>, stride) = 1;
  SDK_ARG(ExpandingArray<2>, padding) = 0;
  SDK_ARG(ExpandingArray<2>, output_padding) = 0;
  SDK_ARG(int64_t, groups) = 1;
  SDK_ARG(ExpandingArray<2>, dilation) = 1;
};

/*! \brief F::interpolate: size or scale_factor, mode, align_corners (linear modes only). */
struct InterpolateFuncOptions {
  using mode_t =
      std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                   enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  SDK_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  SDK_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  SDK_ARG(mode_t, mode) = kNearest;
  SDK_ARG(std::optional<bool>, align_corners) = std::nullopt;
  SDK_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  SDK_ARG(bool, antialias) = false;
};

/*! \brief F::grid_sample: mode, padding_mode, align_corners. */
struct GridSampleFuncOptions {
  using mode_t = std::variant<enumtype::kBilinear, enumtype::kNearest, enumtype::kBicubic>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  SDK_ARG(mode_t, mode) = kBilinear;
  SDK_ARG(padding_mode_t, padding_mode) = kZeros;
  SDK_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

/*! \brief F::normalize: x / max(||x||_p along dim, eps). */
struct NormalizeFuncOptions {
  SDK_ARG(double, p) = 2.0;
  SDK_ARG(int64_t, dim) = 1;
  SDK_ARG(double, eps) = 1e-12;
};

/*! \brief F::softmax, F::log_softmax, F::softmin: dim (required), dtype. */
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit, as torch
  SDK_ARG(int64_t, dim);
  SDK_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;
using SoftminFuncOptions = SoftmaxFuncOptions;

/*! \brief Options of the activations that only take `inplace`. */
struct InplaceFuncOptions {
  InplaceFuncOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit
  SDK_ARG(bool, inplace);
};
using ReLUFuncOptions = InplaceFuncOptions;
using ReLU6FuncOptions = InplaceFuncOptions;
using SELUFuncOptions = InplaceFuncOptions;
using HardswishFuncOptions = InplaceFuncOptions;

struct LeakyReLUFuncOptions {
  SDK_ARG(double, negative_slope) = 1e-2;
  SDK_ARG(bool, inplace) = false;
};
struct ELUFuncOptions {
  SDK_ARG(double, alpha) = 1.0;
  SDK_ARG(bool, inplace) = false;
};
struct CELUFuncOptions {
  SDK_ARG(double, alpha) = 1.0;
  SDK_ARG(bool, inplace) = false;
};
struct SoftplusFuncOptions {
  SDK_ARG(double, beta) = 1.0;
  SDK_ARG(double, threshold) = 20.0;
};
struct HardtanhFuncOptions {
  SDK_ARG(double, min_val) = -1.0;
  SDK_ARG(double, max_val) = 1.0;
  SDK_ARG(bool, inplace) = false;
};
struct GELUFuncOptions {
  SDK_ARG(std::string, approximate) = "none";
};
struct HardshrinkFuncOptions {
  HardshrinkFuncOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT: implicit
  SDK_ARG(double, lambda);
};
using SoftshrinkFuncOptions = HardshrinkFuncOptions;
struct ThresholdFuncOptions {
  ThresholdFuncOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  SDK_ARG(double, threshold);
  SDK_ARG(double, value);
  SDK_ARG(bool, inplace) = false;
};
struct GLUFuncOptions {
  GLUFuncOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT: implicit
  SDK_ARG(int64_t, dim);
};

/*! \brief F::dropout: p, training (the functional form defaults to true), inplace. */
struct DropoutFuncOptions {
  SDK_ARG(double, p) = 0.5;
  SDK_ARG(bool, training) = true;
  SDK_ARG(bool, inplace) = false;
};

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT: implicit
      : normalized_shape_(std::move(normalized_shape)) {}
  SDK_ARG(std::vector<int64_t>, normalized_shape);
  SDK_ARG(Tensor, weight);
  SDK_ARG(Tensor, bias);
  SDK_ARG(double, eps) = 1e-5;
};
struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT: implicit
  SDK_ARG(int64_t, num_groups);
  SDK_ARG(Tensor, weight);
  SDK_ARG(Tensor, bias);
  SDK_ARG(double, eps) = 1e-5;
};
struct BatchNormFuncOptions {
  SDK_ARG(Tensor, weight);
  SDK_ARG(Tensor, bias);
  SDK_ARG(bool, training) = false;
  SDK_ARG(std::optional<double>, momentum) = 0.1;
  SDK_ARG(double, eps) = 1e-5;
};

struct EmbeddingFuncOptions {
  SDK_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  SDK_ARG(std::optional<double>, max_norm) = std::nullopt;
  SDK_ARG(double, norm_type) = 2.;
  SDK_ARG(bool, scale_grad_by_freq) = false;
  SDK_ARG(bool, sparse) = false;
};

struct CrossEntropyFuncOptions {
  SDK_ARG(Tensor, weight);
  SDK_ARG(int64_t, ignore_index) = -100;
  SDK_ARG(reduction_t, reduction) = kMean;
  SDK_ARG(double, label_smoothing) = 0.0;
};
struct NLLLossFuncOptions {
  SDK_ARG(Tensor, weight);
  SDK_ARG(int64_t, ignore_index) = -100;
  SDK_ARG(reduction_t, reduction) = kMean;
};
/*! \brief Options of the losses that only take `reduction` (MSE, L1). */
struct ReductionFuncOptions {
  ReductionFuncOptions(reduction_t reduction = kMean) : reduction_(reduction) {}  // NOLINT
  SDK_ARG(reduction_t, reduction);
};
using MSELossFuncOptions = ReductionFuncOptions;
using L1LossFuncOptions = ReductionFuncOptions;
struct SmoothL1LossFuncOptions {
  SDK_ARG(reduction_t, reduction) = kMean;
  SDK_ARG(double, beta) = 1.0;
};
struct HuberLossFuncOptions {
  SDK_ARG(reduction_t, reduction) = kMean;
  SDK_ARG(double, delta) = 1.0;
};
struct KLDivFuncOptions {
  using reduction_t =
      std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  SDK_ARG(reduction_t, reduction) = kMean;
  SDK_ARG(bool, log_target) = false;
};
struct BinaryCrossEntropyFuncOptions {
  SDK_ARG(Tensor, weight);
  SDK_ARG(reduction_t, reduction) = kMean;
};
struct BinaryCrossEntropyWithLogitsFuncOptions {
  SDK_ARG(Tensor, weight);
  SDK_ARG(reduction_t, reduction) = kMean;
  SDK_ARG(Tensor, pos_weight);
};

/*! \brief F::max_pool1d/2d: kernel_size, stride (defaults to the kernel), padding, dilation,
 *  ceil_mode. */
template <size_t D>
struct MaxPoolFuncOptions {
  MaxPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT: implicit, as torch
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  SDK_ARG(ExpandingArray<D>, kernel_size);
  SDK_ARG(ExpandingArray<D>, stride);
  SDK_ARG(ExpandingArray<D>, padding) = 0;
  SDK_ARG(ExpandingArray<D>, dilation) = 1;
  SDK_ARG(bool, ceil_mode) = false;
};
using MaxPool1dFuncOptions = MaxPoolFuncOptions<1>;
using MaxPool2dFuncOptions = MaxPoolFuncOptions<2>;

/*! \brief F::avg_pool1d/2d: kernel_size, stride (defaults to the kernel), padding, ceil_mode,
 *  count_include_pad, divisor_override. */
template <size_t D>
struct AvgPoolFuncOptions {
  AvgPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT: implicit, as torch
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  SDK_ARG(ExpandingArray<D>, kernel_size);
  SDK_ARG(ExpandingArray<D>, stride);
  SDK_ARG(ExpandingArray<D>, padding) = 0;
  SDK_ARG(bool, ceil_mode) = false;
  SDK_ARG(bool, count_include_pad) = true;
  SDK_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dFuncOptions = AvgPoolFuncOptions<1>;
using AvgPool2dFuncOptions = AvgPoolFuncOptions<2>;

struct AdaptiveAvgPool2dFuncOptions {
  AdaptiveAvgPool2dFuncOptions(ExpandingArray<2> output_size)  // NOLINT: implicit
      : output_size_(output_size) {}
  SDK_ARG(ExpandingArray<2>, output_size);
};

struct CosineSimilarityFuncOptions {
  SDK_ARG(int64_t, dim) = 1;
  SDK_ARG(double, eps) = 1e-8;
};
struct PairwiseDistanceFuncOptions {
  SDK_ARG(double, p) = 2.0;
  SDK_ARG(double, eps) = 1e-6;
  SDK_ARG(bool, keepdim) = false;
};

/*! \brief F::unfold (im2col) of (N, C, H, W) input. */
struct UnfoldFuncOptions {
  UnfoldFuncOptions(ExpandingArray<2> kernel_size)  // NOLINT: implicit
      : kernel_size_(kernel_size) {}
  SDK_ARG(ExpandingArray<2>, kernel_size);
  SDK_ARG(ExpandingArray<2>, dilation) = 1;
  SDK_ARG(ExpandingArray<2>, padding) = 0;
  SDK_ARG(ExpandingArray<2>, stride) = 1;
};
/*! \brief F::fold (col2im) to (N, C, output_size). */
struct FoldFuncOptions {
  FoldFuncOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  SDK_ARG(ExpandingArray<2>, output_size);
  SDK_ARG(ExpandingArray<2>, kernel_size);
  SDK_ARG(ExpandingArray<2>, dilation) = 1;
  SDK_ARG(ExpandingArray<2>, padding) = 0;
  SDK_ARG(ExpandingArray<2>, stride) = 1;
};

struct PixelShuffleFuncOptions {
  PixelShuffleFuncOptions(int64_t upscale_factor)  // NOLINT: implicit
      : upscale_factor_(upscale_factor) {}
  SDK_ARG(int64_t, upscale_factor);
};

}  // namespace functional
}  // namespace nn
}  // namespace sdk

#endif  // SDK_NN_OPTIONS_H_
