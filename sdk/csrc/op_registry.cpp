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
#include "dlpack_exchange.h"
#include "op_values.h"
#include "sdk/dispatch_key.h"

namespace sdkpy {
namespace {

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
    out->push_back(arg_plan_of(info));
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
  if (a.tag != SDK_VALUE_TENSOR_LIST || (!PyList_CheckExact(o) && !PyTuple_CheckExact(o))) {
    return false;
  }
  // a snapshot: an item's __getattr__ (run by the attribute checks) may change the list
  OwnedRef items(PySequence_Tuple(o));
  if (!items.p) {
    PyErr_Clear();  // push_arg reports what is wrong with the argument
    return false;
  }
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(items.p); ++k) {
    if (is_foreign_array(PyTuple_GET_ITEM(items.p, k))) return true;
  }
  return false;
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

// The call's arguments in schema order into `given` (NULL: not given): false with the
// TypeError torch's binding raises for too many, unknown, repeated or missing ones.
bool bind_args(const char* op, const Plan& p, PyObject* const* args, Py_ssize_t nargs,
               PyObject* kwnames, PyObject** given) {
  size_t nplan = p.args.size();
  size_t npos = 0;
  while (npos < nplan && !p.args[npos].kwarg_only) ++npos;
  if (static_cast<size_t>(nargs) > npos) {
    PyErr_Format(PyExc_TypeError,
                 "%s() takes %zu positional argument%s but %zd were given "
                 "(schema: %s)",
                 op, npos, npos == 1 ? "" : "s", nargs, p.schema_text.c_str());
    return false;
  }
  for (Py_ssize_t k = 0; k < nargs; ++k) given[k] = args[k];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* kw = PyTuple_GET_ITEM(kwnames, k);
    const char* kname = PyUnicode_AsUTF8(kw);
    if (!kname) return false;
    size_t j = 0;
    while (j < nplan && p.args[j].name != kname) ++j;
    if (j == nplan) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s' (schema: %s)", op,
                   kname, p.schema_text.c_str());
      return false;
    }
    if (given[j]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", op, kname);
      return false;
    }
    given[j] = args[nargs + k];
  }
  for (size_t j = 0; j < nplan; ++j) {
    if (!given[j] && !p.args[j].has_default) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (schema: %s)", op,
                   p.args[j].name.c_str(), p.schema_text.c_str());
      return false;
    }
  }
  return true;
}

// sdk.library's autograd hook(op, kwargs) with every given argument by name: it records
// autograd around the op.
PyObject* call_autograd_hook(OpObject* self, const Plan& p, PyObject* const* given) {
  OwnedRef kwargs(PyDict_New());
  if (!kwargs.p) return nullptr;
  for (size_t j = 0; j < p.args.size(); ++j) {
    if (given[j] && PyDict_SetItemString(kwargs.p, p.args[j].name.c_str(), given[j]) < 0) {
      return nullptr;
    }
  }
  return PyObject_CallFunctionObjArgs(module_state.op_autograd_hook,
                                      reinterpret_cast<PyObject*>(self), kwargs.p, nullptr);
}

// The call itself: the given arguments (defaults for the others) as boxed values, the core's
// call, and its results back as Python.
PyObject* call_boxed(OpObject* self, int32_t key, const Plan& p, PyObject* const* given) {
  ValuesGuard vals;
  if (!vals.v) return raise_last_error();
  ValueSite site{sdk_op_name(self->op), p.schema_text.c_str(), false};
  for (size_t j = 0; j < p.args.size(); ++j) {
    if (!given[j]) {
      if (sdk_op_push_default(self->op, static_cast<int64_t>(j), vals.v) != SDK_OK) {
        return raise_last_error();
      }
    } else if (!push_value(site, p.args[j], given[j], vals.v)) {
      return nullptr;
    }
  }
  sdk_status st = key < 0 ? sdk_op_call(self->op, vals.v) : sdk_op_call_key(self->op, key, vals.v);
  if (st != SDK_OK) return raise_call_error();
  return results_to_py(vals.v);
}

