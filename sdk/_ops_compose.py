"""Public shape ops built from other recorded ops (repeat, tile, unflatten, meshgrid) or
with a storage-level gradient (as_strided); autograd comes from the pieces they use."""

from __future__ import annotations

import itertools
import math
from typing import Any

from sdk import _C
from sdk._interop import tensor as as_tensor
from sdk._ops_common import (
    TensorBase,
    int_seq,
    needs_grad,
    record,
    sizes_arg,
    tensor_arg,
    wrap_dim,
)
from sdk._ops_creation import zeros
from sdk._ops_shape import cat, stack

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


# ------------------------------------------------------------------------------ blocks

# torch's stacking, splitting and block builders, made of cat/reshape/flip/index ops.


def _seq_or_args(tensors: tuple, op: str) -> tuple[tuple, bool]:
    """f(a), f(a, b) or f([a, b]): the tensors, and whether one bare tensor was passed."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
        single = False
    else:
        single = len(tensors) == 1
    for t in tensors:
        tensor_arg(t, op, "tensors")
    return tensors, single


def _make_atleast(n: int) -> Any:
    def lift(t: Tensor) -> Tensor:
        if t.ndim >= n:
            return t
        if t.ndim == 0:
            return t.reshape((1,) * n)
        if n == 2:
            return t.unsqueeze(0)
        return t.reshape(1, -1, 1) if t.ndim == 1 else t.unsqueeze(-1)

    def atleast(*tensors: Any) -> Any:
        ts, single = _seq_or_args(tensors, f"atleast_{n}d")
        out = tuple(lift(t) for t in ts)
        return out[0] if single else out

    atleast.__name__ = atleast.__qualname__ = f"atleast_{n}d"
    atleast.__doc__ = f"Each tensor viewed with at least {n} dims (torch.atleast_{n}d)."
    return atleast


atleast_1d, atleast_2d, atleast_3d = (_make_atleast(n) for n in (1, 2, 3))


def _make_split(name: str, least: int, dim: int) -> Any:
    def op(input: Tensor, indices_or_sections: Any) -> tuple:
        tensor_arg(input, name)
        if input.ndim < least:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {least} dimension, but got a "
                f"tensor with {input.ndim} dimensions!"
            )
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
            size = input.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {size} is not divisible by the split_size {indices_or_sections}!"
                )
        return input.tensor_split(indices_or_sections, d)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"tensor_split along dim {dim}, sections dividing it evenly (torch.{name})."
    return op


hsplit = _make_split("hsplit", 1, 1)
vsplit = _make_split("vsplit", 2, 0)
dsplit = _make_split("dsplit", 3, 2)


def column_stack(tensors: Any) -> Tensor:
    """Tensors as columns: 0-d and 1-d ones become (n, 1), then joined along dim 1."""
    ts, _ = _seq_or_args((tensors,), "column_stack")
    return cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in ts], 1)


def dstack(tensors: Any) -> Tensor:
    """Tensors joined along a third dim (each lifted by atleast_3d)."""
    ts, _ = _seq_or_args((tensors,), "dstack")
    return cat(list(atleast_3d(list(ts))), 2)


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the given 0-, 1- or 2-dim tensors (dtypes promoted)."""
    blocks = []
    for i, t in enumerate(tensors):
        tensor_arg(t, "block_diag", "tensors")
        if t.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                f"{t.ndim} dimensions"
            )
        blocks.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not blocks:
        return zeros(1, 0)
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = _C.promote_types(dtype, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [zeros(r, left, dtype=dtype), b.to(dtype), zeros(r, width - left - c, dtype=dtype)]
        rows.append(cat(parts, 1))
        left += c
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element of each 1-D tensor, as the rows of a matrix."""
    for t in tensors:
        tensor_arg(t, "cartesian_prod", "tensors")
        if t.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape " + str(list(t.shape)))
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a 1-D tensor's elements, as rows (itertools' order)."""
    tensor_arg(input, "combinations")
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input.new_empty(0, r)
    flat = as_tensor([i for row in rows for i in row])
    return input.index_select(0, flat).reshape(len(rows), r)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """input rotated by k * 90 degrees in the plane of dims, from dims[0] towards dims[1]."""
    tensor_arg(input, "rot90")
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (wrap_dim(d, input.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates in `shape` of flat indices (a tuple of tensors, one per dim)."""
    if not isinstance(indices, TensorBase):
        indices = as_tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.name == "bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    dims = int_seq(shape, "unravel_index", "shape")
    if any(s < 0 for s in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {dims}")
    coords = []
    rest = indices.long()
    for s in reversed(dims):
        coords.append(rest.remainder(s) if s else rest * 0)
        rest = rest.floor_divide(s) if s else rest
    return tuple(reversed(coords))


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D x: columns x**(N-1), ..., x**0 (reversed when
    increasing); integers stay int64."""
    tensor_arg(x, "vander", "x")
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.dtype.is_floating_point else x.long()
    if n == 0:
        return base.new_empty(x.shape[0], 0)
    cols = cat([base.new_ones(x.shape[0], 1), base.unsqueeze(1).expand(-1, n - 1)], 1)
    powers = cols.cumprod(1)
    return powers if increasing else powers.flip([1])
