"""The ctypes bridge: call SDK_EXPORT functions of an extension with no binding library.

Functions and their signatures are found in the binary's dynamic symbol table
(see sdk/export.h for the grammar); tensors cross as sdk_tensor handles, which
come from sdk.Tensor or any DLPack producer (numpy) without copying.

Per-call cost is the point of this module: each function gets a call method
generated for its signature once, at load (conversions inlined per kind; out
handles in one per-call array). sdk.Tensors cross through sdk's C hooks
``Tensor._handle_address()`` (borrowed handle) and ``sdk._from_handle()``
(adopts a new one); numpy arrays through ``sdk.from_numpy``. Without sdk the
bridge still works through DLPack alone, and returns numpy arrays.
"""

from __future__ import annotations

import builtins
import ctypes
import functools
import numbers
import operator
import os
import re
from collections.abc import Callable

from ._loading import check_registrations
from .builder import toolchain as _toolchain

SIG_PREFIX = "sdk_sig_"
ABI_SYMBOL = "sdk_extension_abi_version"
_KINDS = ("Tensor", "Tensor?", "float", "int", "bool")
_CTYPE = {
    "Tensor": ctypes.c_void_p,
    "Tensor?": ctypes.c_void_p,
    "float": ctypes.c_double,
    "int": ctypes.c_int64,
    "bool": ctypes.c_int32,
}


def _error_type(kind: int) -> type:
    """The exception of an error kind: the running sdk's (``sdk.error_type``: sdk's own types,
    ValueError or MemoryError that are also RuntimeError, where the kind has one); without sdk,
    the builtin of the kind's row of SDK_ERRORS in the c_api.h extensions compile against."""
    sdk = _sdk_module()
    if sdk is not None and hasattr(sdk, "error_type"):
        return sdk.error_type(kind)
    return _header_errors().get(kind, RuntimeError)


@functools.cache
def _header_errors() -> dict[int, type]:
    """{code: builtin exception} read from the SDK_ERRORS rows of sdk/c_api.h."""
    path = os.path.join(_toolchain.sdk_paths().include_dir, "sdk", "c_api.h")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {}
    table = text.partition("#define SDK_ERRORS(X)")[2].partition("\n\n")[0]
    rows = re.findall(r"X\((\w+), (\d+), (\w+),", table)
    return {int(code): getattr(builtins, name, RuntimeError) for _, code, name in rows}


_ARG = re.compile(r"^(Tensor\?|Tensor|float|int|bool)(?:\s+([A-Za-z_]\w*))?$")


class Signature:
    """Parsed "(Tensor x, float alpha) -> Tensor": args as (kind, name), result names
    ("" when unnamed), and whether results come back as a tuple."""

    def __init__(self, args, results, text: str, tuple_result: bool) -> None:
        self.args: tuple[tuple[str, str], ...] = args
        self.results: tuple[str, ...] = results
        self.text = text
        self.tuple_result = tuple_result


def parse_signature(fname: str, text: str) -> Signature:
    """Parse one signature; ValueError naming the function and the bad part."""
    m = re.fullmatch(r"\s*\((.*?)\)\s*->\s*(.+?)\s*", text)
    if not m:
        raise ValueError(f"{fname}: signature {text!r} is not of the form '(args) -> results'")
    args = []
    for i, part in enumerate(p.strip() for p in m.group(1).split(",") if m.group(1).strip()):
        am = _ARG.match(part)
        if not am:
            raise ValueError(
                f"{fname}: argument {part!r} in {text!r}: expected one of {', '.join(_KINDS)} "
                "followed by an optional name"
            )
        args.append((am.group(1), am.group(2) or f"arg{i}"))
    res = m.group(2).strip()
    tuple_result = res.startswith("(")
    inner = res[1:-1] if tuple_result and res.endswith(")") else res
    results = []
    for part in (p.strip() for p in inner.split(",") if inner.strip()):
        rm = re.fullmatch(r"Tensor(?:\s+([A-Za-z_]\w*))?", part)
        if not rm:
            raise ValueError(f"{fname}: result {part!r} in {text!r}: results must be Tensor")
        results.append(rm.group(1) or "")
    if tuple_result and len(results) == 1:
        tuple_result = True  # "(Tensor,)"-like spelling keeps a 1-tuple
    return Signature(tuple(args), tuple(results), text.strip(), tuple_result)


