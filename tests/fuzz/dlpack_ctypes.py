"""A DLPack producer and consumer in ctypes, for feeding sdk well-formed and malformed capsules.

Our own mirrors of the DLPack 1.x structs (written from the DLPack specification), a
producer that describes numpy memory with any field overridden (versions, ndim, dtype,
device, NULL pointers, flags, capsule names) and counts how often its deleter runs, and
the helpers a consumer needs to take a capsule sdk exported.
"""

from __future__ import annotations

import ctypes
import itertools
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int32,
    c_int64,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

import numpy as np

VERSIONED = b"dltensor_versioned"
LEGACY = b"dltensor"
USED_VERSIONED = b"used_dltensor_versioned"
USED_LEGACY = b"used_dltensor"
FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
KDL_CPU, KDL_CUDA = 1, 2
CODES = {"i": 0, "u": 1, "f": 2, "b": 6}  # numpy kind -> DLDataTypeCode (4: bfloat)


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    pass


class DLManagedTensor(Structure):
    pass


VERSIONED_DELETER = CFUNCTYPE(None, POINTER(DLManagedTensorVersioned))
LEGACY_DELETER = CFUNCTYPE(None, POINTER(DLManagedTensor))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", c_void_p),
    ("deleter", VERSIONED_DELETER),
    ("flags", c_uint64),
    ("dl_tensor", DLTensor),
]
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", c_void_p),
    ("deleter", LEGACY_DELETER),
]

