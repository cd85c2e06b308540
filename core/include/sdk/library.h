// sdk/library.h: register operators the way torch's <torch/library.h> does, over the C ABI.
//
//   SDK_LIBRARY(myops, m) {
//     m.def("mymuladd(Tensor a, Tensor b, float c) -> Tensor");
//     m.def("mymul", &mymul);                     // schema inferred from the C++ signature
//   }
//   SDK_LIBRARY_IMPL(myops, CPU, m) { m.impl("mymuladd", &mymuladd_cpu); }
//   SDK_LIBRARY_IMPL(myops, CUDA, m) { m.impl("mymuladd", &mymuladd_cuda); }
//   SDK_LIBRARY_IMPL(myops, Meta, m) { m.impl("mymuladd", &mymuladd_meta); }  // shapes only
//
// A Meta kernel (ABI 1.7) gets meta tensors (sizes, strides, dtype, no data) and returns
// meta tensors made with sdk::empty / empty_like; it is the op's shape function for
// torch.compile, jax.jit and opcheck when no Python one is registered (see c_api.h).
//
// Python calls sdk.ops.myops.mymuladd(a, b, 1.0); C++ calls
// sdk::Dispatcher::singleton().findSchemaOrThrow("myops::mymuladd", "")
//     .typed<sdk::Tensor(const sdk::Tensor&, const sdk::Tensor&, double)>().call(a, b, 1.0)
// or, shorter, sdk::call_op<sdk::Tensor>("myops::mymuladd", a, b, 1.0).
//
// Registration goes through sdk_library_* (the core keeps one registry per process), so a
// library built against ABI 1.3 registers and runs on every later 1.x core. Blocks run
// while the shared library loads; a failure there (a malformed schema, an op defined twice,
// a kernel for an op nobody defines) is kept by the core and raised by the loader
// (sdk.ops.load_library, cpp_extension.load) as ImportError naming the library, the op and
// the problem. Kernels are unboxed C++ functions: their arguments and results convert from
// and to the boxed values of the call (see detail::Box in sdk/boxing.h for the supported types).
#ifndef SDK_LIBRARY_H_
#define SDK_LIBRARY_H_

#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "sdk/boxing.h"        // detail::Box: C++ types <-> boxed values
#include "sdk/dispatch_key.h"  // sdk::DispatchKey
#include "sdk/export.h"        // the ABI this library was built against, checked by loaders
#include "sdk/tag.h"           // at::Tag, SDK_SELECTIVE_NAME
#include "sdk/tensor.h"

namespace sdk {

namespace detail {

// ---- function traits: the signature of a function pointer, a lambda or a functor -------

template <typename F>
struct FunctionTraits : FunctionTraits<decltype(&F::operator())> {};
template <typename R, typename... A>
struct FunctionTraits<R (*)(A...)> {
  using Return = R;
  using Args = std::tuple<A...>;
  static constexpr size_t arity = sizeof...(A);
};
template <typename R, typename... A>
struct FunctionTraits<R(A...)> : FunctionTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct FunctionTraits<R (C::*)(A...)> : FunctionTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct FunctionTraits<R (C::*)(A...) const> : FunctionTraits<R (*)(A...)> {};

// The schema torch infers from a C++ signature: "name(Tensor _0, float _1) -> Tensor".
template <typename F, size_t... I>
std::string infer_schema(const std::string& name, std::index_sequence<I...>) {
  using Args = typename FunctionTraits<F>::Args;
  std::string s = name + "(";
  ((s += (I ? ", " : "") + std::string(BoxOf<std::tuple_element_t<I, Args>>::schema()) + " _" +
         std::to_string(I)),
   ...);
  return s + ") -> " + Results<typename FunctionTraits<F>::Return>::schema();
}
template <typename F>
std::string infer_schema(const std::string& name) {
  return infer_schema<F>(name, std::make_index_sequence<FunctionTraits<F>::arity>{});
}

// A kernel: the callable F stored in the registry, called through the boxed convention.
template <typename F>
struct Kernel {
  using Traits = FunctionTraits<F>;
  using R = typename Traits::Return;

