"""Fault scenarios for DataLoader workers, each run in a fresh interpreter by
test_dataloader_faults.py (`python -c "...; run(name, *args)"`), so that one that hangs is
killed by the test's timeout instead of hanging the suite. A scenario prints what it saw
and exits 0, or fails with an AssertionError."""

from __future__ import annotations

import fcntl
import gc
import multiprocessing as mp
import os
import platform
import signal
import struct
import sys
import termios
import threading
import time

from sdk.utils.data import DataLoader, Dataset

BOUND_S = 20.0  # the longest any wait below may take: a bound against hangs, not a timing


class Big(Dataset):
    """Samples far larger than a pipe holds, carrying the worker's pid."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"pid": os.getpid(), "blob": bytes(4 << 20)}


class LockAt(Dataset):
    """Sample 1 is a lock, which cannot be pickled."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return threading.Lock() if i == 1 else i


class RaisesLocal(Dataset):
    """Raises an exception whose class, local to the method, cannot be pickled."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        class LocalError(Exception):
            pass

        raise LocalError(f"sample {i} is bad")


class RaisesWorkerOnly(Dataset):
    """Raises an exception class that exists only in the worker (made by worker_init_fn)."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        raise sys.modules[__name__].WorkerOnlyError(f"sample {i} is bad")


def make_worker_only_error(worker_id):
    sys.modules[__name__].WorkerOnlyError = type("WorkerOnlyError", (Exception,), {})


def refuse():
    raise ValueError("this batch cannot be rebuilt here")


class RebuildFails:
    """Pickles, but fails to unpickle."""

    def __reduce__(self):
        return (refuse, ())


class Unrebuildable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return RebuildFails() if i == 0 else i


class SleepsAt(Dataset):
    """Sample `at` takes an hour; the others are instant."""

    def __init__(self, at, n=4):
        self.at, self.n = at, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.at:
            time.sleep(3600)
        return i


class Plain(Dataset):
    def __init__(self, n=12):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


class BadLen(Plain):
    def __len__(self):
        raise ValueError("no length today")


# -- helpers ------------------------------------------------------------------------------


def wait_until(cond, what):
    end = time.monotonic() + BOUND_S
    while not cond():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.01)


def pipe_bytes(fd):
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]


# writev's number, by machine: the syscall a worker's frame writer blocks in.
_WRITEV = {"x86_64": 20, "aarch64": 66, "arm64": 66, "ppc64le": 146, "s390x": 146}


def blocked_writing(pid, pipe_fd):
    """Whether a thread of `pid` sleeps in writev on the pipe that `pipe_fd` reads. A
    blocking writev sleeps only while bytes of its frame are still unwritten, and nobody
    reads the pipe while the caller looks: the thread stays there, mid-frame. None when
    /proc cannot say (another system, or no permission to read a thread's syscall)."""
    nr = _WRITEV.get(platform.machine())
    if nr is None:
        return None
    pipe = f"pipe:[{os.fstat(pipe_fd).st_ino}]"
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                fields = f.read().split()
            if not fields or fields[0] != str(nr):
                continue
            if os.readlink(f"/proc/{pid}/fd/{int(fields[1], 16)}") == pipe:
                return True
    except (FileNotFoundError, PermissionError):
        return None  # gone, or /proc withholds it
    return False


