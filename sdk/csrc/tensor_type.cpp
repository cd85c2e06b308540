// sdk/csrc/tensor_type.cpp: the _C.TensorBase type: lifetime, attributes, element access.
// Also the conversions (item, tolist, bool/int/float); its arithmetic slots are in
// number_slots.cpp.
#include <array>
#include <cstring>

#include "args.h"
#include "common.h"
#include "sdk/dtype.h"

using namespace sdkpy;

namespace {

// ---- lifetime -------------------------------------------------------------------------

int tb_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(tensor_object(self)->grad);
  Py_VISIT(tensor_object(self)->grad_fn);
  Py_VISIT(tensor_object(self)->ag);
  return 0;
}

int tb_clear(PyObject* self) {
  Py_CLEAR(tensor_object(self)->grad);
  Py_CLEAR(tensor_object(self)->grad_fn);
  Py_CLEAR(tensor_object(self)->ag);
  return 0;
}

void tb_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  if (tensor_object(self)->weakreflist) PyObject_ClearWeakRefs(self);
  if (tensor_object(self)->ag_linked) autograd_unlink(self);
  tb_clear(self);
  sdk_tensor* h = tensor_object(self)->handle;
  tensor_object(self)->handle = nullptr;
  sdk_tensor_release(h);
  Py_TYPE(self)->tp_free(self);
}

PyObject* tb_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError,
                  "sdk.Tensor cannot be constructed directly: use sdk.tensor(data), "
                  "sdk.empty(*size), sdk.zeros(*size) or sdk.from_numpy(array)");
  return nullptr;
}

Py_hash_t tb_hash(PyObject* self) {
  Py_hash_t h = static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(self) >> 4);
  return h == -1 ? -2 : h;
}

// ---- attributes -------------------------------------------------------------------------

PyObject* none_if_null(PyObject* o) {
  if (!o) o = Py_None;
  Py_INCREF(o);
  return o;
}

int set_slot(PyObject** slot, PyObject* v) {
  PyObject* old = *slot;
  if (v == Py_None) v = nullptr;
  Py_XINCREF(v);
  *slot = v;
  Py_XDECREF(old);
  return 0;
}

PyObject* get_grad(PyObject* self, void*) { return none_if_null(tensor_object(self)->grad); }
int set_grad(PyObject* self, PyObject* v, void*) {
  if (v && v != Py_None && !is_tensor(v)) {
    PyErr_Format(PyExc_TypeError,
                 "assigned grad expected to be a Tensor or None but got grad of type %s",
                 Py_TYPE(v)->tp_name);
    return -1;
  }
  return set_slot(&tensor_object(self)->grad, v ? v : Py_None);
}
PyObject* get_grad_fn(PyObject* self, void*) { return none_if_null(tensor_object(self)->grad_fn); }
int set_grad_fn(PyObject* self, PyObject* v, void*) {
  return set_slot(&tensor_object(self)->grad_fn, v ? v : Py_None);
}
PyObject* get_ag(PyObject* self, void*) { return none_if_null(tensor_object(self)->ag); }
int set_ag(PyObject* self, PyObject* v, void*) {
  return set_slot(&tensor_object(self)->ag, v ? v : Py_None);
}

PyObject* get_requires_grad(PyObject* self, void*) {
  return PyBool_FromLong(tensor_object(self)->requires_grad);
}
int set_requires_grad(PyObject* self, PyObject* v, void*) {
  int r = v ? PyObject_IsTrue(v) : 0;
  if (r < 0) return -1;
  tensor_object(self)->requires_grad = static_cast<char>(r);
  return 0;
}

PyObject* get_is_read_only(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyBool_FromLong(sdk_tensor_is_read_only(tensor_object(self)->handle));
}