  template <size_t... I>
  static sdk_status call_with(F& f, sdk_values* v, std::index_sequence<I...>) {
    using Args = typename Traits::Args;
    // the arguments are read (kept alive) before the values are replaced by the results
    std::tuple<typename BoxOf<std::tuple_element_t<I, Args>>::Stored...> stored(
        BoxOf<std::tuple_element_t<I, Args>>::read(v, static_cast<int64_t>(I))...);
    if constexpr (std::is_void_v<R>) {
      f(std::get<I>(stored)...);
      sdk_values_clear(v);
    } else {
      R r = f(std::get<I>(stored)...);
      sdk_values_clear(v);
      Results<R>::push(v, std::move(r));
    }
    return SDK_OK;
  }

  static sdk_status boxed(void* context, const sdk_op*, sdk_values* v) noexcept {
    try {
      return call_with(*static_cast<F*>(context), v, std::make_index_sequence<Traits::arity>{});
    } catch (...) {
      return status_of_exception("a kernel");
    }
  }
  static void free_context(void* context) { delete static_cast<F*>(context); }
};

// The kernel adapter of a stored callable: Kernel<F> unboxes by F's C++ signature. A header
// may specialize it for callables that read the boxed values themselves (sdk/stable.h: torch's
// stable-ABI boxed kernels, void(StableIValue*, uint64_t, uint64_t)).
template <typename F, typename = void>
struct KernelFor {
  using type = Kernel<F>;
};

// A callable as stored: function pointers stay pointers; lambdas and functors are copied.
template <typename F>
using StoredCallable =
    std::conditional_t<std::is_function_v<std::remove_reference_t<F>>,
                       std::add_pointer_t<std::remove_reference_t<F>>, std::decay_t<F>>;

}  // namespace detail

/*! \brief A kernel tagged with the key it registers for: m.impl("op", sdk::dispatch(
 *  sdk::DispatchKey::CPU, &fn)). */
template <typename F>
struct DispatchedKernel {
  DispatchKey key;
  F fn;
};
template <typename F>
DispatchedKernel<detail::StoredCallable<F>> dispatch(DispatchKey key, F&& fn) {
  return {key, std::forward<F>(fn)};
}
/*! \brief torch's dispatch(c10::kCPU, fn) with a device type. */
template <typename F>
DispatchedKernel<detail::StoredCallable<F>> dispatch(DeviceType type, F&& fn) {
  return {type == kCUDA ? DispatchKey::CUDA : DispatchKey::CPU, std::forward<F>(fn)};
}

/*! \brief torch's alias-analysis kinds, accepted by sdk::schema() for porting (the core
 *  reads the annotations in the schema text itself). */
enum class AliasAnalysisKind { INTERNAL_SPECIAL_CASE, CONSERVATIVE, FROM_SCHEMA, PURE_FUNCTION };
inline std::string schema(const char* text, AliasAnalysisKind = AliasAnalysisKind::FROM_SCHEMA) {
  return text;
}

template <typename T>
class class_;  // sdk/custom_class.h

/*! \brief A registration scope: what SDK_LIBRARY / SDK_LIBRARY_FRAGMENT / SDK_LIBRARY_IMPL
 *  blocks receive as `m`. */
class Library {
 public:
  enum Kind { DEF = SDK_LIBRARY_DEF, FRAGMENT = SDK_LIBRARY_FRAGMENT, IMPL = SDK_LIBRARY_IMPL };

