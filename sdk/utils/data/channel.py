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


def write_frame(fd: int, idx: int, payload: Any) -> None:
    """Write one frame (blocking) on the worker's end of its pipe."""
    _write_all(fd, _HEAD.pack(idx, len(payload)))
    _write_all(fd, payload)


def _write_all(fd: int, data: Any) -> None:
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view) :]


class FrameWriter:
    """The worker's end: frames are written by a thread of their own, so the worker fetches
    its next batch while the main process has yet to read the last one."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.error: OSError | None = None  # why writing stopped (the main process is gone)
        self._pending: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="frame-writer", daemon=True)
        self._thread.start()

    def put(self, idx: int, payload: Any) -> None:
        if self.error is not None:
            raise self.error
        self._pending.put((idx, payload))

    def _run(self) -> None:
        while (item := self._pending.get()) is not None:
            try:
                write_frame(self.fd, *item)
            except OSError as e:
                self.error = e
                return

    def close(self) -> None:
        """Write what is pending, then stop."""
        self._pending.put(None)
        self._thread.join()


class FrameReader:
    """The main process's end of one worker's pipe: non-blocking reads, whole frames out."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn  # owns the descriptor (closed with it)
        self.fd = conn.fileno()
        os.set_blocking(self.fd, False)
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
            target = self._head if self._body is None else self._body
            try:
                n = os.readv(self.fd, [memoryview(target)[self._got :]])
            except BlockingIOError:
                break
            if n == 0:
                self.eof = True  # every write end is closed: the worker has exited
                break
            progress = True
            self._got += n
            if self._got == len(target):
                self._advance(frames)
        return frames, progress

    def _advance(self, frames: list) -> None:
        self._got = 0
        if self._body is None:
            self._idx, size = _HEAD.unpack(self._head)
            self._body = bytearray(size)
            if size:
                return
        frames.append((self._idx, self._body))
        self._body = None

    def close(self) -> None:
        self.conn.close()
