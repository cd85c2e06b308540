// sdk/csrc/interop.cpp: numpy and DLPack exchange, tensors from nested data, FFI handles.
// Zero-copy imports (the array interface, DLPack capsules) are the capsule table's to_handle.
#include <cstring>

#include "args.h"
#include "common.h"

using namespace sdkpy;

namespace {

// Storage deleter of memory borrowed from a Python object: drops the reference, from any
// thread, and does nothing once the interpreter is gone (the process is exiting anyway).
void py_decref_deleter(void*, void* ctx) {
  if (!ctx || !Py_IsInitialized()) return;
  if (interpreter_finalizing() && !PyGILState_Check()) return;
  PyGILState_STATE s = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(ctx));
  PyGILState_Release(s);
}

// ---- numpy array interface -> handle -------------------------------------------------------

bool dtype_from_typestr(const char* ts, sdk_dtype* dt) {
  if (!ts || std::strlen(ts) < 3) return false;
  char order = ts[0], kind = ts[1];
  int size = std::atoi(ts + 2);
  bool little = order == '<' || order == '|' || (order == '=' && PY_LITTLE_ENDIAN);
  if (!little && size != 1) return false;
  if (kind == 'b' && size == 1)
    *dt = SDK_BOOL;
  else if (kind == 'u' && size == 1)
    *dt = SDK_UINT8;
  else if (kind == 'i' && size == 1)
    *dt = SDK_INT8;
  else if (kind == 'i' && size == 2)
    *dt = SDK_INT16;
  else if (kind == 'i' && size == 4)
    *dt = SDK_INT32;
  else if (kind == 'i' && size == 8)
    *dt = SDK_INT64;
  else if (kind == 'f' && size == 2)
    *dt = SDK_FLOAT16;
  else if (kind == 'f' && size == 4)
    *dt = SDK_FLOAT32;
  else if (kind == 'f' && size == 8)
    *dt = SDK_FLOAT64;
  else if (kind == 'c' && size == 8)
    *dt = SDK_COMPLEX64;
  else if (kind == 'c' && size == 16)
    *dt = SDK_COMPLEX128;
  else
    return false;
  return true;
}

bool ints_of(PyObject* tup, std::vector<int64_t>* v, const char* what) {
  if (!PyTuple_Check(tup)) {
    PyErr_Format(PyExc_TypeError, "__array_interface__['%s'] must be a tuple", what);
    return false;
  }
  v->resize(PyTuple_GET_SIZE(tup));
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tup); ++i) {
    (*v)[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tup, i));
    if ((*v)[i] == -1 && PyErr_Occurred()) return false;
  }
  return true;
}

// Make the new tensor `t`, over the memory of read-only `owner`, read-only; names the owner
// for the error a write raises ("a read-only numpy array"). 0, or -1 with an exception set.
int mark_read_only(sdk_tensor* t, PyObject* owner) {
  const char* type = Py_TYPE(owner)->tp_name;
  bool numpy = std::strncmp(type, "numpy.", 6) == 0;
  OwnedRef what(numpy ? PyUnicode_FromString("a read-only numpy array")
                      : PyUnicode_FromFormat("a read-only %s", type));
  const char* text = what.p ? PyUnicode_AsUTF8(what.p) : nullptr;
  if (!text) return -1;
  if (sdk_tensor_set_read_only(t, text) != SDK_OK) return raise_last_error(), -1;
  return 0;
}

