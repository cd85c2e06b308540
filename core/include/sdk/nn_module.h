// sdk/nn_module.h: torch's C++ frontend module tree, minimal: nn::Module (parameters, buffers,
// submodules, train/eval, to, zero_grad), nn::Cloneable<T>, nn::ModuleHolder and SDK_MODULE.
#ifndef SDK_NN_MODULE_H_
#define SDK_NN_MODULE_H_

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sdk/tensor.h"

namespace sdk {

/*! \brief Insertion-ordered (key, value) items with torch's item spelling (`key()`, `value()`). */
template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : key_(std::move(key)), value_(std::move(value)) {}
    const Key& key() const noexcept { return key_; }
    Value& value() noexcept { return value_; }
    const Value& value() const noexcept { return value_; }
    const std::pair<Key, Value> pair() const { return {key_, value_}; }

   private:
    Key key_;
    Value value_;
  };

  Value& insert(Key key, Value value) {
    SDK_CHECK_VALUE(!contains(key), "OrderedDict: key '", key, "' already defined");
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  bool contains(const Key& key) const { return find(key) != nullptr; }
  const Value* find(const Key& key) const {
    for (const auto& item : items_) {
      if (item.key() == key) return &item.value();
    }
    return nullptr;
  }
  Value* find(const Key& key) {
    return const_cast<Value*>(static_cast<const OrderedDict*>(this)->find(key));
  }
  Value& operator[](const Key& key) {
    Value* v = find(key);
    SDK_CHECK_VALUE(v != nullptr, "OrderedDict: key '", key, "' not found");
    return *v;
  }
  const Value& operator[](const Key& key) const { return const_cast<OrderedDict&>(*this)[key]; }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    for (const auto& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    for (const auto& item : items_) out.push_back(item.value());
    return out;
  }
  typename std::vector<Item>::iterator begin() { return items_.begin(); }
  typename std::vector<Item>::iterator end() { return items_.end(); }
  typename std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  typename std::vector<Item>::const_iterator end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
};

