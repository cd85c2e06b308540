"""The view ops' copying forms (torch's *_copy functions, narrow_copy), their scatter
inverses (select/slice/diagonal/as_strided_scatter), sum_to_size and fill_diagonal_.

The scatters place src through the flat positions the view would read (index_copy on the
flattened input), so they are differentiable in both input and src."""

from __future__ import annotations

import builtins
import math
from typing import Any, Callable

from sdk import _C, _indexing, _ops_compose, _ops_layout, _ops_shape
from sdk._dtype import int64
from sdk._interop import tensor as as_tensor
from sdk._ops_common import int_seq, sizes_arg, tensor_arg, wrap_dim
from sdk._ops_creation import empty_strided

Tensor = Any  # the public class lives in sdk._tensor; annotations only


def _clone_result(r: Any) -> Any:
    if isinstance(r, (tuple, list)):
        return tuple(t.clone() for t in r)
    return r.clone()


def _make_copy(name: str, view: Callable[..., Any]) -> Callable[..., Any]:
    def op(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        tensor_arg(input, name)
        return _clone_result(view(input, *args, **kwargs))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{view.__name__} as a new tensor owning its memory (torch.{name})."
    return op


def _slice(input: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1):
    d = wrap_dim(dim, input.ndim, "slice")
    index = [builtins.slice(None)] * input.ndim
    index[d] = builtins.slice(start, end, step)
    return input[tuple(index)]


def _expand(input: Tensor, size: Any, *, implicit: bool = False) -> Tensor:
    return input.expand(*int_seq(size, "expand_copy"))


def _alias(input: Tensor) -> Tensor:
    return input.view(input.shape)


alias_copy = _make_copy("alias_copy", _alias)
as_strided_copy = _make_copy("as_strided_copy", _ops_compose.as_strided)
detach_copy = _make_copy("detach_copy", lambda input: input.detach())
diagonal_copy = _make_copy("diagonal_copy", _ops_layout.diagonal)
expand_copy = _make_copy("expand_copy", _expand)
narrow_copy = _make_copy("narrow_copy", _ops_shape.narrow)
permute_copy = _make_copy("permute_copy", _ops_shape.permute)
select_copy = _make_copy("select_copy", _ops_shape.select)
slice_copy = _make_copy("slice_copy", _slice)
split_copy = _make_copy("split_copy", _ops_shape.split)
split_with_sizes_copy = _make_copy("split_with_sizes_copy", _ops_shape.split_with_sizes)
squeeze_copy = _make_copy("squeeze_copy", _ops_shape.squeeze)
t_copy = _make_copy("t_copy", _ops_shape.t)
transpose_copy = _make_copy("transpose_copy", _ops_shape.transpose)
unbind_copy = _make_copy("unbind_copy", _ops_shape.unbind)
unfold_copy = _make_copy("unfold_copy", _ops_layout.unfold)
unsqueeze_copy = _make_copy("unsqueeze_copy", _ops_shape.unsqueeze)
view_copy = _make_copy("view_copy", _ops_shape.view)


# ------------------------------------------------------------------------------ scatters


def _scatter_through(op: str, input: Tensor, src: Tensor, view: Callable[[Tensor], Tensor]):
    """input with the elements that view(input) reads replaced by src."""
    tensor_arg(input, op)
    tensor_arg(src, op, "src")
    positions = view(_C.arange(0, input.numel(), 1, int64).reshape(input.shape))
    if tuple(positions.shape) != tuple(src.shape):
        raise RuntimeError(
            f"{op}: expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(positions.shape)}"
        )
    flat = input.reshape(-1).index_copy(0, positions.reshape(-1), src.to(input.dtype).reshape(-1))
    return flat.reshape(input.shape)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """input with input.select(dim, index) replaced by src."""
    return _scatter_through("select_scatter", input, src, lambda t: t.select(dim, index))


def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Tensor:
    """input with the slice start:end:step of dim replaced by src."""
    return _scatter_through("slice_scatter", input, src, lambda t: _slice(t, dim, start, end, step))


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """input with its diagonal (offset, dim1, dim2) replaced by src."""
    return _scatter_through(
        "diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2)
    )


def as_strided_scatter(
    input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None
) -> Tensor:
    """input with the elements as_strided(size, stride, storage_offset) reads (over input's
    row-major layout) replaced by src."""
    return _scatter_through(
        "as_strided_scatter", input, src,
        lambda t: _ops_compose.as_strided(t, size, stride, storage_offset),
    )  # fmt: skip


# ------------------------------------------------------------------------------ others


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """self summed down to `size`, which self's shape must broadcast from."""
    target = sizes_arg(size, "sum_to_size")
    shape = tuple(self.shape)
    lead = len(shape) - len(target)
    ok = lead >= 0 and all(t in (s, 1) for s, t in zip(shape[lead:], target))
    if not ok:
        raise RuntimeError(f"size {list(target)} is not expandable to size {list(shape)}")
    dims = [i for i in range(len(shape)) if i < lead or (target[i - lead] == 1 and shape[i] != 1)]
    out = self.sum(dims, keepdim=True) if dims else self
    return out.reshape(target)


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Write fill_value on the main diagonal (all dims equal beyond 2 dims); a tall matrix
    with wrap=True restarts the diagonal every columns + 1 rows."""
    tensor_arg(self, "fill_diagonal_", "self")
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if self.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(shape)
    if self.ndim == 2 and wrap and shape[0] > shape[1] + 1:
        flat = range(0, math.prod(shape), shape[1] + 1)
        rows, cols = [p // shape[1] for p in flat], [p % shape[1] for p in flat]
        coords = (as_tensor(rows), as_tensor(cols))
    else:
        coords = (_C.arange(0, n, 1, int64),) * self.ndim
    return _indexing.index_put_(self, coords, _fill_value(fill_value, self))


def _fill_value(v: Any, like: Tensor) -> Tensor:
    return v if isinstance(v, _C.TensorBase) else _C.full((), v, like.dtype)


def new_empty_strided(
    self: Tensor, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
    requires_grad: bool = False, **kw: Any,
) -> Tensor:  # fmt: skip
    """An uninitialized tensor of the given size and strides, with self's dtype and device
    by default."""
    return empty_strided(
        size, stride, dtype=dtype or self.dtype, device=device or self.device,
        requires_grad=requires_grad, **kw,
    )  # fmt: skip