PyObject* get_version(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromLongLong(sdk_tensor_version(tensor_object(self)->handle));
}
PyObject* get_shape(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_tensor* h = tensor_object(self)->handle;
  return make_size(sdk_tensor_sizes(h), sdk_tensor_ndim(h));
}
PyObject* get_dtype(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return dtype_object(sdk_tensor_dtype(tensor_object(self)->handle));
}
PyObject* get_device(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_device d = sdk_tensor_device(tensor_object(self)->handle);
  if (d.type == SDK_CPU && module_state.cpu_device) {
    Py_INCREF(module_state.cpu_device);
    return module_state.cpu_device;
  }
  const char* name = d.type == SDK_CPU ? "cpu" : d.type == SDK_CUDA ? "cuda" : "unknown";
  if (!module_state.device_class) return Py_BuildValue("(si)", name, d.index);
  return PyObject_CallFunction(module_state.device_class, "si", name, d.index);
}
PyObject* get_ndim(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromLongLong(sdk_tensor_ndim(tensor_object(self)->handle));
}
PyObject* get_nbytes(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_tensor* h = tensor_object(self)->handle;
  int64_t numel = sdk_tensor_numel(h), nbytes;
  if (!__builtin_mul_overflow(numel, sdk_dtype_itemsize(sdk_tensor_dtype(h)), &nbytes))
    return PyLong_FromLongLong(nbytes);
  // An expanded view can count more bytes than int64 holds: Python ints do not overflow.
  PyObject* n = PyLong_FromLongLong(numel);
  PyObject* size = n ? PyLong_FromLongLong(sdk_dtype_itemsize(sdk_tensor_dtype(h))) : nullptr;
  PyObject* r = size ? PyNumber_Multiply(n, size) : nullptr;
  Py_XDECREF(n);
  Py_XDECREF(size);
  return r;
}
PyObject* get_itemsize(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromLongLong(sdk_dtype_itemsize(sdk_tensor_dtype(tensor_object(self)->handle)));
}
PyObject* get_is_cuda(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyBool_FromLong(sdk_tensor_device(tensor_object(self)->handle).type == SDK_CUDA);
}
PyObject* get_use_count(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromLongLong(sdk_tensor_use_count(tensor_object(self)->handle));
}

// numpy's typestr of a dtype ("<f4": byte order, kind letter, itemsize), from its SDK_DTYPES
// row; nullptr for bfloat16 (numpy has no such type) and unknown codes.
const char* typestr(sdk_dtype dt) {
  using Str = std::array<char, 5>;
  static const auto kTypestrs = [] {
    std::array<Str, sdk::detail::kDtypeCount> strs{};
    for (int i = 0; i < sdk::detail::kDtypeCount; ++i) {
      const sdk::detail::DtypeFacts& f = sdk::detail::kDtypeFacts[i];
      const char letter = f.kind == SDK_DL_BOOL      ? 'b'
                          : f.kind == SDK_DL_UINT    ? 'u'
                          : f.kind == SDK_DL_INT     ? 'i'
                          : f.kind == SDK_DL_FLOAT   ? 'f'
                          : f.kind == SDK_DL_COMPLEX ? 'c'
                                                     : '\0';
      const char order = f.itemsize == 1 ? '|' : '<';
      const char tens = static_cast<char>('0' + f.itemsize / 10), ones = '0' + f.itemsize % 10;
      if (letter && f.itemsize >= 10)
        strs[i] = Str{order, letter, tens, static_cast<char>(ones)};
      else if (letter)
        strs[i] = Str{order, letter, static_cast<char>(ones), '\0'};
    }
    return strs;
  }();
  if (dt < 0 || dt >= sdk::detail::kDtypeCount || kTypestrs[dt][0] == '\0') return nullptr;
  return kTypestrs[dt].data();
}