namespace nn {

class Module;

/*! \brief The base of every module: named parameters (leaves that require grad), buffers and
 *  submodules, kept in registration order, and the training flag.
 *
 *  Parameters require grad when the sdk Python package (the autograd engine) is loaded, as in
 *  an extension; a plain C++ program has no autograd and gets plain tensors.
 *  `to(dtype)` / `to(device)` replace each registered tensor by its converted copy: torch swaps
 *  the data under the same tensor object, which the C ABI cannot, so a member that holds a copy
 *  of a parameter (`weight = register_parameter(...)`) must be read again after `to()` (the
 *  built-in modules do that in `on_tensors_replaced()`, a hook a subclass may override). */
class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string name = "") : name_(std::move(name)) {}
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  /*! \brief The name given, else "Module" (Cloneable modules give their type's name). */
  virtual const std::string& name() const noexcept { return name_.empty() ? fallback_ : name_; }

  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true) {
    check_name(name, "parameter");
    if (tensor.defined()) tensor = leaf(tensor, requires_grad);
    return parameters_.insert(std::move(name), std::move(tensor));
  }
  Tensor& register_buffer(std::string name, Tensor tensor) {
    check_name(name, "buffer");
    return buffers_.insert(std::move(name), std::move(tensor));
  }
  template <typename M, typename = std::enable_if_t<std::is_base_of<Module, M>::value>>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    check_name(name, "submodule");
    SDK_CHECK_VALUE(module != nullptr, "register_module: submodule '", name, "' is null");
    children_.insert(std::move(name), module);
    return module;
  }
  /*! \brief For a SDK_MODULE holder (`register_module("fc", Linear(4, 2))`). */
  template <typename H, typename = typename H::ContainedType>
  std::shared_ptr<typename H::ContainedType> register_module(std::string name, H holder) {
    return register_module(std::move(name), holder.ptr());
  }

  std::vector<Tensor> parameters(bool recurse = true) const {
    return named_parameters(recurse).values();
  }
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const {
    OrderedDict<std::string, Tensor> out;
    collect(out, "", recurse, &Module::parameters_);
    return out;
  }
  std::vector<Tensor> buffers(bool recurse = true) const { return named_buffers(recurse).values(); }
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const {
    OrderedDict<std::string, Tensor> out;
    collect(out, "", recurse, &Module::buffers_);
    return out;
  }
  std::vector<std::shared_ptr<Module>> children() const { return children_.values(); }
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const { return children_; }
  /*! \brief Every module below this one, depth first (not this one itself). */
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) {
    std::vector<std::shared_ptr<Module>> out;
    if (include_self) out.push_back(shared_from_this());
    for (const auto& child : children_) {
      for (auto& m : child.value()->modules(true)) out.push_back(m);
    }
    return out;
  }

  virtual void train(bool on = true) {
    is_training_ = on;
    for (auto& child : children_) child.value()->train(on);
  }
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  /*! \brief Convert floating-point parameters and buffers (and only those) to dtype. */
  virtual void to(ScalarType dtype, bool non_blocking = false) {
    convert([&](const Tensor& t) { return t.is_floating_point() ? t.to(dtype, non_blocking) : t; });
  }
  virtual void to(Device device, bool non_blocking = false) {
    convert([&](const Tensor& t) { return t.to(TensorOptions().device(device), non_blocking); });
  }
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false) {
    to(device, non_blocking);
    to(dtype, non_blocking);
  }
  /*! \brief Zero every parameter's accumulated gradient (in place, where one exists). */
  virtual void zero_grad(bool /*set_to_none*/ = true) {
    for (const Tensor& p : parameters()) {
      if (!p.defined()) continue;
      Tensor g = p.grad();
      if (g.defined()) g.zero_();
    }
  }

 protected:
  /*! \brief Called after to() replaced registered tensors: re-read member copies here. */
  virtual void on_tensors_replaced() {}
  /*! \brief The registered parameter `name` (the current one, after to()). */
  Tensor& parameter(const std::string& name) { return parameters_[name]; }
  Tensor& buffer(const std::string& name) { return buffers_[name]; }
  /*! \brief Forget every parameter, buffer and submodule (clone() then calls reset()). */
  void clear_registry() {
    parameters_ = {};
    buffers_ = {};
    children_ = {};
  }

 private:
  // A program without the sdk Python package has no autograd engine: there, parameters stay
  // plain tensors (nothing could use their gradients) instead of failing to register.
  static Tensor leaf(const Tensor& t, bool requires_grad) {
    Tensor out = t.is_leaf() ? t : t.detach();
    if (out.requires_grad() == requires_grad) return out;
    try {
      out.set_requires_grad(requires_grad);
    } catch (const Error& e) {
      if (std::string(e.what()).find("autograd is provided by the sdk Python package") ==
          std::string::npos) {
        throw;
      }
    }
    return out;
  }
  void check_name(const std::string& name, const char* what) const {
    SDK_CHECK_VALUE(!name.empty() && name.find('.') == std::string::npos, "register_", what,
                    ": name '", name, "' must be non-empty and contain no dot");
    SDK_CHECK_VALUE(
        !parameters_.contains(name) && !buffers_.contains(name) && !children_.contains(name),
        "register_", what, ": '", name, "' is already registered");
  }
  using Table = OrderedDict<std::string, Tensor> Module::*;
  void collect(OrderedDict<std::string, Tensor>& out, const std::string& prefix, bool recurse,
               Table table) const {
    for (const auto& item : this->*table) out.insert(prefix + item.key(), item.value());
    if (!recurse) return;
    for (const auto& child : children_) {
      child.value()->collect(out, prefix + child.key() + ".", true, table);
    }
  }
  template <typename F>
  void convert(const F& f) {
    for (auto& item : parameters_) {
      Tensor& p = item.value();
      if (p.defined()) p = leaf(f(p).detach(), p.requires_grad());
    }
    for (auto& item : buffers_) {
      if (item.value().defined()) item.value() = f(item.value());
    }
    on_tensors_replaced();
    for (auto& child : children_) convert_child(*child.value(), f);
  }
  template <typename F>
  static void convert_child(Module& child, const F& f) {
    child.convert(f);
  }

  std::string name_;
  std::string fallback_ = "Module";
  bool is_training_ = true;
  OrderedDict<std::string, Tensor> parameters_;
  OrderedDict<std::string, Tensor> buffers_;
  OrderedDict<std::string, std::shared_ptr<Module>> children_;
};

