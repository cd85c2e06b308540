// sdk/python_errors.h: the Python side of SDK_ERRORS (c_api.h), error kind <-> exception type,
// shared by sdk._C and pybind11 extensions (sdk/extension.h). Requires the GIL.
#ifndef SDK_PYTHON_ERRORS_H_
#define SDK_PYTHON_ERRORS_H_

#include <Python.h>

#include <cstring>
#include <string>

#include "sdk/c_api.h"

namespace sdk {
namespace detail {

/*! \brief The builtin exception type of an error kind (RuntimeError for any other code). */
inline PyObject* builtin_exception(sdk_status kind) {
  switch (kind) {
#define SDK_DETAIL_BUILTIN_CASE(kind_, code, builtin, sdk_type, meaning) \
  case SDK_ERROR_##kind_:                                                \
    return PyExc_##builtin;
    SDK_ERRORS(SDK_DETAIL_BUILTIN_CASE)
#undef SDK_DETAIL_BUILTIN_CASE
    default:
      return PyExc_RuntimeError;
  }
}

/*! \brief The name of sdk's own exception type of a kind ("InvalidArgumentError"), or
 *  nullptr where the kind raises its builtin. */
inline const char* sdk_exception_name(sdk_status kind) {
  switch (kind) {
#define SDK_DETAIL_OWN_CASE(kind_, code, builtin, sdk_type, meaning) \
  case SDK_ERROR_##kind_:                                            \
    return std::strcmp(#builtin, #sdk_type) != 0 ? #sdk_type : nullptr;
    SDK_ERRORS(SDK_DETAIL_OWN_CASE)
#undef SDK_DETAIL_OWN_CASE
    default:
      return nullptr;
  }
}

/*! \brief What an error kind means (SDK_ERRORS' last column; "" for any other code). */
inline const char* error_meaning(sdk_status kind) {
  switch (kind) {
#define SDK_DETAIL_MEANING_CASE(kind_, code, builtin, sdk_type, meaning) \
  case SDK_ERROR_##kind_:                                                \
    return meaning;
    SDK_ERRORS(SDK_DETAIL_MEANING_CASE)
#undef SDK_DETAIL_MEANING_CASE
    default:
      return "";
  }
}

/*! \brief The error kind of a Python exception type: the first SDK_ERRORS row whose builtin it
 *  subclasses, RUNTIME aside (RuntimeError is the kind of anything else). RUNTIME is skipped
 *  because sdk's own types and NotImplementedError are RuntimeErrors of a narrower kind. */
inline sdk_status status_of_python_type(PyObject* type) {
  if (!type) return SDK_ERROR_RUNTIME;
#define SDK_DETAIL_KIND_TEST(kind_, code, builtin, sdk_type, meaning) \
  if (SDK_ERROR_##kind_ != SDK_ERROR_RUNTIME &&                       \
      PyErr_GivenExceptionMatches(type, PyExc_##builtin))             \
    return SDK_ERROR_##kind_;
  SDK_ERRORS(SDK_DETAIL_KIND_TEST)
#undef SDK_DETAIL_KIND_TEST
  return SDK_ERROR_RUNTIME;
}

/*! \brief A fetched and normalized Python exception (`type`, `value`, still the caller's) as
 *  this thread's last core error: its kind, and "prefix: str(value)" as the message. Leaves no
 *  Python error set. Returns the kind. */
inline sdk_status status_from_python(PyObject* type, PyObject* value, const std::string& prefix) {
  PyObject* text = value ? PyObject_Str(value) : nullptr;
  const char* c = text ? PyUnicode_AsUTF8(text) : nullptr;
  std::string message = prefix + ": " + (c ? c : "unknown Python error");
  Py_XDECREF(text);
  PyErr_Clear();  // a failed str() must not outlive this call
  return sdk_set_last_error(status_of_python_type(type), message.c_str());
}

}  // namespace detail
}  // namespace sdk

#endif  // SDK_PYTHON_ERRORS_H_
