// sdk/csrc/op_values.cpp: the one converter between Python values and boxed values
// (sdk_values), both ways: push_value (a call's arguments, a Python kernel's results) and
// value_to_py (a call's results, a Python kernel's arguments).
#include "op_values.h"

#include <cstring>
#include <string>
#include <vector>

#include "args.h"
#include "common.h"

namespace sdkpy {
namespace {

// The argument or result a value is (with the item's path in a list of lists), for messages:
// "argument 'g' item [1]", "the Python kernel's int[][] result item [0]".
std::string who(const ValueSite& site, const ArgPlan& a) {
  if (site.result) return "the Python kernel's " + a.outer_type + " result" + a.path;
  return "argument '" + a.name + "'" + a.path;
}

// A value of the wrong kind: a TypeError naming the op, the argument or result, and the schema.
bool kind_error(const ValueSite& site, const ArgPlan& a, PyObject* got) {
  if (site.result && a.path.empty()) {
    PyErr_Format(PyExc_TypeError, "%s: the Python kernel returned a %s for its %s result", site.op,
                 Py_TYPE(got)->tp_name, a.type.c_str());
  } else if (site.result) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be %s, not %s", site.op, who(site, a).c_str(),
                 a.type.c_str(), Py_TYPE(got)->tp_name);
  } else {
    PyErr_Format(PyExc_TypeError, "%s(): %s must be %s, not %s (schema: %s)", site.op,
                 who(site, a).c_str(), a.type.c_str(), Py_TYPE(got)->tp_name, site.schema);
  }
  return false;
}

// An item of a list value of the wrong kind (Tensor[] and friends).
bool item_error(const ValueSite& site, const ArgPlan& a, PyObject* got) {
  if (!site.result || !a.path.empty()) return kind_error(site, a, got);
  PyErr_Format(PyExc_TypeError, "%s: the Python kernel returned a %s in its %s result", site.op,
               Py_TYPE(got)->tp_name, a.type.c_str());
  return false;
}

bool pushed(sdk_status st) { return st == SDK_OK || raise_last_error(); }

// A Python or numpy number (numpy arrays, even 0-d ones, are sequences: not numbers).
bool is_number(PyObject* o) {
  if (PyLong_Check(o) || PyFloat_Check(o)) return true;
  if (is_tensor(o) || PySequence_Check(o)) return false;
  return PyIndex_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float);
}

// A tensor, numpy array or DLPack producer. A caller's sdk tensor carries its autograd state
// into the kernel (boundary_in); a kernel's result is handed back as it is.
bool push_tensor(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  if (is_tensor(o)) {
    sdk_tensor* h = site.result ? handle_of(o) : boundary_in(o);
    return h && pushed(sdk_values_push_tensor(v, h));
  }
  if (is_number(o)) return kind_error(site, a, o);
  sdk_tensor* h = nullptr;
  if (to_handle(o, &h) < 0) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {  // not a tensor, array or DLPack producer
      PyErr_Clear();
      kind_error(site, a, o);
    }
    return false;
  }
  sdk_status st = sdk_values_push_tensor(v, h);
  sdk_tensor_release(h);
  return pushed(st);
}

// A Scalar argument: a bool, int or float pushed as itself.
bool push_scalar(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  sdk_scalar s{};
  if (!is_number(o)) return kind_error(site, a, o);
  if (scalar_value(o, &s) <= 0) return PyErr_Occurred() ? false : kind_error(site, a, o);
  return pushed(s.kind == SDK_SCALAR_FLOAT  ? sdk_values_push_float(v, s.f)
                : s.kind == SDK_SCALAR_BOOL ? sdk_values_push_bool(v, static_cast<int32_t>(s.i))
                                            : sdk_values_push_int(v, s.i));
}

// A kernel's number result, pushed by its Python type: the core converts it to the schema's
// int, float, bool or Scalar (a kernel may compute a bool as numpy.bool_ or an int as float).
bool push_number_result(const ValueSite& site, const ArgPlan& a, PyObject* r, sdk_values* v) {
  if (PyBool_Check(r)) return pushed(sdk_values_push_bool(v, r == Py_True));
  if (PyLong_Check(r)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(r, &overflow);
    if (overflow) {
      PyErr_Format(PyExc_OverflowError,
                   "%s: the Python kernel's %s result %R does not fit in int64", site.op,
                   a.type.c_str(), r);
      return false;
    }
    if (x == -1 && PyErr_Occurred()) return false;
    return pushed(sdk_values_push_int(v, x));
  }
  double x = PyFloat_AsDouble(r);
  if (x == -1.0 && PyErr_Occurred()) return false;
  return pushed(sdk_values_push_float(v, x));
}