# ------------------------------------------------------------------ the core library


_VP = ctypes.c_void_p
_CORE_FUNCS = {
    "sdk_last_error_kind": (ctypes.c_int32, []),
    "sdk_last_error_message": (ctypes.c_char_p, []),
    "sdk_clear_last_error": (None, []),
    "sdk_abi_version": (ctypes.c_uint32, []),
    "sdk_tensor_release": (None, [_VP]),
    "sdk_from_dlpack": (ctypes.c_int32, [_VP, ctypes.POINTER(_VP)]),
    "sdk_from_dlpack_unversioned": (ctypes.c_int32, [_VP, ctypes.POINTER(_VP)]),
    "sdk_to_dlpack": (ctypes.c_int32, [_VP, ctypes.POINTER(_VP)]),
}


class _Core:
    """The few core C ABI functions the bridge calls, bound on first use."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(_toolchain.sdk_paths().library_path)

    def __getattr__(self, name: str):
        if name not in _CORE_FUNCS:
            raise AttributeError(name)
        restype, argtypes = _CORE_FUNCS[name]
        try:
            fn = getattr(self.lib, name)
        except AttributeError:
            raise RuntimeError(
                f"the sdk core library {self.lib._name} lacks {name}; it is older than this "
                "cpp_extension: rebuild or upgrade sdk"
            ) from None
        fn.restype = restype
        fn.argtypes = argtypes
        setattr(self, name, fn)
        return fn

    def raise_last_error(self, where: str, status: int) -> None:
        kind = self.sdk_last_error_kind() or status
        msg = (self.sdk_last_error_message() or b"").decode(errors="replace")
        if not msg:
            msg = f"failed with status {status} and no message (call sdk_set_last_error)"
        raise _error_type(kind)(f"{where}: {msg}")


_CORE: _Core | None = None


def core() -> _Core:
    global _CORE
    if _CORE is None:
        _CORE = _Core()
    return _CORE


# --------------------------------------------------------------------- DLPack glue

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
# The destructor gets a raw pointer (the capsule is being freed): no py_object conversion.
_raw_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)
# Names must outlive the capsules that point at them: module-level constants.
_VERSIONED = b"dltensor_versioned"
_UNVERSIONED = b"dltensor"
_USED_VERSIONED = b"used_dltensor_versioned"
_USED_UNVERSIONED = b"used_dltensor"


class _ManagedHead(ctypes.Structure):
    """The fixed head of DLManagedTensorVersioned: version, manager_ctx, deleter."""

    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
    ]


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule: int) -> None:
    # An unconsumed capsule still owns the tensor: run its deleter.
    if _api.PyCapsule_IsValid(capsule, _VERSIONED):
        ptr = _raw_get_pointer(capsule, _VERSIONED)
        if ptr:
            head = _ManagedHead.from_address(ptr)
            if head.deleter:
                head.deleter(ptr)


class _CapsuleExporter:
    """Hands one DLPack capsule to a consumer's from_dlpack()."""

    def __init__(self, capsule) -> None:
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("this DLPack capsule was already consumed")
        return capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU; the ctypes bridge only returns host tensors today


def _handle_from_dlpack(obj, where: str) -> int:
    """A NEW sdk_tensor handle sharing obj's memory (DLPack, no copy)."""
    try:
        capsule = obj.__dlpack__(max_version=(1, 1))
    except TypeError:
        capsule = obj.__dlpack__()
    name = _api.PyCapsule_GetName(capsule)
    out = ctypes.c_void_p()
    c = core()
    c.sdk_clear_last_error()
    if name == _VERSIONED:
        ptr = _api.PyCapsule_GetPointer(capsule, _VERSIONED)
        status = c.sdk_from_dlpack(ptr, ctypes.byref(out))
        used = _USED_VERSIONED
    elif name == _UNVERSIONED:
        ptr = _api.PyCapsule_GetPointer(capsule, _UNVERSIONED)
        status = c.sdk_from_dlpack_unversioned(ptr, ctypes.byref(out))
        used = _USED_UNVERSIONED
    else:
        raise TypeError(f"{where}: __dlpack__ returned a capsule named {name!r}")
    if status != 0:
        c.raise_last_error(where, status)
    _api.PyCapsule_SetName(capsule, used)  # the tensor now owns it
    return out.value


