"""nn.functional: regression and binary losses, KL divergence, one_hot, normalize,
cosine_similarity and scaled_dot_product_attention, composed from differentiable sdk ops."""

from __future__ import annotations

import math
from typing import Any

import sdk

from ._norm_pool import check_tensor

__all__ = [
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "one_hot",
    "normalize",
    "cosine_similarity",
    "scaled_dot_product_attention",
]


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """torch's deprecated size_average / reduce flags, folded into `reduction`."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _reduce(loss: Any, reduction: str, fn: str) -> Any:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{fn}: {reduction!r} is not a valid value for reduction")


def _pair(input: Any, target: Any, fn: str) -> None:
    check_tensor(input, fn, "input")
    check_tensor(target, fn, "target")
    try:
        sdk.broadcast_shapes(input.shape, target.shape)
    except Exception:
        raise ValueError(
            f"{fn}: target shape {list(target.shape)} does not broadcast with input shape "
            f"{list(input.shape)}"
        ) from None


def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean") -> Any:  # fmt: skip
    """|input - target|."""
    _pair(input, target, "l1_loss")
    return _reduce((input - target).abs(), legacy_reduction(size_average, reduce, reduction),
                   "l1_loss")  # fmt: skip


def smooth_l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Any:  # fmt: skip
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""
    _pair(input, target, "smooth_l1_loss")
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be >= 0, got {beta}")
    d = (input - target).abs()
    loss = d if beta == 0 else sdk.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "smooth_l1_loss")


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Any:
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta)."""
    _pair(input, target, "huber_loss")
    if not delta > 0:
        raise ValueError(f"huber_loss: delta must be > 0, got {delta}")
    d = (input - target).abs()
    loss = sdk.where(d <= delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _reduce(loss, reduction, "huber_loss")


def binary_cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Any:  # fmt: skip
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as torch does."""
    _pair(input, target, "binary_cross_entropy")
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    with sdk.no_grad():
        if input.numel() and bool(((input < 0) | (input > 1)).any()):
            raise ValueError(
                "binary_cross_entropy: all elements of input should be between 0 and 1"
            )
    loss = -(
        target * input.log().clamp_min(-100) + (1 - target) * (1 - input).log().clamp_min(-100)
    )
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "binary_cross_entropy")


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Any:  # fmt: skip
    """binary_cross_entropy(sigmoid(input), target) computed stably; pos_weight scales the
    positive term."""
    _pair(input, target, "binary_cross_entropy_with_logits")
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Target size ({list(target.shape)}) must be the same as input size "
            f"({list(input.shape)})"
        )
    softplus_neg = (-input.abs()).exp().log1p() + (-input).relu()  # log(1 + exp(-x))
    if pos_weight is None:
        loss = (1 - target) * input + softplus_neg
    else:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * softplus_neg
    if weight is not None:
        loss = loss * weight
    red = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss, red, "binary_cross_entropy_with_logits")


def kl_div(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Any:  # fmt: skip
    """target * (log target - input) with input log-probabilities (target log-probabilities
    too when log_target); reduction "batchmean" divides the sum by the batch size."""
    _pair(input, target, "kl_div")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = sdk.xlogy(target, target) - target * input
    red = legacy_reduction(size_average, reduce, reduction)
    if red == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, red, "kl_div")


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
    _pair(x1, x2, "cosine_similarity")
    x1, x2 = sdk.broadcast_tensors(x1, x2)
    n1 = sdk.norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = sdk.norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


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
