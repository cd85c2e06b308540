"""Normalization layers: LayerNorm, BatchNorm1d/2d/3d, SyncBatchNorm and InstanceNorm1d/2d/3d
(running statistics, train/eval), GroupNorm, RMSNorm, LocalResponseNorm."""

from __future__ import annotations

import warnings
from typing import Any

import sdk

from . import functional as F
from ._functional.common import check_tensor
from .module import Module
from .parameter import Parameter

__all__ = [
    "LayerNorm",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "SyncBatchNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "GroupNorm",
    "RMSNorm",
    "LocalResponseNorm",
]


class LayerNorm(Module):
    """layer_norm over the trailing dims `normalized_shape`; weight ones and bias zeros."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kw = {} if dtype is None else {"dtype": dtype}
        if elementwise_affine:
            self.weight = Parameter(sdk.ones(self.normalized_shape, **kw))
            if bias:
                self.bias = Parameter(sdk.zeros(self.normalized_shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if device is not None:
            self.to(device)

    def forward(self, input: Any) -> Any:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")  # fmt: skip


def _kw(dtype: Any) -> dict:
    return {} if dtype is None else {"dtype": dtype}


class _BatchNorm(Module):
    _dims: tuple = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        if isinstance(num_features, bool) or not isinstance(num_features, int) or num_features <= 0:
            raise ValueError(
                f"{type(self).__name__}: num_features must be a positive int, got {num_features!r}"
            )
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = _kw(dtype)
        if affine:
            self.weight = Parameter(sdk.ones(num_features, **kw))
            if bias:  # bias=False: an affine scale without the shift
                self.bias = Parameter(sdk.zeros(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", sdk.zeros(num_features, **kw))
            self.register_buffer("running_var", sdk.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", sdk.tensor(0, dtype=sdk.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def _check_input_dim(self, input: Any) -> None:
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with sdk.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def forward(self, input: Any) -> Any:
        check_tensor(input, type(self).__name__)
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}: expected {self.num_features} channels (dim 1), got "
                f"input of shape {list(input.shape)}"
            )
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with sdk.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or not self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, use_batch, factor, self.eps,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")  # fmt: skip


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L) input."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W) input."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization over (N, C, D, H, W) input."""

    _dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over (N, C, *) input. The SDK runs in one process, so the batch
    statistics are this process's: what torch computes when no process group is initialized."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any = None, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:  # fmt: skip
        if process_group is not None:
            raise NotImplementedError(
                "SyncBatchNorm: process_group must be None (the SDK has no distributed "
                "process groups; statistics are computed over this process's batch)"
            )
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)  # fmt: skip
        self.process_group = None

    def _check_input_dim(self, input: Any) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """module with every BatchNorm1d/2d/3d inside it replaced by a SyncBatchNorm sharing
        its parameters and running statistics (a new layer when module is one itself)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, (_InstanceNorm, cls)):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group,
                      bias=module.bias is not None)  # fmt: skip
            for name in ("weight", "bias"):
                if module.affine:
                    setattr(out, name, getattr(module, name))
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                setattr(out, name, getattr(module, name))
            out.training = module.training
        for name, child in list(module._modules.items()):
            if child is not None:
                out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel normalization over the spatial dims; running statistics (the
    batch average of the per-instance ones) only with track_running_stats."""

    _spatial = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)  # fmt: skip

    def forward(self, input: Any) -> Any:
        name = type(self).__name__
        check_tensor(input, name)
        n = self._spatial
        if input.ndim not in (n + 1, n + 2):
            raise ValueError(
                f"{name}: expected {n + 1}D (unbatched) or {n + 2}D input, got {input.ndim}D input"
            )
        batched = input.ndim == n + 2
        x = input if batched else input.unsqueeze(0)
        if x.shape[1] != self.num_features:
            msg = (f"{name}: expected input's size at dim {1 if batched else 0} to match "
                   f"num_features ({self.num_features}), but got: {x.shape[1]}.")  # fmt: skip
            if self.affine:
                raise ValueError(msg)
            warnings.warn(msg + " The layer normalizes each channel anyway.", stacklevel=2)
        out = F.instance_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats,
            0.0 if self.momentum is None else self.momentum, self.eps,
        )  # fmt: skip
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization over (N, C, L) or unbatched (C, L) input."""

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over (N, C, H, W) or unbatched (C, H, W) input."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over (N, C, D, H, W) or unbatched (C, D, H, W) input."""

    _spatial = 3


class LocalResponseNorm(Module):
    """Normalize each channel by its `size` neighbouring channels (local_response_norm)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise ValueError(f"LocalResponseNorm: size must be a positive int, got {size!r}")
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Any) -> Any:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class GroupNorm(Module):
    """Normalize (N, C, *) over groups of num_channels / num_groups channels."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if not isinstance(num_groups, int) or num_groups <= 0 or num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        if affine:
            self.weight = Parameter(sdk.ones(num_channels, **_kw(dtype)))
            self.bias = Parameter(sdk.zeros(num_channels, **_kw(dtype)))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Any) -> Any:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) * weight over the trailing dims normalized_shape."""

    def __init__(self, normalized_shape: Any, eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        shape = (
            (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        )
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(sdk.ones(shape, **_kw(dtype)))
        else:
            self.register_parameter("weight", None)

    def forward(self, input: Any) -> Any:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")  # fmt: skip