// The byte strides of an __array_interface__ in elements of `isz` bytes, one per dim of the
// shape; false (ValueError: negative, not a multiple of the element size) otherwise.
bool element_strides(PyObject* strides, size_t ndim, int64_t isz, std::vector<int64_t>* st) {
  if (!ints_of(strides, st, "strides")) return false;
  if (st->size() != ndim) {
    PyErr_SetString(module_state.invalid_argument_error,
                    "__array_interface__: strides and shape differ in length");
    return false;
  }
  for (int64_t& s : *st) {
    if (s < 0) {
      PyErr_SetString(module_state.invalid_argument_error,
                      "At least one stride in the given numpy array is negative, and tensors "
                      "with negative strides are not currently supported. (You can probably "
                      "work around this by making a copy of your array with array.copy().)");
      return false;
    }
    if (s % isz) {
      PyErr_SetString(module_state.invalid_argument_error,
                      "given numpy array strides not a multiple of the element byte size. "
                      "Copy the numpy array to reallocate the memory.");
      return false;
    }
    s /= isz;
  }
  return true;
}

// Import any object exposing __array_interface__ (v3, pointer data) without copying.
int import_array_interface(PyObject* obj, sdk_tensor** out) {
  OwnedRef iface(PyObject_GetAttrString(obj, "__array_interface__"));
  if (!iface.p) return -1;
  if (!PyDict_Check(iface.p)) {
    PyErr_SetString(PyExc_TypeError, "__array_interface__ must be a dict");
    return -1;
  }
  PyObject* shape = PyDict_GetItemString(iface.p, "shape");
  PyObject* typestr = PyDict_GetItemString(iface.p, "typestr");
  PyObject* data = PyDict_GetItemString(iface.p, "data");
  PyObject* strides = PyDict_GetItemString(iface.p, "strides");
  if (!shape || !typestr || !data || !PyUnicode_Check(typestr)) {
    PyErr_SetString(PyExc_TypeError, "__array_interface__ lacks shape, typestr or data");
    return -1;
  }
  sdk_dtype dt;
  const char* ts = PyUnicode_AsUTF8(typestr);
  if (!dtype_from_typestr(ts, &dt)) {
    PyErr_Format(PyExc_TypeError,
                 "can't convert an array of type '%s': the only supported types are bool, "
                 "uint8, int8, int16, int32, int64, float16, float32 and float64 (little-endian)",
                 ts ? ts : "?");
    return -1;
  }
  if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1) {
    PyErr_SetString(PyExc_TypeError,
                    "__array_interface__['data'] must be a (pointer, read_only) tuple");
    return -1;
  }
  void* ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  if (!ptr && PyErr_Occurred()) return -1;
  // (pointer, read_only): a missing flag counts as read-only, the safe reading.
  int read_only = PyTuple_GET_SIZE(data) < 2 ? 1 : PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
  if (read_only < 0) return -1;
  std::vector<int64_t> sz, st;
  if (!ints_of(shape, &sz, "shape")) return -1;
  bool has_strides = strides && strides != Py_None;
  if (has_strides && !element_strides(strides, sz.size(), sdk_dtype_itemsize(dt), &st)) return -1;
  for (int64_t s : sz)
    if (s < 0) {
      PyErr_SetString(module_state.invalid_argument_error,
                      "__array_interface__: negative size in shape");
      return -1;
    }
  Py_INCREF(obj);
  sdk_status status = sdk_from_blob(ptr, static_cast<int64_t>(sz.size()), sz.data(),
                                    has_strides ? st.data() : nullptr, dt, sdk_device{SDK_CPU, 0},
                                    py_decref_deleter, obj, out);
  if (status != SDK_OK) {
    Py_DECREF(obj);  // the deleter is not called on failure
    raise_last_error();
    return -1;
  }
  if (read_only && mark_read_only(*out, obj) < 0) {
    sdk_tensor_release(*out);
    return -1;
  }
  return 0;
}

// ---- DLPack -------------------------------------------------------------------------------

const char kVersioned[] = "dltensor_versioned";
const char kLegacy[] = "dltensor";
const char kUsedVersioned[] = "used_dltensor_versioned";
const char kUsedLegacy[] = "used_dltensor";

// A pre-1.0 managed tensor that forwards to the versioned one the core made.
struct LegacyExport {
  sdk_dl_managed_tensor legacy;
  sdk_dl_managed_tensor_versioned* inner;
};

