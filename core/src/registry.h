// core/src/registry.h: the registry of operators and custom classes that library.cpp and
// classes.cpp share: the structs behind the C ABI's sdk_op, sdk_class and sdk_library, and
// the registry itself (one per process, never destroyed).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "schema.h"
#include "sdk/dispatch_key.h"
#include "value.h"

namespace sdk::detail {

constexpr int kNumKeys = kNumDispatchKeys;  // sdk_dispatch_key values 0 .. kNumKeys - 1

inline const char* key_name(int key) { return dispatch_key_name(key); }

struct Kernel {
  sdk_boxed_kernel fn = nullptr;
  void* context = nullptr;
  void (*context_free)(void*) = nullptr;
  sdk_library* owner = nullptr;
  std::string source;
  ~Kernel() {
    if (context_free) context_free(context);
  }
};

// What sdk_op_argument_info hands out: strings that live as long as the definition.
struct ArgText {
  std::string type, alias;
};

struct Definition {
  Schema schema;
  std::string text;  // canonical
  sdk_library* owner = nullptr;
  std::string source;
  std::vector<ArgText> args, rets;
};

}  // namespace sdk::detail

struct sdk_op {
  std::string qualified;  // "ns::name" or "ns::name.overload"
  std::string ns;
  std::shared_ptr<const sdk::detail::Definition> def;  // null: not (or no longer) defined
  // def.get() for lock-free readers (schema text, argument info); definitions are never
  // freed (Registry::definitions keeps them), so a reader never sees a dangling one
  std::atomic<const sdk::detail::Definition*> def_raw{nullptr};
  std::shared_ptr<sdk::detail::Kernel> kernels[sdk::detail::kNumKeys];
  bool dangling_reported = false;
};

// A custom class (ABI 1.12): never freed, so objects and handles may keep pointing at it.
struct sdk_class {
  std::string ns;
  std::string name;  // "ns.Name"
  sdk_object_fn retain = nullptr;
  sdk_object_fn release = nullptr;
  sdk_library* owner = nullptr;
  std::atomic<bool> alive{true};
  // "method" -> its op ("ns.Name.method"), under the registry's lock
  std::map<std::string, std::unique_ptr<sdk_op>> methods;
};

struct sdk_library {
  int32_t kind = SDK_LIBRARY_DEF;
  std::string ns;
  int32_t key = -1;
  std::string source;
};

namespace sdk::detail {

struct Registry {
  std::shared_mutex mu;
  std::map<std::string, std::unique_ptr<sdk_op>> ops;   // by qualified name
  std::map<std::string, sdk_library*> namespace_owner;  // ns -> its DEF scope
  std::mutex errors_mu;
  std::vector<std::string> errors;
  std::vector<std::shared_ptr<const Definition>> definitions;  // every one ever made
  std::map<std::string, sdk_class*> classes;                   // "ns.Name" -> the live class
  std::vector<std::unique_ptr<sdk_class>> all_classes;         // every one ever registered
};

Registry& registry();
// "SDK_LIBRARY(ns) at file:line", naming a scope in messages.
std::string where(const sdk_library* lib);
// ValueError naming `what` unless `s` is an identifier.
void check_identifier(const char* what, const std::string& s);
// A definition owned by `lib`, kept in Registry::definitions by the caller.
std::shared_ptr<const Definition> make_definition(Schema schema, sdk_library* lib);
// The context a registration takes over: freed by its context_free if the registration fails.
using KernelContext = std::unique_ptr<void, void (*)(void*)>;
KernelContext own_context(void* context, void (*context_free)(void*));
// The kernel record of `lib`'s kernel `fn`, taking the context from `owner`.
std::shared_ptr<Kernel> make_kernel(sdk_boxed_kernel fn, KernelContext& owner,
                                    void (*context_free)(void*), sdk_library* lib);
// What closing `lib` does to custom classes (classes.cpp): those it registered die, methods
// it defined go away (their kernels move to `dropped`, freed after the lock is released).
// Called with the registry's lock held.
void close_classes(Registry& r, sdk_library* lib, std::vector<std::shared_ptr<Kernel>>& dropped);

}  // namespace sdk::detail
