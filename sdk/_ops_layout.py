"""Public reordering and layout functions: flip, roll, tril/triu, diagonal, diag, diag_embed,
repeat_interleave, unfold, resize_ (with autograd hooks)."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._dtype import int64
from sdk._interop import _check_device, tensor
from sdk._ops_common import (
    TensorBase,
    check_inplace,
    int_seq,
    needs_grad,
    record,
    tensor_arg,
    wrap_dim,
)

Tensor = Any


def _dims_arg(args: tuple, dims: Any, op: str) -> tuple:
    """flip(x, 0, 1), flip(x, (0, 1)), flip(x, dims=[0, 1]) -> (0, 1) as given."""
    if dims is not None:
        if args:
            raise TypeError(f"{op}(): got dims both positionally and as a keyword")
        args = (dims,)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    out = []
    for d in args:
        if isinstance(d, bool) or not hasattr(d, "__index__") or isinstance(d, TensorBase):
            raise TypeError(
                f"{op}(): argument 'dims' must be a tuple of ints, not {type(d).__name__}"
            )
        out.append(d.__index__())
    return tuple(out)


def flip(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """A copy of input with the order of elements along dims reversed."""
    tensor_arg(input, "flip")
    ds = _dims_arg(args, dims, "flip")
    r = _C.flip(input, ds)
    if needs_grad(input):
        record("flip", (input,), r, dims=ds)
    return r


def fliplr(input: Tensor) -> Tensor:
    """flip along dim 1 (input needs at least 2 dims)."""
    if tensor_arg(input, "fliplr").ndim < 2:
        raise _C.InvalidArgumentError("fliplr(): input must have at least 2 dimensions")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """flip along dim 0 (input needs at least 1 dim)."""
    if tensor_arg(input, "flipud").ndim < 1:
        raise _C.InvalidArgumentError("flipud(): input must have at least 1 dimension")
    return flip(input, (0,))


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """input with elements shifted by shifts along dims, wrapping around (the flattened input,
    shape kept, when dims is None)."""
    tensor_arg(input, "roll")
    sh = int_seq(shifts, "roll", "shifts")
    ds = () if dims is None else int_seq(dims, "roll", "dims")
    r = _C.roll(input, sh, ds)
    if needs_grad(input):
        record("roll", (input,), r, shifts=sh, dims=ds)
    return r


def _triangle(op: str, input: Tensor, diagonal: int, out: Any) -> Tensor:
    tensor_arg(input, op)
    k = diagonal.__index__() if hasattr(diagonal, "__index__") else diagonal
    name = op.rstrip("_")
    inplace = out is input
    g = needs_grad(input)
    if g and out is not None and not inplace:
        raise RuntimeError(f"{op}(): out= does not support automatic differentiation")
    if g and inplace:
        check_inplace(input)
    fn = getattr(_C, name)
    r = fn(input, k, out) if out is not None else fn(input, k)
    if g:
        record(op, (input,), r, diagonal=k)
    return r


def tril(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The lower triangle of the last two dims (col - row <= diagonal), the rest zero."""
    return _triangle("tril", input, diagonal, out)