void legacy_deleter(sdk_dl_managed_tensor* self) {
  LegacyExport* w = static_cast<LegacyExport*>(self->manager_ctx);
  if (w->inner && w->inner->deleter) w->inner->deleter(w->inner);
  delete w;
}

// Unconsumed capsules free their tensor; consumers rename them to used_* first.
void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, kVersioned)) {
    auto* m = static_cast<sdk_dl_managed_tensor_versioned*>(PyCapsule_GetPointer(cap, kVersioned));
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(cap, kLegacy)) {
    auto* m = static_cast<sdk_dl_managed_tensor*>(PyCapsule_GetPointer(cap, kLegacy));
    if (m && m->deleter) m->deleter(m);
  }
}

// to_dlpack(t, versioned) -> capsule
SDK_PY_FASTCALL(o_to_dlpack) {
  sdk_tensor* t;
  int32_t versioned;
  if (!check_nargs("to_dlpack", nargs, 2, 2) || !tensor_arg(args[0], "__dlpack__", "self", &t) ||
      !bool_arg(args[1], "__dlpack__", "versioned", &versioned))
    return nullptr;
  if (!versioned && sdk_tensor_is_read_only(t)) {
    // A pre-1.0 consumer has no READ_ONLY flag to read and would take the memory as writable.
    PyErr_SetString(
        PyExc_BufferError,
        "__dlpack__: the tensor is read-only, which a pre-1.0 DLPack consumer cannot "
        "be told (it would write to it): pass max_version=(1, 0) or later, or copy=True");
    return nullptr;
  }
  sdk_dl_managed_tensor_versioned* m = nullptr;
  if (sdk_to_dlpack(t, &m) != SDK_OK) return raise_last_error();
  if (versioned) {
    PyObject* cap = PyCapsule_New(m, kVersioned, capsule_destructor);
    if (!cap && m->deleter) m->deleter(m);
    return cap;
  }
  LegacyExport* w = new (std::nothrow) LegacyExport;
  if (!w) {
    if (m->deleter) m->deleter(m);
    return PyErr_NoMemory();
  }
  w->legacy.dl_tensor = m->dl_tensor;
  w->legacy.manager_ctx = w;
  w->legacy.deleter = legacy_deleter;
  w->inner = m;
  PyObject* cap = PyCapsule_New(&w->legacy, kLegacy, capsule_destructor);
  if (!cap) legacy_deleter(&w->legacy);
  return cap;
}

int import_capsule(PyObject* cap, sdk_tensor** out) {
  if (PyCapsule_IsValid(cap, kVersioned)) {
    auto* m = static_cast<sdk_dl_managed_tensor_versioned*>(PyCapsule_GetPointer(cap, kVersioned));
    if (sdk_from_dlpack(m, out) != SDK_OK) {
      raise_last_error();
      return -1;
    }
    PyCapsule_SetName(cap, kUsedVersioned);
    return 0;
  }
  if (PyCapsule_IsValid(cap, kLegacy)) {
    auto* m = static_cast<sdk_dl_managed_tensor*>(PyCapsule_GetPointer(cap, kLegacy));
    if (sdk_from_dlpack_unversioned(m, out) != SDK_OK) {
      raise_last_error();
      return -1;
    }
    PyCapsule_SetName(cap, kUsedLegacy);
    return 0;
  }
  if (PyCapsule_CheckExact(cap)) {
    const char* name = PyCapsule_GetName(cap);
    PyErr_Format(module_state.invalid_argument_error,
                 "from_dlpack: expected a capsule named 'dltensor' or 'dltensor_versioned' "
                 "(a capsule can be consumed only once), got '%s'",
                 name ? name : "(null)");
  } else {
    PyErr_Format(PyExc_TypeError, "from_dlpack: expected a DLPack capsule, got %s",
                 Py_TYPE(cap)->tp_name);
  }
  return -1;
}