// Call `self` with `key` (-1: by device), skipping the autograd hook when `no_hook`.
PyObject* call_op(OpObject* self, int32_t key, bool no_hook, PyObject* const* args,
                  Py_ssize_t nargs, PyObject* kwnames) {
  PlanRef held = plan_of(self);  // kept to the end of the call, whatever redefines the op
  if (!held) return nullptr;
  const Plan* p = held.get();
  size_t nplan = p->args.size();
  PyObject* given_small[16] = {};
  std::vector<PyObject*> given_big;
  if (nplan > 16) given_big.assign(nplan, nullptr);
  PyObject** given = nplan > 16 ? given_big.data() : given_small;
  if (!bind_args(sdk_op_name(self->op), *p, args, nargs, kwnames, given)) return nullptr;
  bool grad = false;
  bool foreign = false;
  for (size_t j = 0; j < nplan; ++j) {
    if (given[j] &&
        (p->args[j].tag == SDK_VALUE_TENSOR || p->args[j].tag == SDK_VALUE_TENSOR_LIST)) {
      if (!grad) grad = arg_requires_grad(given[j]);
      if (!foreign) foreign = has_foreign_array(p->args[j], given[j]);
    }
  }
  if (foreign) return call_foreign(self, key, no_hook, *p, given);
  if (grad && !no_hook && grad_enabled()) {
    if (!module_state.op_autograd_hook) {
      PyObject* lib = PyImport_ImportModule("sdk.library");  // installs the hook
      if (!lib) return nullptr;
      Py_DECREF(lib);
    }
    if (module_state.op_autograd_hook) return call_autograd_hook(self, *p, given);
  }
  return call_boxed(self, key, *p, given);
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

// The results of an exchange call in the framework's type: a result the schema aliases to
// a written argument (aliases[i] = its index, else -1) is the caller's object.
PyObject* exchange_result(const ExchangeApi* api, PyObject* r, PyObject* aliases, size_t i,
                          PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                          const Plan& p) {
  long k = i < static_cast<size_t>(PyTuple_GET_SIZE(aliases))
               ? PyLong_AsLong(PyTuple_GET_ITEM(aliases, static_cast<Py_ssize_t>(i)))
               : -1;
  if (k >= 0 && k < nargs) return new_ref(args[k]);
  if (k >= 0 && kwnames) {
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kwnames); ++j) {
      const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, j));
      if (name && p.args[static_cast<size_t>(k)].name == name) return new_ref(args[nargs + j]);
    }
  }
  return is_tensor(r) ? exchange_out(api, r) : new_ref(r);
}

// op._call_exchange(api, aliases, *args, **kwargs): the device kernel for another
// framework's tensors, converted in and out through its DLPack exchange table (`api`, the
// capsule of its tensor type); what sdk.interop.torch registers as the torch kernel.
PyObject* op_call_exchange(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames) {
  if (nargs < 2 || !PyTuple_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_call_exchange(api, aliases, *args, **kwargs)");
    return nullptr;
  }
  const ExchangeApi* api = exchange_api_of(args[0]);
  if (!api) return nullptr;
  auto* op = reinterpret_cast<OpObject*>(self);
  PlanRef held = plan_of(op);
  if (!held) return nullptr;
  Py_ssize_t n = nargs - 2, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  PyObject* const* given = args + 2;
  std::vector<OwnedRef> converted(static_cast<size_t>(n + nkw));
  std::vector<PyObject*> call_args(static_cast<size_t>(n + nkw));
  for (Py_ssize_t k = 0; k < n + nkw; ++k) {
    PyObject* o = given[k];
    if (!is_tensor(o) && o != Py_None && exchange_owns(args[0], o)) {
      converted[k].p = exchange_in(api, o);
      if (!converted[k].p) return nullptr;
      o = converted[k].p;
    }
    call_args[k] = o;
  }
  OwnedRef r(call_op(op, -1, true, call_args.data(), n, kwnames));
  if (!r.p) return nullptr;
  if (!PyTuple_Check(r.p)) {
    if (r.p == Py_None) return new_ref(Py_None);
    return exchange_result(api, r.p, args[1], 0, given, n, kwnames, *held);
  }
  Py_ssize_t m = PyTuple_GET_SIZE(r.p);
  OwnedRef out(PyTuple_New(m));
  for (Py_ssize_t i = 0; out.p && i < m; ++i) {
    PyObject* x = exchange_result(api, PyTuple_GET_ITEM(r.p, i), args[1], static_cast<size_t>(i),
                                  given, n, kwnames, *held);
    if (!x) return nullptr;
    PyTuple_SET_ITEM(out.p, i, x);
  }
  return out.p ? new_ref(out.p) : nullptr;
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

// ---- Meta kernels: shape-only calls (c_api.h, "Meta tensors"; values: op_meta.cpp) -------

// op._call_meta(make_meta, *args, **kwargs): the op's Meta kernel on meta tensors; its
// tensor results come back as make_meta(shape, dtype). What sdk.library.fake_call runs when
// the op has a C++ Meta kernel and no Python shape function.
PyObject* op_call_meta(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs < 1 || !PyCallable_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "_call_meta(make_meta, *args, **kwargs)");
    return nullptr;
  }
  auto* op = reinterpret_cast<OpObject*>(self);
  PlanRef held = plan_of(op);
  if (!held) return nullptr;
  const Plan& p = *held;
  std::vector<PyObject*> given(p.args.size() + 1, nullptr);
  if (!bind_args(sdk_op_name(op->op), p, args + 1, nargs - 1, kwnames, given.data())) {
    return nullptr;
  }
  ValuesGuard vals;
  if (!vals.v) return raise_last_error();
  ValueSite site{sdk_op_name(op->op), p.schema_text.c_str(), false};
  for (size_t j = 0; j < p.args.size(); ++j) {
    if (!given[j]) {
      if (sdk_op_push_default(op->op, static_cast<int64_t>(j), vals.v) != SDK_OK) {
        return raise_last_error();
      }
    } else if (!push_meta_arg(site, p.args[j], given[j], vals.v)) {
      return nullptr;
    }
  }
  if (sdk_op_call_key(op->op, SDK_DISPATCH_META, vals.v) != SDK_OK) return raise_call_error();
  int64_t n = sdk_values_size(vals.v);
  if (n == 0) Py_RETURN_NONE;
  if (n == 1) return meta_value_to_py(args[0], vals.v, 0);
  OwnedRef t(PyTuple_New(n));
  for (int64_t k = 0; t.p && k < n; ++k) {
    PyObject* x = meta_value_to_py(args[0], vals.v, k);
    if (!x) return nullptr;
    PyTuple_SET_ITEM(t.p, k, x);
  }
  return t.p ? new_ref(t.p) : nullptr;
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
    {"_call_exchange", SDK_PY_AS_CFUNCTION(op_call_exchange), METH_FASTCALL | METH_KEYWORDS,
     "_call_exchange(api, aliases, *args, **kwargs): the kernel for DLPack-exchange tensors"},
    {"_call_below_autograd", SDK_PY_AS_CFUNCTION(op_call_below), METH_FASTCALL | METH_KEYWORDS,
     "Call the device kernel, without the autograd hook."},
    {"_call_key", SDK_PY_AS_CFUNCTION(op_call_key), METH_FASTCALL | METH_KEYWORDS,
     "_call_key(key, *args, **kwargs): one dispatch key's kernel."},
    {"_call_meta", SDK_PY_AS_CFUNCTION(op_call_meta), METH_FASTCALL | METH_KEYWORDS,
     "_call_meta(make_meta, *args, **kwargs): the Meta kernel on meta tensors."},
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
  const char* n = c_text(name, "op_find", "the op name");
  if (!n) return nullptr;
  const sdk_op* op = nullptr;
  if (sdk_op_find(n, &op) != SDK_OK) return raise_last_error();
  return op_handle(op);
}

}  // namespace

