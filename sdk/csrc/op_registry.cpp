// sdk/csrc/op_registry.cpp: sdk._C.OpHandle, the registered operators called from Python.
// What sdk.ops.<ns>.<name> resolves to, op_find/op_list, and the autograd hook of its calls.
// Python kernels and the library_* registration functions are in op_kernels.cpp.
//
// A call converts its Python arguments, by the schema, into boxed values (sdk_values),
// calls sdk_op_call and converts the results back. The per-argument plan (tag, name,
// optional, default) is read from the core once per definition of the op. Plans are shared:
// a call holds its plan for its whole run, since Python code it runs (an argument's
// __index__, another thread) may redefine the op and replace the handle's plan. When grad mode is
// on and a tensor argument requires grad, the call goes to the Python hook set by
// sdk.library (_set_op_autograd_hook), which records autograd around the op. A call with
// another framework's tensor (a DLPack producer other than numpy, or a meta tensor) goes to
// the Python hook of sdk._op_frameworks (_set_op_foreign_hook), which converts the
// arguments zero-copy, calls the op again and hands the results back in the caller's type;
// sdk tensors never take that path.
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "args.h"
#include "common.h"
#include "op_values.h"

namespace sdkpy {
namespace {

struct ArgPlan {
  std::string name;
  std::string type;  // "Tensor?", "int[2]", "Scalar", ...
  int32_t tag = SDK_VALUE_NONE;
  bool optional = false;
  bool kwarg_only = false;
  bool has_default = false;
  bool scalar = false;             // a Scalar: int, float or bool
  bool optional_elements = false;  // Tensor?[]
  int32_t list_size = -1;
};

struct Plan {
  const char* schema = nullptr;  // the core's text of the definition the plan was read from
  std::vector<ArgPlan> args, rets;
  std::string schema_text;
};

bool read_specs(const sdk_op* op, int32_t is_return, std::vector<ArgPlan>* out) {
  int64_t n = sdk_op_num_arguments(op, is_return);
  out->clear();
  for (int64_t i = 0; i < n; ++i) {
    sdk_op_argument info{};
    info.size = sizeof(info);
    if (sdk_op_argument_info(op, is_return, i, &info) != SDK_OK) {
      raise_last_error();
      return false;
    }
    ArgPlan a;
    a.name = info.name;
    a.type = info.type;
    a.tag = info.tag;
    a.optional = info.optional != 0;
    a.kwarg_only = info.kwarg_only != 0;
    a.has_default = info.has_default != 0;
    a.scalar = a.type == "Scalar" || a.type == "Scalar?";
    a.optional_elements = a.type.find("?[") != std::string::npos;
    a.list_size = info.list_size;
    out->push_back(std::move(a));
  }
  return true;
}

using PlanRef = std::shared_ptr<const Plan>;

struct OpObject {
  PyObject_HEAD const sdk_op* op;
  PlanRef plan;  // constructed in new_op_object, destroyed in op_dealloc
  vectorcallfunc vectorcall;
  PyObject* dict;  // attributes Python attaches (sdk.library's autograd registration)
  PyObject* weakreflist;
};

extern PyTypeObject OpType;

// The plan of the op's current definition (re-read after the op was redefined); the caller
// holds it as long as it reads it. The core never frees a definition, so its text's address
// names it: a plan whose definition changed while it was read (another thread redefined the
// op without the GIL) is read again.
PlanRef plan_of(OpObject* self) {
  for (int attempt = 0;; ++attempt) {
    const char* schema = sdk_op_schema(self->op);
    if (!*schema) {
      PyErr_Format(PyExc_RuntimeError, "%s: the op is not defined (its library was closed)",
                   sdk_op_name(self->op));
      return nullptr;
    }
    if (self->plan && self->plan->schema == schema) return self->plan;
    auto p = std::make_shared<Plan>();
    p->schema = schema;
    p->schema_text = schema;
    bool ok = read_specs(self->op, 0, &p->args) && read_specs(self->op, 1, &p->rets);
    if (sdk_op_schema(self->op) != schema && attempt < 8) {
      if (!ok) PyErr_Clear();  // read across two definitions: read the new one
      continue;
    }
    if (!ok) return nullptr;
    self->plan = p;
    return p;
  }
}

PyObject* m_op_find(PyObject*, PyObject* name);

PyObject* arg_error(const OpObject* self, const Plan& p, const ArgPlan& a, PyObject* got) {
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %s (schema: %s)",
               sdk_op_name(self->op), a.name.c_str(), a.type.c_str(), Py_TYPE(got)->tp_name,
               p.schema_text.c_str());
  return nullptr;
}

bool push_tensor_obj(sdk_values* v, PyObject* o) {
  if (is_tensor(o)) {
    sdk_tensor* h = boundary_in(o);  // carries its autograd state into the kernel
    return h && (sdk_values_push_tensor(v, h) == SDK_OK || raise_last_error());
  }
  sdk_tensor* h = nullptr;
  if (to_handle(o, &h) < 0) return false;
  sdk_status st = sdk_values_push_tensor(v, h);
  sdk_tensor_release(h);
  return st == SDK_OK || raise_last_error();
}

// A Python or numpy number (numpy arrays, even 0-d ones, are sequences: not numbers).
bool is_number(PyObject* o) {
  if (PyLong_Check(o) || PyFloat_Check(o)) return true;
  if (is_tensor(o) || PySequence_Check(o)) return false;
  return PyIndex_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float);
}

