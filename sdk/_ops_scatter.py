"""Public scatter and index functions beyond gather/index_select: scatter, scatter_add,
scatter_reduce, index_add, index_copy, index_fill, masked_select, masked_scatter, take,
take_along_dim, with autograd hooks. In-place forms write through the core's `out == input` convention."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._ops_common import (
    TensorBase,
    check_inplace,
    needs_grad,
    record,
    tensor_arg,
    wrap_dim,
)
from sdk._ops_shape import broadcast_shapes, clone

Tensor = Any

# scatter_reduce's reduce names -> the reduction codes the core takes (SDK_REDUCE_OPS).
_REDUCE = {n: _C.REDUCE_OPS[n] for n in ("sum", "prod", "mean", "amax", "amin")}
# scatter_'s legacy reduce= names
_LEGACY_REDUCE = {"add": "sum", "multiply": "prod"}


def _value(value: Any, op: str) -> Any:
    """A Python number from a number or a one-element tensor (torch accepts 0-dim tensors)."""
    if isinstance(value, TensorBase):
        if value.numel() != 1:
            raise _C.InvalidArgumentError(
                f"{op}(): value must be a number or a 0-dim tensor, got a tensor of shape "
                f"{tuple(value.shape)}"
            )
        return value.item()
    return value


def _scatter(op: str, input: Tensor, dim: int, index: Tensor, src: Any, reduce: Any, out: Any):
    tensor_arg(input, op)
    tensor_arg(index, op, "index")
    d = wrap_dim(dim, input.ndim, op)
    if reduce is not None:
        name = _LEGACY_REDUCE.get(reduce)
        if name is None:
            raise _C.InvalidArgumentError(
                f"{op}(): reduce argument must be either 'add' or 'multiply', got {reduce!r}"
            )
        if not isinstance(src, TensorBase):
            src = _C.full(tuple(index.shape), src, input.dtype)
        return _scatter_reduce(op, input, d, index, src, name, True, out)
    is_tensor = isinstance(src, TensorBase)
    if not is_tensor:
        src = _value(src, op)
    inplace = out is input
    g = needs_grad(input, src) if is_tensor else needs_grad(input)
    if g and inplace:
        check_inplace(input)
    r = (
        _C.scatter(input, d, index, src, out)
        if out is not None
        else _C.scatter(input, d, index, src)
    )
    if g:
        inputs = (input, index, src) if is_tensor else (input, index)
        record("scatter_" if inplace else "scatter", inputs, r, dim=d)
    return r


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:  # fmt: skip
    """A copy of input with input[index[i][j]][j] = src[i][j] (dim 0; src a tensor or a
    number). Where indices repeat, which write wins is unspecified (as in torch)."""
    return _scatter("scatter", input, dim, index, value if src is None else src, reduce, None)


def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:  # fmt: skip
    """In-place scatter; reduce='add' or 'multiply' accumulates instead of writing."""
    return _scatter("scatter_", self, dim, index, value if src is None else src, reduce, self)


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """self[index[i][j]][j] += src[i][j] for dim 0, repeated indices accumulate."""
    tensor_arg(self, "scatter_add_")
    d = wrap_dim(dim, self.ndim, "scatter_add_")
    g = needs_grad(self, src)
    if g:
        check_inplace(self)
    _C.scatter_add_(self, d, index, src)
    if g:
        record("scatter_add_", (self, index, src), self, dim=d)
    return self


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    out = clone(input)
    return scatter_add_(out, dim, index, src)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """self.index_select(dim, index) += alpha * source, accumulating repeated indices."""
    tensor_arg(self, "index_add_")
    d = wrap_dim(dim, self.ndim, "index_add_")
    g = needs_grad(self, source)
    if g:
        check_inplace(self)
    src = source if alpha == 1 else _C.binary(_C.BINARY_OPS["mul"], source, alpha)
    _C.index_add_(self, d, index, src)
    if g:
        record("index_add_", (self, index, source), self, dim=d, alpha=alpha)
    return self


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    out = clone(input)
    return index_add_(out, dim, index, source, alpha=alpha)


def _scatter_reduce(op: str, input: Tensor, d: int, index: Tensor, src: Tensor, reduce: str,
                    include_self: bool, out: Any) -> Tensor:  # fmt: skip
    code = _REDUCE.get(reduce)
    if code is None:
        raise _C.InvalidArgumentError(
            f"{op}(): reduce argument must be one of 'sum', 'prod', 'mean', 'amax', 'amin', "
            f"got {reduce!r}"
        )
    tensor_arg(src, op, "src")
    inplace = out is input
    g = needs_grad(input, src)
    if g and inplace:
        check_inplace(input)
        old = input.clone()
    args = (input, d, index, src, code, bool(include_self))
    r = _C.scatter_reduce(*args, out) if out is not None else _C.scatter_reduce(*args)
    if g:
        record(
            "scatter_reduce",
            (old if inplace else input, index, src),
            r,
            dim=d,
            reduce=reduce,
            include_self=bool(include_self),
        )
    return r


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:  # fmt: skip
    """A copy of input where each src element is combined into input[index...] (positions
    as scatter) by reduce: 'sum', 'prod', 'mean', 'amax' or 'amin'. Without include_self,
    the positions that receive values start from those values alone."""
    tensor_arg(input, "scatter_reduce")
    d = wrap_dim(dim, input.ndim, "scatter_reduce")
    return _scatter_reduce("scatter_reduce", input, d, index, src, reduce, include_self, None)


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:  # fmt: skip
    """In-place scatter_reduce."""
    tensor_arg(self, "scatter_reduce_")
    d = wrap_dim(dim, self.ndim, "scatter_reduce_")
    return _scatter_reduce("scatter_reduce_", self, d, index, src, reduce, include_self, self)


def _index_copy(op: str, input: Tensor, dim: int, index: Tensor, source: Tensor, out: Any):
    tensor_arg(input, op)
    tensor_arg(source, op, "source")
    d = wrap_dim(dim, input.ndim, op)
    inplace = out is input
    g = needs_grad(input, source)
    if g and inplace:
        check_inplace(input)
    r = (
        _C.index_copy(input, d, index, source, out)
        if inplace
        else _C.index_copy(input, d, index, source)
    )
    if g:
        record("index_copy_" if inplace else "index_copy", (input, index, source), r, dim=d)
    return r


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of input with input.index_select(dim, index) replaced by source."""
    return _index_copy("index_copy", input, dim, index, source, None)


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """In-place index_copy."""
    return _index_copy("index_copy_", self, dim, index, source, self)


