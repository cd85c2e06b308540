"""Public view, joining and index functions (reshape, permute, cat, split, gather, ...)."""

from __future__ import annotations

import builtins
from typing import Any, Sequence

from sdk import _C
from sdk._dtype import contiguous_format
from sdk._ops_common import (
    TensorBase,
    broadcast_shapes,
    int_seq,
    needs_grad,
    record,
    tensor_arg,
    wrap_dim,
)
from sdk._ops_creation import check_memory_format

Tensor = Any


def _shape_args(shape: tuple, op: str) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    for s in shape:
        if isinstance(s, bool) or not hasattr(s, "__index__"):
            raise TypeError(
                f"{op}(): argument 'size' must be a tuple of ints, not {type(s).__name__}"
            )
    return tuple(s.__index__() for s in shape)


def view(self: Tensor, *shape: Any) -> Tensor:
    """A view with a new shape (one size may be -1); fails when strides forbid it."""
    size = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    if size.__class__.__name__ == "dtype":
        # The same bytes read as a dtype of the same item size. Not differentiable (nor is
        # torch's across dtypes); refused under autograd, whose in-place checks it would skip.
        if size is self.dtype:
            return view(self, self.shape)
        if needs_grad(self):
            raise RuntimeError(f"view({size}): not supported on a tensor that requires grad; "
                               "call detach() first")  # fmt: skip
        return _C.view_dtype(self, size)
    r = _C.view(self, size)  # C validates the sizes (TypeError naming view and 'size')
    if needs_grad(self):
        record("view", (self,), r, size=tuple(size))
    return r


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """A view when possible, else a copy, with the new shape (one size may be -1)."""
    size = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    r = _C.reshape(input, size)
    if needs_grad(input):
        record("reshape", (input,), r, shape=tuple(size))
    return r


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, tuple(tensor_arg(other, "view_as", "other").shape))


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, tuple(tensor_arg(other, "reshape_as", "other").shape))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (a view)."""
    tensor_arg(input, "transpose")
    n = input.ndim
    d0, d1 = wrap_dim(dim0, n, "transpose"), wrap_dim(dim1, n, "transpose")
    r = _C.transpose(input, d0, d1)
    if needs_grad(input):
        record("transpose", (input,), r, dim0=d0, dim1=d1)
    return r


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose of a 2-D tensor (0-D and 1-D are returned as they are)."""
    tensor_arg(input, "t")
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    if input.ndim < 2:
        return _alias_view(input)
    return transpose(input, 0, 1)


def _alias_view(x: Tensor) -> Tensor:
    r = _C.view(x, tuple(x.shape))
    if needs_grad(x):
        record("view", (x,), r, size=tuple(x.shape))
    return r


def permute(input: Tensor, *dims: Any) -> Tensor:
    """Reorder dims (a view)."""
    tensor_arg(input, "permute")
    d = tuple(wrap_dim(x, input.ndim, "permute") for x in _shape_args(dims, "permute"))
    if sorted(d) != list(range(input.ndim)):
        raise RuntimeError(f"permute(): dims {d} are not a permutation of {input.ndim} dims")
    r = _C.permute(input, d)
    if needs_grad(input):
        record("permute", (input,), r, dims=d)
    return r


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dims at source to destination (a permute)."""
    n = input.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise _C.InvalidArgumentError(
            "movedim: source and destination must have the same number of dims"
        )
    src = [wrap_dim(s, n, "movedim") for s in src]
    dst = [wrap_dim(s, n, "movedim") for s in dst]
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({ds})")
    if n == 0:
        return permute(input, ())  # dims 0 / -1 of a 0-dim tensor: nothing moves
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(input, order)


moveaxis = movedim


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """input's elements start:start+length along dim (a view)."""
    tensor_arg(input, "narrow")
    d = wrap_dim(dim, input.ndim, "narrow")
    size = input.shape[d]
    if start < -size or start > size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    s = start + size if start < 0 else start
    if length < 0 or s + length > size:
        raise RuntimeError(f"start ({s}) + length ({length}) exceeds dimension size ({size}).")
    r = _C.slice(input, d, s, s + length, 1)
    if needs_grad(input):
        record("narrow", (input,), r, dim=d, start=s, length=length)
    return r


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """Index `index` of dim, which is removed (a view)."""
    tensor_arg(input, "select")
    d = wrap_dim(dim, input.ndim, "select")
    size = input.size(d)
    if index < -size or index >= size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    i = index + size if index < 0 else index
    r = _C.select(input, d, i)
    if needs_grad(input):
        record("select", (input,), r, dim=d, index=i)
    return r