// Another framework's array in a tensor argument: a DLPack producer that is not an sdk
// tensor or a numpy array (which return sdk tensors, as they always did), or a meta tensor.
bool is_foreign_array(PyObject* o) {
  if (o == Py_None || is_tensor(o) || PyLong_Check(o) || PyFloat_Check(o)) return false;
  if (std::strcmp(Py_TYPE(o)->tp_name, "numpy.ndarray") == 0) return false;
  return PyObject_HasAttrString(o, "__dlpack__") || PyObject_HasAttrString(o, "__sdk_meta__");
}

bool has_foreign_array(const ArgPlan& a, PyObject* o) {
  if (is_tensor(o)) return false;  // the fast path: one type check
  if (a.tag == SDK_VALUE_TENSOR) return is_foreign_array(o);
  if (a.tag != SDK_VALUE_TENSOR_LIST || !PyList_CheckExact(o) && !PyTuple_CheckExact(o)) {
    return false;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (is_foreign_array(PySequence_Fast_GET_ITEM(o, k))) return true;
  }
  return false;
}

// Push Python value `o` for argument `a`.
bool push_arg(const OpObject* self, const Plan& p, const ArgPlan& a, PyObject* o, sdk_values* v) {
  const char* op = sdk_op_name(self->op);
  const char* name = a.name.c_str();
  if (o == Py_None) {
    if (a.optional || a.tag == SDK_VALUE_NONE) return sdk_values_push_none(v) == SDK_OK;
    arg_error(self, p, a, o);
    return false;
  }
  sdk_status st = SDK_OK;
  if (a.scalar) {
    sdk_scalar s{};
    if (!is_number(o)) return arg_error(self, p, a, o), false;
    if (scalar_value(o, &s) <= 0)
      return PyErr_Occurred() ? false : (arg_error(self, p, a, o), false);
    st = s.kind == SDK_SCALAR_FLOAT  ? sdk_values_push_float(v, s.f)
         : s.kind == SDK_SCALAR_BOOL ? sdk_values_push_bool(v, static_cast<int32_t>(s.i))
                                     : sdk_values_push_int(v, s.i);
    return st == SDK_OK || raise_last_error();
  }
  switch (a.tag) {
    case SDK_VALUE_TENSOR:
      if (!is_tensor(o) && is_number(o)) return arg_error(self, p, a, o), false;
      if (!push_tensor_obj(v, o)) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {  // not a tensor, array or DLPack producer
          PyErr_Clear();
          arg_error(self, p, a, o);
        }
        return false;
      }
      return true;
    case SDK_VALUE_INT: {
      int64_t x;
      if (PyFloat_Check(o) || is_tensor(o)) return arg_error(self, p, a, o), false;
      if (!int_arg(o, op, name, &x)) return false;
      st = sdk_values_push_int(v, x);
      break;
    }
    case SDK_VALUE_FLOAT: {
      double x;
      if (!is_number(o)) return arg_error(self, p, a, o), false;
      if (!double_arg(o, op, name, &x)) return false;
      st = sdk_values_push_float(v, x);
      break;
    }
    case SDK_VALUE_BOOL: {
      if (!PyBool_Check(o) && !(PyIndex_Check(o) && !PyLong_Check(o) && !is_tensor(o))) {
        return arg_error(self, p, a, o), false;
      }
      int32_t x;
      if (!bool_arg(o, op, name, &x)) return false;
      st = sdk_values_push_bool(v, x);
      break;
    }
    case SDK_VALUE_STRING: {
      if (!PyUnicode_Check(o)) return arg_error(self, p, a, o), false;
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(o, &n);
      if (!s) return false;
      st = sdk_values_push_string(v, s, n);
      break;
    }
    case SDK_VALUE_SCALAR_TYPE: {
      sdk_dtype d;
      if (!dtype_arg(o, op, name, &d)) return false;
      st = sdk_values_push_scalar_type(v, d);
      break;
    }
    case SDK_VALUE_DEVICE: {
      OwnedRef dev(PyObject_CallOneArg(module_state.device_class, o));  // sdk.device(x)
      sdk_device d;
      if (!dev.p || !device_of(dev.p, &d)) return false;
      st = sdk_values_push_device(v, d);
      break;
    }
    case SDK_VALUE_INT_LIST: {
      std::vector<int64_t> xs;
      if (PyLong_Check(o) && a.list_size <= 0) return arg_error(self, p, a, o), false;
      if (PyLong_Check(o)) {  // int[N] given one int: N copies (the core repeats it)
        int64_t x;
        if (!int_arg(o, op, name, &x)) return false;
        st = sdk_values_push_int(v, x);
        break;
      }
      if (is_tensor(o) || PyFloat_Check(o) || PyUnicode_Check(o) || !PySequence_Check(o)) {
        return arg_error(self, p, a, o), false;
      }
      std::string what = std::string("argument '") + name + "'";
      if (!int_list_value(o, op, what.c_str(), &xs)) return false;
      st = sdk_values_push_int_list(v, xs.data(), static_cast<int64_t>(xs.size()));
      break;
    }
    case SDK_VALUE_FLOAT_LIST:
    case SDK_VALUE_BOOL_LIST:
    case SDK_VALUE_TENSOR_LIST: {
      if (is_tensor(o) || PyUnicode_Check(o) || !PySequence_Check(o)) {
        return arg_error(self, p, a, o), false;
      }
      // a copy: an item's __index__/__float__ may change the list under the loop
      PyObject* seq = PySequence_Tuple(o);
      if (!seq) return false;
      Py_ssize_t n = PyTuple_GET_SIZE(seq);
      PyObject** items = PySequence_Fast_ITEMS(seq);
      bool ok = true;
      if (a.tag == SDK_VALUE_FLOAT_LIST) {
        std::vector<double> xs(static_cast<size_t>(n));
        for (Py_ssize_t k = 0; ok && k < n; ++k) {
          ok = is_number(items[k]) ? double_arg(items[k], op, name, &xs[k])
                                   : (arg_error(self, p, a, items[k]), false);
        }
        if (ok) st = sdk_values_push_float_list(v, xs.data(), n);
      } else if (a.tag == SDK_VALUE_BOOL_LIST) {
        std::vector<int32_t> xs(static_cast<size_t>(n));
        for (Py_ssize_t k = 0; ok && k < n; ++k) ok = bool_arg(items[k], op, name, &xs[k]);
        if (ok) st = sdk_values_push_bool_list(v, xs.data(), n);
      } else {
        std::vector<sdk_tensor*> hs(static_cast<size_t>(n), nullptr);
        for (Py_ssize_t k = 0; ok && k < n; ++k) {
          if (items[k] == Py_None && a.optional_elements) continue;
          if (is_tensor(items[k])) {
            hs[k] = boundary_in(items[k]);
            ok = hs[k] != nullptr;
            if (ok) sdk_tensor_retain(hs[k]);
          } else if (items[k] == Py_None || is_number(items[k])) {
            ok = (arg_error(self, p, a, items[k]), false);
          } else {
            ok = to_handle(items[k], &hs[k]) == 0;
          }
        }
        if (ok) {
          st = sdk_values_push_tensor_list(v, const_cast<const sdk_tensor* const*>(hs.data()), n);
        }
        for (sdk_tensor* h : hs) sdk_tensor_release(h);
      }
      Py_DECREF(seq);
      if (!ok) return false;
      break;
    }
    default:
      arg_error(self, p, a, o);
      return false;
  }
  return st == SDK_OK || raise_last_error();
}

}  // namespace

