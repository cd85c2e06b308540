"""Pickling tensors: protocol-5 out-of-band buffers on the way out, checked bytes on the way in.

A tensor pickles as ``sdk._tensor._rebuild(data, dtype, shape, requires_grad[, order])``:
`data` holds its elements in memory order, `order` (present when it is not 0, 1, ...)
lists its dims from the outermost in memory to the innermost, so that a transposed or
permuted tensor comes back with its layout. With protocol 5 `data` is a
``pickle.PickleBuffer`` over the tensor's own memory: the pickler writes it out of band
when the caller takes buffers (``buffer_callback``: Dask, multiprocessing with
protocol 5), and the unpickled tensor then wraps the buffer it is given, without a copy,
when that buffer is writable and aligned. Older protocols carry a copy as bytes.

Only a dense tensor (a permutation of a contiguous layout, with or without an offset)
goes without a copy; a tensor with gaps (``x[:, ::2]``) or overlaps (``expand``) is made
contiguous first, as numpy does. CUDA tensors come back on the CPU. What requires_grad
says is kept; the graph is not (the unpickled tensor is a leaf), as in torch.
"""

from __future__ import annotations

import ctypes
import pickle
from typing import Any

from sdk import _C
from sdk._dtype import DTYPES, as_dtype, byte_view, check_dim_order, check_raw_tensor

WHERE = "unpickling a tensor"


def memory_order(t: Any) -> tuple[int, ...] | None:
    """The dims of `t` from the outermost in memory to the innermost when `t` is dense (its
    elements fill one block without gaps or overlaps), else None."""
    shape, strides = tuple(t.shape), t.stride()
    dims = sorted(range(len(shape)), key=lambda i: (-strides[i], -shape[i]))
    expected = 1
    for i in reversed(dims):
        if shape[i] != 1 and strides[i] != expected:
            return None
        expected *= shape[i]
    return tuple(dims)


def _host_buffer(t: Any) -> Any:
    """A buffer over the bytes of contiguous `t` that keeps `t` alive: writable, unless `t`
    is read-only (then whoever takes the buffer out of band cannot write through it)."""
    if t.nbytes == 0:
        return bytearray()
    buf = (ctypes.c_ubyte * t.nbytes).from_address(t.data_ptr())
    buf._sdk_owner = t  # the memory lives as long as the buffer does
    return memoryview(buf).toreadonly() if t._is_read_only else buf


def reduce(t: Any, protocol: int, rebuild_fn: Any) -> tuple:
    """What Tensor.__reduce_ex__ returns (see the module docstring)."""
    mem = _C._alias(t.cpu() if t.is_cuda else t)  # no autograd state: values only
    order = None
    if not mem.is_contiguous():
        order = memory_order(mem)
        if order is None:
            mem = _C.contiguous(mem)
        else:
            mem = _C.permute(mem, list(order))  # row-major contiguous, on the same memory
    if protocol >= 5:
        data: Any = pickle.PickleBuffer(_host_buffer(mem))
    else:
        data = ctypes.string_at(mem.data_ptr(), mem.nbytes) if mem.nbytes else b""
    args: tuple = (data, t.dtype.name, tuple(t.shape), bool(t._requires_grad))
    if order is not None and order != tuple(range(len(order))):
        args += (order,)
    return (rebuild_fn, args)


def rebuild(raw: Any, dtype_name: Any, shape: Any, requires_grad: Any, order: Any) -> Any:
    """The tensor a pickle describes. Every argument comes from whoever wrote the pickle:
    each is checked against the others and the bytes present before memory is touched
    (ValueError or TypeError naming the field, from sdk._dtype)."""
    if not isinstance(dtype_name, str) or dtype_name not in _DTYPE_NAMES:
        raise ValueError(f"{WHERE}: dtype: unknown dtype {dtype_name!r:.60}")
    d = as_dtype(dtype_name)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{WHERE}: shape must be a tuple of ints, got {type(shape).__name__}")
    order = check_dim_order(order, len(shape), WHERE)
    data = byte_view(raw, WHERE)
    mem_shape = check_raw_tensor(data, d, [shape[i] for i in order], WHERE)
    if not isinstance(requires_grad, bool):
        raise TypeError(
            f"{WHERE}: requires_grad must be a bool, got {type(requires_grad).__name__}"
        )
    if requires_grad and not d.is_floating_point:
        raise ValueError(f"{WHERE}: requires_grad: only floating point tensors can, not {d.name}")
    t = None
    if d._np is not None and len(data):
        import numpy as np

        arr = np.frombuffer(data, d._np)
        if arr.flags.writeable and arr.flags.aligned:  # wrap it, as numpy does (no copy)
            t = _C.from_array_interface(arr.reshape(mem_shape))
    if t is None:  # bytes, a read-only or misaligned buffer, bfloat16: a copy of our own
        t = _C.empty(mem_shape, d)
        if t.nbytes:
            _copy_into(t, data)
    if order != tuple(range(len(order))):
        inverse = sorted(range(len(order)), key=order.__getitem__)
        t = _C.permute(t, inverse)
    t._requires_grad = requires_grad
    return t


def _copy_into(t: Any, raw: Any) -> None:
    """Copy the (already checked) bytes of `raw` into contiguous `t`."""
    if isinstance(raw, bytes):
        ctypes.memmove(t.data_ptr(), raw, len(raw))
        return
    import numpy as np

    src = np.frombuffer(raw, np.uint8)
    ctypes.memmove(t.data_ptr(), src.ctypes.data, src.nbytes)


_DTYPE_NAMES = frozenset(d.name for d in DTYPES)