// numpy's array interface (v3): np.asarray(t) shares memory and keeps `t` alive.
PyObject* get_array_interface(PyObject* self, void*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_tensor* h = tensor_object(self)->handle;
  if (tensor_object(self)->requires_grad && grad_enabled()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                    "instead.");
    return nullptr;
  }
  if (sdk_tensor_device(h).type != SDK_CPU) {
    PyErr_SetString(PyExc_TypeError, "can't convert a non-CPU tensor to numpy");
    return nullptr;
  }
  sdk_dtype dt = sdk_tensor_dtype(h);
  const char* ts = typestr(dt);
  if (!ts) {
    PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s: numpy has no %s dtype",
                 sdk_dtype_name(dt) ? sdk_dtype_name(dt) : "?",
                 sdk_dtype_name(dt) ? sdk_dtype_name(dt) : "such");
    return nullptr;
  }
  int64_t nd = sdk_tensor_ndim(h), isz = sdk_dtype_itemsize(dt);
  const int64_t* st = sdk_tensor_strides(h);
  PyObject* shape = PyTuple_New(nd);
  PyObject* strides = PyTuple_New(nd);
  if (!shape || !strides) {
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return nullptr;
  }
  const int64_t* sz = sdk_tensor_sizes(h);
  bool empty = sdk_tensor_numel(h) == 0;
  for (int64_t i = 0; i < nd; ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(sz[i]));
    // Strides in bytes can exceed int64 only where they never step (beside a size-0 dim,
    // or along a size-1 one), and there any stride is as good.
    int64_t bytes;
    if (__builtin_mul_overflow(st[i], isz, &bytes)) {
      if (!empty && sz[i] > 1) {
        Py_DECREF(shape);
        Py_DECREF(strides);
        PyErr_Format(PyExc_OverflowError,
                     "__array_interface__: stride %lld of dim %lld is too large",
                     static_cast<long long>(st[i]), static_cast<long long>(i));
        return nullptr;
      }
      bytes = 0;
    }
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(bytes));
  }
  uintptr_t ptr = reinterpret_cast<uintptr_t>(sdk_tensor_data_ptr(h));
  if (ptr == 0) ptr = static_cast<uintptr_t>(isz);  // numpy rejects NULL even for empty arrays
  PyObject* read_only = sdk_tensor_is_read_only(h) ? Py_True : Py_False;
  return Py_BuildValue("{s:N,s:s,s:(KO),s:N,s:i}", "shape", shape, "typestr", ts, "data",
                       static_cast<unsigned long long>(ptr), read_only, "strides", strides,
                       "version", 3);
}

PyGetSetDef tb_getset[] = {
    {"grad", get_grad, set_grad, "Accumulated gradient (None until backward fills it).", nullptr},
    {"grad_fn", get_grad_fn, set_grad_fn, "Autograd node that produced this tensor.", nullptr},
    {"_ag", get_ag, set_ag, "Free slot for the autograd engine.", nullptr},
    {"_requires_grad", get_requires_grad, set_requires_grad, "Raw requires_grad flag (no checks).",
     nullptr},
    {"_version", get_version, nullptr, "Write counter of the storage.", nullptr},
    {"_is_read_only", get_is_read_only, nullptr,
     "Whether the memory is read-only (shared with a read-only owner).", nullptr},
    {"shape", get_shape, nullptr, "Sizes as sdk.Size.", nullptr},
    {"dtype", get_dtype, nullptr, "Element type.", nullptr},
    {"device", get_device, nullptr, "Device.", nullptr},
    {"ndim", get_ndim, nullptr, "Number of dims.", nullptr},
    {"nbytes", get_nbytes, nullptr, "numel * itemsize.", nullptr},
    {"itemsize", get_itemsize, nullptr, "Bytes per element.", nullptr},
    {"is_cuda", get_is_cuda, nullptr, "Whether the tensor lives on a CUDA device.", nullptr},
    {"_use_count", get_use_count, nullptr, "Core reference count of the handle.", nullptr},
    {"__array_interface__", get_array_interface, nullptr, "numpy array interface v3.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// ---- element access --------------------------------------------------------------------

PyObject* tolist_rec(const char* p, const int64_t* sz, const int64_t* st, int64_t nd, sdk_dtype dt,
                     int64_t isz) {
  if (nd == 0) return read_element(p, dt);
  PyObject* list = PyList_New(sz[0]);
  if (!list) return nullptr;
  for (int64_t i = 0; i < sz[0]; ++i) {
    PyObject* x = tolist_rec(p + i * st[0] * isz, sz + 1, st + 1, nd - 1, dt, isz);
    if (!x) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, x);
  }
  return list;
}

PyObject* m_tolist(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  HostTensor host(tensor_object(self)->handle);
  if (!host.handle) return raise_last_error();
  sdk_tensor* h = host.handle;
  sdk_dtype dt = sdk_tensor_dtype(h);
  return tolist_rec(static_cast<const char*>(sdk_tensor_data_ptr(h)), sdk_tensor_sizes(h),
                    sdk_tensor_strides(h), sdk_tensor_ndim(h), dt, sdk_dtype_itemsize(dt));
}

PyObject* single(PyObject* self, const char* what, PyObject* exc) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_tensor* h = tensor_object(self)->handle;
  int64_t n = sdk_tensor_numel(h);
  if (n != 1) {
    if (exc == PyExc_RuntimeError && what[0] == 'B')
      PyErr_Format(exc, "Boolean value of Tensor with %s values is ambiguous",
                   n == 0 ? "no" : "more than one");
    else
      PyErr_Format(exc, "%s: a Tensor with %lld elements cannot be converted to a Python scalar",
                   what, static_cast<long long>(n));
    return nullptr;
  }
  HostTensor host(h);
  if (!host.handle) return raise_last_error();
  return read_element(sdk_tensor_data_ptr(host.handle), sdk_tensor_dtype(host.handle));
}

