"""The core's thread pool under Python threads: set_num_threads from several threads while
others run pooled ops neither deadlocks nor crashes nor changes results; split full sums
cover every element whatever the thread count."""

from __future__ import annotations

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