def gone(pid):
    """Whether `pid` is no longer a running process (reaped, or a zombie nobody reaps)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def raised(fn, exc_type=Exception):
    try:
        fn()
    except exc_type as e:
        return e
    raise AssertionError(f"{fn} raised nothing")


def no_children():
    assert not mp.active_children(), mp.active_children()


# -- scenarios ----------------------------------------------------------------------------


def kill_mid_send(ctx, timeout):
    """SIGKILL a worker while it writes a batch: a RuntimeError naming its pid and signal."""
    loader = DataLoader(Big(), batch_size=None, num_workers=1, timeout=float(timeout),
                        multiprocessing_context=ctx)  # fmt: skip
    it = iter(loader)
    pid = next(it)["pid"]
    reader = it._readers[0]
    # Every batch is bigger than the pipe, and nobody reads it now: the frame writer fills
    # it and then sleeps in writev, in the middle of a frame, until the kill. (Bytes in the
    # pipe alone do not say that: they may end a frame the writer has finished.)
    exact = blocked_writing(pid, reader.fd) is not None
    if exact:
        wait_until(lambda: blocked_writing(pid, reader.fd), "the worker to block in writev")
    else:  # /proc cannot say: bytes waiting are the best sign, right nearly always
        wait_until(lambda: reader.mid_frame or pipe_bytes(reader.fd) > 0, "the worker to send")
    os.kill(pid, signal.SIGKILL)
    err = raised(lambda: list(it), RuntimeError)
    assert f"pid {pid}" in str(err) and "killed by signal" in str(err), err
    assert not exact or "died while sending batch" in str(err), err
    no_children()
    print("raised:", err)


def unpicklable():
    """A batch, and exceptions, that cannot make the trip to the main process."""
    it = iter(DataLoader(LockAt(), batch_size=None, num_workers=2))
    assert next(it) == 0
    err = raised(lambda: next(it))
    text = str(err)
    assert "batch 1" in text and "worker process 1" in text and "pickle" in text, text
    assert [next(it), next(it)] == [2, 3]  # the loader goes on, as after any worker error
    raised(lambda: next(it), StopIteration)
    print("batch:", text.splitlines()[0])

    err = raised(lambda: next(iter(DataLoader(RaisesLocal(), num_workers=1))), RuntimeError)
    text = str(err)
    assert "LocalError" in text and "Traceback" in text and "sample 0 is bad" in text, text
    assert "__getitem__" in text, text
    print("local class:", text.splitlines()[0])

    loader = DataLoader(RaisesWorkerOnly(), num_workers=1, worker_init_fn=make_worker_only_error)
    err = raised(lambda: next(iter(loader)), RuntimeError)
    assert "WorkerOnlyError" in str(err) and "sample 0 is bad" in str(err), err
    print("worker-only class:", str(err).splitlines()[0])

    it = iter(DataLoader(Unrebuildable(), batch_size=None, num_workers=1))
    err = raised(lambda: next(it), RuntimeError)
    assert "unpickle batch 0 from worker 0" in str(err) and "rebuilt here" in str(err), err
    assert next(it) == 1
    print("unpickling:", err)
    it = None
    del err  # its traceback holds the iterator
    gc.collect()
    no_children()


def parent(ctx, where):
    """The main process of test_workers_exit_when_the_main_process_is_killed: print the
    workers' pids, then wait to be killed."""
    out = {}

    def start():
        loader = DataLoader(Plain(), batch_size=2, num_workers=2, multiprocessing_context=ctx)
        it = iter(loader)
        next(it)
        out["it"] = it  # keeps the workers (and their queues) alive

    if where == "thread":  # no PR_SET_PDEATHSIG then: the workers' own watch must do it
        t = threading.Thread(target=start)
        t.start()
        t.join()
    else:
        start()
    print(" ".join(str(p.pid) for p in out["it"]._workers), flush=True)
    time.sleep(3600)


def hung_worker():
    """A worker stuck in __getitem__: with timeout set, a RuntimeError after it."""
    it = iter(DataLoader(SleepsAt(0), batch_size=None, num_workers=2, timeout=0.5))
    pids = [p.pid for p in it._workers]
    err = raised(lambda: next(it), RuntimeError)
    assert "timed out after 0.5 seconds waiting for batch 0 from worker 0" in str(err), err
    assert all(gone(pid) for pid in pids), "the stuck worker was left running"
    err2 = raised(lambda: next(it), RuntimeError)
    assert "stopped after an error" in str(err2), err2
    print("raised:", err)


