"""Framed messages on a pipe from one DataLoader worker to the main process.

Each worker has a pipe of its own, so no lock is shared between processes: a worker killed
while it writes cannot leave a lock held that stops the others. The worker pickles a
message in full before it writes (so a pickling error is its to report, not a lost batch),
and the main process reads without blocking, reassembling frames as bytes arrive: a worker
that dies halfway through a frame leaves a partial frame behind, never a reader blocked on
the rest of it.
"""

from __future__ import annotations

import os
import queue
import struct
import threading
from typing import Any

# Task index (CONTROL for a message that answers no task), then the payload's length.
_HEAD = struct.Struct("!qQ")
CONTROL = -1
WRITE_FAILED = 75  # exit status of a worker that could not write a frame


_CHUNK = 1 << 16  # bytes read at once; a larger body is read straight into its buffer


def write_frame(fd: int, idx: int, payload: Any) -> None:
    """Write one frame (blocking) on the worker's end of its pipe, in as few calls as the
    pipe allows."""
    bufs = [memoryview(_HEAD.pack(idx, len(payload))), memoryview(payload).cast("B")]
    while bufs:
        n = os.writev(fd, bufs)
        while bufs and n >= len(bufs[0]):
            n -= len(bufs.pop(0))
        if bufs:
            bufs[0] = bufs[0][n:]


def widen(fd: int) -> None:
    """Ask for a pipe of 1 MiB (Linux; 64 KiB is the default): fewer reads, fewer switches."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass  # not Linux, or above the system's limit: the default works, only slower


class FrameWriter:
    """The worker's end: frames are written by a thread of their own, so the worker fetches
    its next batch while the main process has yet to read the last one."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._pending: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="frame-writer", daemon=True)
        self._thread.start()

    def put(self, idx: int, payload: Any) -> None:
        self._pending.put((idx, payload))

    def _run(self) -> None:
        while (item := self._pending.get()) is not None:
            try:
                write_frame(self.fd, *item)
            except BaseException:
                # The main process is gone, or this frame is lost: either way the worker
                # can tell it nothing more, and its exit is what the main process watches.
                os._exit(WRITE_FAILED)

    def close(self) -> None:
        """Write what is pending, then stop."""
        self._pending.put(None)
        self._thread.join()


class FrameReader:
    """The main process's end of one worker's pipe: non-blocking reads, whole frames out."""

    def __init__(self, conn: Any) -> None:
        # The descriptor is ours alone: a Connection closes its own when collected, which in
        # a reference cycle may come before the loader's shutdown that still drains it.
        self.fd = os.dup(conn.fileno())
        conn.close()
        os.set_blocking(self.fd, False)
        widen(self.fd)
        self.eof = False
        self._head = bytearray(_HEAD.size)
        self._body: bytearray | None = None
        self._idx = 0
        self._got = 0  # bytes of the current head or body read so far

    @property
    def partial_idx(self) -> int | None:
        """The task index of a frame begun but not finished (None when there is none)."""
        if self._body is not None:
            return self._idx
        return None

    @property
    def mid_frame(self) -> bool:
        return self._body is not None or self._got > 0

    def read(self) -> tuple[list[tuple[int, bytearray]], bool]:
        """(every frame completed by what is readable now, whether any byte arrived)."""
        frames: list[tuple[int, bytearray]] = []
        progress = False
        while not self.eof:
            body = self._body
            try:
                if body is not None and len(body) - self._got > _CHUNK:
                    n = os.readv(self.fd, [memoryview(body)[self._got :]])
                    chunk = None
                else:
                    chunk = os.read(self.fd, _CHUNK)
                    n = len(chunk)
            except BlockingIOError:
                break
            if n == 0:
                self.eof = True  # every write end is closed: the worker has exited
                break
            progress = True
            if chunk is None:
                self._got += n
                if self._got == len(body):
                    self._finish(frames)
            else:
                self._feed(memoryview(chunk), frames)
                if n < _CHUNK:
                    break  # the pipe is empty: spare the call that would say so
        return frames, progress

    def _feed(self, view: memoryview, frames: list) -> None:
        """Split `view` into the current head or body and the frames after it."""
        while view:
            if self._body is None:
                take = min(_HEAD.size - self._got, len(view))
                self._head[self._got : self._got + take] = view[:take]
                self._got += take
                if self._got == _HEAD.size:
                    self._idx, size = _HEAD.unpack(self._head)
                    self._body, self._got = bytearray(size), 0
                    if size == 0:
                        self._finish(frames)
            else:
                take = min(len(self._body) - self._got, len(view))
                self._body[self._got : self._got + take] = view[:take]
                self._got += take
                if self._got == len(self._body):
                    self._finish(frames)
            view = view[take:]

    def _finish(self, frames: list) -> None:
        frames.append((self._idx, self._body))
        self._body, self._got = None, 0

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = -1
        self.eof = True
