// sdk/autograd.h: differentiable functions written in C++, the way torch's
// torch::autograd::Function<T> is written:
//
//   struct MulConst : sdk::autograd::Function<MulConst> {
//     static sdk::Tensor forward(sdk::autograd::AutogradContext* ctx, sdk::Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static sdk::autograd::variable_list backward(sdk::autograd::AutogradContext* ctx,
//                                                  sdk::autograd::variable_list grads) {
//       return {grads[0] * ctx->saved_data["c"].toDouble(), sdk::Tensor()};
//     }
//   };
//   sdk::Tensor y = MulConst::apply(x, 2.0);
//
// apply() runs forward with grad mode off and, when grad mode is on and a tensor argument
// requires grad, records a node in the graph of the sdk Python package (through
// sdk_autograd_record), so Python's loss.backward() runs backward here. It works from a
// pybind11 function, a ctypes-bridge export or an Autograd kernel of a registered op: every
// tensor that crosses from Python carries its autograd state. backward() returns one
// gradient per argument of forward (undefined for arguments that are not tensors or need
// none); they are checked against the inputs' shapes and cast to their dtypes.
//
// Differences from torch: only tensors recorded by a Function (or marked as leaves) carry
// history in C++ -- sdk's C++ ops do not record themselves, so compute what needs gradients
// inside a Function; backward runs once (no double backward through a C++ Function).
#ifndef SDK_AUTOGRAD_H_
#define SDK_AUTOGRAD_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "sdk/containers.h"  // List, Dict (IValue holds lists)
#include "sdk/library.h"
#include "sdk/tensor.h"

namespace sdk {

/*! \brief Grad mode of the calling thread, shared with Python's sdk.no_grad(). */
struct GradMode {
  static bool is_enabled() { return sdk_grad_mode_is_enabled() != 0; }
  static void set_enabled(bool enabled) { sdk_grad_mode_set_enabled(enabled ? 1 : 0); }
};
/*! \brief Sets grad mode for a scope, restoring the previous mode on exit. */
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(sdk_grad_mode_set_enabled(enabled ? 1 : 0)) {}
  ~AutoGradMode() { sdk_grad_mode_set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  int32_t prev_;
};
/*! \brief No recording in this scope (torch::NoGradGuard). */
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
/*! \brief Accepted for ports of Autograd kernels: sdk's dispatcher never re-enters an
 *  Autograd kernel from C++ (only calls from Python run it), so there is nothing to skip. */
struct AutoDispatchBelowAutograd {
  AutoDispatchBelowAutograd() {}  // user-provided: a guard variable is not "unused"
};
using AutoDispatchBelowADInplaceOrView = AutoDispatchBelowAutograd;
/*! \brief torch's older spelling of the same guard (at::AutoNonVariableTypeMode), still in
 *  extensions written for torch 1.x; `enabled` false is torch's no-op form. */
struct AutoNonVariableTypeMode : AutoDispatchBelowAutograd {
  explicit AutoNonVariableTypeMode(bool enabled = true) { (void)enabled; }
};

namespace detail {
inline bool& inference_mode_state() {
  static thread_local bool enabled = false;
  return enabled;
}
}  // namespace detail

/*! \brief c10::InferenceMode: grad mode off in this scope (on again for
 *  InferenceMode(false)), as torch; the SDK keeps no separate inference tensors.
 *  is_enabled() says whether the innermost guard of the thread is an enabled one. */
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true)
      : grad_(!enabled), previous_(std::exchange(detail::inference_mode_state(), enabled)) {}
  ~InferenceMode() { detail::inference_mode_state() = previous_; }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return detail::inference_mode_state(); }

 private:
  AutoGradMode grad_;
  bool previous_;
};

namespace autograd {
// torch::autograd spells the grad-mode guards in this namespace too.
using ::sdk::AutoGradMode;
using ::sdk::GradMode;
using ::sdk::NoGradGuard;
}  // namespace autograd

/*! \brief A value of one of the types a schema names (torch's IValue, reduced to what
 *  extension code stores: AutogradContext::saved_data). */
