// sdk/csrc/generator.cpp: the sdk.Generator type and the functions of the default generator.
// A Generator is a seedable core generator for generator= arguments, its state a uint8 tensor;
// the default generator's functions are manual_seed, get_rng_state and set_rng_state.
#include <random>

#include "args.h"
#include "common.h"

using namespace sdkpy;

namespace {

// ---- sdk.Generator --------------------------------------------------------------------------

struct GeneratorObject {
  PyObject_HEAD sdk_generator* gen;
  uint64_t seed;
};

uint64_t random_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

PyObject* gen_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  static const char* kw[] = {"seed", "device", nullptr};
  PyObject *seed = Py_None, *device = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:Generator", const_cast<char**>(kw), &seed,
                                   &device))
    return nullptr;
  uint64_t s = random_seed();
  if (seed != Py_None) {
    int64_t v;
    if (!int_arg(seed, "Generator", "seed", &v)) return nullptr;
    s = static_cast<uint64_t>(v);
  }
  PyObject* self = type->tp_alloc(type, 0);
  if (!self) return nullptr;
  auto* g = reinterpret_cast<GeneratorObject*>(self);
  g->seed = s;
  if (sdk_generator_create(s, &g->gen) != SDK_OK) {
    Py_DECREF(self);
    return raise_last_error();
  }
  return self;
}

void gen_dealloc(PyObject* self) {
  sdk_generator_destroy(reinterpret_cast<GeneratorObject*>(self)->gen);
  Py_TYPE(self)->tp_free(self);
}

PyObject* gen_manual_seed(PyObject* self, PyObject* arg) {
  int64_t v;
  if (!int_arg(arg, "manual_seed", "seed", &v)) return nullptr;
  auto* g = reinterpret_cast<GeneratorObject*>(self);
  g->seed = static_cast<uint64_t>(v);
  sdk_manual_seed(g->gen, g->seed);
  Py_INCREF(self);
  return self;
}
PyObject* gen_initial_seed(PyObject* self, PyObject*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<GeneratorObject*>(self)->seed);
}
PyObject* gen_seed(PyObject* self, PyObject*) {
  auto* g = reinterpret_cast<GeneratorObject*>(self);
  g->seed = random_seed() >> 1;
  sdk_manual_seed(g->gen, g->seed);
  return PyLong_FromUnsignedLongLong(g->seed);
}

// The state as a new 1-D uint8 tensor of SDK_GENERATOR_STATE_SIZE bytes (torch's ByteTensor).
PyObject* state_of(sdk_generator* gen) {
  int64_t n = SDK_GENERATOR_STATE_SIZE;
  sdk_tensor* t = nullptr;
  if (sdk_empty(1, &n, SDK_UINT8, sdk_device{SDK_CPU, 0}, &t) != SDK_OK ||
      sdk_generator_get_state(gen, sdk_tensor_data_ptr(t), n) != SDK_OK) {
    sdk_tensor_release(t);
    return raise_last_error();
  }
  return wrap(t);
}

// Restore from a uint8 tensor that state_of made.
PyObject* set_state_from(sdk_generator* gen, PyObject* arg, const char* op) {
  sdk_tensor* t;
  if (!tensor_arg(arg, op, "new_state", &t)) return nullptr;
  if (sdk_tensor_dtype(t) != SDK_UINT8 || sdk_tensor_ndim(t) != 1 ||
      sdk_tensor_device(t).type != SDK_CPU || !sdk_tensor_is_contiguous(t)) {
    PyErr_Format(PyExc_TypeError,
                 "%s(): new_state must be a contiguous 1-D uint8 CPU tensor (from get_state())",
                 op);
    return nullptr;
  }
  if (sdk_generator_set_state(gen, sdk_tensor_data_ptr(t), sdk_tensor_numel(t)) != SDK_OK) {
    return raise_last_error();
  }
  Py_RETURN_NONE;
}

PyObject* gen_get_state(PyObject* self, PyObject*) {
  return state_of(reinterpret_cast<GeneratorObject*>(self)->gen);
}
PyObject* gen_set_state(PyObject* self, PyObject* arg) {
  PyObject* r = set_state_from(reinterpret_cast<GeneratorObject*>(self)->gen, arg, "set_state");
  if (!r) return nullptr;
  Py_DECREF(r);
  Py_INCREF(self);
  return self;
}

PyMethodDef gen_methods[] = {
    {"get_state", gen_get_state, METH_NOARGS, "The state as a uint8 tensor."},
    {"set_state", gen_set_state, METH_O,
     "Restore a state from get_state(); returns the generator."},
    {"manual_seed", gen_manual_seed, METH_O, "Reseed; returns the generator."},
    {"initial_seed", gen_initial_seed, METH_NOARGS, "The seed last set."},
    {"seed", gen_seed, METH_NOARGS, "Reseed from a nondeterministic source; returns the seed."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyTypeObject GeneratorType = {PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

// ---- the default generator ---------------------------------------------------------------

PyObject* m_get_rng_state(PyObject*, PyObject*) { return state_of(nullptr); }
PyObject* m_set_rng_state(PyObject*, PyObject* arg) {
  return set_state_from(nullptr, arg, "set_rng_state");
}

SDK_PY_FASTCALL(o_manual_seed) {
  int64_t seed;
  if (!check_nargs("manual_seed", nargs, 1, 1) || !int_arg(args[0], "manual_seed", "seed", &seed))
    return nullptr;
  sdk_manual_seed(nullptr, static_cast<uint64_t>(seed));
  Py_RETURN_NONE;
}

}  // namespace

// Module functions on the default generator (the core's, used when generator= is None).
PyMethodDef sdkpy::generator_methods[] = {
    {"get_rng_state", m_get_rng_state, METH_NOARGS, "The default generator's state (uint8)."},
    {"set_rng_state", m_set_rng_state, METH_O, "Restore the default generator's state."},
    SDK_PY_FASTCALL_METHOD("manual_seed", o_manual_seed,
                           "manual_seed(seed): reseed the default generator"),
    {nullptr, nullptr, 0, nullptr}};

namespace sdkpy {

sdk_generator* generator_handle(PyObject* o, bool* ok) {
  *ok = true;
  if (o == Py_None) return nullptr;
  if (PyObject_TypeCheck(o, &GeneratorType)) return reinterpret_cast<GeneratorObject*>(o)->gen;
  PyErr_Format(PyExc_TypeError, "generator must be sdk.Generator or None, not %s",
               Py_TYPE(o)->tp_name);
  *ok = false;
  return nullptr;
}

int generator_type_ready(PyObject* module) {
  PyTypeObject& t = GeneratorType;
  t.tp_name = "sdk.Generator";
  t.tp_basicsize = sizeof(GeneratorObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = "Generator(seed=None): a seedable random generator for generator= arguments.";
  t.tp_new = gen_new;
  t.tp_dealloc = gen_dealloc;
  t.tp_methods = gen_methods;
  if (PyType_Ready(&t) < 0) return -1;
  Py_INCREF(&t);
  return PyModule_AddObject(module, "Generator", reinterpret_cast<PyObject*>(&t));
}

}  // namespace sdkpy
