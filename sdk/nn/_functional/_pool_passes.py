"""Pooling as one pass per spatial dim: window maxima (whose flat input positions are then
resolved, so the gradient is one gather) and box sums with a hand-written transpose."""

from __future__ import annotations

import functools
import math
from typing import Any

import sdk
from sdk import _C


def _strided(t: Any, d: int, start: int, count: int, step: int) -> Any:
    """`count` entries of dim d from `start` every `step` (a view, not recorded)."""
    return _C.slice(t, d, start, start + (count - 1) * step + 1, step)


def _extend(t: Any, d: int, lo: int, hi: int, fill: Any) -> Any:
    """t with lo entries before and hi after along dim d: copies of the edge entry (fill
    None) or the value fill."""
    if not lo and not hi:
        return t
    parts = []
    for n, edge in ((lo, 0), (None, None), (hi, t.shape[d] - 1)):
        if n is None:
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


class Windows:
    """The windows of one dim: out windows of k entries, entry j of window i at position
    table[i, j] = min(base[i] + j * step, last[i]) of the dim, or at `size` (an appended
    -inf entry) where sentinel says so; positions come back clamped to the dim."""

    def __init__(self, table: Any, base: Any, step: int, last: Any, inside: Any = None) -> None:
        self.out, self.k = table.shape
        self.index = sdk.tensor(table.reshape(-1))
        self.base, self.last = sdk.tensor(base), sdk.tensor(last)
        self.step, self.sentinel = step, inside is not None
        # The entries that are in the dim: an all -inf window's maximum is its first of them.
        self.inside = None if inside is None else sdk.tensor(inside)
        self.strided = None  # (stride, padding before, dilation, padding after): regular windows

    def front(self, x: Any, d: int) -> Any:
        """x's windows along dim d as (out, k, *x's other dims): dim d moved to the front and
        made contiguous, then one index_select of whole rows (the quick way to select)."""
        moved = _front(x, d).contiguous()
        if self.sentinel:
            pad = sdk.full([1, *moved.shape[1:]], -math.inf, dtype=x.dtype, device=x.device)
            moved = sdk.cat([moved, pad])
        picked = moved.index_select(0, _on(self.index, x.device))
        return picked.reshape(self.out, self.k, *moved.shape[1:])


def _on(t: Any, device: Any) -> Any:
    return t if t.device == device else t.to(device)


@functools.lru_cache(maxsize=256)
def strided_windows(size: int, k: int, s: int, p: int, dil: int, out: int) -> Windows:
    """Kernel k, stride s, padding p, dilation dil. With dil == 1 the positions outside the
    dim move to the nearest edge, which every window reaching past it holds anyway (the max
    and its first position stay); else they read the sentinel."""
    import numpy as np

    base = np.arange(out) * s - p
    table = base[:, None] + (np.arange(k) * dil)[None, :]
    outside = (table < 0) | (table >= size)
    last = np.full(out, size - 1)
    if dil == 1:
        w = Windows(np.clip(table, 0, size - 1), base, 1, last)
    elif not outside.any():
        w = Windows(table, base, dil, last)
    else:
        w = Windows(np.where(outside, size, table), base, dil, last, inside=~outside)
    w.strided = (s, p, dil, max(int(table.max()) + 1 - size, 0))
    return w


@functools.lru_cache(maxsize=256)
def adaptive_windows(size: int, out: int) -> Windows:
    """Adaptive windows [floor(i*size/out), ceil((i+1)*size/out)); shorter windows repeat
    their last entry (the max and its first position stay)."""
    import numpy as np

    i = np.arange(out, dtype=np.int64)
    lo, hi = (i * size) // out, -((-(i + 1) * size) // out)
    k = int((hi - lo).max())
    table = np.minimum(lo[:, None] + np.arange(k)[None, :], hi[:, None] - 1)
    return Windows(table, lo, 1, hi - 1)


def _front(x: Any, d: int) -> Any:
    """x with dim d moved to the front (a view)."""
    return x if d == 0 else x.permute(d, *range(d), *range(d + 1, x.ndim))


def _back(x: Any, d: int) -> Any:
    """The inverse of _front."""
    return x if d == 0 else x.permute(*range(1, d + 1), 0, *range(d + 1, x.ndim))


def _strided_parts(x: Any, d: int, w: Windows) -> tuple:
    """Regular windows as k strided views of x extended past its ends along d (the edge
    entry repeated when dilation is 1, else -inf), and for each view which of its windows
    read inside the input (None when all do)."""
    s, p, dil, after = w.strided
    fill = None if dil == 1 else -math.inf
    xp = _extend(x, d, p, after, fill)
    parts = [_strided(xp, d, j * dil, w.out, s) for j in range(w.k)]
    if w.inside is None:
        return parts, None
    shape = [1] * x.ndim
    shape[d] = w.out
    inside = _on(w.inside, x.device)
    return parts, [inside[:, j].reshape(shape) for j in range(w.k)]