// Ask a producer for a capsule, preferring a versioned one.
PyObject* dlpack_capsule_of(PyObject* obj) {
  OwnedRef meth(PyObject_GetAttrString(obj, "__dlpack__"));
  if (!meth.p) return nullptr;
  OwnedRef kw(
      Py_BuildValue("{s:(ii)}", "max_version", SDK_DLPACK_MAJOR_VERSION, SDK_DLPACK_MINOR_VERSION));
  OwnedRef empty(PyTuple_New(0));
  if (!kw.p || !empty.p) return nullptr;
  PyObject* cap = PyObject_Call(meth.p, empty.p, kw.p);
  if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();  // an older producer without max_version
    cap = PyObject_CallNoArgs(meth.p);
  }
  return cap;
}

// from_dlpack_capsule(capsule) -> tensor
PyObject* o_from_dlpack_capsule(PyObject*, PyObject* cap) {
  sdk_tensor* h = nullptr;
  if (import_capsule(cap, &h) < 0) return nullptr;
  return wrap(h);
}

// _set_read_only(t, owner) -> None: make t's memory (every view of it) read-only for good.
SDK_PY_FASTCALL(o_set_read_only) {
  sdk_tensor* t;
  if (!check_nargs("_set_read_only", nargs, 2, 2) ||
      !tensor_arg(args[0], "_set_read_only", "t", &t))
    return nullptr;
  const char* owner = PyUnicode_Check(args[1]) ? PyUnicode_AsUTF8(args[1]) : nullptr;
  if (!owner) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_TypeError, "_set_read_only(): owner must be a str");
    return nullptr;
  }
  if (sdk_tensor_set_read_only(t, owner) != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

// from_array_interface(obj) -> tensor sharing obj's memory
PyObject* o_from_array_interface(PyObject*, PyObject* obj) {
  sdk_tensor* h = nullptr;
  if (import_array_interface(obj, &h) < 0) return nullptr;
  return wrap(h);
}

// ---- nested Python data -> tensor -----------------------------------------------------------

struct DataFill {
  std::vector<int64_t> shape;
  std::vector<double> f;
  std::vector<int64_t> i;
  int kind = -1;  // max scalar kind seen: 0 bool, 1 int, 2 float
};

bool is_seq(PyObject* o) {
  return (PyList_Check(o) || PyTuple_Check(o) ||
          (PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && !is_tensor(o) &&
           PyObject_HasAttrString(o, "__len__")));
}

bool infer_shape(PyObject* o, DataFill* d, int depth) {
  if (depth > 64) {
    PyErr_SetString(module_state.invalid_argument_error, "tensor(): data is nested too deeply");
    return false;
  }
  if (is_tensor(o)) {
    sdk_tensor* h = handle_of(o);
    for (int64_t k = 0; h && k < sdk_tensor_ndim(h); ++k)
      d->shape.push_back(sdk_tensor_sizes(h)[k]);
    return true;
  }
  if (!is_seq(o)) return true;
  Py_ssize_t n = PySequence_Size(o);
  if (n < 0) return false;
  d->shape.push_back(n);
  if (n == 0) return true;
  OwnedRef first(PySequence_GetItem(o, 0));
  return first.p && infer_shape(first.p, d, depth + 1);
}

bool fill(PyObject* o, DataFill* d, size_t dim) {
  if (dim == d->shape.size()) {
    if (is_tensor(o)) {
      if (!handle_of(o) || sdk_tensor_numel(handle_of(o)) != 1) {
        PyErr_SetString(module_state.invalid_argument_error,
                        "tensor(): only one-element tensors can be nested");
        return false;
      }
      HostTensor host(handle_of(o));
      if (!host.handle) return raise_last_error() != nullptr;
      OwnedRef v(read_element(sdk_tensor_data_ptr(host.handle), sdk_tensor_dtype(host.handle)));
      return v.p && fill(v.p, d, dim);
    }
    sdk_scalar s;
    int k = scalar_value(o, &s);
    if (k < 0) return false;
    if (k == 0) {
      PyErr_Format(PyExc_TypeError, "tensor(): could not convert an element of type %s",
                   Py_TYPE(o)->tp_name);
      return false;
    }
    if (s.kind > d->kind) d->kind = s.kind;
    d->f.push_back(s.kind == SDK_SCALAR_FLOAT ? s.f : static_cast<double>(s.i));
    d->i.push_back(s.kind == SDK_SCALAR_FLOAT ? 0 : s.i);
    return true;
  }
  if (is_tensor(o)) {
    // A nested tensor: flatten it through tolist() (rare path).
    OwnedRef lst(PyObject_CallMethod(o, "tolist", nullptr));
    return lst.p && fill(lst.p, d, dim);
  }
  if (!is_seq(o)) {
    PyErr_Format(module_state.invalid_argument_error,
                 "tensor(): expected a sequence at dim %zd, got %s", dim, Py_TYPE(o)->tp_name);
    return false;
  }
  OwnedRef seq(sequence_snapshot(o, "tensor(): expected a sequence"));
  if (!seq.p) return false;
  Py_ssize_t n = PyTuple_GET_SIZE(seq.p);
  if (n != d->shape[dim]) {
    PyErr_Format(module_state.invalid_argument_error,
                 "expected sequence of length %lld at dim %zd (got %zd)",
                 static_cast<long long>(d->shape[dim]), dim, n);
    return false;
  }
  for (Py_ssize_t j = 0; j < n; ++j)
    if (!fill(PyTuple_GET_ITEM(seq.p, j), d, dim + 1)) return false;
  return true;
}

// tensor_from_data(data, dtype or None, default_float_dtype) -> new contiguous tensor
SDK_PY_FASTCALL(o_tensor_from_data) {
  sdk_dtype dt, dflt;
  if (!check_nargs("tensor", nargs, 3, 3) || !dtype_arg(args[1], "tensor", "dtype", &dt) ||
      !dtype_arg(args[2], "tensor", "default_dtype", &dflt))
    return nullptr;
  DataFill d;
  if (!infer_shape(args[0], &d, 0) || !fill(args[0], &d, 0)) return nullptr;
  sdk_dtype src = d.kind == 2 ? SDK_FLOAT64 : d.kind == 0 ? SDK_BOOL : SDK_INT64;
  if (dt < 0) dt = d.kind == 2 ? dflt : d.kind == 0 ? SDK_BOOL : d.kind == 1 ? SDK_INT64 : dflt;
  sdk_tensor* t = nullptr;
  sdk_device cpu{SDK_CPU, 0};
  if (sdk_empty(static_cast<int64_t>(d.shape.size()), d.shape.data(), src, cpu, &t) != SDK_OK)
    return raise_last_error();
  size_t n = d.f.size();
  if (static_cast<int64_t>(n) != sdk_tensor_numel(t)) {  // the walk checks every length
    sdk_tensor_release(t);
    PyErr_SetString(PyExc_RuntimeError, "tensor(): the data changed while it was read");
    return nullptr;
  }
  void* p = sdk_tensor_data_ptr(t);
  if (src == SDK_FLOAT64) {
    if (n) std::memcpy(p, d.f.data(), n * sizeof(double));
  } else if (src == SDK_INT64) {
    if (n) std::memcpy(p, d.i.data(), n * sizeof(int64_t));
  } else {
    for (size_t k = 0; k < n; ++k) static_cast<uint8_t*>(p)[k] = d.i[k] != 0;
  }
  if (dt == src) return wrap(t);
  sdk_tensor* r = nullptr;
  sdk_status st = sdk_to_dtype(t, dt, 1, &r);
  sdk_tensor_release(t);
  return finish(st, &r, nullptr);
}

}  // namespace