class IValue {
 public:
  IValue() = default;
  IValue(Tensor v) : v_(std::move(v)) {}           // NOLINT: implicit, like torch's
  IValue(double v) : v_(v) {}                      // NOLINT
  IValue(float v) : v_(static_cast<double>(v)) {}  // NOLINT
  IValue(bool v) : v_(v) {}                        // NOLINT
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  IValue(I v) : v_(static_cast<int64_t>(v)) {}                             // NOLINT
  IValue(std::string v) : v_(std::move(v)) {}                              // NOLINT
  IValue(const char* v) : v_(std::string(v)) {}                            // NOLINT
  IValue(IntArrayRef v) : v_(std::vector<int64_t>(v.begin(), v.end())) {}  // NOLINT
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}                     // NOLINT
  IValue(std::vector<double> v) : v_(std::move(v)) {}                      // NOLINT
  IValue(std::vector<Tensor> v) : v_(std::move(v)) {}                      // NOLINT
  IValue(std::vector<bool> v) : v_(std::move(v)) {}                        // NOLINT
  IValue(TensorList v) : v_(v.vec()) {}                                    // NOLINT
  IValue(List<IValue> v) : v_(std::move(v)) {}                             // NOLINT
  /*! \brief A typed List keeps its element type: List<int64_t> is an int list, ... */
  template <typename T>
  IValue(const List<T>& v) : IValue(v.vec()) {}          // NOLINT
  IValue(ScalarType v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  IValue(SymInt v) : v_(v.expect_int()) {}               // NOLINT: an int, as sizes are
  IValue(const Scalar& v) {                              // NOLINT
    if (v.isFloatingPoint())
      v_ = v.toDouble();
    else if (v.isBoolean())
      v_ = v.toBool();
    else
      v_ = v.toLong();
  }
  template <typename T>
  IValue(std::optional<T> v) {  // NOLINT
    if (v) *this = IValue(std::move(*v));
  }

  bool isNone() const { return v_.index() == 0; }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isDoubleList() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  bool isBoolList() const { return std::holds_alternative<std::vector<bool>>(v_); }
  /*! \brief A list of IValues (torch's GenericList). */
  bool isList() const { return std::holds_alternative<List<IValue>>(v_); }
  bool isScalar() const { return isDouble() || isInt() || isBool(); }

  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  double toDouble() const { return get<double>("double"); }
  int64_t toInt() const { return get<int64_t>("int"); }
  SymInt toSymInt() const { return SymInt(toInt()); }
  bool toBool() const { return get<bool>("bool"); }
  const std::string& toStringRef() const { return get<std::string>("string"); }
  std::vector<int64_t> toIntVector() const { return get<std::vector<int64_t>>("int list"); }
  IntArrayRef toIntList() const { return get<std::vector<int64_t>>("int list"); }
  std::vector<double> toDoubleVector() const { return get<std::vector<double>>("float list"); }
  std::vector<Tensor> toTensorVector() const { return get<std::vector<Tensor>>("Tensor list"); }
  List<Tensor> toTensorList() const { return List<Tensor>(toTensorVector()); }
  List<double> toDoubleList() const { return List<double>(toDoubleVector()); }
  std::vector<bool> toBoolVector() const { return get<std::vector<bool>>("bool list"); }
  List<bool> toBoolList() const { return List<bool>(toBoolVector()); }
  /*! \brief The generic list (shared: changes through it show in this IValue). A typed list
   *  (int, float, bool, Tensor list: sizes saved from sym_sizes(), say) reads as a new generic
   *  list of its items, as torch's toList() reads any list. */
  List<IValue> toList() const {
    if (isList()) return get<List<IValue>>("list");
    if (isIntList()) return items_of(toIntVector());
    if (isDoubleList()) return items_of(toDoubleVector());
    if (isBoolList()) return items_of(toBoolVector());
    if (isTensorList()) return items_of(toTensorVector());
    return get<List<IValue>>("list");  // the error names what it holds
  }
  /*! \brief Itself: torch reads a list element through get() (ListElementReference), and an
   *  element of the SDK's List<IValue> is the IValue. */
  const IValue& get() const { return *this; }
  /*! \brief nullopt for None, else to<T>(). */
  template <typename T>
  std::optional<T> toOptional() const {
    if (isNone()) return std::nullopt;
    return to<T>();
  }
  /*! \brief The value as T: toTensor(), toDouble(), ... chosen by type. */
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, Tensor>) {
      return toTensor();
    } else if constexpr (std::is_same_v<T, double>) {
      return toDouble();
    } else if constexpr (std::is_same_v<T, bool>) {
      return toBool();
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(toInt());
    } else if constexpr (std::is_same_v<T, std::string>) {
      return toStringRef();
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      return toIntVector();
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      return toDoubleVector();
    } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
      return toTensorVector();
    } else if constexpr (std::is_same_v<T, Scalar>) {
      return toScalar();
    } else {
      static_assert(sizeof(T) == 0, "IValue::to<T>: unsupported T");
    }
  }
  ScalarType toScalarType() const { return static_cast<ScalarType>(get<int64_t>("ScalarType")); }
  Scalar toScalar() const {
    if (isDouble()) return Scalar(toDouble());
    if (isBool()) return Scalar(toBool());
    return Scalar(get<int64_t>("Scalar"));
  }
  /*! \brief The stored type's name: "None", "Tensor", "double", ... */
  const char* tagKind() const {
    static const char* const names[] = {"None",        "Tensor",    "double",   "int",
                                        "bool",        "string",    "int list", "float list",
                                        "Tensor list", "bool list", "list"};
    return names[v_.index()];
  }

 private:
  template <typename E>
  static List<IValue> items_of(const std::vector<E>& items) {
    List<IValue> out;
    for (const auto& item : items) out.push_back(IValue(static_cast<E>(item)));
    return out;
  }
  template <typename T>
  const T& get(const char* want) const {
    const T* p = std::get_if<T>(&v_);
    if (!p) {
      detail::throw_error(SDK_ERROR_TYPE,
                          detail::concat("IValue: expected ", want, " but got ", tagKind()));
    }
    return *p;
  }
  std::variant<std::monostate, Tensor, double, int64_t, bool, std::string, std::vector<int64_t>,
               std::vector<double>, std::vector<Tensor>, std::vector<bool>, List<IValue>>
      v_;
};

