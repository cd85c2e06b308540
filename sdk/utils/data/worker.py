"""DataLoader worker processes: the loop each worker runs, get_worker_info, and how an
exception raised in a worker travels to the main process."""

from __future__ import annotations

import ctypes
import os
import pickle
import queue
import random
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import Any

import sdk

from . import channel
from .collate import default_collate
from .dataset import TensorDataset

__all__ = ["WorkerInfo", "get_worker_info"]

# How long blocking queue reads wait before checking on the other side (seconds).
POLL_S = 1.0


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process: its id, the number of workers, its seed and its copy
    of the dataset; None in the main process."""
    return _info


class ExceptionWrapper:
    """An exception caught in a worker, carried with its formatted traceback. It always
    pickles: the exception's type travels as pickled bytes, loaded again only when raised,
    and a type that cannot make the trip (a class local to a function, one the main process
    cannot import) is raised as a RuntimeError that names it."""

    def __init__(self, exc_info: Any, where: str) -> None:
        self.exc_type_name = exc_info[0].__qualname__
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where
        try:
            self._type_blob: bytes | None = pickle.dumps(exc_info[0])
        except Exception:
            self._type_blob = None

    def _exc_type(self) -> type | None:
        if self._type_blob is None:
            return None
        try:
            exc_type = pickle.loads(self._type_blob)
        except Exception:
            return None
        return exc_type if isinstance(exc_type, type) and issubclass(exc_type, Exception) else None

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type_name} {self.where}.\nOriginal {self.exc_msg}"
        exc_type = self._exc_type()
        if exc_type is None:
            raise RuntimeError(msg)
        if exc_type is KeyError:  # KeyError quotes its message; keep it readable
            msg = KeyErrorMessage(msg)
        try:
            exc = exc_type(msg)
        except Exception:  # a type whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise exc


class KeyErrorMessage(str):
    def __repr__(self) -> str:
        return str(self)


class StopWorker:
    """Sent by an IterableDataset worker whose iterator is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class ResumeIteration:
    """Sent to persistent workers at the start of a new epoch (they re-create their
    IterableDataset iterator); echoed back once done."""


def fetch(dataset: Any, indices: Any, auto_collation: bool, collate_fn: Any) -> Any:
    """One batch (or, without auto-collation, one sample) of a map-style dataset."""
    if auto_collation:
        if collate_fn is default_collate and type(dataset) is TensorDataset:
            # Same result as stacking the rows one by one, in one gather per tensor.
            idx = sdk.tensor(indices, dtype=sdk.int64)
            return [t.index_select(0, idx) for t in dataset.tensors]
        getitems = getattr(dataset, "__getitems__", None)
        data = getitems(indices) if getitems is not None else [dataset[i] for i in indices]
        return collate_fn(data)
    return collate_fn(dataset[indices])


class IterableFetcher:
    """Batches (or samples) of an IterableDataset, from one iterator over it."""

    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool):
        self.it = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, batch_size: int | None) -> Any:
        """The next batch; StopIteration when the dataset is exhausted."""
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.it))
        data = []
        for x in self.it:
            data.append(x)
            if len(data) == batch_size:
                break
        else:
            self.ended = True
            if not data or (self.drop_last and len(data) < batch_size):
                raise StopIteration
        return self.collate_fn(data)


def watch_parent(main_pid: int, direct_child: bool, pdeathsig: bool) -> None:
    """Make this worker exit when the main process dies, however it dies.

    On Linux the kernel sends SIGKILL at once (PR_SET_PDEATHSIG), but only when the main
    process started us from its main thread: the signal follows the parent *thread*, and a
    worker must not die with a short-lived thread that merely created the iterator.
    Everywhere, a daemon thread polls: our parent pid changes when a direct parent (fork,
    spawn) dies. A forkserver child's parent is the server, which outlives the main process
    as long as its children hold the server's liveness pipe, so it watches the main pid.
    """
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the polling thread below still watches
    ppid = os.getppid()
    if (direct_child and ppid != main_pid) or not _alive(main_pid):
        os._exit(_ORPHANED)  # it died before we could watch it
    args = (main_pid, ppid, direct_child)
    threading.Thread(target=_poll_parent, args=args, name="parent-watch", daemon=True).start()


