"""ctypes bridge to libsdk_core.so for the core tests of reductions, linalg, join and indexing."""

from __future__ import annotations

import ctypes
import importlib.util
from ctypes import POINTER, byref, c_double, c_int32, c_int64, c_void_p
from pathlib import Path

import numpy as np

from tests._support import lib_dir, package_dir

ROOT = Path(__file__).resolve().parents[2]
LIB_PATH = lib_dir() / "libsdk_core.so"
# the BLAS lookup `import sdk` does (SDK_BLAS_LIBRARY when the core's own search would miss
# scipy-openblas32, as in a source tree), run without importing sdk: these tests use the core alone
_blas = importlib.util.spec_from_file_location("_sdk_blas_path", package_dir() / "_blas_path.py")
_blas.loader.exec_module(importlib.util.module_from_spec(_blas))
LIB = ctypes.CDLL(str(LIB_PATH)) if LIB_PATH.exists() else None

P = c_void_p


class Scalar(ctypes.Structure):
    _fields_ = [("f", c_double), ("i", c_int64), ("kind", c_int32), ("padding", c_int32)]


class Device(ctypes.Structure):
    _fields_ = [("type", c_int32), ("index", c_int32)]


DTYPES = {
    np.dtype(np.bool_): 0,
    np.dtype(np.uint8): 1,
    np.dtype(np.int8): 2,
    np.dtype(np.int16): 3,
    np.dtype(np.int32): 4,
    np.dtype(np.int64): 5,
    np.dtype(np.float16): 6,
    np.dtype(np.float32): 8,
    np.dtype(np.float64): 9,
}
NP_OF = {v: k for k, v in DTYPES.items()}
ERRORS = {
    1: ValueError,
    2: TypeError,
    3: IndexError,
    4: RuntimeError,
    5: MemoryError,
    6: NotImplementedError,
}

if LIB is not None:
    LIB.sdk_last_error_message.restype = ctypes.c_char_p
    LIB.sdk_tensor_sizes.restype = POINTER(c_int64)
    LIB.sdk_tensor_strides.restype = POINTER(c_int64)
    LIB.sdk_tensor_data_ptr.restype = c_void_p
    LIB.sdk_tensor_ndim.restype = c_int64
    LIB.sdk_tensor_dtype.restype = c_int32
    LIB.sdk_tensor_version.restype = c_int64
    for name in (
        "sdk_tensor_sizes",
        "sdk_tensor_strides",
        "sdk_tensor_data_ptr",
        "sdk_tensor_ndim",
        "sdk_tensor_dtype",
        "sdk_tensor_version",
        "sdk_tensor_release",
    ):
        getattr(LIB, name).argtypes = [P]


def check(status: int) -> None:
    if status != 0:
        raise ERRORS.get(status, RuntimeError)(LIB.sdk_last_error_message().decode())


class Handle(c_void_p):
    """A handle argument that keeps its Tensor alive while a call uses it."""


class Tensor:
    """An owned handle, plus the numpy array it wraps (kept alive)."""

    def __init__(self, handle: int, keep=None):
        self._h = handle
        self.keep = keep

    @property
    def h(self) -> Handle:
        hd = Handle(self._h)
        hd.owner = self
        return hd

    def __del__(self):
        if LIB is not None and self._h:
            LIB.sdk_tensor_release(c_void_p(self._h))

    def numpy(self) -> np.ndarray:
        nd = LIB.sdk_tensor_ndim(self.h)
        sizes = [LIB.sdk_tensor_sizes(self.h)[i] for i in range(nd)]
        strides = [LIB.sdk_tensor_strides(self.h)[i] for i in range(nd)]
        dt = NP_OF[LIB.sdk_tensor_dtype(self.h)]
        ptr = LIB.sdk_tensor_data_ptr(self.h)
        if 0 in sizes:
            return np.zeros(sizes, dt)
        span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
        buf = (ctypes.c_char * (span * dt.itemsize)).from_address(ptr)
        flat = np.frombuffer(buf, dtype=dt, count=span)
        return np.lib.stride_tricks.as_strided(
            flat, shape=sizes, strides=[s * dt.itemsize for s in strides]
        ).copy()

    @property
    def version(self) -> int:
        return LIB.sdk_tensor_version(self.h)


DELETER = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
_NOOP_DELETER = DELETER(lambda data, ctx: None)  # the numpy array owns the memory


def T(a) -> Tensor:
    """Wrap a numpy array (any non-negative strides) without copying."""
    a = np.asarray(a)
    nd = a.ndim
    sizes = (c_int64 * max(nd, 1))(*a.shape)
    strides = (c_int64 * max(nd, 1))(*[s // a.itemsize for s in a.strides])
    h = c_void_p()
    LIB.sdk_from_blob.argtypes = [c_void_p, c_int64, P, P, c_int32, Device, DELETER, c_void_p, P]
    check(
        LIB.sdk_from_blob(
            a.ctypes.data,
            nd,
            sizes,
            strides,
            DTYPES[a.dtype],
            Device(1, 0),
            _NOOP_DELETER,
            None,
            byref(h),
        )
    )
    return Tensor(h.value, keep=a)


def out_ptr():
    return c_void_p()


def call(fn: str, *args) -> Tensor:
    """Call an op whose last argument is sdk_tensor** result; return the result."""
    res = c_void_p()
    check(getattr(LIB, fn)(*args, byref(res)))
    return Tensor(res.value)


def h(t):
    return t.h if t is not None else None


def i64(x):
    return c_int64(x)


def scalar(v) -> Scalar:
    if isinstance(v, bool):
        return Scalar(0.0, int(v), 0, 0)
    if isinstance(v, int):
        return Scalar(float(v), v, 1, 0)
    return Scalar(float(v), 0, 2, 0)


def dims_arg(dims):
    if dims is None:
        return 0, None
    arr = (c_int64 * max(len(dims), 1))(*dims)
    return len(dims), arr


def tensor_list(ts):
    arr = (c_void_p * len(ts))(*[t._h for t in ts])
    arr.owners = list(ts)
    return arr


I64, I32, D = c_int64, c_int32, c_double
SIGS = {
    "sdk_reduce": [I32, P, I64, P, I32, I32, P, P],
    "sdk_max_dim": [P, I64, I32, P, P],
    "sdk_min_dim": [P, I64, I32, P, P],
    "sdk_arg_extremum": [P, I32, I32, I64, I32, P],
    "sdk_var": [P, I64, P, D, I32, P],
    "sdk_std": [P, I64, P, D, I32, P],
    "sdk_softmax": [P, I64, P],
    "sdk_log_softmax": [P, I64, P],
    "sdk_mm": [P, P, P, P],
    "sdk_addmm": [P, P, P, Scalar, Scalar, P, P],
    "sdk_bmm": [P, P, P, P],
    "sdk_matmul": [P, P, P, P],
    "sdk_mv": [P, P, P, P],
    "sdk_dot": [P, P, P],
    "sdk_cat": [I64, P, I64, P, P],
    "sdk_stack": [I64, P, I64, P, P],
    "sdk_index_select": [P, I64, P, P, P],
    "sdk_gather": [P, I64, P, P, P],
    "sdk_scatter_add_": [P, I64, P, P],
    "sdk_index_add_": [P, I64, P, P],
    "sdk_index": [P, I64, P, P],
    "sdk_index_put_": [P, I64, P, P, I32],
    "sdk_nonzero": [P, P],
    "sdk_set_num_threads": [I32],
    "sdk_get_num_threads": [],
}
if LIB is not None:
    for _name, _sig in SIGS.items():
        getattr(LIB, _name).argtypes = _sig
