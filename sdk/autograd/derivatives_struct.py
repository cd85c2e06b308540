"""Backward formulas of the sorting, scan, scatter/index and reordering ops; their rows are
in derivatives.DERIVATIVES (the formulas live here to keep that file readable).

Same contract as derivatives.py: fn(g, n) returns one gradient (or None) per input; the
formulas use public sdk ops only, so that create_graph=True differentiates them again.
"""

from __future__ import annotations

from typing import Any

import sdk

# Shared with derivatives.py (which imports them from here).


def _sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum g over the dims that broadcasting added or expanded, giving `shape`."""
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gshape[i + lead] != 1:
            dims.append(i + lead)
    if dims:
        g = g.sum(dim=tuple(dims), keepdim=True)
    return g.reshape(shape)


def _unb(g: Any, x: Any) -> Any:
    """g reduced to the shape and dtype of input x; None when x is not a tensor."""
    if g is None or not hasattr(x, "shape"):
        return None
    shape = tuple(x.shape)
    if tuple(g.shape) != shape:
        g = _sum_to(g, shape)
    if g.dtype != x.dtype:
        g = g.to(x.dtype)
    return g


def _zeros(shape: Any, like: Any, dtype: Any = None) -> Any:
    z = sdk.zeros(tuple(shape), dtype=like.dtype if dtype is None else dtype)
    return z.to(like.device) if like.is_cuda else z


def _to_input(g: Any, x: Any) -> Any:
    """g in x's dtype (an op with dtype= may have computed in another)."""
    return g if g is None or g.dtype == x.dtype else g.to(x.dtype)


def _region(t: Any, shape: Any) -> Any:
    """The leading [0, s) block of t in every dim: the part an index of `shape` addresses."""
    if tuple(t.shape) == tuple(shape):
        return t
    return t[tuple(slice(0, s) for s in shape)]


def _pad_to(g: Any, shape: Any) -> Any:
    """g (the leading block) in zeros of `shape`."""
    if tuple(g.shape) == tuple(shape):
        return g
    out = _zeros(shape, g)
    out[tuple(slice(0, s) for s in g.shape)] = g
    return out


# --------------------------------------------------------------------------- sorting, scans


def by_indices(g, n):
    """sort, topk, kthvalue, median, cummax, cummin: each value came from input[indices]
    along dim, so its gradient goes back there (repeated indices accumulate)."""
    gv = g[0] if isinstance(g, list) else g
    if gv is None:
        return (None,)
    x, idx, dim = n.inputs[0], n.result, n.attrs.get("dim")
    if dim is None:  # median of all elements: a flat index
        flat = _zeros((x.numel(),), gv)
        flat.scatter_add_(0, idx.reshape(1), gv.reshape(1))
        return (flat.reshape(tuple(x.shape)),)
    if "keepdim" in n.attrs and not n.attrs["keepdim"] and x.ndim > 0:
        gv, idx = gv.unsqueeze(dim), idx.unsqueeze(dim)
    out = _zeros(x.shape, gv)
    out.scatter_add_(dim, idx, gv)
    return (out,)


def _reverse_cumsum(t: Any, dim: int) -> Any:
    """out[i] = sum of t[j] for j >= i along dim."""
    return t.flip(dim).cumsum(dim).flip(dim)


def cumsum(g, n):
    return (_to_input(_reverse_cumsum(g, n.attrs["dim"]), n.inputs[0]),)


def cumprod(g, n):
    """d out[j] / d x[i] = prod(x[k] for k <= j, k != i) for j >= i. Before a line's first
    zero that is out[j] / x[i]; at the first zero, the product of what precedes it times the
    running product of what follows; after it, zero."""
    x, r, d = n.inputs[0], n.result, n.attrs["dim"]
    g = _to_input(g, x)
    r = _to_input(r, x)
    if x.numel() == 0:
        return (g,)
    zero = x == 0
    seen = zero.to(sdk.int64).cumsum(d)  # zeros up to and including each position
    before = seen == 0
    first = zero.logical_and(seen == 1)
    ones = sdk.ones_like(x)
    safe = sdk.where(before, x, ones)
    grad = sdk.where(before, _reverse_cumsum(g * r, d) / safe, sdk.zeros_like(x))
    if bool(first.any()):
        head = sdk.where(before, x, ones).prod(d, keepdim=True)  # product before the zero
        tail = sdk.where(before.logical_or(first), ones, x).cumprod(d)  # running product after it
        at_zero = (g * tail * (seen >= 1).to(x.dtype)).sum(d, keepdim=True) * head
        grad = sdk.where(first, at_zero.expand(tuple(x.shape)), grad)
    return (grad,)


# --------------------------------------------------------------------------- scatter and index


def scatter(g, n):
    """scatter/scatter_ (inputs: self, index[, src]): overwritten positions get no gradient
    from self; src's elements get the gradient of where they landed."""
    index, dim = n.inputs[1], n.attrs["dim"]
    gx = g.scatter(dim, index, 0) if n.needs(0) else None
    if len(n.inputs) < 3:
        return gx, None
    src = n.inputs[2]
    gs = _pad_to(g.gather(dim, index), src.shape) if n.needs(2) else None
    return gx, None, gs


def _hit(x: Any, dim: int, index: Any) -> Any:
    """True where the scatter wrote."""
    return _zeros(x.shape, x, sdk.bool).scatter(dim, index, True)