namespace sdkpy {

int to_handle(PyObject* obj, sdk_tensor** out) {
  if (!obj || !out) {
    PyErr_SetString(PyExc_TypeError, "to_handle: NULL argument");
    return -1;
  }
  if (is_tensor(obj)) {
    sdk_tensor* h = handle_of(obj);
    if (!h) {
      PyErr_SetString(PyExc_RuntimeError, "to_handle: uninitialized Tensor");
      return -1;
    }
    sdk_tensor_retain(h);
    *out = h;
    return 0;
  }
  // numpy first: its DLPack export refuses read-only arrays, the array interface does not.
  if (PyObject_HasAttrString(obj, "__array_interface__")) return import_array_interface(obj, out);
  if (PyCapsule_CheckExact(obj)) return import_capsule(obj, out);
  if (PyObject_HasAttrString(obj, "__dlpack__")) {
    OwnedRef cap(dlpack_capsule_of(obj));
    if (!cap.p) return -1;
    return import_capsule(cap.p, out);
  }
  PyErr_Format(PyExc_TypeError,
               "expected an sdk.Tensor, a numpy array or a DLPack producer, got %s",
               Py_TYPE(obj)->tp_name);
  return -1;
}

}  // namespace sdkpy

namespace {
// as_tensor_zero_copy(obj) -> tensor sharing memory with obj (what to_handle does).
PyObject* o_import(PyObject*, PyObject* obj) {
  if (is_tensor(obj)) {
    Py_INCREF(obj);
    return obj;
  }
  sdk_tensor* h = nullptr;
  if (to_handle(obj, &h) < 0) return nullptr;
  return wrap(h);
}

// For FFI bridges: adopt a NEW sdk_tensor* reference given as an int (sdk._from_handle).
// Only NULL can be detected; any other value must be a live handle the caller owns.
PyObject* o_from_handle(PyObject*, PyObject* arg) {
  if (!PyLong_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "_from_handle: expected an int (an sdk_tensor* address), got %s",
                 Py_TYPE(arg)->tp_name);
    return nullptr;
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(arg);  // OverflowError for negatives
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_SetString(module_state.invalid_argument_error,
                    "_from_handle: not a pointer value (negative or too large)");
    return nullptr;
  }
  if (v == 0) {
    PyErr_SetString(module_state.invalid_argument_error, "_from_handle: NULL sdk_tensor handle");
    return nullptr;
  }
  if (v % alignof(void*) != 0 || v > UINTPTR_MAX) {  // cheap sanity: handles are aligned
    PyErr_Format(module_state.invalid_argument_error,
                 "_from_handle: %p is not an sdk_tensor handle",
                 reinterpret_cast<void*>(static_cast<uintptr_t>(v)));
    return nullptr;
  }
  return boundary_out(reinterpret_cast<sdk_tensor*>(static_cast<uintptr_t>(v)));
}
}  // namespace

