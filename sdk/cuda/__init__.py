"""sdk.cuda: CUDA devices, streams, events and the caching allocator, with torch.cuda's names.

Reaches the core through sdk._C like the rest of sdk. Nothing here loads CUDA until asked:
``import sdk.cuda`` is free on a CPU-only machine; is_available(), device_count() and
get_arch_list() answer "not available" there, and everything that needs a GPU raises
RuntimeError "CUDA is not available: <reason>". Streams and events are in sdk.cuda.streams,
device queries in sdk.cuda._properties, torch.cuda.amp's names in sdk.cuda.amp.
"""

from __future__ import annotations

from typing import Any

from sdk import _C, _autograd_link
from sdk._dtype import CUDA_TENSOR_TYPES as _TENSOR_TYPES
from sdk._dtype import device as _device_cls
from sdk.cuda import amp
from sdk.cuda._device import _index, current_device, device_count, is_available, unavailable_reason
from sdk.cuda._properties import (  # noqa: F401  (_CudaDeviceProperties: torch's type name)
    _CudaDeviceProperties,
    get_arch_list,
    get_device_capability,
    get_device_name,
    get_device_properties,
    is_bf16_supported,
    mem_get_info,
)
from sdk.cuda.streams import (  # noqa: F401  (_record_stream: sdk.Tensor.record_stream's)
    Event,
    ExternalStream,
    Stream,
    _record_stream,
    _stream_address,
    current_stream,
    default_stream,
    set_stream,
    stream,
)
from sdk.grad_mode import is_grad_enabled as _is_grad_enabled

__all__ = [
    "Event",
    "ExternalStream",
    "Stream",
    "amp",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "empty_cache",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_device",
    "set_stream",
    "stream",
    "synchronize",
    "unavailable_reason",
]

# ------------------------------------------------------------------------------ devices


def set_device(device: Any) -> None:
    """Make `device` (int, "cuda:N" or sdk.device) current for this thread."""
    _C.cuda_set_device(_index(device) if device is not None else 0)


def is_initialized() -> bool:
    """Whether CUDA can be used now (the backend starts on first use; as is_available())."""
    return is_available()


class device:
    """Context manager making `device` (int, "cuda:N", sdk.device; None or -1: no change)
    current for the block, then the previous one again."""

    def __init__(self, device: Any) -> None:
        self.idx = _index(device)  # -1 for None
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx != -1:
            self.prev_idx = current_device()
            set_device(self.idx)

    def __exit__(self, *exc: Any) -> None:
        if self.idx != -1:
            set_device(self.prev_idx)


def manual_seed(seed: int) -> None:
    """Seed the random numbers of CUDA tensors. They are drawn on the host by the default
    generator and then moved, so this seeds that generator (as sdk.manual_seed)."""
    _C.manual_seed(int(seed))


manual_seed_all = manual_seed  # one generator serves every device


def synchronize(device: Any = None) -> None:
    """Wait until all work on `device` (default: current) has finished."""
    _C.cuda_synchronize(_index(device))


# ------------------------------------------------------------------------------ memory


def empty_cache() -> None:
    """Give the caching allocator's unused cached blocks back to the driver."""
    _C.cuda_empty_cache()


def memory_stats(device: Any = None) -> dict[str, int]:
    """The caching allocator's counters for `device`: allocated/reserved bytes (current and
    peak), allocations served, frees, and the cudaMalloc/cudaFree calls behind them."""
    return _C.cuda_memory_stats(_index(device))


def memory_allocated(device: Any = None) -> int:
    """Bytes in live tensors' blocks on `device`."""
    return memory_stats(device)["allocated_bytes"]


def max_memory_allocated(device: Any = None) -> int:
    return memory_stats(device)["peak_allocated_bytes"]


def memory_reserved(device: Any = None) -> int:
    """Bytes held from the driver (live plus cached) on `device`."""
    return memory_stats(device)["reserved_bytes"]


def max_memory_reserved(device: Any = None) -> int:
    return memory_stats(device)["peak_reserved_bytes"]


def reset_peak_memory_stats(device: Any = None) -> None:
    _C.cuda_reset_peak_memory_stats(_index(device))


# ------------------------------------------------------------------------------ tensors


def _to_device(tensor: Any, device: Any) -> Any:
    """`tensor` copied to `device` (an sdk.device, string or CUDA ordinal); no autograd.

    Raises RuntimeError "CUDA is not available: <reason>" when CUDA cannot be used.
    """
    if isinstance(device, int):
        device = f"cuda:{device}"
    d = device if isinstance(device, _device_cls) else _device_cls(device)
    if d.type == "cpu":
        return _C.to_device(tensor, None)
    if d.index is None:
        return _C.to_device(tensor, current_device() if is_available() else 0)
    return _C.to_device(tensor, d.index)


def _same_device(t: Any, d: Any) -> bool:
    cur = t.device
    if cur.type != d.type:
        return False
    if d.type == "cpu":
        return True
    want = d.index if d.index is not None else (current_device() if is_available() else 0)
    return (cur.index or 0) == want


_TO_DEVICE_FN: Any = None


def _to_device_function() -> Any:
    """An autograd Function for device moves: the gradient goes back to the source device."""
    global _TO_DEVICE_FN
    if _TO_DEVICE_FN is None:

        class ToDevice(_autograd_link.autograd().Function):
            @staticmethod
            def forward(ctx, x, device):
                ctx.source = x.device
                return _to_device(x, device)

            @staticmethod
            def backward(ctx, grad):
                return _to_device(grad, ctx.source), None

        _TO_DEVICE_FN = ToDevice
    return _TO_DEVICE_FN


def _move(tensor: Any, device: Any) -> Any:
    """tensor.to(device): itself when already there; differentiable otherwise."""
    if isinstance(device, int):
        device = f"cuda:{device}"
    d = device if isinstance(device, _device_cls) else _device_cls(device)
    if _same_device(tensor, d):
        return tensor
    if d.type == "cuda" and not is_available():
        raise RuntimeError(f"CUDA is not available: {unavailable_reason()}")
    if getattr(tensor, "requires_grad", False) and _is_grad_enabled():
        return _to_device_function().apply(tensor, d)
    return _to_device(tensor, d)


def __getattr__(name: str) -> Any:
    # torch.cuda.FloatTensor & co. (sdk._tensor_types); isinstance() and Tensor.type() use them
    try:
        return _TENSOR_TYPES[name]
    except KeyError:
        raise AttributeError(f"module 'sdk.cuda' has no attribute {name!r}") from None