  /*! \brief Open a scope. `record_errors`: keep failures for the loader instead of
   *  throwing (what the SDK_LIBRARY macros do: they run while a library loads). */
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file,
          uint32_t line, bool record_errors = false)
      : ns_(std::move(ns)), record_errors_(record_errors), catch_all_(kind != IMPL) {
    std::string source = std::string(file ? file : "?") + ":" + std::to_string(line);
    if (key && detail::is_ignored_key(*key)) return;  // e.g. BackendSelect: nothing to do
    int32_t k = key ? static_cast<int32_t>(*key) : -1;
    sdk_library* lib = nullptr;
    if (!guard(sdk_library_open(kind, ns_.c_str(), k, source.c_str(), &lib), "")) return;
    lib_ = lib;
  }
  ~Library() { sdk_library_close(lib_); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&& o) noexcept
      : lib_(std::exchange(o.lib_, nullptr)),
        ns_(std::move(o.ns_)),
        record_errors_(o.record_errors_),
        catch_all_(o.catch_all_) {}
  Library& operator=(Library&&) = delete;

  /*! \brief Define an op from its schema. */
  Library& def(const std::string& schema) & {
    if (lib_) guard(sdk_library_define(lib_, schema.c_str()), schema);
    return *this;
  }
  /*! \brief Define an op with tags (accepted; see sdk/tag.h). */
  Library& def(const std::string& schema, const std::vector<Tag>& /*tags*/) & {
    return def(schema);
  }
  /*! \brief Define an op and register `fn` as its kernel for every device (torch's
   *  catch-all). `schema_or_name` is a full schema, or a bare name whose schema is
   *  inferred from fn's C++ signature. As in torch, the kernel is CompositeImplicitAutograd:
   *  a call that needs gradients runs it with grad mode on, so an autograd Function applied
   *  inside records the graph. */
  template <typename F,
            std::enable_if_t<!std::is_same_v<std::decay_t<F>, std::vector<Tag>>, int> = 0>
  Library& def(const std::string& schema_or_name, F&& fn, const std::vector<Tag>& /*tags*/ = {}) & {
    std::string text = schema_or_name;
    std::string name = schema_or_name.substr(0, schema_or_name.find('('));
    if (schema_or_name.find('(') == std::string::npos) {
      text = detail::infer_schema<detail::StoredCallable<F>>(schema_or_name);
    }
    def(text);
    return register_kernel(name, DispatchKey::CompositeImplicitAutograd, std::forward<F>(fn));
  }
  /*! \brief Register `fn` for op `name` under the block's dispatch key (SDK_LIBRARY_IMPL),
   *  or for every device in an SDK_LIBRARY / SDK_LIBRARY_FRAGMENT block (torch's catch-all:
   *  CompositeImplicitAutograd, as def(name, fn)). */
  template <typename F>
  Library& impl(const std::string& name, F&& fn) & {
    DispatchKey key = catch_all_ ? DispatchKey::CompositeImplicitAutograd : DispatchKey::Undefined;
    return register_kernel(name, key, std::forward<F>(fn));
  }
  template <typename F>
  Library& impl(const std::string& name, DispatchedKernel<F> k) & {
    return register_kernel(name, k.key, std::move(k.fn));
  }
  /*! \brief Where torch finds the Python fake-tensor kernels of the ops; the SDK runs no
   *  fake tensors, so the call is accepted and has no effect. */
  Library& impl_abstract_pystub(const char* /*pymodule*/, const char* /*context*/ = "") & {
    return *this;
  }
  /*! \brief The Python module torch imports for the ops' Python parts; no effect here. */
  Library& set_python_module(const char* /*pymodule*/, const char* /*context*/ = "") & {
    return *this;
  }
  /*! \brief The namespace. */
  const std::string& ns() const { return ns_; }

  /*! \brief Register custom class T as `name` of this namespace (torch's m.class_<T>); see
   *  sdk/custom_class.h. */
  template <typename T>
  ::sdk::class_<T> class_(const std::string& name) &;
  /*! \brief What class_ registers through: the class (NULL when the failure was kept for the
   *  loader) and its methods. */
  const sdk_class* register_class(const std::string& name, sdk_object_fn retain,
                                  sdk_object_fn release) {
    const sdk_class* cls = nullptr;
    if (!lib_ || !guard(sdk_library_class(lib_, name.c_str(), retain, release, &cls), name)) {
      return nullptr;
    }
    return cls;
  }
  template <typename F>
  void register_method(const std::string& class_name, const std::string& schema, F&& fn) {
    if (!lib_) return;
    using Stored = detail::StoredCallable<F>;
    auto* ctx = new Stored(std::forward<F>(fn));
    using Adapter = typename detail::KernelFor<Stored>::type;
    guard(sdk_library_method(lib_, class_name.c_str(), schema.c_str(), &Adapter::boxed, ctx,
                             &Adapter::free_context),
          schema);
  }

