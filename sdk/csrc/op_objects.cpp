// sdk/csrc/op_objects.cpp: custom-class objects in Python (sdk._C.ScriptObject, which
// sdk.classes subclasses) and the lookups of classes and their methods (ABI 1.12).
#include <string>

#include "common.h"
#include "op_values.h"

namespace sdkpy {

PyObject* lines_to_list(const std::string& all) {
  PyObject* l = PyList_New(0);
  size_t start = 0;
  while (l && start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    PyObject* s =
        PyUnicode_FromStringAndSize(all.data() + start, static_cast<Py_ssize_t>(end - start));
    if (!s || PyList_Append(l, s) < 0) Py_CLEAR(l);
    Py_XDECREF(s);
    start = end + 1;
  }
  return l;
}

namespace {

// One reference to an object of a custom class, dropped when the Python object dies.
struct ScriptObject {
  PyObject_HEAD const sdk_class* cls;
  void* object;
  PyObject* weakreflist;
};

PyTypeObject ScriptObjectType = {
    PyVarObject_HEAD_INIT(nullptr, 0) "sdk._C.ScriptObject", /* tp_name */
};

// The class objects are made as: sdk.classes.ScriptObject once sdk.classes is imported.
PyTypeObject* object_class = &ScriptObjectType;

void so_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<ScriptObject*>(self);
  if (o->weakreflist) PyObject_ClearWeakRefs(self);
  sdk_object_release(o->cls, o->object);  // nothing when the class's library was closed
  Py_TYPE(self)->tp_free(self);
}

PyObject* so_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError,
                  "custom-class objects are made by their class: sdk.classes.<ns>.<Name>(...)");
  return nullptr;
}

PyObject* so_get_class_name(PyObject* self, void*) {
  return PyUnicode_FromString(sdk_class_name(reinterpret_cast<ScriptObject*>(self)->cls));
}

PyObject* so_get_alive(PyObject* self, void*) {
  return PyBool_FromLong(sdk_class_is_alive(reinterpret_cast<ScriptObject*>(self)->cls));
}

PyObject* so_get_address(PyObject* self, void*) {
  return PyLong_FromVoidPtr(reinterpret_cast<ScriptObject*>(self)->object);
}

PyGetSetDef so_getset[] = {
    {"_class_name", so_get_class_name, nullptr, "The class, 'ns.Name'.", nullptr},
    {"_class_alive", so_get_alive, nullptr, "Whether the class's library is still open.", nullptr},
    {"_address", so_get_address, nullptr, "The C++ object's address (identity).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

const sdk_class* find_class(PyObject* name, const char* fn) {
  const char* n = c_text(name, fn, "the class name");
  if (!n) return nullptr;
  const sdk_class* cls = nullptr;
  if (sdk_class_find(n, &cls) != SDK_OK) {
    raise_last_error();
    return nullptr;
  }
  return cls;
}

// class_find(name) -> "ns.Name" of the live class (ValueError naming the namespace's classes)
PyObject* m_class_find(PyObject*, PyObject* name) {
  const sdk_class* cls = find_class(name, "class_find");
  return cls ? PyUnicode_FromString(sdk_class_name(cls)) : nullptr;
}

// class_method(name, method) -> OpHandle
PyObject* m_class_method(PyObject*, PyObject* const* args, Py_ssize_t n) {
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "class_method(class_name, method_name)");
    return nullptr;
  }
  const sdk_class* cls = find_class(args[0], "class_method");
  const char* m = cls ? c_text(args[1], "class_method", "the method name") : nullptr;
  if (!m) return nullptr;
  const sdk_op* op = nullptr;
  if (sdk_class_method(cls, m, &op) != SDK_OK) return raise_last_error();
  return op_handle(op);
}

