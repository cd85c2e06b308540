// sdk/csrc/cuda.cpp: sdk.cuda's functions (devices, streams, allocator counters), device moves.
// Nothing here loads CUDA until a function is called; on a machine without it every query
// answers "not available".
#include <cstring>

#include "ops_util.h"

using namespace sdkpy;

namespace {

bool device_arg(PyObject* const* args, Py_ssize_t nargs, const char* op, int32_t* index) {
  int64_t v;
  if (!check_nargs(op, nargs, 1, 1) || !int_arg(args[0], op, "device", &v)) return false;
  if (v < -1 || v > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "%s(): device must be a CUDA ordinal or -1, got %lld", op,
                 static_cast<long long>(v));
    return false;
  }
  *index = static_cast<int32_t>(v);
  return true;
}

PyObject* none_or_raise(sdk_status st) {
  if (st != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

SDK_PY_FASTCALL(c_is_available) {
  if (!check_nargs("cuda_is_available", nargs, 0, 0)) return nullptr;
  return PyBool_FromLong(sdk_cuda_is_available());
}

SDK_PY_FASTCALL(c_unavailable_reason) {
  if (!check_nargs("cuda_unavailable_reason", nargs, 0, 0)) return nullptr;
  const char* why = sdk_cuda_unavailable_reason();
  return PyUnicode_DecodeUTF8(why ? why : "", why ? static_cast<Py_ssize_t>(strlen(why)) : 0,
                              "replace");
}

SDK_PY_FASTCALL(c_device_count) {
  if (!check_nargs("cuda_device_count", nargs, 0, 0)) return nullptr;
  return PyLong_FromLong(sdk_cuda_device_count());
}

SDK_PY_FASTCALL(c_current_device) {
  if (!check_nargs("cuda_current_device", nargs, 0, 0)) return nullptr;
  int32_t index = 0;
  if (sdk_cuda_current_device(&index) != SDK_OK) return raise_last_error();
  return PyLong_FromLong(index);
}

SDK_PY_FASTCALL(c_set_device) {
  int32_t index;
  if (!device_arg(args, nargs, "cuda_set_device", &index)) return nullptr;
  return none_or_raise(sdk_cuda_set_device(index));
}

SDK_PY_FASTCALL(c_synchronize) {
  int32_t index;
  if (!device_arg(args, nargs, "cuda_synchronize", &index)) return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = sdk_cuda_synchronize(index);
  Py_END_ALLOW_THREADS;
  return none_or_raise(st);
}

// cuda_get_stream(device) -> the stream's address (0: the default stream)
SDK_PY_FASTCALL(c_get_stream) {
  int32_t index;
  if (!device_arg(args, nargs, "cuda_get_stream", &index)) return nullptr;
  void* stream = nullptr;
  if (sdk_cuda_get_stream(index, &stream) != SDK_OK) return raise_last_error();
  return PyLong_FromVoidPtr(stream);
}

// cuda_set_stream(device, address)
SDK_PY_FASTCALL(c_set_stream) {
  const char* op = "cuda_set_stream";
  int32_t index;
  if (!check_nargs(op, nargs, 2, 2) || !device_arg(args, 1, op, &index)) return nullptr;
  void* stream = args[1] == Py_None ? nullptr : PyLong_AsVoidPtr(args[1]);
  if (PyErr_Occurred()) return nullptr;
  return none_or_raise(sdk_cuda_set_stream(index, stream));
}

SDK_PY_FASTCALL(c_empty_cache) {
  if (!check_nargs("cuda_empty_cache", nargs, 0, 0)) return nullptr;
  return none_or_raise(sdk_cuda_empty_cache());
}

// cuda_memory_stats(device) -> {counter: value}
SDK_PY_FASTCALL(c_memory_stats) {
  int32_t index;
  if (!device_arg(args, nargs, "cuda_memory_stats", &index)) return nullptr;
  sdk_cuda_allocator_stats s{};
  s.size = sizeof s;
  if (sdk_cuda_memory_stats(index, &s) != SDK_OK) return raise_last_error();
  return Py_BuildValue(
      "{sLsLsLsLsLsLsLsL}", "allocated_bytes", static_cast<long long>(s.allocated_bytes),
      "reserved_bytes", static_cast<long long>(s.reserved_bytes), "peak_allocated_bytes",
      static_cast<long long>(s.peak_allocated_bytes), "peak_reserved_bytes",
      static_cast<long long>(s.peak_reserved_bytes), "num_allocs",
      static_cast<long long>(s.num_allocs), "num_frees", static_cast<long long>(s.num_frees),
      "num_device_allocs", static_cast<long long>(s.num_device_allocs), "num_device_frees",
      static_cast<long long>(s.num_device_frees));
}

SDK_PY_FASTCALL(c_reset_peak_memory_stats) {
  int32_t index;
  if (!device_arg(args, nargs, "cuda_reset_peak_memory_stats", &index)) return nullptr;
  return none_or_raise(sdk_cuda_reset_peak_memory_stats(index));
}

// cuda_record_stream(tensor, stream address or None)
SDK_PY_FASTCALL(c_record_stream) {
  const char* op = "record_stream";
  sdk_tensor* t;
  if (!check_nargs(op, nargs, 2, 2) || !tensor_arg(args[0], op, "self", &t)) return nullptr;
  void* stream = args[1] == Py_None ? nullptr : PyLong_AsVoidPtr(args[1]);
  if (PyErr_Occurred()) return nullptr;
  return none_or_raise(sdk_cuda_record_stream(t, stream));
}

// cuda_matmul_allow_tf32(value or None) -> the setting before the call
SDK_PY_FASTCALL(c_matmul_allow_tf32) {
  if (!check_nargs("cuda_matmul_allow_tf32", nargs, 1, 1)) return nullptr;
  const bool before = sdk_cuda_matmul_allow_tf32() != 0;
  if (args[0] != Py_None) {
    int v = PyObject_IsTrue(args[0]);
    if (v < 0) return nullptr;
    sdk_cuda_set_matmul_allow_tf32(v);
  }
  return PyBool_FromLong(before);
}

// to_device(input, cuda_index) -> a copy of input on the CPU (cuda_index None) or on CUDA
// device cuda_index. No autograd: sdk.cuda records the move.
SDK_PY_FASTCALL(c_to_device) {
  const char* op = "to_device";
  sdk_tensor* t;
  if (!check_nargs(op, nargs, 2, 2) || !tensor_arg(args[0], op, "input", &t)) return nullptr;
  sdk_device target{SDK_CPU, 0};
  if (args[1] != Py_None) {
    int32_t index;
    if (!device_arg(args + 1, 1, op, &index)) return nullptr;
    target = sdk_device{SDK_CUDA, index < 0 ? 0 : index};
  }
  sdk_tensor* r = nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(t), st = sdk_to_device(t, target, &r));
  if (st != SDK_OK) return raise_last_error();
  return wrap(r);
}

}  // namespace