PyMethodDef sdkpy::interop_methods[] = {
    {"to_dlpack", SDK_PY_AS_CFUNCTION(o_to_dlpack), METH_FASTCALL,
     "to_dlpack(t, versioned) -> DLPack capsule"},
    {"from_dlpack_capsule", o_from_dlpack_capsule, METH_O, "Import a DLPack capsule."},
    {"_set_read_only", SDK_PY_AS_CFUNCTION(o_set_read_only), METH_FASTCALL,
     "_set_read_only(t, owner): make t's memory read-only for good (owner names it in errors)."},
    {"from_array_interface", o_from_array_interface, METH_O,
     "Wrap an object exposing __array_interface__ without copying."},
    {"_from_handle", o_from_handle, METH_O,
     "For FFI bridges: sdk.Tensor adopting a NEW sdk_tensor* reference given as an int "
     "(steals it; raises ValueError for NULL)."},
    {"import_zero_copy", o_import, METH_O,
     "Tensor sharing memory with a tensor, numpy array or DLPack producer."},
    {"tensor_from_data", SDK_PY_AS_CFUNCTION(o_tensor_from_data), METH_FASTCALL,
     "tensor_from_data(data, dtype, default_dtype): copy nested lists of numbers."},
    {nullptr, nullptr, 0, nullptr}};