// object_method(obj, method) -> OpHandle of the object's own class (which may be dead)
PyObject* m_object_method(PyObject*, PyObject* const* args, Py_ssize_t n) {
  const sdk_class* cls = nullptr;
  void* object = nullptr;
  if (n != 2 || !object_of(args[0], &cls, &object)) {
    PyErr_SetString(PyExc_TypeError, "object_method(script_object, method_name)");
    return nullptr;
  }
  const char* m = c_text(args[1], "object_method", "the method name");
  if (!m) return nullptr;
  const sdk_op* op = nullptr;
  if (sdk_class_method(cls, m, &op) != SDK_OK) return raise_last_error();
  return op_handle(op);
}

// class_methods(name) -> ["method", ...]
PyObject* m_class_methods(PyObject*, PyObject* name) {
  const sdk_class* cls = find_class(name, "class_methods");
  return cls ? lines_to_list(sdk_class_methods(cls)) : nullptr;
}

// class_list(ns or None) -> ["ns.Name", ...]
PyObject* m_class_list(PyObject*, PyObject* ns) {
  const char* n = ns == Py_None ? nullptr : c_text(ns, "class_list", "the namespace");
  if (ns != Py_None && !n) return nullptr;
  return lines_to_list(sdk_class_list(n));
}

PyObject* m_set_object_class(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &ScriptObjectType)) {
    PyErr_SetString(PyExc_TypeError, "_set_script_object_class: expected a ScriptObject subclass");
    return nullptr;
  }
  Py_INCREF(cls);
  object_class = reinterpret_cast<PyTypeObject*>(cls);
  Py_RETURN_NONE;
}

}  // namespace

PyObject* object_to_py(const sdk_class* cls, void* object) {
  if (sdk_object_retain(cls, object) != SDK_OK) return raise_last_error();
  PyObject* self = object_class->tp_alloc(object_class, 0);
  if (!self) {
    sdk_object_release(cls, object);
    return nullptr;
  }
  auto* o = reinterpret_cast<ScriptObject*>(self);
  o->cls = cls;
  o->object = object;
  o->weakreflist = nullptr;
  return self;
}

bool object_of(PyObject* o, const sdk_class** cls, void** object) {
  if (!PyObject_TypeCheck(o, &ScriptObjectType)) return false;
  *cls = reinterpret_cast<ScriptObject*>(o)->cls;
  *object = reinterpret_cast<ScriptObject*>(o)->object;
  return true;
}

PyMethodDef op_objects_methods[] = {
    {"class_find", m_class_find, METH_O, "class_find('ns.Name') -> 'ns.Name' (ValueError if none)"},
    {"class_method", SDK_PY_AS_CFUNCTION(m_class_method), METH_FASTCALL,
     "class_method('ns.Name', 'method') -> OpHandle"},
    {"object_method", SDK_PY_AS_CFUNCTION(m_object_method), METH_FASTCALL,
     "object_method(obj, 'method') -> OpHandle of obj's class"},
    {"class_methods", m_class_methods, METH_O, "class_methods('ns.Name') -> ['method', ...]"},
    {"class_list", m_class_list, METH_O, "class_list(ns or None) -> ['ns.Name', ...]"},
    {"_set_script_object_class", m_set_object_class, METH_O,
     "The ScriptObject subclass that objects coming from ops are made as."},
    {nullptr, nullptr, 0, nullptr},
};

int op_objects_ready(PyObject* m) {
  ScriptObjectType.tp_basicsize = sizeof(ScriptObject);
  ScriptObjectType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  ScriptObjectType.tp_doc = "An object of a custom class registered by a library.";
  ScriptObjectType.tp_dealloc = so_dealloc;
  ScriptObjectType.tp_new = so_new;
  ScriptObjectType.tp_weaklistoffset = offsetof(ScriptObject, weakreflist);
  ScriptObjectType.tp_getset = so_getset;
  if (PyType_Ready(&ScriptObjectType) < 0) return -1;
  Py_INCREF(&ScriptObjectType);
  if (PyModule_AddObject(m, "ScriptObject", reinterpret_cast<PyObject*>(&ScriptObjectType)) < 0) {
    Py_DECREF(&ScriptObjectType);
    return -1;
  }
  return 0;
}

}  // namespace sdkpy
