// sdk/csrc/ops_storage.cpp: raw functions over the C ABI's storages (ABI 1.12): a tensor's
// whole storage as bytes, its identity, and set_. sdk/_storage.py builds torch's
// UntypedStorage, TypedStorage and Tensor.set_ on them.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// The handle of tensor `o` with its autograd state visible to the core (boundary_in), which
// refuses set_ on what autograd tracks; false with a TypeError naming `arg` for a non-tensor.
bool tracked_arg(PyObject* o, const char* arg, sdk_tensor** h) {
  if (!tensor_arg(o, "set_", arg, h)) return false;
  *h = boundary_in(o);
  return *h != nullptr;
}

// The storage of t, a new reference, or nullptr with the error raised.
sdk_storage* storage_of(sdk_tensor* t) {
  sdk_storage* s = nullptr;
  if (sdk_tensor_storage(t, &s) != SDK_OK) {
    raise_last_error();
    return nullptr;
  }
  return s;
}

// storage_bytes(t) -> a 1-d uint8 tensor over all of t's storage (offset 0): how Python holds
// a storage (its data, size, device and read-only mark are the storage's own).
SDK_PY_FASTCALL(o_storage_bytes) {
  sdk_tensor *t, *r = nullptr;
  if (!check_nargs("storage_bytes", nargs, 1, 1) ||
      !tensor_arg(args[0], "untyped_storage", "self", &t))
    return nullptr;
  sdk_storage* s = storage_of(t);
  if (!s) return nullptr;
  const int64_t empty_size = 0, nbytes = sdk_storage_nbytes(s);
  sdk_status st = sdk_empty(1, &empty_size, SDK_UINT8, sdk_tensor_device(t), &r);
  if (st == SDK_OK) st = sdk_tensor_set_storage_(r, s, 0, 1, &nbytes, nullptr);
  sdk_storage_release(s);
  if (st != SDK_OK) sdk_tensor_release(r);
  return finish(st, &r, nullptr);
}

// storage_id(t) -> int: the storage's address, the same for every tensor on it (torch's
// UntypedStorage._cdata).
SDK_PY_FASTCALL(o_storage_id) {
  sdk_tensor* t;
  if (!check_nargs("storage_id", nargs, 1, 1) || !tensor_arg(args[0], "storage_id", "self", &t))
    return nullptr;
  sdk_storage* s = storage_of(t);
  if (!s) return nullptr;
  PyObject* id = PyLong_FromVoidPtr(s);
  sdk_storage_release(s);
  return id;
}

// set_storage_(t, bytes, storage_offset, size, stride or None) -> t: t views the storage of
// `bytes` (a storage_bytes tensor).
SDK_PY_FASTCALL(o_set_storage_) {
  const char* op = "set_";
  sdk_tensor *t, *bytes;
  int64_t offset;
  std::vector<int64_t> sizes, strides;
  const bool dense = nargs == 5 && args[4] == Py_None;
  if (!check_nargs(op, nargs, 5, 5) || !tracked_arg(args[0], "self", &t) ||
      !tensor_arg(args[1], op, "source", &bytes) ||
      !int_arg(args[2], op, "storage_offset", &offset) ||
      !ints_arg(args[3], op, "size", &sizes, true, false) ||
      (!dense && !ints_arg(args[4], op, "stride", &strides, true, false)))
    return nullptr;
  if (!dense && strides.size() != sizes.size()) {
    PyErr_Format(PyExc_RuntimeError, "set_(): %zd sizes but %zd strides",
                 static_cast<Py_ssize_t>(sizes.size()), static_cast<Py_ssize_t>(strides.size()));
    return nullptr;
  }
  sdk_storage* s = storage_of(bytes);
  if (!s) return nullptr;
  sdk_status st = sdk_tensor_set_storage_(t, s, offset, static_cast<int64_t>(sizes.size()),
                                          sizes.data(), dense ? nullptr : strides.data());
  sdk_storage_release(s);
  if (st != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

// set_tensor_(t, source) -> t: t takes source's storage and geometry.
SDK_PY_FASTCALL(o_set_tensor_) {
  sdk_tensor *t, *source;
  if (!check_nargs("set_", nargs, 2, 2) || !tracked_arg(args[0], "self", &t) ||
      !tracked_arg(args[1], "source", &source))
    return nullptr;
  if (sdk_tensor_set_tensor_(t, source) != SDK_OK) return raise_last_error();
  Py_INCREF(args[0]);
  return args[0];
}

}  // namespace

PyMethodDef sdkpy::ops_storage_methods[] = {
    SDK_PY_FASTCALL_METHOD("storage_bytes", o_storage_bytes,
                           "storage_bytes(t): t's whole storage as a 1-d uint8 tensor"),
    SDK_PY_FASTCALL_METHOD("storage_id", o_storage_id, "storage_id(t): the address of t's storage"),
    SDK_PY_FASTCALL_METHOD("set_storage_", o_set_storage_,
                           "set_storage_(t, bytes, storage_offset, size, stride or None) -> t"),
    SDK_PY_FASTCALL_METHOD("set_tensor_", o_set_tensor_, "set_tensor_(t, source) -> t"),
    {nullptr, nullptr, 0, nullptr}};
