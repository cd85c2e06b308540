"""nn.functional margin, embedding and count losses: margin_ranking, hinge_embedding,
cosine_embedding, triplet_margin, soft_margin and poisson_nll, composed from differentiable
sdk ops (so autograd needs no new rules)."""

from __future__ import annotations

import math
from typing import Any

import sdk

from .common import check_tensor
from .loss import _reduce, legacy_reduction

__all__ = [
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "soft_margin_loss",
    "poisson_nll_loss",
]


def _tensors(fn: str, **named: Any) -> None:
    for name, t in named.items():
        check_tensor(t, fn, name)


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Any:  # fmt: skip
    """max(0, -target * (input1 - input2) + margin), target +1 or -1."""
    _tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    loss = (-target * (input1 - input2) + margin).clamp_min(0)
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "margin_ranking_loss")


def hinge_embedding_loss(input: Any, target: Any, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Any:  # fmt: skip
    """input where target is 1, max(0, margin - input) where it is -1."""
    _tensors("hinge_embedding_loss", input=input, target=target)
    zeros = sdk.zeros_like(input)
    below = sdk.where(target != 1, (margin - input).clamp_min(0), zeros)
    loss = below + sdk.where(target != -1, input, zeros)
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "hinge_embedding_loss")


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Any:  # fmt: skip
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    if input1.ndim not in (1, 2) or input1.shape != input2.shape:
        raise RuntimeError(
            "cosine_embedding_loss: expected 1D or 2D inputs of one shape, got "
            f"{list(input1.shape)} and {list(input2.shape)}"
        )
    dim = input1.ndim - 1
    eps = 1e-12  # keeps zero vectors finite, as torch's formula does
    dot = (input1 * input2).sum(dim)
    mags = ((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)
    cos = dot / mags.sqrt()
    zeros = sdk.zeros_like(cos)
    loss = sdk.where(target == 1, 1 - cos, zeros)
    loss = loss + sdk.where(target == -1, (cos - margin).clamp_min(0), zeros)
    red = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss, red, "cosine_embedding_loss")


def _distance(x1: Any, x2: Any, p: float, eps: float) -> Any:
    """pairwise_distance's p-norm of x1 - x2 + eps over the last dim."""
    diff = (x1 - x2 + eps).abs()
    if p == float("inf"):
        return diff.amax(-1)
    return (diff**p).sum(-1) ** (1.0 / p)


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Any:  # fmt: skip
    """max(0, d(anchor, positive) - d(anchor, negative) + margin), d the p-norm distance;
    swap uses d(positive, negative) where it is smaller."""
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "triplet_margin_loss: The anchor, positive, and negative tensors are expected to "
            f"have the same number of dimensions, but got: anchor {anchor.ndim}D, positive "
            f"{positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    d_pos = _distance(anchor, positive, p, eps)
    d_neg = _distance(anchor, negative, p, eps)
    if swap:
        d_neg = sdk.minimum(d_neg, _distance(positive, negative, p, eps))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "triplet_margin_loss")


def soft_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Any:  # fmt: skip
    """log(1 + exp(-target * input))."""
    _tensors("soft_margin_loss", input=input, target=target)
    loss = sdk.nn.functional.softplus(-target * input)
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "soft_margin_loss")


def poisson_nll_loss(input: Any, target: Any, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Any:  # fmt: skip
    """The Poisson negative log-likelihood: exp(input) - target * input for log-rates, else
    input - target * log(input + eps); full adds Stirling's term where target > 1."""
    _tensors("poisson_nll_loss", input=input, target=target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        safe = sdk.where(target > 1, target, sdk.ones_like(target))
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + sdk.where(target > 1, stirling, sdk.zeros_like(stirling))
    return _reduce(loss, legacy_reduction(size_average, reduce, reduction), "poisson_nll_loss")
