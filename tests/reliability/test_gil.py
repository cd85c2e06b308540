"""Long ops release the GIL: another Python thread makes progress while they run.

The watcher thread counts loop turns that each give the GIL up (time.sleep(0)) and take it
back, but only while the op thread is inside the op. An op that holds the GIL lets it take
at most a few turns (in the bytecodes around the call); one that releases it, thousands. So
the tests assert behaviour, not speed: a loaded machine only lowers the counts of the
releasing case, and each op gets several tries to reach a modest count.
"""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
import pytest

import sdk

ENOUGH = 15  # turns inside one call; a held GIL allows ~3 (the control test checks < 8)
TRIES = 20
N = 1 << 23  # elements: ~10-100 ms per op


class Watcher:
    """A thread that counts its GIL round trips while `inside` is set."""

    def __init__(self) -> None:
        self.inside = False
        self.turns = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop:
            time.sleep(0)  # drops the GIL; taking it back needs the op thread to let go
            if self.inside:
                self.turns += 1

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop = True
        self._thread.join(30)

    def turns_during(self, fn) -> int:
        """Turns the watcher took during one call of fn."""
        self.turns = 0
        self.inside = True
        fn()
        self.inside = False
        return self.turns

    def best_turns(self, fn, tries: int = TRIES) -> int:
        """Most turns the watcher took during one call of fn (stops once ENOUGH)."""
        best = 0
        for _ in range(tries):
            best = max(best, self.turns_during(fn))
            if best >= ENOUGH:
                break
        return best

    def fewest_turns(self, fn, tries: int = 3) -> int:
        """Fewest turns during one call of fn: a held GIL shows as few turns in every try,
        whereas on a loaded machine the watcher's stray turns can bunch up in one."""
        return min(self.turns_during(fn) for _ in range(tries))


@pytest.fixture(scope="module")
def big():
    rng = np.random.default_rng(0)
    x = sdk.from_numpy(rng.random(N, dtype=np.float32))
    y = sdk.from_numpy(rng.random(N, dtype=np.float32))
    return {
        "x": x,
        "y": y,
        "m": sdk.rand(1024, 1024),
        "mask": x > 0.5,
        "idx": sdk.from_numpy(rng.integers(0, N, N // 2)),
        "small": sdk.rand(1000),
        "small_idx": sdk.from_numpy(rng.integers(0, 1000, N // 2)),
        "private": sdk.zeros(N),
        "np": rng.random(N, dtype=np.float32),
    }


def test_the_method_sees_a_held_gil():
    """Control: the same sleep through ctypes.PyDLL (GIL held) and ctypes.CDLL (released)."""
    held = ctypes.PyDLL(None).usleep
    free = ctypes.CDLL(None).usleep
    with Watcher() as w:
        assert w.fewest_turns(lambda: held(100_000)) < 8
        assert w.best_turns(lambda: free(100_000)) >= ENOUGH


LONG_OPS = {
    "matmul": lambda d: d["m"] @ d["m"],
    "sdk.matmul": lambda d: sdk.matmul(d["m"], d["m"].t()),
    "exp": lambda d: sdk.exp(d["x"]),
    "tensor + tensor": lambda d: d["x"] + d["y"],
    "0-dim + tensor": lambda d: d["x"][0] + d["y"],
    "tensor * scalar": lambda d: d["x"] * 3.0,
    "tensor > scalar": lambda d: d["x"] > 0.25,
    "negation": lambda d: -d["x"],
    "abs": lambda d: abs(d["x"]),
    "in-place +=": lambda d: d["private"].__iadd__(d["y"]),
    "in-place *= scalar": lambda d: d["private"].__imul__(0.5),
    "sum": lambda d: d["x"].sum(),
    "std over dim": lambda d: d["x"].reshape(1024, -1).std(0),
    "cat": lambda d: sdk.cat([d["x"], d["y"]]),
    "where": lambda d: sdk.where(d["mask"], d["x"], 0.0),
    "where, large condition only": lambda d: sdk.where(d["mask"], d["x"][0], d["y"][0]),
    "index": lambda d: d["x"][d["idx"]],
    "index, large index only": lambda d: d["small"][d["small_idx"]],
    "boolean mask": lambda d: d["x"][d["mask"]],
    "arange": lambda d: sdk.arange(N),
    "linspace": lambda d: sdk.linspace(0, 1, N),
    "eye": lambda d: sdk.eye(3000),
    "rand": lambda d: sdk.rand(N),
    "tensor(ndarray)": lambda d: sdk.tensor(d["np"]),
    "to float64": lambda d: d["x"].double(),
}


@pytest.mark.parametrize("op", list(LONG_OPS))
def test_long_op_lets_other_threads_run(op, big):
    with Watcher() as w:
        turns = w.best_turns(lambda: LONG_OPS[op](big))
    assert turns >= ENOUGH, f"{op}: the GIL looks held (watcher took {turns} turns)"


@pytest.mark.parametrize("bridge", ["pybind11", "ctypes"])
def test_long_extension_call_lets_another_thread_write(bridge, extensions):
    """The op marks flag[1] when it starts and returns when flag[0] becomes nonzero: the main
    thread can only see the mark and write the flag if the op runs without the GIL."""
    mod = getattr(extensions, bridge)
    flag = sdk.zeros(2, dtype=sdk.int32)
    result = []
    caller = threading.Thread(target=lambda: result.append(mod.wait_for_flag(flag, 30.0)))
    caller.start()
    view = flag.numpy()
    deadline = time.monotonic() + 60
    while view[1] == 0 and time.monotonic() < deadline:
        time.sleep(0.001)
    started = bool(view[1])
    view[0] = 1
    caller.join(60)
    assert started, "the op did not start"
    assert not caller.is_alive()
    assert result and result[0] is not False, f"{bridge}: the op held the GIL (timed out)"
