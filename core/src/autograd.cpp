// Autograd entry points of the C ABI: grad mode, and the per-tensor calls that forward to
// the engine sdk._C registers (the graph itself lives in Python; see c_api.h).
#include <atomic>

#include "tensor_impl.h"

namespace sdk::detail {

namespace {
thread_local bool t_grad_mode = true;
std::atomic<const sdk_autograd_engine*> g_engine{nullptr};

// The engine, if one is installed and was compiled with `field` (entries are only appended).
template <typename F>
F entry(F sdk_autograd_engine::* field, size_t end) {
  const sdk_autograd_engine* e = g_engine.load(std::memory_order_acquire);
  return e && e->size >= end ? e->*field : nullptr;
}
#define SDK_ENGINE_ENTRY(name) \
  entry(&sdk_autograd_engine::name, offsetof(sdk_autograd_engine, name) + sizeof(void*))

sdk_status no_engine(const char* what) {
  return set_error(SDK_ERROR_RUNTIME,
                   str(what,
                       ": autograd is provided by the sdk Python package; import sdk "
                       "before using it from compiled code"));
}
}  // namespace

void release_autograd_slot(void* slot) {
  if (auto fn = SDK_ENGINE_ENTRY(release_slot)) fn(slot);
}

}  // namespace sdk::detail

using namespace sdk::detail;

SDK_API int32_t sdk_grad_mode_is_enabled(void) { return t_grad_mode ? 1 : 0; }

SDK_API int32_t sdk_grad_mode_set_enabled(int32_t enabled) {
  bool prev = t_grad_mode;
  t_grad_mode = enabled != 0;
  return prev ? 1 : 0;
}

SDK_API int32_t sdk_tensor_requires_grad(const sdk_tensor* t) {
  if (!t || !to_impl(t)->autograd_slot.load(std::memory_order_acquire)) return 0;
  auto fn = SDK_ENGINE_ENTRY(requires_grad);
  return fn ? fn(t) : 0;
}

SDK_API sdk_status sdk_tensor_set_requires_grad(sdk_tensor* t, int32_t requires_grad) {
  if (!t) return set_error(SDK_ERROR_VALUE, "set_requires_grad: NULL tensor");
  auto fn = SDK_ENGINE_ENTRY(set_requires_grad);
  if (!fn) return requires_grad ? no_engine("set_requires_grad") : SDK_OK;
  return fn(t, requires_grad);
}

SDK_API sdk_status sdk_tensor_grad(const sdk_tensor* t, sdk_tensor** result) {
  if (!t || !result) return set_error(SDK_ERROR_VALUE, "grad: NULL argument");
  *result = nullptr;
  if (!to_impl(t)->autograd_slot.load(std::memory_order_acquire)) return SDK_OK;
  auto fn = SDK_ENGINE_ENTRY(grad);
  return fn ? fn(t, result) : SDK_OK;
}

SDK_API int32_t sdk_tensor_is_leaf(const sdk_tensor* t) {
  if (!t || !to_impl(t)->autograd_slot.load(std::memory_order_acquire)) return 1;
  auto fn = SDK_ENGINE_ENTRY(is_leaf);
  return fn ? fn(t) : 1;
}

SDK_API sdk_status sdk_autograd_record(const char* name, sdk_tensor* const* inputs,
                                       int64_t n_inputs, sdk_tensor* const* outputs,
                                       int64_t n_outputs, int32_t flags, sdk_backward_fn backward,
                                       void* context, void (*context_free)(void*)) {
  auto fn = SDK_ENGINE_ENTRY(record);
  sdk_status st;
  if (!name || !backward || n_inputs < 0 || n_outputs < 0 || (n_inputs && !inputs) ||
      (n_outputs && !outputs)) {
    st = set_error(SDK_ERROR_VALUE, "sdk_autograd_record: NULL or negative argument");
  } else if (!fn) {
    st = no_engine(name);
  } else {
    return fn(name, inputs, n_inputs, outputs, n_outputs, flags, backward, context, context_free);
  }
  if (context_free) context_free(context);
  return st;
}

SDK_API sdk_status sdk_tensor_backward(sdk_tensor* t, const sdk_tensor* gradient, int32_t flags) {
  if (!t) return set_error(SDK_ERROR_VALUE, "backward: NULL tensor");
  if ((flags & ~(SDK_BACKWARD_RETAIN_GRAPH | SDK_BACKWARD_CREATE_GRAPH)) != 0) {
    return set_error(SDK_ERROR_VALUE, str("backward: unknown flags ", flags));
  }
  auto fn = SDK_ENGINE_ENTRY(backward);
  if (!fn) return no_engine("backward");
  return fn(t, gradient, flags);
}

SDK_API sdk_status sdk_autograd_set_engine(const sdk_autograd_engine* engine) {
  if (engine && engine->size < offsetof(sdk_autograd_engine, release_slot) + sizeof(void*)) {
    return set_error(SDK_ERROR_VALUE, "sdk_autograd_set_engine: engine struct too small");
  }
  g_engine.store(engine, std::memory_order_release);
  return SDK_OK;
}

SDK_API void* sdk_tensor_autograd_slot(const sdk_tensor* t) {
  return t ? to_impl(t)->autograd_slot.load(std::memory_order_acquire) : nullptr;
}

SDK_API void* sdk_tensor_set_autograd_slot(sdk_tensor* t, void* slot) {
  return t ? to_impl(t)->autograd_slot.exchange(slot, std::memory_order_acq_rel) : nullptr;
}
