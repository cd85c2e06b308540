"""sdk.cuda: CUDA devices, streams and the caching allocator, with torch.cuda's names.

Calls the core's C ABI through ctypes (these are not hot paths). Nothing here loads CUDA
until asked: ``import sdk.cuda`` is free on a CPU-only machine, and every query answers
"not available" there instead of failing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from typing import Any, Iterator

__all__ = [
    "ExternalStream",
    "current_device",
    "current_stream",
    "device_count",
    "empty_cache",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_device",
    "set_stream",
    "stream",
    "synchronize",
    "unavailable_reason",
]

_ERRORS = {
    1: ValueError,
    2: TypeError,
    3: IndexError,
    4: RuntimeError,
    5: MemoryError,
    6: NotImplementedError,
}


class _Stats(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("reserved0", ctypes.c_uint32),
        ("allocated_bytes", ctypes.c_int64),
        ("reserved_bytes", ctypes.c_int64),
        ("peak_allocated_bytes", ctypes.c_int64),
        ("peak_reserved_bytes", ctypes.c_int64),
        ("num_allocs", ctypes.c_int64),
        ("num_frees", ctypes.c_int64),
        ("num_device_allocs", ctypes.c_int64),
        ("num_device_frees", ctypes.c_int64),
    ]


class _Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("index", ctypes.c_int32)]


@functools.lru_cache(maxsize=1)
def _lib() -> ctypes.CDLL:
    import sdk

    lib = ctypes.CDLL(sdk.get_library_path())
    i32, p = ctypes.c_int32, ctypes.c_void_p
    sigs = {
        "sdk_cuda_is_available": (i32, []),
        "sdk_cuda_device_count": (i32, []),
        "sdk_cuda_unavailable_reason": (ctypes.c_char_p, []),
        "sdk_cuda_current_device": (i32, [ctypes.POINTER(i32)]),
        "sdk_cuda_set_device": (i32, [i32]),
        "sdk_cuda_get_stream": (i32, [i32, ctypes.POINTER(p)]),
        "sdk_cuda_set_stream": (i32, [i32, p]),
        "sdk_cuda_synchronize": (i32, [i32]),
        "sdk_cuda_empty_cache": (i32, []),
        "sdk_cuda_memory_stats": (i32, [i32, ctypes.POINTER(_Stats)]),
        "sdk_cuda_reset_peak_memory_stats": (i32, [i32]),
        "sdk_to_device": (i32, [p, _Device, ctypes.POINTER(p)]),
        "sdk_last_error_kind": (i32, []),
        "sdk_last_error_message": (ctypes.c_char_p, []),
        "sdk_tensor_release": (None, [p]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def _check(status: int) -> None:
    if status != 0:
        lib = _lib()
        msg = (lib.sdk_last_error_message() or b"").decode(errors="replace")
        raise _ERRORS.get(lib.sdk_last_error_kind(), RuntimeError)(msg)


def _index(device: Any) -> int:
    """A device argument (None, int, 'cuda:1', sdk.device) as an ordinal; -1 = current."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    from sdk._dtype import device as device_cls

    d = device if isinstance(device, device_cls) else device_cls(device)
    if d.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {d}")
    return -1 if d.index is None else d.index


# ------------------------------------------------------------------------------ devices


def is_available() -> bool:
    """True when CUDA can be used: backend library, runtime, driver and a visible GPU."""
    return bool(_lib().sdk_cuda_is_available())


def unavailable_reason() -> str:
    """Why is_available() is False ("" when it is True)."""
    return (_lib().sdk_cuda_unavailable_reason() or b"").decode(errors="replace")


def device_count() -> int:
    """Number of visible CUDA devices (0 when CUDA is not available)."""
    return int(_lib().sdk_cuda_device_count())


def current_device() -> int:
    """The ordinal new CUDA work of this thread goes to."""
    out = ctypes.c_int32(0)
    _check(_lib().sdk_cuda_current_device(ctypes.byref(out)))
    return out.value


def set_device(device: Any) -> None:
    """Make `device` (int, "cuda:N" or sdk.device) current for this thread."""
    _check(_lib().sdk_cuda_set_device(_index(device) if device is not None else 0))


