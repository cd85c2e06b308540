// sdk/csrc/module.cpp: module init and state, grad mode, errors, result wrapping, the capsule.
// Also the registration of sdk's Python types (_set_tensor_class, _set_python_types); the
// capsule is sdk/python.h's table of entry points for compiled extensions.
#include <iterator>

#include "args.h"
#include "common.h"
#include "ops_util.h"
#include "sdk/error.h"
#include "sdk/python.h"
#include "sdk/python_errors.h"

namespace sdkpy {

ModuleState module_state;

// Grad mode is the core's (one flag per thread for Python and compiled code alike).
bool grad_enabled() { return sdk_grad_mode_is_enabled() != 0; }
void set_grad_enabled(bool on) { sdk_grad_mode_set_enabled(on ? 1 : 0); }

PyObject* raise_last_error() {
  sdk_status kind = sdk_last_error_kind();
  PyObject* exc = kind > 0 && kind < kErrorTypeSlots ? module_state.error_types[kind] : nullptr;
  if (!exc) exc = sdk::detail::builtin_exception(kind);
  const char* msg = sdk_last_error_message();
  PyErr_SetString(exc, (msg && *msg) ? sdk::detail::user_facing_message(msg).c_str()
                                     : "sdk core call failed without a message");
  return nullptr;
}

PyObject* wrap(sdk_tensor* h) {
  if (!h) {
    PyErr_SetString(PyExc_RuntimeError, "sdk core returned a NULL tensor");
    return nullptr;
  }
  if (__builtin_expect(sdk_tensor_device(h).type == SDK_META, 0)) {
    // a core meta tensor has no data for sdk.Tensor's methods to read: Meta kernels' results
    // reach Python as sdk's meta tensors (OpHandle._call_meta), never this way
    sdk_tensor_release(h);
    PyErr_SetString(PyExc_RuntimeError,
                    "a tensor on the meta device (no data) cannot become an sdk.Tensor; "
                    "run Meta kernels through sdk.library.fake_call");
    return nullptr;
  }
  PyTypeObject* tp = module_state.tensor_class;
  PyObject* o = tp->tp_alloc(tp, 0);
  if (!o) {
    sdk_tensor_release(h);
    return nullptr;
  }
  reinterpret_cast<TensorObject*>(o)->handle = h;
  return o;
}

PyObject* finish(sdk_status st, sdk_tensor** rp, PyObject* out) {
  if (st != SDK_OK) return raise_last_error();
  sdk_tensor* r = *rp;
  if (out && out != Py_None) {
    sdk_tensor_release(r);
    Py_INCREF(out);
    return out;
  }
  return wrap(r);
}

PyObject* tuple_of(std::vector<sdk_tensor*>& rs) {
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(rs.size()));
  if (!tup) {
    for (sdk_tensor* r : rs) sdk_tensor_release(r);
    return nullptr;
  }
  bool failed = false;
  for (size_t i = 0; i < rs.size(); ++i) {
    if (failed) {
      sdk_tensor_release(rs[i]);
      continue;
    }
    PyObject* w = wrap(rs[i]);
    if (!w) {
      failed = true;
      continue;
    }
    PyTuple_SET_ITEM(tup, i, w);
  }
  if (failed) {
    Py_DECREF(tup);
    return nullptr;
  }
  return tup;
}

PyObject* dtype_object(sdk_dtype dt) {
  if (dt >= 0 && dt < module_state.ndtypes && module_state.dtypes[dt]) {
    Py_INCREF(module_state.dtypes[dt]);
    return module_state.dtypes[dt];
  }
  return PyLong_FromLong(dt);
}

PyObject* make_size(const int64_t* v, int64_t n) {
  PyObject* t;
  if (module_state.size_type) {
    PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(module_state.size_type);
    t = tp->tp_alloc(tp, n);
  } else {
    t = PyTuple_New(n);
  }
  if (!t) return nullptr;
  for (int64_t i = 0; i < n; ++i) {
    PyObject* x = PyLong_FromLongLong(v[i]);
    if (!x) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, i, x);
  }
  return t;
}