/*! \brief A module whose `reset()` (re)creates its parameters; the constructor of a subclass
 *  calls reset(). `clone()` gives a deep copy (parameters copied, reset not called). */
template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;
  virtual void reset() = 0;
  /*! \brief A deep copy: a copy of this module re-created by reset(), then given copies of
   *  this module's parameter and buffer values (matched by name). */
  std::shared_ptr<Derived> clone() const {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registry();
    copy->reset();
    copy_values(named_parameters(), copy->named_parameters(), "parameter");
    copy_values(named_buffers(), copy->named_buffers(), "buffer");
    copy->train(is_training());
    return copy;
  }

 private:
  static void copy_values(const OrderedDict<std::string, Tensor>& from,
                          const OrderedDict<std::string, Tensor>& to, const char* what) {
    SDK_CHECK(from.size() == to.size(), "clone: reset() registered ", to.size(), " ", what,
              "s, the original has ", from.size());
    for (const auto& item : to) {
      if (item.value().defined()) item.value().copy_(from[item.key()]);
    }
  }
};

/*! \brief A shared_ptr to `Impl` with `->` access and a call operator forwarding to
 *  `forward`, as torch's ModuleHolder (the type SDK_MODULE(Name) defines as `Name`). */
template <typename Impl>
class ModuleHolder {
  // One argument that is a holder (a copy) or nullptr (empty) is not a constructor argument.
  template <typename... Args>
  struct is_holder_or_null : std::false_type {};
  template <typename Arg>
  struct is_holder_or_null<Arg>
      : std::integral_constant<bool, std::is_base_of<ModuleHolder, std::decay_t<Arg>>::value ||
                                         std::is_same<std::decay_t<Arg>, std::nullptr_t>::value> {};

 public:
  using ContainedType = Impl;
  /*! \brief Construct the module from the arguments (also the default constructor). */
  template <typename... Args, typename = std::enable_if_t<!is_holder_or_null<Args...>::value>>
  ModuleHolder(Args&&... args)  // NOLINT: implicit, as torch
      : impl_(std::make_shared<Impl>(std::forward<Args>(args)...)) {}
  ModuleHolder(std::nullptr_t) {}                                       // NOLINT: an empty holder
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}  // NOLINT

  Impl* operator->() const { return checked(); }
  Impl& operator*() const { return *checked(); }
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  Impl* get() const { return impl_.get(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }
  explicit operator bool() const noexcept { return impl_ != nullptr; }
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    return checked()->forward(std::forward<Args>(args)...);
  }

 private:
  Impl* checked() const {
    SDK_CHECK(impl_ != nullptr, "Accessing empty ModuleHolder");
    return impl_.get();
  }
  std::shared_ptr<Impl> impl_;
};

}  // namespace nn
}  // namespace sdk

/*! \brief Defines `Name`, a ModuleHolder of `NameImpl`, as torch's TORCH_MODULE. */
#define SDK_MODULE(Name)                                     \
  class Name : public ::sdk::nn::ModuleHolder<Name##Impl> {  \
   public:                                                   \
    using ::sdk::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
    using Impl = Name##Impl;                                 \
  }

#endif  // SDK_NN_MODULE_H_
