// sdk/csrc/dlpack_exchange.cpp: the DLPack C exchange API (see dlpack_exchange.h).
//
// Rationale: a torch kernel of an SDK op converts every tensor twice per call; through
// __dlpack__ and capsules that is four Python calls and two capsule objects per tensor,
// more than the op itself at small sizes. The exchange table converts in C.
#include "dlpack_exchange.h"

#include "common.h"

namespace sdkpy {

// The table's layout (DLPack 1.x): a version, a link to an older table, five functions.
struct ExchangeApi {
  sdk_dl_version version;
  const void* prev_api;
  int (*managed_tensor_allocator)(void*, void**, void*, void (*)(void*, const char*, const char*));
  int (*managed_tensor_from_py_object_no_sync)(void* py_object,
                                               sdk_dl_managed_tensor_versioned** out);
  int (*managed_tensor_to_py_object_no_sync)(sdk_dl_managed_tensor_versioned* tensor,
                                             void** out_py_object);
  int (*dltensor_from_py_object_no_sync)(void*, void*);
  int (*current_work_stream)(int32_t, int32_t, void**);
};

const ExchangeApi* exchange_api_of(PyObject* capsule) {
  auto* api = static_cast<const ExchangeApi*>(PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
  if (!api) return nullptr;
  if (api->version.major != SDK_DLPACK_MAJOR_VERSION ||
      !api->managed_tensor_from_py_object_no_sync || !api->managed_tensor_to_py_object_no_sync) {
    PyErr_Format(PyExc_TypeError,
                 "DLPack exchange API version %u.%u is not supported (this build reads %d.x)",
                 api->version.major, api->version.minor, SDK_DLPACK_MAJOR_VERSION);
    return nullptr;
  }
  return api;
}

bool exchange_owns(PyObject* capsule, PyObject* o) {
  static PyTypeObject* last_type = nullptr;  // the GIL guards it; types outlive calls
  static PyObject* last_capsule = nullptr;
  PyTypeObject* type = Py_TYPE(o);
  if (type == last_type && capsule == last_capsule) return true;
  PyObject* c =
      PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack_c_exchange_api__");
  if (!c) {
    PyErr_Clear();
    return false;
  }
  bool same = c == capsule ||
              (PyCapsule_CheckExact(c) && PyCapsule_GetPointer(c, "dlpack_exchange_api") ==
                                              PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
  Py_DECREF(c);
  PyErr_Clear();
  if (same) {
    last_type = type;
    last_capsule = capsule;
  }
  return same;
}

PyObject* exchange_in(const ExchangeApi* api, PyObject* o) {
  sdk_dl_managed_tensor_versioned* m = nullptr;
  if (api->managed_tensor_from_py_object_no_sync(o, &m) != 0 || !m) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack export failed");
    return nullptr;
  }
  sdk_tensor* h = nullptr;
  if (sdk_from_dlpack(m, &h) != SDK_OK) {
    if (m->deleter) m->deleter(m);  // still ours on failure
    return raise_last_error();
  }
  return wrap(h);
}

PyObject* exchange_out(const ExchangeApi* api, PyObject* t) {
  sdk_dl_managed_tensor_versioned* m = nullptr;
  if (sdk_to_dlpack(handle_of(t), &m) != SDK_OK) return raise_last_error();
  void* out = nullptr;
  if (api->managed_tensor_to_py_object_no_sync(m, &out) != 0 || !out) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack import failed");
    return nullptr;
  }
  return static_cast<PyObject*>(out);
}

}  // namespace sdkpy