namespace {

// ---- module-level functions -------------------------------------------------

PyObject* m_is_grad_enabled(PyObject*, PyObject*) { return PyBool_FromLong(grad_enabled()); }

PyObject* m_set_grad_enabled(PyObject*, PyObject* arg) {
  int on = PyObject_IsTrue(arg);
  if (on < 0) return nullptr;
  return PyBool_FromLong(sdk_grad_mode_set_enabled(on));
}

// True when grad mode is on and any argument (or element of a list/tuple argument)
// is a tensor whose raw requires_grad flag is set: the test every public op makes.
PyObject* m_needs_grad(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!grad_enabled()) Py_RETURN_FALSE;
  for (Py_ssize_t i = 0; i < nargs; ++i)
    if (arg_requires_grad(args[i])) Py_RETURN_TRUE;
  Py_RETURN_FALSE;
}

PyObject* m_set_tensor_class(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class: expected a subclass of TensorBase");
    return nullptr;
  }
  PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(cls);
  if (tp->tp_basicsize != TensorBaseType.tp_basicsize) {
    PyErr_SetString(PyExc_TypeError,
                    "_set_tensor_class: the class must not add fields (use __slots__ = ())");
    return nullptr;
  }
  Py_INCREF(cls);
  module_state.tensor_class = tp;  // kept forever: instances may outlive module teardown
  Py_RETURN_NONE;
}

// _set_python_types(dtypes: tuple indexed by code, size_type, cpu_device, device_class)
PyObject* m_set_python_types(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_nargs("_set_python_types", nargs, 4, 4)) return nullptr;
  if (!PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) > 16) {
    PyErr_SetString(PyExc_TypeError, "_set_python_types: dtypes must be a tuple");
    return nullptr;
  }
  module_state.ndtypes = static_cast<int>(PyTuple_GET_SIZE(args[0]));
  for (int i = 0; i < module_state.ndtypes; ++i) {
    module_state.dtypes[i] = PyTuple_GET_ITEM(args[0], i);
    Py_INCREF(module_state.dtypes[i]);
  }
  if (!PyType_Check(args[1]) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(args[1]), &PyTuple_Type)) {
    PyErr_SetString(PyExc_TypeError, "_set_python_types: size_type must subclass tuple");
    return nullptr;
  }
  module_state.size_type = args[1];
  module_state.cpu_device = args[2];
  module_state.device_class = args[3];
  Py_INCREF(module_state.size_type);
  Py_INCREF(module_state.cpu_device);
  Py_INCREF(module_state.device_class);
  Py_RETURN_NONE;
}

PyObject* m_abi_version(PyObject*, PyObject*) {
  uint32_t v = sdk_abi_version();
  return Py_BuildValue("(II)", v >> 16, v & 0xffff);
}

PyObject* m_version_string(PyObject*, PyObject*) {
  return PyUnicode_FromString(sdk_version_string());
}

// A thread count argument, as torch takes one: an int (not a bool) from 1 to 2**31 - 1.
bool thread_count_arg(PyObject* arg, const char* fn, const char* name, int32_t* out) {
  int64_t n;
  if (PyBool_Check(arg)) {  // as torch: a bool is not a thread count
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be int, not bool", fn, name);
    return false;
  }
  if (!int_arg(arg, fn, name, &n)) return false;
  if (n < 1 || n > INT32_MAX) {
    PyErr_Format(module_state.invalid_argument_error,
                 "%s(): argument '%s' must be a positive integer below 2**31, got %lld", fn, name,
                 static_cast<long long>(n));
    return false;
  }
  *out = static_cast<int32_t>(n);
  return true;
}

