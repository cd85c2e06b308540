// core/src/library.cpp: operators registered by libraries: the registry, registration scopes
// (sdk_library) and dispatch (sdk_op_call); their boxed values are values.cpp's, custom
// classes classes.cpp's (both over registry.h).
//
// An sdk_op is created the first time its name is defined or given a kernel and is never
// freed, so a handle stays valid; its definition and kernels come and go with the scopes
// that registered them. Kernels are shared_ptrs copied out under a shared lock, so a call
// never holds the lock while the kernel runs (kernels call other ops) and a scope closed
// during a call frees the kernel's context after the call.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "dtype.h"
#include "registry.h"

using sdk::detail::Value;

namespace sdk::detail {

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: libraries unload after exit
  return *r;
}

std::string where(const sdk_library* lib) {
  std::string kind = lib->kind == SDK_LIBRARY_DEF        ? "SDK_LIBRARY"
                     : lib->kind == SDK_LIBRARY_FRAGMENT ? "SDK_LIBRARY_FRAGMENT"
                                                         : "SDK_LIBRARY_IMPL";
  std::string s = kind + "(" + lib->ns;
  if (lib->kind == SDK_LIBRARY_IMPL && lib->key >= 0) s += std::string(", ") + key_name(lib->key);
  s += ")";
  if (!lib->source.empty()) s += " at " + lib->source;
  return s;
}

namespace {

sdk_op* get_or_create(Registry& r, const std::string& qualified, const std::string& ns) {
  auto it = r.ops.find(qualified);
  if (it != r.ops.end()) return it->second.get();
  auto op = std::make_unique<sdk_op>();
  op->qualified = qualified;
  op->ns = ns;
  sdk_op* p = op.get();
  r.ops.emplace(qualified, std::move(op));
  return p;
}

// "ns::name[.overload]" for `name` written in scope `lib` ("name", "name.ov" or qualified).
std::string qualify(const sdk_library* lib, const std::string& name) {
  if (name.find("::") != std::string::npos) {
    std::string ns = name.substr(0, name.find("::"));
    if (ns != lib->ns) {
      SDK_FAIL(SDK_ERROR_VALUE, where(lib), ": op '", name, "' is not in namespace '", lib->ns,
               "'");
    }
    return name;
  }
  return lib->ns + "::" + name;
}

}  // namespace

void check_identifier(const char* what, const std::string& s) {
  bool ok = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  SDK_VALUE_CHECK(ok, what, " '", s, "' is not an identifier");
}

std::shared_ptr<const Definition> make_definition(Schema schema, sdk_library* lib) {
  auto d = std::make_shared<Definition>();
  d->text = schema.str();
  d->owner = lib;
  d->source = lib->source;
  for (const Argument& a : schema.arguments) d->args.push_back({a.type.str(), a.alias.str()});
  for (const Argument& a : schema.returns) d->rets.push_back({a.type.str(), a.alias.str()});
  d->schema = std::move(schema);
  return d;
}

KernelContext own_context(void* context, void (*context_free)(void*)) {
  return KernelContext(context, context_free ? context_free : +[](void*) {});
}

std::shared_ptr<Kernel> make_kernel(sdk_boxed_kernel fn, KernelContext& owner,
                                    void (*context_free)(void*), sdk_library* lib) {
  auto rec = std::make_shared<Kernel>();
  rec->fn = fn;
  rec->context = owner.release();
  rec->context_free = context_free;
  rec->owner = lib;
  rec->source = where(lib);
  return rec;
}

