"""nn.functional normalization: layer, batch, instance, group, RMS and local response norm."""

from __future__ import annotations

from typing import Any

import sdk
from sdk._ops_common import needs_grad, record

from .common import check_tensor

__all__ = [
    "layer_norm",
    "batch_norm",
    "instance_norm",
    "group_norm",
    "rms_norm",
    "local_response_norm",
]


def layer_norm(
    input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Any:
    """Normalize over the trailing dims `normalized_shape`: (x - mean) / sqrt(var + eps), then
    scale by weight and shift by bias (both shaped like normalized_shape, optional)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        raise sdk.InvalidArgumentError(
            f"layer_norm: normalized_shape {list(shape)} does not match the trailing dims of the "
            f"input of shape {list(input.shape)}"
        )
    out, mean, rstd = sdk._C.layer_norm(input, len(shape), weight, bias, float(eps))
    if needs_grad(input, weight, bias):
        record("layer_norm", (input, weight, bias), out, ndim=len(shape), eps=float(eps),
               mean=mean, rstd=rstd)  # fmt: skip
    return out


def _normalize_trailing(x: Any, ndim: int, eps: float) -> Any:
    """(x - mean) / sqrt(var + eps) over x's last ndim dims: the fused layer_norm kernel (and
    its fused backward) without an affine part."""
    out, mean, rstd = sdk._C.layer_norm(x, ndim, None, None, float(eps))
    if needs_grad(x):
        record("layer_norm", (x, None, None), out, ndim=ndim, eps=float(eps), mean=mean,
               rstd=rstd)  # fmt: skip
    return out


def _affine(out: Any, weight: Any, bias: Any) -> Any:
    """out * weight + bias per channel (dim 1), each optional."""
    shape = _channel_shape(out)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _channel_shape(x: Any) -> list:
    """(1, C, 1, ...): per-channel values broadcast over (N, C, *)."""
    return [1, x.shape[1]] + [1] * (x.ndim - 2)


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Any:  # fmt: skip
    """Normalize each channel of (N, C, *) input by the batch statistics (training, which
    also updates running_mean / running_var in place) or by the running ones."""
    check_tensor(input, "batch_norm")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # fmt: skip
        if t is not None:
            check_tensor(t, "batch_norm", name)
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected input of shape (N, C, *), got {list(input.shape)}")
    dims = (0, *range(2, input.ndim))
    shape = _channel_shape(input)
    use_batch = training or running_mean is None or running_var is None
    if use_batch:
        n = input.numel() // max(input.shape[1], 1)
        if n <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{list(input.shape)}"
            )
        mean = input.mean(dims)
        var = input.var(dims, correction=0)
        if training and running_mean is not None and running_var is not None:
            with sdk.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
                running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean, running_var
    out = (input - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:  # fmt: skip
    """Normalize (N, C, *) input over each group of C / num_groups channels (and all of *)."""
    check_tensor(input, "group_norm")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            check_tensor(t, "group_norm", name)
    if input.ndim < 2:
        raise ValueError(f"group_norm: expected input of shape (N, C, *), got {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if not isinstance(num_groups, int) or num_groups <= 0 or c % num_groups:
        raise ValueError(
            f"group_norm: num_groups ({num_groups!r}) must be a positive int dividing the "
            f"number of channels ({c})"
        )
    out = _normalize_trailing(input.reshape(n, num_groups, -1), 1, eps).reshape(input.shape)
    return _affine(out, weight, bias)


def rms_norm(input: Any, normalized_shape: Any, weight: Any = None,
             eps: float | None = None) -> Any:  # fmt: skip
    """x / sqrt(mean(x^2 over the trailing dims normalized_shape) + eps) * weight; eps None
    means finfo(input.dtype).eps."""
    check_tensor(input, "rms_norm")
    if weight is not None:
        check_tensor(weight, "rms_norm", "weight")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k > input.ndim or tuple(input.shape[input.ndim - k :]) != shape:
        raise ValueError(
            f"rms_norm: normalized_shape {list(shape)} does not match the trailing dims of the "
            f"input of shape {list(input.shape)}"
        )
    if eps is None:
        eps = sdk.finfo(input.dtype).eps
    dims = tuple(range(input.ndim - k, input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def _check_optional(fn: str, **tensors: Any) -> None:
    for name, t in tensors.items():
        if t is not None:
            check_tensor(t, fn, name)


def instance_norm(input: Any, running_mean: Any = None, running_var: Any = None,
                  weight: Any = None, bias: Any = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Any:  # fmt: skip
    """Normalize each (sample, channel) of (N, C, *) input over its spatial dims; with
    use_input_stats the per-instance statistics are used (and, when running_mean /
    running_var are given, their batch average updates them in place), else the running ones."""
    check_tensor(input, "instance_norm")
    _check_optional("instance_norm", running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias)  # fmt: skip
    if input.ndim < 3:
        raise ValueError(
            f"instance_norm: expected input of shape (N, C, *) with at least one spatial dim, "
            f"got {list(input.shape)}"
        )
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # fmt: skip
        if t is not None and tuple(t.shape) != (c,):
            raise ValueError(
                f"instance_norm: {name} must have shape [{c}] (the channels), got {list(t.shape)}"
            )
    dims = tuple(range(2, input.ndim))
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError(
                "instance_norm: running_mean and running_var must be given when "
                "use_input_stats is False"
            )
        shape = _channel_shape(input)
        out = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
        return _affine(out, weight, bias)
    n = input.numel() // max(input.shape[0] * c, 1)
    if n <= 1:
        raise ValueError(
            "Expected more than 1 spatial element when training, got input size "
            f"{list(input.shape)}"
        )
    if running_mean is not None and running_var is not None:
        with sdk.no_grad():  # the batch average of the per-instance statistics
            x = input.detach()
            m = x.mean(dims).reshape(input.shape[0], c).mean(0)
            v = x.var(dims, correction=0).reshape(input.shape[0], c).mean(0) * (n / (n - 1))
            running_mean.mul_(1 - momentum).add_(m * momentum)
            running_var.mul_(1 - momentum).add_(v * momentum)
    return _affine(_normalize_trailing(input, len(dims), eps), weight, bias)


def local_response_norm(input: Any, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Any:  # fmt: skip
    """input / (k + alpha * mean of input^2 over `size` neighbouring channels) ** beta; the
    channel window is zero-padded by size // 2 before and (size - 1) // 2 after."""
    check_tensor(input, "local_response_norm")
    if input.ndim < 3:
        raise ValueError(
            f"local_response_norm: expected 3D or higher dimensionality input (got {input.ndim} "
            "dimensions)"
        )
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ValueError(f"local_response_norm: size must be a positive int, got {size!r}")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = (input * input).movedim(1, -1)
    sq = sdk.nn.functional.pad(sq, [size // 2, (size - 1) // 2])
    total = sq[..., 0:c]
    for j in range(1, size):
        total = total + sq[..., j : j + c]
    div = (total.movedim(-1, 1) * (alpha / size) + k) ** beta
    return input / div