PyObject* m_set_num_threads(PyObject*, PyObject* arg) {
  int32_t n;
  if (!thread_count_arg(arg, "set_num_threads", "n", &n)) return nullptr;
  if (sdk_set_num_threads(n) != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

PyObject* m_get_num_threads(PyObject*, PyObject*) { return PyLong_FromLong(sdk_get_num_threads()); }

// sdk.set_num_interop_threads raises torch's RuntimeError for a bool or a count below 1 first.
PyObject* m_set_num_interop_threads(PyObject*, PyObject* arg) {
  int32_t n;
  if (!thread_count_arg(arg, "set_num_interop_threads", "num", &n)) return nullptr;
  if (sdk_set_num_interop_threads(n) != SDK_OK) return raise_last_error();
  Py_RETURN_NONE;
}

PyObject* m_get_num_interop_threads(PyObject*, PyObject*) {
  return PyLong_FromLong(sdk_get_num_interop_threads());
}

// (mode, warn_only), both already bools (sdk.use_deterministic_algorithms checks them).
PyObject* m_set_deterministic(PyObject*, PyObject* args) {
  int mode, warn_only;
  if (!PyArg_ParseTuple(args, "pp", &mode, &warn_only)) return nullptr;
  sdk_set_deterministic_algorithms(mode, warn_only);
  Py_RETURN_NONE;
}

PyObject* m_get_deterministic(PyObject*, PyObject*) {
  return PyLong_FromLong(sdk_deterministic_algorithms());
}

// {name: value} of every sdk_parallel_key (the BLAS ones load the BLAS; None when it cannot).
PyObject* m_parallel_info(PyObject*, PyObject*) {
  static const char* const names[] = {
      "num_threads",  "max_concurrency",        "usable_cpus", "physical_cores", "pool_workers",
      "blas_threads", "blas_threads_in_region", "blas_on_pool"};
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  for (int32_t key = 0; key < 8; ++key) {
    int64_t v = 0;
    PyObject* value = nullptr;
    if (sdk_get_parallel_info(key, &v) == SDK_OK) {
      value = PyLong_FromLongLong(v);
    } else {
      sdk_clear_last_error();
      value = Py_NewRef(Py_None);
    }
    if (!value || PyDict_SetItemString(d, names[key], value) < 0) {
      Py_XDECREF(value);
      Py_DECREF(d);
      return nullptr;
    }
    Py_DECREF(value);
  }
  return d;
}

PyObject* m_promote_types(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  sdk_dtype a, b;
  if (!check_nargs("promote_types", nargs, 2, 2) ||
      !dtype_arg(args[0], "promote_types", "type1", &a) ||
      !dtype_arg(args[1], "promote_types", "type2", &b))
    return nullptr;
  if (a < 0 || b < 0) {
    PyErr_SetString(PyExc_TypeError, "promote_types(): dtypes must not be None");
    return nullptr;
  }
  const sdk_dtype r = sdk_promote_types(a, b);
  if (r < 0) {  // valid codes without a promotion: the 8-bit floats with another dtype
    PyErr_Format(PyExc_TypeError,
                 "Promotion for Float8 Types is not supported, attempted to promote %s and %s",
                 sdk_dtype_name(a), sdk_dtype_name(b));
    return nullptr;
  }
  return dtype_object(r);
}

PyObject* m_raise_error(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  // Test hook: record an error in the core slot and raise it like a failing op would.
  int64_t kind;
  if (!check_nargs("_raise_error", nargs, 2, 2) || !int_arg(args[0], "_raise_error", "kind", &kind))
    return nullptr;
  const char* msg = PyUnicode_AsUTF8(args[1]);
  if (!msg) return nullptr;
  sdk_set_last_error(static_cast<sdk_status>(kind), msg);
  return raise_last_error();
}

// sdk.error_type(status): the exception sdk raises for a C ABI status (a row of SDK_ERRORS;
// RuntimeError for another code), for FFI bridges that read statuses themselves.
PyObject* m_error_type(PyObject*, PyObject* status) {
  int64_t kind;
  if (!int_arg(status, "error_type", "status", &kind)) return nullptr;
  PyObject* exc = kind > 0 && kind < kErrorTypeSlots ? module_state.error_types[kind] : nullptr;
  return new_ref(exc ? exc : PyExc_RuntimeError);
}

PyMethodDef module_methods[] = {
    {"is_grad_enabled", m_is_grad_enabled, METH_NOARGS, "Whether grad mode is on (per thread)."},
    {"_set_grad_enabled", m_set_grad_enabled, METH_O, "Set grad mode; returns the previous."},
    {"_needs_grad", SDK_PY_AS_CFUNCTION(m_needs_grad), METH_FASTCALL,
     "Grad mode on and some tensor argument requires grad."},
    {"_set_tensor_class", m_set_tensor_class, METH_O, "Class of tensors created from C."},
    {"_set_python_types", SDK_PY_AS_CFUNCTION(m_set_python_types), METH_FASTCALL,
     "Register dtype objects, Size, the cpu device and the device class."},
    {"_register_fallbacks", m_register_fallbacks, METH_O,
     "Register the Python functions the arithmetic slots call on the autograd path."},
    {"abi_version", m_abi_version, METH_NOARGS, "(major, minor) ABI of the running core."},
    {"version_string", m_version_string, METH_NOARGS, "Release version of the core."},
    {"set_num_threads", m_set_num_threads, METH_O, "Threads used by the core."},
    {"get_num_threads", m_get_num_threads, METH_NOARGS, "Threads used by the core."},
    {"_set_num_interop_threads", m_set_num_interop_threads, METH_O, "The inter-op count."},
    {"_get_num_interop_threads", m_get_num_interop_threads, METH_NOARGS, "The inter-op count."},
    {"_set_deterministic", m_set_deterministic, METH_VARARGS, "The deterministic switch."},
    {"_get_deterministic", m_get_deterministic, METH_NOARGS, "0 off, 1 on, 2 warn only."},
    {"parallel_info", m_parallel_info, METH_NOARGS, "Facts about the core's threading."},
    {"promote_types", SDK_PY_AS_CFUNCTION(m_promote_types), METH_FASTCALL,
     "dtype of an op on two dtypes."},
    {"_raise_error", SDK_PY_AS_CFUNCTION(m_raise_error), METH_FASTCALL,
     "Raise a core error kind with a message (tests)."},
    {"error_type", m_error_type, METH_O, "The exception sdk raises for a C ABI status."},
    {nullptr, nullptr, 0, nullptr}};

// ---- the sdk/python.h capsule ------------------------------------------------

int api_is_tensor(PyObject* o) { return o && is_tensor(o) ? 1 : 0; }
// Extensions get and give back handles that carry autograd state (autograd.cpp).
int api_to_handle(PyObject* o, sdk_tensor** out) {
  if (!o || !out || !is_tensor(o)) return to_handle(o, out);
  sdk_tensor* h = boundary_in(o);
  if (!h) return -1;
  sdk_tensor_retain(h);
  *out = h;
  return 0;
}
PyObject* api_from_handle(sdk_tensor* t) { return boundary_out(t); }
PyObject* api_raise_last_error() { return raise_last_error(); }

sdk_python_api_table python_api_table = {
    sizeof(sdk_python_api_table),
    SDK_ABI_VERSION_MAJOR,
    SDK_ABI_VERSION_MINOR,
    0,
    api_is_tensor,
    api_to_handle,
    api_from_handle,
    api_raise_last_error,
};

int add_methods(PyObject* m, PyMethodDef* defs) {
  for (PyMethodDef* d = defs; d->ml_name; ++d) {
    PyObject* f = PyCFunction_NewEx(d, nullptr, m);
    if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) {
      Py_XDECREF(f);
      return -1;
    }
  }
  return 0;
}

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "sdk._C",
                          "Raw bindings of the sdk tensor core (no autograd).", -1, nullptr};