// An int, float or bool argument, checked as torch checks it.
bool push_number_arg(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  const char* name = a.name.c_str();
  switch (a.tag) {
    case SDK_VALUE_INT: {
      int64_t x;
      if (PyFloat_Check(o) || is_tensor(o)) return kind_error(site, a, o);
      return int_arg(o, site.op, name, &x) && pushed(sdk_values_push_int(v, x));
    }
    case SDK_VALUE_FLOAT: {
      double x;
      if (!is_number(o)) return kind_error(site, a, o);
      return double_arg(o, site.op, name, &x) && pushed(sdk_values_push_float(v, x));
    }
    default: {  // SDK_VALUE_BOOL
      if (!PyBool_Check(o) && !(PyIndex_Check(o) && !PyLong_Check(o) && !is_tensor(o)))
        return kind_error(site, a, o);
      int32_t x;
      return bool_arg(o, site.op, name, &x) && pushed(sdk_values_push_bool(v, x));
    }
  }
}

// A custom-class object: the core checks its class against the schema's.
bool push_object(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  const sdk_class* cls = nullptr;
  void* object = nullptr;
  if (!object_of(o, &cls, &object)) return kind_error(site, a, o);
  return pushed(sdk_values_push_object(v, cls, object));
}

bool push_string(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  if (!PyUnicode_Check(o)) return kind_error(site, a, o);
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(o, &n);
  return s && pushed(sdk_values_push_string(v, s, n));
}

// An sdk.device or anything sdk.device() takes ("cuda:0").
bool push_device(PyObject* o, sdk_values* v) {
  OwnedRef dev(PyObject_CallOneArg(module_state.device_class, o));
  sdk_device d;
  return dev.p && device_of(dev.p, &d) && pushed(sdk_values_push_device(v, d));
}

// int[]: a sequence of int64, or (an argument of fixed size int[N]) one int, which the core
// repeats N times.
bool push_int_list(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  std::vector<int64_t> xs;
  if (PyLong_Check(o)) {
    int64_t x;
    if (site.result || a.list_size <= 0) return kind_error(site, a, o);
    return int_arg(o, site.op, a.name.c_str(), &x) && pushed(sdk_values_push_int(v, x));
  }
  if (is_tensor(o) || PyFloat_Check(o) || PyUnicode_Check(o) || !PySequence_Check(o))
    return kind_error(site, a, o);
  if (!int_list_value(o, site.op, who(site, a).c_str(), &xs)) return false;
  return pushed(sdk_values_push_int_list(v, xs.data(), static_cast<int64_t>(xs.size())));
}

// float[] and bool[]: an argument's items are checked as torch checks them; a kernel's result
// items are read by __float__ and truth (numpy scalars, computed values).
bool push_number_list(const ValueSite& site, const ArgPlan& a, PyObject* const* items, Py_ssize_t n,
                      sdk_values* v) {
  const char* name = a.name.c_str();
  if (a.tag == SDK_VALUE_FLOAT_LIST) {
    std::vector<double> xs(static_cast<size_t>(n));
    for (Py_ssize_t k = 0; k < n; ++k) {
      if (site.result) {
        xs[k] = PyFloat_AsDouble(items[k]);
        if (xs[k] == -1.0 && PyErr_Occurred()) return false;
      } else if (!is_number(items[k])) {
        return kind_error(site, a, items[k]);
      } else if (!double_arg(items[k], site.op, name, &xs[k])) {
        return false;
      }
    }
    return pushed(sdk_values_push_float_list(v, xs.data(), n));
  }
  std::vector<int32_t> xs(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (!bool_arg(items[k], site.op, name, &xs[k])) return false;
  }
  return pushed(sdk_values_push_bool_list(v, xs.data(), n));
}

// Tensor[] and Tensor?[]: tensors, arrays or DLPack producers (None where the type allows it).
bool push_tensor_list(const ValueSite& site, const ArgPlan& a, PyObject* const* items, Py_ssize_t n,
                      sdk_values* v) {
  std::vector<sdk_tensor*> hs(static_cast<size_t>(n), nullptr);
  bool ok = true;
  for (Py_ssize_t k = 0; ok && k < n; ++k) {
    PyObject* x = items[k];
    if (x == Py_None && a.optional_elements) continue;
    if (is_tensor(x)) {
      hs[k] = site.result ? handle_of(x) : boundary_in(x);
      ok = hs[k] != nullptr;
      if (ok) sdk_tensor_retain(hs[k]);
    } else if (x == Py_None || is_number(x)) {
      ok = item_error(site, a, x);
    } else {
      ok = to_handle(x, &hs[k]) == 0;
    }
  }
  if (ok) {
    ok = pushed(sdk_values_push_tensor_list(v, const_cast<const sdk_tensor* const*>(hs.data()), n));
  }
  for (sdk_tensor* h : hs) sdk_tensor_release(h);
  return ok;
}