def synchronize(device: Any = None) -> None:
    """Wait until all work on `device` (default: current) has finished."""
    _check(_lib().sdk_cuda_synchronize(_index(device)))


# ------------------------------------------------------------------------------ streams


class ExternalStream:
    """A cudaStream_t made elsewhere (cupy, numba, another library), given by its address."""

    def __init__(self, stream_ptr: int, device: Any = None) -> None:
        self.cuda_stream = int(stream_ptr)
        self.device_index = _index(device)

    def __repr__(self) -> str:
        return f"<sdk.cuda.Stream device={self.device_index} cuda_stream={self.cuda_stream:#x}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExternalStream) and other.cuda_stream == self.cuda_stream

    def __hash__(self) -> int:
        return hash(self.cuda_stream)


def current_stream(device: Any = None) -> ExternalStream:
    """This thread's current stream on `device`; cuda_stream 0 is the default stream."""
    out = ctypes.c_void_p(None)
    index = _index(device)
    _check(_lib().sdk_cuda_get_stream(index, ctypes.byref(out)))
    return ExternalStream(out.value or 0, index)


def set_stream(s: ExternalStream) -> None:
    """Make `s` this thread's current stream on its device: SDK kernels run on it."""
    _check(_lib().sdk_cuda_set_stream(s.device_index, ctypes.c_void_p(s.cuda_stream or None)))


@contextlib.contextmanager
def stream(s: ExternalStream | None) -> Iterator[ExternalStream | None]:
    """Run the block with `s` as the current stream (None: leave the stream as it is)."""
    if s is None:
        yield None
        return
    previous = current_stream(s.device_index)
    set_stream(s)
    try:
        yield s
    finally:
        set_stream(previous)


# ------------------------------------------------------------------------------ memory


def empty_cache() -> None:
    """Give the caching allocator's unused cached blocks back to the driver."""
    _check(_lib().sdk_cuda_empty_cache())


def memory_stats(device: Any = None) -> dict[str, int]:
    """The caching allocator's counters for `device`: allocated/reserved bytes (current and
    peak), allocations served, frees, and the cudaMalloc/cudaFree calls behind them."""
    s = _Stats()
    s.size = ctypes.sizeof(_Stats)
    _check(_lib().sdk_cuda_memory_stats(_index(device), ctypes.byref(s)))
    return {name: int(getattr(s, name)) for name, _ in _Stats._fields_[2:]}


def memory_allocated(device: Any = None) -> int:
    """Bytes in live tensors' blocks on `device`."""
    return memory_stats(device)["allocated_bytes"]


def max_memory_allocated(device: Any = None) -> int:
    return memory_stats(device)["peak_allocated_bytes"]


def memory_reserved(device: Any = None) -> int:
    """Bytes held from the driver (live plus cached) on `device`."""
    return memory_stats(device)["reserved_bytes"]


def max_memory_reserved(device: Any = None) -> int:
    return memory_stats(device)["peak_reserved_bytes"]


def reset_peak_memory_stats(device: Any = None) -> None:
    _check(_lib().sdk_cuda_reset_peak_memory_stats(_index(device)))


# ------------------------------------------------------------------------------ tensors


class _PythonApi(ctypes.Structure):
    # sdk/python.h's table: PYFUNCTYPE keeps the GIL held and raises a set Python error.
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("abi_major", ctypes.c_uint32),
        ("abi_minor", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("is_tensor", ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object)),
        (
            "to_handle",
            ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p)),
        ),
        ("from_handle", ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p)),
    ]


@functools.lru_cache(maxsize=1)
def _python_api() -> _PythonApi:
    from sdk import _C

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    ptr = get(_C._PYTHON_API, b"sdk._C._PYTHON_API")
    return _PythonApi.from_address(ptr)