namespace {

// The results on `v` as Python: None for none, the value for one, a tuple for several.
PyObject* results_to_py(sdk_values* v) {
  int64_t n = sdk_values_size(v);
  if (n == 0) Py_RETURN_NONE;
  if (n == 1) return value_to_py(v, 0);
  PyObject* t = PyTuple_New(n);
  for (int64_t k = 0; t && k < n; ++k) {
    PyObject* x = value_to_py(v, k);
    if (!x) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, k, x);
  }
  return t;
}

// Boxed values for one call, from a small per-thread pool (a call inside a Python kernel
// takes another one): no allocation per call once warm. The pool frees its values when its
// thread exits.
struct ValuesPool {
  std::vector<sdk_values*> free;
  ~ValuesPool() {
    for (sdk_values* v : free) sdk_values_free(v);
  }
};
thread_local ValuesPool t_values_pool;

struct ValuesGuard {
  sdk_values* v = nullptr;
  ValuesGuard() {
    if (!t_values_pool.free.empty()) {
      v = t_values_pool.free.back();
      t_values_pool.free.pop_back();
    } else if (sdk_values_new(&v) != SDK_OK) {
      v = nullptr;
    }
  }
  ~ValuesGuard() {
    if (!v) return;
    sdk_values_clear(v);
    if (t_values_pool.free.size() < 8) {
      t_values_pool.free.push_back(v);
    } else {
      sdk_values_free(v);
    }
  }
  ValuesGuard(const ValuesGuard&) = delete;
  ValuesGuard& operator=(const ValuesGuard&) = delete;
};

