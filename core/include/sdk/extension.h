// sdk/extension.h: tensor.h + pybind11 with sdk::Tensor casters (what torch/extension.h is to
// torch).
//
//   #include <sdk/extension.h>
//   sdk::Tensor scale(sdk::Tensor x, double a) { return x * a; }
//   PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("scale", &scale); }
//
// - SDK_EXTENSION_NAME is defined by the build tooling (-DSDK_EXTENSION_NAME=<name>).
// - IntArrayRef / TensorList / ArrayRef<double> arguments take Python lists and tuples.
// - `py` names pybind11 (py::arg, py::module_), as with torch/extension.h; SDK_WARN raises a
//   Python UserWarning.
// - sdk::Tensor arguments accept sdk.Tensor and, without copying, numpy arrays and any
//   DLPack producer (not under py::arg().noconvert()); results become sdk.Tensor, an
//   undefined Tensor becomes None. std::vector/std::tuple/std::optional of tensors work
//   through <pybind11/stl.h>. sdk::Scalar converts from/to bool, int and float.
// - Conversions go through the capsule table of sdk/python.h, never through pybind11
//   internals shared with sdk (which does not use pybind11): any pybind11 >= 2.10 works.
// - At import, the module fetches that table, which imports sdk and checks the ABI: an
//   extension built against a newer or other-major ABI fails with ImportError naming both
//   versions instead of crashing later. This works by wrapping PYBIND11_MODULE's entry
//   point (define SDK_NO_IMPORT_HOOK to opt out); without it the same check runs on the
//   first tensor conversion.
// - sdk::Error raises the Python exception of its kind (sdk.InvalidArgumentError, TypeError,
//   IndexError, RuntimeError, sdk.OutOfMemoryError, NotImplementedError) through a
//   module-local translator registered at import. Without the translator (SDK_NO_IMPORT_HOOK, or a
//   module not made by PYBIND11_MODULE), sdk::Error is a std::exception and pybind11 raises
//   RuntimeError with the same message; call sdk::python::register_exception_translator() to opt
//   in.
#ifndef SDK_EXTENSION_H_
#define SDK_EXTENSION_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "sdk/all.h"       // every header-only API, as torch/extension.h has all of ATen
#include "sdk/autograd.h"  // sdk::autograd::Function, NoGradGuard
#include "sdk/library.h"   // SDK_LIBRARY and friends, as torch/extension.h has TORCH_LIBRARY
#include "sdk/python.h"
#include "sdk/python_errors.h"
#include "sdk/tensor.h"

// torch/extension.h's alias, which py::arg, py::module_ ... in ported bindings rely on (an
// alias may be declared again in the same scope, so a module's own line still compiles).
namespace py = pybind11;

