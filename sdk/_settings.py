"""torch's process-wide switches that glue code sets and reads (interop threads, anomaly
detection, matmul precision, warn-always, default device, denormals, C++ ABI): each keeps
torch's name and answers what the sdk actually does, refusing the settings it cannot honour."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk._dtype import device

_state = {"matmul_precision": "highest", "warn_always": False}
_PRECISIONS = ("highest", "high", "medium")


def _bool(value: Any, fn: str, arg: str) -> bool:
    if value is not True and value is not False:  # (`bool` is sdk.bool, a dtype, in sdk)
        raise TypeError(f"{fn}(): argument '{arg}' must be bool, not {type(value).__name__}")
    return value


def get_num_interop_threads() -> int:
    """Threads for running independent ops at once: the sdk runs ops one after another (its
    parallelism is inside the kernels, see get_num_threads), so 1 unless set. The count is
    the core's, which C++ extensions read and set too (sdk::get_num_interop_threads)."""
    return _C._get_num_interop_threads()


def set_num_interop_threads(num: int) -> None:
    """Record the count get_num_interop_threads returns (no inter-op pool exists to resize)."""
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise RuntimeError(f"Expected positive number of threads, got {num!r}")
    _C._set_num_interop_threads(num)


def is_anomaly_enabled() -> bool:
    """Anomaly detection is not provided by sdk.autograd: always False."""
    return False


def is_anomaly_check_nan_enabled() -> bool:
    return False


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Only False is accepted: sdk.autograd has no anomaly detection (backward's errors
    name the op whose derivative failed instead)."""
    if _bool(enabled, "set_anomaly_enabled", "enabled"):
        raise NotImplementedError(
            "set_anomaly_enabled(True): sdk.autograd has no anomaly detection; its backward "
            "errors already name the op (grad_fn) whose derivative failed"
        )


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]


def set_float32_matmul_precision(precision: str) -> None:
    """'highest', 'high' or 'medium': 'high'/'medium' permit (never require) faster, less
    precise float32 products; the sdk's products stay full float32 either way."""
    if precision not in _PRECISIONS:
        raise RuntimeError(
            f"set_float32_matmul_precision(): expected one of {_PRECISIONS}, got {precision!r}"
        )
    _state["matmul_precision"] = precision


def is_warn_always_enabled() -> bool:
    return _state["warn_always"]


def set_warn_always(b: bool) -> None:
    """Kept for is_warn_always_enabled (the sdk's warnings go through Python's warnings
    module, whose filters decide how often they show)."""
    _state["warn_always"] = _bool(b, "set_warn_always", "b")


def get_default_device() -> device:
    """The device factories use without device=: always the CPU here."""
    return device("cpu")


def set_default_device(device: Any) -> None:
    """Only the CPU (or None) is accepted: factories place tensors elsewhere by device=."""
    if device is None or str(device) == "cpu":
        return
    raise NotImplementedError(
        f"set_default_device({device!r}): the sdk's default device is always the CPU; pass "
        "device= to the factory, or move tensors with .to(device)"
    )


def set_flush_denormal(mode: bool) -> bool:
    """False: flushing denormals to zero is not supported (torch's answer where the CPU
    cannot), so nothing changes."""
    _bool(mode, "set_flush_denormal", "mode")
    return False


def init_num_threads() -> None:
    """Nothing to do: the core's thread pool starts on first use."""


def compiled_with_cxx11_abi() -> bool:
    """True: the sdk is built with the compiler's default libstdc++ ABI (the C++11 one);
    extensions reach the core only through its C ABI and compile the C++ API themselves, so
    no std:: type crosses between differently built binaries."""
    return True


def get_deterministic_debug_mode() -> int:
    """0 off, 1 warn, 2 error: use_deterministic_algorithms' state as torch numbers it."""
    return {0: 0, 1: 2, 2: 1}[_C._get_deterministic()]


def set_deterministic_debug_mode(debug_mode: Any) -> None:
    """'default'/0, 'warn'/1 or 'error'/2: use_deterministic_algorithms under torch's names."""
    modes = {"default": 0, "warn": 1, "error": 2}
    mode = modes.get(debug_mode, debug_mode)
    if mode not in (0, 1, 2) or isinstance(mode, bool):
        raise RuntimeError(
            "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
            f"but got {debug_mode}"
        )
    _C._set_deterministic(mode != 0, mode == 1)


def is_distributed(input: Any) -> bool:
    return False


def is_vulkan_available() -> bool:
    return False
