"""sdk.cuda's streams and events with torch.cuda's names: Stream (from the device's pool),
ExternalStream (a cudaStream_t made elsewhere) and Event.

Streams and events are addresses handed through the C ABI; SDK kernels run on the thread's
current stream (set_stream, the `stream` context), so work queued by extensions on
current_stream() is ordered with the SDK's own."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from sdk import _C
from sdk._dtype import device as _device_cls
from sdk.cuda._device import _index, _require, _resolved

__all__ = [
    "Event",
    "ExternalStream",
    "Stream",
    "current_stream",
    "default_stream",
    "set_stream",
    "stream",
]

_TIMING, _BLOCKING, _INTERPROCESS = 1, 2, 4  # SDK_CUDA_EVENT_* of the C ABI


class Stream:
    """A CUDA stream of `device` (None: the current one) from the device's pool, as torch's
    Stream: pooled streams are reused round-robin and never destroyed. `priority` below 0
    picks the high-priority pool (lower is more urgent, as torch)."""

    def __init__(self, device: Any = None, priority: int = 0) -> None:
        _require("Stream")
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"Stream(): priority must be an int, got {type(priority).__name__}")
        index = _resolved(device)
        self.cuda_stream = _C.cuda_stream_from_pool(index, priority)
        self.device_index = index

    @classmethod
    def _wrap(cls, address: int, device_index: int) -> Stream:
        """A Stream object for a stream that already exists (no pool)."""
        s = cls.__new__(cls)
        s.cuda_stream = int(address)
        s.device_index = device_index
        return s

    @property
    def device(self) -> _device_cls:
        index = self.device_index if self.device_index >= 0 else _C.cuda_current_device()
        return _device_cls("cuda", index)

    def query(self) -> bool:
        """True when all work queued on this stream has finished."""
        return _C.cuda_stream_query(self.cuda_stream or None)

    def synchronize(self) -> None:
        """Wait until all work queued on this stream has finished."""
        _C.cuda_stream_synchronize(self.cuda_stream or None)

    def wait_event(self, event: Event) -> None:
        """Make work queued on this stream from now on wait for `event`."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event(): expected an sdk.cuda.Event, got {type(event).__name__}")
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Make work queued on this stream from now on wait for all work queued on `stream`."""
        if not isinstance(stream, Stream):
            raise TypeError(f"wait_stream(): expected a Stream, got {type(stream).__name__}")
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Record `event` (a new one when None) on this stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        self._previous = current_stream(self.device_index)
        set_stream(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        set_stream(self._previous)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other.cuda_stream == self.cuda_stream

    def __hash__(self) -> int:
        return hash(self.cuda_stream)

    def __repr__(self) -> str:
        return f"<sdk.cuda.Stream device={self.device_index} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """A cudaStream_t made elsewhere (cupy, numba, another library), given by its address;
    `device` None (-1) is whichever device is current when it is used."""

    def __init__(self, stream_ptr: int, device: Any = None) -> None:
        if isinstance(stream_ptr, bool) or not isinstance(stream_ptr, int):
            raise TypeError(
                f"ExternalStream(): stream_ptr must be an int address, got "
                f"{type(stream_ptr).__name__}"
            )
        self.cuda_stream = int(stream_ptr)
        self.device_index = _index(device)


class Event:
    """A CUDA event, as torch.cuda.Event: made on the device of the first stream it is
    recorded on; until then query() is True and wait()/synchronize() do nothing.
    elapsed_time() needs enable_timing=True on both events."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        _require("Event")
        if enable_timing and interprocess:
            raise ValueError("Event(): an interprocess event cannot have enable_timing=True")
        self._flags = (
            (_TIMING if enable_timing else 0)
            | (_BLOCKING if blocking else 0)
            | (_INTERPROCESS if interprocess else 0)
        )
        self.enable_timing = bool(enable_timing)
        self.cuda_event = 0  # created on first record
        self.device_index = -1

    def record(self, stream: Stream | None = None) -> None:
        """Record the work queued on `stream` (default: the current stream) so far."""
        if stream is None:
            stream = current_stream()
        if not isinstance(stream, Stream):
            raise TypeError(f"Event.record(): expected a Stream, got {type(stream).__name__}")
        device = stream.device_index if stream.device_index >= 0 else _C.cuda_current_device()
        if not self.cuda_event:
            self.cuda_event = _C.cuda_event_create(device, self._flags)
            self.device_index = device
        elif device != self.device_index:
            raise ValueError(
                f"Event.record(): the event is on cuda:{self.device_index} but the stream is "
                f"on cuda:{device}"
            )
        _C.cuda_event_record(self.cuda_event, stream.cuda_stream or None)

    def wait(self, stream: Stream | None = None) -> None:
        """Make work queued on `stream` (default: current) from now on wait for this event."""
        if stream is None:
            stream = current_stream()
        if not isinstance(stream, Stream):
            raise TypeError(f"Event.wait(): expected a Stream, got {type(stream).__name__}")
        if self.cuda_event:
            _C.cuda_stream_wait_event(stream.cuda_stream or None, self.cuda_event)

    def query(self) -> bool:
        """True when the recorded work has finished (or nothing was recorded)."""
        return _C.cuda_event_query(self.cuda_event) if self.cuda_event else True

    def synchronize(self) -> None:
        """Wait until the recorded work has finished."""
        if self.cuda_event:
            _C.cuda_event_synchronize(self.cuda_event)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event to `end_event`, both recorded with enable_timing."""
        if not isinstance(end_event, Event):
            raise TypeError(
                f"elapsed_time(): expected an sdk.cuda.Event, got {type(end_event).__name__}"
            )
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("elapsed_time(): both events need enable_timing=True")
        if not (self.cuda_event and end_event.cuda_event):
            raise RuntimeError("elapsed_time(): both events must be recorded first")
        return _C.cuda_event_elapsed_time(self.cuda_event, end_event.cuda_event)

    def ipc_handle(self) -> Any:
        raise NotImplementedError(
            "Event.ipc_handle(): the SDK does not share CUDA events between processes"
        )

    def __del__(self) -> None:
        if getattr(self, "cuda_event", 0):
            try:
                _C.cuda_event_destroy(self.cuda_event)
            except Exception:  # at interpreter exit the backend may be gone: nothing to free
                pass
            self.cuda_event = 0

    def __repr__(self) -> str:
        state = f"{self.cuda_event:#x}" if self.cuda_event else "uninitialized"
        return f"<sdk.cuda.Event {state}>"


def current_stream(device: Any = None) -> Stream:
    """This thread's current stream on `device` (None: the current device); its cuda_stream
    is 0 for the default stream."""
    index = _index(device)
    address = _C.cuda_get_stream(index) or 0  # raises "CUDA is not available" without one
    return Stream._wrap(address, _C.cuda_current_device() if index == -1 else index)


def default_stream(device: Any = None) -> Stream:
    """The default (legacy, cuda_stream 0) stream of `device` (None: the current device)."""
    _require("default_stream")
    return Stream._wrap(0, _resolved(device))


def set_stream(s: Stream) -> None:
    """Make `s` this thread's current stream on its device: SDK kernels run on it."""
    if not isinstance(s, Stream):
        raise TypeError(f"set_stream(): expected an sdk.cuda.Stream, got {type(s).__name__}")
    _C.cuda_set_stream(s.device_index, s.cuda_stream or None)


def _stream_address(s: Any) -> int:
    """A stream argument: an sdk.cuda.Stream, any object with an int `cuda_stream` (torch's
    streams), or a raw address."""
    address = getattr(s, "cuda_stream", s)
    if isinstance(address, bool) or not isinstance(address, int):
        raise TypeError(
            f"record_stream(): expected a CUDA stream (sdk.cuda.Stream or an object "
            f"with an int cuda_stream), got {type(s).__name__}"
        )
    return address


def _record_stream(tensor: Any, s: Any) -> None:
    """Tensor.record_stream: see sdk.Tensor.record_stream."""
    _C.cuda_record_stream(tensor, _stream_address(s) or None)


@contextlib.contextmanager
def stream(s: Stream | None) -> Iterator[Stream | None]:
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