namespace sdk {
namespace python {

/*! \brief The capsule table of sdk._C (imports sdk, checks the ABI on first use). Throws
 *  pybind11::error_already_set (ImportError on an ABI mismatch). Requires the GIL. */
inline const sdk_python_api_table& api() {
  const sdk_python_api_table* table = sdk_python_api();
  if (!table) throw pybind11::error_already_set();
  return *table;
}

/*! \brief sdk.<name> when the running sdk defines it, else `fallback`. Requires the GIL; the
 *  lookup happens once per name and module. */
inline PyObject* sdk_exception(const char* name, PyObject* fallback) {
  PyObject* mod = PyImport_ImportModule("sdk");
  PyObject* type = mod ? PyObject_GetAttrString(mod, name) : nullptr;
  Py_XDECREF(mod);
  if (!type || !PyExceptionClass_Check(type)) {
    PyErr_Clear();
    Py_XDECREF(type);
    return fallback;
  }
  return type;  // one reference kept for the life of the process
}

/*! \brief The Python exception type of an error kind (SDK_ERRORS in sdk/c_api.h): sdk's own
 *  type where the kind has one (sdk.InvalidArgumentError, sdk.OutOfMemoryError: also
 *  RuntimeError, what torch raises for them, so ported `except RuntimeError` clauses keep
 *  working) and the running sdk defines it, else the kind's builtin. Requires the GIL. */
inline PyObject* exception_type(sdk_status kind) {
  const char* own = detail::sdk_exception_name(kind);
  if (!own) return detail::builtin_exception(kind);  // also every code outside the table
  static PyObject* found[64] = {};                   // looked up once per kind
  if (kind < 0 || kind >= 64) return detail::builtin_exception(kind);
  if (!found[kind]) found[kind] = sdk_exception(own, detail::builtin_exception(kind));
  return found[kind];
}

/*! \brief A new sdk.Tensor sharing `t`'s handle (None for an undefined tensor). */
inline pybind11::object to_python(Tensor t) {
  if (!t.defined()) return pybind11::none();
  PyObject* obj = api().from_handle(t.release());  // steals, also on failure
  if (!obj) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::object>(obj);
}

/*! \brief The tensor of an sdk.Tensor, numpy array or DLPack producer (no copy). */
inline Tensor from_python(pybind11::handle obj) {
  sdk_tensor* handle = nullptr;
  if (api().to_handle(obj.ptr(), &handle) != 0) throw pybind11::error_already_set();
  return Tensor::steal(handle);
}

namespace detail {

inline void translate_error(std::exception_ptr p) {
  if (!p) return;
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    PyErr_SetString(exception_type(e.kind()), e.what());
  }
}

// SDK_WARN in a pybind11 module: a Python UserWarning when the calling thread holds the GIL
// (an error under `-W error`, raised from the call); stderr from other threads.
inline void warn_python(const std::string& message) {
  if (Py_IsInitialized() && PyGILState_Check()) {
    if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) {
      throw pybind11::error_already_set();
    }
    return;
  }
  std::fprintf(stderr, "Warning: %s\n", message.c_str());
}

// Runs in PyInit_<name>, with the GIL, before pybind11 builds the module.
inline bool on_module_import() noexcept {
  if (!sdk_python_api()) return false;  // ImportError naming both ABI versions is set
  try {
    static bool registered = false;
    if (!registered) {
      pybind11::register_local_exception_translator(&translate_error);
      if (!get_warning_handler()) set_warning_handler(&warn_python);
      registered = true;
    }
  } catch (pybind11::error_already_set& e) {
    e.restore();
    return false;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_ImportError, e.what());
    return false;
  }
  return true;
}

}  // namespace detail

/*! \brief Make sdk::Error raise ValueError/TypeError/... for this module's functions
 *  (done automatically at import unless SDK_NO_IMPORT_HOOK is defined). */
inline void register_exception_translator() {
  pybind11::register_local_exception_translator(&detail::translate_error);
}

}  // namespace python
}  // namespace sdk

// The import hook: PYBIND11_MODULE defines PyInit_<name> through PYBIND11_PLUGIN_IMPL
// (pybind11 2.x and 3.x alike). Redefining it puts the ABI check and the translator
// registration in front of pybind11's own entry point, which becomes a static function.
#if defined(PYBIND11_PLUGIN_IMPL) && !defined(SDK_NO_IMPORT_HOOK)
#undef PYBIND11_PLUGIN_IMPL
#if defined(PYBIND11_CHECK_PYTHON_VERSION)
#define SDK_DETAIL_CHECK_PYTHON_VERSION PYBIND11_CHECK_PYTHON_VERSION
#else
#define SDK_DETAIL_CHECK_PYTHON_VERSION
#endif
#define PYBIND11_PLUGIN_IMPL(name)                                     \
  static PyObject* PYBIND11_CONCAT(sdk_detail_pybind11_init_, name)(); \
  extern "C" PYBIND11_EXPORT PyObject* PyInit_##name();                \
  extern "C" PYBIND11_EXPORT PyObject* PyInit_##name() {               \
    SDK_DETAIL_CHECK_PYTHON_VERSION                                    \
    if (!::sdk::python::detail::on_module_import()) return nullptr;    \
    return PYBIND11_CONCAT(sdk_detail_pybind11_init_, name)();         \
  }                                                                    \
  static PyObject* PYBIND11_CONCAT(sdk_detail_pybind11_init_, name)()