namespace autograd {

/*! \brief torch::autograd::Variable: tensors and variables are one type. */
using Variable = Tensor;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;

/*! \brief Whether any defined tensor of the list requires grad. */
inline bool any_variable_requires_grad(const variable_list& variables) {
  for (const Tensor& v : variables) {
    if (v.defined() && v.requires_grad()) return true;
  }
  return false;
}

/*! \brief Mark `t` as written in place (torch's torch::autograd::increment_version): a kernel
 *  that writes into a tensor through its data pointer calls it, so a saved tensor written
 *  after it was saved is caught at backward as torch catches it. */
inline void increment_version(const Tensor& t) { t.bump_version(); }

template <class T>
struct Function;

/*! \brief What forward and backward see as `ctx`. */
class AutogradContext {
 public:
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  /*! \brief Values backward needs that are not tensors (or are, in a pinch). */
  std::unordered_map<std::string, IValue> saved_data;

  /*! \brief Keep tensors for backward (undefined ones too); in-place changes to them are
   *  detected when get_saved_variables() reads them. */
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  /*! \brief The saved tensors; throws when one was modified in place since. */
  variable_list get_saved_variables() const {
    for (size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i].defined() && saved_[i]._version() != versions_[i]) {
        detail::throw_error(
            SDK_ERROR_RUNTIME,
            detail::concat("one of the variables needed for gradient computation has been "
                           "modified by an inplace operation: saved tensor ",
                           i, " of ", name_, " is at version ", saved_[i]._version(),
                           "; expected version ", versions_[i], " instead."));
      }
    }
    return saved_;
  }
  /*! \brief Outputs that get no gradient (e.g. indices); backward receives zeros (or an
   *  undefined tensor with set_materialize_grads(false)) for them. */
  void mark_non_differentiable(const variable_list& outputs) {
    non_differentiable_.insert(non_differentiable_.end(), outputs.begin(), outputs.end());
  }
  /*! \brief Accepted for ports; returning an input modified in place is refused by apply. */
  void mark_dirty(const variable_list& inputs) {
    dirty_.insert(dirty_.end(), inputs.begin(), inputs.end());
  }
  /*! \brief With false, backward receives undefined tensors (not zeros) for outputs that got
   *  no gradient. */
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /*! \brief Whether tensor argument `index` of forward (counting tensors only) needs a
   *  gradient. */
  bool needs_input_grad(size_t index) const {
    return index < needs_input_grad_.size() && needs_input_grad_[index];
  }

 private:
  template <class T>
  friend struct Function;

  struct OutputInfo {
    std::vector<int64_t> sizes;
    TensorOptions options;
    bool defined = false;
  };

  std::string name_;
  variable_list to_save_, saved_;
  std::vector<int64_t> versions_;
  variable_list non_differentiable_, dirty_;
  std::vector<bool> needs_input_grad_;
  std::vector<bool> is_tensor_arg_;  // per argument of forward (TensorList: per element)
  std::vector<OutputInfo> outputs_;
  bool materialize_grads_ = true;
};