namespace {

// The device key for the tensors among `values`: Meta when any is a meta tensor, else CUDA
// when any is on a GPU, else CPU.
int device_key(const std::vector<Value>& values) {
  int key = SDK_DISPATCH_CPU;
  auto see = [&key](const TensorImpl* t) {
    int32_t type = t ? t->device().type : SDK_CPU;
    if (type == SDK_META) key = SDK_DISPATCH_META;
    if (type == SDK_CUDA && key == SDK_DISPATCH_CPU) key = SDK_DISPATCH_CUDA;
  };
  for (const Value& v : values) for_each_tensor(v, see);  // Tensor[][] too
  return key;
}

std::string kernels_listing(const sdk_op& op) {
  std::string s;
  for (int k = 0; k < kNumKeys; ++k) {
    if (op.kernels[k]) s += (s.empty() ? "" : ", ") + std::string(key_name(k));
  }
  return s.empty() ? "none" : s;
}

struct Resolved {
  const Definition* def;           // never freed (Registry::definitions)
  std::shared_ptr<Kernel> kernel;  // kept alive for the call even if its scope closes
  int key;
};

// The definition and the kernel a call with `key` (-1: by device) runs, copied under the lock.
Resolved resolve(const sdk_op& op, int key, const std::vector<Value>* values) {
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  const Definition* def = op.def.get();
  if (!def) {
    SDK_FAIL(SDK_ERROR_RUNTIME, op.qualified,
             ": the op is not defined (its library was closed, "
             "or no SDK_LIBRARY defines it)");
  }
  if (key >= 0) {
    SDK_VALUE_CHECK(key < kNumKeys, op.qualified, ": unknown dispatch key ", key);
    if (!op.kernels[key]) {
      SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, op.qualified, ": no kernel for the ", key_name(key),
               " key (it has kernels for: ", kernels_listing(op), ")");
    }
    return {def, op.kernels[key], key};
  }
  int dev = device_key(*values);
  for (int k : {dev, int(SDK_DISPATCH_COMPOSITE_EXPLICIT_AUTOGRAD),
                int(SDK_DISPATCH_COMPOSITE_IMPLICIT_AUTOGRAD)}) {
    if (op.kernels[k]) return {def, op.kernels[k], k};
  }
  SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, op.qualified, ": no kernel for ", key_name(dev),
           " tensors (it has kernels for: ", kernels_listing(op), ")");
}

// A Tensor(a!) argument is written by the kernel, whatever the kernel is: read-only memory
// (a read-only numpy array, a file mapped read-only) is refused before the kernel runs.
void check_mutable_argument(const Schema& s, const Argument& a, const Value& v) {
  auto check = [&](const TensorImpl* t) {
    uint16_t owner = t ? t->storage->read_only.load(std::memory_order_acquire) : 0;
    if (owner == 0) return;
    SDK_FAIL(SDK_ERROR_RUNTIME, s.qualified(), "(): argument '", a.name,
             "' is written by the op (Tensor(", a.alias.before.empty() ? "a" : a.alias.before[0],
             "!)) but is read-only (it shares memory with ", read_only_owner_name(owner),
             "); clone() it first");
  };
  for_each_tensor(v, check);
}

void check_arguments(const Definition& d, sdk_values* values) {
  const Schema& s = d.schema;
  size_t want = s.arguments.size();
  if (values->items.size() != want) {
    SDK_FAIL(SDK_ERROR_TYPE, s.qualified(), "() takes ", want, " argument", want == 1 ? "" : "s",
             " (", d.text, "), got ", values->items.size());
  }
  for (size_t i = 0; i < want; ++i) {
    coerce_value(s, s.arguments[i], false, values->items[i]);
    if (s.arguments[i].alias.write) check_mutable_argument(s, s.arguments[i], values->items[i]);
  }
}

void check_results(const Definition& d, int key, sdk_values* values) {
  const Schema& s = d.schema;
  size_t want = s.returns.size();
  if (values->items.size() != want) {
    SDK_FAIL(SDK_ERROR_RUNTIME, s.qualified(), ": the ", key_name(key), " kernel returned ",
             values->items.size(), " value", values->items.size() == 1 ? "" : "s",
             ", but the schema (", d.text, ") has ", want);
  }
  for (size_t i = 0; i < want; ++i) coerce_value(s, s.returns[i], true, values->items[i]);
}

// Run the resolved kernel; a Meta kernel's allocations are meta tensors, whatever device
// they name (c_api.h, "Meta tensors").
sdk_status call_kernel(const Resolved& r, const sdk_op* op, sdk_values* values) {
  if (r.key != SDK_DISPATCH_META) return r.kernel->fn(r.kernel->context, op, values);
  MetaModeGuard meta(true);
  return r.kernel->fn(r.kernel->context, op, values);
}

sdk_status run(const sdk_op* op, int key, sdk_values* values) {
  check_not_null(op, "sdk_op_call", "op");
  check_not_null(values, "sdk_op_call", "values");
  Resolved r = resolve(*op, key, &values->items);
  check_arguments(*r.def, values);
  sdk_status st = call_kernel(r, op, values);
  if (st != SDK_OK) return st;
  check_results(*r.def, r.key, values);
  return SDK_OK;
}

}  // namespace

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