#endif

namespace pybind11 {
namespace detail {

/*! \brief sdk::Tensor <-> sdk.Tensor through the capsule table. */
template <>
struct type_caster<sdk::Tensor> {
  PYBIND11_TYPE_CASTER(sdk::Tensor, const_name("sdk.Tensor"));

  bool load(handle src, bool convert) {
    if (!src || src.is_none()) return false;
    const sdk_python_api_table& table = sdk::python::api();
    // sdk.Tensor always; numpy arrays and DLPack producers only when converting, as
    // pybind11 does for its own types (noconvert() arguments take sdk.Tensor only).
    if (!convert && !table.is_tensor(src.ptr())) return false;
    sdk_tensor* h = nullptr;
    if (table.to_handle(src.ptr(), &h) != 0) {
      PyErr_Clear();  // let pybind11 try other overloads / report the signatures
      return false;
    }
    value = sdk::Tensor::steal(h);
    return true;
  }

  static handle cast(const sdk::Tensor& src, return_value_policy, handle) {
    return sdk::python::to_python(src).release();
  }
  static handle cast(sdk::Tensor&& src, return_value_policy, handle) {
    return sdk::python::to_python(std::move(src)).release();
  }
};

/*! \brief sdk::Scalar <-> Python bool, int or float. */
template <>
struct type_caster<sdk::Scalar> {
  PYBIND11_TYPE_CASTER(sdk::Scalar, const_name("bool | int | float"));

  bool load(handle src, bool convert) {
    PyObject* o = src.ptr();
    if (!o) return false;
    if (PyBool_Check(o)) {
      value = sdk::Scalar(o == Py_True);
      return true;
    }
    if (PyLong_Check(o) || (convert && PyIndex_Check(o) && !PyFloat_Check(o))) {
      long long v = PyLong_AsLongLong(o);
      if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value = sdk::Scalar(static_cast<int64_t>(v));
      return true;
    }
    if (PyFloat_Check(o) || convert) {
      double v = PyFloat_AsDouble(o);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value = sdk::Scalar(v);
      return true;
    }
    return false;
  }

  static handle cast(const sdk::Scalar& s, return_value_policy, handle) {
    if (s.isFloatingPoint()) return PyFloat_FromDouble(s.toDouble());
    if (s.isBoolean()) return handle(s.toBool() ? Py_True : Py_False).inc_ref();
    if (s.isNone()) return none().release();
    return PyLong_FromLongLong(s.toLong());
  }
};

/*! \brief sdk::ArrayRef<T> (IntArrayRef, TensorList, ArrayRef<double>) arguments from a
 *  Python sequence (an int alone for IntArrayRef, as torch), kept in the caster for the call;
 *  results become a list. */
template <typename T>
struct type_caster<sdk::ArrayRef<T>> {
  using Owned = std::vector<T>;
  PYBIND11_TYPE_CASTER(sdk::ArrayRef<T>,
                       const_name("list[") + make_caster<T>::name + const_name("]"));

  bool load(handle src, bool convert) {
    if constexpr (std::is_same<T, int64_t>::value) {
      if (src && PyLong_Check(src.ptr()) && !PyBool_Check(src.ptr())) {
        long long v = PyLong_AsLongLong(src.ptr());
        if (v == -1 && PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
        owned_.assign(1, static_cast<int64_t>(v));
        value = sdk::ArrayRef<T>(owned_);
        return true;
      }
    }
    make_caster<Owned> items;
    if (!items.load(src, convert)) return false;
    owned_ = cast_op<Owned&&>(std::move(items));
    value = sdk::ArrayRef<T>(owned_);
    return true;
  }

  static handle cast(sdk::ArrayRef<T> src, return_value_policy policy, handle parent) {
    return make_caster<Owned>::cast(src.vec(), policy, parent);
  }

 private:
  Owned owned_;
};

}  // namespace detail
}  // namespace pybind11

#endif  // SDK_EXTENSION_H_