def _sdk_module():
    try:
        import sdk

        return sdk
    except Exception:
        return None


class _OwnedHandle:
    """Keeps a handle made for one call (DLPack import without sdk) and releases it after."""

    __slots__ = ("handle",)

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def __del__(self) -> None:
        if self.handle:
            core().sdk_tensor_release(self.handle)
            self.handle = None


def _tensor_arg_slow(obj, where: str) -> tuple[int, object]:
    """(borrowed handle, keep-alive) for a Tensor argument that is not an sdk.Tensor: numpy
    arrays through sdk.from_numpy, other DLPack producers through sdk.from_dlpack (zero-copy
    both); without sdk, a DLPack import whose handle is released when the keep-alive dies."""
    hook = getattr(obj, "_handle_address", None)
    if hook is not None:
        return int(hook()), obj
    sdk = _sdk_module()
    if sdk is not None and hasattr(sdk, "_from_handle"):
        if type(obj).__module__ == "numpy" and hasattr(obj, "__array_interface__"):
            convert = sdk.from_numpy
        elif hasattr(obj, "__dlpack__"):
            convert = sdk.from_dlpack
        else:
            convert = None
        if convert is not None:
            try:
                t = convert(obj)
            except (TypeError, ValueError, BufferError) as e:
                raise type(e)(f"{where}: {e}") from None
            return t._handle_address(), t
    elif hasattr(obj, "__dlpack__"):
        keep = _OwnedHandle(_handle_from_dlpack(obj, where))
        return keep.handle, keep
    raise TypeError(
        f"{where} must be a Tensor or an array supporting DLPack (numpy), got {type(obj).__name__}"
    )


def to_handle(obj, where: str) -> tuple[int, bool]:
    """(handle, owned) for a Tensor argument; owned handles are released after the call."""
    hook = getattr(obj, "_handle_address", None)
    if hook is not None:
        return int(hook()), False
    if hasattr(obj, "__dlpack__"):
        return _handle_from_dlpack(obj, where), True
    raise TypeError(
        f"{where} must be a Tensor or an array supporting DLPack (numpy), got {type(obj).__name__}"
    )


def from_handle(handle: int):
    """Wrap a NEW handle as sdk.Tensor (numpy array when sdk is not importable)."""
    sdk = _sdk_module()
    hook = getattr(sdk, "_from_handle", None) if sdk is not None else None
    if hook is not None:
        return hook(handle)
    c = core()
    managed = ctypes.c_void_p()
    status = c.sdk_to_dlpack(handle, ctypes.byref(managed))
    c.sdk_tensor_release(handle)
    if status != 0:
        c.raise_last_error("returning a tensor", status)
    destructor = ctypes.cast(_capsule_destructor, ctypes.c_void_p)
    capsule = _api.PyCapsule_New(managed.value, _VERSIONED, destructor)
    exporter = _CapsuleExporter(capsule)
    if sdk is not None and hasattr(sdk, "from_dlpack"):
        return sdk.from_dlpack(exporter)
    import numpy

    return numpy.from_dlpack(exporter)


# ------------------------------------------------------------------ functions, module

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _convert_scalar(kind: str, value, where: str):
    if kind == "float":
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
    elif kind == "int":
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            v = operator.index(value)
            if not _INT64_MIN <= v <= _INT64_MAX:
                raise OverflowError(f"{where}={v} does not fit in int64")
            return v
    elif kind == "bool":
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return 1 if value else 0
    raise TypeError(f"{where} must be {kind}, got {type(value).__name__} ({value!r})")


def _no_sdk_address(obj):
    raise TypeError  # no sdk.Tensor type to take the fast path for: always the slow path


def _fast_helpers() -> dict:
    """Names the generated call functions use; sdk's C fast paths when sdk provides them."""
    sdk = _sdk_module()
    base = getattr(getattr(sdk, "_C", None), "TensorBase", None)
    address = getattr(base, "_handle_address", None)
    adopt = getattr(sdk, "_from_handle", None)
    return {
        "_address": address or _no_sdk_address,  # borrowed handle; TypeError if not a tensor
        "_adopt": adopt or from_handle,  # NEW handle -> sdk.Tensor
        "_tensor_slow": _tensor_arg_slow,
        "_scalar": _convert_scalar,
        "_addressof": ctypes.addressof,
        "_IMIN": _INT64_MIN,
        "_IMAX": _INT64_MAX,
    }


