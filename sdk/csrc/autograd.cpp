// sdk/csrc/autograd.cpp: the autograd engine the core forwards compiled code's autograd to.
// See c_api.h, "Autograd from C and C++": compiled code records into the graph sdk.autograd
// runs.
//
// A tensor's autograd state (requires_grad, grad, grad_fn, the _ag metadata) lives on its
// Python object; compiled code sees views (sdk_tensor handles). Each view's core slot ties
// it to that state:
// - a Python object pointer (borrowed; the object holds the view, so it outlives neither):
//   the object "owns" the view, and its state is the view's;
// - a tagged State*: the owner died while compiled code kept the view, and left its state
//   here; the next object made for the view takes it back;
// - NULL: neither (a view that never crossed the boundary).
// Tensors cross in through boundary_in (which makes the object the owner of its view) and
// out through boundary_out (which returns the owner, or makes one), so a tensor keeps its
// identity and its history on its way through C++ and back.
// Two objects may share one view (detach() makes such a second object); the one that does
// not own it gets a view of its own when autograd state is at stake, so each keeps its own.
#include <string>

#include "args.h"
#include "common.h"
#include "sdk/python_errors.h"

using namespace sdkpy;

namespace {

// State left behind by an owner that died before its view.
struct State {
  PyObject* grad;
  PyObject* grad_fn;
  PyObject* ag;
  bool requires_grad;
};

// The decoded slot of a view.
struct Slot {
  PyObject* owner = nullptr;
  State* state = nullptr;
  explicit Slot(const sdk_tensor* h) {
    auto v = reinterpret_cast<uintptr_t>(sdk_tensor_autograd_slot(h));
    if (v & 1)
      state = reinterpret_cast<State*>(v & ~uintptr_t(1));
    else
      owner = reinterpret_cast<PyObject*>(v);
  }
  bool empty() const { return !owner && !state; }
  bool requires_grad() const {
    return owner ? tensor_object(owner)->requires_grad != 0 : state && state->requires_grad;
  }
  PyObject* grad() const {
    return owner ? tensor_object(owner)->grad : state ? state->grad : nullptr;
  }
  PyObject* grad_fn() const {
    return owner ? tensor_object(owner)->grad_fn : state ? state->grad_fn : nullptr;
  }
};

void* tagged(State* s) { return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(s) | 1); }

// Object t becomes the owner of its view (which has an empty slot).
void own(PyObject* t) {
  sdk_tensor_set_autograd_slot(handle_of(t), t);
  tensor_object(t)->ag_linked = 1;
}

// Give object t a view of its own (same storage, sizes, strides and offset).
sdk_tensor* own_view(PyObject* t) {
  sdk_tensor* h = handle_of(t);
  sdk_tensor* v = nullptr;
  if (sdk_as_strided(h, sdk_tensor_ndim(h), sdk_tensor_sizes(h), sdk_tensor_strides(h),
                     sdk_tensor_storage_offset(h), &v) != SDK_OK) {
    return nullptr;
  }
  tensor_object(t)->handle = v;
  sdk_tensor_release(h);
  return v;
}

}  // namespace