PyObject* m_item(PyObject* self, PyObject*) { return single(self, "item()", PyExc_RuntimeError); }

int nb_bool(PyObject* self) {
  PyObject* v = single(self, "Boolean", PyExc_RuntimeError);
  if (!v) return -1;
  int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}
PyObject* nb_float(PyObject* self) {
  PyObject* v = single(self, "float()", module_state.invalid_argument_error);
  if (!v) return nullptr;
  PyObject* r = PyNumber_Float(v);
  Py_DECREF(v);
  return r;
}
PyObject* nb_int(PyObject* self) {
  PyObject* v = single(self, "int()", module_state.invalid_argument_error);
  if (!v) return nullptr;
  PyObject* r = PyNumber_Long(v);
  Py_DECREF(v);
  return r;
}
PyObject* nb_index(PyObject* self) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_dtype dt = sdk_tensor_dtype(tensor_object(self)->handle);
  if (dt > SDK_INT64 || sdk_tensor_numel(tensor_object(self)->handle) != 1) {
    PyErr_SetString(PyExc_TypeError,
                    "only integer tensors of a single element can be converted to an index");
    return nullptr;
  }
  PyObject* v = single(self, "__index__", PyExc_TypeError);
  if (!v) return nullptr;
  PyObject* r = PyNumber_Long(v);
  Py_DECREF(v);
  return r;
}

