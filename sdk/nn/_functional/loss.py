"""nn.functional losses: mse, nll, cross entropy, l1, smooth l1, huber, binary cross entropy
(plain and with logits), KL divergence, and the margin, embedding and count losses
(margin_ranking, hinge_embedding, cosine_embedding, triplet_margin, soft_margin, poisson_nll),
composed from differentiable sdk ops."""

from __future__ import annotations

import math
from typing import Any

import sdk

from .activation import log_softmax
from .common import check_tensor

__all__ = [
    "legacy_reduction",
    "mse_loss",
    "nll_loss",
    "cross_entropy",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "soft_margin_loss",
    "poisson_nll_loss",
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


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    if tuple(input.shape) != tuple(target.shape):
        import warnings

        warnings.warn(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}). This will likely lead to incorrect results due to broadcasting.",
            stacklevel=2,
        )
    d = input - target
    return _reduce(d * d, reduction, "mse_loss")


def _check_targets(input: Any, target: Any, fn: str) -> None:
    if input.ndim not in (1, 2):
        raise ValueError(f"{fn}: expected input of shape (N, C) or (C,), got {list(input.shape)}")
    if target.is_floating_point():
        raise TypeError(f"{fn}: class-index targets must be an integer tensor, got {target.dtype}")
    expect = tuple(input.shape[:1]) if input.ndim == 2 else ()
    if tuple(target.shape) != expect:
        raise ValueError(
            f"{fn}: target shape {list(target.shape)} does not match input shape "
            f"{list(input.shape)} (expected {list(expect)})"
        )


def nll_loss(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Any:
    """-input[n, target[n]] (weighted), over (N, C) log-probabilities and class indices."""
    _check_targets(input, target, "nll_loss")
    if input.ndim == 1:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    n_classes = input.shape[1]
    with sdk.no_grad():
        valid = target != ignore_index
        safe = target.masked_fill(valid.logical_not(), 0)
        t_np = sdk.testing._to_numpy(safe)
        if t_np.size and (t_np.min() < 0 or t_np.max() >= n_classes):
            raise IndexError(
                f"nll_loss: target {int(t_np.max() if t_np.max() >= n_classes else t_np.min())} is out of bounds for {n_classes} classes"
            )
        w = valid.to(input.dtype)
        if weight is not None:
            w = w * weight.index_select(0, safe)
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    loss = -(picked * w)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction, "nll_loss")


def cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    """log_softmax over classes (dim 1, or 0 for 1-D input) + nll_loss; float targets are
    class probabilities."""
    dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, dim)
    if target.is_floating_point():  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise ValueError(
                f"cross_entropy: probability targets must have the input's shape {list(input.shape)}, got {list(target.shape)}"
            )
        if label_smoothing:
            n_classes = input.shape[dim]
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        lw = logp if weight is None else logp * (weight if dim == 0 else weight.unsqueeze(0))
        return _reduce(-(lw * target).sum(dim=dim), reduction, "cross_entropy")
    loss = nll_loss(logp, target, weight=weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return loss
    # Label smoothing mixes in the uniform distribution: eps/C * sum_c -logp_c.
    n_classes = input.shape[dim]
    with sdk.no_grad():
        tgt = target.unsqueeze(0) if input.ndim == 1 else target
        valid = (tgt != ignore_index).to(input.dtype)
    lp = logp.unsqueeze(0) if input.ndim == 1 else logp
    lw = lp if weight is None else lp * weight.unsqueeze(0)
    smooth = -(lw.sum(dim=1)) * valid
    if reduction == "mean":
        denom = (
            valid.sum()
            if weight is None
            else (weight.index_select(0, tgt.masked_fill(valid == 0, 0)) * valid).sum()
        )
        smooth = smooth.sum() / denom
    else:
        smooth = _reduce(smooth, reduction, "cross_entropy")
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


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


# ------------------------------------------------ margin, embedding and count losses
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