// Raise the failed call's error: a Python kernel's own exception when it came from one.
PyObject* raise_call_error() {
  if (restore_python_kernel_error()) return nullptr;
  return raise_last_error();
}

// A call with another framework's tensors: hook(op, kwargs, key, no_hook) with everything
// by name (sdk/_op_frameworks.py); the hook is installed when that module is imported.
PyObject* call_foreign(OpObject* self, int32_t key, bool no_hook, const Plan& p,
                       PyObject* const* given) {
  if (!module_state.op_foreign_hook) {
    PyObject* m = PyImport_ImportModule("sdk._op_frameworks");  // installs the hook
    if (!m) return nullptr;
    Py_DECREF(m);
    if (!module_state.op_foreign_hook) {
      PyErr_SetString(PyExc_RuntimeError, "sdk._op_frameworks did not install its hook");
      return nullptr;
    }
  }
  OwnedRef kwargs(PyDict_New());
  if (!kwargs.p) return nullptr;
  for (size_t j = 0; j < p.args.size(); ++j) {
    if (given[j] && PyDict_SetItemString(kwargs.p, p.args[j].name.c_str(), given[j]) < 0) {
      return nullptr;
    }
  }
  OwnedRef k(PyLong_FromLong(key));
  if (!k.p) return nullptr;
  return PyObject_CallFunctionObjArgs(module_state.op_foreign_hook,
                                      reinterpret_cast<PyObject*>(self), kwargs.p, k.p,
                                      no_hook ? Py_True : Py_False, nullptr);
}

