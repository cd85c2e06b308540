// sdk/csrc/number_slots.cpp: _C.TensorBase's arithmetic slots with their no-grad fast path.
// + - * / // % ** @, & | ^, unary - and abs, ~, comparisons and the in-place forms go straight
// to the core; _C._register_fallbacks sets the Python functions they call when an operand
// needs grad.
#include <cstring>

#include "args.h"
#include "common.h"

using namespace sdkpy;

namespace {

// The arithmetic slots that call a Python function (ModuleState::arithmetic_fallbacks) when an
// operand needs grad.
enum ArithmeticFallback {
  FB_NONE = -1,  // none (~, comparisons): no grad; what the fast path cannot take: NotImplemented
  FB_ADD,
  FB_SUB,
  FB_MUL,
  FB_DIV,
  FB_FLOORDIV,
  FB_MOD,
  FB_POW,
  FB_MATMUL,
  FB_NEG,
  FB_ABS,
  FB_IADD,
  FB_ISUB,
  FB_IMUL,
  FB_IDIV,
  FB_IFLOORDIV,
  FB_IMOD,
  FB_IPOW,
  FB_AND,
  FB_OR,
  FB_XOR,
  FB_IAND,
  FB_IOR,
  FB_IXOR,
  FB_COUNT
};
static_assert(FB_COUNT == kArithmeticFallbackCount, "ModuleState::arithmetic_fallbacks' size");
// The keys of _register_fallbacks' dict, by ArithmeticFallback.
const char* kFallbackNames[FB_COUNT] = {
    "add",        "sub",         "mul",       "div",  "floor_divide", "remainder",
    "pow",        "matmul",      "neg",       "abs",  "iadd",         "isub",
    "imul",       "idiv",        "ifloordiv", "imod", "ipow",         "bitwise_and",
    "bitwise_or", "bitwise_xor", "iand",      "ior",  "ixor"};

// ---- the slots ---------------------------------------------------------------------------

// The Python function registered for `fb`, called with (a, b), or (a) when b is NULL.
PyObject* call_fallback(int fb, PyObject* a, PyObject* b) {
  PyObject* f = module_state.arithmetic_fallbacks[fb];
  if (!f) Py_RETURN_NOTIMPLEMENTED;
  PyObject* args[2] = {a, b};
  return PyObject_Vectorcall(f, args, b ? 2 : 1, nullptr);
}

// a op b: both tensors, or one tensor and one Python number, with no grad needed, go
// straight to the core; anything else (autograd, arrays, lists) goes to the Python op.
PyObject* binary_slot(PyObject* a, PyObject* b, int32_t op, int fb, bool differentiable) {
  bool ta = is_tensor(a), tb = is_tensor(b);
  bool grad = differentiable && grad_enabled();
  sdk_tensor* r = nullptr;
  if (ta && tb) {
    if (!(grad && (requires_grad_flag(a) || requires_grad_flag(b)))) {
      if (!has_data_or_raise(a) || !has_data_or_raise(b)) return nullptr;
      sdk_tensor *ha = handle_of(a), *hb = handle_of(b);
      sdk_status st;
      SDK_PY_RUN_NOGIL_IF_LARGE(sdk_tensor_numel(ha) + sdk_tensor_numel(hb),
                                st = sdk_binary(op, ha, hb, nullptr, &r));
      if (st != SDK_OK) return raise_last_error();
      return wrap(r);
    }
  } else {
    PyObject* t = ta ? a : b;
    sdk_scalar s;
    int k = scalar_value(ta ? b : a, &s);
    if (k < 0) return nullptr;
    if (k > 0 && !(grad && requires_grad_flag(t))) {
      if (!has_data_or_raise(t)) return nullptr;
      sdk_tensor* ht = handle_of(t);
      sdk_status st;
      SDK_PY_RUN_NOGIL_IF_LARGE(sdk_tensor_numel(ht),
                                st = sdk_binary_scalar(op, ht, s, ta ? 0 : 1, nullptr, &r));
      if (st != SDK_OK) return raise_last_error();
      return wrap(r);
    }
  }
  if (fb == FB_NONE) Py_RETURN_NOTIMPLEMENTED;
  return call_fallback(fb, a, b);
}

PyObject* inplace_slot(PyObject* a, PyObject* b, int32_t op, int fb) {
  if (!is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
  bool grad = grad_enabled() && requires_grad_flag(a);
  sdk_tensor* r = nullptr;
  if (!has_data_or_raise(a)) return nullptr;
  if (is_tensor(b)) {
    if (!(grad || (grad_enabled() && requires_grad_flag(b)))) {
      if (!has_data_or_raise(b)) return nullptr;
      sdk_tensor *ha = handle_of(a), *hb = handle_of(b);
      sdk_status st;
      SDK_PY_RUN_NOGIL_IF_LARGE(sdk_tensor_numel(ha), st = sdk_binary(op, ha, hb, ha, &r));
      if (st != SDK_OK) return raise_last_error();
      sdk_tensor_release(r);
      Py_INCREF(a);
      return a;
    }
  } else if (!grad) {
    sdk_scalar s;
    int k = scalar_value(b, &s);
    if (k < 0) return nullptr;
    if (k > 0) {
      sdk_tensor* ha = handle_of(a);
      sdk_status st;
      SDK_PY_RUN_NOGIL_IF_LARGE(sdk_tensor_numel(ha), st = sdk_binary_scalar(op, ha, s, 0, ha, &r));
      if (st != SDK_OK) return raise_last_error();
      sdk_tensor_release(r);
      Py_INCREF(a);
      return a;
    }
  }
  return call_fallback(fb, a, b);
}

PyObject* unary_slot(PyObject* a, int32_t op, int fb) {
  if (!has_data_or_raise(a)) return nullptr;
  if (fb != FB_NONE && grad_enabled() && requires_grad_flag(a))
    return call_fallback(fb, a, nullptr);
  sdk_tensor *ha = handle_of(a), *r = nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(sdk_tensor_numel(ha), st = sdk_unary(op, ha, nullptr, &r));
  if (st != SDK_OK) return raise_last_error();
  return wrap(r);
}

PyObject* nb_add(PyObject* a, PyObject* b) { return binary_slot(a, b, SDK_ADD, FB_ADD, true); }
PyObject* nb_sub(PyObject* a, PyObject* b) { return binary_slot(a, b, SDK_SUB, FB_SUB, true); }
PyObject* nb_mul(PyObject* a, PyObject* b) { return binary_slot(a, b, SDK_MUL, FB_MUL, true); }
PyObject* nb_div(PyObject* a, PyObject* b) { return binary_slot(a, b, SDK_DIV, FB_DIV, true); }
PyObject* nb_floordiv(PyObject* a, PyObject* b) {
  return binary_slot(a, b, SDK_FLOOR_DIVIDE, FB_FLOORDIV, true);
}
PyObject* nb_mod(PyObject* a, PyObject* b) {
  return binary_slot(a, b, SDK_REMAINDER, FB_MOD, true);
}
PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary_slot(a, b, SDK_POW, FB_POW, true);
}
PyObject* nb_and(PyObject* a, PyObject* b) {
  return binary_slot(a, b, SDK_BITWISE_AND, FB_AND, false);
}
PyObject* nb_or(PyObject* a, PyObject* b) {
  return binary_slot(a, b, SDK_BITWISE_OR, FB_OR, false);
}
PyObject* nb_xor(PyObject* a, PyObject* b) {
  return binary_slot(a, b, SDK_BITWISE_XOR, FB_XOR, false);
}
PyObject* nb_iand(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_BITWISE_AND, FB_IAND); }
PyObject* nb_ior(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_BITWISE_OR, FB_IOR); }
PyObject* nb_ixor(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_BITWISE_XOR, FB_IXOR); }
PyObject* nb_iadd(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_ADD, FB_IADD); }
PyObject* nb_isub(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_SUB, FB_ISUB); }
PyObject* nb_imul(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_MUL, FB_IMUL); }
PyObject* nb_idiv(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_DIV, FB_IDIV); }
PyObject* nb_ifloordiv(PyObject* a, PyObject* b) {
  return inplace_slot(a, b, SDK_FLOOR_DIVIDE, FB_IFLOORDIV);
}
PyObject* nb_imod(PyObject* a, PyObject* b) { return inplace_slot(a, b, SDK_REMAINDER, FB_IMOD); }
PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace_slot(a, b, SDK_POW, FB_IPOW);
}

