/*
 * sdk/python.h: the stable Python-level bridge between sdk.Tensor objects
 * and sdk_tensor handles, for binding code that is not part of `sdk` itself.
 *
 * The `sdk._C` module publishes a table of function pointers in a capsule
 * (the pattern of numpy's C-API). Extensions fetch it with sdk_python_api()
 * below and never touch sdk's object layout or its binding library, so an
 * extension built with any pybind11 (or none) works with any sdk of the same
 * ABI major version.
 *
 * Rules: entries are only appended; `size` tells how many bytes of the table
 * the running sdk provides, so a caller checks it before using a late entry.
 */
#ifndef SDK_PYTHON_H_
#define SDK_PYTHON_H_

#include <Python.h>

#include "sdk/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Capsule attribute of module `sdk._C` and the capsule's name. */
#define SDK_PYTHON_API_MODULE "sdk._C"
#define SDK_PYTHON_API_ATTR "_PYTHON_API"
#define SDK_PYTHON_API_CAPSULE "sdk._C._PYTHON_API"

/*! \brief Version 1 of the table. */
typedef struct {
  /*! sizeof the table as provided by the running sdk. */
  uint32_t size;
  /*! ABI version of the core that sdk._C was built against. */
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t reserved;
  /*! 1 if `obj` is an sdk.Tensor (or subclass), else 0. Never fails. */
  int (*is_tensor)(PyObject* obj);
  /*! Borrow-free conversion: sets *out to a NEW reference to the handle of
   *  `obj`. sdk.Tensor gives its own handle; a numpy array or any DLPack
   *  producer is imported without copying. Returns 0, or -1 with a Python
   *  exception (TypeError naming the type) set. */
  int (*to_handle)(PyObject* obj, sdk_tensor** out);
  /*! Wrap a handle as a new sdk.Tensor, STEALING the reference (also on
   *  failure). Returns NULL with a Python exception set on failure. */
  PyObject* (*from_handle)(sdk_tensor* t);
  /*! Raise the calling thread's last core error as the matching Python
   *  exception (ValueError, TypeError, ...); always returns NULL. */
  PyObject* (*raise_last_error)(void);
} sdk_python_api_table;

/*! \brief Fetch the table (imports sdk if needed). NULL with a Python
 *  exception set if sdk is missing or its ABI major differs. Requires the
 *  GIL. The result is cached. */
static inline const sdk_python_api_table* sdk_python_api(void) {
  static const sdk_python_api_table* cached = NULL;
  if (cached) return cached;
  PyObject* mod = PyImport_ImportModule(SDK_PYTHON_API_MODULE);
  if (!mod) return NULL;
  PyObject* cap = PyObject_GetAttrString(mod, SDK_PYTHON_API_ATTR);
  Py_DECREF(mod);
  if (!cap) return NULL;
  const sdk_python_api_table* table =
      (const sdk_python_api_table*)PyCapsule_GetPointer(cap, SDK_PYTHON_API_CAPSULE);
  Py_DECREF(cap);
  if (!table) return NULL;
  if (table->abi_major != SDK_ABI_VERSION_MAJOR ||
      sdk_abi_check(SDK_ABI_VERSION_MAJOR, SDK_ABI_VERSION_MINOR) != SDK_OK) {
    PyErr_Format(PyExc_ImportError,
                 "this extension was built against sdk ABI %d.%d, but the installed sdk "
                 "provides ABI %u.%u; rebuild the extension against the installed sdk",
                 SDK_ABI_VERSION_MAJOR, SDK_ABI_VERSION_MINOR, table->abi_major, table->abi_minor);
    return NULL;
  }
  cached = table;
  return cached;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SDK_PYTHON_H_ */
