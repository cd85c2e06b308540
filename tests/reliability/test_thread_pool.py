"""The core's thread pool under Python threads: set_num_threads from several threads while
others run pooled ops neither deadlocks nor crashes nor changes results; split full sums
cover every element whatever the thread count."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import sdk
from tests.reliability.conftest import run_module, run_threads


@pytest.fixture
def restore_threads():
    n = sdk.get_num_threads()
    yield
    sdk.set_num_threads(n)


def test_set_num_threads_while_other_threads_run_ops():
    r = run_module("tests.reliability._pool_probe", timeout=150)
    print(f"\npool probe: ops per worker {r['done']}, thread counts {r['thread_counts_seen']}")
    assert r["mismatch_count"] == 0, r["mismatches"]
    assert min(r["done"]) > 0
    assert r["thread_counts_seen"] == [1, 2, 3]


@pytest.mark.parametrize("n", [1 << 18, (1 << 18) + 1, 3 * (1 << 17) + 1, (1 << 20) + 17, 327683])
def test_split_full_sum_covers_every_element(n, restore_threads):
    xn = np.random.default_rng(n).integers(1, 5, n).astype(np.float32)
    x = sdk.from_numpy(xn)
    want = float(xn.sum(dtype=np.float64))  # integers: exact in float32 in any order
    for threads in range(1, 7):
        sdk.set_num_threads(threads)
        assert x.sum().item() == want, f"{threads} threads"
        assert x.mean().item() == pytest.approx(want / n, rel=1e-6)
        assert x.double().sum().item() == want
        assert x.long().sum().item() == int(want)


def test_thread_count_calls_from_many_threads(restore_threads):
    """set/get from 8 threads at once: every value read is one some thread set."""
    seen: list[int] = []

    def work(i: int) -> None:
        for k in range(2000):
            sdk.set_num_threads(1 + (i + k) % 4)
            seen.append(sdk.get_num_threads())
        with pytest.raises(ValueError):
            sdk.set_num_threads(0)

    failures = run_threads(work, 8)
    assert not failures, "\n".join(failures[:3])
    assert set(seen) <= {1, 2, 3, 4} and len(seen) == 16000


def _minor_faults(tid: int) -> int:
    """Minor page faults thread `tid` of this process has taken."""
    with open(f"/proc/self/task/{tid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


def _pool_worker() -> int:
    """The thread id of the pool's one worker (named once it runs: wait for that)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/comm") as f:
                if f.read().strip() == "sdk-pool":
                    return int(tid)
        time.sleep(0.01)
    raise AssertionError("no sdk-pool thread")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: no pool worker runs")
@pytest.mark.parametrize("what", ["full sum", "full max", "column sum"])
def test_both_threads_read_part_of_one_big_reduction(what, restore_threads):
    # A full reduction splits into a few leaves and a column reduction into a few column
    # blocks; parallel_for's boundaries, rounded to 16 elements, once put every leaf and block
    # in one chunk, so one thread did all of a call's work and 2 threads ran as 1 plus the
    # pool's overhead. Which thread read what shows in the page faults of a fresh, untouched
    # array: each thread faults on the pages it reads first. One split call is enough (a loaded
    # machine may keep the worker off its CPU for a whole call, and the caller then takes its
    # part, or the worker all of it); before, no call split.
    sdk.set_num_threads(2)
    warm = sdk.from_numpy(np.ones(1 << 20, np.float32))
    warm.sum()  # the pool starts
    worker, me = _pool_worker(), threading.get_native_id()
    op = {
        "full sum": lambda t: t.sum(),
        "full max": lambda t: t.amax(),
        "column sum": lambda t: t.sum(0),
    }[what]
    split = []
    for _ in range(20):
        x = sdk.from_numpy(np.empty((4096, 4096), np.float32))  # 64 MB, not yet touched
        w0, c0 = _minor_faults(worker), _minor_faults(me)
        # A region just before keeps the worker awake: on a busy machine, waking it from sleep
        # may hand it the caller's CPU for the whole call.
        warm.sum()
        op(x)
        w, c = _minor_faults(worker) - w0, _minor_faults(me) - c0
        split.append((w, c))
        del x
        if min(w, c) >= 0.2 * (w + c):
            return
    if os.getloadavg()[0] > len(os.sched_getaffinity(0)):  # other processes hold the CPUs
        pytest.skip(f"machine too busy to run both threads at once: faults {split}")
    raise AssertionError(f"every call ran on one thread: (worker, caller) faults {split}")
