"""Attention and transformer layers: MultiheadAttention (torch's parameters, masks and outputs)."""

from __future__ import annotations

import math
from typing import Any

import sdk

from . import functional as F
from . import init
from ._functional.common import check_tensor
from .linear import Linear
from .module import Module
from .parameter import Parameter

__all__ = ["MultiheadAttention"]


def _mask_to_float(mask: Any, like: Any, what: str) -> Any:
    """A bool mask (True = do not attend) as -inf / 0; a float mask as is."""
    if not isinstance(mask, sdk._C.TensorBase):
        raise TypeError(f"MultiheadAttention: {what} must be a Tensor, not {type(mask).__name__}")
    if mask.dtype == sdk.bool:
        return sdk.zeros(mask.shape, dtype=like.dtype).masked_fill(mask, -math.inf)
    if not mask.is_floating_point():
        raise TypeError(f"MultiheadAttention: {what} must be bool or floating, got {mask.dtype}")
    return mask


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim / num_heads features each:
    out_proj(concat_h(softmax(q_h k_h^T / sqrt(d) + masks) v_h)). Inputs are (L, N, E), or
    (N, L, E) with batch_first, or unbatched (L, E)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Any = None,
                 vdim: Any = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError(
                "MultiheadAttention: add_bias_kv and add_zero_attn are not supported"
            )
        kw = {} if dtype is None else {"dtype": dtype}
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(sdk.empty(3 * embed_dim, embed_dim, **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(sdk.empty(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(sdk.empty(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(sdk.empty(embed_dim, self.vdim, **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(sdk.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def _projections(self) -> tuple:
        E = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            ws = (w[:E], w[E : 2 * E], w[2 * E :])
        else:
            ws = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = self.in_proj_bias
        bs = (None, None, None) if b is None else (b[:E], b[E : 2 * E], b[2 * E :])
        return ws, bs

    def forward(self, query: Any, key: Any, value: Any, key_padding_mask: Any = None,
                need_weights: bool = True, attn_mask: Any = None,
                average_attn_weights: bool = True, is_causal: bool = False) -> tuple:  # fmt: skip
        for name, t in (("query", query), ("key", key), ("value", value)):
            check_tensor(t, "MultiheadAttention", name)
        batched = query.ndim == 3
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(
                "MultiheadAttention: query, key and value must all be 3-d (batched) or 2-d "
                f"(unbatched), got {query.ndim}-d, {key.ndim}-d and {value.ndim}-d"
            )
        if query.shape[-1] != self.embed_dim:
            raise ValueError(
                f"MultiheadAttention: was expecting embedding dimension of {self.embed_dim}, "
                f"but got {query.shape[-1]}"
            )
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        L, N, E = query.shape
        S = key.shape[0]
        H, d = self.num_heads, self.head_dim
        (wq, wk, wv), (bq, bk, bv) = self._projections()
        q = F.linear(query, wq, bq).reshape(L, N * H, d).transpose(0, 1)
        k = F.linear(key, wk, bk).reshape(S, N * H, d).transpose(0, 1)
        v = F.linear(value, wv, bv).reshape(S, N * H, d).transpose(0, 1)
        scores = sdk.bmm(q, k.transpose(1, 2)) * (1.0 / math.sqrt(d))  # (N*H, L, S)
        if attn_mask is None and is_causal:
            attn_mask = sdk.arange(S).unsqueeze(0) > sdk.arange(L).unsqueeze(1)
        if attn_mask is not None:
            m = _mask_to_float(attn_mask, scores, "attn_mask")
            if tuple(m.shape) not in ((L, S), (N * H, L, S)):
                raise ValueError(
                    f"MultiheadAttention: attn_mask should have shape {(L, S)} or "
                    f"{(N * H, L, S)}, got {tuple(m.shape)}"
                )
            scores = scores + m
        if key_padding_mask is not None:
            m = _mask_to_float(key_padding_mask, scores, "key_padding_mask")
            if tuple(m.shape) != (N, S):
                raise ValueError(
                    f"MultiheadAttention: key_padding_mask should have shape {(N, S)}, got "
                    f"{tuple(m.shape)}"
                )
            scores = (scores.reshape(N, H, L, S) + m.reshape(N, 1, 1, S)).reshape(N * H, L, S)
        weights = sdk.softmax(scores, -1)
        dropped = F.dropout(weights, self.dropout, self.training) if self.dropout > 0 else weights
        out = sdk.bmm(dropped, v).transpose(0, 1).reshape(L, N, E)
        out = self.out_proj(out)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        elif not batched:
            out = out.squeeze(1)
        if not need_weights:
            return out, None
        w = weights.reshape(N, H, L, S)
        if average_attn_weights:
            w = w.mean(1)
        return out, (w if batched else w.squeeze(0))