// Call `self` with `key` (-1: by device), skipping the autograd hook when `no_hook`.
PyObject* call_op(OpObject* self, int32_t key, bool no_hook, PyObject* const* args,
                  Py_ssize_t nargs, PyObject* kwnames) {
  PlanRef held = plan_of(self);  // kept to the end of the call, whatever redefines the op
  if (!held) return nullptr;
  const Plan* p = held.get();
  const char* op = sdk_op_name(self->op);
  size_t nplan = p->args.size();
  PyObject* given_small[16] = {};
  std::vector<PyObject*> given_big;
  if (nplan > 16) given_big.assign(nplan, nullptr);
  PyObject** given = nplan > 16 ? given_big.data() : given_small;
  size_t npos = 0;
  while (npos < nplan && !p->args[npos].kwarg_only) ++npos;
  if (static_cast<size_t>(nargs) > npos) {
    PyErr_Format(PyExc_TypeError,
                 "%s() takes %zu positional argument%s but %zd were given "
                 "(schema: %s)",
                 op, npos, npos == 1 ? "" : "s", nargs, p->schema_text.c_str());
    return nullptr;
  }
  for (Py_ssize_t k = 0; k < nargs; ++k) given[k] = args[k];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* kw = PyTuple_GET_ITEM(kwnames, k);
    const char* kname = PyUnicode_AsUTF8(kw);
    if (!kname) return nullptr;
    size_t j = 0;
    while (j < nplan && p->args[j].name != kname) ++j;
    if (j == nplan) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s' (schema: %s)", op,
                   kname, p->schema_text.c_str());
      return nullptr;
    }
    if (given[j]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", op, kname);
      return nullptr;
    }
    given[j] = args[nargs + k];
  }
  bool grad = false;
  bool foreign = false;
  for (size_t j = 0; j < nplan; ++j) {
    if (!given[j] && !p->args[j].has_default) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (schema: %s)", op,
                   p->args[j].name.c_str(), p->schema_text.c_str());
      return nullptr;
    }
    if (given[j] &&
        (p->args[j].tag == SDK_VALUE_TENSOR || p->args[j].tag == SDK_VALUE_TENSOR_LIST)) {
      if (!grad) grad = arg_requires_grad(given[j]);
      if (!foreign) foreign = has_foreign_array(p->args[j], given[j]);
    }
  }
  if (foreign) return call_foreign(self, key, no_hook, *p, given);
  if (grad && !no_hook && !module_state.op_autograd_hook && grad_enabled()) {
    PyObject* lib = PyImport_ImportModule("sdk.library");  // installs the hook
    if (!lib) return nullptr;
    Py_DECREF(lib);
  }
  if (grad && !no_hook && module_state.op_autograd_hook && grad_enabled()) {
    // sdk.library handles differentiation: hook(op, args, kwargs) with everything by name
    PyObject* kwargs = PyDict_New();
    if (!kwargs) return nullptr;
    for (size_t j = 0; j < nplan; ++j) {
      if (given[j] && PyDict_SetItemString(kwargs, p->args[j].name.c_str(), given[j]) < 0) {
        Py_DECREF(kwargs);
        return nullptr;
      }
    }
    PyObject* r = PyObject_CallFunctionObjArgs(module_state.op_autograd_hook,
                                               reinterpret_cast<PyObject*>(self), kwargs, nullptr);
    Py_DECREF(kwargs);
    return r;
  }
  ValuesGuard vals;
  if (!vals.v) return raise_last_error();
  for (size_t j = 0; j < nplan; ++j) {
    if (!given[j]) {
      if (sdk_op_push_default(self->op, static_cast<int64_t>(j), vals.v) != SDK_OK) {
        return raise_last_error();
      }
    } else if (!push_arg(self, *p, p->args[j], given[j], vals.v)) {
      return nullptr;
    }
  }
  sdk_status st = key < 0 ? sdk_op_call(self->op, vals.v) : sdk_op_call_key(self->op, key, vals.v);
  if (st != SDK_OK) return raise_call_error();
  return results_to_py(vals.v);
}

PyObject* op_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  return call_op(reinterpret_cast<OpObject*>(self), -1, false, args, PyVectorcall_NARGS(nargsf),
                 kwnames);
}

// op._call_below_autograd(*args, **kwargs): the device kernel, never the autograd hook.
PyObject* op_call_below(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) {
  return call_op(reinterpret_cast<OpObject*>(self), -1, true, args, nargs, kwnames);
}

