"""sdk.cuda: CUDA devices, streams and the caching allocator, with torch.cuda's names.

Reaches the core through sdk._C like the rest of sdk. Nothing here loads CUDA until asked: ``import sdk.cuda`` is free on a CPU-only machine, and every query answers
"not available" there instead of failing.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from sdk import _C, _autograd_link
from sdk._dtype import CUDA_TENSOR_TYPES as _TENSOR_TYPES
from sdk._dtype import device as _device_cls
from sdk.grad_mode import is_grad_enabled as _is_grad_enabled

__all__ = [
    "ExternalStream",
    "current_device",
    "current_stream",
    "device",
    "device_count",
    "empty_cache",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
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


def _index(device: Any) -> int:
    """A device argument (None, int, 'cuda:1', sdk.device) as an ordinal; -1 = current."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    d = device if isinstance(device, _device_cls) else _device_cls(device)
    if d.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {d}")
    return -1 if d.index is None else d.index


# ------------------------------------------------------------------------------ devices


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


# ------------------------------------------------------------------------------ streams


class ExternalStream:
    """A cudaStream_t made elsewhere (cupy, numba, another library), given by its address."""

    def __init__(self, stream_ptr: int, device: Any = None) -> None:
        self.cuda_stream = int(stream_ptr)
        self.device_index = _index(device)

    def __repr__(self) -> str:
        return f"<sdk.cuda.Stream device={self.device_index} cuda_stream={self.cuda_stream:#x}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExternalStream) and other.cuda_stream == self.cuda_stream

    def __hash__(self) -> int:
        return hash(self.cuda_stream)


def current_stream(device: Any = None) -> ExternalStream:
    """This thread's current stream on `device`; cuda_stream 0 is the default stream."""
    index = _index(device)
    return ExternalStream(_C.cuda_get_stream(index) or 0, index)


def set_stream(s: ExternalStream) -> None:
    """Make `s` this thread's current stream on its device: SDK kernels run on it."""
    _C.cuda_set_stream(s.device_index, s.cuda_stream or None)


def _stream_address(s: Any) -> int:
    """A stream argument: an ExternalStream, any object with an int `cuda_stream` (torch's
    streams), or a raw address."""
    address = getattr(s, "cuda_stream", s)
    if isinstance(address, bool) or not isinstance(address, int):
        raise TypeError(
            f"record_stream(): expected a CUDA stream (sdk.cuda.ExternalStream or an object "
            f"with an int cuda_stream), got {type(s).__name__}"
        )
    return address


def _record_stream(tensor: Any, s: Any) -> None:
    """Tensor.record_stream: see sdk.Tensor.record_stream."""
    _C.cuda_record_stream(tensor, _stream_address(s) or None)


@contextlib.contextmanager
def stream(s: ExternalStream | None) -> Iterator[ExternalStream | None]:
    """Run the block with `s` as the current stream (None: leave the stream as it is)."""
    if s is None:
        yield None
        return
    previous = current_stream(s.device_index)
    set_stream(s)
    try:
        yield s
    finally:
        set_stream(previous)


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
