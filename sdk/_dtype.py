"""dtype, device, memory_format, layout and Size: the small value types of the sdk Python API."""

from __future__ import annotations

from typing import Any

from sdk import _C

__all__ = [
    "dtype",
    "device",
    "memory_format",
    "contiguous_format",
    "preserve_format",
    "layout",
    "strided",
    "Size",
    # and each dtype by its attribute name (bool_, uint8, ..., float64): see DTYPES below
    "DTYPES",
    "TORCH_NAMES",
    "get_default_dtype",
    "set_default_dtype",
    "as_dtype",
    "to_numpy_dtype",
    "from_numpy_dtype",
]


class dtype:
    """An element type (the codes are the core's sdk_dtype_code values)."""

    __slots__ = ("code", "name", "itemsize", "is_floating_point", "is_complex", "is_signed", "_np")

    def __init__(self, code: int, name: str, itemsize: int, kind: str, np_name):
        self.code = code
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = kind in ("FLOAT", "BFLOAT") or kind.startswith("FLOAT8_")
        self.is_complex = kind == "COMPLEX"  # not floating, as in torch
        self.is_signed = kind == "INT" or self.is_floating_point or self.is_complex
        self._np = np_name

    def __repr__(self) -> str:
        return f"sdk.{self.name}"

    @property
    def dtype(self) -> Any:
        """numpy's dtype for this one. numpy reads this attribute, so np.dtype(sdk.float32)
        works and numpy-based libraries (Dask's da.from_array of a tensor) accept sdk dtypes;
        TypeError for bfloat16, which numpy lacks."""
        return to_numpy_dtype(self)

    def __reduce__(self):
        return (as_dtype, (self.name,))

    def to_real(self) -> dtype:
        """The dtype of a complex dtype's parts (float32 for complex64); any other is its own."""
        return _BY_NAME[_PARTS[self.name]] if self.is_complex else self

    def to_complex(self) -> dtype:
        """The complex dtype whose parts have this float's width (torch's to_complex):
        complex128 for float64, complex64 for the other floats; a complex dtype is its own."""
        if self.is_complex:
            return self
        if not self.is_floating_point:
            raise TypeError(f"to_complex(): {self} is not a floating point dtype")
        return _BY_NAME["complex128" if self.name == "float64" else "complex64"]


# The part dtype of each complex dtype.
_PARTS = {"complex64": "float32", "complex128": "float64"}


def _from_row(name: str, row: tuple) -> dtype:
    """The dtype of one SDK_DTYPES row, as sdk._C.DTYPES gives it: (code, Torch, itemsize,
    DLPack kind, py_alias)."""
    code, _torch, itemsize, kind, _alias = row
    numpy_name = name if kind in ("BOOL", "UINT", "INT", "FLOAT", "COMPLEX") else None  # by name
    return dtype(code, name, itemsize, kind, numpy_name)


def _attribute(d: dtype) -> str:
    """The module attribute of a dtype: its name, but bool_ for bool (the builtin keeps its
    name in the modules that import this one)."""
    return "bool_" if d.name == "bool" else d.name


# The dtypes, indexed by code: one per row of the C ABI's SDK_DTYPES, so the core, the C++ API
# and sdk agree on every fact; each is also a module attribute (bool_, uint8, ..., float64).
DTYPES = tuple(_from_row(name, row) for name, row in _C.DTYPES.items())
globals().update({_attribute(d): d for d in DTYPES})
__all__ += [_attribute(d) for d in DTYPES]

# torch's names for the dtypes: each dtype's name and torch's other Python name of it
# (torch.float), the sdk namespace's dtype attributes.
TORCH_NAMES = {d.name: d for d in DTYPES}
TORCH_NAMES.update({row[4]: DTYPES[row[0]] for row in _C.DTYPES.values() if row[4]})

_BY_NAME = {**TORCH_NAMES, "bool_": TORCH_NAMES["bool"]}

_default_dtype = TORCH_NAMES["float32"]


def get_default_dtype() -> dtype:
    """The dtype of tensors made from Python floats (float32 unless changed)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float16, bfloat16, float32 or float64)."""
    global _default_dtype
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_dtype = d