_PR_SET_PDEATHSIG = 1
_ORPHANED = 70  # exit status of a worker that outlived the main process
PARENT_POLL_S = 0.25


def _poll_parent(main_pid: int, ppid: int, direct_child: bool) -> None:
    while os.getppid() == ppid and (direct_child or _alive(main_pid)):
        time.sleep(PARENT_POLL_S)
    os._exit(_ORPHANED)  # nothing to clean up that the dead main process could still use


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): the signal check above is all there is


def send(out: channel.FrameWriter, idx: int, data: Any, worker_id: int) -> None:
    """Pickle `data` and write it as task `idx`'s frame; what cannot be pickled is replaced
    by the pickling error, naming the batch, so the main process raises instead of waiting."""
    try:
        payload = ForkingPickler.dumps(data)
    except Exception:
        what = "batch" if idx != channel.CONTROL else "message"
        err = ExceptionWrapper(
            sys.exc_info(),
            f"in DataLoader worker process {worker_id} (pid {os.getpid()}) while pickling "
            f"{what} {idx} to send it to the main process",
        )
        payload = ForkingPickler.dumps(err)
    out.put(idx, payload)


def worker_loop(dataset: Any, index_queue: Any, out_conn: Any, done: Any,
                auto_collation: bool, collate_fn: Any, drop_last: bool, batch_size: Any,
                seed: int, init_fn: Any, worker_id: int, num_workers: int,
                iterable: bool, main_pid: int, direct_child: bool, pdeathsig: bool) -> None:  # fmt: skip
    """Fetch what the main process asks for ((send_idx, indices) from index_queue) and send
    each batch (or ExceptionWrapper) as a frame on out_conn, until told to stop (None on
    the queue, or `done` set), or until the main process dies."""
    watch_parent(main_pid, direct_child, pdeathsig)
    out = channel.FrameWriter(out_conn.fileno())
    try:
        _serve(dataset, index_queue, out, done, auto_collation, collate_fn, drop_last,
               batch_size, seed, init_fn, worker_id, num_workers, iterable)  # fmt: skip
    except (KeyboardInterrupt, OSError, EOFError):
        return  # Ctrl-C reaches the main process too; a broken pipe means it is gone
    if not done.value:
        out.close()  # asked to stop after its last batch: send it; else the batches are moot


def _serve(dataset: Any, index_queue: Any, out: channel.FrameWriter, done: Any, auto_collation: bool,
           collate_fn: Any, drop_last: bool, batch_size: Any, seed: int, init_fn: Any,
           worker_id: int, num_workers: int, iterable: bool) -> None:  # fmt: skip
    global _info
    sdk.set_num_threads(1)  # workers run side by side; the main process keeps its threads
    sdk.manual_seed(seed)
    random.seed(seed)
    _info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"
    init_error = None
    fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        if iterable:
            fetcher = IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(sys.exc_info(), where)
    while not done.value:
        try:
            msg = index_queue.get(timeout=POLL_S)
        except queue.Empty:
            continue
        if msg is None:
            break
        if isinstance(msg, ResumeIteration):
            if iterable and init_error is None:
                fetcher = IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
            send(out, channel.CONTROL, msg, worker_id)
            continue
        send_idx, indices = msg
        if init_error is not None:
            send(out, send_idx, init_error, worker_id)
            init_error = None  # reported once; the loader stops there
            continue
        try:
            if iterable:
                data = fetcher.fetch(batch_size)
            else:
                data = fetch(dataset, indices, auto_collation, collate_fn)
        except StopIteration:
            data = StopWorker(worker_id)
        except Exception:
            data = ExceptionWrapper(sys.exc_info(), where)
        send(out, send_idx, data, worker_id)
        del data
