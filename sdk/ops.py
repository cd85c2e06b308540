"""sdk.ops: operators registered by libraries, as ``sdk.ops.<namespace>.<name>``.

Ops come from C++ (``SDK_LIBRARY`` blocks in an extension: see ``sdk/library.h``) or from
Python (``sdk.library.custom_op``). ``sdk.ops.myops.mymuladd`` is the op's default overload
(``myops::mymuladd``), called like the function its schema describes; other overloads are
its attributes (``sdk.ops.myops.add.out``), and ``.default`` is the op itself, as in torch.
Arguments take sdk.Tensor, numpy arrays and DLPack producers (without copying), Python
numbers, lists and None; results are sdk.Tensor (a tuple for several).

``sdk.ops.load_library(path)`` loads a shared library whose static initializers register
ops (torch.ops.load_library).
"""

from __future__ import annotations

import copyreg
import ctypes
import os
import types
from typing import Any

from sdk import _C
from sdk.utils.elf import ElfError, ElfFile

__all__ = ["load_library", "loaded_libraries", "registered_names", "set_origin"]

# realpath -> ctypes handle of every library loaded here (kept: never unloaded)
_loaded: dict[str, ctypes.CDLL] = {}
loaded_libraries: set[str] = set()
# realpath -> the ImportError message of a library whose registrations failed. Its static
# initializers ran once and cannot run again (the loader keeps the library mapped): a second
# load would see no failure and leave the ops half registered, so it raises this again.
_failed: dict[str, str] = {}


def load_library(path: str | os.PathLike) -> None:
    """Load a shared library of operators and check that its registrations succeeded.

    Raises ImportError naming the library when it cannot be loaded, or when one of its
    SDK_LIBRARY blocks failed (a malformed schema, an op defined twice, a kernel for an op
    nobody defines): the message lists each failure with the op and where it was
    registered. Loading such a library again raises the same error (its registrations
    ran once, when it was first loaded, and are not repeated)."""
    real = os.path.realpath(os.fspath(path))
    if real in _loaded:
        check_registrations(real)  # raises again if they failed the first time
        return
    if not os.path.isfile(real):
        raise ImportError(f"sdk.ops.load_library: no such file: {os.fspath(path)}")
    _check_loadable(real)
    try:
        handle = ctypes.CDLL(real)
    except OSError as e:
        raise ImportError(f"sdk.ops.load_library: could not load {real}: {e}") from None
    before = set(_C.op_list(None))
    _loaded[real] = handle
    loaded_libraries.add(real)
    check_registrations(real)
    set_origin(set(_C.op_list(None)) - before, real)


def _check_loadable(path: str) -> None:
    """ImportError unless `path` is an ELF file that holds every segment the loader maps:
    dlopen of a truncated library touches pages past the end of the file, a SIGBUS that no
    error handling catches."""
    try:
        ElfFile(path).check_loadable()
    except (OSError, ElfError) as e:
        raise ImportError(f"sdk.ops.load_library: cannot load {path}: {e}") from None


def check_registrations(what: str) -> None:
    """Raise ImportError listing the registrations that failed since the last check (the
    failures of static initializers, which no caller sees when they happen); for a library
    path whose registrations failed before, the same error again."""
    real = os.path.realpath(what) if os.path.isabs(what) else what
    errors = _C.library_take_errors()
    if errors:
        _failed[real] = f"{what}: operator registration failed:\n  " + errors.replace("\n", "\n  ")
    if real in _failed:
        raise ImportError(_failed[real])


