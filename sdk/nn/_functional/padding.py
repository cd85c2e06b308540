"""nn.functional.pad: constant, reflect, replicate and circular padding."""

from __future__ import annotations

import operator
from typing import Any

import sdk

__all__ = ["pad"]


_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
    """Pad (or, with negative values, crop) the last len(pad) // 2 dims: pad = (last_left,
    last_right, second_last_left, ...). mode "constant" fills with `value` (0); "reflect"
    mirrors without repeating the edge, "replicate" repeats the edge, "circular" wraps around
    (these three pad 1 to 3 trailing dims of a tensor with 1 or 2 leading dims)."""
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {_MODES}, got {mode!r}")
    pad = _ints(pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"pad: padding of length {len(pad)} does not fit a {input.ndim}-d input")
    if mode != "constant":
        return _pad_by_index(input, pad, mode, value)
    fill = 0 if value is None else value
    x = input
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0 or hi < 0:  # crop
            start, stop = max(-lo, 0), x.shape[d] - max(-hi, 0)
            if stop < start:
                raise ValueError(
                    f"pad: padding {pad} leaves no elements in dim {d} of {input.shape[d]}"
                )
            x = x.narrow(d, start, stop - start)

        parts = [_pad_block(x, d, lo, fill)] if lo > 0 else []
        parts.append(x)
        if hi > 0:
            parts.append(_pad_block(x, d, hi, fill))
        if len(parts) > 1:
            x = sdk.cat(parts, d)
    return input.clone() if x is input else x


def _pad_block(x: Any, d: int, n: int, fill: Any) -> Any:
    """A block of `fill` shaped like x with n entries along dim d."""
    shape = list(x.shape)
    shape[d] = n
    return sdk.full(shape, fill, dtype=x.dtype, device=x.device)


def _ints(pad: Any) -> tuple:
    try:
        return tuple(operator.index(p) for p in pad)
    except TypeError:
        raise TypeError(f"pad: argument 'pad' must be a sequence of ints, got {pad!r}") from None


