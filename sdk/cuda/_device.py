"""sdk.cuda's device basics (availability, the current device, device arguments), shared by
its streams and property queries."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._dtype import device as _device_cls


def _index(device: Any) -> int:
    """A device argument (None, int, 'cuda:1', sdk.device) as an ordinal; -1 = current."""
    if device is None:
        return -1
    if isinstance(device, bool):
        raise TypeError("expected a CUDA device (int, str or sdk.device), got bool")
    if isinstance(device, int):
        return device
    d = device if isinstance(device, _device_cls) else _device_cls(device)
    if d.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {d}")
    return -1 if d.index is None else d.index


def is_available() -> bool:
    """True when CUDA can be used: backend library, runtime, driver and a visible GPU."""
    return _C.cuda_is_available()


def unavailable_reason() -> str:
    """Why is_available() is False ("" when it is True)."""
    return _C.cuda_unavailable_reason()


def device_count() -> int:
    """Number of visible CUDA devices (0 when CUDA is not available)."""
    return _C.cuda_device_count()


def current_device() -> int:
    """The ordinal new CUDA work of this thread goes to."""
    return _C.cuda_current_device()


def _resolved(device: Any) -> int:
    """A device argument as a concrete ordinal (None: the current device); needs CUDA."""
    index = _index(device)
    return current_device() if index == -1 else index


def _require(what: str) -> None:
    """RuntimeError "<what>: CUDA is not available: <reason>" unless CUDA can be used."""
    if not is_available():
        raise RuntimeError(f"{what}: CUDA is not available: {unavailable_reason()}")
