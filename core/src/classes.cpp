// core/src/classes.cpp: custom classes (ABI 1.12; c_api.h "Custom classes"): their registry
// entries, their methods (ops kept in the class), and the references the core takes to their
// objects through the class's retain and release.
#include <memory>
#include <string>
#include <vector>

#include "registry.h"

namespace sdk::detail {

void close_classes(Registry& r, sdk_library* lib, std::vector<std::shared_ptr<Kernel>>& dropped) {
  for (auto& cls : r.all_classes) {
    if (cls->owner == lib && cls->alive.exchange(false)) {
      auto it = r.classes.find(cls->name);
      if (it != r.classes.end() && it->second == cls.get()) r.classes.erase(it);
    }
    for (auto& [name, op] : cls->methods) {
      if (op->def && op->def->owner == lib) {
        op->def.reset();
        op->def_raw.store(nullptr, std::memory_order_release);
      }
      for (auto& k : op->kernels) {
        if (k && k->owner == lib) dropped.push_back(std::move(k));
      }
    }
  }
}

namespace {

// "ns.Name" from "ns.Name" or "__torch__.torch.classes.ns.Name".
std::string class_key(const std::string& name) {
  const std::string prefix = "__torch__.torch.classes.";
  return name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
}

sdk_class* live_class(Registry& r, const std::string& name, const char* fn) {
  auto it = r.classes.find(class_key(name));
  if (it != r.classes.end()) return it->second;
  std::string key = class_key(name);
  std::string ns = key.substr(0, key.find('.'));
  std::string known;
  for (const auto& [q, cls] : r.classes) {
    if (cls->ns == ns) known += (known.empty() ? "" : ", ") + class_type_name(q);
  }
  SDK_FAIL(SDK_ERROR_VALUE, fn, ": no class named '", name, "'",
           known.empty() ? " (no class is registered in namespace '" + ns + "')"
                         : " (namespace '" + ns + "' has: " + known + ")");
}

}  // namespace

const std::string& class_name_of(const sdk_class* cls) {
  static const std::string kNone = "?";
  return cls ? cls->name : kNone;
}

void object_retain(const sdk_class* cls, void* object) {
  if (cls && object && cls->alive.load(std::memory_order_acquire)) cls->retain(object);
}

void object_release(const sdk_class* cls, void* object) {
  if (cls && object && cls->alive.load(std::memory_order_acquire)) cls->release(object);
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_library_class(sdk_library* lib, const char* name, sdk_object_fn retain,
                                     sdk_object_fn release, const sdk_class** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(lib, "sdk_library_class", "lib");
  check_not_null(name, "sdk_library_class", "name");
  check_not_null(reinterpret_cast<const void*>(retain), "sdk_library_class", "retain");
  check_not_null(reinterpret_cast<const void*>(release), "sdk_library_class", "release");
  check_not_null(result, "sdk_library_class", "result");
  SDK_VALUE_CHECK(lib->kind != SDK_LIBRARY_IMPL, where(lib),
                  ": an SDK_LIBRARY_IMPL block cannot register classes: '", name, "'");
  check_identifier((where(lib) + ": class name").c_str(), name);
  auto cls = std::make_unique<sdk_class>();
  cls->ns = lib->ns;
  cls->name = lib->ns + "." + name;
  cls->retain = retain;
  cls->release = release;
  cls->owner = lib;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mu);
  if (r.classes.count(cls->name)) {
    SDK_FAIL(SDK_ERROR_VALUE, where(lib), ": class ", class_type_name(cls->name),
             " is already registered");
  }
  *result = cls.get();
  r.classes[cls->name] = cls.get();
  r.all_classes.push_back(std::move(cls));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_library_method(sdk_library* lib, const char* class_name, const char* schema,
                                      sdk_boxed_kernel kernel, void* context,
                                      void (*context_free)(void*)) {
  KernelContext kernel_owner = own_context(context, context_free);
  SDK_SAFE_CALL_BEGIN;
  check_not_null(lib, "sdk_library_method", "lib");
  check_not_null(class_name, "sdk_library_method", "class_name");
  check_not_null(schema, "sdk_library_method", "schema");
  check_not_null(reinterpret_cast<const void*>(kernel), "sdk_library_method", "kernel");
  Schema parsed;
  try {
    parsed = parse_schema(schema, "");
  } catch (const Error& e) {
    SDK_FAIL(e.kind, where(lib), ": ", e.what());
  }
  SDK_VALUE_CHECK(parsed.name.find("::") == std::string::npos && parsed.overload.empty(),
                  where(lib),
                  ": a method's schema names the method alone (no namespace or "
                  "overload): '",
                  schema, "'");
  std::string method = parsed.name;
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mu);
  std::string key = class_key(class_name);
  if (key.find('.') == std::string::npos) key = lib->ns + "." + key;  // "Name"
  SDK_VALUE_CHECK(key.compare(0, lib->ns.size() + 1, lib->ns + ".") == 0, where(lib), ": class '",
                  class_name, "' is not in namespace '", lib->ns, "'");
  sdk_class* cls = live_class(r, key, "sdk_library_method");
  parsed.name = cls->name + "." + method;
  std::unique_ptr<sdk_op>& op = cls->methods[method];
  if (!op) {
    op = std::make_unique<sdk_op>();
    op->qualified = parsed.name;
    op->ns = lib->ns;
  }
  if (op->def) {
    SDK_FAIL(SDK_ERROR_VALUE, where(lib), ": method ", op->qualified, " is already defined as '",
             op->def->text, "'");
  }
  op->def = make_definition(std::move(parsed), lib);
  r.definitions.push_back(op->def);
  op->def_raw.store(op->def.get(), std::memory_order_release);
  op->kernels[SDK_DISPATCH_COMPOSITE_IMPLICIT_AUTOGRAD] =
      make_kernel(kernel, kernel_owner, context_free, lib);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_class_find(const char* name, const sdk_class** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(name, "sdk_class_find", "name");
  check_not_null(result, "sdk_class_find", "result");
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  *result = live_class(r, name, "sdk_class_find");
  SDK_SAFE_CALL_END;
}

SDK_API const char* sdk_class_name(const sdk_class* cls) { return cls ? cls->name.c_str() : ""; }

SDK_API int32_t sdk_class_is_alive(const sdk_class* cls) {
  return cls && cls->alive.load(std::memory_order_acquire) ? 1 : 0;
}

SDK_API sdk_status sdk_class_method(const sdk_class* cls, const char* name, const sdk_op** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(cls, "sdk_class_method", "cls");
  check_not_null(name, "sdk_class_method", "name");
  check_not_null(result, "sdk_class_method", "result");
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  SDK_REQUIRE(cls->alive.load(std::memory_order_acquire), SDK_ERROR_RUNTIME, "class ",
              class_type_name(cls->name), ": the library that registered it was closed");
  auto it = cls->methods.find(name);
  if (it != cls->methods.end() && it->second->def) {
    *result = it->second.get();
    return SDK_OK;
  }
  std::string known;
  for (const auto& [m, op] : cls->methods) {
    if (op->def) known += (known.empty() ? "" : ", ") + m;
  }
  SDK_FAIL(SDK_ERROR_VALUE, class_type_name(cls->name), " has no method '", name, "'",
           known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")");
  SDK_SAFE_CALL_END;
}

SDK_API const char* sdk_class_methods(const sdk_class* cls) {
  thread_local std::string out;
  out.clear();
  if (!cls) return out.c_str();
  std::shared_lock<std::shared_mutex> lock(registry().mu);
  for (const auto& [m, op] : cls->methods) {
    if (op->def) out += (out.empty() ? "" : "\n") + m;
  }
  return out.c_str();
}

SDK_API const char* sdk_class_list(const char* ns) {
  thread_local std::string out;
  out.clear();
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  for (const auto& [q, cls] : r.classes) {
    if (!ns || cls->ns == ns) out += (out.empty() ? "" : "\n") + q;
  }
  return out.c_str();
}

SDK_API sdk_status sdk_object_retain(const sdk_class* cls, void* object) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(cls, "sdk_object_retain", "cls");
  check_not_null(object, "sdk_object_retain", "object");
  SDK_REQUIRE(cls->alive.load(std::memory_order_acquire), SDK_ERROR_RUNTIME, "class ",
              class_type_name(cls->name), ": the library that registered it was closed");
  cls->retain(object);
  SDK_SAFE_CALL_END;
}

SDK_API void sdk_object_release(const sdk_class* cls, void* object) { object_release(cls, object); }

}  // extern "C"