def _window_max(x: Any, d: int, w: Windows, track: bool) -> tuple:
    """The max over each window of dim d, and which entry of the window it is (the first).
    Few regular windows: running maxima of strided views of x (no copy of x); else x's
    windows gathered into a table with the dim in front."""
    if w.strided is not None and w.k <= 4:
        parts, inside = _strided_parts(x, d, w)
        best = parts[0]
        for part in parts[1:]:
            best = sdk.maximum(best, part)
        if not track:
            return best.contiguous() if w.k == 1 else best, None
        if not bool(best.isnan().any()):
            return best, _first_hit_parts(parts, best, inside)
        picked = sdk.stack(parts, d + 1)
        mask = None if inside is None else sdk.stack(inside, d + 1)
        return best, first_hit(picked, best, d + 1, w.k, mask)
    picked = w.front(x, d)
    best = picked.amax(1)
    inside = None
    if track and w.inside is not None:
        inside = _on(w.inside, x.device).reshape(w.out, w.k, *[1] * (picked.ndim - 2))
    which = first_hit(picked, best, 1, w.k, inside) if track else None
    return _back(best, d), (None if which is None else _back(which, d))


def first_hit(picked: Any, best: Any, dim: int, k: int, inside: Any = None) -> Any:
    """For each window (along dim of picked), the entry the reference kernels pick: the last
    NaN if the window has one, else its first maximum (among the entries `inside` the input,
    when given). Entries score k - j for a maximum and k + 1 + j for a NaN; the largest score
    names the entry (elementwise passes and a plain max: a max reduction with indices costs
    many times more)."""
    nan = bool(best.isnan().any())
    if k <= 4 and not nan:
        return _first_hit_few(picked, best, dim, k, inside)
    if not nan and inside is None and picked[(0,) * (dim + 1)].numel() >= 8192:
        return picked.max(dim)[1]  # long rows: one indexed max beats the scoring passes
    shape = [1] * picked.ndim
    shape[dim] = k
    kind = picked.dtype if picked.dtype in (sdk.float32, sdk.float64) else sdk.float32
    j = sdk.arange(k, dtype=kind, device=picked.device).reshape(shape)
    hit = picked == best.unsqueeze(dim)
    if inside is not None:
        hit.logical_and_(inside)
    score = hit.to(kind) * (k - j)
    if not nan:
        return (k - score.amax(dim)).long()
    score = score + picked.isnan().to(kind) * (k + 1 + j)
    top = score.amax(dim)
    return sdk.where(top > k, top - (k + 1), k - top).long()


def _first_hit_few(picked: Any, best: Any, dim: int, k: int, inside: Any) -> Any:
    """first_hit for a few entries and no NaN."""
    parts = [_C.select(picked, dim, j) for j in range(k)]
    masks = None if inside is None else [_C.select(inside, dim, j) for j in range(k)]
    return _first_hit_parts(parts, best, masks)


def _first_hit_parts(parts: list, best: Any, inside: Any) -> Any:
    """The window entry (index into parts) of each first maximum, no NaN: the number of
    entries before it, counted on output-sized tensors."""
    which = sdk.zeros(best.shape, dtype=sdk.int64, device=best.device)
    missed = None
    for j in range(len(parts) - 1):
        hit = parts[j] == best
        if inside is not None:
            hit.logical_and_(inside[j])
        missed = hit.logical_not_() if missed is None else missed.logical_and_(~hit)
        which.add_(missed)
    return which


def _coordinate(w: Windows, which: Any, e: int, size: int) -> Any:
    """The position along dim e of each window's entry `which`."""
    shape = [1] * which.ndim
    shape[e] = w.out
    base = _on(w.base, which.device).reshape(shape)
    coord = base + (which * w.step if w.step != 1 else which)
    return sdk.minimum(coord, _on(w.last, which.device).reshape(shape)).clamp_(0, size - 1)


def _positions(input: Any, n: int, windows: list, whiches: list) -> Any:
    """Flat input positions of the maxima: dim e's window entry is read where the dims before
    it (resolved first) put the maximum."""
    lead = input.ndim - n
    sizes = list(input.shape[lead:])
    flat = None  # position over the spatial dims resolved so far
    for e in range(n):
        which = whiches[e]
        if flat is not None:  # which has the full dims 0..e-1: read it at the resolved ones
            shape = list(which.shape)
            merged = which.reshape(*shape[:lead], -1, *shape[lead + e :])
            pick = flat.reshape(*shape[:lead], -1, *flat.shape[lead + e :])
            which = merged.gather(lead, pick).reshape(flat.shape)
        coord = _coordinate(windows[e], which, lead + e, sizes[e])
        flat = coord if flat is None else flat * sizes[e] + coord
    return flat


def take_max(input: Any, n: int, windows: list, want_indices: bool) -> tuple:
    """The max over windows of the last n dims of input (windows[e]: dim e's, as
    strided_windows / adaptive_windows give them) and the flat positions of the maxima (None
    unless wanted or input needs a gradient): the output is then one gather of input, whose
    backward puts each gradient on its maximum. One dim at a time from the last, so ties go
    to the first maximum in scan order."""
    grad = input.requires_grad and sdk.is_grad_enabled()
    track = want_indices or grad
    whiches: list = [None] * n
    with sdk.no_grad():
        x = input.detach()
        for e in reversed(range(n)):
            x, whiches[e] = _window_max(x, input.ndim - n + e, windows[e], track)
        if not track:
            return x, None
        pos = _positions(input, n, windows, whiches)
    if grad:
        lead = list(input.shape[: input.ndim - n])
        x = input.reshape(*lead, -1).gather(-1, pos.reshape(*lead, -1)).reshape(pos.shape)
    return x, pos


class BoxSum(sdk.autograd.Function):
    """Window sums along one dim: for window i < out, the sum of the (zero-padded) input's
    entries i * s - p + j, j < k. Its backward is BoxSumT."""

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
