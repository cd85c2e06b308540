// sdk/csrc/common.h: the tensor object, the module state and the helpers all of sdk._C shares.
// Also what each file gives the others.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sdk/c_api.h"

// The C part of every sdk.Tensor. The Python subclass adds no fields (__slots__ = ()),
// so instances of it are allocated with this exact size by the fast path in wrap().
struct TensorObject {
  PyObject_HEAD sdk_tensor* handle;  // owned reference; NULL only while half-built
  PyObject* grad;                    // NULL means None
  PyObject* grad_fn;                 // NULL means None
  PyObject* ag;                      // free slot for the autograd engine; NULL means None
  PyObject* weakreflist;
  char requires_grad;  // raw flag, read by the fast arithmetic path
  char ag_linked;      // this object holds its view's autograd state (autograd.cpp)
};

extern PyTypeObject TensorBaseType;
extern PyTypeObject GeneratorType;

namespace sdkpy {

// The number of arithmetic slots that fall back to a Python function on the autograd path
// (the ArithmeticFallback codes of number_slots.cpp).
constexpr int kArithmeticFallbackCount = 23;
// One past the largest error code of SDK_ERRORS (c_api.h): the size of the table of types.
#define SDKPY_ERROR_CODE(kind, code, builtin, sdk_type, meaning) code,
constexpr int kErrorTypeSlots = 1 + std::max({SDK_ERRORS(SDKPY_ERROR_CODE) 0});
#undef SDKPY_ERROR_CODE

// Module-wide state of sdk._C: every Python object the module is given or makes for itself,
// in one place. One instance, module_state (defined in module.cpp). sdk._C is a
// single-phase module (m_size -1), so this state is per process. Every reference here is
// strong and kept for the life of the process: tensors and generators may outlive the
// module's teardown and still read it.
struct ModuleState {
  // Class of the tensors made from C (wrap()): sdk.Tensor, set by _set_tensor_class when
  // sdk/__init__.py is imported; TensorBase until then.
  PyTypeObject* tensor_class = &TensorBaseType;
  // sdk.dtype objects indexed by dtype code, and how many there are: set by
  // _set_python_types (sdk/__init__.py, at import); until then dtypes read back as ints.
  PyObject* dtypes[16] = {};
  int ndtypes = 0;
  // sdk.Size (a tuple subclass): set by _set_python_types; NULL until then (plain tuples).
  PyObject* size_type = nullptr;
  // sdk.device('cpu') and the sdk.device class: set by _set_python_types; NULL until then
  // (Tensor.device answers a (type, index) tuple).
  PyObject* cpu_device = nullptr;
  PyObject* device_class = nullptr;
  // The exception type of each error kind of SDK_ERRORS (c_api.h), indexed by code: sdk's
  // own types (sdk.InvalidArgumentError, ...) made by PyInit__C (add_error_types,
  // module.cpp), the builtins for the other kinds; NULL before that.
  PyObject* error_types[kErrorTypeSlots] = {};
  // Shorthands for the two kinds checks in sdk._C raise most: error_types' entries for
  // SDK_ERROR_VALUE (sdk.InvalidArgumentError) and SDK_ERROR_MEMORY (sdk.OutOfMemoryError).
  PyObject* invalid_argument_error = PyExc_ValueError;
  PyObject* out_of_memory_error = PyExc_MemoryError;
  // The Python functions the arithmetic slots call when an operand needs grad, indexed by
  // ArithmeticFallback (number_slots.cpp): set by _register_fallbacks (sdk/__init__.py, at
  // import); NULL makes the slot answer NotImplemented.
  PyObject* arithmetic_fallbacks[kArithmeticFallbackCount] = {};
  // sdk.library's hook that records autograd around an OpHandle call whose tensor
  // arguments need grad: set by _set_op_autograd_hook (sdk/library.py, at import); NULL:
  // none (op_registry.cpp).
  PyObject* op_autograd_hook = nullptr;
  // The hook that runs an OpHandle call with another framework's tensors (torch, jax, meta):
  // set by _set_op_foreign_hook (sdk/_op_frameworks.py, at import); NULL until then.
  PyObject* op_foreign_hook = nullptr;
  // sdk.autograd.function._record_compiled: imported by autograd.cpp the first time
  // compiled code records a node into the graph; NULL until then.
  PyObject* record_compiled = nullptr;
};
extern ModuleState module_state;

// Grad mode: a thread-local flag (on by default in every thread).
bool grad_enabled();
void set_grad_enabled(bool on);

// Large ops run without the GIL; tiny ones keep it (releasing costs more than they do).
constexpr int64_t kNoGilNumel = 1 << 15;
// Element counts summed over several tensors (expanded views can each hold up to 2^63-1):
// saturates instead of overflowing.
inline int64_t add_numel(int64_t total, int64_t n) {
  return __builtin_add_overflow(total, n, &total) ? INT64_MAX : total;
}
// Run `expr` without the GIL when the op (n elements touched) is big enough for that to pay off.
#define SDK_PY_RUN_NOGIL_IF_LARGE(n, expr) \
  if ((n) >= ::sdkpy::kNoGilNumel) {       \
    Py_BEGIN_ALLOW_THREADS;                \
    expr;                                  \
    Py_END_ALLOW_THREADS;                  \
  } else {                                 \
    expr;                                  \
  }

// A METH_FASTCALL module function: PyObject* name(module, args, nargs).
#define SDK_PY_FASTCALL(name) PyObject* name(PyObject*, PyObject* const* args, Py_ssize_t nargs)
// A METH_FASTCALL function as the PyCFunction a PyMethodDef holds.
#define SDK_PY_AS_CFUNCTION(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))
// A PyMethodDef entry for a METH_FASTCALL function.
#define SDK_PY_FASTCALL_METHOD(name, fn, doc) {name, SDK_PY_AS_CFUNCTION(fn), METH_FASTCALL, doc}

// sdk.Tensor itself first (one compare), then subclasses and the base type.
inline bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == module_state.tensor_class || PyObject_TypeCheck(o, &TensorBaseType);
}
// The C part of tensor object `o` (which must be a tensor: is_tensor).
inline TensorObject* tensor_object(PyObject* o) { return reinterpret_cast<TensorObject*>(o); }
// The core tensor of tensor object `o` (borrowed; NULL only for a half-built object).
inline sdk_tensor* handle_of(PyObject* o) { return tensor_object(o)->handle; }
// The raw requires_grad flag of tensor object `o` (what the fast paths test).
inline bool requires_grad_flag(PyObject* o) { return tensor_object(o)->requires_grad != 0; }
// Whether argument `o` brings a tensor that requires grad: a tensor with the flag set, or a
// list or tuple holding one (the test every public op makes when grad mode is on).
inline bool arg_requires_grad(PyObject* o) {
  if (is_tensor(o)) return requires_grad_flag(o);
  if (PyList_Check(o) || PyTuple_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t k = 0; k < n; ++k)
      if (is_tensor(items[k]) && requires_grad_flag(items[k])) return true;
  }
  return false;
}
// True when tensor object `o` has a handle; else raises RuntimeError and returns false.
inline bool has_data_or_raise(PyObject* o) {
  if (tensor_object(o)->handle) return true;
  PyErr_SetString(PyExc_RuntimeError, "this Tensor has no data (uninitialized or cleared)");
  return false;
}