def _to_device(tensor: Any, device: Any) -> Any:
    """`tensor` on `device` (an sdk.device or string): itself if already there, else a copy.

    Raises RuntimeError "CUDA is not available: <reason>" when CUDA cannot be used.
    """
    from sdk._dtype import device as device_cls

    if isinstance(device, int):
        device = f"cuda:{device}"
    d = device if isinstance(device, device_cls) else device_cls(device)
    target = _Device(1, 0) if d.type == "cpu" else _Device(2, 0 if d.index is None else d.index)
    if d.type == "cuda" and d.index is None:
        target.index = current_device() if is_available() else 0
    api = _python_api()
    handle = ctypes.c_void_p()
    api.to_handle(tensor, ctypes.byref(handle))
    out = ctypes.c_void_p()
    lib = _lib()
    status = lib.sdk_to_device(handle, target, ctypes.byref(out))
    lib.sdk_tensor_release(handle)
    _check(status)
    return api.from_handle(out)


def _same_device(t: Any, d: Any) -> bool:
    cur = t.device
    if cur.type != d.type:
        return False
    if d.type == "cpu":
        return True
    want = d.index if d.index is not None else (current_device() if is_available() else 0)
    return (cur.index or 0) == want


_TO_DEVICE_FN: Any = None


def _to_device_function() -> Any:
    """An autograd Function for device moves: the gradient goes back to the source device."""
    global _TO_DEVICE_FN
    if _TO_DEVICE_FN is None:
        from sdk.autograd import Function

        class ToDevice(Function):
            @staticmethod
            def forward(ctx, x, device):
                ctx.source = x.device
                return _to_device(x, device)

            @staticmethod
            def backward(ctx, grad):
                return _to_device(grad, ctx.source), None

        _TO_DEVICE_FN = ToDevice
    return _TO_DEVICE_FN


def _move(tensor: Any, device: Any) -> Any:
    """tensor.to(device): itself when already there; differentiable otherwise."""
    from sdk._dtype import device as device_cls

    if isinstance(device, int):
        device = f"cuda:{device}"
    d = device if isinstance(device, device_cls) else device_cls(device)
    if _same_device(tensor, d):
        return tensor
    if d.type == "cuda" and not is_available():
        raise RuntimeError(f"CUDA is not available: {unavailable_reason()}")
    import sdk

    if getattr(tensor, "requires_grad", False) and sdk.is_grad_enabled():
        return _to_device_function().apply(tensor, d)
    return _to_device(tensor, d)


# ------------------------------------------------------------------------------ DLPack


def _dlpack_device(self: Any) -> tuple:
    """(kDLCPU=1, 0) or (kDLCUDA=2, index)."""
    return (2, self.device.index or 0) if self.is_cuda else (1, 0)


def _dlpack(
    self: Any,
    *,
    stream: Any = None,
    max_version: Any = None,
    dl_device: Any = None,
    copy: bool | None = None,
) -> Any:
    """__dlpack__ for CUDA tensors (CPU tensors go to the host implementation).

    The consumer may read the memory on any stream once this returns: the device is
    synchronized after any copy is made (stream=-1 means the consumer orders the work itself).
    """
    from sdk import _C, _interop

    if not self.is_cuda:
        return _interop.__dlpack__(
            self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )
    if self._requires_grad and _C.is_grad_enabled():
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    here = _dlpack_device(self)
    if dl_device is not None and tuple(int(x) for x in dl_device) != here:
        raise BufferError(f"__dlpack__: can't export a tensor on {here} to {tuple(dl_device)}")
    src = _C.clone(self) if copy else self  # queued on the current stream
    if stream != -1:
        synchronize(here[1])  # after the clone: the consumer reads a finished copy
    versioned = max_version is not None and int(max_version[0]) >= 1
    return _C.to_dlpack(src, versioned)


def _from_dlpack(ext: Any) -> Any:
    """sdk.from_dlpack that also takes CUDA producers (kDLCUDA), without copying."""
    from sdk import _C, _interop

    dev = getattr(ext, "__dlpack_device__", None)
    if dev is None or int(dev()[0]) != 2 or isinstance(ext, _C.TensorBase):
        return _interop.from_dlpack(ext)
    index = int(dev()[1])
    if not is_available():
        raise RuntimeError(f"from_dlpack: CUDA is not available: {unavailable_reason()}")
    # DLPack's stream convention: 1 is the legacy default stream; else the handle.
    s = current_stream(index).cuda_stream or 1
    try:
        capsule = ext.__dlpack__(stream=s, max_version=(1, 1))
    except TypeError:
        capsule = ext.__dlpack__(stream=s)
    return _C.from_dlpack_capsule(capsule)