  /*! \brief A registration mistake found by the C++ side: thrown as ValueError, or (in a
   *  loading library) kept for the loader, as the core's own refusals are. */
  void refuse(const std::string& message) {
    if (!record_errors_) detail::throw_error(SDK_ERROR_VALUE, message);
    sdk_library_record_error(message.c_str());
  }

 private:
  sdk_library* lib_ = nullptr;
  std::string ns_;
  bool record_errors_ = false;
  bool catch_all_ = false;  // an SDK_LIBRARY(_FRAGMENT) scope: impl() without a key is every device

  // Throw, or (in a loading library) keep the error for the loader and carry on.
  bool guard(sdk_status st, const std::string& what) {
    if (st == SDK_OK) return true;
    if (!record_errors_) detail::throw_last_error("sdk::Library");
    std::string msg = sdk_last_error_message();
    (void)what;
    sdk_library_record_error(msg.c_str());
    return false;
  }

  template <typename F>
  Library& register_kernel(const std::string& name, DispatchKey key, F&& fn) {
    if (!lib_ || detail::is_ignored_key(key)) return *this;
    using Stored = detail::StoredCallable<F>;
    auto* ctx = new Stored(std::forward<F>(fn));
    // Undefined: the block's key (SDK_LIBRARY_IMPL), or every device (SDK_LIBRARY)
    using Adapter = typename detail::KernelFor<Stored>::type;
    guard(sdk_library_impl(lib_, name.c_str(), static_cast<int32_t>(key), &Adapter::boxed, ctx,
                           &Adapter::free_context),
          name);
    return *this;
  }
};

namespace detail {

// A block's registration: opens the scope, runs the block, keeps the scope open until the
// library unloads (then its ops and kernels go away with it).
class LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*fn)(Library&), const char* ns,
              std::optional<DispatchKey> key, const char* file, uint32_t line)
      : lib_(kind, ns, key, file, line, /*record_errors=*/true) {
    try {
      fn(lib_);
    } catch (const std::exception& e) {
      sdk_library_record_error(
          (std::string(file) + ":" + std::to_string(line) + ": " + e.what()).c_str());
    } catch (...) {
      sdk_library_record_error((std::string(file) + ":" + std::to_string(line) +
                                ": unknown exception in a registration block")
                                   .c_str());
    }
  }

 private:
  Library lib_;
};

}  // namespace detail

// ---- calling registered ops from C++ ------------------------------------------------------

namespace detail {

// Values of a call, freed at scope exit.
struct Values {
  sdk_values* v = nullptr;
  Values() { check(sdk_values_new(&v), "sdk_values_new"); }
  ~Values() { sdk_values_free(v); }
  Values(const Values&) = delete;
  Values& operator=(const Values&) = delete;
};

template <typename R, typename... Args>
R call_boxed(const sdk_op* op, int32_t key, Args&&... args) {
  Values vals;
  (BoxOf<Args>::push(vals.v, args), ...);
  sdk_status st = key < 0 ? sdk_op_call(op, vals.v) : sdk_op_call_key(op, key, vals.v);
  check_status(st, sdk_op_name(op));
  if constexpr (!std::is_void_v<R>) return Results<R>::read(vals.v);
}

}  // namespace detail

template <typename Sig>
class TypedOperatorHandle;