// sdk's own exception type of an error kind, sdk.<sdk_type>: a subclass of the kind's builtin
// and of RuntimeError, so code ported from torch (which raises RuntimeError for a shape
// mismatch or an allocation failure) keeps catching what it caught there. A new reference.
PyObject* new_error_type(const char* name, PyObject* builtin, const char* meaning) {
  PyObject* bases = PyTuple_Pack(2, builtin, PyExc_RuntimeError);
  if (!bases) return nullptr;
  std::string qualified = std::string("sdk.") + name;
  std::string doc = std::string("An error of kind '") + meaning + "'. Both a " +
                    reinterpret_cast<PyTypeObject*>(builtin)->tp_name + " and a RuntimeError.";
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc.c_str(), bases, nullptr);
  Py_DECREF(bases);
  return type;
}

// The exception type of every error kind of SDK_ERRORS, made once: module_state.error_types,
// sdk._C.<sdk_type> for sdk's own types, and sdk._C.ERRORS, {code: (kind name, type)}, the
// table as Python reads it (sdk.error_type, the ctypes bridge, the tests).
int add_error_types(PyObject* m) {
  PyObject* table = PyDict_New();
  if (!table || PyModule_AddObject(m, "ERRORS", table) < 0) {
    Py_XDECREF(table);
    return -1;
  }
  struct Row {
    sdk_status code;
    const char* kind;
  };
#define SDKPY_ERROR_ROW(kind, code, builtin, sdk_type, meaning) Row{code, #kind},
  for (Row row : {SDK_ERRORS(SDKPY_ERROR_ROW)}) {
#undef SDKPY_ERROR_ROW
    PyObject* type = sdk::detail::builtin_exception(row.code);
    if (const char* own = sdk::detail::sdk_exception_name(row.code)) {
      type = new_error_type(own, type, sdk::detail::error_meaning(row.code));
      if (!type) return -1;
      Py_INCREF(type);  // one reference for the module, one kept in module_state
      if (PyModule_AddObject(m, own, type) < 0) {
        Py_DECREF(type);
        Py_DECREF(type);
        return -1;
      }
    }
    module_state.error_types[row.code] = type;
    PyObject* entry = Py_BuildValue("(sO)", row.kind, type);
    PyObject* code = PyLong_FromLong(row.code);
    int rc = entry && code ? PyDict_SetItem(table, code, entry) : -1;
    Py_XDECREF(entry);
    Py_XDECREF(code);
    if (rc < 0) return -1;
  }
  module_state.invalid_argument_error = module_state.error_types[SDK_ERROR_VALUE];
  module_state.out_of_memory_error = module_state.error_types[SDK_ERROR_MEMORY];
  return 0;
}

}  // namespace

}  // namespace sdkpy