def _index_fill(op: str, input: Tensor, dim: int, index: Tensor, value: Any, out: Any):
    tensor_arg(input, op)
    d = wrap_dim(dim, input.ndim, op)
    v = _value(value, op)
    inplace = out is input
    g = needs_grad(input)
    if g and inplace:
        check_inplace(input)
    r = _C.index_fill(input, d, index, v, out) if inplace else _C.index_fill(input, d, index, v)
    if g:
        record("index_fill_" if inplace else "index_fill", (input, index), r, dim=d)
    return r


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """A copy of input with the slices at index (negative counts from the end) along dim
    set to value."""
    return _index_fill("index_fill", input, dim, index, value, None)


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In-place index_fill."""
    return _index_fill("index_fill_", self, dim, index, value, self)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of input where the bool mask is true (both broadcast), as a 1-D tensor."""
    tensor_arg(input, "masked_select")
    tensor_arg(mask, "masked_select", "mask")
    r = _C.masked_select(input, mask)
    if needs_grad(input):
        record("masked_select", (input, mask), r)
    return r


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """self's elements where mask (broadcast to self) is true take source's elements, in
    order."""
    tensor_arg(self, "masked_scatter_")
    tensor_arg(mask, "masked_scatter_", "mask")
    tensor_arg(source, "masked_scatter_", "source")
    g = needs_grad(self, source)
    if g:
        check_inplace(self)
    _C.masked_scatter(self, mask, source, self)
    if g:
        record("masked_scatter_", (self, mask, source), self)
    return self


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of input (broadcast with mask) whose elements where mask is true are source's,
    in order."""
    tensor_arg(input, "masked_scatter")
    tensor_arg(mask, "masked_scatter", "mask")
    tensor_arg(source, "masked_scatter", "source")
    shape = tuple(broadcast_shapes(input.shape, mask.shape))
    base = input if tuple(input.shape) == tuple(shape) else input.expand(shape)
    r = _C.masked_scatter(base, mask, source)
    if needs_grad(base, source):
        record("masked_scatter", (base, mask, source), r)
    return r


def take(input: Tensor, index: Tensor) -> Tensor:
    """input read as 1-D (row-major) at index (negative counts from the end), shaped like
    index."""
    tensor_arg(input, "take")
    tensor_arg(index, "take", "index")
    r = _C.take(input, index)
    if needs_grad(input):
        record("take", (input, index), r)
    return r


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """Values of input at indices along dim, indices broadcast with input outside dim (the
    flattened input when dim is None)."""
    tensor_arg(input, "take_along_dim")
    tensor_arg(indices, "take_along_dim", "indices")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = wrap_dim(dim, input.ndim, "take_along_dim")
    if indices.ndim != input.ndim:
        raise _C.InvalidArgumentError(
            f"take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices"
        )
    ishape, xshape = list(indices.shape), list(input.shape)
    ishape[d] = xshape[d] = 1
    common = list(broadcast_shapes(ishape, xshape))
    xs, ix = list(common), list(common)
    xs[d], ix[d] = input.shape[d], indices.shape[d]
    return input.expand(tuple(xs)).gather(d, indices.expand(tuple(ix)))


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:  # fmt: skip
    """A copy of input where source's slices along dim are combined into the slices index
    names by reduce: 'prod', 'mean', 'amax' or 'amin' (scatter_reduce over whole slices)."""
    return _index_reduce("index_reduce", input, dim, index, source, reduce, include_self, None)


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:  # fmt: skip
    return _index_reduce("index_reduce_", self, dim, index, source, reduce, include_self, self)


def _index_reduce(op, input, dim, index, source, reduce, include_self, out):
    tensor_arg(input, op)
    tensor_arg(source, op, "source")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"{op}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    d = wrap_dim(dim, input.ndim, op)
    if index.ndim > 1 or index.numel() != (source.shape[d] if source.ndim else 1):
        raise IndexError(
            f"{op}(): Index should have dimension 1 or 0 and as many elements as source has "
            f"along dim {d} (got {index.numel()})"
        )
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = index.numel()
    positions = index.reshape(shape).expand(source.shape) if source.ndim else index.reshape(())
    return _scatter_reduce(op, input, d, positions, source, reduce, include_self, out)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with the elements at flat positions index (row-major, negative from
    the end) set to source's (added with accumulate)."""
    tensor_arg(input, "put")
    tensor_arg(index, "put", "index")
    tensor_arg(source, "put", "source")
    if index.numel() != source.numel():
        raise RuntimeError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    flat = index.reshape(-1).long()
    if flat.numel() and bool(((flat >= n) | (flat < -n)).any()):
        raise IndexError(f"put_(): index out of range for a tensor of {n} elements")
    flat = flat.remainder(max(n, 1))
    values = source.reshape(-1).to(input.dtype)
    target = input.reshape(-1)
    r = target.index_add(0, flat, values) if accumulate else target.index_copy(0, flat, values)
    return r.reshape(input.shape)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return self.copy_(put(self.clone(), index, source, accumulate))
