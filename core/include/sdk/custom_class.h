// sdk/custom_class.h: custom classes, torch's torch::class_ (<torch/custom_class.h>): a C++
// type registered under a namespace, constructed, called and pickled from Python as
// sdk.classes.ns.Name, and passed to and returned from ops as an intrusive_ptr<T>.
//
//   struct Stack : sdk::CustomClassHolder {
//     std::vector<int64_t> v;
//     explicit Stack(std::vector<int64_t> init) : v(std::move(init)) {}
//     void push(int64_t x) { v.push_back(x); }
//   };
//   SDK_LIBRARY(myclasses, m) {
//     m.class_<Stack>("Stack")
//         .def(sdk::init<std::vector<int64_t>>())
//         .def("push", &Stack::push)
//         .def_pickle([](const sdk::intrusive_ptr<Stack>& s) { return s->v; },
//                     [](std::vector<int64_t> v) { return sdk::make_intrusive<Stack>(v); });
//     m.def("top(__torch__.torch.classes.myclasses.Stack s) -> int", &top);
//   }
//   static auto reg = sdk::class_<Queue>("myclasses", "Queue").def(...);  // the static form
//
// Each method is an op of the core ("myclasses.Stack.push", c_api.h "Custom classes"), with
// the object as its first argument `self`; __init__, __setstate__ and def_static methods take
// none. An object crosses the C ABI as its intrusive_ptr_target pointer and its class; the
// core and Python hold references through the class's retain and release (below), so an
// object lives while any of C++, the core or Python refers to it. A class's C++ type is known
// to the library that registers it: an op of another library takes the object by its schema
// type, and reads it there as intrusive_ptr<T> only when it registered T too.
#ifndef SDK_CUSTOM_CLASS_H_
#define SDK_CUSTOM_CLASS_H_

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sdk/intrusive_ptr.h"
#include "sdk/library.h"

namespace sdk {

/*! \brief The base of a custom class (torch::CustomClassHolder). */
struct CustomClassHolder : intrusive_ptr_target {};

namespace detail {

// The class T was registered as in this library (set by class_<T>). A plain pointer, constant
// initialized: registration runs in static initializers, before (or after) any dynamic
// initialization of a static of this template would.
template <typename T>
struct ClassOf {
  inline static const sdk_class* cls = nullptr;
};

// "__torch__.torch.classes.ns.Name", the schema type of class `cls`.
inline std::string class_type_name(const sdk_class* cls) {
  return std::string("__torch__.torch.classes.") + sdk_class_name(cls);
}

// The class's reference counting, handed to the core: the object is its intrusive_ptr_target.
inline void class_object_retain(void* object) {
  intrusive_ptr_counts::incref(static_cast<intrusive_ptr_target*>(object));
}
inline void class_object_release(void* object) {
  intrusive_ptr_counts::decref(static_cast<intrusive_ptr_target*>(object));
}

template <typename T>
const sdk_class* registered_class() {
  SDK_CHECK(ClassOf<T>::cls,
            "a custom class used in an op or method is not registered in this "
            "library: register it with m.class_<T>(\"Name\") (torch::class_) before the ops that "
            "take it");
  return ClassOf<T>::cls;
}

// An object argument or result: intrusive_ptr<T> of a registered class T.
template <typename T>
struct BoxImpl<intrusive_ptr<T>, std::enable_if_t<std::is_base_of_v<CustomClassHolder, T>>> {
  using Stored = intrusive_ptr<T>;
  static std::string schema() { return class_type_name(registered_class<T>()); }
  static Stored read(const sdk_values* v, int64_t i) {
    const sdk_class* cls = nullptr;
    void* object = nullptr;
    check(sdk_values_get_object(v, i, &cls, &object), "reading an object argument");
    SDK_CHECK_TYPE(cls == registered_class<T>(), "expected an object of class ",
                   class_type_name(registered_class<T>()), ", got one of class ",
                   class_type_name(cls));
    return Stored::reclaim_copy(static_cast<T*>(static_cast<intrusive_ptr_target*>(object)));
  }
  static void push(sdk_values* v, const Stored& p) {
    if (!p) {
      check(sdk_values_push_none(v), "returning None");
      return;
    }
    auto* target = static_cast<intrusive_ptr_target*>(p.get());
    check(sdk_values_push_object(v, registered_class<T>(), target), "returning an object");
  }
};

// An instance method &T::f as a callable taking the object first: f's schema gains `self`.
template <typename T, typename M>
struct BoundMethod;
template <typename T, typename C, typename R, typename... A>
struct BoundMethod<T, R (C::*)(A...)> {
  R (C::*f)(A...);
  R operator()(const intrusive_ptr<T>& self, A... a) const {
    return ((*self).*f)(std::forward<A>(a)...);
  }
};
template <typename T, typename C, typename R, typename... A>
struct BoundMethod<T, R (C::*)(A...) const> {
  R (C::*f)(A...) const;
  R operator()(const intrusive_ptr<T>& self, A... a) const {
    return ((*self).*f)(std::forward<A>(a)...);
  }
};

// The constructor of T from Args, as a static __init__.
template <typename T, typename... Args>
struct Construct {
  intrusive_ptr<T> operator()(Args... a) const {
    return make_intrusive<T>(std::forward<Args>(a)...);
  }
};

// "name(__torch__... _0, int _1) -> R" with the first argument named `self`.
inline std::string name_self(std::string schema) {
  size_t at = schema.find(" _0");
  if (at != std::string::npos) schema.replace(at, 3, " self");
  return schema;
}

// A default value as the schema writes it.
inline std::string schema_literal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}
inline std::string schema_literal(const std::string& v) {
  std::string s = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') s += '\\';
    s += c;
  }
  return s + "'";
}

}  // namespace detail

