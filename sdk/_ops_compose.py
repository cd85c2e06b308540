"""Public shape ops built from other recorded ops (repeat, tile, unflatten, meshgrid) or
with a storage-level gradient (as_strided); autograd comes from the pieces they use."""

from __future__ import annotations

import math
from typing import Any

from sdk import _C
from sdk._ops_common import (
    TensorBase,
    int_seq,
    needs_grad,
    record,
    sizes_arg,
    tensor_arg,
    wrap_dim,
)

Tensor = Any


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    """self tiled sizes[i] times along each dim (leading sizes add new dims), as a copy."""
    tensor_arg(self, "repeat")
    reps = sizes_arg(sizes, "repeat")
    if len(reps) < self.ndim:
        raise _C.InvalidArgumentError(
            f"repeat(): {len(reps)} repeat sizes for a tensor of {self.ndim} dims; give at "
            "least one per dim"
        )
    if any(r < 0 for r in reps):
        raise _C.InvalidArgumentError(f"repeat(): repeat sizes can not be negative, got {reps}")
    shape = (1,) * (len(reps) - self.ndim) + tuple(self.shape)
    # (s0, s1, ...) -> (1, s0, 1, s1, ...) -> expanded to (r0, s0, r1, s1, ...) -> merged
    interleaved = tuple(v for s in shape for v in (1, s))
    expanded = tuple(v for r, s in zip(reps, shape) for v in (r, s))
    out = self.reshape(interleaved).expand(expanded)
    return out.reshape(tuple(r * s for r, s in zip(reps, shape)))


def tile(input: Tensor, dims: Any) -> Tensor:
    """repeat with dims padded by leading ones to input's number of dims."""
    tensor_arg(input, "tile")
    reps = int_seq(dims, "tile", "dims")
    return repeat(input, (1,) * (input.ndim - len(reps)) + reps)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Split dim into `sizes` (one of them may be -1), as a view."""
    tensor_arg(input, "unflatten")
    d = wrap_dim(dim, input.ndim, "unflatten")
    parts = int_seq(sizes, "unflatten", "sizes")
    if not parts:
        raise _C.InvalidArgumentError("unflatten(): sizes must be non-empty")
    n = input.shape[d]
    known = math.prod(s for s in parts if s != -1)
    if parts.count(-1) > 1 or any(s < -1 for s in parts):
        raise _C.InvalidArgumentError(
            f"unflatten(): sizes {parts} may hold one -1 and otherwise non-negative sizes"
        )
    if -1 in parts:
        if known == 0 or n % known:
            raise _C.InvalidArgumentError(
                f"unflatten(): sizes {parts} can not split dim {d} of size {n}"
            )
        parts = tuple(n // known if s == -1 else s for s in parts)
    elif known != n:
        raise _C.InvalidArgumentError(
            f"unflatten(): sizes {parts} multiply to {known}, not to dim {d}'s size {n}"
        )
    shape = tuple(input.shape)
    return input.view(shape[:d] + parts + shape[d + 1 :])


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D (or 0-D) tensors: output i varies along dim i ('ij', the
    default) or with the first two dims swapped ('xy'); each is an expanded view."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise _C.InvalidArgumentError(
            f"meshgrid(): indexing must be 'ij' or 'xy', got {indexing!r}"
        )
    if not tensors:
        raise _C.InvalidArgumentError("meshgrid(): expects at least one tensor")
    for i, t in enumerate(tensors):
        tensor_arg(t, "meshgrid", f"tensors[{i}]")
        if t.ndim > 1:
            raise _C.InvalidArgumentError(
                f"meshgrid(): tensors[{i}] has {t.ndim} dims; expected 0 or 1"
            )
        if t.dtype != tensors[0].dtype or t.device != tensors[0].device:
            raise _C.InvalidArgumentError(
                "meshgrid(): expects all tensors to have one dtype and device, got "
                f"{tensors[0].dtype} on {tensors[0].device} and {t.dtype} on {t.device}"
            )
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0  # tensor 0 varies along dim 1, tensor 1 along dim 0
    shape = [0] * len(tensors)
    for i, t in enumerate(tensors):
        shape[order[i]] = t.numel()
    out = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[order[i]] = -1
        out.append(t.reshape(tuple(view)).expand(tuple(shape)))
    return tuple(out)


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None):
    """A view of input's storage with the given sizes, strides (in elements) and offset
    (input's own offset when None)."""
    tensor_arg(input, "as_strided")
    sz, st = int_seq(size, "as_strided", "size"), int_seq(stride, "as_strided", "stride")
    off = input.storage_offset() if storage_offset is None else storage_offset
    if isinstance(off, TensorBase) or not hasattr(off, "__index__") or isinstance(off, bool):
        raise TypeError(
            f"as_strided(): argument 'storage_offset' must be int, not {type(off).__name__}"
        )
    r = _C.as_strided(input, sz, st, off.__index__())
    if needs_grad(input):
        record(
            "as_strided", (input,), r, size=sz, stride=st, storage_offset=off.__index__(),
            in_shape=tuple(input.shape), in_stride=input.stride(),
            in_offset=input.storage_offset(),
        )  # fmt: skip
    return r