namespace detail {

// The tensors among apply()'s arguments, in order: Tensor, optional<Tensor>, TensorList and
// vector<Tensor> count (one slot per element); anything else is a non-tensor slot.
struct ArgCollector {
  std::vector<sdk_tensor*> slots;  // borrowed; NULL for a non-tensor
  std::vector<bool>& is_tensor;
  variable_list& tensors;

  void add(const Tensor& t) {
    slots.push_back(t.defined() ? t.get() : nullptr);
    is_tensor.push_back(t.defined());
    if (t.defined()) tensors.push_back(t);
  }
  void operator()(const Tensor& t) { add(t); }
  void operator()(const std::optional<Tensor>& t) {
    if (t)
      add(*t);
    else
      add(Tensor());
  }
  void operator()(ArrayRef<Tensor> ts) {
    for (const Tensor& t : ts) add(t);
  }
  void operator()(const std::vector<Tensor>& ts) { (*this)(ArrayRef<Tensor>(ts)); }
  template <typename X>
  void operator()(const X&) {
    add(Tensor());
  }
};

template <typename R>
struct Outputs;
template <>
struct Outputs<Tensor> {
  static variable_list to_list(Tensor t) { return {std::move(t)}; }
  static Tensor from_list(variable_list l) { return std::move(l[0]); }
};
template <>
struct Outputs<variable_list> {
  static variable_list to_list(variable_list l) { return l; }
  static variable_list from_list(variable_list l) { return l; }
};

template <typename T>
std::string function_name() {
#if defined(__GNUC__) || defined(__clang__)
  std::string s = __PRETTY_FUNCTION__;  // "... function_name() [with T = ns::MyFunction; ...]"
  size_t at = s.find("T = ");
  if (at != std::string::npos) {
    size_t end = s.find_first_of(";]", at);
    s = s.substr(at + 4, end - at - 4);
    size_t colon = s.rfind("::");
    return colon == std::string::npos ? s : s.substr(colon + 2);
  }
#endif
  return "CppFunction";
}

}  // namespace detail

/*! \brief Base of a differentiable function written in C++: T defines
 *  `static R forward(AutogradContext*, Args...)` (R: Tensor or variable_list) and
 *  `static variable_list backward(AutogradContext*, variable_list grad_outputs)`. */
