"""sdk.classes: custom classes registered by libraries, as ``sdk.classes.<namespace>.<Name>``.

A C++ library registers a class with ``m.class_<T>("Name")`` (torch's ``torch::class_``, see
``sdk/custom_class.h``); ``sdk.classes.ns.Name(*args)`` constructs one through its registered
``init``, ``obj.method(*args)`` calls a method, ``sdk.classes.ns.Name.f(*args)`` a
``def_static`` one. Objects pass to ``sdk.ops`` ops whose schema names the class
(``__torch__.torch.classes.ns.Name``) and come back from them; they pickle and deep-copy
through the class's ``def_pickle`` (its state travels as ordinary op values). An object
keeps its C++ object alive; C++ may keep it longer (the count is in the object).
"""

from __future__ import annotations

import types
from typing import Any

from sdk import _C, ops
from sdk.ops import load_library

__all__ = ["ScriptObject", "load_library", "loaded_libraries"]


def loaded_libraries() -> set[str]:
    """The libraries loaded with load_library (torch.classes.loaded_libraries)."""
    return set(ops.loaded_libraries)


def _qualified_type(name: str) -> str:
    return f"__torch__.torch.classes.{name}"


class ScriptObject(_C.ScriptObject):
    """An object of a custom class (torch.ScriptObject): attributes are its methods."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            method = _C.object_method(self, name)
        except ValueError as e:
            raise AttributeError(str(e)) from None
        return types.MethodType(method, self)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._method_names()})

    def _method_names(self) -> list[str]:
        try:
            return [m for m in _C.class_methods(self._class_name) if not m.startswith("__")]
        except ValueError:  # the class's library was closed
            return []

    def _type(self) -> str:
        """The schema type of the object: '__torch__.torch.classes.ns.Name'."""
        return _qualified_type(self._class_name)

    def __repr__(self) -> str:
        try:  # the class's own __repr__ method, when it has one
            method = _C.object_method(self, "__repr__")
        except (ValueError, RuntimeError):
            return f"<sdk.classes.{self._class_name} object at {self._address:#x}>"
        return method(self)

    def __reduce__(self) -> tuple:
        try:
            get_state = _C.object_method(self, "__getstate__")
        except ValueError:
            raise TypeError(
                f"cannot pickle an object of class {self._type()}: the class defines no "
                "def_pickle (register __getstate__ and __setstate__ with .def_pickle(...))"
            ) from None
        return (_from_state, (self._class_name, get_state(self)))


_C._set_script_object_class(ScriptObject)


def _from_state(class_name: str, state: Any) -> ScriptObject:
    """Unpickling: a new object of `class_name` made by its __setstate__ from `state`."""
    if not isinstance(class_name, str):
        raise TypeError(f"unpickling a custom-class object: bad class name {class_name!r:.80}")
    try:
        set_state = _C.class_method(class_name, "__setstate__")
    except ValueError as e:
        raise TypeError(
            f"cannot unpickle an object of class {_qualified_type(class_name)}: {e}"
        ) from None
    return set_state(state)


class _Class:
    """``sdk.classes.ns.Name``: call it to construct an object; attributes are its static
    methods."""

    def __init__(self, name: str) -> None:
        self._name = name

    def qualified_name(self) -> str:
        """The schema type: '__torch__.torch.classes.ns.Name'."""
        return _qualified_type(self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> ScriptObject:
        try:
            init = _C.class_method(self._name, "__init__")
        except ValueError:
            raise RuntimeError(
                f"{_qualified_type(self._name)} has no constructor: register one with "
                ".def(sdk::init<...>())"
            ) from None
        return init(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return _C.class_method(self._name, name)
        except ValueError as e:
            raise AttributeError(str(e)) from None

    def __dir__(self) -> list[str]:
        return [m for m in _C.class_methods(self._name) if not m.startswith("__")]

    def __repr__(self) -> str:
        return f"<custom class {_qualified_type(self._name)}>"


class _Namespace(types.ModuleType):
    """``sdk.classes.ns``: its classes as attributes."""

    def __getattr__(self, name: str) -> _Class:
        if name.startswith("__"):
            raise AttributeError(name)
        ns = self.__name__.rsplit(".", 1)[1]
        try:
            qualified = _C.class_find(f"{ns}.{name}")
        except ValueError as e:
            raise AttributeError(f"'sdk.classes.{ns}' has no class {name!r}: {e}") from None
        return _Class(qualified)

    def __dir__(self) -> list[str]:
        ns = self.__name__.rsplit(".", 1)[1]
        return [q.split(".", 1)[1] for q in _C.class_list(ns)]


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return _Namespace(f"sdk.classes.{name}")


def __dir__() -> list[str]:
    return sorted({*__all__, *(q.split(".", 1)[0] for q in _C.class_list(None))})