// op._call_key(key, *args, **kwargs): the kernel of one dispatch key.
PyObject* op_call_key(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs < 1) {
    PyErr_SetString(PyExc_TypeError, "_call_key(key, *args, **kwargs) needs a key");
    return nullptr;
  }
  long key = PyLong_AsLong(args[0]);
  if (key == -1 && PyErr_Occurred()) return nullptr;
  return call_op(reinterpret_cast<OpObject*>(self), static_cast<int32_t>(key), true, args + 1,
                 nargs - 1, kwnames);
}

// op._default(i): argument i's default value, as Python.
PyObject* op_default(PyObject* self, PyObject* index) {
  long i = PyLong_AsLong(index);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  ValuesGuard vals;
  if (!vals.v || sdk_op_push_default(reinterpret_cast<OpObject*>(self)->op, i, vals.v) != SDK_OK) {
    return raise_last_error();
  }
  return value_to_py(vals.v, 0);
}

PyObject* op_has_kernel(PyObject* self, PyObject* key) {
  long k = PyLong_AsLong(key);
  if (k == -1 && PyErr_Occurred()) return nullptr;
  return PyBool_FromLong(sdk_op_has_kernel(reinterpret_cast<OpObject*>(self)->op, k));
}

PyObject* spec_dict(const ArgPlan& a) {
  return Py_BuildValue("{s:s,s:s,s:O,s:O,s:O,s:O,s:i}", "name", a.name.c_str(), "type",
                       a.type.c_str(), "optional", a.optional ? Py_True : Py_False, "kwarg_only",
                       a.kwarg_only ? Py_True : Py_False, "has_default",
                       a.has_default ? Py_True : Py_False, "is_write", Py_False, "list_size",
                       a.list_size);
}

PyObject* specs_list(OpObject* self, int32_t is_return) {
  PlanRef p = plan_of(self);
  if (!p) return nullptr;
  const auto& specs = is_return ? p->rets : p->args;
  PyObject* l = PyList_New(static_cast<Py_ssize_t>(specs.size()));
  for (size_t k = 0; l && k < specs.size(); ++k) {
    PyObject* d = spec_dict(specs[k]);
    sdk_op_argument info{};
    info.size = sizeof(info);
    if (!d || sdk_op_argument_info(self->op, is_return, static_cast<int64_t>(k), &info) != SDK_OK) {
      Py_XDECREF(d);
      Py_DECREF(l);
      return d ? raise_last_error() : nullptr;
    }
    PyDict_SetItemString(d, "is_write", info.is_write ? Py_True : Py_False);
    PyObject* alias = PyUnicode_FromString(info.alias);
    PyObject* dflt = PyUnicode_FromString(info.default_text);
    if (alias) PyDict_SetItemString(d, "alias", alias);
    if (dflt) PyDict_SetItemString(d, "default", dflt);
    Py_XDECREF(alias);
    Py_XDECREF(dflt);
    PyList_SET_ITEM(l, k, d);
  }
  return l;
}

PyObject* op_get_arguments(PyObject* self, void*) {
  return specs_list(reinterpret_cast<OpObject*>(self), 0);
}
PyObject* op_get_returns(PyObject* self, void*) {
  return specs_list(reinterpret_cast<OpObject*>(self), 1);
}
PyObject* op_get_name(PyObject* self, void*) {
  return PyUnicode_FromString(sdk_op_name(reinterpret_cast<OpObject*>(self)->op));
}
PyObject* op_get_schema(PyObject* self, void*) {
  return PyUnicode_FromString(sdk_op_schema(reinterpret_cast<OpObject*>(self)->op));
}

