"""Ops defined, closed, redefined and called from several threads at once (a few seconds):
every call returns a right result or raises a clean error, and nothing crashes. The
sanitizer jobs run it too (tests/sanitizers)."""

from __future__ import annotations

import sys
import time
import uuid

import numpy as np

import sdk
import sdk.library as L
from tests.reliability.conftest import run_threads

SECONDS = 2.0  # how long the threads keep at it (a bound, not a measurement)
CALLERS = 4
# What a call may raise while another thread closes or redefines its op.
CLEAN = (RuntimeError, TypeError, NotImplementedError)
SCHEMAS = (
    "f(Tensor x, int a, int[] b) -> Tensor",
    "f(int a, Tensor x, int[] b, *, int k=0) -> Tensor",
    "f(Tensor x, float[] b, int a) -> (Tensor, Tensor)",
)


class Yields:
    """An int whose __index__ gives the other threads a turn mid-call."""

    def __init__(self, v: int) -> None:
        self.v = v

    def __index__(self) -> int:
        time.sleep(0)
        return self.v


def _kernel(*args):
    x = next(a for a in args if isinstance(a, sdk.Tensor))
    return x + 1


def _definer(ns: str, stop: float, counts: dict) -> None:
    """Define f with one schema after another, each for a moment, then close it."""
    k = 0
    while time.monotonic() < stop:
        lib = L.Library(ns, "DEF")
        lib.define(SCHEMAS[k % len(SCHEMAS)])
        two = k % len(SCHEMAS) == 2
        lib.impl("f", (lambda *a: (_kernel(*a),) * 2) if two else _kernel, "CPU")
        time.sleep(0.002)
        if k % 2:
            lib._destroy()
        else:
            del lib  # closed when collected
        counts["defined"] += 1
        k += 1


def _caller(ns: str, stop: float, counts: dict) -> None:
    op = None
    x = sdk.zeros(3)
    while time.monotonic() < stop:
        try:
            if op is None:
                op = getattr(sdk.ops, ns).f  # the handle outlives every definition
            a = Yields(2)
            r = op(x, a, [Yields(1), 2])
            np.testing.assert_array_equal(r.numpy(), [1.0, 1.0, 1.0])
            counts["ok"] += 1
            assert op.schema == "" or op.schema.startswith(f"{ns}::f(")
            _ = op.arguments
        except AttributeError as e:  # not defined yet: no handle to get
            assert "has no op named" in str(e) or "nothing is registered" in str(e), e
        except CLEAN as e:
            assert f"{ns}::f" in str(e) or "argument" in str(e), e
            counts["refused"] += 1


def test_threads_define_close_and_call_one_op():
    ns = "s" + uuid.uuid4().hex[:10]
    counts = {"ok": 0, "refused": 0, "defined": 0}
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: inside calls, not only between
    try:
        stop = time.monotonic() + SECONDS

        def body(i: int) -> None:
            (_definer if i == 0 else _caller)(ns, stop, counts)

        failures = run_threads(body, CALLERS + 1, timeout=120)
    finally:
        sys.setswitchinterval(previous)
    assert not failures, "\n".join(failures)
    print(f"\n{counts}")
    assert counts["defined"] > 0 and counts["ok"] > 0, counts
