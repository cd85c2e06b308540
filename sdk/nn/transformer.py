"""Attention and transformer layers: MultiheadAttention, TransformerEncoderLayer/DecoderLayer,
their stacks TransformerEncoder/Decoder and Transformer (torch's parameters, masks and outputs)."""

from __future__ import annotations

import copy
import math
from typing import Any

import sdk

from . import functional as F
from . import init
from ._functional.common import check_tensor
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .parameter import Parameter

__all__ = [
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerDecoder",
    "Transformer",
]


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


def _activation(activation: Any, who: str) -> Any:
    if callable(activation):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"{who}: activation should be relu/gelu, not {activation}")


def _factory_kwargs(device: Any, dtype: Any) -> dict:
    """device= and dtype= for the sublayers, only those given (as torch's factory_kwargs)."""
    return {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}


class _Block(Module):
    """What both layers share: the feed-forward block and norm_first's residual wiring."""

    def _feed_forward(self, d_model: int, dim_feedforward: int, dropout: float, bias: bool,
                      activation: Any, kw: dict) -> None:  # fmt: skip
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.activation = _activation(activation, type(self).__name__)

    def _ff_block(self, x: Any, drop: Module) -> Any:
        return drop(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def _residual(self, x: Any, norm: Module, block: Any) -> Any:
        """Pre-norm (norm_first): x + block(norm(x)); post-norm: norm(x + block(x))."""
        return x + block(norm(x)) if self.norm_first else norm(x + block(x))


class TransformerEncoderLayer(_Block):
    """Self-attention then a feed-forward block, each with a residual and LayerNorm (after
    them, or before when norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        kw = _factory_kwargs(device, dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)  # fmt: skip
        self._feed_forward(d_model, dim_feedforward, dropout, bias, activation, kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)

    def forward(self, src: Any, src_mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool = False) -> Any:  # fmt: skip
        def attend(x: Any) -> Any:
            out = self.self_attn(x, x, x, attn_mask=src_mask, key_padding_mask=src_key_padding_mask,
                                 need_weights=False, is_causal=is_causal)[0]  # fmt: skip
            return self.dropout1(out)

        x = self._residual(src, self.norm1, attend)
        return self._residual(x, self.norm2, lambda y: self._ff_block(y, self.dropout2))


class TransformerDecoderLayer(_Block):
    """Self-attention over tgt, attention over the encoder's memory, then a feed-forward
    block, each with a residual and LayerNorm (after them, or before when norm_first)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        kw = _factory_kwargs(device, dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)  # fmt: skip
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **kw)  # fmt: skip
        self._feed_forward(d_model, dim_feedforward, dropout, bias, activation, kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1, self.dropout2, self.dropout3 = (
            Dropout(dropout),
            Dropout(dropout),
            Dropout(dropout),
        )

    def forward(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Any:  # fmt: skip
        def self_attend(x: Any) -> Any:
            out = self.self_attn(x, x, x, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask,
                                 need_weights=False, is_causal=tgt_is_causal)[0]  # fmt: skip
            return self.dropout1(out)

        def cross_attend(x: Any) -> Any:
            out = self.multihead_attn(x, memory, memory, attn_mask=memory_mask,
                                      key_padding_mask=memory_key_padding_mask,
                                      need_weights=False, is_causal=memory_is_causal)[0]  # fmt: skip
            return self.dropout2(out)

        x = self._residual(tgt, self.norm1, self_attend)
        x = self._residual(x, self.norm2, cross_attend)
        return self._residual(x, self.norm3, lambda y: self._ff_block(y, self.dropout3))


def _clones(layer: Module, n: int, who: str) -> ModuleList:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"{who}: num_layers must be a positive int, got {n!r}")
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer (independent parameters), then norm if given."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Any = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src: Any, mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool | None = None) -> Any:  # fmt: skip
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))  # fmt: skip
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Module):
    """num_layers copies of decoder_layer (independent parameters), then norm if given."""

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Any = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Any:  # fmt: skip
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)  # fmt: skip
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """An encoder stack and a decoder stack, each ending in LayerNorm; matrices initialized
    xavier_uniform_ as torch does."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", custom_encoder: Any = None, custom_decoder: Any = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        kw = _factory_kwargs(device, dtype)
        common = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                      layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                      norm_first=norm_first, bias=bias, **kw)  # fmt: skip
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, **common)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, **common)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(self, src: Any, tgt: Any, src_mask: Any = None, tgt_mask: Any = None,
                memory_mask: Any = None, src_key_padding_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Any:  # fmt: skip
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)  # fmt: skip
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)  # fmt: skip

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Any:
        """A float (sz, sz) mask: -inf above the diagonal, 0 elsewhere."""
        upper = sdk.arange(sz).unsqueeze(0) > sdk.arange(sz).unsqueeze(1)
        mask = sdk.zeros(sz, sz, dtype=dtype or sdk.get_default_dtype())
        return mask.masked_fill(upper, float("-inf"))