template <class T>
struct Function {
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args)
      -> std::enable_if_t<std::is_same_v<X, T>,
                          decltype(X::forward(nullptr, std::forward<Args>(args)...))> {
    using R = std::decay_t<decltype(X::forward(nullptr, std::forward<Args>(args)...))>;
    static_assert(std::is_same_v<R, Tensor> || std::is_same_v<R, variable_list>,
                  "sdk::autograd::Function: forward must return a Tensor or a variable_list");
    auto* ctx = new AutogradContext();
    const std::string name = sdk::autograd::detail::function_name<T>();
    ctx->name_ = name + "Backward";
    variable_list inputs;
    sdk::autograd::detail::ArgCollector args_seen{{}, ctx->is_tensor_arg_, inputs};
    (args_seen(args), ...);
    bool record = GradMode::is_enabled();
    bool any = false;
    for (const Tensor& t : inputs) {
      bool rg = t.requires_grad();
      ctx->needs_input_grad_.push_back(rg);
      any = any || rg;
    }
    record = record && any;
    R result;
    try {
      AutoGradMode off(false);
      result = T::forward(ctx, std::forward<Args>(args)...);
    } catch (...) {
      delete ctx;
      throw;
    }
    variable_list outs = sdk::autograd::detail::Outputs<R>::to_list(std::move(result));
    if (!record) {
      finish_saving(ctx, outs);
      delete ctx;
      return sdk::autograd::detail::Outputs<R>::from_list(std::move(outs));
    }
    std::vector<sdk_tensor*> out_slots;
    for (Tensor& o : outs) {
      for (const Tensor& in : inputs) {
        if (o.defined() && o.is_same(in)) {
          for (const Tensor& d : ctx->dirty_) {
            if (d.is_same(in)) {
              std::string msg = ctx->name_ +
                                ": returning an input modified in place (mark_dirty) is not "
                                "supported; return a new tensor";
              delete ctx;
              sdk::detail::throw_error(SDK_ERROR_NOT_IMPLEMENTED, std::move(msg));
            }
          }
          o = o.detach();  // an input returned as is: the output is a view of it
        }
      }
      AutogradContext::OutputInfo info;
      info.defined = o.defined();
      bool diff = o.defined() && o.is_floating_point();
      if (o.defined()) {
        info.sizes.assign(o.sizes().begin(), o.sizes().end());
        info.options = o.options();
        for (const Tensor& nd : ctx->non_differentiable_) diff = diff && !nd.is_same(o);
      }
      ctx->outputs_.push_back(std::move(info));
      out_slots.push_back(diff ? o.get() : nullptr);
    }
    finish_saving(ctx, outs);
    // ctx belongs to the node from here on (and is freed if recording fails)
    sdk::detail::check_status(
        sdk_autograd_record(name.c_str(), args_seen.slots.data(),
                            static_cast<int64_t>(args_seen.slots.size()), out_slots.data(),
                            static_cast<int64_t>(out_slots.size()), 0, &run_backward, ctx,
                            &free_context),
        name.c_str());
    return sdk::autograd::detail::Outputs<R>::from_list(std::move(outs));
  }

 private:
  // Saved outputs would lead back to the node that holds them: keep history-free views.
  static void finish_saving(AutogradContext* ctx, const variable_list& outs) {
    ctx->saved_ = std::move(ctx->to_save_);
    ctx->to_save_.clear();
    for (Tensor& s : ctx->saved_) {
      for (const Tensor& o : outs) {
        if (s.defined() && s.is_same(o)) s = s.detach();
      }
      ctx->versions_.push_back(s.defined() ? s._version() : -1);
    }
    ctx->dirty_.clear();
    ctx->non_differentiable_.clear();
  }

  static void free_context(void* context) { delete static_cast<AutogradContext*>(context); }

  static sdk_status run_backward(void* context, sdk_values* values) noexcept {
    auto* ctx = static_cast<AutogradContext*>(context);
    try {
      variable_list grads;
      int64_t n = sdk_values_size(values);
      for (int64_t i = 0; i < n; ++i) {
        sdk_tensor* g = nullptr;
        sdk::detail::check_status(sdk_values_take_tensor(values, i, &g), "backward");
        grads.push_back(Tensor::steal(g));
        const AutogradContext::OutputInfo* info =
            static_cast<size_t>(i) < ctx->outputs_.size() ? &ctx->outputs_[i] : nullptr;
        if (!grads.back().defined() && ctx->materialize_grads_ && info && info->defined) {
          grads.back() = zeros(info->sizes, info->options);
        }
      }
      variable_list res = T::backward(ctx, std::move(grads));
      const size_t n_in = ctx->is_tensor_arg_.size();
      if (res.size() > n_in) {
        bool extra_undefined = true;
        for (size_t i = n_in; i < res.size(); ++i) extra_undefined &= !res[i].defined();
        if (extra_undefined) res.resize(n_in);
      }
      if (res.size() != n_in) {
        sdk::detail::throw_error(
            SDK_ERROR_RUNTIME,
            sdk::detail::concat("function ", ctx->name_,
                                " returned an incorrect number of gradients (expected ", n_in,
                                ", got ", res.size(), ")"));
      }
      sdk_values_clear(values);
      for (size_t i = 0; i < n_in; ++i) {
        if (res[i].defined() && !ctx->is_tensor_arg_[i]) {
          sdk::detail::throw_error(
              SDK_ERROR_RUNTIME,
              sdk::detail::concat("function ", ctx->name_,
                                  " returned a gradient different than None at position ", i + 1,
                                  ", but the corresponding forward input was not a Tensor"));
        }
        sdk::detail::check_status(res[i].defined()
                                      ? sdk_values_push_tensor_steal(values, res[i].release())
                                      : sdk_values_push_none(values),
                                  "backward");
      }
      return SDK_OK;
    } catch (...) {
      return sdk::detail::status_of_exception(ctx->name_.c_str());
    }
  }
};

}  // namespace autograd

}  // namespace sdk

#endif  // SDK_AUTOGRAD_H_
