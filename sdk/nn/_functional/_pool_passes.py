"""Pooling as one pass per spatial dim: running maxima that carry the flat input position of
each maximum (the gradient is then one gather), and box sums with a hand-written transpose."""

from __future__ import annotations

from typing import Any, Callable

import sdk
from sdk import _C


def _strided(t: Any, d: int, start: int, count: int, step: int) -> Any:
    """`count` entries of dim d from `start` every `step` (a view, not recorded)."""
    return _C.slice(t, d, start, start + (count - 1) * step + 1, step)


def _extend(t: Any, d: int, lo: int, hi: int, fill: Any) -> Any:
    """t with lo entries before and hi after along dim d: copies of the edge entry (fill None)
    or the value fill."""
    if not lo and not hi:
        return t
    parts = []
    for n, edge in ((lo, 0), (0, None), (hi, t.shape[d] - 1)):
        if edge is None:
            parts.append(t)
        elif n:
            shape = list(t.shape)
            shape[d] = n
            parts.append(
                _C.slice(t, d, edge, edge + 1, 1).expand(*shape)
                if fill is None
                else sdk.full(shape, fill, dtype=t.dtype, device=t.device)
            )
    return sdk.cat(parts, d)


def _running_max(parts: list, with_pos: bool) -> tuple:
    """The elementwise max over (value, position) parts and where it came from: the first part
    wins ties, a NaN wins (the last one), as the reference pooling kernels scan."""
    best, pos = parts[0]
    for v, q in parts[1:]:
        if not with_pos:
            best = sdk.maximum(best, v)
            continue
        take = (v > best).logical_or_(v.isnan())
        best = sdk.maximum(best, v)  # where(take, v, best), at a fraction of the cost
        pos = sdk.where(take, q, pos)
    return best, pos


def positions(x: Any, n: int) -> Any:
    """int64 flat position of each of x's last n dims' elements, shaped like those dims."""
    spatial = tuple(x.shape[x.ndim - n :])
    total = 1
    for s in spatial:
        total *= s
    return sdk.arange(total, device=x.device).reshape(spatial)


def max_pass(x: Any, pos: Any, d: int, parts: Callable, with_pos: bool) -> tuple:
    """One dim's pass: parts(t) lists the window-offset views of t along dim d, or gives t's
    windows as one tensor with the window entries along dim d + 1 (one max reduction)."""
    vs = parts(x)
    if not isinstance(vs, list):
        if not with_pos:
            return vs.amax(d + 1), None
        best, which = vs.max(d + 1)
        return best, parts(pos).gather(d + 1, which.unsqueeze(d + 1)).squeeze(d + 1)
    ps = parts(pos) if with_pos else [None] * len(vs)
    return _running_max(list(zip(vs, ps)), with_pos)


def strided_parts(d: int, k: int, s: int, p: int, dil: int, out: int, fill: Any) -> Callable:
    """The k window-offset views of a dim with kernel k, stride s, padding p, dilation dil and
    `out` windows. The padding repeats the edge entry when dil == 1 (the edge is inside every
    window that reaches past it, so the max and its first position stay); else it is `fill`."""

    def parts(t: Any) -> list:
        size = t.shape[d]
        need = (out - 1) * s + dil * (k - 1) + 1
        edge_fill = None if dil == 1 or not t.is_floating_point() else fill
        tp = _extend(t, d, p, max(need - size - p, 0), edge_fill)
        return [_strided(tp, d, j * dil, out, s) for j in range(k)]

    return parts


def adaptive_parts(d: int, size: int, out: int) -> Callable:
    """Adaptive windows [floor(i*size/out), ceil((i+1)*size/out)) of a dim: as strided views
    when size divides evenly, else one index_select per offset (short windows repeat their
    last entry, which leaves the max and its first position as they are)."""
    if size % out == 0:
        k = size // out
        return lambda t: [_strided(t, d, j, out, k) for j in range(k)]
    import numpy as np

    i = np.arange(out, dtype=np.int64)
    lo, hi = (i * size) // out, -((-(i + 1) * size) // out)
    k = int((hi - lo).max())
    table = np.minimum(lo[:, None] + np.arange(k)[None, :], hi[:, None] - 1).reshape(-1)

    def parts(t: Any) -> Any:  # one index_select, the window entries along d + 1
        index = sdk.tensor(table, device=t.device)
        if d != 0:  # selecting whole rows of the leading dim is the quick way
            moved = t.movedim(d, 0).contiguous().index_select(0, index)
            return moved.reshape(out, k, *moved.shape[1:]).movedim((0, 1), (d, d + 1))
        return t.index_select(0, index).reshape(out, k, *t.shape[1:])

    return parts


def take_max(input: Any, n: int, passes: list, want_indices: bool) -> tuple:
    """The max over windows of the last n dims of input (passes: (dim, parts) from the last
    dim to the first, so ties go to the first maximum in scan order) and the flat positions
    of the maxima (None unless wanted or input needs a gradient): the output is then one
    gather of input, whose backward puts each gradient on its maximum."""
    track = want_indices or (input.requires_grad and sdk.is_grad_enabled())
    with sdk.no_grad():
        x = input.detach()
        pos = positions(x, n) if track else None
        if track:
            pos = pos.expand(*x.shape)
        for d, parts in passes:
            x, pos = max_pass(x, pos, d, parts, track)
    if not track:
        return x, None
    lead = list(input.shape[: input.ndim - n])
    idx = pos.reshape(*lead, -1)
    if input.requires_grad and sdk.is_grad_enabled():
        x = input.reshape(*lead, -1).gather(-1, idx).reshape(x.shape)
    return x, pos


class BoxSum(sdk.autograd.Function):
    """Window sums along one dim: sum over j < k of the (zero-padded) input's entries
    start + j * dil for start = i * s - p, i < out. Its backward is BoxSumT."""

    @staticmethod
    def forward(ctx: Any, x: Any, d: int, k: int, s: int, p: int, out: int) -> Any:
        ctx.args = (d, k, s, p, out, x.shape[d])
        need = (out - 1) * s + k
        xp = _extend(x, d, p, max(need - x.shape[d] - p, 0), 0.0)
        total = _strided(xp, d, 0, out, s).clone()
        for j in range(1, k):
            total.add_(_strided(xp, d, j, out, s))
        return total

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple:
        d, k, s, p, out, size = ctx.args
        return BoxSumT.apply(grad, d, k, s, p, out, size), None, None, None, None, None


class BoxSumT(sdk.autograd.Function):
    """The transpose of BoxSum: each window's value added onto the entries it covers."""

    @staticmethod
    def forward(ctx: Any, g: Any, d: int, k: int, s: int, p: int, out: int, size: int) -> Any:
        ctx.args = (d, k, s, p, out)
        shape = list(g.shape)
        shape[d] = max((out - 1) * s + k, size + p)
        full = sdk.zeros(shape, dtype=g.dtype, device=g.device)
        for j in range(k):
            _strided(full, d, j, out, s).add_(g)
        return _C.slice(full, d, p, p + size, 1).contiguous()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple:
        d, k, s, p, out = ctx.args
        return BoxSum.apply(grad, d, k, s, p, out), None, None, None, None, None, None