def slice_dim(input: Tensor, dim: int, start: Any, end: Any, step: int) -> Tensor:
    """input[..., start:end:step, ...] along dim, Python clamping (used by indexing)."""
    if step <= 0:
        raise _C.InvalidArgumentError("step must be greater than zero")
    step = builtins.min(step, 2**63 - 1)  # any step past the size takes one element (as Python)
    size = input.shape[dim]
    s, e, _ = builtins.slice(start, end, step).indices(size)
    e = builtins.max(e, s)
    r = _C.slice(input, dim, s, e, step)
    if needs_grad(input):
        record("slice", (input,), r, dim=dim, start=s, end=e, step=step)
    return r


def _split_record(op: str, input: Tensor, parts: tuple, dim: int) -> tuple:
    if needs_grad(input):
        record(op, (input,), parts, dim=dim)
    return parts


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple:
    """Pieces of the listed sizes along dim (they must sum to its size)."""
    if isinstance(split_sizes, int):
        raise TypeError("split_with_sizes(): argument 'split_sizes' must be a list of ints")
    return split(input, list(split_sizes), dim)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Pieces of split_size along dim (last may be smaller), or of the listed sizes."""
    tensor_arg(tensor, "split", "tensor")
    d = wrap_dim(dim, tensor.ndim, "split")
    size = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and not (step == 0 and size == 0):
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={step}"
            )
        sizes = [step] * (size // step) + ([size % step] if size % step else []) if step else [0]
        sizes = sizes or [0]  # an empty dim splits into one empty piece, as in torch
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
    parts = _C.split_with_sizes(tensor, sizes, d)
    return _split_record("split", tensor, parts, d)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split into `chunks` pieces of ceil(size / chunks) along dim."""
    tensor_arg(input, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input.ndim, "chunk")
    size = input.shape[d]
    if size == 0:
        sizes = [0] * chunks  # torch keeps the number of chunks when they are all empty
    else:
        step = -(-size // chunks)
        sizes = [step] * (size // step) + ([size % step] if size % step else [])
    parts = _C.split_with_sizes(input, sizes, d)
    return _split_record("chunk", input, parts, d)


_MAX_EMPTY_SECTIONS = 1 << 16


def _split_points(indices_or_sections: Any, size: int) -> list:
    """tensor_split's boundaries: n near-equal sections (the first size % n one longer), or
    the given indices (Python slice clamping, so out-of-order ones give empty pieces)."""
    arg = indices_or_sections
    if isinstance(arg, TensorBase):
        if arg.dtype.is_floating_point or arg.dtype.name == "bool" or arg.ndim > 1:
            raise TypeError(
                "tensor_split(): expected tensor_indices_or_sections to be a zero-dimensional "
                f"or one-dimensional tensor of integers, got {arg.dtype} of {arg.ndim} dims"
            )
        arg = arg.item() if arg.ndim == 0 else arg.tolist()
    if isinstance(arg, bool) or not (hasattr(arg, "__index__") or isinstance(arg, (list, tuple))):
        raise TypeError(
            "tensor_split(): argument 'indices_or_sections' must be int or a sequence of ints, "
            f"not {type(arg).__name__}"
        )
    if not isinstance(arg, (list, tuple)):
        n = arg.__index__()
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        if n > builtins.max(size, _MAX_EMPTY_SECTIONS):  # each section is a tensor object
            raise ValueError(
                f"tensor_split: {n} sections of a dim of size {size} would be mostly empty "
                f"tensors; at most max(size, {_MAX_EMPTY_SECTIONS}) are supported"
            )
        q, r = divmod(size, n)
        return [i * q + builtins.min(i, r) for i in range(1, n)]
    bad = [i for i in arg if isinstance(i, bool) or not hasattr(i, "__index__")]
    if bad:
        raise TypeError(f"tensor_split(): indices must be ints, got {type(bad[0]).__name__}")
    return [i.__index__() for i in arg]


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Views of input split along dim into n sections or at the given indices (torch's
    tensor_split: unlike split, sections may differ by one and indices may repeat)."""
    tensor_arg(input, "tensor_split")
    d = wrap_dim(dim, input.ndim, "tensor_split")
    points = _split_points(indices_or_sections, input.shape[d])
    bounds = [None, *points, None]
    return tuple(slice_dim(input, d, bounds[i], bounds[i + 1], 1) for i in range(len(points) + 1))


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """All slices along dim, as a tuple (dim removed)."""
    tensor_arg(input, "unbind")
    d = wrap_dim(dim, input.ndim, "unbind")
    parts = tuple(_C.select(input, d, i) for i in range(input.shape[d]))
    return _split_record("unbind", input, parts, d)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim at dim."""
    tensor_arg(input, "unsqueeze")
    d = wrap_dim(dim, input.ndim + 1, "unsqueeze")
    r = _C.unsqueeze(input, d)
    if needs_grad(input):
        record("unsqueeze", (input,), r, dim=d)
    return r


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove size-1 dims (all of them, or those listed in dim)."""
    tensor_arg(input, "squeeze")
    if dim is not None:
        dims = dim if isinstance(dim, (list, tuple)) else (dim,)
        dim = tuple(wrap_dim(x, input.ndim, "squeeze") for x in dims)
    r = _C.squeeze(input, dim)
    if needs_grad(input):
        record("squeeze", (input,), r, dim=dim)
    return r


def expand(self: Tensor, *sizes: Any) -> Tensor:
    """Broadcast to sizes without copying (-1 keeps a size)."""
    size = _shape_args(sizes, "expand")
    r = _C.expand(self, size)
    if needs_grad(self):
        record("expand", (self,), r, size=size)
    return r


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, tuple(tensor_arg(other, "expand_as", "other").shape))


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    return expand(input, int_seq(size, "broadcast_to"))


def broadcast_tensors(*tensors: Tensor) -> tuple:
    shape = broadcast_shapes(
        *(tensor_arg(t, "broadcast_tensors", "tensors").shape for t in tensors)
    )
    return tuple(expand(t, shape) for t in tensors)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims start_dim..end_dim into one."""
    tensor_arg(input, "flatten")
    n = input.ndim
    s, e = wrap_dim(start_dim, n, "flatten"), wrap_dim(end_dim, n, "flatten")
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    r = _C.flatten(input, s, e)
    if needs_grad(input):
        record("flatten", (input,), r, start_dim=s, end_dim=e)
    return r


def ravel(input: Tensor) -> Tensor:
    return reshape(input, -1)


def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    """self when contiguous, else a contiguous copy."""
    if memory_format is not None and memory_format is not contiguous_format:
        raise TypeError(
            f"contiguous(): memory_format must be sdk.contiguous_format, got {memory_format!r}"
        )
    r = _C.contiguous(self)
    if r is not self and needs_grad(self):
        record("contiguous", (self,), r)
    return r


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy in fresh memory, laid out as input is when it is dense (a transposed input
    gives a transposed copy, torch's preserve_format); row-major with
    memory_format=sdk.contiguous_format."""
    if check_memory_format(memory_format, "clone"):
        r = _C.copy_(_C.empty_like(input, None, True), input)
    else:
        r = _C.clone(input)
    if needs_grad(input):
        record("clone", (input,), r)
    return r


# ------------------------------------------------------------------------------ joining


def _tensors(tensors: Any, op: str) -> list:
    if isinstance(tensors, TensorBase) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{op}(): argument 'tensors' must be tuple of Tensors, not {type(tensors).__name__}"
        )
    if not tensors:
        raise _C.InvalidArgumentError(f"{op}(): expected a non-empty list of Tensors")
    return list(tensors)


def cat(tensors: Any, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Concatenate along an existing dim."""
    ts = _tensors(tensors, "cat")
    if out is not None:
        return _C.cat(ts, dim, out)
    r = _C.cat(ts, dim)
    if needs_grad(ts):
        ref = builtins.max(ts, key=lambda x: x.ndim)
        record("cat", (ts,), r, dim=wrap_dim(dim, ref.ndim, "cat"))
    return r


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join same-shaped tensors along a new dim."""
    ts = _tensors(tensors, "stack")
    if out is not None:
        return _C.stack(ts, dim, out)
    r = _C.stack(ts, dim)
    if needs_grad(ts):
        record("stack", (ts,), r, dim=wrap_dim(dim, ts[0].ndim + 1, "stack"))
    return r


def _all_tensors(tensors: Any, op: str) -> list:
    ts = _tensors(tensors, op)
    for i, t in enumerate(ts):
        if not isinstance(t, TensorBase):
            raise TypeError(
                f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return ts


def hstack(tensors: Any) -> Tensor:
    ts = _all_tensors(tensors, "hstack")
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    ts = [x if x.ndim > 1 else reshape(x, 1, -1) for x in _all_tensors(tensors, "vstack")]
    return cat(ts, 0)


# ------------------------------------------------------------------------------ indexing


def index_select(input: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Entries of input at the 1-D integer index along dim."""
    tensor_arg(input, "index_select")
    d = wrap_dim(dim, input.ndim, "index_select")
    if out is not None:
        return _C.index_select(input, d, index, out)
    r = _C.index_select(input, d, index)
    if needs_grad(input):
        record("index_select", (input, index), r, dim=d)
    return r


def gather(input: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor:
    """out[i][j] = input[index[i][j]][j] for dim 0 (and likewise for other dims)."""
    tensor_arg(input, "gather")
    d = wrap_dim(dim, input.ndim, "gather")
    if out is not None:
        return _C.gather(input, d, index, out)
    r = _C.gather(input, d, index)
    if needs_grad(input):
        record("gather", (input, index), r, dim=d)
    return r


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """Coordinates of nonzero elements: (count, ndim) int64, or a tuple of 1-D tensors."""
    r = _C.nonzero(input)
    if not as_tuple:
        return r
    if input.ndim == 0:
        return (_C.reshape(r, (-1,)),)
    return tuple(_C.select(r, 1, i) for i in range(input.ndim))


def argwhere(input: Tensor) -> Tensor:
    return _C.nonzero(input)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero() as a (size, ndim) tensor: the first `size` coordinates, padded with rows of
    fill_value when there are fewer."""
    tensor_arg(input, "nonzero_static")
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be a non-negative int, got {size!r}")
    r = _C.nonzero(input)
    found = r.shape[0]
    if found >= size:
        return r.narrow(0, 0, size).clone()
    pad = _C.full((size - found, r.shape[1]), fill_value, r.dtype)
    return cat([r, pad], 0)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:  # fmt: skip
    """The n-th forward difference along dim (out[i] = in[i + 1] - in[i], applied n times),
    after prepend/append are joined to input there; != for bool tensors, as torch."""
    tensor_arg(input, "diff")
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"diff(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = wrap_dim(dim, input.ndim, "diff")
    parts = [p for p in (prepend, input, append) if p is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        hi, lo = narrow(x, d, 1, size - 1), narrow(x, d, 0, size - 1)
        x = hi != lo if x.dtype.name == "bool" else hi - lo
    return x


# torch's other names: row_stack is vstack; the unsafe_* splits differ from chunk and split
# only in how torch's autograd tracks the pieces as views, which has no counterpart here.
row_stack = vstack
unsafe_chunk = chunk
unsafe_split = split
unsafe_split_with_sizes = split_with_sizes