def _pad_by_index(input: Any, pad: tuple, mode: str, value: Any) -> Any:
    """reflect/replicate/circular. Without crops: one copy of the input into the middle of
    the output and two slab copies per padded dim (_EdgePad); with a crop the dims are read
    through one index_select each (the gradient accumulates where the copies came from)."""
    if value is not None:
        raise ValueError(f"pad: mode {mode!r} does not take a value argument")
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise ValueError(
            f"pad: mode {mode!r} pads 1 to 3 trailing dims of a tensor with 1 or 2 more dims; "
            f"got padding of length {len(pad)} for a {input.ndim}-d input"
        )
    dims = [(input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(k)]
    for d, lo, hi in dims:
        _check_dim(mode, input.shape[d], lo, hi, d)
    if mode == "circular" and min(pad) < 0:  # a crop, then the wrap-around of what is left
        x = input
        for d, lo, hi in dims:
            x = x.narrow(d, max(-lo, 0), x.shape[d] - max(-lo, 0) - max(-hi, 0))
        return _pad_by_index(x, tuple(max(p, 0) for p in pad), mode, None)
    if min(pad) >= 0:
        return _EdgePad.apply(input, mode, tuple(dims))
    x = input
    for d, lo, hi in dims:
        idx = _source_index(mode, x.shape[d], lo, hi)
        x = sdk.index_select(x, d, idx.to(x.device))
    return x


def _check_dim(mode: str, n: int, lo: int, hi: int, d: int) -> None:
    limit = n - 1 if mode == "reflect" else n
    if mode != "replicate" and (lo > limit or hi > limit):
        raise ValueError(
            f"pad: {mode} padding ({lo}, {hi}) must be at most {limit} for dim {d} of size {n}"
        )
    if n == 0 or n + lo + hi <= 0 or max(-lo, 0) + max(-hi, 0) >= n:
        raise ValueError(f"pad: padding ({lo}, {hi}) leaves no elements in dim {d} of size {n}")


def _source_index(mode: str, n: int, lo: int, hi: int) -> Any:
    """For each output position along a dim of size n padded by (lo, hi), its input position."""
    import numpy as np

    j = np.arange(-lo, n + hi)
    if mode == "reflect":
        idx = np.where(j < 0, -j, np.where(j >= n, 2 * (n - 1) - j, j))
    elif mode == "replicate":
        idx = np.clip(j, 0, n - 1)
    else:  # negative padding crops first; the wrap-around then reads the cropped dim
        first = max(-lo, 0)
        kept = n - first - max(-hi, 0)
        idx = first + np.arange(-max(lo, 0), kept + max(hi, 0)) % kept
    return sdk.tensor(idx.astype(np.int64))


def _slabs(mode: str, n: int, lo: int, hi: int) -> list:
    """The copies that fill the padding of one dim whose middle [lo, lo + n) holds the input:
    (start of the padded slab, its length, start of its source slab, how it is read) with
    positions in the padded dim; "flip" reads the source reversed, "edge" repeats one slice."""
    out = []
    if lo:
        src = {"reflect": (lo + 1, "flip"), "replicate": (lo, "edge"), "circular": (n, "")}
        out.append((0, lo, *src[mode]))
    if hi:
        src = {"reflect": (lo + n - 1 - hi, "flip"), "replicate": (lo + n - 1, "edge"),
               "circular": (lo, "")}  # fmt: skip
        out.append((lo + n, hi, *src[mode]))
    return out


def _read(x: Any, d: int, start: int, length: int, how: str) -> Any:
    if how == "edge":
        return x.narrow(d, start, 1)
    if how == "flip":  # positions start + length - 1 .. start, then reversed
        return x.narrow(d, start, length).flip(d)
    return x.narrow(d, start, length)


class _EdgePad(sdk.autograd.Function):
    """reflect/replicate/circular padding by non-negative amounts as copies: the input into
    the middle, then each padded dim's two slabs from the middle (all of the other dims, so
    the corners follow). Its backward is _EdgePadGrad, whose backward is this again."""

    @staticmethod
    def forward(ctx: Any, x: Any, mode: str, dims: tuple) -> Any:
        ctx.mode, ctx.dims = mode, dims
        shape = list(x.shape)
        for d, lo, hi in dims:
            shape[d] += lo + hi
        out = sdk.empty(shape, dtype=x.dtype, device=x.device)
        middle = out
        for d, lo, _ in dims:
            middle = middle.narrow(d, lo, x.shape[d])
        middle.copy_(x)
        for d, lo, _ in dims:
            for start, length, src, how in _slabs(mode, x.shape[d], lo, shape[d] - lo - x.shape[d]):
                out.narrow(d, start, length).copy_(_read(out, d, src, length, how))
        return out

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple:
        return _EdgePadGrad.apply(grad, ctx.mode, ctx.dims), None, None


class _EdgePadGrad(sdk.autograd.Function):
    """The transpose of _EdgePad: each slab's gradient added onto its source, the dims in the
    reverse order, then the middle."""

    @staticmethod
    def forward(ctx: Any, grad: Any, mode: str, dims: tuple) -> Any:
        ctx.mode, ctx.dims = mode, dims
        g = grad.clone()
        sizes = {d: g.shape[d] - lo - hi for d, lo, hi in dims}
        for d, lo, hi in reversed(dims):
            for start, length, src, how in _slabs(mode, sizes[d], lo, hi):
                slab = g.narrow(d, start, length)
                if how == "edge":
                    g.narrow(d, src, 1).add_(slab.sum(d, keepdim=True))
                elif how == "flip":
                    g.narrow(d, src, length).add_(slab.flip(d))
                else:
                    g.narrow(d, src, length).add_(slab)
        for d, lo, _ in dims:
            g = g.narrow(d, lo, sizes[d])
        return g.contiguous()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple:
        return _EdgePad.apply(grad, ctx.mode, ctx.dims), None, None