namespace sdkpy {

sdk_tensor* boundary_in(PyObject* t) {
  sdk_tensor* h = handle_of(t);
  if (!h) {
    PyErr_SetString(PyExc_RuntimeError, "this Tensor has no data (uninitialized or cleared)");
    return nullptr;
  }
  Slot s(h);
  if (s.owner == t) return h;
  if (!s.empty()) {
    if (!tensor_object(t)->requires_grad && !s.requires_grad())
      return h;       // no state at stake: share
    h = own_view(t);  // the view's state is another object's
    if (!h) return static_cast<sdk_tensor*>((raise_last_error(), nullptr));
  }
  own(t);
  return h;
}

PyObject* boundary_out(sdk_tensor* h) {
  if (!h) return wrap(h);
  Slot s(h);
  if (s.owner) {
    sdk_tensor_release(h);
    Py_INCREF(s.owner);
    return s.owner;
  }
  PyObject* t = wrap(h);
  if (!t) return nullptr;
  if (State* st = s.state) {  // take back the state a dead owner left
    tensor_object(t)->grad = st->grad;
    tensor_object(t)->grad_fn = st->grad_fn;
    tensor_object(t)->ag = st->ag;
    tensor_object(t)->requires_grad = st->requires_grad;
    delete st;
    sdk_tensor_set_autograd_slot(h, nullptr);
  }
  own(t);
  return t;
}

void autograd_unlink(PyObject* t) {
  sdk_tensor* h = handle_of(t);
  if (!h || Slot(h).owner != t) return;
  TensorObject* o = tensor_object(t);
  void* left = nullptr;
  // compiled code still holds the view: leave the state there
  if ((o->grad || o->grad_fn || o->ag || o->requires_grad) && sdk_tensor_use_count(h) > 1) {
    left = tagged(new State{o->grad, o->grad_fn, o->ag, o->requires_grad != 0});
    o->grad = o->grad_fn = o->ag = nullptr;
  }
  sdk_tensor_set_autograd_slot(h, left);
}

}  // namespace sdkpy

namespace {

// ---- the engine's entries (any thread: each takes the GIL) -----------------------------

struct Gil {
  PyGILState_STATE st = PyGILState_Ensure();
  ~Gil() { PyGILState_Release(st); }
};

// The pending Python exception as a core error (its type's kind, its message).
sdk_status error_from_python(const char* what) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  sdk_status kind = sdk::detail::status_from_python(type, value, what);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return kind;
}

void engine_release_slot(void* p) {
  auto v = reinterpret_cast<uintptr_t>(p);
  if (!(v & 1)) return;  // an owner: it holds the view, so this does not happen
  State* s = reinterpret_cast<State*>(v & ~uintptr_t(1));
  if (!Py_IsInitialized() || interpreter_finalizing())
    return;  // the interpreter is going away: leak
  Gil gil;
  Py_XDECREF(s->grad);
  Py_XDECREF(s->grad_fn);
  Py_XDECREF(s->ag);
  delete s;
}

int32_t engine_requires_grad(const sdk_tensor* h) {
  Gil gil;
  return Slot(h).requires_grad() ? 1 : 0;
}

int32_t engine_is_leaf(const sdk_tensor* h) {
  Gil gil;
  return Slot(h).grad_fn() ? 0 : 1;
}

sdk_status engine_grad(const sdk_tensor* h, sdk_tensor** out) {
  Gil gil;
  PyObject* g = Slot(h).grad();
  *out = nullptr;
  if (g && is_tensor(g)) {
    sdk_tensor* gh = boundary_in(g);
    if (!gh) return error_from_python("grad");
    sdk_tensor_retain(gh);
    *out = gh;
  }
  return SDK_OK;
}

sdk_status engine_set_requires_grad(sdk_tensor* h, int32_t on) {
  Gil gil;
  sdk_tensor_retain(h);
  PyObject* t = boundary_out(h);  // the object that owns the view (made if needed)
  if (!t) return error_from_python("set_requires_grad");
  PyObject* r = PyObject_CallMethod(t, "requires_grad_", "O", on ? Py_True : Py_False);
  Py_DECREF(t);
  if (!r) return error_from_python("set_requires_grad");
  Py_DECREF(r);
  return SDK_OK;
}

// The context of a recorded call: the backward function and what it owns.
struct Recorded {
  sdk_backward_fn backward;
  void* context;
  void (*context_free)(void*);
};
const char* const kRecordedCapsule = "sdk._C.recorded_backward";

void recorded_free(PyObject* cap) {
  auto* r = static_cast<Recorded*>(PyCapsule_GetPointer(cap, kRecordedCapsule));
  if (!r) {
    PyErr_Clear();
    return;
  }
  if (r->context_free) r->context_free(r->context);
  delete r;
}

