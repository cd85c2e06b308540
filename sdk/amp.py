"""sdk.amp: torch.amp's names for automatic mixed precision, which the SDK does not have.

Ops always run in their inputs' dtypes; there is no autocast mode. So, exactly as torch
behaves while autocast is off:
- is_autocast_enabled() is False; get_autocast_dtype() is torch's default per device type
  (float16 for "cuda", bfloat16 for "cpu"), the dtype autocast *would* use;
- custom_fwd(cast_inputs=...) runs forward with its inputs as given (torch casts them only
  inside an autocast region) and custom_bwd runs backward as is;
- autocast(..., enabled=False) is a real no-op region (autocast is off inside it, as
  everywhere). Entering autocast with enabled=True raises NotImplementedError instead of
  silently running in full precision: cast explicitly (x.to(sdk.float16)) instead.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, Callable

from sdk._dtype import bfloat16, float16
from sdk._dtype import dtype as _dtype_cls

__all__ = [  # noqa: F822  (GradScaler: loaded by __getattr__)
    "GradScaler",
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_dtype",
    "is_autocast_available",
    "is_autocast_enabled",
]

_DEFAULT_DTYPES = {"cuda": float16, "cpu": bfloat16}


def _device_type(device_type: Any, what: str) -> str:
    if not isinstance(device_type, str):
        raise ValueError(
            f"{what}: expected `device_type` of type `str`, got: `{type(device_type).__name__}`"
        )
    if device_type not in _DEFAULT_DTYPES:
        raise ValueError(f"{what}: device_type must be 'cuda' or 'cpu', got {device_type!r}")
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """False: the SDK has no autocast mode on any device."""
    _device_type(device_type, "is_autocast_available")
    return False


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """False: autocast is never active in the SDK."""
    if device_type is not None:
        _device_type(device_type, "is_autocast_enabled")
    return False


def get_autocast_dtype(device_type: str) -> _dtype_cls:
    """The dtype autocast would use on `device_type` (torch's defaults; never changed here)."""
    return _DEFAULT_DTYPES[_device_type(device_type, "get_autocast_dtype")]


def get_autocast_gpu_dtype() -> _dtype_cls:
    """torch's older name of get_autocast_dtype("cuda")."""
    return get_autocast_dtype("cuda")


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None), as context
    manager or decorator. enabled=False is a no-op region; entering with enabled=True raises
    NotImplementedError, since the SDK cannot cast ops automatically."""

    def __init__(
        self,
        device_type: str,
        dtype: _dtype_cls | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        self.device = _device_type(device_type, "autocast")
        if dtype is not None and not isinstance(dtype, _dtype_cls):
            raise TypeError(f"autocast: dtype must be an sdk.dtype, got {type(dtype).__name__}")
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        self._enabled = bool(enabled)
        self._cache_enabled = cache_enabled

    def __enter__(self) -> autocast:
        if self._enabled:
            raise NotImplementedError(
                f"autocast(device_type={self.device!r}, dtype={self.fast_dtype}): the SDK has "
                "no automatic mixed precision; ops run in their inputs' dtypes. Cast the "
                "inputs explicitly (x.to(dtype)), or pass enabled=False"
            )
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return run


def custom_fwd(
    fwd: Callable | None = None, *, device_type: str, cast_inputs: _dtype_cls | None = None
) -> Callable:
    """Decorator for an autograd Function's forward (torch.amp.custom_fwd). torch casts the
    floating inputs to `cast_inputs` only inside an autocast region, which never exists in
    the SDK: forward runs with its inputs as given, and the ctx records that autocast was off
    (as torch's does) for custom_bwd."""
    _device_type(device_type, "custom_fwd")
    if cast_inputs is not None and not isinstance(cast_inputs, _dtype_cls):
        raise TypeError(
            f"custom_fwd: cast_inputs must be an sdk.dtype, got {type(cast_inputs).__name__}"
        )
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = False  # is_autocast_enabled(device_type), always False
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable | None = None, *, device_type: str) -> Callable:
    """Decorator for an autograd Function's backward (torch.amp.custom_bwd): torch runs it
    with forward's autocast state, which in the SDK is always off, so it runs as is."""
    _device_type(device_type, "custom_bwd")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        return bwd(*args, **kwargs)

    return decorate_bwd


def __getattr__(name: str) -> Any:
    # GradScaler computes with tensors (a higher layer than this module): loaded on first use
    if name == "GradScaler":
        return importlib.import_module("sdk._grad_scaler").GradScaler
    raise AttributeError(f"module 'sdk.amp' has no attribute '{name}'")
