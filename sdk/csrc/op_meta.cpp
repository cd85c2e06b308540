// sdk/csrc/op_meta.cpp: the values of a shape-only call (an op's Meta kernel, c_api.h's "Meta
// tensors"): sdk's meta tensors in, as core meta tensors, and core meta tensors out, as
// whatever make_meta builds from a shape and a dtype. The call itself is OpHandle._call_meta
// (op_registry.cpp).
#include <vector>

#include "args.h"
#include "common.h"
#include "op_values.h"

namespace sdkpy {

// A core meta tensor of meta tensor `o`'s shape and dtype (anything with .shape and .dtype:
// sdk's MetaTensor); NULL with an exception set.
static sdk_tensor* meta_handle(PyObject* o, const char* op, const char* arg) {
  OwnedRef shape(PyObject_GetAttrString(o, "shape"));
  OwnedRef dtype(shape.p ? PyObject_GetAttrString(o, "dtype") : nullptr);
  if (!dtype.p) return nullptr;
  std::vector<int64_t> sizes;
  sdk_dtype dt = -1;
  if (!int_list_value(shape.p, op, arg, &sizes) || !dtype_arg(dtype.p, op, arg, &dt)) {
    return nullptr;
  }
  sdk_tensor* h = nullptr;
  if (sdk_empty(static_cast<int64_t>(sizes.size()), sizes.data(), dt, sdk_device{SDK_META, 0},
                &h) != SDK_OK) {
    raise_last_error();
    return nullptr;
  }
  return h;
}

// Push argument `o` of a shape-only call: tensors (and tensor lists' items) must be meta
// tensors and become core meta tensors; other values convert as in any call.
bool push_meta_arg(const ValueSite& site, const ArgPlan& a, PyObject* o, sdk_values* v) {
  bool list = a.tag == SDK_VALUE_TENSOR_LIST;
  if ((a.tag != SDK_VALUE_TENSOR && !list) || o == Py_None) return push_value(site, a, o, v);
  OwnedRef items(list ? sequence_snapshot(o, "expected a list of meta tensors") : nullptr);
  if (list && !items.p) return false;
  Py_ssize_t n = list ? PyTuple_GET_SIZE(items.p) : 1;
  std::vector<sdk_tensor*> handles;
  bool ok = true;
  for (Py_ssize_t k = 0; ok && k < n; ++k) {
    PyObject* x = list ? PyTuple_GET_ITEM(items.p, k) : o;
    if (x == Py_None) {
      handles.push_back(nullptr);
    } else if (!PyObject_HasAttrString(x, "__sdk_meta__")) {
      PyErr_Format(PyExc_TypeError,
                   "%s(): a Meta kernel call takes meta tensors; argument '%s' "
                   "is %s",
                   site.op, a.name.c_str(), Py_TYPE(x)->tp_name);
      ok = false;
    } else {
      sdk_tensor* h = meta_handle(x, site.op, a.name.c_str());
      ok = h != nullptr;
      if (ok) handles.push_back(h);
    }
  }
  if (ok) {
    sdk_status st =
        list ? sdk_values_push_tensor_list(v, handles.data(), static_cast<int64_t>(handles.size()))
             : sdk_values_push_tensor(v, handles[0]);
    if (st != SDK_OK) ok = (raise_last_error(), false);
  }
  for (sdk_tensor* h : handles) sdk_tensor_release(h);
  return ok;
}

// make_meta(shape, dtype) for core tensor h (a NEW reference, released here).
static PyObject* meta_result(PyObject* make_meta, sdk_tensor* h) {
  if (!h) Py_RETURN_NONE;
  OwnedRef shape(make_size(sdk_tensor_sizes(h), sdk_tensor_ndim(h)));
  OwnedRef dtype(dtype_object(sdk_tensor_dtype(h)));
  sdk_tensor_release(h);
  if (!shape.p || !dtype.p) return nullptr;
  return PyObject_CallFunctionObjArgs(make_meta, shape.p, dtype.p, nullptr);
}

// Result i of a Meta kernel: tensors become make_meta(shape, dtype), other values as usual.
PyObject* meta_value_to_py(PyObject* make_meta, sdk_values* v, int64_t i) {
  int32_t tag = sdk_values_tag(v, i);
  if (tag == SDK_VALUE_TENSOR) {
    sdk_tensor* h = nullptr;
    if (sdk_values_take_tensor(v, i, &h) != SDK_OK) return raise_last_error();
    return meta_result(make_meta, h);
  }
  if (tag != SDK_VALUE_TENSOR_LIST) return value_to_py(v, i);
  sdk_tensor* const* hs = nullptr;
  int64_t n = 0;
  if (sdk_values_get_tensor_list(v, i, &hs, &n) != SDK_OK) return raise_last_error();
  OwnedRef out(PyList_New(n));
  for (int64_t k = 0; out.p && k < n; ++k) {
    if (hs[k]) sdk_tensor_retain(hs[k]);
    PyObject* x = meta_result(make_meta, hs[k]);
    if (!x) return nullptr;
    PyList_SET_ITEM(out.p, k, x);
  }
  return out.p ? new_ref(out.p) : nullptr;
}

}  // namespace sdkpy
