"""torch's storages over the core's (ABI 1.12): UntypedStorage (a tensor's bytes), TypedStorage
(what the deprecated Tensor.storage() returns), and Tensor.untyped_storage / storage / set_.

A storage object holds a 1-d uint8 tensor over all of the core storage (`_bytes`): the memory
lives while it does, and reads and writes go through the core's ops, so a storage of read-only
memory stays read-only and every index is checked."""

from __future__ import annotations

import warnings
from typing import Any

from sdk import _C
from sdk._dtype import as_dtype, get_default_dtype, uint8
from sdk._interop import tensor as _tensor_of
from sdk._ops_common import tensor_arg
from sdk._ops_creation import empty

Tensor = Any  # the public class lives in sdk._tensor (which binds the methods below)

__all__ = ["TypedStorage", "UntypedStorage", "is_storage"]


class UntypedStorage:
    """The bytes a tensor and its views share (torch.UntypedStorage): UntypedStorage(nbytes,
    device=...) makes new (uninitialised) memory, UntypedStorage([byte, ...]) holds the given
    bytes, and Tensor.untyped_storage() gives a tensor's own."""

    __slots__ = ("_bytes",)
    is_sparse = False

    def __init__(self, *args: Any, device: Any = None) -> None:
        if len(args) > 1:
            raise TypeError(f"UntypedStorage() takes at most 1 argument ({len(args)} given)")
        arg = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            if arg < 0:
                raise RuntimeError(f"UntypedStorage(): size must be >= 0, got {arg}")
            self._bytes = empty(arg, dtype=uint8, device=device)
        elif isinstance(arg, (list, tuple)):
            self._bytes = _tensor_of(list(arg), dtype=uint8, device=device)
        else:
            raise TypeError(
                "UntypedStorage(): expected a size (int) or a sequence of bytes, got "
                f"{type(arg).__name__}"
            )

    @classmethod
    def _of(cls, t: Tensor) -> UntypedStorage:
        s = cls.__new__(cls)
        s._bytes = _C.storage_bytes(t)
        return s

    def nbytes(self) -> int:
        return self._bytes.numel()

    size = nbytes
    __len__ = nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._bytes.data_ptr()

    @property
    def device(self) -> Any:
        return self._bytes.device

    @property
    def is_cuda(self) -> bool:
        return self._bytes.is_cuda

    @property
    def _cdata(self) -> int:
        """The core storage's address: equal for every storage object of the same memory."""
        return _C.storage_id(self._bytes)

    def untyped(self) -> UntypedStorage:
        return self

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device: Any = None) -> bool:
        return False

    def tolist(self) -> list:
        return self._bytes.tolist()

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def __getitem__(self, idx: Any) -> int:
        return int(self._bytes[_byte_index(idx, self.nbytes())])

    def __setitem__(self, idx: Any, value: Any) -> None:
        if isinstance(idx, slice):
            self._bytes[idx] = value
        else:
            self._bytes[_byte_index(idx, self.nbytes())] = value

    def fill_(self, value: Any) -> UntypedStorage:
        self._bytes.fill_(value)
        return self

    def copy_(self, source: Any, non_blocking: Any = None) -> UntypedStorage:
        src = source.untyped() if isinstance(source, (UntypedStorage, TypedStorage)) else None
        if src is None:
            raise TypeError(f"copy_(): expected a storage, got {type(source).__name__}")
        if src.nbytes() != self.nbytes():
            raise RuntimeError(
                f"copy_(): the storages differ in size ({src.nbytes()} bytes into {self.nbytes()})"
            )
        self._bytes.copy_(src._bytes)
        return self

    def clone(self) -> UntypedStorage:
        s = UntypedStorage.__new__(UntypedStorage)
        s._bytes = self._bytes.clone()
        return s

    def cpu(self) -> UntypedStorage:
        return self if self._bytes.device.type == "cpu" else self.to(device="cpu")

    def to(self, *, device: Any = None, non_blocking: bool = False) -> UntypedStorage:
        s = UntypedStorage.__new__(UntypedStorage)
        s._bytes = self._bytes.to(device)
        return s

    def resize_(self, size: int) -> UntypedStorage:
        if size != self.nbytes():
            raise NotImplementedError(
                f"UntypedStorage.resize_({size}): a storage keeps its size here ({self.nbytes()} "
                "bytes), so that no tensor or exported array on it ever points at freed memory; "
                "make a new tensor (or Tensor.resize_, which moves the one tensor to a larger "
                "copy)"
            )
        return self

    def __repr__(self) -> str:
        return f"sdk.UntypedStorage(device={self.device}) of size {self.nbytes()}"


