"""Embedding and EmbeddingBag: lookup tables of learnable vectors (torch.nn.modules.sparse)."""

from __future__ import annotations

from typing import Any

import sdk

from . import functional as F
from ._functional.common import _wrap_index
from .module import Module
from .parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    """A lookup table of num_embeddings vectors of size embedding_dim, initialized N(0, 1)
    (the padding_idx row zero)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Any = None,
                 max_norm: Any = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Any = None, _freeze: bool = False,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError(
                "Embedding: max_norm, scale_grad_by_freq and sparse are not supported"
            )
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            padding_idx = _wrap_index(padding_idx, num_embeddings)
        self.padding_idx = padding_idx
        kw = {} if dtype is None else {"dtype": dtype}
        if _weight is None:
            self.weight = Parameter(sdk.randn(num_embeddings, embedding_dim, **kw),
                                    requires_grad=not _freeze)  # fmt: skip
            if padding_idx is not None:
                with sdk.no_grad():
                    self.weight[padding_idx].fill_(0)
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def forward(self, input: Any) -> Any:
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s if self.padding_idx is None else s + f", padding_idx={self.padding_idx}"


class EmbeddingBag(Module):
    """num_embeddings vectors of size embedding_dim, initialized N(0, 1) (the padding_idx row
    zero); forward reduces each bag of looked-up rows by mode (sum, mean or max)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: Any = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Any = None, include_last_offset: bool = False,
                 padding_idx: Any = None, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if scale_grad_by_freq or sparse:
            raise NotImplementedError(
                "EmbeddingBag: scale_grad_by_freq and sparse are not supported"
            )
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode has to be one of sum, mean or max, got {mode!r}")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, False
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if padding_idx is not None:
            padding_idx = _wrap_index(padding_idx, num_embeddings)
        self.padding_idx = padding_idx
        if _weight is None:
            kw = {} if dtype is None else {"dtype": dtype}
            self.weight = Parameter(sdk.randn(num_embeddings, embedding_dim, **kw))
            if padding_idx is not None:
                with sdk.no_grad():
                    self.weight[padding_idx].fill_(0)
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError(
                    f"EmbeddingBag: _weight must have shape [{num_embeddings}, {embedding_dim}], "
                    f"got {list(_weight.shape)}"
                )
            self.weight = Parameter(_weight)
        if device is not None:
            self.to(device)

    @classmethod
    def from_pretrained(cls, embeddings: Any, freeze: bool = True, max_norm: Any = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False,
                        padding_idx: Any = None) -> EmbeddingBag:  # fmt: skip
        """An EmbeddingBag whose weight is the 2-D tensor embeddings (frozen by default)."""
        if not isinstance(embeddings, sdk._C.TensorBase) or embeddings.ndim != 2:
            raise ValueError("EmbeddingBag.from_pretrained: embeddings must be a 2-D tensor")
        rows, dim = embeddings.shape
        bag = cls(rows, dim, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)  # fmt: skip
        bag.weight.requires_grad_(not freeze)
        return bag

    def forward(self, input: Any, offsets: Any = None, per_sample_weights: Any = None) -> Any:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, False,
                               self.mode, False, per_sample_weights, self.include_last_offset,
                               self.padding_idx)  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}, mode={self.mode!r}"
        return s if self.padding_idx is None else s + f", padding_idx={self.padding_idx}"
