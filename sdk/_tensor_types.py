"""torch's legacy typed tensor classes: sdk.FloatTensor(2, 3), sdk.LongTensor([1, 2]),
isinstance(t, sdk.FloatTensor), t.type(sdk.cuda.IntTensor). Older extensions' Python glue
still allocates its outputs this way; each class is a (dtype, device type) pair over the one
Tensor type, never a subclass of it, as in torch."""

from __future__ import annotations

import numbers
from typing import Any

from sdk import _C, _dtype
from sdk._interop import tensor
from sdk._ops_creation import empty

# torch's class name for each dtype; one place (Tensor.type() prints these too)
_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor",
    "uint8": "ByteTensor",
    "int8": "CharTensor",
    "int16": "ShortTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "bool": "BoolTensor",
}
_PREFIX = {"cpu": "sdk", "cuda": "sdk.cuda"}


class _TensorType(type):
    """The metaclass: isinstance(t, sdk.FloatTensor) asks the tensor's dtype and device."""

    dtype: _dtype.dtype
    _device: str

    def __instancecheck__(cls, obj: Any) -> bool:
        return (
            isinstance(obj, _C.TensorBase)
            and obj.dtype == cls.dtype
            and obj.device.type == cls._device
        )

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__qualname__}'>"

    @property
    def is_cuda(cls) -> bool:
        return cls._device == "cuda"


def _is_size(args: tuple) -> bool:
    """torch's reading: ints (or one sdk.Size) are a size; one other sequence is data."""
    if len(args) == 1 and isinstance(args[0], _dtype.Size):
        return True
    return all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args)


def construct(where: str, dtype: _dtype.dtype, device: Any, args: tuple) -> Any:
    """torch's legacy constructor rules, for sdk.FloatTensor(...) and Tensor.new(...): no
    argument is an empty tensor, ints (or one sdk.Size) a size (uninitialized), one other
    sequence data; a tensor of the same dtype and device is returned as it is."""
    device = _dtype.device(device)
    if not args:
        out = empty(0, dtype=dtype)
    elif _is_size(args):
        sizes = tuple(args[0]) if isinstance(args[0], _dtype.Size) else args
        bad = [s for s in sizes if s < 0]
        if bad:
            raise ValueError(f"{where}: negative dimension {bad[0]} in size {list(sizes)}")
        out = empty(*sizes, dtype=dtype)
    elif len(args) > 1:
        kinds = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"{where}: expected sizes (ints) or one sequence of data, got ({kinds})")
    elif isinstance(args[0], _C.TensorBase):
        if args[0].dtype != dtype or args[0].device.type != device.type:  # never a conversion
            raise TypeError(f"{where}: expected a {_name(dtype, device)}, got {args[0].type()}")
        return args[0]
    elif isinstance(args[0], (str, bytes, numbers.Number)):
        raise TypeError(f"{where}: data must be a sequence, got {type(args[0]).__name__}")
    else:
        out = tensor(args[0], dtype=dtype)
    return out if device.type == "cpu" else out.to(device)


def _name(dtype: _dtype.dtype, device: Any) -> str:
    name = _NAMES.get(dtype.name, f"{dtype.name.capitalize()}Tensor")
    return f"{_PREFIX.get(device.type, 'sdk.' + device.type)}.{name}"


def _make(dtype_name: str, device: str) -> _TensorType:
    name = _NAMES[dtype_name]

    def __new__(cls: _TensorType, *args: Any, device: Any = None) -> Any:
        where = f"{cls.__module__}.{cls.__qualname__}()"
        if device is not None and _dtype.device(device).type != cls._device:
            raise TypeError(f"{where}: device={device!r} does not match its {cls._device!r} type")
        return construct(where, cls.dtype, device or cls._device, args)

    body = {
        "__new__": __new__,
        "__module__": _PREFIX[device],
        "__qualname__": name,
        "__doc__": f"Legacy constructor of {_PREFIX[device]} {dtype_name} tensors: "
        f"{name}(*sizes) is uninitialized, {name}(data) copies a sequence.",
        "dtype": _dtype.TORCH_NAMES[dtype_name],
        "_device": device,
    }
    return _TensorType(name, (), body)


CPU_TYPES = {_NAMES[d]: _make(d, "cpu") for d in _NAMES}
globals().update(CPU_TYPES)  # FloatTensor, LongTensor, ... (sdk's namespace imports them)
CUDA_TYPES = {_NAMES[d]: _make(d, "cuda") for d in _NAMES}
_dtype.CUDA_TENSOR_TYPES.update(CUDA_TYPES)  # sdk.cuda (a lower layer) serves them


def type_name(t: Any) -> str:
    """Tensor.type(): 'sdk.FloatTensor', 'sdk.cuda.LongTensor'."""
    return _name(t.dtype, t.device)


def lookup(spec: Any) -> _TensorType | None:
    """The class `spec` names for Tensor.type(spec): a class above, or its name as torch or
    the SDK prints it ('torch.cuda.FloatTensor', 'sdk.IntTensor'); None for anything else."""
    if isinstance(spec, _TensorType):
        return spec
    if not isinstance(spec, str):
        return None
    for root in ("sdk.", "torch."):
        if spec.startswith(root):
            rest = spec[len(root) :]
            table = CUDA_TYPES if rest.startswith("cuda.") else CPU_TYPES
            return table.get(rest.removeprefix("cuda."))
    return None


def set_default_tensor_type(t: Any) -> None:
    """torch's legacy form of set_default_dtype: a CPU floating type (sdk.DoubleTensor, or
    its name 'torch.DoubleTensor') makes its dtype the default; CUDA types are refused
    (factories take device= instead)."""
    legacy = lookup(t)
    if legacy is None:
        raise TypeError(f"set_default_tensor_type(): invalid type {t!r}")
    if legacy._device != "cpu":
        raise NotImplementedError(
            "set_default_tensor_type(): the default device is always the CPU here; pass "
            "device='cuda' to the factories instead"
        )
    if not legacy.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(legacy.dtype)