// ---- registration scopes -----------------------------------------------------------------

SDK_API sdk_status sdk_library_open(int32_t kind, const char* ns, int32_t key, const char* source,
                                    sdk_library** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(ns, "sdk_library_open", "ns");
  check_not_null(result, "sdk_library_open", "result");
  SDK_VALUE_CHECK(kind >= SDK_LIBRARY_DEF && kind <= SDK_LIBRARY_IMPL,
                  "sdk_library_open: unknown kind ", kind);
  SDK_VALUE_CHECK(key >= -1 && key < kNumKeys, "sdk_library_open: unknown dispatch key ", key);
  check_identifier("sdk_library_open: namespace", ns);
  auto lib = std::make_unique<sdk_library>();
  lib->kind = kind;
  lib->ns = ns;
  lib->key = key;
  lib->source = source ? source : "";
  if (kind == SDK_LIBRARY_DEF) {
    Registry& r = registry();
    std::unique_lock<std::shared_mutex> lock(r.mu);
    auto it = r.namespace_owner.find(lib->ns);
    if (it != r.namespace_owner.end()) {
      SDK_FAIL(SDK_ERROR_VALUE, where(lib.get()), ": namespace '", lib->ns,
               "' is already defined by ", where(it->second),
               "; only one SDK_LIBRARY may define a namespace (add ops to it with "
               "SDK_LIBRARY_FRAGMENT)");
    }
    r.namespace_owner[lib->ns] = lib.get();
  }
  *result = lib.release();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_library_define(sdk_library* lib, const char* schema) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(lib, "sdk_library_define", "lib");
  check_not_null(schema, "sdk_library_define", "schema");
  SDK_VALUE_CHECK(lib->kind != SDK_LIBRARY_IMPL, where(lib),
                  ": an SDK_LIBRARY_IMPL block cannot define ops (use SDK_LIBRARY or "
                  "SDK_LIBRARY_FRAGMENT): '",
                  schema, "'");
  Schema parsed;
  try {
    parsed = parse_schema(schema, lib->ns);
  } catch (const Error& e) {
    SDK_FAIL(e.kind, where(lib), ": ", e.what());
  }
  std::string qualified = parsed.qualified();
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mu);
  sdk_op* op = get_or_create(r, qualified, lib->ns);
  if (op->def) {
    SDK_FAIL(SDK_ERROR_VALUE, where(lib), ": op ", qualified, " is already defined",
             op->def->source.empty() ? "" : " at " + op->def->source, " as '", op->def->text, "'");
  }
  op->def = make_definition(std::move(parsed), lib);
  r.definitions.push_back(op->def);
  op->def_raw.store(op->def.get(), std::memory_order_release);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_library_impl(sdk_library* lib, const char* name, int32_t key,
                                    sdk_boxed_kernel kernel, void* context,
                                    void (*context_free)(void*)) {
  // the context is the registry's from here on: freed now if the registration fails
  KernelContext kernel_owner = own_context(context, context_free);
  SDK_SAFE_CALL_BEGIN;
  check_not_null(lib, "sdk_library_impl", "lib");
  check_not_null(name, "sdk_library_impl", "name");
  check_not_null(reinterpret_cast<const void*>(kernel), "sdk_library_impl", "kernel");
  // -1: the scope's key; in an SDK_LIBRARY(_FRAGMENT) scope, every device (torch's catch-all)
  int32_t k = key >= 0                        ? key
              : lib->key >= 0                 ? lib->key
              : lib->kind != SDK_LIBRARY_IMPL ? int32_t(SDK_DISPATCH_COMPOSITE_EXPLICIT_AUTOGRAD)
                                              : -1;
  SDK_VALUE_CHECK(k >= 0 && k < kNumKeys, where(lib), ": impl of '", name,
                  "' needs a dispatch key (this scope has none), got ", key);
  std::string qualified = qualify(lib, name);
  std::string base = qualified.substr(qualified.find("::") + 2);
  std::string op_name = base.substr(0, base.find('.'));
  check_identifier((where(lib) + ": op name").c_str(), op_name);
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mu);
  sdk_op* op = get_or_create(r, qualified, lib->ns);
  if (op->kernels[k]) {
    SDK_FAIL(SDK_ERROR_VALUE, where(lib), ": op ", qualified, " already has a ", key_name(k),
             " kernel", op->kernels[k]->source.empty() ? "" : " from " + op->kernels[k]->source);
  }
  op->kernels[k] = make_kernel(kernel, kernel_owner, context_free, lib);
  SDK_SAFE_CALL_END;
}

