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
    """reflect/replicate/circular: each padded dim is one index_select of source positions,
    so the gradient accumulates into the positions that were copied."""
    if value is not None:
        raise ValueError(f"pad: mode {mode!r} does not take a value argument")
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise ValueError(
            f"pad: mode {mode!r} pads 1 to 3 trailing dims of a tensor with 1 or 2 more dims; "
            f"got padding of length {len(pad)} for a {input.ndim}-d input"
        )
    x = input
    for i in range(k):
        d = input.ndim - 1 - i
        idx = _source_index(mode, x.shape[d], pad[2 * i], pad[2 * i + 1], d)
        x = sdk.index_select(x, d, idx.to(x.device))
    return x


def _source_index(mode: str, n: int, lo: int, hi: int, d: int) -> Any:
    """For each output position along a dim of size n padded by (lo, hi), its input position."""
    limit = n - 1 if mode == "reflect" else n
    if mode != "replicate" and (lo > limit or hi > limit):
        raise ValueError(
            f"pad: {mode} padding ({lo}, {hi}) must be at most {limit} for dim {d} of size {n}"
        )
    if n == 0 or n + lo + hi <= 0 or max(-lo, 0) + max(-hi, 0) >= n:
        raise ValueError(f"pad: padding ({lo}, {hi}) leaves no elements in dim {d} of size {n}")
    out = range(-lo, n + hi)
    if mode == "reflect":
        idx = [-j if j < 0 else 2 * (n - 1) - j if j >= n else j for j in out]
    elif mode == "replicate":
        idx = [min(max(j, 0), n - 1) for j in out]
    else:  # negative padding crops first; the wrap-around then reads the cropped dim
        kept = range(max(-lo, 0), n - max(-hi, 0))
        idx = [kept[j % len(kept)] for j in range(-max(lo, 0), len(kept) + max(hi, 0))]
    return sdk.tensor(idx, dtype=sdk.int64)