sdk_status engine_record(const char* name, sdk_tensor* const* inputs, int64_t n_in,
                         sdk_tensor* const* outputs, int64_t n_out, int32_t flags,
                         sdk_backward_fn backward, void* context, void (*context_free)(void*)) {
  Gil gil;
  auto* rec = new Recorded{backward, context, context_free};
  PyObject* cap = PyCapsule_New(rec, kRecordedCapsule, recorded_free);
  if (!cap) {
    context_free(context);
    delete rec;
    return error_from_python(name);
  }
  for (int64_t i = 0; i < n_out; ++i) {
    for (int64_t j = 0; outputs[i] && j < n_in; ++j) {
      if (outputs[i] == inputs[j]) {
        Py_DECREF(cap);
        return sdk_set_last_error(
            SDK_ERROR_VALUE, (std::string(name) + ": output " + std::to_string(i) + " is input " +
                              std::to_string(j) + "; record a view of it (a new tensor) instead")
                                 .c_str());
      }
    }
  }
  PyObject* ins = PyTuple_New(n_in);
  PyObject* outs = PyTuple_New(n_out);
  bool ok = ins && outs;
  for (int64_t i = 0; ok && i < n_in; ++i) {
    PyObject* x = Py_None;
    if (inputs[i]) {
      sdk_tensor_retain(inputs[i]);
      x = boundary_out(inputs[i]);
    } else {
      Py_INCREF(x);
    }
    ok = x != nullptr;
    if (ok) PyTuple_SET_ITEM(ins, i, x);
  }
  for (int64_t i = 0; ok && i < n_out; ++i) {
    PyObject* x = Py_None;
    if (outputs[i]) {
      sdk_tensor_retain(outputs[i]);
      x = boundary_out(outputs[i]);
    } else {
      Py_INCREF(x);
    }
    ok = x != nullptr;
    if (ok) PyTuple_SET_ITEM(outs, i, x);
  }
  if (ok && !module_state.record_compiled) {
    PyObject* mod = PyImport_ImportModule("sdk.autograd.function");
    module_state.record_compiled = mod ? PyObject_GetAttrString(mod, "_record_compiled") : nullptr;
    Py_XDECREF(mod);
    ok = module_state.record_compiled != nullptr;
  }
  PyObject* r = nullptr;
  if (ok) {
    PyObject* pyname = PyUnicode_FromString(name);
    r = pyname ? PyObject_CallFunction(module_state.record_compiled, "OOOiO", pyname, ins, outs,
                                       int(flags), cap)
               : nullptr;
    Py_XDECREF(pyname);
    ok = r != nullptr;
    Py_XDECREF(r);
  }
  Py_XDECREF(ins);
  Py_XDECREF(outs);
  Py_DECREF(cap);
  return ok ? SDK_OK : error_from_python(name);
}

// Tensor.backward(gradient, retain_graph=..., create_graph=...) of the tensor's Python object.
sdk_status engine_backward(sdk_tensor* h, const sdk_tensor* gradient, int32_t flags) {
  Gil gil;
  sdk_tensor_retain(h);
  PyObject* t = boundary_out(h);
  if (!t) return error_from_python("backward");
  PyObject* g = Py_None;
  Py_INCREF(g);
  if (gradient) {
    sdk_tensor_retain(const_cast<sdk_tensor*>(gradient));
    Py_DECREF(g);
    g = boundary_out(const_cast<sdk_tensor*>(gradient));
  }
  PyObject* kwargs =
      g ? Py_BuildValue("{s:O,s:O}", "retain_graph",
                        (flags & SDK_BACKWARD_RETAIN_GRAPH) ? Py_True : Py_None, "create_graph",
                        (flags & SDK_BACKWARD_CREATE_GRAPH) ? Py_True : Py_False)
        : nullptr;
  PyObject* method = kwargs ? PyObject_GetAttrString(t, "backward") : nullptr;
  PyObject* args = method ? PyTuple_Pack(1, g) : nullptr;
  PyObject* r = args ? PyObject_Call(method, args, kwargs) : nullptr;
  Py_XDECREF(r);
  Py_XDECREF(args);
  Py_XDECREF(method);
  Py_XDECREF(kwargs);
  Py_XDECREF(g);
  Py_DECREF(t);
  return r ? SDK_OK : error_from_python("backward");
}