Py_ssize_t mp_length(PyObject* self) {
  if (!has_data_or_raise(self)) return -1;
  sdk_tensor* h = tensor_object(self)->handle;
  if (sdk_tensor_ndim(h) == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return static_cast<Py_ssize_t>(sdk_tensor_sizes(h)[0]);
}

bool wrap_dim(PyObject* arg, int64_t nd, const char* op, int64_t* d) {
  if (!int_arg(arg, op, "dim", d)) return false;
  int64_t lo = nd == 0 ? -1 : -nd, hi = nd == 0 ? 0 : nd - 1;
  if (*d < lo || *d > hi) {
    PyErr_Format(PyExc_IndexError,
                 "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                 static_cast<long long>(lo), static_cast<long long>(hi),
                 static_cast<long long>(*d));
    return false;
  }
  if (*d < 0) *d += nd == 0 ? 1 : nd;
  return true;
}

PyObject* sizes_or_strides(PyObject* self, PyObject* const* args, Py_ssize_t nargs, const char* op,
                           bool strides) {
  if (!has_data_or_raise(self) || !check_nargs(op, nargs, 0, 1)) return nullptr;
  sdk_tensor* h = tensor_object(self)->handle;
  const int64_t* v = strides ? sdk_tensor_strides(h) : sdk_tensor_sizes(h);
  int64_t nd = sdk_tensor_ndim(h);
  if (nargs == 0 || args[0] == Py_None) {
    if (!strides) return make_size(v, nd);
    PyObject* t = PyTuple_New(nd);
    for (int64_t i = 0; t && i < nd; ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
    return t;
  }
  int64_t d;
  if (!wrap_dim(args[0], nd, op, &d)) return nullptr;
  if (nd == 0) {
    PyErr_Format(PyExc_IndexError, "%s(): 0-d tensor has no dim %lld", op,
                 static_cast<long long>(d));
    return nullptr;
  }
  return PyLong_FromLongLong(v[d]);
}

PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return sizes_or_strides(self, args, nargs, "size", false);
}
PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return sizes_or_strides(self, args, nargs, "stride", true);
}
PyObject* m_dim(PyObject* self, PyObject*) { return get_ndim(self, nullptr); }
PyObject* m_numel(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromLongLong(sdk_tensor_numel(tensor_object(self)->handle));
}
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromVoidPtr(sdk_tensor_data_ptr(tensor_object(self)->handle));
}
PyObject* m_element_size(PyObject* self, PyObject*) { return get_itemsize(self, nullptr); }
PyObject* m_storage_offset(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyLong_FromLongLong(sdk_tensor_storage_offset(tensor_object(self)->handle));
}
PyObject* m_is_contiguous(PyObject* self, PyObject* const*, Py_ssize_t) {
  if (!has_data_or_raise(self)) return nullptr;
  return PyBool_FromLong(sdk_tensor_is_contiguous(tensor_object(self)->handle));
}
PyObject* m_is_floating_point(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_dtype dt = sdk_tensor_dtype(tensor_object(self)->handle);
  return PyBool_FromLong(sdk::isFloatingType(sdk::from_c_dtype(dt)));
}
PyObject* m_bump_version(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_tensor_bump_version(tensor_object(self)->handle);
  Py_RETURN_NONE;
}

// For FFI bridges (cpp_extension's ctypes bridge): the sdk_tensor* as an int, BORROWED --
// valid while `self` is alive; the caller retains it if it keeps it longer.
PyObject* m_handle_address(PyObject* self, PyObject*) {
  if (!has_data_or_raise(self)) return nullptr;
  sdk_tensor* h = boundary_in(self);  // carries its autograd state into compiled code
  return h ? PyLong_FromVoidPtr(h) : nullptr;
}

PyMethodDef tb_methods[] = {
    {"size", SDK_PY_AS_CFUNCTION(m_size), METH_FASTCALL, "size(dim=None): sdk.Size, or one size."},
    {"stride", SDK_PY_AS_CFUNCTION(m_stride), METH_FASTCALL,
     "stride(dim=None): strides in elements."},
    {"dim", m_dim, METH_NOARGS, "Number of dims."},
    {"ndimension", m_dim, METH_NOARGS, "Number of dims."},
    {"numel", m_numel, METH_NOARGS, "Number of elements."},
    {"nelement", m_numel, METH_NOARGS, "Number of elements."},
    {"data_ptr", m_data_ptr, METH_NOARGS, "Address of the first element."},
    {"element_size", m_element_size, METH_NOARGS, "Bytes per element."},
    {"storage_offset", m_storage_offset, METH_NOARGS, "Offset in the storage, in elements."},
    {"is_contiguous", SDK_PY_AS_CFUNCTION(m_is_contiguous), METH_FASTCALL, "Row-major contiguous?"},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, "Floating dtype?"},
    {"item", m_item, METH_NOARGS, "The value of a one-element tensor as a Python number."},
    {"tolist", m_tolist, METH_NOARGS, "Nested lists of Python numbers."},
    {"_bump_version", m_bump_version, METH_NOARGS, "Increment the write counter."},
    {"_handle_address", m_handle_address, METH_NOARGS,
     "For FFI bridges: the sdk_tensor* of this tensor as an int, borrowed (valid while the "
     "tensor lives)."},
    {nullptr, nullptr, 0, nullptr}};

PyNumberMethods tb_as_number = {};
PyMappingMethods tb_as_mapping = {};

}  // namespace