class _OverloadPacket:
    """An op name with overloads but no default overload: ``packet.<overload>``."""

    def __init__(self, qualified: str, overloads: list[str]) -> None:
        self._qualified = qualified
        self._overloads = overloads

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _C.op_find(f"{self._qualified}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(self._overloads) == 1:
            return getattr(self, self._overloads[0])(*args, **kwargs)
        raise TypeError(
            f"{self._qualified} has no default overload; call one of "
            + ", ".join(f"{self._qualified}.{o}" for o in self._overloads)
        )

    def __repr__(self) -> str:
        return f"<op packet {self._qualified}: overloads {', '.join(self._overloads)}>"


def _namespace(ns: str) -> types.ModuleType:
    """``sdk.ops.<ns>``: a plain module (attribute reads at module speed) whose module-level
    ``__getattr__`` finds ops on first use and keeps them."""
    mod = types.ModuleType(f"sdk.ops.{ns}")

    def lookup(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        qualified = f"{ns}::{name}"
        try:
            op = _C.op_find(qualified)
        except ValueError:
            prefix = qualified + "."
            overloads = [q[len(prefix) :] for q in _C.op_list(ns) if q.startswith(prefix)]
            if not overloads:
                known = ", ".join(q.split("::", 1)[1] for q in _C.op_list(ns))
                raise AttributeError(
                    f"'sdk.ops.{ns}' has no op named {name!r}"
                    + (f" (it has: {known})" if known else " (nothing is registered in it)")
                ) from None
            return _OverloadPacket(qualified, overloads)
        # Kept: the handle stays valid for the process (a redefined op is the same handle;
        # calling one whose library was closed raises).
        setattr(mod, name, op)
        return op

    def listing() -> list[str]:
        return sorted({q.split("::", 1)[1].split(".")[0] for q in _C.op_list(ns)})

    mod.__getattr__ = lookup  # type: ignore[method-assign]
    mod.__dir__ = listing  # type: ignore[method-assign]
    return mod


_namespaces: dict[str, types.ModuleType] = {}


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    ns = _namespaces.get(name)
    if ns is None:
        ns = _namespaces[name] = _namespace(name)
        globals()[name] = ns  # later lookups are plain attribute reads
    return ns


def __dir__() -> list[str]:
    return sorted({*__all__, *(q.split("::", 1)[0] for q in _C.op_list(None))})


# ---------------------------------------------------------------------------- pickling
# An op pickles as its name and the origin of its library: the object load() returned
# (cpp_extension makes it pickle as its build request, so unpickling it loads the library
# in the receiving process first), or the path given to load_library. Ops defined in Python
# (sdk.library) travel by name: the receiving process must have defined them.

_origins: dict[str, Any] = {}  # qualified op name -> the origin of its library


def registered_names(namespace: str | None = None) -> list[str]:
    """The qualified names (``ns::op`` or ``ns::op.overload``) of the registered ops, of one
    namespace or of all."""
    return list(_C.op_list(namespace))


def set_origin(names: Any, origin: Any) -> None:
    """Record `origin` (a picklable object whose unpickling loads the library, or its path)
    for the ops `names` that a library registered while it loaded: a pickled op then brings
    its library along to another process. cpp_extension.load() calls this for what it
    builds; load_library() for the paths it loads."""
    for name in names:
        _origins[name] = origin


def _reduce_op(op: Any) -> tuple:
    return (_op_from_pickle, (op.name, _origins.get(op.name)))


def _op_from_pickle(name: Any, origin: Any) -> Any:
    """The op `name` (unpickling): `origin` was unpickled first, which loaded a JIT library;
    a path is loaded here. ValueError naming the op when it is not registered."""
    if not isinstance(name, str) or "::" not in name:
        raise ValueError(f"unpickling an op: name must be 'namespace::op', got {name!r:.80}")
    if isinstance(origin, str):
        load_library(origin)
    try:
        return _C.op_find(name)
    except ValueError:
        how = (
            f"its library {origin!r:.200} did not register it"
            if origin is not None
            else "it was defined in Python or by a library loaded some other way: import or "
            "load what defines it in this process first"
        )
        raise ValueError(f"unpickling op {name}: it is not registered here; {how}") from None


copyreg.pickle(_C.OpHandle, _reduce_op)
