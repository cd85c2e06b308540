"""ctypes access to libsdk_core for the core's own tests (independent of the sdk._C binding)."""

from __future__ import annotations

import ctypes

import numpy as np

from tests._support import lib_dir

LIB_PATH = lib_dir() / "libsdk_core.so"

P = ctypes.c_void_p
I64 = ctypes.c_int64
I32 = ctypes.c_int32


class Scalar(ctypes.Structure):
    _fields_ = [("f", ctypes.c_double), ("i", I64), ("kind", I32), ("padding", I32)]


class Device(ctypes.Structure):
    _fields_ = [("type", I32), ("index", I32)]


CPU = Device(1, 0)
NP_OF = {
    0: np.bool_,
    1: np.uint8,
    2: np.int8,
    3: np.int16,
    4: np.int32,
    5: np.int64,
    6: np.float16,
    8: np.float32,
    9: np.float64,
}
CODE_OF = {np.dtype(v): k for k, v in NP_OF.items()}


def load() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(LIB_PATH))
    lib.sdk_last_error_message.restype = ctypes.c_char_p
    for name in ("sdk_tensor_sizes", "sdk_tensor_strides"):
        getattr(lib, name).restype = ctypes.POINTER(I64)
        getattr(lib, name).argtypes = [P]
    for name in (
        "sdk_tensor_ndim",
        "sdk_tensor_numel",
        "sdk_tensor_version",
        "sdk_tensor_use_count",
        "sdk_tensor_storage_offset",
    ):
        getattr(lib, name).restype = I64
        getattr(lib, name).argtypes = [P]
    lib.sdk_tensor_dtype.argtypes = [P]
    lib.sdk_tensor_data_ptr.restype = P
    lib.sdk_tensor_data_ptr.argtypes = [P]
    lib.sdk_tensor_release.argtypes = [P]
    lib.sdk_empty.argtypes = [I64, ctypes.POINTER(I64), I32, Device, ctypes.POINTER(P)]
    lib.sdk_unary.argtypes = [I32, P, P, ctypes.POINTER(P)]
    lib.sdk_binary.argtypes = [I32, P, P, P, ctypes.POINTER(P)]
    lib.sdk_binary_scalar.argtypes = [I32, P, Scalar, I32, P, ctypes.POINTER(P)]
    lib.sdk_full.argtypes = [I64, ctypes.POINTER(I64), Scalar, I32, Device, ctypes.POINTER(P)]
    lib.sdk_transpose.argtypes = [P, I64, I64, ctypes.POINTER(P)]
    lib.sdk_slice.argtypes = [P, I64, I64, I64, I64, ctypes.POINTER(P)]
    lib.sdk_view.argtypes = [P, I64, ctypes.POINTER(I64), ctypes.POINTER(P)]
    lib.sdk_reshape.argtypes = [P, I64, ctypes.POINTER(I64), ctypes.POINTER(P)]
    lib.sdk_expand.argtypes = [P, I64, ctypes.POINTER(I64), ctypes.POINTER(P)]
    lib.sdk_copy_.argtypes = [P, P]
    lib.sdk_arange.argtypes = [Scalar, Scalar, Scalar, I32, Device, ctypes.POINTER(P)]
    lib.sdk_set_num_threads.argtypes = [I32]
    return lib


lib = load()


class CoreError(Exception):
    def __init__(self, kind: int, msg: str):
        super().__init__(f"[{kind}] {msg}")
        self.kind = kind
        self.msg = msg


def check(status: int) -> None:
    if status != 0:
        raise CoreError(status, lib.sdk_last_error_message().decode())


class T:
    """Owning wrapper of an sdk_tensor* handle."""

    def __init__(self, handle: int):
        self.h = handle

    def __del__(self):
        if getattr(self, "h", None):
            lib.sdk_tensor_release(self.h)

    @property
    def shape(self) -> tuple:
        n = lib.sdk_tensor_ndim(self.h)
        s = lib.sdk_tensor_sizes(self.h)
        return tuple(s[i] for i in range(n))

    @property
    def strides(self) -> tuple:
        n = lib.sdk_tensor_ndim(self.h)
        s = lib.sdk_tensor_strides(self.h)
        return tuple(s[i] for i in range(n))

    @property
    def dtype(self) -> int:
        return lib.sdk_tensor_dtype(self.h)

    def numpy(self) -> np.ndarray:
        dt = np.dtype(NP_OF[self.dtype])
        n = lib.sdk_tensor_numel(self.h)
        shape, strides = self.shape, self.strides
        if n == 0:
            return np.zeros(shape, dt)
        ptr = lib.sdk_tensor_data_ptr(self.h)
        span = 1 + sum((a - 1) * b for a, b in zip(shape, strides))
        buf = (ctypes.c_char * (span * dt.itemsize)).from_address(ptr)
        flat = np.frombuffer(buf, dtype=dt)
        return np.lib.stride_tricks.as_strided(
            flat, shape, [s * dt.itemsize for s in strides]
        ).copy()


def out_ptr() -> ctypes.c_void_p:
    return P()


def from_numpy(a: np.ndarray) -> T:
    a = np.ascontiguousarray(a)
    sizes = (I64 * max(a.ndim, 1))(*a.shape)
    r = P()
    check(lib.sdk_empty(a.ndim, sizes, CODE_OF[a.dtype], CPU, ctypes.byref(r)))
    t = T(r.value)
    if a.size:
        ctypes.memmove(lib.sdk_tensor_data_ptr(t.h), a.ctypes.data, a.nbytes)
    return t


def scalar(v) -> Scalar:
    if isinstance(v, bool):
        return Scalar(0.0, int(v), 0, 0)
    if isinstance(v, int):
        return Scalar(0.0, v, 1, 0)
    if v is None:
        return Scalar(0.0, 0, -1, 0)
    return Scalar(float(v), 0, 2, 0)


def call(fn, *args) -> T:
    r = P()
    check(fn(*args, ctypes.byref(r)))
    return T(r.value)