namespace sdkpy {

// ---- element reading ------------------------------------------------------------------------

namespace {
float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, f;
  if (exp == 0) {
    if (mant == 0) {
      f = sign;
    } else {
      exp = 113;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      f = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    f = sign | 0x7f800000u | (mant << 13);
  } else {
    f = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float r;
  std::memcpy(&r, &f, 4);
  return r;
}
}  // namespace

PyObject* read_element(const void* p, sdk_dtype dt) {
  switch (dt) {
    case SDK_BOOL:
      return PyBool_FromLong(*static_cast<const uint8_t*>(p) != 0);
    case SDK_UINT8:
      return PyLong_FromLong(*static_cast<const uint8_t*>(p));
    case SDK_INT8:
      return PyLong_FromLong(*static_cast<const int8_t*>(p));
    case SDK_INT16:
      return PyLong_FromLong(*static_cast<const int16_t*>(p));
    case SDK_INT32:
      return PyLong_FromLong(*static_cast<const int32_t*>(p));
    case SDK_INT64:
      return PyLong_FromLongLong(*static_cast<const int64_t*>(p));
    case SDK_FLOAT16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return PyFloat_FromDouble(half_to_float(h));
    }
    case SDK_BFLOAT16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      uint32_t f = static_cast<uint32_t>(h) << 16;
      float r;
      std::memcpy(&r, &f, 4);
      return PyFloat_FromDouble(r);
    }
    case SDK_FLOAT32:
      return PyFloat_FromDouble(*static_cast<const float*>(p));
    case SDK_FLOAT64:
      return PyFloat_FromDouble(*static_cast<const double*>(p));
    case SDK_FLOAT8_E5M2:
      return PyFloat_FromDouble(sdk::Float8_e5m2::from_bits(*static_cast<const uint8_t*>(p)));
    case SDK_FLOAT8_E4M3FN:
      return PyFloat_FromDouble(sdk::Float8_e4m3fn::from_bits(*static_cast<const uint8_t*>(p)));
    case SDK_FLOAT8_E5M2FNUZ:
      return PyFloat_FromDouble(sdk::Float8_e5m2fnuz::from_bits(*static_cast<const uint8_t*>(p)));
    case SDK_FLOAT8_E4M3FNUZ:
      return PyFloat_FromDouble(sdk::Float8_e4m3fnuz::from_bits(*static_cast<const uint8_t*>(p)));
    case SDK_COMPLEX64: {
      float z[2];
      std::memcpy(z, p, sizeof(z));
      return PyComplex_FromDoubles(z[0], z[1]);
    }
    case SDK_COMPLEX128: {
      double z[2];
      std::memcpy(z, p, sizeof(z));
      return PyComplex_FromDoubles(z[0], z[1]);
    }
    default:
      PyErr_Format(PyExc_TypeError, "unsupported dtype code %d", static_cast<int>(dt));
      return nullptr;
  }
}

int tensor_type_ready(PyObject* module) {
  PyNumberMethods& nb = tb_as_number;
  install_arithmetic_slots(&TensorBaseType, &nb);
  nb.nb_bool = nb_bool;
  nb.nb_int = nb_int;
  nb.nb_float = nb_float;
  nb.nb_index = nb_index;
  tb_as_mapping.mp_length = mp_length;

  PyTypeObject& t = TensorBaseType;
  t.tp_name = "sdk._C.TensorBase";
  t.tp_basicsize = sizeof(TensorObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  t.tp_doc = "C base of sdk.Tensor: a handle to a core tensor plus autograd slots.";
  t.tp_dealloc = tb_dealloc;
  t.tp_traverse = tb_traverse;
  t.tp_clear = tb_clear;
  t.tp_new = tb_new;
  t.tp_hash = tb_hash;
  t.tp_as_number = &tb_as_number;
  t.tp_as_mapping = &tb_as_mapping;
  t.tp_getset = tb_getset;
  t.tp_methods = tb_methods;
  t.tp_weaklistoffset = offsetof(TensorObject, weakreflist);
  if (PyType_Ready(&t) < 0) return -1;
  Py_INCREF(&t);
  return PyModule_AddObject(module, "TensorBase", reinterpret_cast<PyObject*>(&t));
}

}  // namespace sdkpy

PyTypeObject TensorBaseType = {PyVarObject_HEAD_INIT(nullptr, 0)};
