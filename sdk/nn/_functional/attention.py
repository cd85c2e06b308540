"""nn.functional.scaled_dot_product_attention (masks, causal, grouped-query heads)."""

from __future__ import annotations

import math
from typing import Any

import sdk

from .common import check_tensor

__all__ = ["scaled_dot_product_attention"]


def _causal_mask(L: int, S: int) -> Any:
    return sdk.arange(L).unsqueeze(1) >= sdk.arange(S).unsqueeze(0)


def _repeat_heads(x: Any, times: int) -> Any:
    """(..., H, S, E) -> (..., H * times, S, E), each head repeated `times` times in a row."""
    shape = list(x.shape)
    expanded = x.unsqueeze(-3).expand(*shape[:-2], times, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * times, *shape[-2:])


def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 scale: float | None = None, enable_gqa: bool = False) -> Any:  # fmt: skip
    """softmax(query @ key^T * scale + mask) @ value over (..., L, E) / (..., S, E) inputs; a
    bool attn_mask marks the pairs that take part, a float one is added."""
    fn = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, fn, name)
        if t.ndim < 2:
            raise ValueError(f"{fn}: {name} must have at least 2 dims, got {list(t.shape)}")
    if is_causal and attn_mask is not None:
        raise ValueError(f"{fn}: attn_mask and is_causal=True cannot both be given")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        hq, hk = query.shape[-3], key.shape[-3]
        if hq % hk:
            raise ValueError(f"{fn}: query heads ({hq}) must be a multiple of key heads ({hk})")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    scores = sdk.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        scores = scores.masked_fill(_causal_mask(L, S).logical_not(), -math.inf)
    elif attn_mask is not None:
        check_tensor(attn_mask, fn, "attn_mask")
        if attn_mask.dtype == sdk.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    weights = sdk.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = sdk.nn.functional.dropout(weights, dropout_p, True)
    return sdk.matmul(weights, value)