PyObject* nb_matmul(PyObject* a, PyObject* b) {
  if (is_tensor(a) && is_tensor(b) &&
      !(grad_enabled() && (requires_grad_flag(a) || requires_grad_flag(b)))) {
    if (!has_data_or_raise(a) || !has_data_or_raise(b)) return nullptr;
    sdk_tensor* r = nullptr;
    sdk_status st;
    Py_BEGIN_ALLOW_THREADS st = sdk_matmul(handle_of(a), handle_of(b), nullptr, &r);
    Py_END_ALLOW_THREADS if (st != SDK_OK) return raise_last_error();
    return wrap(r);
  }
  return call_fallback(FB_MATMUL, a, b);
}

PyObject* nb_neg(PyObject* a) { return unary_slot(a, SDK_NEG, FB_NEG); }
PyObject* nb_abs(PyObject* a) { return unary_slot(a, SDK_ABS, FB_ABS); }
PyObject* nb_pos(PyObject* a) {
  Py_INCREF(a);
  return a;
}
PyObject* nb_invert(PyObject* a) {
  if (!has_data_or_raise(a)) return nullptr;
  bool is_bool = sdk_tensor_dtype(handle_of(a)) == SDK_BOOL;
  return unary_slot(a, is_bool ? SDK_LOGICAL_NOT : SDK_BITWISE_NOT, FB_NONE);
}