/*! \brief A registered op (torch's c10::OperatorHandle). */
class OperatorHandle {
 public:
  explicit OperatorHandle(const sdk_op* op) : op_(op) {}
  /*! \brief "ns::name" or "ns::name.overload". */
  std::string operator_name() const { return sdk_op_name(op_); }
  /*! \brief The schema, as text. */
  std::string schema() const { return sdk_op_schema(op_); }
  bool hasKernelForDispatchKey(DispatchKey k) const {
    return sdk_op_has_kernel(op_, static_cast<int32_t>(k)) != 0;
  }
  template <typename Sig>
  TypedOperatorHandle<Sig> typed() const {
    return TypedOperatorHandle<Sig>(op_);
  }
  /*! \brief Boxed call: `values` holds the arguments; on return, the results. */
  void callBoxed(sdk_values* values) const {
    detail::check_status(sdk_op_call(op_, values), sdk_op_name(op_));
  }
  const sdk_op* get() const { return op_; }

 protected:
  const sdk_op* op_;
};

template <typename R, typename... Args>
class TypedOperatorHandle<R(Args...)> : public OperatorHandle {
 public:
  explicit TypedOperatorHandle(const sdk_op* op) : OperatorHandle(op) {}
  /*! \brief Call through the dispatcher (the kernel of the arguments' device). */
  R call(Args... args) const {
    return detail::call_boxed<R, Args...>(op_, -1, std::forward<Args>(args)...);
  }
  /*! \brief Call the kernel of one key (an Autograd kernel calls the device's this way). */
  R redispatch(DispatchKey key, Args... args) const {
    return detail::call_boxed<R, Args...>(op_, static_cast<int32_t>(key),
                                          std::forward<Args>(args)...);
  }
};

/*! \brief torch's c10::Dispatcher: finds registered ops. */
class Dispatcher {
 public:
  static Dispatcher& singleton() {
    static Dispatcher d;
    return d;
  }
  /*! \brief The op "ns::name" with overload `overload` ("" for the default one); throws
   *  sdk::Error naming what the namespace has when there is none. */
  OperatorHandle findSchemaOrThrow(const char* name, const char* overload) const {
    std::string full = name;
    if (overload && *overload) full += std::string(".") + overload;
    const sdk_op* op = nullptr;
    detail::check_status(sdk_op_find(full.c_str(), &op), "findSchemaOrThrow");
    return OperatorHandle(op);
  }
  /*! \brief As findSchemaOrThrow, or nullopt. */
  std::optional<OperatorHandle> findSchema(const char* name, const char* overload) const {
    std::string full = name;
    if (overload && *overload) full += std::string(".") + overload;
    const sdk_op* op = nullptr;
    if (sdk_op_find(full.c_str(), &op) != SDK_OK) return std::nullopt;
    return OperatorHandle(op);
  }
};

/*! \brief Shorter: sdk::call_op<sdk::Tensor>("ns::name", a, b, 1.0) (the argument types are
 *  the C++ types given: pass double for a float argument, int64_t for an int). */
template <typename R, typename... Args>
R call_op(const char* name, Args&&... args) {
  const sdk_op* op = nullptr;
  detail::check_status(sdk_op_find(name, &op), "call_op");
  return detail::call_boxed<R>(op, -1, std::forward<Args>(args)...);
}

/*! \brief The legacy registration (torch::RegisterOperators): each op(schema, fn) defines
 *  "ns::name(...)" and registers fn for every device. Keep the object alive (a static) for
 *  as long as the ops should exist. */
class RegisterOperators {
 public:
  RegisterOperators() = default;
  RegisterOperators(RegisterOperators&&) = default;
  RegisterOperators& operator=(RegisterOperators&&) = default;

  template <typename F>
  RegisterOperators&& op(const std::string& schema_or_name, F&& fn) && {
    add(schema_or_name, std::forward<F>(fn));
    return std::move(*this);
  }
  template <typename F>
  RegisterOperators& op(const std::string& schema_or_name, F&& fn) & {
    add(schema_or_name, std::forward<F>(fn));
    return *this;
  }