# Per-kind conversion of argument {v} into the local {a}; {w} names it in errors.
_CONVERT = {
    "Tensor": (
        "    try:\n        {a} = _address({v})\n"
        "    except TypeError:\n        {a}, {k} = _tensor_slow({v}, {w})\n"
    ),
    "Tensor?": (
        "    if {v} is None:\n        {a} = None\n    else:\n"
        "        try:\n            {a} = _address({v})\n"
        "        except TypeError:\n            {a}, {k} = _tensor_slow({v}, {w})\n"
    ),
    "float": "    {a} = {v} if type({v}) is float else _scalar('float', {v}, {w})\n",
    "int": (
        "    {a} = {v} if type({v}) is int and _IMIN <= {v} <= _IMAX "
        "else _scalar('int', {v}, {w})\n"
    ),
    "bool": "    {a} = 1 if {v} is True else 0 if {v} is False else _scalar('bool', {v}, {w})\n",
}


def _make_call(fname: str, sig: Signature, cfunc, fail, unset) -> object:
    """Generate `__call__(self, *args, **kwargs)` specialised to one signature: argument
    conversions inlined per kind, results through one per-call array of handles, so a call
    with sdk.Tensors costs one ctypes call plus a few attribute lookups."""
    n, nres = len(sig.args), len(sig.results)
    ns = _fast_helpers()
    ns.update(_cfunc=cfunc, _fail=fail, _unset=unset, _MISSING=_MISSING)
    if nres:
        ns["_Outs"] = ctypes.c_void_p * nres
    lines = ["def __call__(self, *args, **kwargs):\n"]
    lines.append(f"    if kwargs or len(args) != {n}:\n        args = self._bind(args, kwargs)\n")
    vs = [f"v{i}" for i in range(n)]
    if n:
        lines.append(f"    {', '.join(vs)}{',' if n == 1 else ''} = args\n")
    cargs = []
    for i, (kind, pname) in enumerate(sig.args):
        ns[f"w{i}"] = f"{fname}(): argument '{pname}'"
        lines.append(_CONVERT[kind].format(a=f"a{i}", v=vs[i], w=f"w{i}", k=f"k{i}"))
        cargs.append(f"a{i}")
    if nres:
        lines.append("    o = _Outs()\n    b = _addressof(o)\n")
        cargs += ["b"] + [f"b + {8 * j}" for j in range(1, nres)]
    lines.append(f"    st = _cfunc({', '.join(cargs)})\n")
    lines.append(f"    if st:\n        _fail(st{', o' if nres else ', None'})\n")
    if not nres:
        lines.append("    return None\n")
    else:
        rs = [f"r{j}" for j in range(nres)]
        lines.append("".join(f"    r{j} = o[{j}]\n" for j in range(nres)))
        lines.append(f"    if {' or '.join(f'{r} is None' for r in rs)}:\n        _unset(o)\n")
        adopted = ", ".join(f"_adopt({r})" for r in rs)
        if nres == 1 and not sig.tuple_result:
            lines.append(f"    return {adopted}\n")
        else:
            lines.append(f"    return ({adopted},)\n")
    exec(compile("".join(lines), f"<sdk ctypes bridge: {fname}>", "exec"), ns)
    return ns["__call__"]


