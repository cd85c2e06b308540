"""sdk.cuda.amp: torch.cuda.amp's names (custom_fwd, custom_bwd, autocast), the "cuda"
spellings of sdk.amp's, and GradScaler, sdk.amp.GradScaler on "cuda". The SDK has no
autocast mode: see sdk.amp for what each does."""

from __future__ import annotations

import importlib
from typing import Any, Callable

from sdk import amp as _amp
from sdk._dtype import dtype as _dtype_cls
from sdk._dtype import float16

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]  # noqa: F822 (__getattr__)


def custom_fwd(fwd: Callable | None = None, *, cast_inputs: _dtype_cls | None = None) -> Callable:
    """torch.cuda.amp.custom_fwd: sdk.amp.custom_fwd with device_type="cuda"."""
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable) -> Callable:
    """torch.cuda.amp.custom_bwd: sdk.amp.custom_bwd with device_type="cuda"."""
    return _amp.custom_bwd(bwd, device_type="cuda")


class autocast(_amp.autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True):
    sdk.amp.autocast("cuda", ...); enabled=True raises NotImplementedError on entry."""

    def __init__(
        self, enabled: bool = True, dtype: _dtype_cls = float16, cache_enabled: bool = True
    ) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def __getattr__(name: str) -> Any:
    # sdk.amp.GradScaler on "cuda", loaded on first use (it computes with tensors)
    if name == "GradScaler":
        return importlib.import_module("sdk._grad_scaler").CudaGradScaler
    raise AttributeError(f"module 'sdk.cuda.amp' has no attribute '{name}'")
