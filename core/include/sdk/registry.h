// sdk/registry.h: torch's object registry (c10/util/Registry.h): factories of a base class
// registered under keys (std::string with the SDK_REGISTER_CLASS forms) at static
// initialization, each with a priority, and created by key: c10::Registry, c10::Registerer,
// c10::RegistryPriority and the C10_DECLARE/DEFINE/REGISTER_* macros, spelled SDK_*.
//
//   SDK_DECLARE_REGISTRY(ShapeRegistry, Shape, int);   // a header: Shape(int) factories
//   SDK_DEFINE_REGISTRY(ShapeRegistry, Shape, int);    // one source file
//   SDK_REGISTER_CLASS(ShapeRegistry, square, Square); // key "square" makes a Square(int)
//   std::unique_ptr<Shape> s = ShapeRegistry()->Create("square", 3);  // nullptr: no such key
//
// Registering a key again keeps the higher priority (a note on stderr, as torch writes), with
// its help message (torch kept the last one given, even of a registration it skipped);
// the same key twice at the same priority is an error. torch then exits the process unless
// SetTerminate(false) made it throw; here it always throws (an sdk::Error, RuntimeError),
// so a test can catch it and a library's import reports it.
#ifndef SDK_REGISTRY_H_
#define SDK_REGISTRY_H_

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "sdk/error.h"

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>

#include <cstdlib>
#endif

namespace sdk {
namespace detail {

// The readable name of type T (torch's demangle_type): the class's help message.
template <typename T>
std::string registry_type_name() {
  const char* mangled = typeid(T).name();
#if __has_include(<cxxabi.h>)
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status == 0 && readable) {
    std::string name(readable);
    std::free(readable);
    return name;
  }
#endif
  return mangled;
}

}  // namespace detail

/*! \brief How a registration competes with another of the same key: the higher one wins. */
enum RegistryPriority {
  REGISTRY_FALLBACK = 1,
  REGISTRY_DEFAULT = 2,
  REGISTRY_PREFERRED = 3,
};

/*! \brief A key as the registry's messages print it (torch's KeyStrRepr). */
template <typename KeyType>
std::string KeyStrRepr(const KeyType& /*key*/) {
  return "[key type printing not supported]";
}
template <>
inline std::string KeyStrRepr(const std::string& key) {
  return key;
}

/*! \brief Creators of ObjectPtrType from Args, by key of type SrcType. */
template <class SrcType, class ObjectPtrType, class... Args>
class Registry {
 public:
  using Creator = std::function<ObjectPtrType(Args...)>;

  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /*! \brief Register `creator` under `key`; see the file's comment for a key seen before. */
  void Register(const SrcType& key, Creator creator,
                const RegistryPriority priority = REGISTRY_DEFAULT) {
    std::lock_guard<std::mutex> lock(mutex_);
    take(key, std::move(creator), priority);
  }
  /*! \brief Register with a help message (HelpMessage), kept when the creator is. */
  void Register(const SrcType& key, Creator creator, const std::string& help_msg,
                const RegistryPriority priority = REGISTRY_DEFAULT) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (take(key, std::move(creator), priority)) help_[key] = help_msg;
  }

  bool Has(const SrcType& key) { return creators_.count(key) != 0; }

  /*! \brief The object the key's creator makes from args, or nullptr for an unknown key. */
  ObjectPtrType Create(const SrcType& key, Args... args) {
    auto found = creators_.find(key);
    if (found == creators_.end()) return nullptr;
    return found->second(args...);
  }

  /*! \brief The registered keys (in no particular order, as torch's). */
  std::vector<SrcType> Keys() const {
    std::vector<SrcType> keys;
    for (const auto& entry : creators_) keys.push_back(entry.first);
    return keys;
  }

  const std::unordered_map<SrcType, std::string>& HelpMessage() const { return help_; }
  /*! \brief The key's help message, or nullptr. */
  const char* HelpMessage(const SrcType& key) const {
    auto found = help_.find(key);
    return found == help_.end() ? nullptr : found->second.c_str();
  }

  /*! \brief torch's switch between exiting and throwing on a duplicate key: this registry
   *  always throws, so the call changes nothing. */
  void SetTerminate(bool /*terminate*/) {}

 private:
  std::unordered_map<SrcType, Creator> creators_;
  std::unordered_map<SrcType, RegistryPriority> priority_;
  std::unordered_map<SrcType, std::string> help_;
  std::mutex mutex_;

  // Whether `creator` replaced what `key` had (nothing, or a lower priority).
  bool take(const SrcType& key, Creator creator, RegistryPriority priority) {
    auto found = priority_.find(key);
    if (found != priority_.end() && priority < found->second) {
      std::fprintf(stderr, "Higher priority item already registered, skipping registration of %s\n",
                   KeyStrRepr(key).c_str());
      return false;
    }
    SDK_CHECK(found == priority_.end() || priority > found->second,
              "Key already registered with the same priority: ", KeyStrRepr(key));
    if (found != priority_.end()) {
      std::fprintf(stderr, "Overwriting already registered item for key %s\n",
                   KeyStrRepr(key).c_str());
    }
    creators_[key] = std::move(creator);
    priority_[key] = priority;
    return true;
  }
};

/*! \brief Registers at construction (a static of the SDK_REGISTER_* macros). */
template <class SrcType, class ObjectPtrType, class... Args>
class Registerer {
 public:
  using RegistryType = Registry<SrcType, ObjectPtrType, Args...>;

  explicit Registerer(const SrcType& key, RegistryType* registry,
                      typename RegistryType::Creator creator, const std::string& help_msg = "") {
    registry->Register(key, std::move(creator), help_msg);
  }
  explicit Registerer(const SrcType& key, const RegistryPriority priority, RegistryType* registry,
                      typename RegistryType::Creator creator, const std::string& help_msg = "") {
    registry->Register(key, std::move(creator), help_msg, priority);
  }