SDK_API void sdk_library_close(sdk_library* lib) {
  if (!lib) return;
  std::vector<std::shared_ptr<Kernel>> dropped;  // freed after the lock is released
  {
    Registry& r = registry();
    std::unique_lock<std::shared_mutex> lock(r.mu);
    for (auto& [name, op] : r.ops) {
      if (op->def && op->def->owner == lib) {
        op->def.reset();
        op->def_raw.store(nullptr, std::memory_order_release);
      }
      for (auto& k : op->kernels) {
        if (k && k->owner == lib) dropped.push_back(std::move(k));
      }
    }
    auto it = r.namespace_owner.find(lib->ns);
    if (it != r.namespace_owner.end() && it->second == lib) r.namespace_owner.erase(it);
    close_classes(r, lib, dropped);
  }
  dropped.clear();
  delete lib;
}

SDK_API void sdk_library_record_error(const char* message) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.errors_mu);
  r.errors.emplace_back(message ? message : "unknown registration error");
}

SDK_API const char* sdk_library_take_errors(void) {
  thread_local std::string out;
  out.clear();
  Registry& r = registry();
  std::vector<std::string> errors;
  {
    std::lock_guard<std::mutex> lock(r.errors_mu);
    errors.swap(r.errors);
  }
  {
    // kernels for ops that no scope defines (an SDK_LIBRARY_IMPL naming a missing op)
    std::unique_lock<std::shared_mutex> lock(r.mu);
    for (auto& [name, op] : r.ops) {
      if (op->def || op->dangling_reported) continue;
      for (const auto& k : op->kernels) {
        if (k) {
          errors.push_back(k->source + ": a kernel for " + name +
                           ", which is not defined (define it with m.def(\"" +
                           name.substr(name.find("::") + 2) + "(...) -> ...\") in SDK_LIBRARY(" +
                           op->ns + ", m))");
          op->dangling_reported = true;
          break;
        }
      }
    }
  }
  for (const std::string& e : errors) out += (out.empty() ? "" : "\n") + e;
  return out.c_str();
}

// ---- ops ---------------------------------------------------------------------------------

SDK_API sdk_status sdk_op_find(const char* name, const sdk_op** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(name, "sdk_op_find", "name");
  check_not_null(result, "sdk_op_find", "result");
  std::string n = name;
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  auto it = r.ops.find(n);
  if (it != r.ops.end() && it->second->def) {
    *result = it->second.get();
    return SDK_OK;
  }
  std::string ns = n.find("::") == std::string::npos ? "" : n.substr(0, n.find("::"));
  std::string known;
  for (const auto& [q, op] : r.ops) {
    if (op->def && op->ns == ns) known += (known.empty() ? "" : ", ") + q;
  }
  if (n.find("::") == std::string::npos) {
    SDK_FAIL(SDK_ERROR_VALUE, "sdk_op_find: '", n, "' is not a qualified op name (ns::name)");
  }
  SDK_FAIL(SDK_ERROR_VALUE, "no op named '", n, "'",
           known.empty() ? " (nothing is registered in namespace '" + ns + "')"
                         : " (namespace '" + ns + "' has: " + known + ")");
  SDK_SAFE_CALL_END;
}

SDK_API const char* sdk_op_list(const char* ns) {
  thread_local std::string out;
  out.clear();
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mu);
  for (const auto& [q, op] : r.ops) {
    if (op->def && (!ns || op->ns == ns)) out += (out.empty() ? "" : "\n") + q;
  }
  return out.c_str();
}

SDK_API const char* sdk_op_name(const sdk_op* op) { return op ? op->qualified.c_str() : ""; }

SDK_API const char* sdk_op_schema(const sdk_op* op) {
  const Definition* d = op ? op->def_raw.load(std::memory_order_acquire) : nullptr;
  return d ? d->text.c_str() : "";
}

SDK_API int32_t sdk_op_has_kernel(const sdk_op* op, int32_t key) {
  if (!op || key < 0 || key >= kNumKeys) return 0;
  std::shared_lock<std::shared_mutex> lock(registry().mu);
  return op->def && op->kernels[key] ? 1 : 0;
}