// `o` with one more reference (Py_NewRef for every supported Python).
inline PyObject* new_ref(PyObject* o) {
  Py_INCREF(o);
  return o;
}

// Owns one reference until the end of the scope (Py_XDECREF); `p` may be NULL.
struct OwnedRef {
  PyObject* p = nullptr;
  OwnedRef() = default;
  explicit OwnedRef(PyObject* o) : p(o) {}
  ~OwnedRef() { Py_XDECREF(p); }
  OwnedRef(const OwnedRef&) = delete;
  OwnedRef& operator=(const OwnedRef&) = delete;
};

// The items of sequence `o` as a tuple of strong references (a new reference; `o` itself
// when it is a tuple), or NULL with TypeError `what` ("expected a sequence of ints") set.
// Every walk over a caller's sequence reads its items from this snapshot: converting an item
// (__index__, __float__, __bool__, __array_interface__ ...) runs Python code that may clear,
// shrink or grow the caller's list, and on a list PySequence_Fast hands back the list itself,
// whose item array such code frees. The snapshot also keeps the items (tensors whose handles
// an op uses without the GIL) alive until the caller drops it.
PyObject* sequence_snapshot(PyObject* o, const char* what);

// Whether the interpreter is shutting down (Py_IsFinalizing, public from Python 3.13).
inline bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// Raise the calling thread's last core error as a Python exception; returns NULL.
PyObject* raise_last_error();

// The tensor to read values from: itself on the CPU, a host copy of a CUDA tensor
// (item(), tolist(), bool() read CUDA tensors this way, as torch does). `handle` is NULL when
// the copy failed: raise_last_error() then.
struct HostTensor {
  sdk_tensor* handle = nullptr;  // the tensor itself, or `owned`
  sdk_tensor* owned = nullptr;   // the host copy, released with this object
  explicit HostTensor(sdk_tensor* t) : handle(t) {
    if (t && sdk_tensor_device(t).type != SDK_CPU) {
      handle = sdk_to_device(t, sdk_device{SDK_CPU, 0}, &owned) == SDK_OK ? owned : nullptr;
    }
  }
  ~HostTensor() {
    if (owned) sdk_tensor_release(owned);
  }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;
};
// New Python tensor around `h`, STEALING the reference (released on failure too).
PyObject* wrap(sdk_tensor* h);
// Result of an op called with an optional `out` object: `out` itself when given.
// Takes the result slot by address: finish(f(..., &r), &r, out) must not read r before f runs.
PyObject* finish(sdk_status st, sdk_tensor** r, PyObject* out);
// A tuple of new tensors around `rs` (stolen; released on failure).
PyObject* tuple_of(std::vector<sdk_tensor*>& rs);