class ExportedFunction:
    """A Python callable for one SDK_EXPORT function. Each instance gets its own subclass
    whose __call__ is generated for the signature (see _make_call)."""

    def __new__(cls, name: str, cfunc, sig: Signature):
        if cls is ExportedFunction:  # specialise: a per-function subclass with its own __call__
            cls = type(f"ExportedFunction_{name}", (ExportedFunction,), {"__slots__": ()})
        return super().__new__(cls)

    def __init__(self, name: str, cfunc, sig: Signature) -> None:
        self.__name__ = name
        self.signature = sig
        self.__doc__ = f"{name}{sig.text}"
        cfunc.restype = ctypes.c_int32
        # out-pointers go as plain addresses into one per-call array (no byref objects)
        cfunc.argtypes = [_CTYPE[k] for k, _ in sig.args] + [ctypes.c_void_p for _ in sig.results]
        self._cfunc = cfunc
        type(self).__call__ = _make_call(name, sig, cfunc, self._fail, self._unset)

    def __repr__(self) -> str:
        return f"<sdk extension function {self.__name__}{self.signature.text}>"

    def __reduce__(self) -> tuple:
        owner = getattr(self, "_owner", None)  # set by CtypesExtension
        if owner is None:
            raise TypeError(f"cannot pickle {self!r}: it belongs to no loaded extension")
        return (getattr, (owner, self.__name__))

    def _bind(self, args, kwargs) -> tuple:
        params = self.signature.args
        if len(args) > len(params):
            raise TypeError(
                f"{self.__name__}() takes {len(params)} argument(s) but {len(args)} were given "
                f"(signature {self.signature.text})"
            )
        values = list(args) + [_MISSING] * (len(params) - len(args))
        names = [n for _, n in params]
        for key, val in kwargs.items():
            if key not in names:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{key}'")
            i = names.index(key)
            if values[i] is not _MISSING:
                raise TypeError(f"{self.__name__}() got multiple values for argument '{key}'")
            values[i] = val
        for (_, n), v in zip(params, values):
            if v is _MISSING:
                raise TypeError(f"{self.__name__}() missing argument '{n}' ({self.signature.text})")
        return tuple(values)

    def _release_outs(self, outs) -> None:
        if outs is not None:
            c = core()
            for i, h in enumerate(outs):
                if h:
                    c.sdk_tensor_release(h)
                    outs[i] = None

    def _fail(self, status: int, outs) -> None:
        """Raise the error the function recorded. The thread's last error is not cleared
        before each call (that would cost a ctypes call): a recorded kind that differs from
        the returned status is stale and ignored; after raising, the record is cleared."""
        self._release_outs(outs)
        c = core()
        kind = c.sdk_last_error_kind()
        msg = (c.sdk_last_error_message() or b"").decode(errors="replace") if kind else ""
        c.sdk_clear_last_error()
        if kind != status and kind:  # stale record of an earlier failure
            kind, msg = status, ""
        if not msg:
            msg = f"failed with status {status} and no message (call sdk_set_last_error)"
        raise _error_type(kind or status)(f"{self.__name__}(): {msg}")

    def _unset(self, outs) -> None:
        self._release_outs(outs)
        raise RuntimeError(f"{self.__name__}() returned SDK_OK but left a result unset")


_MISSING = object()


def _not_picklable(ext: CtypesExtension) -> tuple:
    raise TypeError(f"cannot pickle ctypes extension '{ext.__name__}'")


# How a CtypesExtension pickles: _remote, a layer up, installs its reducer (by the build
# request that made the library) when the package loads; until then none pickles.
_REDUCER: Callable[[CtypesExtension], tuple] = _not_picklable


def set_reducer(reducer: Callable[[CtypesExtension], tuple]) -> None:
    """Install how a CtypesExtension pickles (called once, by _remote)."""
    global _REDUCER
    _REDUCER = reducer


class CtypesExtension:
    """What load() returns for the ctypes bridge: one attribute per exported function."""

    def __init__(self, name: str, path: str, lib, functions: dict[str, ExportedFunction]):
        self.__name__ = name
        self.__file__ = path
        self._lib = lib
        self._functions = functions
        for fname, fn in functions.items():
            setattr(self, fname, fn)
            fn._owner = self

    def __reduce__(self) -> tuple:
        return _REDUCER(self)  # by build request (load() only; see set_reducer)

    def __dir__(self):
        return sorted(set(self._functions) | {"__name__", "__file__"})

    def __getattr__(self, attr: str):
        raise AttributeError(
            f"extension '{self.__name__}' has no function '{attr}'; it exports: "
            f"{', '.join(sorted(self._functions)) or '(none)'}"
        )

    def __repr__(self) -> str:
        return f"<sdk ctypes extension '{self.__name__}' from {self.__file__}>"