// op.default is the op itself; op.<overload> is "ns::name.<overload>" (for a default one).
PyObject* op_getattro(PyObject* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  const char* n = PyUnicode_AsUTF8(name);
  std::string qualified = sdk_op_name(reinterpret_cast<OpObject*>(self)->op);
  if (!n || n[0] == '_' || qualified.find('.') != std::string::npos) return nullptr;
  PyErr_Clear();
  if (std::strcmp(n, "default") == 0) return new_ref(self);
  std::string full = qualified + "." + n;
  const sdk_op* op = nullptr;
  if (sdk_op_find(full.c_str(), &op) != SDK_OK) {
    PyErr_Format(PyExc_AttributeError, "op %s has no attribute or overload '%s'", qualified.c_str(),
                 n);
    return nullptr;
  }
  PyObject* s = PyUnicode_FromString(full.c_str());
  if (!s) return nullptr;
  PyObject* found = m_op_find(nullptr, s);
  Py_DECREF(s);
  return found;
}

PyObject* op_repr(PyObject* self) {
  const sdk_op* op = reinterpret_cast<OpObject*>(self)->op;
  return PyUnicode_FromFormat("<op %s: %s>", sdk_op_name(op), sdk_op_schema(op));
}

void op_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<OpObject*>(self);
  PyObject_GC_UnTrack(self);
  if (o->weakreflist) PyObject_ClearWeakRefs(self);
  Py_CLEAR(o->dict);
  o->plan.~PlanRef();
  Py_TYPE(self)->tp_free(self);
}

int op_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<OpObject*>(self)->dict);
  return 0;
}

int op_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<OpObject*>(self)->dict);
  return 0;
}

PyMethodDef op_methods[] = {
    {"_call_below_autograd", SDK_PY_AS_CFUNCTION(op_call_below), METH_FASTCALL | METH_KEYWORDS,
     "Call the device kernel, without the autograd hook."},
    {"_call_key", SDK_PY_AS_CFUNCTION(op_call_key), METH_FASTCALL | METH_KEYWORDS,
     "_call_key(key, *args, **kwargs): one dispatch key's kernel."},
    {"_has_kernel", op_has_kernel, METH_O, "Whether the op has a kernel for a dispatch key."},
    {"_default", op_default, METH_O, "_default(i): argument i's default value."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef op_getset[] = {
    {"name", op_get_name, nullptr, "'ns::name' or 'ns::name.overload'", nullptr},
    {"schema", op_get_schema, nullptr, "The schema, in canonical text.", nullptr},
    {"arguments", op_get_arguments, nullptr, "The schema's arguments (dicts).", nullptr},
    {"returns", op_get_returns, nullptr, "The schema's returns (dicts).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// ---- module functions --------------------------------------------------------------------

PyObject* new_op_object(const sdk_op* op) {
  OpObject* o = PyObject_GC_New(OpObject, &OpType);
  if (!o) return nullptr;
  o->op = op;
  new (&o->plan) PlanRef();
  o->vectorcall = op_vectorcall;
  o->dict = nullptr;
  o->weakreflist = nullptr;
  PyObject_GC_Track(o);
  return reinterpret_cast<PyObject*>(o);
}

// op_find(name) -> OpHandle (the same object for every call with the same op)
PyObject* m_op_find(PyObject*, PyObject* name) {
  static PyObject* cache = PyDict_New();  // op address -> handle
  const char* n = c_text(name, "op_find", "the op name");
  if (!n) return nullptr;
  const sdk_op* op = nullptr;
  if (sdk_op_find(n, &op) != SDK_OK) return raise_last_error();
  PyObject* key = PyLong_FromVoidPtr(const_cast<sdk_op*>(op));
  if (!key) return nullptr;
  PyObject* found = PyDict_GetItemWithError(cache, key);
  if (found) {
    Py_DECREF(key);
    return new_ref(found);
  }
  PyObject* h = new_op_object(op);
  if (h && PyDict_SetItem(cache, key, h) < 0) Py_CLEAR(h);
  Py_DECREF(key);
  return h;
}

// op_list(ns or None) -> list of "ns::name"
PyObject* m_op_list(PyObject*, PyObject* ns) {
  const char* n = ns == Py_None ? nullptr : c_text(ns, "op_list", "the namespace");
  if (ns != Py_None && !n) return nullptr;
  std::string all = sdk_op_list(n);
  PyObject* l = PyList_New(0);
  size_t start = 0;
  while (l && start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    PyObject* s =
        PyUnicode_FromStringAndSize(all.data() + start, static_cast<Py_ssize_t>(end - start));
    if (!s || PyList_Append(l, s) < 0) {
      Py_XDECREF(s);
      Py_DECREF(l);
      return nullptr;
    }
    Py_DECREF(s);
    start = end + 1;
  }
  return l;
}

PyObject* m_set_op_autograd_hook(PyObject*, PyObject* fn) {
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "the autograd hook must be callable or None");
    return nullptr;
  }
  Py_XSETREF(module_state.op_autograd_hook, fn == Py_None ? nullptr : new_ref(fn));
  Py_RETURN_NONE;
}

PyObject* m_set_op_foreign_hook(PyObject*, PyObject* fn) {
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "the foreign-array hook must be callable or None");
    return nullptr;
  }
  Py_XSETREF(module_state.op_foreign_hook, fn == Py_None ? nullptr : new_ref(fn));
  Py_RETURN_NONE;
}

