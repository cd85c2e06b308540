"""nn.functional: stateless layers, activations and losses built from differentiable sdk ops.
Each kind lives in sdk/nn/_functional/<kind>.py; this module gathers them under torch's names."""

from __future__ import annotations

from typing import Any

import sdk

from ._functional import activation as _activation
from ._functional import attention as _attention
from ._functional import conv as _conv
from ._functional import dropout as _dropout
from ._functional import fold as _fold
from ._functional import loss as _loss
from ._functional import normalization as _normalization
from ._functional import padding as _padding
from ._functional import pixelshuffle as _pixelshuffle
from ._functional import pooling as _pooling
from ._functional import sampling as _sampling
from ._functional import sparse as _sparse
from ._functional.activation import *  # noqa: F403
from ._functional.attention import *  # noqa: F403
from ._functional.common import _wrap_index, check_tensor
from ._functional.conv import *  # noqa: F403
from ._functional.dropout import *  # noqa: F403
from ._functional.fold import *  # noqa: F403
from ._functional.loss import *  # noqa: F403
from ._functional.normalization import *  # noqa: F403
from ._functional.padding import *  # noqa: F403
from ._functional.pixelshuffle import *  # noqa: F403
from ._functional.pooling import *  # noqa: F403
from ._functional.sampling import *  # noqa: F403
from ._functional.sparse import *  # noqa: F403

__all__ = [
    "linear",
    "dropout",
    "embedding",
    "pairwise_distance",
    "one_hot",
    "normalize",
    "cosine_similarity",
]
_KINDS = (
    _activation,
    _attention,
    _conv,
    _dropout,
    _fold,
    _loss,
    _normalization,
    _padding,
    _pixelshuffle,
    _pooling,
    _sampling,
    _sparse,
)
__all__ += [name for kind in _KINDS for name in kind.__all__]


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    """input @ weight.T + bias (one fused addmm for 2-D input)."""
    if input.ndim == 2 and bias is not None:
        return sdk.addmm(bias, input, weight.t())
    out = sdk.matmul(input, weight.t())
    return out if bias is None else out + bias


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero each element with probability p and scale the rest by 1 / (1 - p) in training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0
    keep = (sdk.rand_like(input) >= p).to(input.dtype)
    return input * keep * (1.0 / (1.0 - p))


def embedding(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Any:  # fmt: skip
    """Rows of weight (num_embeddings, dim) picked by the integer tensor input."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: max_norm, scale_grad_by_freq and sparse are not supported"
        )
    if input.dtype not in (sdk.int64, sdk.int32):
        raise TypeError(f"embedding: expected an int64 or int32 index tensor, got {input.dtype}")
    rows = sdk.index_select(weight, 0, input.reshape(-1))
    if padding_idx is not None:  # the padding row gets no gradient
        keep = (input.reshape(-1) != _wrap_index(padding_idx, weight.shape[0])).to(weight.dtype)
        rows = rows * keep.unsqueeze(1) + (rows * (1 - keep.unsqueeze(1))).detach()
    return rows.reshape(*input.shape, weight.shape[1])


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Any:  # fmt: skip
    """The p-norm of x1 - x2 + eps over the last dim (inputs broadcast)."""
    _check_x1_x2(x1, x2, "pairwise_distance")
    diff = (x1 - x2 + eps).abs()
    if p == float("inf"):
        return diff.amax(-1, keepdim=keepdim)
    if p == 0:
        return diff.ne(0).to(diff.dtype).sum(-1, keepdim=keepdim)
    return (diff**p).sum(-1, keepdim=keepdim) ** (1.0 / p)


def _check_x1_x2(x1: Any, x2: Any, fn: str) -> None:
    check_tensor(x1, fn, "x1")
    check_tensor(x2, fn, "x2")
    try:
        sdk.broadcast_shapes(x1.shape, x2.shape)
    except Exception:
        raise ValueError(
            f"{fn}: x1 shape {list(x1.shape)} and x2 shape {list(x2.shape)} do not broadcast"
        ) from None


def one_hot(tensor: Any, num_classes: int = -1) -> Any:
    """int64 tensor of shape (*tensor.shape, num_classes) with a 1 at each index (num_classes
    -1: max index + 1)."""
    check_tensor(tensor, "one_hot", "tensor")
    if tensor.dtype != sdk.int64:
        raise TypeError(f"one_hot is only applicable to index tensor (int64), got {tensor.dtype}")
    if isinstance(num_classes, bool) or not isinstance(num_classes, int):
        raise TypeError(f"one_hot: num_classes must be an int, not {type(num_classes).__name__}")
    with sdk.no_grad():
        if tensor.numel():
            lo, hi = int(tensor.min().item()), int(tensor.max().item())
            if lo < 0:
                raise ValueError("one_hot: class values must be non-negative")
        elif num_classes == -1:
            raise ValueError("one_hot: can not infer total number of classes from empty tensor")
        else:
            hi = -1
        if num_classes == -1:
            num_classes = hi + 1
        elif hi >= num_classes:
            raise ValueError(
                f"one_hot: class values ({hi}) must be smaller than num_classes ({num_classes})"
            )
        return (tensor.unsqueeze(-1) == sdk.arange(num_classes)).long()


def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Any = None) -> Any:  # fmt: skip
    """input / max(||input||_p along dim, eps)."""
    check_tensor(input, "normalize")
    if out is not None:
        raise NotImplementedError("normalize: out= is not supported")
    denom = sdk.norm(input, p, dim, keepdim=True).clamp_min(eps)
    return input / denom


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Any:
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along dim (inputs broadcast)."""
    _check_x1_x2(x1, x2, "cosine_similarity")
    x1, x2 = sdk.broadcast_tensors(x1, x2)
    n1 = sdk.norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = sdk.norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)