class TypedStorage:
    """A storage read as elements of one dtype (torch.TypedStorage, deprecated there in favour
    of UntypedStorage): what Tensor.storage() returns."""

    __slots__ = ("_untyped_storage", "dtype")
    is_sparse = False

    def __init__(self, *args: Any, dtype: Any = None, device: Any = None,
                 wrap_storage: UntypedStorage | None = None) -> None:  # fmt: skip
        self.dtype = as_dtype(dtype) if dtype is not None else get_default_dtype()
        if wrap_storage is not None:
            if args or device is not None:
                raise TypeError("TypedStorage(): wrap_storage takes no size, data or device")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(
                    "TypedStorage(): wrap_storage must be an UntypedStorage, not "
                    f"{type(wrap_storage).__name__}"
                )
            self._untyped_storage = wrap_storage
            return
        if len(args) > 1:
            raise TypeError(f"TypedStorage() takes at most 1 argument ({len(args)} given)")
        arg = args[0] if args else 0
        if isinstance(arg, (list, tuple)):
            t = _tensor_of(list(arg), dtype=self.dtype, device=device)
        elif isinstance(arg, int) and not isinstance(arg, bool) and arg >= 0:
            t = empty(arg, dtype=self.dtype, device=device)
        else:
            raise TypeError(f"TypedStorage(): expected a size >= 0 or a sequence, got {arg!r}")
        self._untyped_storage = UntypedStorage._of(t)

    def _elements(self) -> Tensor:
        """A 1-d tensor of this dtype over the whole storage."""
        return set_(empty(0, dtype=self.dtype, device=self.device), self._untyped_storage)

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    __len__ = size

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    @property
    def device(self) -> Any:
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self._untyped_storage.is_cuda

    @property
    def _cdata(self) -> int:
        return self._untyped_storage._cdata

    def is_shared(self) -> bool:
        return False

    def tolist(self) -> list:
        return self._elements().tolist()

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def __getitem__(self, idx: Any) -> Any:
        return self._elements()[_byte_index(idx, self.size())].item()

    def __setitem__(self, idx: Any, value: Any) -> None:
        elements = self._elements()
        elements[idx if isinstance(idx, slice) else _byte_index(idx, self.size())] = value

    def fill_(self, value: Any) -> TypedStorage:
        self._elements().fill_(value)
        return self

    def copy_(self, source: Any, non_blocking: Any = None) -> TypedStorage:
        self._untyped_storage.copy_(source, non_blocking)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype)

    def cpu(self) -> TypedStorage:
        return TypedStorage(wrap_storage=self._untyped_storage.cpu(), dtype=self.dtype)

    def __repr__(self) -> str:
        return f"sdk.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}"


def _byte_index(idx: Any, n: int) -> int:
    """An int index into n items (negative counts from the end); IndexError out of range."""
    if isinstance(idx, slice):
        raise NotImplementedError(
            "storage[slice]: a storage has no views of part of it here; index the tensor "
            "(or tolist()) instead"
        )
    if isinstance(idx, bool) or not hasattr(idx, "__index__"):
        raise TypeError(f"storage indices must be integers, not {type(idx).__name__}")
    i = idx.__index__()
    if not -n <= i < n:
        raise IndexError(f"index {i} out of range for a storage of size {n}")
    return i + n if i < 0 else i


def is_storage(obj: Any) -> bool:
    """Whether obj is a storage (UntypedStorage or TypedStorage)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# ------------------------------------------------------------------ Tensor methods


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The bytes this tensor and its views share."""
    tensor_arg(self, "untyped_storage", "self")
    return UntypedStorage._of(self)


_warned_typed = False


def storage(self: Tensor) -> TypedStorage:
    """This tensor's storage read as its dtype (torch's deprecated TypedStorage; it warns once
    as torch does: untyped_storage() is the current form)."""
    global _warned_typed
    tensor_arg(self, "storage", "self")
    if not _warned_typed:
        _warned_typed = True
        warnings.warn(
            "TypedStorage is deprecated (as in torch): use tensor.untyped_storage() instead of "
            "tensor.storage()",
            UserWarning,
            stacklevel=2,
        )
    return TypedStorage(wrap_storage=UntypedStorage._of(self), dtype=self.dtype)


def set_(self: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None,
         stride: Any = None) -> Tensor:  # fmt: skip
    """self views other memory from now on (torch's set_): set_() an empty storage,
    set_(tensor) the tensor's storage and geometry, set_(storage) all of a storage as a 1-d
    tensor, set_(storage, storage_offset, size, stride=None) that geometry over it (stride
    None: contiguous). Every geometry is checked against the storage's bytes."""
    tensor_arg(self, "set_", "self")
    if source is None:
        return _C.set_tensor_(self, empty(0, dtype=self.dtype, device=self.device))
    if isinstance(source, _C.TensorBase):
        if size is not None or stride is not None or storage_offset:
            raise TypeError("set_(): a source tensor takes no storage_offset, size or stride")
        return _C.set_tensor_(self, source)
    if isinstance(source, TypedStorage):
        if source.dtype != self.dtype:
            raise TypeError(
                f"set_(): expected a storage of dtype {self.dtype.name}, got one of {source.dtype.name}"
            )
        source = source.untyped()
    if not isinstance(source, UntypedStorage):
        raise TypeError(
            f"set_(): argument 'source' must be Tensor or Storage, not {type(source).__name__}"
        )
    if size is None:
        if stride is not None:
            raise TypeError("set_(): stride given without size")
        size = (source.nbytes() // self.dtype.itemsize,)
    size = tuple(size) if isinstance(size, (list, tuple)) else size
    stride = tuple(stride) if isinstance(stride, (list, tuple)) else stride
    return _C.set_storage_(self, source._bytes, storage_offset, size, stride)


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both tensors view the same storage at the same offset, sizes and strides."""
    tensor_arg(tensor, "is_set_to", "tensor")
    return (
        _C.storage_id(self) == _C.storage_id(tensor) and self.dtype is tensor.dtype
        and self.storage_offset() == tensor.storage_offset()
        and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride()
    )  # fmt: skip