// float[], bool[], Tensor[]: read from a copy, since an item's __index__/__float__ may change
// the list under the loop.
bool push_list(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  bool sequence = site.result ? PyList_Check(o) || PyTuple_Check(o) : PySequence_Check(o) != 0;
  if (is_tensor(o) || PyUnicode_Check(o) || !sequence) {
    if (!site.result || !a.path.empty()) return kind_error(site, a, o);
    PyErr_Format(PyExc_TypeError, "%s: the Python kernel must return a list for %s, not %s",
                 site.op, a.type.c_str(), Py_TYPE(o)->tp_name);
    return false;
  }
  OwnedRef seq(PySequence_Tuple(o));
  if (!seq.p) return false;
  PyObject* const* items = PySequence_Fast_ITEMS(seq.p);
  Py_ssize_t n = PyTuple_GET_SIZE(seq.p);
  return a.tag == SDK_VALUE_TENSOR_LIST ? push_tensor_list(site, a, items, n, v)
                                        : push_number_list(site, a, items, n, v);
}

// The plan of item k of LIST plan `a`: its tag from the core's list_levels and item_tag (no
// type is parsed here), its text `a`'s without the last "[]" (for messages, and the flags
// arg_plan_of reads from the text too), its name the argument's and the item's path.
ArgPlan item_plan(const ArgPlan& a, Py_ssize_t k) {
  ArgPlan item = a;
  std::string t = a.type;
  if (!t.empty() && t.back() == '?') t.pop_back();  // int[][]?: the list may be None
  item.type = t.substr(0, t.size() - 2);            // strip "[]"
  item.optional = !item.type.empty() && item.type.back() == '?';
  item.has_default = false;
  item.list_size = -1;
  item.scalar = item.type == "Scalar" || item.type == "Scalar?";
  item.optional_elements = item.type.find("?[") != std::string::npos;
  item.list_levels = a.list_levels - 1;
  item.tag = item.list_levels > 0 ? SDK_VALUE_LIST : a.item_tag;
  item.item_tag = item.list_levels > 0 ? a.item_tag : SDK_VALUE_NONE;
  item.path = a.path + (a.path.empty() ? " item [" : "[") + std::to_string(k) + "]";
  return item;
}

// A LIST (int[][], float[][], Tensor[][], str[], ...): a sequence (lists or tuples), each item
// pushed by its own plan (another LIST, a flat list, a str), then wrapped by the core. Read
// from a copy: an item's __index__ may change `o`. Nesting is bounded by the schema's type.
bool push_items(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  bool sequence = site.result ? PyList_Check(o) || PyTuple_Check(o) : PySequence_Check(o) != 0;
  if (is_tensor(o) || PyUnicode_Check(o) || PyBytes_Check(o) || !sequence)
    return kind_error(site, a, o);
  OwnedRef items(PySequence_Tuple(o));
  if (!items.p) return false;
  const int64_t before = sdk_values_size(v);
  const Py_ssize_t n = PyTuple_GET_SIZE(items.p);
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (!push_value(site, item_plan(a, k), PyTuple_GET_ITEM(items.p, k), v)) {
      sdk_values_pop(v, sdk_values_size(v) - before);  // the items pushed so far
      return false;
    }
  }
  return pushed(sdk_values_push_list(v, n));
}

// A new list of `convert(d[k])` for k < n; nullptr (the error set) when one conversion fails.
template <typename T, typename Convert>
PyObject* list_of(const T* d, int64_t n, Convert convert) {
  PyObject* l = PyList_New(n);
  for (int64_t k = 0; l && k < n; ++k) {
    PyObject* x = convert(d[k]);
    if (!x) {
      Py_DECREF(l);
      return nullptr;
    }
    PyList_SET_ITEM(l, k, x);
  }
  return l;
}

PyObject* read_value_to_py(const sdk_values* v, int64_t i);

