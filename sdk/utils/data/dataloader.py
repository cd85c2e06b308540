"""DataLoader: batches from a dataset, in the main process or in worker processes."""

from __future__ import annotations

import collections
import itertools
import multiprocessing as mp
import os
import pickle
import signal
import threading
import time
from multiprocessing import connection as mp_connection
from typing import Any, Callable, Iterator

import sdk

from . import channel
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

    Worker faults raise here instead of hanging: a worker that dies (even halfway through
    sending a batch) is a RuntimeError naming its pid and signal or exit status; a batch or
    exception that cannot be pickled raises with the worker's traceback; `timeout` > 0
    bounds the wait for a batch (counted from the last byte received). Workers exit when
    the main process dies, however it dies.
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:  # fmt: skip
        prefetch_factor = _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
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
            _check_iterable_options(shuffle, sampler, batch_sampler)
        shuffle = bool(shuffle)
        batch_size, drop_last = _check_batching(
            batch_size, shuffle, sampler, batch_sampler, drop_last
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
            if self._iterator is None or self._iterator._shut:  # first epoch, or after a fault
                self._iterator = None
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


def _mp_context(ctx: Any) -> Any:
    if ctx is None:
        return mp.get_context()
    if isinstance(ctx, str):
        return mp.get_context(ctx)
    return ctx


class _Failed:
    """A frame the main process could not unpickle: raised when its turn comes."""

    def __init__(self, exc: Exception, cause: Exception) -> None:
        self.exc = exc
        self.cause = cause


class _MultiProcessIter(_BaseIter):
    """Workers take (send_idx, indices) from their own index queue and send (send_idx, data)
    frames on their own pipe; up to prefetch_factor * num_workers tasks are outstanding.
    Results are reordered to sampler order (unless in_order=False).

    No wait here is unbounded: pipes are read without blocking, every wait also wakes when
    a worker exits, and a worker that exits while the main process still waits on it is
    reported as a RuntimeError with its pid and exit signal or status."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * self._num_workers
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        self._index_queues: list = []
        self._readers: list[channel.FrameReader] = []
        self._workers: list = []
        self._frames: collections.deque = collections.deque()  # (worker, idx, payload)
        self._broken: str | None = None  # why the iterator stopped early, if it did
        self._exited: set[int] = set()  # workers that exited as asked
        ctx = _mp_context(loader.multiprocessing_context)
        self._done = ctx.RawValue("b", 0)  # lock-free: a killed worker cannot leave it held
        self._owner = os.getpid()
        self._shut = False
        try:
            for i in range(self._num_workers):
                self._start_worker(ctx, loader, i)
            self._start_epoch(first=True)
        except BaseException:
            self._shutdown(fault=True)
            raise

    def _start_worker(self, ctx: Any, loader: DataLoader, i: int) -> None:
        iq = ctx.Queue()
        iq.cancel_join_thread()  # never block interpreter exit on unread indices
        self._index_queues.append(iq)
        reader, writer = ctx.Pipe(duplex=False)
        self._readers.append(channel.FrameReader(reader))
        method = ctx.get_start_method() if hasattr(ctx, "get_start_method") else None
        direct_child = method != "forkserver"  # else the server is the worker's parent
        # The kernel's parent-death signal follows the thread that forked: see watch_parent.
        pdeathsig = direct_child and threading.current_thread() is threading.main_thread()
        p = ctx.Process(
            target=_w.worker_loop,
            args=(self._dataset, iq, writer, self._done, self._auto_collation,
                  self._collate_fn, self._drop_last, self._batch_size, self._base_seed + i,
                  loader.worker_init_fn, i, self._num_workers, self._iterable,
                  os.getpid(), direct_child, pdeathsig),
            daemon=True,
        )  # fmt: skip
        try:
            p.start()
        finally:
            writer.close()  # only the worker writes: its exit then ends the pipe
        self._workers.append(p)

    def _start_epoch(self, first: bool) -> None:
        self._send_idx = 0  # tasks sent
        self._rcvd_idx = 0  # next task to yield
        self._task_info: dict = {}  # send_idx -> (worker,) while pending, (worker, data) when in
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._yielded = 0
        if not first:
            # Persistent workers: each answers what it was still given last epoch, then
            # echoes the resume once its iterable state is reset; what comes before is stale.
            resume = _w.ResumeIteration()
            for q in self._index_queues:
                q.put(resume)
            left = self._num_workers
            while left:
                if self._get(None)[1] == channel.CONTROL:
                    left -= 1
        for _ in range(self._prefetch):
            self._put_task()

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        try:
            self._start_epoch(first=False)
        except BaseException as e:
            self._break(e)
            raise

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

    # -- receiving ----------------------------------------------------------------------

    def _get(self, task: int | None) -> tuple[int, int, bytearray]:
        """The next frame (worker, idx, payload) from any worker; `task` is the batch waited
        for, if one is. RuntimeError when a worker exits while we wait, or when `timeout`
        seconds pass without a byte arriving; the iterator is shut down first."""
        try:
            deadline = self._deadline()
            while not self._frames:
                if self._read_all():
                    deadline = self._deadline()  # bytes arrived: the sender is not stuck
                    continue
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(self._timeout_message(task))
                if self._wait(deadline) and not self._read_all():
                    self._check_workers()  # a worker exited, and sent nothing more
        except BaseException as e:  # KeyboardInterrupt too: a frame may be half read
            self._break(e)
            raise
        return self._frames.popleft()

    def _deadline(self) -> float | None:
        return time.monotonic() + self._timeout if self._timeout > 0 else None

    def _wait(self, deadline: float | None) -> bool:
        """Wait (at most POLL_S, and not past `deadline`) for bytes or a worker's exit;
        whether a worker exited."""
        step = _w.POLL_S
        if deadline is not None:
            step = max(0.0, min(step, deadline - time.monotonic()))
        sentinels = [p.sentinel for w, p in enumerate(self._workers) if w not in self._exited]
        ready = mp_connection.wait([r.fd for r in self._readers if not r.eof] + sentinels, step)
        return any(s in ready for s in sentinels)

    def _read_all(self) -> bool:
        """Read every pipe without blocking; whether any byte arrived."""
        progress = False
        for w, reader in enumerate(self._readers):
            frames, got = reader.read()
            progress |= got
            self._frames.extend((w, idx, body) for idx, body in frames)
        return progress

    def _check_workers(self) -> None:
        """RuntimeError when a worker we still wait on has exited."""
        dead = [w for w, p in enumerate(self._workers) if p.exitcode is not None]
        lost = [w for w in dead if self._active[w]]
        if lost:
            raise RuntimeError(" ".join(self._death_message(w) for w in lost))
        self._exited.update(dead)  # stopped as asked: no need to watch them

    def _death_message(self, w: int) -> str:
        p = self._workers[w]
        code = p.exitcode
        if code < 0:
            how = f"is killed by signal: {signal.strsignal(-code) or -code}."
        else:
            how = f"exited unexpectedly with exit code {code}."
        msg = f"DataLoader worker (pid {p.pid}) {how}"
        reader = self._readers[w]
        if reader.mid_frame:
            idx = reader.partial_idx
            what = "a batch" if idx is None or idx == channel.CONTROL else f"batch {idx}"
            msg += f" It died while sending {what}; the part received was discarded."
        if code < 0 and -code == signal.SIGKILL:
            msg += " (SIGKILL often comes from the out-of-memory killer.)"
        return msg

    def _timeout_message(self, task: int | None) -> str:
        msg = f"DataLoader timed out after {self._timeout} seconds"
        info = self._task_info.get(task) if task is not None else None
        if info is not None:
            w = info[0]
            msg += f" waiting for batch {task} from worker {w} (pid {self._workers[w].pid})"
        return msg

    def _decode(self, w: int, idx: int, payload: bytearray) -> Any:
        try:
            return pickle.loads(payload)
        except Exception as e:
            return _Failed(
                RuntimeError(
                    f"DataLoader could not unpickle batch {idx} from worker {w} "
                    f"(pid {self._workers[w].pid}): {type(e).__name__}: {e}"
                ),
                e,
            )

    # -- iterating ----------------------------------------------------------------------

    def _advance(self) -> None:
        """Move past tasks already given out (in_order=False) or answered by a stopped worker."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info[self._rcvd_idx]
            if len(info) == 1 or info[1] is not _SKIP:
                return
            del self._task_info[self._rcvd_idx]
            self._rcvd_idx += 1

    def __next__(self) -> Any:
        if self._broken is not None:
            raise RuntimeError(
                f"this DataLoader iterator stopped after an error ({self._broken}); "
                "iter(loader) starts a new one"
            )
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
            w, idx, payload = self._get(self._rcvd_idx if self._in_order else None)
            if idx == channel.CONTROL:  # a resume echo: nothing to deliver
                continue
            data = self._decode(w, idx, payload)
            del payload
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
        if isinstance(data, _Failed):
            raise data.exc from data.cause
        if isinstance(data, _w.ExceptionWrapper):
            data.reraise()  # the workers keep going: iteration may continue after this
        self._yielded += 1
        self._warn_length()
        return data

    def _end_epoch(self) -> None:
        if not self._persistent:
            self._shutdown()

    # -- stopping -----------------------------------------------------------------------

    def _break(self, exc: BaseException) -> None:
        self._broken = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        self._shutdown(fault=True)

    def _shutdown(self, fault: bool = False) -> None:
        """Stop the workers (at once after a fault, else after a short grace) and reap
        them; close the pipes and queues."""
        if getattr(self, "_shut", True):
            return
        if os.getpid() != self._owner:
            # A copy in a forked child (a worker of another loader, collecting garbage):
            # the workers, queues and done flag are the owner's to stop, not this copy's.
            return
        self._shut = True
        try:
            self._done.value = 1
            for q, p in zip(self._index_queues, self._workers):
                if p.exitcode is None:
                    q.put(None)
        except Exception:  # interpreter shutdown: the stop below still works
            pass
        try:
            self._stop_workers(0.0 if fault else _STOP_GRACE_S)
        except Exception:  # interpreter shutdown: best effort
            pass
        finally:
            for ch in (*self._index_queues, *self._readers):
                try:
                    ch.close()
                except Exception:
                    pass

    def _stop_workers(self, grace: float) -> None:
        try:
            self._drain_until_exit(time.monotonic() + grace)
        finally:  # whatever went wrong above, no worker is left running
            alive = [p for p in self._workers if p.exitcode is None]
            for p in alive:
                p.terminate()
            for p in alive:
                p.join(_KILL_AFTER_S)
                if p.exitcode is None:
                    p.kill()
                    p.join(_KILL_AFTER_S)

    def _drain_until_exit(self, deadline: float) -> None:
        """Let the workers exit by themselves until `deadline`, reading (and dropping) what
        they still send, so that none stays blocked on a full pipe."""
        while True:
            alive = [p for p in self._workers if p.exitcode is None]
            left = deadline - time.monotonic()
            if not alive or left <= 0:
                return
            waits = [p.sentinel for p in alive] + [r.fd for r in self._readers if not r.eof]
            mp_connection.wait(waits, timeout=min(left, _w.POLL_S))
            self._read_all()
            self._frames.clear()

    def __del__(self) -> None:
        self._shutdown()


_SKIP = object()  # a task already given out, or answered by a stopped worker
_STOP_GRACE_S = 1.0  # how long workers get to finish their current batch and exit
_KILL_AFTER_S = 1.0  # how long a terminated worker gets before SIGKILL


def _check_workers(num_workers: Any, timeout: float, prefetch_factor: Any, persistent: bool) -> Any:
    """torch's checks of the worker options; the prefetch factor to use (2 with workers)."""
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
    if persistent and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    """An IterableDataset orders itself: no shuffle, sampler or batch_sampler."""
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


def _check_batching(
    batch_size: Any, shuffle: bool, sampler: Any, batch_sampler: Any, drop_last: bool
):
    """(batch_size, drop_last) after torch's exclusions: a batch_sampler sets both."""
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
    return batch_size, drop_last
