// sdk/nn_modules.h: a few of torch's built-in C++ modules (Linear, Conv2d, ReLU, Sequential,
// ModuleList) over sdk/nn_functional.h, with torch's options and initialization ranges.
#ifndef SDK_NN_MODULES_H_
#define SDK_NN_MODULES_H_

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sdk/nn_functional.h"
#include "sdk/nn_module.h"

namespace sdk {
namespace nn {

namespace detail {
// U(-bound, bound), the range torch's default initialization gives weights and biases.
inline Tensor uniform(IntArrayRef shape, double bound) {
  return sdk::rand(shape, TensorOptions().dtype(kFloat)) * (2 * bound) - bound;
}
}  // namespace detail

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  SDK_ARG(int64_t, in_features);
  SDK_ARG(int64_t, out_features);
  SDK_ARG(bool, bias) = true;
};

/*! \brief y = x W^T + b, W (out, in) and b (out) drawn from U(-1/sqrt(in), 1/sqrt(in)). */
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options_) : Cloneable("Linear"), options(options_) {
    reset();
  }
  void reset() override {
    SDK_CHECK_VALUE(options.in_features() > 0 && options.out_features() > 0,
                    "Linear: in_features and out_features must be positive, got ",
                    options.in_features(), " and ", options.out_features());
    const double bound = 1.0 / std::sqrt(static_cast<double>(options.in_features()));
    weight = register_parameter(
        "weight", detail::uniform({options.out_features(), options.in_features()}, bound));
    bias = options.bias()
               ? register_parameter("bias", detail::uniform({options.out_features()}, bound))
               : Tensor();
  }
  Tensor forward(const Tensor& input) { return functional::linear(input, weight, bias); }

  LinearOptions options;
  Tensor weight;
  Tensor bias;

 protected:
  void on_tensors_replaced() override {
    weight = parameter("weight");
    if (options.bias()) bias = parameter("bias");
  }
};
SDK_MODULE(Linear);

struct Conv2dOptions {
  using padding_t = functional::Conv2dFuncOptions::padding_t;
  Conv2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  SDK_ARG(int64_t, in_channels);
  SDK_ARG(int64_t, out_channels);
  SDK_ARG(ExpandingArray<2>, kernel_size);
  SDK_ARG(ExpandingArray<2>, stride) = 1;
  SDK_ARG(ExpandingArray<2>, padding) = 0;
  SDK_ARG(ExpandingArray<2>, dilation) = 1;
  SDK_ARG(int64_t, groups) = 1;
  SDK_ARG(bool, bias) = true;
};

/*! \brief 2-d convolution; weight and bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)). Zero
 *  padding only. */
class Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options_) : Cloneable("Conv2d"), options(options_) {
    reset();
  }
  void reset() override {
    const auto& o = options;
    SDK_CHECK_VALUE(
        o.groups() > 0 && o.in_channels() % o.groups() == 0 && o.out_channels() % o.groups() == 0,
        "Conv2d: in_channels and out_channels must be divisible by groups");
    const int64_t per_group = o.in_channels() / o.groups();
    const double fan_in = static_cast<double>(per_group * o.kernel_size()[0] * o.kernel_size()[1]);
    const double bound = 1.0 / std::sqrt(fan_in);
    weight = register_parameter("weight", detail::uniform({o.out_channels(), per_group,
                                                           o.kernel_size()[0], o.kernel_size()[1]},
                                                          bound));
    bias = o.bias() ? register_parameter("bias", detail::uniform({o.out_channels()}, bound))
                    : Tensor();
  }
  Tensor forward(const Tensor& input) {
    return functional::conv2d(input, weight,
                              functional::Conv2dFuncOptions()
                                  .bias(bias)
                                  .stride(options.stride())
                                  .padding(options.padding())
                                  .dilation(options.dilation())
                                  .groups(options.groups()));
  }

  Conv2dOptions options;
  Tensor weight;
  Tensor bias;

 protected:
  void on_tensors_replaced() override {
    weight = parameter("weight");
    if (options.bias()) bias = parameter("bias");
  }
};
SDK_MODULE(Conv2d);

class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const functional::ReLUFuncOptions& options_ = {})
      : Cloneable("ReLU"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return functional::relu(input, options); }
  functional::ReLUFuncOptions options;
};
SDK_MODULE(ReLU);

/*! \brief Modules applied in order, each `Tensor forward(const Tensor&)`. */
class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  template <typename... Holders>
  explicit SequentialImpl(Holders&&... modules) : Cloneable("Sequential") {
    (push_back(std::forward<Holders>(modules)), ...);
  }
  void reset() override {}
  template <typename H>
  void push_back(H holder) {
    auto impl = holder.ptr();
    register_module(std::to_string(steps_.size()), impl);
    steps_.push_back([impl](const Tensor& x) { return impl->forward(x); });
  }
  Tensor forward(const Tensor& input) {
    Tensor x = input;
    for (const auto& step : steps_) x = step(x);
    return x;
  }
  size_t size() const noexcept { return steps_.size(); }

 private:
  std::vector<std::function<Tensor(const Tensor&)>> steps_;
};
SDK_MODULE(Sequential);

/*! \brief Submodules held in a list (registered as "0", "1", ...); no forward of its own. */
class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  template <typename... Holders>
  explicit ModuleListImpl(Holders&&... modules) : Cloneable("ModuleList") {
    (push_back(std::forward<Holders>(modules)), ...);
  }
  void reset() override {}
  template <typename H>
  void push_back(H holder) {
    std::shared_ptr<Module> m = holder.ptr();
    register_module(std::to_string(items_.size()), m);
    items_.push_back(m);
  }
  size_t size() const noexcept { return items_.size(); }
  std::shared_ptr<Module> operator[](size_t i) const { return checked(i); }
  /*! \brief Item i as the module type T (an error if it is another type). */
  template <typename T>
  std::shared_ptr<T> ptr(size_t i) const {
    auto m = std::dynamic_pointer_cast<T>(checked(i));
    SDK_CHECK_TYPE(m != nullptr, "ModuleList: item ", i, " is not of the requested type");
    return m;
  }
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return items_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return items_.end(); }

 private:
  std::shared_ptr<Module> checked(size_t i) const {
    SDK_CHECK_VALUE(i < items_.size(), "ModuleList: index ", i, " out of range (size ",
                    items_.size(), ")");
    return items_[i];
  }
  std::vector<std::shared_ptr<Module>> items_;
};
SDK_MODULE(ModuleList);

}  // namespace nn
}  // namespace sdk

#endif  // SDK_NN_MODULES_H_