SDK_API int64_t sdk_op_num_arguments(const sdk_op* op, int32_t is_return) {
  const Definition* d = op ? op->def_raw.load(std::memory_order_acquire) : nullptr;
  if (!d) return 0;
  const Schema& s = d->schema;
  return static_cast<int64_t>(is_return ? s.returns.size() : s.arguments.size());
}

SDK_API sdk_status sdk_op_argument_info(const sdk_op* op, int32_t is_return, int64_t i,
                                        sdk_op_argument* info) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(op, "sdk_op_argument_info", "op");
  check_not_null(info, "sdk_op_argument_info", "info");
  // A caller built against ABI 1.3-1.8 passes the struct without list_levels and item_tag.
  const size_t before_1_9 = offsetof(sdk_op_argument, list_levels);
  SDK_VALUE_CHECK(info->size >= before_1_9,
                  "sdk_op_argument_info: info->size must be set to sizeof(sdk_op_argument)");
  std::shared_ptr<const Definition> def;
  {
    std::shared_lock<std::shared_mutex> lock(registry().mu);
    def = op->def;
  }
  SDK_REQUIRE(def, SDK_ERROR_RUNTIME, op->qualified, ": the op is not defined");
  const auto& list = is_return ? def->schema.returns : def->schema.arguments;
  const auto& texts = is_return ? def->rets : def->args;
  SDK_INDEX_CHECK(i >= 0 && i < static_cast<int64_t>(list.size()),
                  "sdk_op_argument_info: ", is_return ? "return " : "argument ", i,
                  " is out of range for ", op->qualified);
  const Argument& a = list[static_cast<size_t>(i)];
  // The strings belong to the definition; ops keep theirs while defined.
  info->name = a.name.c_str();
  info->type = texts[static_cast<size_t>(i)].type.c_str();
  info->tag = schema_value_tag(a.type);
  info->optional = a.type.optional ? 1 : 0;
  info->kwarg_only = a.kwarg_only ? 1 : 0;
  info->has_default = a.has_default ? 1 : 0;
  info->is_write = a.alias.write ? 1 : 0;
  info->list_size = static_cast<int32_t>(a.type.list_size);
  info->alias = a.alias.before.empty() ? "" : a.alias.before[0].c_str();
  info->default_text = a.default_text.c_str();
  if (info->size >= sizeof(sdk_op_argument)) {
    info->list_levels = schema_list_levels(a.type);
    info->item_tag = schema_item_tag(a.type);
  }
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_op_push_default(const sdk_op* op, int64_t i, sdk_values* values) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(op, "sdk_op_push_default", "op");
  check_not_null(values, "sdk_op_push_default", "values");
  std::shared_ptr<const Definition> def;
  {
    std::shared_lock<std::shared_mutex> lock(registry().mu);
    def = op->def;
  }
  SDK_REQUIRE(def, SDK_ERROR_RUNTIME, op->qualified, ": the op is not defined");
  const auto& args = def->schema.arguments;
  SDK_INDEX_CHECK(i >= 0 && i < static_cast<int64_t>(args.size()),
                  "sdk_op_push_default: "
                  "argument ",
                  i, " is out of range for ", op->qualified);
  const Argument& a = args[static_cast<size_t>(i)];
  SDK_VALUE_CHECK(a.has_default, op->qualified, "(): argument '", a.name, "' has no default");
  values->items.push_back(a.default_value);
  if (values->items.back().tag == SDK_VALUE_TENSOR_LIST) values->items.back().sync_handles();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_op_call(const sdk_op* op, sdk_values* values) {
  SDK_SAFE_CALL_BEGIN;
  return run(op, -1, values);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_op_call_key(const sdk_op* op, int32_t key, sdk_values* values) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(key >= 0 && key < kNumKeys, "sdk_op_call_key: unknown dispatch key ", key);
  return run(op, key, values);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_op_dispatch_key(const sdk_op* op, const sdk_values* values, int32_t* key) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(op, "sdk_op_dispatch_key", "op");
  check_not_null(values, "sdk_op_dispatch_key", "values");
  check_not_null(key, "sdk_op_dispatch_key", "key");
  *key = resolve(*op, -1, &values->items).key;
  SDK_SAFE_CALL_END;
}

}  // extern "C"
