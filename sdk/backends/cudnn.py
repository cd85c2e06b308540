"""sdk.backends.cudnn: torch.backends.cudnn's flags, which training scripts set.

The SDK does not use cuDNN (its convolutions are its own kernels), so is_available() is False
and version() None; the flags keep what a script sets and change nothing."""

from __future__ import annotations

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: the SDK is not built with cuDNN."""
    return False


def version() -> None:
    """None: no cuDNN."""
    return None
