"""DataLoader worker processes: the loop each worker runs, get_worker_info, and how an
exception raised in a worker travels to the main process."""

from __future__ import annotations

import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import sdk

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
    """An exception caught in a worker, carried (picklable) with its formatted traceback."""

    def __init__(self, exc_info: Any, where: str) -> None:
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:  # KeyError quotes its message; keep it readable
            msg = KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
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


def worker_loop(dataset: Any, index_queue: Any, data_queue: Any, done_event: Any,
                auto_collation: bool, collate_fn: Any, drop_last: bool, batch_size: Any,
                seed: int, init_fn: Any, worker_id: int, num_workers: int,
                iterable: bool) -> None:  # fmt: skip
    """Fetch what the main process asks for ((send_idx, indices) from index_queue) and put
    (send_idx, batch or ExceptionWrapper) on data_queue, until told to stop (None)."""
    global _info
    try:
        sdk.set_num_threads(1)  # workers run side by side; the main process keeps its threads
        sdk.manual_seed(seed)
        random.seed(seed)
        _info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = (IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
                       if iterable else None)  # fmt: skip
        except Exception:
            init_error = ExceptionWrapper(
                sys.exc_info(), f"in DataLoader worker process {worker_id}"
            )
        while not done_event.is_set():
            try:
                msg = index_queue.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if msg is None:
                break
            if isinstance(msg, ResumeIteration):
                if iterable and init_error is None:
                    fetcher = IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
                data_queue.put((msg, None))
                continue
            send_idx, indices = msg
            if init_error is not None:
                data_queue.put((send_idx, init_error))
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
                data = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
            data_queue.put((send_idx, data))
            del data
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