def _check_abi(path: str, built: int) -> None:
    running = int(core().sdk_abi_version())
    bmaj, bmin, rmaj, rmin = built >> 16, built & 0xFFFF, running >> 16, running & 0xFFFF
    if bmaj != rmaj or bmin > rmin:
        raise ImportError(
            f"{path} was built against sdk ABI {bmaj}.{bmin}, but the running sdk core provides "
            f"ABI {rmaj}.{rmin}; rebuild the extension against the installed sdk"
        )


_C_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# ctypes calls functions of at most 1024 arguments (CTYPES_MAX_ARGCOUNT); results are
# out-pointer arguments too
MAX_ARGUMENTS = 1024


def _refuse(path: str, fname: str, why: str) -> ImportError:
    return ImportError(f"{path}: SDK_EXPORT({fname}, ...): {why}", name=fname, path=path)


def _read_exports(path: str) -> tuple[dict[str, bytes], int | None]:
    """({function: signature bytes}, built ABI) from the ELF file, read without loading it;
    ImportError naming the file when it is not a whole ELF shared library (a truncated one
    would crash dlopen with SIGBUS)."""
    from sdk.utils import elf as _elf  # the one ELF reader (sdk is importable when loading)

    try:
        elf = _elf.ElfFile(path)
        elf.check_loadable()
        syms = elf.dynamic_symbols()
        sigs = {
            n[len(SIG_PREFIX) :]: elf.read(s.value, s.size).split(b"\0", 1)[0]
            for n, s in syms.items()
            if n.startswith(SIG_PREFIX) and s.kind == "object"
        }
        abi = elf.read_u32(syms[ABI_SYMBOL]) if ABI_SYMBOL in syms else None
    except (_elf.ElfError, OSError) as e:
        raise ImportError(f"cannot load {path}: {e}", path=path) from None
    return sigs, abi


def _checked_signatures(path: str, raw: dict[str, bytes]) -> dict[str, Signature]:
    """Every SDK_EXPORT of the binary parsed, or ImportError naming the file and the
    function: a name that is not a C identifier or starts with '_' (it would shadow the
    loaded object's own attributes: _functions, __class__, __getattr__), a signature that
    is not UTF-8 or not in the grammar, more arguments than ctypes passes."""
    out = {}
    for fname, text in sorted(raw.items()):
        if not _C_NAME.match(fname):
            why = "names starting with '_' are refused" if fname[:1] == "_" else "not a C name"
            raise _refuse(path, ascii(fname)[1:-1], f"bad function name: {why}")
        try:
            sig = parse_signature(fname, text.decode())
        except UnicodeDecodeError as e:
            raise _refuse(path, fname, f"the signature is not UTF-8 text ({e})") from None
        except ValueError as e:
            raise _refuse(path, fname, str(e)) from None
        count = len(sig.args) + len(sig.results)
        if count > MAX_ARGUMENTS:
            raise _refuse(
                path,
                fname,
                f"{len(sig.args)} arguments and {len(sig.results)} results; the ctypes bridge "
                f"passes at most {MAX_ARGUMENTS} in all (use a pybind11 module instead)",
            )
        out[fname] = sig
    return out


def load_library(path: str, name: str) -> CtypesExtension:
    """Check the ABI and the signatures, dlopen `path` and bind every SDK_EXPORT function in
    it; ImportError naming the file (and the function) for anything malformed."""
    raw, abi = _read_exports(path)
    if abi is None:
        raise ImportError(
            f"{path} has no {ABI_SYMBOL} symbol: libraries loaded with is_python_module=False "
            'must #include <sdk/export.h> (functions marked SDK_EXPORT(name, "signature")) '
            "or <sdk/library.h> (operators registered with SDK_LIBRARY)",
            path=path,
        )
    sigs = _checked_signatures(path, raw)  # before dlopen runs any of its code
    _check_abi(path, abi)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"cannot load {path}: {e} (an undefined sdk_* symbol means the sdk core is older "
            "than the headers the extension was built with)",
            path=path,
        ) from None
    check_registrations(path)  # its SDK_LIBRARY blocks ran while it loaded
    functions = {}
    for fname, sig in sigs.items():
        try:
            cfunc = getattr(lib, fname)
        except AttributeError:
            raise _refuse(path, fname, f"a signature but no function '{fname}'") from None
        functions[fname] = ExportedFunction(fname, cfunc, sig)
    return CtypesExtension(name, path, lib, functions)