def scatter_reduce(g, n):
    x, index, src = n.inputs
    a = n.attrs
    dim, reduce, include_self = a["dim"], a["reduce"], a["include_self"]
    hit = _hit(x, dim, index)
    s = _region(src, index.shape)
    zero = sdk.zeros_like(g)
    keep_self = hit.logical_not() if not include_self else sdk.ones_like(hit)
    if reduce == "sum":
        gx, gs = sdk.where(keep_self, g, zero), g.gather(dim, index)
    elif reduce == "mean":
        count = sdk.where(keep_self, sdk.ones_like(g), zero)
        count = count.scatter_add(dim, index, sdk.ones_like(s))
        share = g / count.clamp(min=1)
        gx, gs = sdk.where(keep_self, share, zero), share.gather(dim, index)
    elif reduce == "prod":
        if bool((x == 0).any()) or bool((s == 0).any()):
            raise NotImplementedError(
                "scatter_reduce(): the derivative of reduce='prod' with zero inputs is not "
                "implemented"
            )
        gr = g * n.result
        gx = sdk.where(keep_self, gr / x, zero)
        gs = gr.gather(dim, index) / s
    else:  # amax, amin: shared evenly among the elements equal to the result
        r = n.result
        from_self = (x == r).logical_and(keep_self)
        from_src = s == r.gather(dim, index)
        count = from_self.to(g.dtype).scatter_add(dim, index, from_src.to(g.dtype))
        share = g / count.clamp(min=1)
        gx = sdk.where(from_self, share, zero)
        gs = sdk.where(from_src, share.gather(dim, index), sdk.zeros_like(s))
    return (
        gx if n.needs(0) else None,
        None,
        _pad_to(gs, src.shape) if n.needs(2) else None,
    )


def index_copy(g, n):
    x, index, source = n.inputs
    dim = n.attrs["dim"]
    gx = g.index_fill(dim, index, 0) if n.needs(0) else None
    gs = g.index_select(dim, index.reshape(-1)).reshape(tuple(source.shape)) if n.needs(2) else None
    return gx, None, gs


def index_fill(g, n):
    return g.index_fill(n.attrs["dim"], n.inputs[1], 0), None


def masked_select(g, n):
    x, mask = n.inputs
    shape = tuple(sdk.broadcast_shapes(x.shape, mask.shape))
    full = _zeros(shape, g).masked_scatter_(mask.expand(shape), g)
    return _unb(full, x), None


def masked_scatter(g, n):
    x, mask, source = n.inputs
    gx = g.masked_fill(mask, 0) if n.needs(0) else None
    gs = None
    if n.needs(2):
        taken = g.masked_select(mask)
        rest = source.numel() - taken.numel()
        if rest:
            taken = sdk.cat([taken, _zeros((rest,), g)])
        gs = taken.reshape(tuple(source.shape))
    return gx, None, gs


def take(g, n):
    x, index = n.inputs
    numel = x.numel()
    idx = index.reshape(-1).to(sdk.int64)
    idx = sdk.where(idx < 0, idx + numel, idx)
    flat = _zeros((numel,), g).index_add_(0, idx, g.reshape(-1))
    return flat.reshape(tuple(x.shape)), None


# --------------------------------------------------------------------------- reordering


def flip(g, n):
    return (g.flip(n.attrs["dims"]),)


def roll(g, n):
    a = n.attrs
    return (g.roll(tuple(-s for s in a["shifts"]), a["dims"] or None),)


def tril(g, n):
    return (g.tril(n.attrs["diagonal"]),)


def triu(g, n):
    return (g.triu(n.attrs["diagonal"]),)


def _through_positions(g: Any, x: Any, view: Any) -> Any:
    """Gradient of a view op: each element of g goes back to the input position it was read
    from (`view` applied to the positions 0..numel-1), accumulating where windows overlap."""
    positions = view(sdk.arange(x.numel()).reshape(tuple(x.shape)))
    flat = _zeros((x.numel(),), g).index_add_(0, positions.reshape(-1), g.reshape(-1))
    return flat.reshape(tuple(x.shape))


def diagonal(g, n):
    a = n.attrs
    view = lambda p: p.diagonal(a["offset"], a["dim1"], a["dim2"])  # noqa: E731
    return (_through_positions(g, n.inputs[0], view),)


def unfold(g, n):
    a = n.attrs
    view = lambda p: p.unfold(a["dimension"], a["size"], a["step"])  # noqa: E731
    return (_through_positions(g, n.inputs[0], view),)


def diag_embed(g, n):
    a = n.attrs
    return (g.diagonal(a["offset"], a["dim1"], a["dim2"]),)


def repeat_interleave(g, n):
    x, repeats = n.inputs
    dim = n.attrs["dim"]
    size = x.shape[dim] if x.ndim else 1
    counts = repeats.reshape(-1)
    if counts.numel() == 1 and size != 1:
        counts = counts.expand((size,))
    idx = sdk.repeat_interleave(sdk.arange(size), counts)
    return _zeros(x.shape, g).index_add_(dim, idx, g), None


def as_strided(g, n):
    """Storage-level: the output read storage positions `size/stride/storage_offset`, the
    input holds positions `in_shape/in_stride/in_offset`; g is summed into the storage (read
    positions may repeat) and the input's positions are read back out."""
    a = n.attrs
    geometries = (
        (a["size"], a["stride"], a["storage_offset"]),
        (a["in_shape"], a["in_stride"], a["in_offset"]),
    )
    end = 1
    for size, stride, offset in geometries:
        if 0 not in size:
            end = max(end, offset + sum((s - 1) * st for s, st in zip(size, stride)) + 1)
    storage = sdk.arange(end)
    storage = storage.to(g.device) if g.is_cuda else storage
    read = storage.as_strided(a["size"], a["stride"], a["storage_offset"])
    held = storage.as_strided(a["in_shape"], a["in_stride"], a["in_offset"])
    flat = _zeros((end,), g).index_add_(0, read.reshape(-1), g.reshape(-1))
    return (flat.take(held),)
