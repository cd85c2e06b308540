// sdk/csrc/cuda_devices.cpp: sdk.cuda's device queries, pooled streams and events, and the
// CUDA toolkit the sdk was built with (ABI 1.10). Streams and events travel as addresses.
#include <cstring>

#include "ops_util.h"

using namespace sdkpy;

namespace {

// A device ordinal argument; -1 means the current device.
bool index_arg(PyObject* arg, const char* op, int32_t* index) {
  int64_t v;
  if (!int_arg(arg, op, "device", &v)) return false;
  if (v < -1 || v > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "%s(): device must be a CUDA ordinal or -1, got %lld", op,
                 static_cast<long long>(v));
    return false;
  }
  *index = static_cast<int32_t>(v);
  return true;
}

// A stream or event address (None: the default stream).
bool address_arg(PyObject* arg, void** out) {
  *out = arg == Py_None ? nullptr : PyLong_AsVoidPtr(arg);
  return !PyErr_Occurred();
}

PyObject* none_or_raise(sdk_status st) {
  if (st != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

PyObject* str_or_none(const char* s) {
  if (!s || !*s) Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(strlen(s)), "replace");
}

SDK_PY_FASTCALL(c_build_version) {
  if (!check_nargs("cuda_build_version", nargs, 0, 0)) return nullptr;
  return str_or_none(sdk_cuda_build_version());
}

SDK_PY_FASTCALL(c_arch_list) {
  if (!check_nargs("cuda_arch_list", nargs, 0, 0)) return nullptr;
  const char* s = sdk_cuda_arch_list();
  return PyUnicode_FromString(s ? s : "");
}

SDK_PY_FASTCALL(c_device_properties) {
  int32_t index;
  if (!check_nargs("cuda_device_properties", nargs, 1, 1) ||
      !index_arg(args[0], "cuda_device_properties", &index)) {
    return nullptr;
  }
  sdk_cuda_device_properties p{};
  p.size = sizeof p;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;  // the first query starts the CUDA runtime
  st = sdk_cuda_get_device_properties(index, &p);
  Py_END_ALLOW_THREADS;
  if (st != SDK_OK) return raise_last_error();
  p.name[sizeof p.name - 1] = '\0';
  return Py_BuildValue(
      "{sssisisLsisisisisisOsOsisLsLsLsisisisisy#}", "name", p.name, "major", p.major, "minor",
      p.minor, "total_memory", static_cast<long long>(p.total_memory), "multi_processor_count",
      p.multi_processor_count, "max_threads_per_multi_processor", p.max_threads_per_multi_processor,
      "max_threads_per_block", p.max_threads_per_block, "warp_size", p.warp_size,
      "regs_per_multiprocessor", p.regs_per_multiprocessor, "is_integrated",
      p.is_integrated ? Py_True : Py_False, "is_multi_gpu_board",
      p.is_multi_gpu_board ? Py_True : Py_False, "L2_cache_size", p.l2_cache_size,
      "shared_memory_per_block", static_cast<long long>(p.shared_memory_per_block),
      "shared_memory_per_block_optin", static_cast<long long>(p.shared_memory_per_block_optin),
      "shared_memory_per_multiprocessor",
      static_cast<long long>(p.shared_memory_per_multiprocessor), "pci_bus_id", p.pci_bus_id,
      "pci_device_id", p.pci_device_id, "pci_domain_id", p.pci_domain_id, "memory_bus_width",
      p.memory_bus_width, "uuid", reinterpret_cast<const char*>(p.uuid),
      static_cast<Py_ssize_t>(sizeof p.uuid));
}

SDK_PY_FASTCALL(c_mem_get_info) {
  int32_t index;
  if (!check_nargs("cuda_mem_get_info", nargs, 1, 1) ||
      !index_arg(args[0], "cuda_mem_get_info", &index)) {
    return nullptr;
  }
  int64_t free_bytes = 0, total_bytes = 0;
  if (sdk_cuda_mem_get_info(index, &free_bytes, &total_bytes) != SDK_OK) {
    return raise_last_error();
  }
  return Py_BuildValue("(LL)", static_cast<long long>(free_bytes),
                       static_cast<long long>(total_bytes));
}

// cuda_stream_from_pool(device, priority) -> address
SDK_PY_FASTCALL(c_stream_from_pool) {
  const char* op = "cuda_stream_from_pool";
  int32_t index;
  int64_t priority;
  if (!check_nargs(op, nargs, 2, 2) || !index_arg(args[0], op, &index) ||
      !int_arg(args[1], op, "priority", &priority)) {
    return nullptr;
  }
  if (priority < INT32_MIN || priority > INT32_MAX) priority = priority < 0 ? -1 : 0;
  void* stream = nullptr;
  if (sdk_cuda_stream_from_pool(index, static_cast<int32_t>(priority), &stream) != SDK_OK) {
    return raise_last_error();
  }
  return PyLong_FromVoidPtr(stream);
}

// One address argument; `what` names the call in errors.
bool one_address(PyObject* const* args, Py_ssize_t nargs, const char* what, void** out) {
  return check_nargs(what, nargs, 1, 1) && address_arg(args[0], out);
}

SDK_PY_FASTCALL(c_stream_query) {
  void* s;
  if (!one_address(args, nargs, "cuda_stream_query", &s)) return nullptr;
  int32_t done = 0;
  if (sdk_cuda_stream_query(s, &done) != SDK_OK) return raise_last_error();
  return PyBool_FromLong(done);
}

SDK_PY_FASTCALL(c_stream_synchronize) {
  void* s;
  if (!one_address(args, nargs, "cuda_stream_synchronize", &s)) return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = sdk_cuda_stream_synchronize(s);
  Py_END_ALLOW_THREADS;
  return none_or_raise(st);
}

// cuda_event_create(device, flags) -> address
SDK_PY_FASTCALL(c_event_create) {
  const char* op = "cuda_event_create";
  int32_t index;
  int64_t flags;
  if (!check_nargs(op, nargs, 2, 2) || !index_arg(args[0], op, &index) ||
      !int_arg(args[1], op, "flags", &flags)) {
    return nullptr;
  }
  if (flags < 0 || flags > UINT32_MAX) {
    PyErr_Format(PyExc_ValueError, "%s(): bad flags %lld", op, static_cast<long long>(flags));
    return nullptr;
  }
  void* event = nullptr;
  if (sdk_cuda_event_create(index, static_cast<uint32_t>(flags), &event) != SDK_OK) {
    return raise_last_error();
  }
  return PyLong_FromVoidPtr(event);
}

SDK_PY_FASTCALL(c_event_destroy) {
  void* e;
  if (!one_address(args, nargs, "cuda_event_destroy", &e)) return nullptr;
  return none_or_raise(sdk_cuda_event_destroy(e));
}

// cuda_event_record(event, stream)
SDK_PY_FASTCALL(c_event_record) {
  void *e, *s;
  if (!check_nargs("cuda_event_record", nargs, 2, 2) || !address_arg(args[0], &e) ||
      !address_arg(args[1], &s)) {
    return nullptr;
  }
  return none_or_raise(sdk_cuda_event_record(e, s));
}

// cuda_stream_wait_event(stream, event)
SDK_PY_FASTCALL(c_stream_wait_event) {
  void *s, *e;
  if (!check_nargs("cuda_stream_wait_event", nargs, 2, 2) || !address_arg(args[0], &s) ||
      !address_arg(args[1], &e)) {
    return nullptr;
  }
  return none_or_raise(sdk_cuda_stream_wait_event(s, e));
}

SDK_PY_FASTCALL(c_event_query) {
  void* e;
  if (!one_address(args, nargs, "cuda_event_query", &e)) return nullptr;
  int32_t done = 0;
  if (sdk_cuda_event_query(e, &done) != SDK_OK) return raise_last_error();
  return PyBool_FromLong(done);
}

SDK_PY_FASTCALL(c_event_synchronize) {
  void* e;
  if (!one_address(args, nargs, "cuda_event_synchronize", &e)) return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = sdk_cuda_event_synchronize(e);
  Py_END_ALLOW_THREADS;
  return none_or_raise(st);
}

// cuda_event_elapsed_time(start, end) -> milliseconds
SDK_PY_FASTCALL(c_event_elapsed_time) {
  void *a, *b;
  if (!check_nargs("cuda_event_elapsed_time", nargs, 2, 2) || !address_arg(args[0], &a) ||
      !address_arg(args[1], &b)) {
    return nullptr;
  }
  float ms = 0;
  if (sdk_cuda_event_elapsed_time(a, b, &ms) != SDK_OK) return raise_last_error();
  return PyFloat_FromDouble(ms);
}

}  // namespace