const sdk_autograd_engine kEngine = {
    sizeof(sdk_autograd_engine),
    0,
    engine_release_slot,
    engine_requires_grad,
    engine_set_requires_grad,
    engine_grad,
    engine_is_leaf,
    engine_record,
    engine_backward,
};

// _C._run_compiled_backward(capsule, grads) -> tuple: the gradients (tensor or None) per input.
PyObject* m_run_compiled_backward(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!check_nargs("_run_compiled_backward", nargs, 2, 2)) return nullptr;
  auto* rec = static_cast<Recorded*>(PyCapsule_GetPointer(args[0], kRecordedCapsule));
  if (!rec) return nullptr;
  PyObject* grads = sequence_snapshot(args[1], "grads must be a sequence");
  if (!grads) return nullptr;
  sdk_values* v = nullptr;
  if (sdk_values_new(&v) != SDK_OK) {
    Py_DECREF(grads);
    return raise_last_error();
  }
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(grads); ++i) {
    PyObject* g = PyTuple_GET_ITEM(grads, i);
    if (g == Py_None) {
      ok = sdk_values_push_none(v) == SDK_OK || raise_last_error();
    } else if (is_tensor(g)) {
      sdk_tensor* h = boundary_in(g);
      ok = h && (sdk_values_push_tensor(v, h) == SDK_OK || raise_last_error());
    } else {
      PyErr_Format(PyExc_TypeError, "gradient %zd is a %s, not a Tensor or None", i,
                   Py_TYPE(g)->tp_name);
      ok = false;
    }
  }
  Py_DECREF(grads);
  sdk_status st = SDK_OK;
  if (ok) {
    Py_BEGIN_ALLOW_THREADS;
    st = rec->backward(rec->context, v);
    Py_END_ALLOW_THREADS;
  }
  PyObject* out = nullptr;
  if (ok && st != SDK_OK) raise_last_error();
  if (ok && st == SDK_OK) {
    int64_t n = sdk_values_size(v);
    out = PyTuple_New(n);
    for (int64_t i = 0; out && i < n; ++i) {
      PyObject* x = nullptr;
      int32_t tag = sdk_values_tag(v, i);
      if (tag == SDK_VALUE_NONE) {
        x = Py_None;
        Py_INCREF(x);
      } else if (tag == SDK_VALUE_TENSOR) {
        sdk_tensor* h = nullptr;
        x = sdk_values_take_tensor(v, i, &h) == SDK_OK ? boundary_out(h) : raise_last_error();
      } else {
        PyErr_Format(PyExc_TypeError,
                     "a compiled backward returned a value of tag %d at position %lld; "
                     "expected a tensor or None per input",
                     int(tag), static_cast<long long>(i));
      }
      if (!x) {
        Py_CLEAR(out);
        break;
      }
      PyTuple_SET_ITEM(out, i, x);
    }
  }
  sdk_values_free(v);
  return out;
}

}  // namespace

namespace sdkpy {

PyMethodDef autograd_methods[] = {
    {"_run_compiled_backward", SDK_PY_AS_CFUNCTION(m_run_compiled_backward), METH_FASTCALL,
     "Run the backward of a call recorded by compiled code."},
    {nullptr, nullptr, 0, nullptr}};

int autograd_ready(PyObject*) {
  return sdk_autograd_set_engine(&kEngine) == SDK_OK ? 0 : (raise_last_error(), -1);
}

}  // namespace sdkpy