PyTypeObject OpType = {
    PyVarObject_HEAD_INIT(nullptr, 0) "sdk._C.OpHandle", /* tp_name */
};

}  // namespace

PyMethodDef op_registry_methods[] = {
    {"op_find", m_op_find, METH_O, "op_find('ns::name[.overload]') -> OpHandle"},
    {"op_list", m_op_list, METH_O, "op_list(ns or None) -> ['ns::name', ...]"},
    {"_set_op_autograd_hook", m_set_op_autograd_hook, METH_O,
     "hook(op, kwargs) runs ops whose tensor arguments require grad."},
    {"_set_op_foreign_hook", m_set_op_foreign_hook, METH_O,
     "hook(op, kwargs, key, no_hook) runs ops called with another framework's tensors."},
    {nullptr, nullptr, 0, nullptr},
};

int op_registry_ready(PyObject* m) {
  OpType.tp_basicsize = sizeof(OpObject);
  OpType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  OpType.tp_doc = "A registered operator: call it like the function its schema describes.";
  OpType.tp_dealloc = op_dealloc;
  OpType.tp_traverse = op_traverse;
  OpType.tp_clear = op_clear;
  OpType.tp_call = PyVectorcall_Call;
  OpType.tp_vectorcall_offset = offsetof(OpObject, vectorcall);
  OpType.tp_dictoffset = offsetof(OpObject, dict);
  OpType.tp_weaklistoffset = offsetof(OpObject, weakreflist);
  OpType.tp_repr = op_repr;
  OpType.tp_getattro = op_getattro;
  OpType.tp_methods = op_methods;
  OpType.tp_getset = op_getset;
  if (PyType_Ready(&OpType) < 0) return -1;
  Py_INCREF(&OpType);
  if (PyModule_AddObject(m, "OpHandle", reinterpret_cast<PyObject*>(&OpType)) < 0) {
    Py_DECREF(&OpType);
    return -1;
  }
  PyModule_AddIntConstant(m, "DISPATCH_CPU", SDK_DISPATCH_CPU);
  PyModule_AddIntConstant(m, "DISPATCH_CUDA", SDK_DISPATCH_CUDA);
  PyModule_AddIntConstant(m, "DISPATCH_AUTOGRAD", SDK_DISPATCH_AUTOGRAD);
  PyModule_AddIntConstant(m, "DISPATCH_COMPOSITE_IMPLICIT_AUTOGRAD",
                          SDK_DISPATCH_COMPOSITE_IMPLICIT_AUTOGRAD);
  PyModule_AddIntConstant(m, "DISPATCH_COMPOSITE_EXPLICIT_AUTOGRAD",
                          SDK_DISPATCH_COMPOSITE_EXPLICIT_AUTOGRAD);
  PyModule_AddIntConstant(m, "LIBRARY_DEF", SDK_LIBRARY_DEF);
  PyModule_AddIntConstant(m, "LIBRARY_FRAGMENT", SDK_LIBRARY_FRAGMENT);
  PyModule_AddIntConstant(m, "LIBRARY_IMPL", SDK_LIBRARY_IMPL);
  return 0;
}

}  // namespace sdkpy