namespace {
// sdk._C.<attr>: a dict of n items, item i being key(i): value(i) (a new reference or NULL).
template <typename Key, typename Value>
int add_dict(PyObject* m, const char* attr, size_t n, Key key, Value value) {
  PyObject* table = PyDict_New();
  if (!table) return -1;
  for (size_t i = 0; i < n; ++i) {
    PyObject* v = value(i);
    if (!v || PyDict_SetItemString(table, key(i), v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(table);
      return -1;
    }
    Py_DECREF(v);
  }
  if (PyModule_AddObject(m, attr, table) < 0) {
    Py_DECREF(table);
    return -1;
  }
  return 0;
}

// sdk._C.<attr>: {torch name: code} of one op table of the C ABI.
template <size_t N>
int add_op_table(PyObject* m, const char* attr, const char* const (&names)[N]) {
  return add_dict(
      m, attr, N, [&](size_t i) { return names[i]; },
      [](size_t code) { return PyLong_FromSize_t(code); });
}

// sdk._C.<attr>: {torch name: (differentiable, inplace, bool_result)} of one facts table.
template <size_t N>
int add_facts_table(PyObject* m, const char* attr, const sdkpy::OpFacts (&facts)[N]) {
  return add_dict(
      m, attr, N, [&](size_t i) { return facts[i].name; },
      [&](size_t i) {
        const sdkpy::OpFacts& f = facts[i];
        return Py_BuildValue("(NNN)", PyBool_FromLong(f.differentiable), PyBool_FromLong(f.inplace),
                             PyBool_FromLong(f.bool_result));
      });
}

// sdk._C.DTYPES: {name: (code, Torch, itemsize, kind, py_alias)} of SDK_DTYPES, in code order,
// with kind the DLPack kind's name ("FLOAT"); sdk._dtype makes the dtype objects from it.
int add_dtypes_table(PyObject* m) {
  struct Row {
    const char *name, *torch, *kind, *py_alias;
    int code, itemsize;
  };
#define SDK_PY_DTYPE_ROW(NAME, code, name, Torch, itemsize, kind, cpp, py_alias) \
  Row{name, #Torch, #kind, py_alias, code, itemsize},
  static const Row kRows[] = {SDK_DTYPES(SDK_PY_DTYPE_ROW)};
#undef SDK_PY_DTYPE_ROW
  return add_dict(
      m, "DTYPES", std::size(kRows), [&](size_t i) { return kRows[i].name; },
      [&](size_t i) {
        const Row& r = kRows[i];
        return Py_BuildValue("(isiss)", r.code, r.torch, r.itemsize, r.kind, r.py_alias);
      });
}
}  // namespace

PyMODINIT_FUNC PyInit__C(void) {
  using namespace sdkpy;
  if (sdk_abi_check(SDK_ABI_VERSION_MAJOR, SDK_ABI_VERSION_MINOR) != SDK_OK) {
    PyErr_Format(PyExc_ImportError, "sdk._C: %s", sdk_last_error_message());
    return nullptr;
  }
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return nullptr;
  // The module functions of every file; each name appears in one table only.
  PyMethodDef* const method_tables[] = {
      module_methods,     ops_elementwise_methods, ops_creation_methods, ops_views_methods,
      ops_reduce_methods, ops_linalg_methods,      ops_sort_methods,     ops_scan_methods,
      ops_index_methods,  ops_scatter_methods,     ops_layout_methods,   ops_nn_methods,
      cuda_methods,       generator_methods,       interop_methods,      op_registry_methods,
      op_kernels_methods, autograd_methods,        cuda_device_methods,  op_objects_methods,
      ops_storage_methods};
  bool ok = add_error_types(m) == 0;
  for (PyMethodDef* table : method_tables) ok = ok && add_methods(m, table) == 0;
  if (!ok || autograd_ready(m) < 0 || op_registry_ready(m) < 0 || op_objects_ready(m) < 0 ||
      tensor_type_ready(m) < 0 || generator_type_ready(m) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  PyObject* cap = PyCapsule_New(&python_api_table, SDK_PYTHON_API_CAPSULE, nullptr);
  if (!cap || PyModule_AddObject(m, SDK_PYTHON_API_ATTR, cap) < 0) {
    Py_XDECREF(cap);
    Py_DECREF(m);
    return nullptr;
  }
  if (add_op_table(m, "UNARY_OPS", kUnaryNames) < 0 ||
      add_op_table(m, "BINARY_OPS", kBinaryNames) < 0 ||
      add_op_table(m, "REDUCE_OPS", kReduceNames) < 0 ||
      add_facts_table(m, "UNARY_OP_FACTS", kUnaryFacts) < 0 ||
      add_facts_table(m, "BINARY_OP_FACTS", kBinaryFacts) < 0 || add_dtypes_table(m) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  PyModule_AddIntConstant(m, "ABI_VERSION_MAJOR", SDK_ABI_VERSION_MAJOR);
  PyModule_AddIntConstant(m, "ABI_VERSION_MINOR", SDK_ABI_VERSION_MINOR);
  PyModule_AddIntConstant(m, "_NO_GIL_NUMEL", kNoGilNumel);
  // torch._C._GLIBCXX_USE_CXX11_ABI, which setup.py files pass on as -D_GLIBCXX_USE_CXX11_ABI:
  // the std::string ABI this binding and the installed pybind11 runtime object were built
  // with (only C crosses into the core, so an extension may use either; this one reuses the
  // installed runtime object).
#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
  const bool cxx11_abi = true;
#else
  const bool cxx11_abi = false;
#endif
  if (PyModule_AddObject(m, "_GLIBCXX_USE_CXX11_ABI", PyBool_FromLong(cxx11_abi)) < 0) {
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
