"""Public creation functions: empty, zeros, ones, full, arange, linspace, eye, random tensors."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._dtype import (
    as_dtype,
    contiguous_format,
    device,
    float64,
    get_default_dtype,
    int64,
    preserve_format,
)
from sdk._interop import _check_device
from sdk._ops_common import int_seq, sizes_arg, tensor_arg
from sdk._ops_complex import default_complex_dtype, fill_complex_
from sdk._ops_meta import MetaTensor, factory, is_meta

Tensor = Any
Generator = _C.Generator


def _float_dtype(dtype: Any) -> Any:
    return get_default_dtype() if dtype is None else as_dtype(dtype)


def _finish(t: Tensor, requires_grad: bool, op: str) -> Tensor:
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"{op}(): only Tensors of floating point dtype can require gradients (got {t.dtype})"
            )
        t._requires_grad = True
    return t


def empty(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    """Uninitialized tensor of the given size."""
    _check_device(device, "empty")
    return _finish(_C.empty(sizes_arg(size, "empty"), _float_dtype(dtype)), requires_grad, "empty")


def empty_strided(
    size: Any, stride: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """Uninitialized tensor with the given sizes and strides (elements)."""
    _check_device(device, "empty_strided")
    size, stride = int_seq(size, "empty_strided"), int_seq(stride, "empty_strided", "stride")
    t = _C.empty_strided(size, stride, _float_dtype(dtype))
    return _finish(t, requires_grad, "empty_strided")


def empty_permuted(
    size: Any,
    physical_layout: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialized tensor of logical `size` whose memory holds its dims in the order
    physical_layout gives (a permutation of range(len(size))): physical_layout[-1] is the
    dim with stride 1."""
    shape = int_seq(size, "empty_permuted")
    order = tuple(int_seq(physical_layout, "empty_permuted", "physical_layout"))
    if sorted(order) != list(range(len(shape))):
        raise RuntimeError(
            f"empty_permuted: physical_layout {list(order)} is not a permutation of the "
            f"{len(shape)} dims"
        )
    dense = empty([shape[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in range(len(shape))]
    return _finish(dense.permute(inverse), requires_grad, "empty_permuted")


def _is_complex(dtype: Any) -> bool:
    return dtype is not None and as_dtype(dtype).is_complex


def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """Tensor of the given size filled with fill_value (dtype inferred from it by default)."""
    _check_device(device, "full")
    if hasattr(fill_value, "item") and not isinstance(fill_value, (int, float, bool)):
        fill_value = fill_value.item()
    sz = int_seq(size, "full")
    if out is None and (isinstance(fill_value, complex) or _is_complex(dtype)):
        # torch: a complex value gives the default complex dtype
        d = default_complex_dtype() if dtype is None else as_dtype(dtype)
        return _finish(fill_complex_(_C.empty(sz, d), fill_value), requires_grad, "full")
    if out is not None:
        if tuple(out.shape) != sz:
            raise _C.InvalidArgumentError(
                f"full: out has shape {list(out.shape)} but the result has shape {list(sz)}"
            )
        return (
            fill_complex_(out, fill_value)
            if isinstance(fill_value, complex)
            else (_C.fill_(out, fill_value))
        )
    d = (
        as_dtype(dtype)
        if dtype is not None
        else (get_default_dtype() if isinstance(fill_value, float) else None)
    )
    return _finish(_C.full(sz, fill_value, d), requires_grad, "full")


def zeros(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    """Tensor of zeros."""
    _check_device(device, "zeros")
    t = _C.full(sizes_arg(size, "zeros"), 0, _float_dtype(dtype))
    return _finish(t, requires_grad, "zeros")


def ones(
    *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    """Tensor of ones."""
    _check_device(device, "ones")
    t = _C.full(sizes_arg(size, "ones"), 1, _float_dtype(dtype))
    return _finish(t, requires_grad, "ones")


def check_memory_format(memory_format: Any, op: str) -> bool:
    """True to keep the input's layout (torch's preserve_format, the default of *_like and
    clone: a transposed input gives a transposed result), False for row-major."""
    if memory_format is None or memory_format is preserve_format:
        return True
    if memory_format is contiguous_format:
        return False
    raise TypeError(
        f"{op}(): memory_format must be sdk.preserve_format or sdk.contiguous_format, "
        f"got {memory_format!r}"
    )


def _like(input: Tensor, dtype: Any, memory_format: Any, op: str) -> Tensor:
    """An uninitialised tensor of input's shape, dtype (unless given) and layout."""
    tensor_arg(input, op)
    preserve = check_memory_format(memory_format, op)
    return _C.empty_like(input, None if dtype is None else as_dtype(dtype), preserve)


def empty_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    **_: Any,
) -> Tensor:
    """Uninitialised, input's shape, dtype and layout (see sdk.preserve_format)."""
    t = _like(input, dtype, memory_format, "empty_like")
    return _finish(t, requires_grad, "empty_like")


def zeros_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    **_: Any,
) -> Tensor:
    t = _C.fill_(_like(input, dtype, memory_format, "zeros_like"), 0)
    return _finish(t, requires_grad, "zeros_like")


def ones_like(
    input: Tensor,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    **_: Any,
) -> Tensor:
    t = _C.fill_(_like(input, dtype, memory_format, "ones_like"), 1)
    return _finish(t, requires_grad, "ones_like")


def full_like(
    input: Tensor,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    **_: Any,
) -> Tensor:
    t = _C.fill_(_like(input, dtype, memory_format, "full_like"), fill_value)
    return _finish(t, requires_grad, "full_like")


def _random_like(input: Tensor, dtype: Any, memory_format: Any, op: str) -> Tensor:
    t = _like(input, dtype, memory_format, op)
    if not t.dtype.is_floating_point:
        raise TypeError(f"{op}(): expected a floating dtype, got {t.dtype}")
    return t


def rand_like(
    input: Tensor,
    *,
    dtype: Any = None,
    generator: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    **_: Any,
) -> Tensor:
    t = _C.uniform_(_random_like(input, dtype, memory_format, "rand_like"), 0.0, 1.0, generator)
    return _finish(t, requires_grad, "rand_like")


def randn_like(
    input: Tensor,
    *,
    dtype: Any = None,
    generator: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    **_: Any,
) -> Tensor:
    t = _C.normal_(_random_like(input, dtype, memory_format, "randn_like"), 0.0, 1.0, generator)
    return _finish(t, requires_grad, "randn_like")


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from start to end (exclusive) by step; arange(n) is 0..n-1."""
    _check_device(device, "arange")
    if end is None:
        start, end = 0, start
    args = [x.item() if hasattr(x, "item") and not isinstance(x, (int, float)) else x
            for x in (start, end, step)]  # fmt: skip
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if dtype is None and any(isinstance(x, float) for x in args):
        dtype = get_default_dtype()
    t = _C.arange(*args, None if dtype is None else as_dtype(dtype))
    return _finish(t, requires_grad, "arange")


def torch_range(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from start to end INCLUSIVE by step, in the default float dtype (torch.range,
    deprecated there in favour of arange, which stops before end)."""
    import warnings

    warnings.warn(
        "sdk.range is deprecated because its behavior is inconsistent with Python's range "
        "builtin. Instead, use sdk.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("range(): step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int((end - start) / step) + 1
    d = get_default_dtype() if dtype is None else as_dtype(dtype)
    t = _C.arange(0, count, 1, None)
    t = _C.to_dtype(t, float64, False) * step + start
    return _finish(_C.to_dtype(t, d, False), requires_grad, "range")


torch_range.__name__ = torch_range.__qualname__ = "range"  # sdk.range (here it would hide range)


def linspace(
    start: float,
    end: float,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` evenly spaced values from start to end inclusive."""
    _check_device(device, "linspace")
    t = _C.linspace(start, end, steps, _float_dtype(dtype))
    return _finish(t, requires_grad, "linspace")


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """n x m identity matrix (m defaults to n)."""
    _check_device(device, "eye")
    return _finish(_C.eye(n, m, _float_dtype(dtype)), requires_grad, "eye")


def rand(
    *size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    """Uniform [0, 1) samples."""
    _check_device(device, "rand")
    d = _float_dtype(dtype)
    if not d.is_floating_point:
        raise TypeError(f"rand(): expected a floating dtype, got {d}")
    t = _C.uniform_(_C.empty(sizes_arg(size, "rand"), d), 0.0, 1.0, generator)
    return _finish(t, requires_grad, "rand")


def randn(
    *size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Tensor:
    """Standard normal samples."""
    _check_device(device, "randn")
    d = _float_dtype(dtype)
    if not d.is_floating_point:
        raise TypeError(f"randn(): expected a floating dtype, got {d}")
    t = _C.normal_(_C.empty(sizes_arg(size, "randn"), d), 0.0, 1.0, generator)
    return _finish(t, requires_grad, "randn")


def randint(
    *args: Any, generator: Any = None, dtype: Any = None, device: Any = None, **_: Any
) -> Tensor:
    """randint(high, size) or randint(low, high, size): integers uniform in [low, high)."""
    _check_device(device, "randint")
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() expects (high, size) or (low, high, size)")
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    t = _C.empty(sizes_arg((size,), "randint"), int64 if dtype is None else as_dtype(dtype))
    return _C.randint_(t, low, high, generator)


def randint_like(
    input: Tensor, *args: Any, dtype: Any = None, generator: Any = None, **_: Any
) -> Tensor:
    """randint_like(input, high) or (input, low, high): integers in [low, high) shaped as input
    (input's dtype unless dtype is given)."""
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint_like() expects (input, high) or (input, low, high)")
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    t = _like(input, dtype, None, "randint_like")
    return _C.randint_(t, int(low), int(high), generator)


def randperm(n: int, *, generator: Any = None, dtype: Any = None) -> Tensor:
    """A random permutation of 0..n-1 (shuffled with a seed drawn from the generator)."""
    import random as _random

    seed = _C.randint_(_C.empty((1,), int64), 0, 2**62, generator).item()
    perm = list(range(n))
    _random.Random(seed).shuffle(perm)
    return _C.tensor_from_data(perm, int64 if dtype is None else as_dtype(dtype), None)


# The default generator's last seed: the core's kDefaultSeed (core/src/random.cpp, torch's
# default seed too) until manual_seed or seed sets another.
_default_seed = [67280421310721]


def manual_seed(seed: int) -> Any:
    """Seed the default generator."""
    _C.manual_seed(int(seed))
    _default_seed[0] = int(seed) & (2**64 - 1)
    return None


def seed() -> int:
    """Seed the default generator from the OS's entropy; returns the seed used."""
    import os

    value = int.from_bytes(os.urandom(8), "little") >> 1  # 63 bits, as torch's
    manual_seed(value)
    return value


def initial_seed() -> int:
    """The default generator's last seed (manual_seed's or seed's, else the default)."""
    return _default_seed[0]


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    return _C.normal_(self, mean, std, generator)


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    # torch names them from/to; positional use is the common one.
    return _C.uniform_(self, a, b, generator)


# ---------------------------------------------------------------------------- devices
# Factories build on the host, then move: one transfer, and every factory (and its
# argument checks) stays a single code path. device=None keeps the CPU (or, for *_like,
# the input's device).


def _target_device(dev: Any, op: str, like: Any = None) -> Any:
    """The CUDA device to place a result on, or None for the CPU."""
    if dev is None:
        dev = like.device if like is not None and getattr(like, "is_cuda", False) else None
    if dev is None:
        return None
    if isinstance(dev, int):
        dev = f"cuda:{dev}"
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cpu":
        return None
    from sdk import cuda  # lazy: keeps import sdk fast (~1 ms)

    if not cuda.is_available():
        raise RuntimeError(f"{op}(): CUDA is not available: {cuda.unavailable_reason()}")
    return d


def _on_device(fn: Any) -> Any:
    import functools

    like = fn.__name__.endswith("_like")

    @functools.wraps(fn)
    def wrapper(*args: Any, device: Any = None, **kwargs: Any) -> Tensor:
        if is_meta(device) or (like and args and isinstance(args[0], MetaTensor)):
            return factory(fn.__name__, args, kwargs)
        target = _target_device(device, fn.__name__, args[0] if like and args else None)
        if target is None:
            return fn(*args, **kwargs)
        from sdk.cuda import _to_device  # lazy: keeps import sdk fast (~1 ms)

        t = fn(*args, **kwargs)
        moved = _to_device(t, target)
        moved._requires_grad = t._requires_grad
        return moved

    return wrapper


for _name in (
    "empty",
    "empty_strided",
    "full",
    "zeros",
    "ones",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "arange",
    "linspace",
    "eye",
    "rand",
    "randn",
    "randint",
):
    if _name in globals():
        globals()[_name] = _on_device(globals()[_name])