PyMethodDef sdkpy::cuda_methods[] = {
    SDK_PY_FASTCALL_METHOD("cuda_is_available", c_is_available, "cuda_is_available() -> bool"),
    SDK_PY_FASTCALL_METHOD("cuda_unavailable_reason", c_unavailable_reason,
                           "cuda_unavailable_reason() -> str"),
    SDK_PY_FASTCALL_METHOD("cuda_device_count", c_device_count, "cuda_device_count() -> int"),
    SDK_PY_FASTCALL_METHOD("cuda_current_device", c_current_device, "cuda_current_device() -> int"),
    SDK_PY_FASTCALL_METHOD("cuda_set_device", c_set_device, "cuda_set_device(device)"),
    SDK_PY_FASTCALL_METHOD("cuda_synchronize", c_synchronize,
                           "cuda_synchronize(device); -1: the current one"),
    SDK_PY_FASTCALL_METHOD("cuda_get_stream", c_get_stream,
                           "cuda_get_stream(device) -> stream address"),
    SDK_PY_FASTCALL_METHOD("cuda_set_stream", c_set_stream,
                           "cuda_set_stream(device, stream address)"),
    SDK_PY_FASTCALL_METHOD("cuda_empty_cache", c_empty_cache, "cuda_empty_cache()"),
    SDK_PY_FASTCALL_METHOD("cuda_memory_stats", c_memory_stats,
                           "cuda_memory_stats(device) -> dict"),
    SDK_PY_FASTCALL_METHOD("cuda_reset_peak_memory_stats", c_reset_peak_memory_stats,
                           "cuda_reset_peak_memory_stats(device)"),
    SDK_PY_FASTCALL_METHOD("cuda_record_stream", c_record_stream,
                           "cuda_record_stream(tensor, stream address)"),
    SDK_PY_FASTCALL_METHOD("cuda_matmul_allow_tf32", c_matmul_allow_tf32,
                           "cuda_matmul_allow_tf32(value or None) -> previous value"),
    SDK_PY_FASTCALL_METHOD("to_device", c_to_device,
                           "to_device(input, cuda_index or None) -> copy"),
    {nullptr, nullptr, 0, nullptr}};