// A Python complex as a 0-dim complex128 tensor (the number exactly; promotion with a tensor of
// dims then gives that tensor's complex width), or nullptr with an exception set.
PyObject* complex_operand(PyObject* z) {
  const double parts[2] = {PyComplex_RealAsDouble(z), PyComplex_ImagAsDouble(z)};
  if (PyErr_Occurred()) return nullptr;
  sdk_tensor* t = nullptr;
  if (sdk_empty(0, nullptr, SDK_COMPLEX128, sdk_device{SDK_CPU, 0}, &t) != SDK_OK)
    return raise_last_error();
  std::memcpy(sdk_tensor_data_ptr(t), parts, sizeof(parts));
  return wrap(t);
}

PyObject* tb_richcompare(PyObject* a, PyObject* b, int cmp) {
  static const int32_t ops[] = {SDK_LT, SDK_LE, SDK_EQ, SDK_NE, SDK_GT, SDK_GE};
  if (!is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
  if (PyComplex_Check(b)) {  // else Python would answer == by identity: a silent False
    OwnedRef z(complex_operand(b));
    return z.p ? binary_slot(a, z.p, ops[cmp], FB_NONE, false) : nullptr;
  }
  if (!is_tensor(b)) {
    sdk_scalar s;
    int k = scalar_value(b, &s);
    if (k < 0) return nullptr;
    if (k == 0) Py_RETURN_NOTIMPLEMENTED;
  }
  return binary_slot(a, b, ops[cmp], FB_NONE, false);
}

}  // namespace

namespace sdkpy {

void install_arithmetic_slots(PyTypeObject* type, PyNumberMethods* nb) {
  nb->nb_add = nb_add;
  nb->nb_subtract = nb_sub;
  nb->nb_multiply = nb_mul;
  nb->nb_true_divide = nb_div;
  nb->nb_floor_divide = nb_floordiv;
  nb->nb_remainder = nb_mod;
  nb->nb_power = nb_pow;
  nb->nb_matrix_multiply = nb_matmul;
  nb->nb_negative = nb_neg;
  nb->nb_positive = nb_pos;
  nb->nb_absolute = nb_abs;
  nb->nb_invert = nb_invert;
  nb->nb_and = nb_and;
  nb->nb_or = nb_or;
  nb->nb_xor = nb_xor;
  nb->nb_inplace_add = nb_iadd;
  nb->nb_inplace_subtract = nb_isub;
  nb->nb_inplace_multiply = nb_imul;
  nb->nb_inplace_true_divide = nb_idiv;
  nb->nb_inplace_floor_divide = nb_ifloordiv;
  nb->nb_inplace_remainder = nb_imod;
  nb->nb_inplace_power = nb_ipow;
  nb->nb_inplace_and = nb_iand;  // a &= b writes into a, as torch (its views see it)
  nb->nb_inplace_or = nb_ior;
  nb->nb_inplace_xor = nb_ixor;
  type->tp_richcompare = tb_richcompare;
}

PyObject* m_register_fallbacks(PyObject*, PyObject* arg) {
  if (!PyDict_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "_register_fallbacks expects a dict {op name: function}");
    return nullptr;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(arg, &pos, &key, &value)) {
    const char* name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
    if (!name) {
      PyErr_SetString(PyExc_TypeError, "_register_fallbacks: keys must be op names");
      return nullptr;
    }
    int idx = -1;
    for (int i = 0; i < FB_COUNT; ++i)
      if (std::strcmp(name, kFallbackNames[i]) == 0) idx = i;
    if (idx < 0) {
      PyErr_Format(PyExc_KeyError, "_register_fallbacks: unknown op '%s'", name);
      return nullptr;
    }
    if (value != Py_None && !PyCallable_Check(value)) {
      PyErr_Format(PyExc_TypeError, "_register_fallbacks: '%s' is not callable", name);
      return nullptr;
    }
    Py_XSETREF(module_state.arithmetic_fallbacks[idx],
               value == Py_None ? nullptr : Py_NewRef(value));
  }
  Py_RETURN_NONE;
}

}  // namespace sdkpy