# Our own handle on the C API: argtypes set on the shared ctypes.pythonapi would leak into
# every other module of the process that declares the same functions differently.
_api = ctypes.PyDLL(ctypes.pythonapi._name)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_void_p, c_void_p]
_api.PyCapsule_GetName.restype = c_char_p
_api.PyCapsule_GetName.argtypes = [c_void_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [c_void_p, c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, c_void_p]
# Capsule names must outlive their capsules: one static buffer per name.
_NAMES: dict = {}


def _name_ptr(name: bytes) -> int:
    if name not in _NAMES:
        _NAMES[name] = ctypes.create_string_buffer(name)
    return ctypes.addressof(_NAMES[name])


# Deleter calls by producer token (manager_ctx), and the producers still to be freed.
CALLS: dict = {}
LIVE: dict = {}
_tokens = itertools.count(1)


def _count(ctx: int | None) -> None:
    CALLS[ctx] = CALLS.get(ctx, 0) + 1


@VERSIONED_DELETER
def _versioned_deleter(m):
    _count(m.contents.manager_ctx)


@LEGACY_DELETER
def _legacy_deleter(m):
    _count(m.contents.manager_ctx)


@CFUNCTYPE(None, c_void_p)
def _capsule_destructor(cap):
    """What a producer's capsule destructor does: free the tensor unless consumed (used_*)."""
    name = _api.PyCapsule_GetName(cap)
    if name is None or name.startswith(b"used_"):
        return
    ptr = _api.PyCapsule_GetPointer(cap, name)
    if name == LEGACY:
        m = ctypes.cast(ptr, POINTER(DLManagedTensor)).contents
        if m.deleter:
            m.deleter(ctypes.cast(ptr, POINTER(DLManagedTensor)))
    else:
        m = ctypes.cast(ptr, POINTER(DLManagedTensorVersioned)).contents
        if m.deleter:
            m.deleter(ctypes.cast(ptr, POINTER(DLManagedTensorVersioned)))


class Producer:
    """A managed DLPack tensor over `array`'s memory; `fields` override what it says."""

    def __init__(self, array: np.ndarray, *, legacy: bool = False, **fields):
        self.array = array
        self.token = next(_tokens)
        self.legacy = legacy
        nd = array.ndim
        self.shape = (c_int64 * max(nd, 1))(*array.shape)
        self.strides = (c_int64 * max(nd, 1))(*(s // array.itemsize for s in array.strides))
        if legacy:
            self.managed = DLManagedTensor()
            self.managed.deleter = _legacy_deleter
        else:
            self.managed = DLManagedTensorVersioned()
            self.managed.version = DLPackVersion(*fields.pop("version", (1, 1)))
            self.managed.flags = fields.pop("flags", 0)
            deleter = fields.pop("deleter", _versioned_deleter)
            self.managed.deleter = deleter if deleter is not None else VERSIONED_DELETER()
        self.managed.manager_ctx = self.token
        dl = self.managed.dl_tensor
        dl.data = array.ctypes.data if array.size else fields.pop("empty_data", None)
        dl.device = DLDevice(*fields.pop("device", (KDL_CPU, 0)))
        dl.ndim = fields.pop("ndim", nd)
        kind = array.dtype.kind
        dl.dtype = DLDataType(*fields.pop("dtype", (CODES[kind], array.itemsize * 8, 1)))
        dl.shape = fields.pop("shape", ctypes.cast(self.shape, POINTER(c_int64)))
        dl.strides = fields.pop("strides", ctypes.cast(self.strides, POINTER(c_int64)))
        dl.byte_offset = fields.pop("byte_offset", 0)
        if "data" in fields:
            dl.data = fields.pop("data")
        assert not fields, f"unknown fields {sorted(fields)}"
        LIVE[self.token] = self

    @property
    def calls(self) -> int:
        return CALLS.get(self.token, 0)

    def capsule(self, name: bytes | None = None):
        if name is None:
            name = LEGACY if self.legacy else VERSIONED
        ptr = ctypes.addressof(self.managed)
        return _api.PyCapsule_New(ptr, _name_ptr(name), ctypes.cast(_capsule_destructor, c_void_p))

    def release(self) -> None:
        """Forget this producer (after its deleter ran, or when nobody owns it)."""
        LIVE.pop(self.token, None)


class Exporter:
    """An object with the DLPack protocol methods, answering with what it is given."""

    def __init__(self, capsule=None, device=(KDL_CPU, 0), raises=None, old_style=False):
        self._capsule, self._device, self._raises, self._old = capsule, device, raises, old_style

    def __dlpack__(self, *args, **kwargs):
        if self._old and kwargs:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        if self._raises is not None:
            raise self._raises
        return self._capsule

    def __dlpack_device__(self):
        if callable(self._device):
            return self._device()
        return self._device


def take_capsule(cap, name: bytes = VERSIONED):
    """A consumer's first steps: the managed struct of an sdk capsule, marked as consumed."""
    ptr = _api.PyCapsule_GetPointer(ctypes.cast(id(cap), c_void_p), name)
    assert ptr, "not a capsule of that name"
    assert _api.PyCapsule_SetName(cap, _name_ptr(b"used_" + name)) == 0
    kind = DLManagedTensorVersioned if name == VERSIONED else DLManagedTensor
    return ctypes.cast(ptr, POINTER(kind))


def read_values(dl: DLTensor, np_dtype) -> np.ndarray:
    """The values a DLTensor describes, copied out through its shape and strides."""
    nd = dl.ndim
    shape = tuple(dl.shape[i] for i in range(nd))
    itemsize = np.dtype(np_dtype).itemsize
    strides = tuple(dl.strides[i] * itemsize for i in range(nd)) if dl.strides else None
    if not shape or min(shape) > 0:
        base = dl.data + dl.byte_offset
        span = 1 + sum((s - 1) * abs(st) for s, st in zip(shape, strides or ())) if nd else 1
        buf = ctypes.c_char * (span * itemsize if strides else int(np.prod(shape)) * itemsize)
        raw = np.frombuffer(buf.from_address(base), dtype=np.uint8)
        flat = raw.view(np_dtype)
        view = np.lib.stride_tricks.as_strided(flat, shape, strides) if strides else flat
        return np.array(view.reshape(shape), copy=True)
    return np.zeros(shape, np_dtype)