def as_dtype(d: Any) -> dtype:
    """Normalize an sdk.dtype, a name, a Python type or a numpy dtype to an sdk.dtype."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return _default_dtype
    if d is int:
        return TORCH_NAMES["int64"]
    if d is bool:
        return TORCH_NAMES["bool"]
    if isinstance(d, str):
        try:
            return _BY_NAME[d]
        except KeyError:
            raise TypeError(f"unknown dtype name {d!r}") from None
    if type(d).__module__.startswith("numpy") or hasattr(d, "itemsize") and hasattr(d, "kind"):
        return from_numpy_dtype(d)
    raise TypeError(f"expected an sdk.dtype, got {type(d).__name__}")


# torch.cuda.FloatTensor & co.: sdk._tensor_types (a higher layer) fills this when sdk loads,
# sdk.cuda's __getattr__ reads it
CUDA_TENSOR_TYPES: dict[str, type] = {}

MAX_DIMS = 64  # the core's limit on dimensions (kIterMaxDims)
_INT64_MAX = 2**63 - 1


def byte_view(raw: Any, where: str) -> Any:
    """`raw` in the form check_raw_tensor counts: bytes and bytearray as they are, any other
    buffer (a protocol-5 out-of-band buffer: PickleBuffer, memoryview, numpy array) as a
    flat memoryview of its bytes, so that its length is its byte count whatever its item
    format. TypeError for anything that is not a buffer, and for buffers with gaps."""
    if isinstance(raw, (bytes, bytearray)):
        return raw
    try:
        view = memoryview(raw)
    except TypeError:
        raise TypeError(
            f"{where}: the data must be bytes or a buffer, got {type(raw).__name__}"
        ) from None
    if not view.c_contiguous:
        raise TypeError(f"{where}: the data buffer is not contiguous")
    return view if view.format == "B" and view.ndim == 1 else view.cast("B")


def check_raw_tensor(raw: Any, d: dtype, shape: Any, where: str) -> tuple:
    """The shape as a tuple when `raw` holds exactly the values of a C-order tensor of
    `shape` and dtype `d`, bool ones all 0 or 1: what bytes from a file or a pickle must be
    before they are copied into (or wrapped by) a tensor. `raw` is bytes, a bytearray or a
    flat memoryview of bytes (see byte_view). ValueError naming the field that disagrees
    (TypeError for a value of the wrong type); nothing is allocated before."""
    flat_view = isinstance(raw, memoryview) and raw.format == "B" and raw.ndim == 1
    if not isinstance(raw, (bytes, bytearray)) and not flat_view:
        raise TypeError(f"{where}: the data must be bytes, got {type(raw).__name__}")
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{where}: shape must be a tuple of ints, got {type(shape).__name__}")
    if len(shape) > MAX_DIMS:
        raise ValueError(f"{where}: shape has {len(shape)} dimensions, at most {MAX_DIMS}")
    strides = 1  # the largest stride of the contiguous layout: size-0 dims count as 1
    for i, n in enumerate(shape):
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"{where}: shape[{i}] must be an int, got {type(n).__name__}")
        if n < 0:
            raise ValueError(f"{where}: shape[{i}] is negative ({n})")
        strides *= max(n, 1)
        if strides > _INT64_MAX:
            raise ValueError(f"{where}: shape {tuple(shape)} has too many elements")
    nbytes = (0 if 0 in shape else strides) * d.itemsize
    if nbytes != len(raw):
        raise ValueError(
            f"{where}: byte count: shape {tuple(shape)} of {d.name} needs {nbytes} bytes, "
            f"the data has {len(raw)}"
        )
    if d.name == "bool" and nbytes and not _only_bytes_0_1(raw):
        raise ValueError(f"{where}: values: a bool tensor holds only the bytes 0 and 1")
    return tuple(shape)


def _only_bytes_0_1(raw: Any) -> bool:
    if isinstance(raw, (bytes, bytearray)):
        return not raw.translate(None, b"\x00\x01")
    import numpy as np

    return int(np.frombuffer(raw, np.uint8).max()) <= 1


def check_dim_order(order: Any, ndim: int, where: str) -> tuple:
    """`order` (the dims of a pickled tensor from the outermost in memory to the innermost;
    None for 0, 1, ...) as a tuple, when it is a permutation of range(ndim); ValueError or
    TypeError naming the field otherwise."""
    if order is None:
        return tuple(range(ndim))
    if not isinstance(order, (tuple, list)):
        raise TypeError(f"{where}: order must be a tuple of ints, got {type(order).__name__}")
    if any(not isinstance(i, int) or isinstance(i, bool) for i in order):
        raise TypeError(f"{where}: order must be a tuple of ints, got {order!r:.60}")
    if sorted(order) != list(range(ndim)):
        raise ValueError(f"{where}: order {tuple(order)!r:.60} is not a permutation of {ndim} dims")
    return tuple(order)


def to_numpy_dtype(d: dtype):
    """numpy dtype for an sdk dtype (TypeError for bfloat16, which numpy lacks)."""
    import numpy as np

    if d._np is None:
        raise TypeError(f"Got unsupported ScalarType {d.name}: numpy has no {d.name} dtype")
    return np.dtype(d._np)


def from_numpy_dtype(npd) -> dtype:
    """sdk dtype for a numpy dtype (TypeError for types the core lacks)."""
    import numpy as np

    npd = np.dtype(npd)
    for d in DTYPES:
        if d._np is not None and np.dtype(d._np) == npd:
            return d
    known = [d.name for d in DTYPES if d._np is not None]
    raise TypeError(
        f"can't convert numpy dtype {npd}: supported are {', '.join(known[:-1])} and {known[-1]}"
    )


class device:
    """A device: device('cpu'), device('cuda', 0), device('cuda:1')."""

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: int | None = None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string, got {type.__class__.__name__}")
        if ":" in type:
            type, _, idx = type.partition(":")
            if index is not None:
                raise ValueError("device(): index given twice")
            try:
                index = int(idx)
            except ValueError:
                raise ValueError(f"device(): invalid device index {idx!r}") from None
        if type not in ("cpu", "cuda", "meta"):
            raise ValueError(
                f"Expected one of cpu, cuda, meta device type at start of device string: {type}"
            )
        if index is not None and index < 0:
            raise ValueError(f"device(): index must be non-negative, got {index}")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except (ValueError, TypeError):
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))


class _NamedConstant:
    """A module-level constant named by its sdk attribute (repr ``sdk.<name>``), pickled by
    that name so it unpickles as the same object."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"sdk.{self.name}"

    def __reduce__(self) -> str:
        return self.name


class memory_format(_NamedConstant):
    """How a new tensor lays out its elements: ``sdk.contiguous_format`` (row-major) or
    ``sdk.preserve_format`` (the layout of a dense source, e.g. a transposed one; the
    default of ``*_like`` and ``clone``), as torch's."""

    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")


class layout(_NamedConstant):
    """How a tensor's elements are stored: ``sdk.strided`` (dense, with strides) is the one
    layout here (torch's sparse layouts have no counterpart); ``Tensor.layout`` gives it."""

    __slots__ = ()


strided = layout("strided")


class Size(tuple):
    """Tensor sizes: a tuple of ints (tensor.shape, tensor.size())."""

    __slots__ = ()

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"sdk.Size([{', '.join(map(str, self))}])"

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))