PyMethodDef sdkpy::cuda_device_methods[] = {
    SDK_PY_FASTCALL_METHOD("cuda_build_version", c_build_version,
                           "cuda_build_version() -> '12.4' or None"),
    SDK_PY_FASTCALL_METHOD("cuda_arch_list", c_arch_list, "cuda_arch_list() -> 'sm_80 sm_90'"),
    SDK_PY_FASTCALL_METHOD("cuda_device_properties", c_device_properties,
                           "cuda_device_properties(device) -> dict"),
    SDK_PY_FASTCALL_METHOD("cuda_mem_get_info", c_mem_get_info,
                           "cuda_mem_get_info(device) -> (free, total)"),
    SDK_PY_FASTCALL_METHOD("cuda_stream_from_pool", c_stream_from_pool,
                           "cuda_stream_from_pool(device, priority) -> address"),
    SDK_PY_FASTCALL_METHOD("cuda_stream_query", c_stream_query, "cuda_stream_query(s) -> bool"),
    SDK_PY_FASTCALL_METHOD("cuda_stream_synchronize", c_stream_synchronize,
                           "cuda_stream_synchronize(s)"),
    SDK_PY_FASTCALL_METHOD("cuda_event_create", c_event_create,
                           "cuda_event_create(device, flags) -> address"),
    SDK_PY_FASTCALL_METHOD("cuda_event_destroy", c_event_destroy, "cuda_event_destroy(e)"),
    SDK_PY_FASTCALL_METHOD("cuda_event_record", c_event_record, "cuda_event_record(e, s)"),
    SDK_PY_FASTCALL_METHOD("cuda_stream_wait_event", c_stream_wait_event,
                           "cuda_stream_wait_event(s, e)"),
    SDK_PY_FASTCALL_METHOD("cuda_event_query", c_event_query, "cuda_event_query(e) -> bool"),
    SDK_PY_FASTCALL_METHOD("cuda_event_synchronize", c_event_synchronize,
                           "cuda_event_synchronize(e)"),
    SDK_PY_FASTCALL_METHOD("cuda_event_elapsed_time", c_event_elapsed_time,
                           "cuda_event_elapsed_time(start, end) -> ms"),
    {nullptr, nullptr, 0, nullptr}};