// A list value i of `v` as a new Python list (a LIST's items converted one by one).
PyObject* list_to_py(const sdk_values* v, int64_t i, int32_t tag) {
  int64_t n = 0;
  if (tag == SDK_VALUE_INT_LIST) {
    const int64_t* d = nullptr;
    sdk_values_get_int_list(v, i, &d, &n);
    return list_of(d, n, [](auto x) { return PyLong_FromLongLong(x); });
  }
  if (tag == SDK_VALUE_FLOAT_LIST) {
    const double* d = nullptr;
    sdk_values_get_float_list(v, i, &d, &n);
    return list_of(d, n, [](auto x) { return PyFloat_FromDouble(x); });
  }
  if (tag == SDK_VALUE_BOOL_LIST) {
    const int32_t* d = nullptr;
    sdk_values_get_bool_list(v, i, &d, &n);
    return list_of(d, n, [](auto x) { return PyBool_FromLong(x); });
  }
  if (tag == SDK_VALUE_LIST) {
    const sdk_values* items = nullptr;
    if (sdk_values_get_list(v, i, &items) != SDK_OK) return raise_last_error();
    PyObject* l = PyList_New(sdk_values_size(items));
    for (int64_t k = 0; l && k < sdk_values_size(items); ++k) {
      PyObject* x = read_value_to_py(items, k);
      if (!x) Py_CLEAR(l);
      if (l) PyList_SET_ITEM(l, k, x);
    }
    return l;
  }
  sdk_tensor* const* d = nullptr;  // SDK_VALUE_TENSOR_LIST
  sdk_values_get_tensor_list(v, i, &d, &n);
  return list_of(d, n, [](sdk_tensor* t) {
    if (!t) return new_ref(Py_None);
    sdk_tensor_retain(t);
    return boundary_out(t);
  });
}

PyObject* device_to_py(sdk_device d) {
  PyObject* spec =
      d.type == SDK_CPU ? PyUnicode_FromString("cpu") : PyUnicode_FromFormat("cuda:%d", d.index);
  if (!spec) return nullptr;
  PyObject* dev = PyObject_CallOneArg(module_state.device_class, spec);
  Py_DECREF(spec);
  return dev;
}

}  // namespace

ArgPlan arg_plan_of(const sdk_op_argument& info) {
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
  a.list_levels = info.list_levels;
  a.item_tag = info.item_tag;
  a.outer_type = a.type;
  return a;
}

bool push_value(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  if (o == Py_None) {
    if (site.result || a.optional || a.tag == SDK_VALUE_NONE)
      return pushed(sdk_values_push_none(v));
    return kind_error(site, a, o);
  }
  if (a.scalar && !site.result) return push_scalar(site, a, o, v);
  switch (a.tag) {
    case SDK_VALUE_TENSOR:
      return push_tensor(site, a, o, v);
    case SDK_VALUE_INT:
    case SDK_VALUE_FLOAT:
    case SDK_VALUE_BOOL:
      return site.result ? push_number_result(site, a, o, v) : push_number_arg(site, a, o, v);
    case SDK_VALUE_STRING:
      return push_string(site, a, o, v);
    case SDK_VALUE_SCALAR_TYPE: {
      sdk_dtype d;
      const char* name = site.result ? "result" : a.name.c_str();
      return dtype_arg(o, site.op, name, &d) && pushed(sdk_values_push_scalar_type(v, d));
    }
    case SDK_VALUE_DEVICE:
      return push_device(o, v);
    case SDK_VALUE_OBJECT:
      return push_object(site, a, o, v);
    case SDK_VALUE_INT_LIST:
      return push_int_list(site, a, o, v);
    case SDK_VALUE_LIST:
      return push_items(site, a, o, v);
    case SDK_VALUE_FLOAT_LIST:
    case SDK_VALUE_BOOL_LIST:
    case SDK_VALUE_TENSOR_LIST:
      return push_list(site, a, o, v);
    default:
      if (!site.result) return kind_error(site, a, o);
      PyErr_Format(PyExc_TypeError, "%s: a Python kernel cannot return a %s", site.op,
                   a.type.c_str());
      return false;
  }
}