 private:
  std::vector<std::unique_ptr<Library>> libs_;

  template <typename F>
  void add(const std::string& schema_or_name, F&& fn) {
    size_t colons = schema_or_name.find("::");
    SDK_CHECK(colons != std::string::npos, "RegisterOperators: '", schema_or_name,
              "' must name its namespace (\"ns::name(...) -> ...\")");
    std::string ns = schema_or_name.substr(0, colons);
    libs_.push_back(std::make_unique<Library>(Library::FRAGMENT, ns, std::nullopt, __FILE__,
                                              __LINE__, /*record_errors=*/true));
    libs_.back()->def(schema_or_name.substr(colons + 2), std::forward<F>(fn));
  }
};

}  // namespace sdk

// ---- the registration blocks (torch's TORCH_LIBRARY family) ---------------------------------

#define SDK_DETAIL_CONCAT2(a, b) a##b
#define SDK_DETAIL_CONCAT(a, b) SDK_DETAIL_CONCAT2(a, b)
#define SDK_DETAIL_UID(prefix) SDK_DETAIL_CONCAT(prefix, __COUNTER__)

/*! \brief Define operators of namespace `ns`: SDK_LIBRARY(ns, m) { m.def("..."); }. One per
 *  namespace in the process; more ops go in SDK_LIBRARY_FRAGMENT blocks. */
#define SDK_LIBRARY(ns, m)                                                                 \
  static void SDK_LIBRARY_init_##ns(::sdk::Library&);                                      \
  static const ::sdk::detail::LibraryInit SDK_LIBRARY_static_init_##ns(                    \
      ::sdk::Library::DEF, &SDK_LIBRARY_init_##ns, #ns, std::nullopt, __FILE__, __LINE__); \
  void SDK_LIBRARY_init_##ns(::sdk::Library& m)

/*! \brief More definitions for namespace `ns`. */
#define SDK_LIBRARY_FRAGMENT(ns, m) SDK_DETAIL_LIBRARY_FRAGMENT(ns, m, SDK_DETAIL_UID(SDK_FRAG_))
#define SDK_DETAIL_LIBRARY_FRAGMENT(ns, m, uid)                                              \
  static void SDK_DETAIL_CONCAT(uid, _init)(::sdk::Library&);                                \
  static const ::sdk::detail::LibraryInit SDK_DETAIL_CONCAT(uid, _static)(                   \
      ::sdk::Library::FRAGMENT, &SDK_DETAIL_CONCAT(uid, _init), #ns, std::nullopt, __FILE__, \
      __LINE__);                                                                             \
  void SDK_DETAIL_CONCAT(uid, _init)(::sdk::Library & m)

/*! \brief Kernels of namespace `ns` for dispatch key `k` (CPU, CUDA, Autograd,
 *  CompositeImplicitAutograd, CompositeExplicitAutograd): m.impl("op", &fn). */
#define SDK_LIBRARY_IMPL(ns, k, m) SDK_DETAIL_LIBRARY_IMPL(ns, k, m, SDK_DETAIL_UID(SDK_IMPL_))
#define SDK_DETAIL_LIBRARY_IMPL(ns, k, m, uid)                             \
  static void SDK_DETAIL_CONCAT(uid, _init)(::sdk::Library&);              \
  static const ::sdk::detail::LibraryInit SDK_DETAIL_CONCAT(uid, _static)( \
      ::sdk::Library::IMPL, &SDK_DETAIL_CONCAT(uid, _init), #ns,           \
      std::make_optional(::sdk::DispatchKey::k), __FILE__, __LINE__);      \
  void SDK_DETAIL_CONCAT(uid, _init)(::sdk::Library & m)

/*! \brief torch's TORCH_FN(fn): the function itself. */
#define SDK_FN(fn) (&fn)

// torch's <torch/library.h> brings custom classes (m.class_<T>) along.
#include "sdk/custom_class.h"  // NOLINT(build/include_order): needs Library above

#endif  // SDK_LIBRARY_H_
