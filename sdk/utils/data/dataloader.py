"""DataLoader: batches from a dataset, in the main process or in worker processes."""

from __future__ import annotations

import itertools
import multiprocessing as mp
import queue
from typing import Any, Callable, Iterator

import sdk

from . import worker as _w
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class _InfiniteConstantSampler(Sampler):
    """Stands for the sampler of an IterableDataset: the workers decide what comes next."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class DataLoader:
    """Iterate over `dataset` in batches of `batch_size` (torch.utils.data.DataLoader).

    shuffle draws a new permutation each epoch from `generator` (the default generator when
    None); sampler / batch_sampler choose indices yourself; collate_fn turns a list of
    samples into a batch (default_collate). num_workers > 0 fetches in that many worker
    processes (each seeded base_seed + worker_id; see get_worker_info); batches still come
    in sampler order (in_order=True), and an exception in a worker is raised here, naming the
    worker. pin_memory is accepted (tensors here live in ordinary host memory).
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:  # fmt: skip
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.generator = generator

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._iterator: Any = None

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # TypeError when the dataset has no length, as torch
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __del__(self) -> None:
        it = self.__dict__.get("_iterator")
        if it is not None:
            it._shutdown()


def _draw_seed(generator: Any) -> int:
    return int(sdk.randint(0, 2**62, (1,), generator=generator).item())


class _BaseIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._collate_fn = loader.collate_fn
        self._drop_last = loader.drop_last
        self._batch_size = loader.batch_size
        self._iterable = loader._iterable
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        # Drawn in every mode, as torch does, so that a generator gives the same shuffle
        # with and without workers (the sampler draws after this).
        self._base_seed = _draw_seed(loader.generator)
        self._timeout = loader.timeout
        self._yielded = 0
        self._length = None
        if self._iterable and hasattr(self._dataset, "__len__"):
            try:
                self._length = len(loader)
            except TypeError:
                pass

    def __iter__(self) -> _BaseIter:
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _warn_length(self) -> None:
        # An IterableDataset that yields more than its __len__ said (torch warns too).
        if self._length is not None and self._yielded > self._length:
            import warnings

            warnings.warn(
                f"Length of IterableDataset {self._dataset} was reported to be {self._length} "
                f"(when accessing len(dataloader)), but {self._yielded} samples have been "
                "fetched. ",
                stacklevel=3,
            )


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = (
            _w.IterableFetcher(self._dataset, self._auto_collation, self._collate_fn,
                               self._drop_last) if self._iterable else None
        )  # fmt: skip

    def __next__(self) -> Any:
        if self._iterable:
            data = self._fetcher.fetch(self._batch_size)
        else:
            indices = next(self._sampler_iter)
            data = _w.fetch(self._dataset, indices, self._auto_collation, self._collate_fn)
        self._yielded += 1
        self._warn_length()
        return data


class _MultiProcessIter(_BaseIter):
    """Workers take (send_idx, indices) from their own index queue and put (send_idx, data)
    on a shared result queue; up to prefetch_factor * num_workers tasks are outstanding.
    Results are reordered to sampler order (unless in_order=False)."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * self._num_workers
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        base_seed = self._base_seed
        self._done = ctx.Event()
        self._data_queue = ctx.Queue()
        self._index_queues = []
        self._workers = []
        for i in range(self._num_workers):
            iq = ctx.Queue()
            iq.cancel_join_thread()  # never block interpreter exit on unread indices
            p = ctx.Process(
                target=_w.worker_loop,
                args=(self._dataset, iq, self._data_queue, self._done, self._auto_collation,
                      self._collate_fn, self._drop_last, self._batch_size, base_seed + i,
                      loader.worker_init_fn, i, self._num_workers, self._iterable),
                daemon=True,
            )  # fmt: skip
            p.start()
            self._index_queues.append(iq)
            self._workers.append(p)
        self._shut = False
        self._start_epoch(first=True)

    def _start_epoch(self, first: bool) -> None:
        self._send_idx = 0  # tasks sent
        self._rcvd_idx = 0  # next task to yield
        self._task_info: dict = {}  # send_idx -> (worker,) while pending, (worker, data) when in
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._yielded = 0
        if not first:  # persistent workers: wait until each has reset its iterable state
            resume = _w.ResumeIteration()
            for q in self._index_queues:
                q.put(resume)
            left = self._num_workers
            while left:
                msg, _ = self._get()
                if isinstance(msg, _w.ResumeIteration):
                    left -= 1
        for _ in range(self._prefetch):
            self._put_task()

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._start_epoch(first=False)

    def _put_task(self) -> None:
        if not any(self._active):
            return
        try:
            indices = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            w = next(self._worker_cycle)
            if self._active[w]:
                break
        self._index_queues[w].put((self._send_idx, indices))
        self._task_info[self._send_idx] = (w,)
        self._send_idx += 1

    def _get(self) -> tuple:
        """The next (send_idx, data) from any worker; RuntimeError when a worker died or the
        timeout passed."""
        waited = 0.0
        step = min(_w.POLL_S, self._timeout) if self._timeout > 0 else _w.POLL_S
        while True:
            try:
                return self._data_queue.get(timeout=step)
            except queue.Empty:
                waited += step
                if self._timeout > 0 and waited >= self._timeout:
                    self._shutdown()
                    raise RuntimeError(
                        f"DataLoader timed out after {self._timeout} seconds"
                    ) from None
                dead = [p for p, on in zip(self._workers, self._active) if on and not p.is_alive()]
                if dead:
                    pids = ", ".join(str(p.pid) for p in dead)
                    codes = ", ".join(str(p.exitcode) for p in dead)
                    self._shutdown()
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly (exit code(s) "
                        f"{codes})"
                    ) from None

    def _advance(self) -> None:
        """Move past tasks already given out (in_order=False) or answered by a stopped worker."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info[self._rcvd_idx]
            if len(info) == 1 or info[1] is not _SKIP:
                return
            del self._task_info[self._rcvd_idx]
            self._rcvd_idx += 1

    def __next__(self) -> Any:
        if self._shut:
            raise StopIteration
        while True:
            self._advance()
            if self._rcvd_idx >= self._send_idx:
                self._end_epoch()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # arrived before its turn
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            idx, data = self._get()
            if isinstance(idx, _w.ResumeIteration):
                continue
            w = self._task_info[idx][0]
            if isinstance(data, _w.StopWorker):
                if self._active[w]:
                    self._active[w] = False
                    if not self._persistent:
                        self._index_queues[w].put(None)  # let it exit
                self._task_info[idx] = (w, _SKIP)
                continue
            if idx != self._rcvd_idx and not self._in_order:
                self._task_info[idx] = (w, _SKIP)
                return self._process(data)
            self._task_info[idx] = (w, data)

    def _process(self, data: Any) -> Any:
        self._put_task()
        if isinstance(data, _w.ExceptionWrapper):
            data.reraise()  # the workers keep going: iteration may continue after this
        self._yielded += 1
        self._warn_length()
        return data

    def _end_epoch(self) -> None:
        if not self._persistent:
            self._shutdown()

    def _shutdown(self) -> None:
        if getattr(self, "_shut", True):
            return
        self._shut = True
        try:
            self._done.set()
            for q in self._index_queues:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
            for p in self._workers:
                p.join(timeout=5)
                if p.is_alive():
                    p.terminate()
            for q in self._index_queues:
                q.close()
            self._data_queue.cancel_join_thread()
            self._data_queue.close()
        except Exception:  # interpreter shutdown: best effort
            pass

    def __del__(self) -> None:
        self._shutdown()


_SKIP = object()  # a task already given out, or answered by a stopped worker
