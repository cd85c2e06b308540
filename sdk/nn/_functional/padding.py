"""nn.functional.pad: constant, reflect, replicate and circular padding."""

from __future__ import annotations

from typing import Any

import sdk

__all__ = ["pad"]


def pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
    """Pad (or, with negative values, crop) the last len(pad) // 2 dims: pad = (last_left,
    last_right, second_last_left, ...), filled with `value` (0). Only mode="constant"."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported (only 'constant')")
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"pad: padding of length {len(pad)} does not fit a {input.ndim}-d input")
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