PyObject* op_handle(const sdk_op* op) {
  static PyObject* cache = PyDict_New();  // op address -> handle
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

namespace {

// op_list(ns or None) -> list of "ns::name"
PyObject* m_op_list(PyObject*, PyObject* ns) {
  const char* n = ns == Py_None ? nullptr : c_text(ns, "op_list", "the namespace");
  if (ns != Py_None && !n) return nullptr;
  return lines_to_list(sdk_op_list(n));
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

// sdk._C.DISPATCH_KEYS: {name: code} of every name a dispatch key is known by (sdk/dispatch_key.h),
// which sdk.library accepts; DISPATCH_IGNORED for keys whose kernels are dropped.
static int add_dispatch_key_names(PyObject* m) {
  PyObject* names = PyDict_New();
  if (!names || PyModule_AddObject(m, "DISPATCH_KEYS", names) < 0) {
    Py_XDECREF(names);
    return -1;
  }
  for (const auto& row : sdk::detail::kDispatchKeyNames) {
    PyObject* code = PyLong_FromLong(row.code);
    int rc = code ? PyDict_SetItemString(names, row.name, code) : -1;
    Py_XDECREF(code);
    if (rc < 0) return -1;
  }
  return 0;
}

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
#define SDKPY_DISPATCH_CONSTANT(key, code, name, meaning) \
  PyModule_AddIntConstant(m, "DISPATCH_" #key, SDK_DISPATCH_##key);
  SDK_DISPATCH_KEYS(SDKPY_DISPATCH_CONSTANT)
#undef SDKPY_DISPATCH_CONSTANT
  PyModule_AddIntConstant(m, "DISPATCH_IGNORED", SDK_DISPATCH_IGNORED);
  if (add_dispatch_key_names(m) < 0) return -1;
  PyModule_AddIntConstant(m, "LIBRARY_DEF", SDK_LIBRARY_DEF);
  PyModule_AddIntConstant(m, "LIBRARY_FRAGMENT", SDK_LIBRARY_FRAGMENT);
  PyModule_AddIntConstant(m, "LIBRARY_IMPL", SDK_LIBRARY_IMPL);
  return 0;
}

}  // namespace sdkpy