def triu(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The upper triangle of the last two dims (col - row >= diagonal), the rest zero."""
    return _triangle("triu", input, diagonal, out)


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle("tril_", self, diagonal, self)


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle("triu_", self, diagonal, self)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes as a view: those dims are removed and the
    diagonal becomes the last dim (offset > 0 above the main diagonal, < 0 below)."""
    tensor_arg(input, "diagonal")
    r = _C.diagonal(input, offset, dim1, dim2)
    if needs_grad(input):
        n = input.ndim
        record(
            "diagonal",
            (input,),
            r,
            offset=offset,
            dim1=wrap_dim(dim1, n, "diagonal"),
            dim2=wrap_dim(dim2, n, "diagonal"),
        )
    return r


_diagonal = diagonal  # for diag(), whose argument is named `diagonal` as in torch


def _zeros(shape: tuple, like: Tensor) -> Tensor:
    z = _C.full(shape, 0, like.dtype)
    return z if not like.is_cuda else z.to(like.device)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose (dim1, dim2) planes have input's last dim on their diagonal (offset
    as in diagonal), zeros elsewhere."""
    tensor_arg(input, "diag_embed")
    n = input.ndim + 1
    d1, d2 = wrap_dim(dim1, n, "diag_embed"), wrap_dim(dim2, n, "diag_embed")
    if d1 == d2:
        raise _C.InvalidArgumentError(
            f"diag_embed(): diagonal dimensions cannot be identical {dim1}, {dim2}"
        )
    size = (input.shape[-1] if input.ndim else 1) + abs(offset)
    shape = list(input.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, size)
    out = _zeros(tuple(shape), input)
    _C.copy_(_C.diagonal(out, offset, d1, d2), input)
    if needs_grad(input):
        record("diag_embed", (input,), out, offset=offset, dim1=d1, dim2=d2)
    return out


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """1-D input: a square matrix with input on the given diagonal; 2-D input: a copy of
    that diagonal."""
    tensor_arg(input, "diag")
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        return _diagonal(input, diagonal, 0, 1).clone()
    raise _C.InvalidArgumentError(f"diag(): expected a 1-D or 2-D input, got {input.ndim}-D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """diag of the flattened input."""
    return diag_embed(tensor_arg(input, "diagflat").reshape(-1), offset, 0, 1)


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:  # fmt: skip
    """Each element (or slice along dim) repeated `repeats` times (an int, or a tensor with
    one count per slice); repeat_interleave(repeats) alone gives arange(len(repeats))
    repeated."""
    tensor_arg(input, "repeat_interleave")
    if repeats is None:  # the one-argument form: the counts are `input`
        return _C.repeat_interleave(None, input, None)
    x = input if dim is not None else input.reshape(-1)
    d = 0 if dim is None else wrap_dim(dim, input.ndim, "repeat_interleave")
    if x.ndim == 0:
        x, d = x.reshape(1), 0
    if not isinstance(repeats, TensorBase):
        r = repeats.__index__() if hasattr(repeats, "__index__") else repeats
        if not isinstance(r, int) or isinstance(r, bool):
            raise TypeError(
                "repeat_interleave(): argument 'repeats' must be an int or a Tensor, not "
                f"{type(repeats).__name__}"
            )
        if r < 0:
            raise _C.InvalidArgumentError("repeat_interleave(): repeats can not be negative")
        # a view with a repeat dim after d, expanded and merged: the ops record themselves
        shape = list(x.shape)
        out_shape = shape[:d] + [shape[d] * r] + shape[d + 1 :]
        y = x.unsqueeze(d + 1).expand(tuple(shape[: d + 1] + [r] + shape[d + 1 :]))
        result = y.reshape(tuple(out_shape))
    else:
        result = _C.repeat_interleave(x, repeats, d)
        if needs_grad(x):
            record("repeat_interleave", (x, repeats), result, dim=d)
    if output_size is not None and result.shape[d] != output_size:
        raise _C.InvalidArgumentError(
            f"repeat_interleave(): output_size {output_size} does not match the repeats' total "
            f"{result.shape[d]}"
        )
    return result


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of `size` elements along dimension, `step` apart, as a view: that dim
    counts the windows and a last dim of `size` is appended."""
    tensor_arg(self, "unfold")
    r = _C.unfold(self, dimension, size, step)
    if needs_grad(self):
        d = wrap_dim(dimension, self.ndim, "unfold")
        record("unfold", (self,), r, dimension=d, size=size, step=step)
    return r


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """Give self new sizes in place (contiguous strides); a larger size grows the storage,
    whose new elements are uninitialised."""
    tensor_arg(self, "resize_")
    if memory_format is not None:
        raise NotImplementedError("resize_(): memory_format is not supported")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    return _C.resize_(self, int_seq(tuple(sizes), "resize_"))


def resize_as_(self: Tensor, the_template: Tensor) -> Tensor:
    """resize_ to the shape of the_template."""
    return resize_(self, tuple(tensor_arg(the_template, "resize_as_", "the_template").shape))


# ---- in-place geometry (torch's transpose_, t_, squeeze_, unsqueeze_, as_strided_) ----


def _regeometry_(self: Tensor, op: str, view: Any) -> Tensor:
    """self takes the geometry of `view()` (one of its views) in place."""
    tensor_arg(self, op)
    _check_untracked(self, op)
    v = view()
    return _C.as_strided_(self, tuple(v.shape), v.stride(), v.storage_offset())


def _check_untracked(self: Tensor, op: str) -> None:
    # refused for a tensor autograd tracks, whose recorded history would no longer match
    if needs_grad(self):
        raise RuntimeError(
            f"{op}(): changing the geometry of a tensor that requires grad in place is not "
            f"supported; use the out-of-place {op[:-1]}()"
        )


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """transpose in place: self's strides change, its data stays."""
    return _regeometry_(self, "transpose_", lambda: self.transpose(dim0, dim1))


def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _regeometry_(self, "swapdims_", lambda: self.transpose(dim0, dim1))


def t_(self: Tensor) -> Tensor:
    return _regeometry_(self, "t_", lambda: self.t())


def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    return _regeometry_(
        self, "squeeze_", lambda: self.squeeze() if dim is None else self.squeeze(dim)
    )


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _regeometry_(self, "unsqueeze_", lambda: self.unsqueeze(dim))


def as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Tensor:
    """self takes these sizes, strides and storage offset (default: its own) in place, within
    its storage."""
    tensor_arg(self, "as_strided_")
    _check_untracked(self, "as_strided_")
    offset = self.storage_offset() if storage_offset is None else storage_offset
    return _C.as_strided_(self, int_seq(tuple(size), "as_strided_"),
                          int_seq(tuple(stride), "as_strided_"), offset)  # fmt: skip


def _triangle_indices(
    op: str, row: int, col: int, offset: int, dtype: Any, device: Any, lower: bool
) -> Tensor:
    """The (2, N) row-major coordinates of a row x col matrix's lower or upper triangle."""
    _check_device(device, op)
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}: row and col must be non-negative, got row={row}, col={col}")
    pairs = [
        (r, c) for r in range(row) for c in range(col)
        if (c - r <= offset if lower else c - r >= offset)
    ]  # fmt: skip
    coords = [[r for r, _ in pairs], [c for _, c in pairs]]
    t = tensor(coords, dtype=int64 if dtype is None else dtype)
    return t.reshape(2, len(pairs))


def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
    layout: Any = None,
) -> Tensor:  # fmt: skip
    """The coordinates of tril(ones(row, col), offset)'s nonzeros: a (2, N) int64 tensor."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
    layout: Any = None,
) -> Tensor:  # fmt: skip
    """The coordinates of triu(ones(row, col), offset)'s nonzeros: a (2, N) int64 tensor."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, False)