def user_code_faults():
    """Exceptions in worker_init_fn, collate_fn and __len__; the iterator deleted mid-epoch."""

    def bad_init(worker_id):
        raise OSError(f"init failed in {worker_id}")

    err = raised(lambda: list(DataLoader(Plain(), num_workers=2, worker_init_fn=bad_init)), OSError)
    assert "init failed in" in str(err) and "Traceback" in str(err) and "bad_init" in str(err)

    def bad_collate(batch):
        if batch[0] == 4:
            raise ValueError("cannot collate 4")
        return batch

    it = iter(DataLoader(Plain(), batch_size=2, num_workers=2, collate_fn=bad_collate))
    assert [next(it), next(it)] == [[0, 1], [2, 3]]
    err = raised(lambda: next(it), ValueError)
    assert "cannot collate 4" in str(err) and "bad_collate" in str(err), err
    assert next(it) == [6, 7]
    it = None  # the last reference: the iterator shuts down

    err = raised(lambda: iter(DataLoader(BadLen(), num_workers=2)), ValueError)
    assert str(err) == "no length today", err
    gc.collect()
    no_children()

    # A forked copy of an iterator (in a worker of another loader, collecting garbage)
    # shutting itself down leaves the original's workers be.
    it = iter(DataLoader(Plain(), batch_size=2, num_workers=2))
    assert next(it).tolist() == [0, 1]
    child = os.fork()
    if child == 0:
        it._shutdown()
        os._exit(0)
    os.waitpid(child, 0)
    assert [b.tolist() for b in it] == [[2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]

    # Deleted mid-epoch, with workers blocked writing batches nobody reads: reaped.
    it = iter(DataLoader(Big(), batch_size=None, num_workers=2))
    next(it)
    pids = [p.pid for p in it._workers]
    it = None  # the last reference: the iterator shuts down
    gc.collect()
    assert all(gone(pid) for pid in pids), [p for p in pids if not gone(p)]
    print("ok")


def keyboard_interrupt():
    """Ctrl-C in the loop body, and while the main process waits on a worker."""
    it = iter(DataLoader(Plain(), batch_size=2, num_workers=2))
    pids = [p.pid for p in it._workers]
    try:
        for _ in it:
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    it = None  # the last reference: the iterator shuts down
    gc.collect()
    assert all(gone(pid) for pid in pids)

    it = iter(DataLoader(SleepsAt(0), batch_size=None, num_workers=1))
    pids = [p.pid for p in it._workers]
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()  # batch 0 never comes
    raised(lambda: next(it), KeyboardInterrupt)
    assert all(gone(pid) for pid in pids)
    err = raised(lambda: next(it), RuntimeError)
    assert "stopped after an error (KeyboardInterrupt)" in str(err), err
    no_children()
    print("ok")


def persistent():
    """Persistent workers: an abandoned epoch leaves nothing stale for the next; a worker
    killed between epochs is reported, and the epoch after that starts new workers."""
    loader = DataLoader(Plain(9), batch_size=2, num_workers=2, persistent_workers=True)
    want = [[0, 1], [2, 3], [4, 5], [6, 7], [8]]
    for _ in loader:
        break  # abandoned: batches already asked for arrive during the next epoch's start
    pids = [p.pid for p in loader._iterator._workers]
    assert [b.tolist() for b in loader] == want
    assert [p.pid for p in loader._iterator._workers] == pids
    os.kill(pids[0], signal.SIGKILL)
    wait_until(lambda: gone(pids[0]), "the killed worker to exit")
    err = raised(lambda: list(loader), RuntimeError)
    assert f"pid {pids[0]}" in str(err) and "killed by signal" in str(err), err
    assert [b.tolist() for b in loader] == want
    assert not {p.pid for p in loader._iterator._workers} & set(pids)
    print("ok")


def run(name, *args):
    getattr(sys.modules[__name__], name)(*args)
