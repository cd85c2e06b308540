"""numpy and DLPack interop (zero-copy where possible) and tensor() from Python data."""

from __future__ import annotations

import sys
from typing import Any

from sdk import _C
from sdk._dtype import TORCH_NAMES, as_dtype, device, get_default_dtype

TensorBase = _C.TensorBase

Tensor = Any

_NP_CONVERTIBLE = {"u2": "int32", "u4": "int64", "u8": "int64"}
_KDL_CPU, _KDL_CUDA = 1, 2  # DLPack device types


def _is_ndarray(x: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


def from_numpy(ndarray: Any) -> Tensor:
    """A tensor sharing memory with a numpy array (which it keeps alive); read-only when the
    array is (writes then raise instead of changing the array)."""
    if not _is_ndarray(ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return _C.from_array_interface(ndarray)


def frombuffer(
    buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """A 1-D tensor over an object exposing the buffer protocol, sharing its memory: count
    elements (-1: all that fit) of dtype from byte offset (read-only buffers give read-only
    tensors, whose writes raise)."""
    import numpy as np

    d = as_dtype(dtype)
    if d.name == "bfloat16":
        raise TypeError("frombuffer(): bfloat16 buffers are not supported (numpy has no bfloat16)")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(
            f"frombuffer(): object of type {type(buffer).__name__} does not implement the "
            "buffer protocol"
        ) from None
    nbytes = view.nbytes
    if offset < 0 or (offset >= nbytes and nbytes):
        raise ValueError(f"offset must be non-negative and no greater than buffer length "
                         f"({nbytes}), but got {offset}")  # fmt: skip
    if count == 0 or (count < 0 and (nbytes - offset) % d.itemsize):
        raise ValueError(f"buffer length ({nbytes - offset} bytes after offset) must be a "
                         f"multiple of element size ({d.itemsize}) and count non-zero")  # fmt: skip
    array = np.frombuffer(buffer, dtype=np.dtype(d._np), count=count, offset=offset)
    t = from_numpy(array)
    return t.requires_grad_() if requires_grad else t


def _capsule_of(ext: Any) -> Any:
    """The producer's capsule. A CUDA producer is asked to order its pending work before
    this thread's current stream (DLPack's stream argument; 1 is the legacy default)."""
    dev = getattr(ext, "__dlpack_device__", None)
    extra = {}
    if dev is not None:
        kind, index = (int(x) for x in dev())
        if kind == _KDL_CUDA:
            from sdk import cuda  # lazy: keeps import sdk fast (~1 ms)

            if not cuda.is_available():
                raise RuntimeError(
                    f"from_dlpack: CUDA is not available: {cuda.unavailable_reason()}"
                )
            extra["stream"] = cuda.current_stream(index).cuda_stream or 1
        elif kind != _KDL_CPU:
            raise BufferError(
                f"from_dlpack: the producer lives on device type {kind} (index {index}); "
                "only CPU (1) and CUDA (2) are supported"
            )
    try:
        return ext.__dlpack__(max_version=(1, 1), **extra)
    except TypeError:  # producers that predate max_version
        return ext.__dlpack__(**extra)


def from_dlpack(ext: Any) -> Tensor:
    """A tensor sharing memory with any DLPack producer (CPU or CUDA) or a capsule; read-only
    when the producer flags its memory so."""
    if isinstance(ext, TensorBase):
        return _C._alias(ext)
    if hasattr(ext, "__dlpack__"):
        ext = _capsule_of(ext)
    elif type(ext).__name__ != "PyCapsule":
        raise TypeError(
            f"from_dlpack: expected a DLPack producer or capsule, got {type(ext).__name__}"
        )
    return _C.from_dlpack_capsule(ext)  # read-only when the capsule is flagged READ_ONLY


def _copy_as(t: Tensor, dtype: Any) -> Tensor:
    if dtype is not None and t.dtype is not dtype:
        return _C.to_dtype(t, dtype, True)
    return _C.clone(t)


def _from_array(data: Any, dtype: Any) -> Tensor:
    """A copy of an ndarray-like (numpy imported only here)."""
    try:
        return _copy_as(_C.from_array_interface(data), dtype)
    except (TypeError, ValueError):
        pass
    import numpy as np

    a = np.ascontiguousarray(data)
    key = a.dtype.str[1:]
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    elif key in _NP_CONVERTIBLE:
        a = a.astype(_NP_CONVERTIBLE[key])
    return _copy_as(_C.from_array_interface(a), dtype)


def _check_device(dev: Any, op: str) -> None:
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(dev)
    if d.type != "cpu":
        raise RuntimeError(
            f"{op}(): device '{d}' is not available: this build runs on the CPU only"
        )


def tensor(
    data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """A new tensor copying data (nested lists of numbers, arrays, tensors, scalars)."""
    if device is not None:
        _check_device(device, "tensor")
    d = None if dtype is None else as_dtype(dtype)
    if isinstance(data, TensorBase):
        t = _copy_as(data, d)
    elif hasattr(data, "__array_interface__") and not isinstance(data, (list, tuple)):
        if getattr(data, "ndim", 1) == 0 and type(data).__module__ == "numpy" and d is None:
            t = _from_array(data, None)
        else:
            t = _from_array(data, d)
    elif hasattr(data, "__dlpack__") and not isinstance(data, (list, tuple)):
        t = _copy_as(from_dlpack(data), d)
    else:
        try:
            t = _C.tensor_from_data(data, d, get_default_dtype())
        except TypeError as e:
            if "of type complex" not in str(e):
                raise
            t = _complex_data(data, d)
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"Only Tensors of floating point dtype can require gradients (got {t.dtype})"
            )
        t._requires_grad = True
    return t


def _complex_data(data: Any, dtype: Any) -> Tensor:
    """Nested data holding Python complex numbers (numpy reads them): torch's default complex
    dtype, complex64 (complex128 when the default float is float64), unless dtype is given."""
    import numpy as np

    a = np.asarray(data, dtype=np.complex128)
    if dtype is None:
        dtype = TORCH_NAMES["complex128" if get_default_dtype().name == "float64" else "complex64"]
    return _from_array(a, dtype)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """data as a tensor, sharing memory when it already is one (or a numpy array)."""
    d = None if dtype is None else as_dtype(dtype)
    if isinstance(data, TensorBase):
        return data if d is None or data.dtype is d else _C.to_dtype(data, d, False)
    if _is_ndarray(data):
        try:
            t = _C.from_array_interface(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=d)
        return t if d is None or t.dtype is d else _C.to_dtype(t, d, False)
    return tensor(data, dtype=d, device=device)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Tensor:
    """Array-API style: share memory unless copy=True or a cast is needed."""
    if copy:
        return tensor(obj, dtype=dtype, device=device)
    if not isinstance(obj, TensorBase) and not _is_ndarray(obj) and hasattr(obj, "__dlpack__"):
        obj = from_dlpack(obj)
    return as_tensor(obj, dtype=dtype, device=device)


# ------------------------------------------------------------------ Tensor methods


def numpy(self: Tensor, *, force: bool = False) -> Any:
    """A numpy array sharing this tensor's memory (it keeps the tensor alive)."""
    import numpy as np

    if self._requires_grad and not force:
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )
    if self.dtype.name == "bfloat16":
        raise TypeError("Got unsupported ScalarType BFloat16: numpy has no bfloat16 dtype")
    return np.asarray(_C._alias(self) if self._requires_grad else self)


def __dlpack__(
    self: Tensor,
    *,
    stream: Any = None,
    max_version: Any = None,
    dl_device: Any = None,
    copy: bool | None = None,
) -> Any:
    """Export as a DLPack capsule (versioned when the consumer's max_version >= (1, 0)).

    CUDA tensors: the consumer may read the memory on any stream once this returns, since
    the device is synchronized after any copy is made (stream=-1: the consumer orders the
    work itself)."""
    if self._requires_grad and _C.is_grad_enabled():
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    here = __dlpack_device__(self)
    if here[0] == _KDL_CPU and stream is not None and stream != -1:
        raise BufferError("__dlpack__: stream must be None for CPU tensors")
    if dl_device is not None and tuple(int(x) for x in dl_device) != here:
        raise BufferError(f"__dlpack__: can't export a tensor on {here} to {tuple(dl_device)}")
    versioned = max_version is not None and int(max_version[0]) >= 1
    if copy is None and not versioned and self._is_read_only:
        copy = True  # a pre-1.0 consumer cannot be told the memory is read-only: a copy
    src = _C.clone(self) if copy else self  # on CUDA: queued on the current stream
    if here[0] == _KDL_CUDA and stream != -1:
        from sdk import cuda  # lazy: keeps import sdk fast (~1 ms)

        cuda.synchronize(here[1])  # after the clone: the consumer reads a finished copy
    return _C.to_dlpack(src, versioned)


def __dlpack_device__(self: Tensor) -> tuple:
    """(kDLCPU=1, 0) or (kDLCUDA=2, index)."""
    return (_KDL_CUDA, self.device.index or 0) if self.is_cuda else (_KDL_CPU, 0)


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of tensor (torch.to_dlpack; tensor.__dlpack__() in the array API)."""
    if not isinstance(tensor, TensorBase):
        raise TypeError(
            f"to_dlpack(): argument 'tensor' must be Tensor, not {type(tensor).__name__}"
        )
    return tensor.__dlpack__()