/*! \brief torch::arg: a method argument's name and optionally its default, listed after the
 *  method's doc string: `.def("push", &S::push, "", {sdk::class_arg("x"),
 *  sdk::class_arg("times") = 1})`. The porter writes torch::arg as this (sdk::arg is the
 *  complex angle, at::arg). */
struct class_arg {
  explicit class_arg(std::string name) : name_(std::move(name)) {}
  class_arg& operator=(std::nullopt_t) { return set("None"); }
  class_arg& operator=(bool v) { return set(v ? "True" : "False"); }
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  class_arg& operator=(I v) {
    return set(std::to_string(v));
  }
  class_arg& operator=(double v) { return set(detail::schema_literal(v)); }
  class_arg& operator=(const std::string& v) { return set(detail::schema_literal(v)); }
  class_arg& operator=(const char* v) { return set(detail::schema_literal(std::string(v))); }
  template <typename V>
  class_arg& operator=(const std::vector<V>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + class_arg("").assign(v[i]);
    return set(s + "]");
  }
  /*! \brief torch::arg::none(): a default of None. */
  static std::nullopt_t none() { return std::nullopt; }

  std::string name_;
  std::optional<std::string> value_;  // the default, as the schema writes it

 private:
  class_arg& set(std::string v) {
    value_ = std::move(v);
    return *this;
  }
  template <typename V>
  std::string assign(const V& v) {
    *this = v;
    return *value_;
  }
};

namespace detail {

// The inferred schema "name(T _0, U _1) -> R" with its arguments from `first` on named (and
// given defaults) by `args`; an empty string when the counts differ.
inline std::string name_args(const std::string& schema, const std::vector<class_arg>& args,
                             size_t first) {
  const size_t open = schema.find('(');
  size_t close = open, depth = 0;
  std::vector<size_t> ends;  // the end of each argument
  for (size_t i = open + 1; i < schema.size(); ++i) {
    const char c = schema[i];
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (c == ')' && depth == 0) {
      close = i;
      break;
    }
    if (c == ',' && depth == 0) ends.push_back(i);
  }
  if (close > open + 1) ends.push_back(close);
  if (ends.size() != first + args.size()) return "";
  std::string out = schema.substr(0, open + 1);
  size_t start = open + 1;
  for (size_t i = 0; i < ends.size(); ++i) {
    std::string param = schema.substr(start, ends[i] - start);
    if (i >= first) {
      const class_arg& a = args[i - first];
      param = param.substr(0, param.rfind(' ') + 1) + a.name_ + (a.value_ ? "=" + *a.value_ : "");
    }
    out += param + (i + 1 < ends.size() ? "," : "");
    start = ends[i] + 1;
  }
  return out + schema.substr(close);
}

}  // namespace detail

/*! \brief torch::init<Types...>(): the constructor taking Types, for class_::def. */
template <typename... Types>
struct InitTypes {};
template <typename... Types>
InitTypes<Types...> init() {
  return {};
}
/*! \brief torch::init(factory): a function returning intrusive_ptr<T>, for class_::def. */
template <typename F>
struct InitFactory {
  F fn;
};
template <typename F>
InitFactory<std::decay_t<F>> init(F&& factory) {
  return {std::forward<F>(factory)};
}

