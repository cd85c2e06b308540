"""nn.functional: stateless layers, activations and losses built from differentiable sdk ops."""

from __future__ import annotations

from typing import Any

import sdk

__all__ = [
    "linear",
    "relu",
    "sigmoid",
    "tanh",
    "elu",
    "gelu",
    "silu",
    "mish",
    "softplus",
    "leaky_relu",
    "hardtanh",
    "relu6",
    "softmax",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "cross_entropy",
    "dropout",
]


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    """input @ weight.T + bias (one fused addmm for 2-D input)."""
    if input.ndim == 2 and bias is not None:
        return sdk.addmm(bias, input, weight.t())
    out = sdk.matmul(input, weight.t())
    return out if bias is None else out + bias


def relu(input: Any, inplace: bool = False) -> Any:
    return input.relu_() if inplace else sdk.relu(input)


def sigmoid(input: Any) -> Any:
    return sdk.sigmoid(input)


def tanh(input: Any) -> Any:
    return sdk.tanh(input)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    if inplace:
        from sdk._ops_elementwise import elu_

        return elu_(input, alpha)
    return sdk.elu(input, alpha=alpha)


def gelu(input: Any, approximate: str = "none") -> Any:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return sdk.gelu(input, approximate=approximate)


def silu(input: Any, inplace: bool = False) -> Any:
    """x * sigmoid(x)."""
    from sdk._ops_elementwise import silu as impl

    return impl(input, inplace)


def mish(input: Any, inplace: bool = False) -> Any:
    """x * tanh(softplus(x))."""
    from sdk._ops_elementwise import mish as impl

    return impl(input, inplace)


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """log(1 + exp(beta * x)) / beta, linear where beta * x > threshold."""
    from sdk._ops_elementwise import softplus as impl

    return impl(input, beta, threshold)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    """x if x > 0 else negative_slope * x."""
    from sdk._ops_elementwise import leaky_relu as impl

    return impl(input, negative_slope, inplace)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:
    """x clamped to [min_val, max_val]."""
    from sdk._ops_elementwise import hardtanh as impl

    return impl(input, min_val, max_val, inplace)


def relu6(input: Any, inplace: bool = False) -> Any:
    """min(max(x, 0), 6)."""
    from sdk._ops_elementwise import relu6 as impl

    return impl(input, inplace)


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Any:
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return sdk.softmax(input, dim)


def log_softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Any:
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return sdk.log_softmax(input, dim)


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    if tuple(input.shape) != tuple(target.shape):
        import warnings

        warnings.warn(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}). This will likely lead to incorrect results due to broadcasting.",
            stacklevel=2,
        )
    d = input - target
    return _reduce(d * d, reduction)


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
    return _reduce(loss, reduction)


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
        return _reduce(-(lw * target).sum(dim=dim), reduction)
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
        smooth = _reduce(smooth, reduction)
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


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