  /*! \brief The creator of DerivedType from Args. */
  template <class DerivedType>
  static ObjectPtrType DefaultCreator(Args... args) {
    return ObjectPtrType(new DerivedType(args...));
  }
};

}  // namespace sdk

#define SDK_CONCATENATE_IMPL(s1, s2) s1##s2
/*! \brief s1 and s2 pasted after their expansion (C10_CONCATENATE). */
#define SDK_CONCATENATE(s1, s2) SDK_CONCATENATE_IMPL(s1, s2)
/*! \brief A fresh identifier starting with `str` (C10_ANONYMOUS_VARIABLE). */
#define SDK_ANONYMOUS_VARIABLE(str) SDK_CONCATENATE(str, __COUNTER__)

/*! \brief Declare RegistryName(), a registry of PtrType<ObjectType> by SrcType key, and its
 *  Registerer type. */
#define SDK_DECLARE_TYPED_REGISTRY(RegistryName, SrcType, ObjectType, PtrType, ...) \
  ::sdk::Registry<SrcType, PtrType<ObjectType>, ##__VA_ARGS__>* RegistryName();     \
  typedef ::sdk::Registerer<SrcType, PtrType<ObjectType>, ##__VA_ARGS__> Registerer##RegistryName
/*! \brief Define RegistryName() (once, in a source file). */
#define SDK_DEFINE_TYPED_REGISTRY(RegistryName, SrcType, ObjectType, PtrType, ...)              \
  ::sdk::Registry<SrcType, PtrType<ObjectType>, ##__VA_ARGS__>* RegistryName() {                \
    static auto* registry = new ::sdk::Registry<SrcType, PtrType<ObjectType>, ##__VA_ARGS__>(); \
    return registry;                                                                            \
  }
/*! \brief Register a creator (a function or callable) under `key`. */
#define SDK_REGISTER_TYPED_CREATOR(RegistryName, key, ...)                  \
  static Registerer##RegistryName SDK_ANONYMOUS_VARIABLE(g_##RegistryName)( \
      key, RegistryName(), ##__VA_ARGS__);
#define SDK_REGISTER_TYPED_CREATOR_WITH_PRIORITY(RegistryName, key, priority, ...) \
  static Registerer##RegistryName SDK_ANONYMOUS_VARIABLE(g_##RegistryName)(        \
      key, priority, RegistryName(), ##__VA_ARGS__);
/*! \brief Register class __VA_ARGS__ (made by `new` from the registry's Args) under `key`;
 *  its help message is its type's name. */
#define SDK_REGISTER_TYPED_CLASS(RegistryName, key, ...)                          \
  static Registerer##RegistryName SDK_ANONYMOUS_VARIABLE(g_##RegistryName)(       \
      key, RegistryName(), Registerer##RegistryName::DefaultCreator<__VA_ARGS__>, \
      ::sdk::detail::registry_type_name<__VA_ARGS__>());
#define SDK_REGISTER_TYPED_CLASS_WITH_PRIORITY(RegistryName, key, priority, ...)            \
  static Registerer##RegistryName SDK_ANONYMOUS_VARIABLE(g_##RegistryName)(                 \
      key, priority, RegistryName(), Registerer##RegistryName::DefaultCreator<__VA_ARGS__>, \
      ::sdk::detail::registry_type_name<__VA_ARGS__>());

/*! \brief A registry by std::string key of std::unique_ptr<ObjectType> made from __VA_ARGS__. */
#define SDK_DECLARE_REGISTRY(RegistryName, ObjectType, ...) \
  SDK_DECLARE_TYPED_REGISTRY(RegistryName, std::string, ObjectType, std::unique_ptr, ##__VA_ARGS__)
#define SDK_DEFINE_REGISTRY(RegistryName, ObjectType, ...) \
  SDK_DEFINE_TYPED_REGISTRY(RegistryName, std::string, ObjectType, std::unique_ptr, ##__VA_ARGS__)
/*! \brief The same of std::shared_ptr<ObjectType>. */
#define SDK_DECLARE_SHARED_REGISTRY(RegistryName, ObjectType, ...) \
  SDK_DECLARE_TYPED_REGISTRY(RegistryName, std::string, ObjectType, std::shared_ptr, ##__VA_ARGS__)
#define SDK_DEFINE_SHARED_REGISTRY(RegistryName, ObjectType, ...) \
  SDK_DEFINE_TYPED_REGISTRY(RegistryName, std::string, ObjectType, std::shared_ptr, ##__VA_ARGS__)

/*! \brief The std::string-keyed forms: `key` is an identifier, registered as its spelling. */
#define SDK_REGISTER_CREATOR(RegistryName, key, ...) \
  SDK_REGISTER_TYPED_CREATOR(RegistryName, #key, __VA_ARGS__)
#define SDK_REGISTER_CREATOR_WITH_PRIORITY(RegistryName, key, priority, ...) \
  SDK_REGISTER_TYPED_CREATOR_WITH_PRIORITY(RegistryName, #key, priority, __VA_ARGS__)
#define SDK_REGISTER_CLASS(RegistryName, key, ...) \
  SDK_REGISTER_TYPED_CLASS(RegistryName, #key, __VA_ARGS__)
#define SDK_REGISTER_CLASS_WITH_PRIORITY(RegistryName, key, priority, ...) \
  SDK_REGISTER_TYPED_CLASS_WITH_PRIORITY(RegistryName, #key, priority, __VA_ARGS__)

#endif  // SDK_REGISTRY_H_