namespace {

// Value i of `v` as a new Python object, read without changing `v` (a tensor is retained):
// what a LIST's items, which are read-only, are converted by.
PyObject* read_value_to_py(const sdk_values* v, int64_t i) {
  int32_t tag = sdk_values_tag(v, i);
  switch (tag) {
    case SDK_VALUE_NONE:
      Py_RETURN_NONE;
    case SDK_VALUE_TENSOR: {
      sdk_tensor* h = nullptr;
      if (sdk_values_get_tensor(v, i, &h) != SDK_OK) return raise_last_error();
      sdk_tensor_retain(h);
      return boundary_out(h);
    }
    case SDK_VALUE_INT: {
      int64_t x = 0;
      sdk_values_get_int(v, i, &x);
      return PyLong_FromLongLong(x);
    }
    case SDK_VALUE_FLOAT: {
      double x = 0;
      sdk_values_get_float(v, i, &x);
      return PyFloat_FromDouble(x);
    }
    case SDK_VALUE_BOOL: {
      int32_t x = 0;
      sdk_values_get_bool(v, i, &x);
      return PyBool_FromLong(x);
    }
    case SDK_VALUE_STRING: {
      const char* d = nullptr;
      int64_t n = 0;
      sdk_values_get_string(v, i, &d, &n);
      return PyUnicode_DecodeUTF8(d, n, "replace");
    }
    case SDK_VALUE_SCALAR_TYPE: {
      int32_t d = 0;
      sdk_values_get_scalar_type(v, i, &d);
      return dtype_object(static_cast<sdk_dtype>(d));
    }
    case SDK_VALUE_DEVICE: {
      sdk_device d{};
      sdk_values_get_device(v, i, &d);
      return device_to_py(d);
    }
    case SDK_VALUE_OBJECT: {
      const sdk_class* cls = nullptr;
      void* object = nullptr;
      if (sdk_values_get_object(v, i, &cls, &object) != SDK_OK) return raise_last_error();
      return object_to_py(cls, object);
    }
    case SDK_VALUE_INT_LIST:
    case SDK_VALUE_FLOAT_LIST:
    case SDK_VALUE_BOOL_LIST:
    case SDK_VALUE_TENSOR_LIST:
    case SDK_VALUE_LIST:
      return list_to_py(v, i, tag);
    default:
      PyErr_SetString(PyExc_RuntimeError, "an op returned a value of an unknown kind");
      return nullptr;
  }
}

}  // namespace

// Value i of `v` as a new Python object. A tensor is moved out of `v` (the value becomes
// None): callers are done with the values.
PyObject* value_to_py(sdk_values* v, int64_t i) {
  if (sdk_values_tag(v, i) != SDK_VALUE_TENSOR) return read_value_to_py(v, i);
  sdk_tensor* h = nullptr;
  if (sdk_values_take_tensor(v, i, &h) != SDK_OK) return raise_last_error();
  return boundary_out(h);
}

bool int_list_value(PyObject* o, const char* op, const char* what, std::vector<int64_t>* out) {
  out->clear();
  if (is_tensor(o) || PyUnicode_Check(o) || PyBytes_Check(o) || !PySequence_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): %s must be a list of ints (int[]), not %s", op, what,
                 Py_TYPE(o)->tp_name);
    return false;
  }
  OwnedRef items(PySequence_Tuple(o));  // a copy: __index__ may change `o` under the loop
  if (!items.p) return false;
  Py_ssize_t n = PyTuple_GET_SIZE(items.p);
  out->reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* x = PyTuple_GET_ITEM(items.p, k);
    if (PyFloat_Check(x) || is_tensor(x) || !PyIndex_Check(x)) {
      PyErr_Format(PyExc_TypeError, "%s(): %s must be a list of ints (int[]); item %zd is %s", op,
                   what, k, Py_TYPE(x)->tp_name);
      return false;
    }
    OwnedRef i(PyNumber_Index(x));
    if (!i.p) return false;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i.p, &overflow);
    if (v == -1 && PyErr_Occurred()) return false;
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "%s(): %s: item %zd (%S) does not fit in int64", op, what,
                   k, i.p);
      return false;
    }
    out->push_back(static_cast<int64_t>(v));
  }
  return true;
}

bool device_of(PyObject* dev, sdk_device* out) {
  PyObject* type = PyObject_GetAttrString(dev, "type");
  PyObject* index = type ? PyObject_GetAttrString(dev, "index") : nullptr;
  if (!index) {
    Py_XDECREF(type);
    return false;
  }
  bool cuda = PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "cuda") == 0;
  long idx = index == Py_None ? 0 : PyLong_AsLong(index);
  Py_DECREF(type);
  Py_DECREF(index);
  if (idx == -1 && PyErr_Occurred()) return false;
  *out = sdk_device{cuda ? SDK_CUDA : SDK_CPU, static_cast<int32_t>(idx)};
  return true;
}

}  // namespace sdkpy
