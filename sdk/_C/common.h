// sdk/_C/common.h: object layout and helpers shared by the files of the sdk._C extension.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
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

// Type used for tensors created from C (sdk.Tensor once registered).
extern PyTypeObject* g_tensor_class;
// Python-side types registered by sdk/__init__.py (borrowed-forever references).
extern PyObject* g_dtypes[16];              // sdk.dtype objects indexed by code
extern PyObject* g_size_type;               // sdk.Size (a tuple subclass) or NULL
extern PyObject* g_cpu_device;              // sdk.device('cpu')
extern PyObject* g_device_class;            // sdk.device
extern PyObject* g_invalid_argument_error;  // sdk.InvalidArgumentError (ValueError, RuntimeError)
extern PyObject* g_out_of_memory_error;     // sdk.OutOfMemoryError (MemoryError, RuntimeError)
extern int g_ndtypes;

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
#define CALL(n, expr)                \
  if ((n) >= ::sdkpy::kNoGilNumel) { \
    Py_BEGIN_ALLOW_THREADS;          \
    expr;                            \
    Py_END_ALLOW_THREADS;            \
  } else {                           \
    expr;                            \
  }

// sdk.Tensor itself first (one compare), then subclasses and the base type.
inline bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == g_tensor_class || PyObject_TypeCheck(o, &TensorBaseType);
}
inline sdk_tensor* H(PyObject* o) { return reinterpret_cast<TensorObject*>(o)->handle; }

// Raise the calling thread's last core error as a Python exception; returns NULL.
PyObject* raise_last_error();

// The tensor to read values from: itself on the CPU, a host copy of a CUDA tensor
// (item(), tolist(), bool() read CUDA tensors this way, as torch does). h is NULL when
// the copy failed: raise_last_error() then.
struct HostTensor {
  sdk_tensor* h = nullptr;
  sdk_tensor* owned = nullptr;
  explicit HostTensor(sdk_tensor* t) : h(t) {
    if (t && sdk_tensor_device(t).type != SDK_CPU) {
      h = sdk_to_device(t, sdk_device{SDK_CPU, 0}, &owned) == SDK_OK ? owned : nullptr;
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

// Argument parsing. Each returns false with a TypeError/ValueError naming op and arg.
bool tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h);
bool opt_tensor_arg(PyObject* o, const char* op, const char* arg, sdk_tensor** h);
bool int_arg(PyObject* o, const char* op, const char* arg, int64_t* v);
bool double_arg(PyObject* o, const char* op, const char* arg, double* v);
bool bool_arg(PyObject* o, const char* op, const char* arg, int32_t* v);
bool dtype_arg(PyObject* o, const char* op, const char* arg, sdk_dtype* v);
// A sequence of ints (or one int). allow_neg1 permits -1 entries (view/expand).
bool ints_arg(PyObject* o, const char* op, const char* arg, std::vector<int64_t>* v,
              bool allow_negative);
// Scalar: Python bool/int/float or anything with __index__/__float__ (not tensors).
// Returns 1 if parsed, 0 if `o` is not a scalar (no error set), -1 on error.
int scalar_value(PyObject* o, sdk_scalar* s);
bool scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s);
// Scalar or None (SDK_SCALAR_NONE).
bool opt_scalar_arg(PyObject* o, const char* op, const char* arg, sdk_scalar* s);
bool check_nargs(const char* op, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi);

// Reading elements (item(), tolist(), __bool__ ...).
PyObject* read_element(const void* p, sdk_dtype dt);

// Module method tables of the individual files, merged by module.cpp.
extern PyMethodDef ops_methods[];
extern PyMethodDef interop_methods[];
extern PyMethodDef op_registry_methods[];
// sdk._C.OpHandle and the registration constants (op_registry.cpp).
int op_registry_ready(PyObject* module);
// Value i of boxed values as a new Python object.
PyObject* value_to_py(sdk_values* v, int64_t i);

// Interop entry points used by the capsule table.
int to_handle(PyObject* obj, sdk_tensor** out);
PyObject* dtype_object(sdk_dtype dt);
PyObject* make_size(const int64_t* v, int64_t n);

int tensor_type_ready(PyObject* module);

// The tensors that cross into compiled extension code (the capsule table, sdk.ops, the
// ctypes bridge) carry their autograd state with them; see autograd.cpp.
// The handle to give compiled code for tensor object `t` (borrowed from it).
sdk_tensor* boundary_in(PyObject* t);
// The Python object for a handle coming back, STEALING the reference: the object that
// holds its autograd state when there is one, else a new one.
PyObject* boundary_out(sdk_tensor* h);
// A dying tensor object hands its autograd state over to its view (tb_dealloc).
void autograd_unlink(PyObject* t);
// Register the engine with the core; _C._cpp_backward and friends.
int autograd_ready(PyObject* module);
extern PyMethodDef autograd_methods[];
// _C._register_fallbacks (defined next to the slots that use them).
PyObject* m_register_fallbacks(PyObject*, PyObject* arg);
int generator_type_ready(PyObject* module);
sdk_generator* generator_handle(PyObject* o, bool* ok);

}  // namespace sdkpy