/*! \brief A custom class being registered (torch::class_). Methods may be member functions
 *  (&T::f), or callables whose first argument is `const intrusive_ptr<T>& self`. */
template <typename T>
class class_ {
  static_assert(std::is_base_of_v<CustomClassHolder, T>,
                "a custom class must derive from sdk::CustomClassHolder");

 public:
  /*! \brief The static form: class `name` of namespace `ns`, in a scope of its own that
   *  lives as long as this object (keep it in a static). */
  class_(const std::string& ns, const std::string& name)
      : owned_(std::make_shared<Library>(Library::FRAGMENT, ns, std::nullopt, __FILE__, __LINE__,
                                         /*record_errors=*/true)),
        lib_(owned_.get()),
        name_(name) {
    register_class();
  }
  /*! \brief Inside SDK_LIBRARY(ns, m): m.class_<T>("Name"). */
  class_(Library& lib, const std::string& name) : lib_(&lib), name_(name) { register_class(); }

  /*! \brief The constructor: sdk.classes.ns.Name(*args) calls T(args...). */
  template <typename... Args>
  class_& def(InitTypes<Args...>, const std::string& /*doc_string*/ = "",
              std::initializer_list<class_arg> default_args = {}) {
    return add("__init__", detail::Construct<T, Args...>{}, false, default_args);
  }
  /*! \brief A factory constructor: sdk.classes.ns.Name(*args) calls factory(args...). */
  template <typename F>
  class_& def(InitFactory<F> factory, const std::string& /*doc_string*/ = "") {
    return def_static("__init__", std::move(factory.fn));
  }
  /*! \brief An instance method. */
  /*! An instance method; `default_args` names the arguments after self (torch::arg). */
  template <typename F>
  class_& def(const std::string& name, F f, const std::string& /*doc_string*/ = "",
              std::initializer_list<class_arg> default_args = {}) {
    if constexpr (std::is_member_function_pointer_v<F>) {
      return add(name, detail::BoundMethod<T, F>{f}, true, default_args);
    } else {
      return add(name, std::move(f), true, default_args);
    }
  }
  /*! \brief A method that takes no object: sdk.classes.ns.Name.name(*args). */
  template <typename F>
  class_& def_static(const std::string& name, F f, const std::string& /*doc_string*/ = "",
                     std::initializer_list<class_arg> default_args = {}) {
    return add(name, std::move(f), false, default_args);
  }
  /*! \brief Pickling (and copy.deepcopy): `get_state(self)` returns the state as op values;
   *  `set_state(state)` returns a new intrusive_ptr<T> from it. */
  template <typename GetState, typename SetState>
  class_& def_pickle(GetState get_state, SetState set_state) {
    def("__getstate__", std::move(get_state));
    return def_static("__setstate__", std::move(set_state));
  }
  /*! \brief The schema type: "__torch__.torch.classes.ns.Name". */
  std::string qualClassName() const {
    return detail::class_type_name(detail::registered_class<T>());
  }

 private:
  std::shared_ptr<Library> owned_;  // the static form's scope
  Library* lib_;
  std::string name_;

  void register_class() {
    const sdk_class* cls =
        lib_->register_class(name_, &detail::class_object_retain, &detail::class_object_release);
    if (cls) detail::ClassOf<T>::cls = cls;  // else the failure is kept for the loader
  }

  template <typename F>
  class_& add(const std::string& name, F&& f, bool instance,
              std::initializer_list<class_arg> default_args = {}) {
    using Stored = detail::StoredCallable<F>;
    std::string schema = detail::infer_schema<Stored>(name);
    if (instance) schema = detail::name_self(schema);
    if (default_args.size() > 0) {
      std::string named = detail::name_args(schema, default_args, instance ? 1 : 0);
      if (named.empty()) {
        lib_->refuse(name_ + "." + name + ": " + std::to_string(default_args.size()) +
                     " torch::arg entries for the arguments of " + schema +
                     (instance ? " (after self)" : "") + "; give one per argument");
        return *this;
      }
      schema = std::move(named);
    }
    lib_->register_method(name_, schema, std::forward<F>(f));
    return *this;
  }
};

template <typename T>
class_<T> Library::class_(const std::string& name) & {
  return ::sdk::class_<T>(*this, name);
}

}  // namespace sdk

#endif  // SDK_CUSTOM_CLASS_H_