// ---- what each file gives the others -----------------------------------------------------

// module.cpp: the sdk.dtype object of code `dt` (an int before _set_python_types); sdk.Size
// (a plain tuple before) of n sizes.
PyObject* dtype_object(sdk_dtype dt);
PyObject* make_size(const int64_t* v, int64_t n);

// tensor_type.cpp: _C.TensorBase, and one element at `p` as a Python number (item(),
// tolist(), __bool__ ...).
int tensor_type_ready(PyObject* module);
PyObject* read_element(const void* p, sdk_dtype dt);

// number_slots.cpp: fills `nb`'s arithmetic entries and `type`'s tp_richcompare (before
// PyType_Ready); _C._register_fallbacks.
void install_arithmetic_slots(PyTypeObject* type, PyNumberMethods* nb);
PyObject* m_register_fallbacks(PyObject*, PyObject* arg);

// generator.cpp: sdk.Generator; the core generator of a generator= argument (NULL for None,
// the default one), with *ok false and a TypeError set for anything else.
int generator_type_ready(PyObject* module);
sdk_generator* generator_handle(PyObject* o, bool* ok);

// interop.cpp: a NEW handle for a tensor, a numpy array or a DLPack producer (the capsule
// table's to_handle); 0, or -1 with an exception set.
int to_handle(PyObject* obj, sdk_tensor** out);

// autograd.cpp. The tensors that cross into compiled extension code (the capsule table,
// sdk.ops, the ctypes bridge) carry their autograd state with them.
// The handle to give compiled code for tensor object `t` (borrowed from it).
sdk_tensor* boundary_in(PyObject* t);
// The Python object for a handle coming back, STEALING the reference: the object that
// holds its autograd state when there is one, else a new one.
PyObject* boundary_out(sdk_tensor* h);
// A dying tensor object hands its autograd state over to its view (tb_dealloc).
void autograd_unlink(PyObject* t);
// Register the engine with the core; _C._cpp_backward and friends.
int autograd_ready(PyObject* module);

// op_registry.cpp: sdk._C.OpHandle and the registration constants.
int op_registry_ready(PyObject* module);
// op_registry.cpp: the OpHandle of `op` (the same object for every call with the same op).
PyObject* op_handle(const sdk_op* op);
// op_objects.cpp: sdk._C.ScriptObject, custom-class objects (ABI 1.12): a new Python object
// holding a new reference to `object` of class `cls`; and the class and object of Python
// object `o` (false, with no exception set, when it is not one).
int op_objects_ready(PyObject* module);
PyObject* object_to_py(const sdk_class* cls, void* object);
bool object_of(PyObject* o, const sdk_class** cls, void** object);
// op_values.cpp: value i of boxed values as a new Python object.
PyObject* value_to_py(sdk_values* v, int64_t i);
// op_values.cpp: the core device of an sdk.device (anything with .type, 'cpu' or 'cuda',
// and .index, None or an int); false with an exception set when it cannot be read.
bool device_of(PyObject* dev, sdk_device* out);
// op_kernels.cpp: when a Python kernel's exception is pending on this thread (the call that
// failed ran one), makes it the current exception and returns true.
bool restore_python_kernel_error();

// The module functions of each file, added to the module by PyInit__C (module.cpp).
extern PyMethodDef ops_elementwise_methods[];
extern PyMethodDef ops_creation_methods[];
extern PyMethodDef ops_views_methods[];
extern PyMethodDef ops_reduce_methods[];
extern PyMethodDef ops_linalg_methods[];
extern PyMethodDef ops_sort_methods[];
extern PyMethodDef ops_scan_methods[];
extern PyMethodDef ops_index_methods[];
extern PyMethodDef ops_scatter_methods[];
extern PyMethodDef ops_layout_methods[];
extern PyMethodDef ops_storage_methods[];
extern PyMethodDef ops_nn_methods[];
extern PyMethodDef cuda_methods[];
extern PyMethodDef cuda_device_methods[];
extern PyMethodDef generator_methods[];
extern PyMethodDef interop_methods[];
extern PyMethodDef op_registry_methods[];
extern PyMethodDef op_kernels_methods[];
extern PyMethodDef autograd_methods[];
extern PyMethodDef op_objects_methods[];

// The lines of `all` (names the core lists one per line) as a Python list of str.
PyObject* lines_to_list(const std::string& all);

}  // namespace sdkpy
