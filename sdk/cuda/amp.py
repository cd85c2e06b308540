"""sdk.cuda.amp: torch.cuda.amp's names (custom_fwd, custom_bwd, autocast), the "cuda"
spellings of sdk.amp's, and GradScaler, sdk.amp.GradScaler on "cuda". The SDK has no
autocast mode: see sdk.amp for what each does."""

from __future__ import annotations

from typing import Callable

from sdk import amp as _amp
from sdk._dtype import dtype as _dtype_cls
from sdk._dtype import float16

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


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


class GradScaler(_amp.GradScaler):
    """torch.cuda.amp.GradScaler(init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True): sdk.amp.GradScaler("cuda", ...) (disabled, with a
    warning, when CUDA is not available)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:  # fmt: skip
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)  # fmt: skip
