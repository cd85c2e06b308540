"""python -m tests.reliability._threads_probe MODE: the process's threads after pooled ops and
BLAS calls, printed as JSON (a fresh interpreter, so the pool and the BLAS start from nothing).

MODE: `oversubscribed` (threads set to 8x the CPUs), `default`, `fork` (ops in a forked child
after the pool and the BLAS ran in the parent), `env` (only the thread settings)."""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

import sdk

# Large enough that every op below runs on the pool and the matmul runs the BLAS threaded.
SIDE = 1024


def run_ops() -> list[str]:
    """Pooled ops and BLAS calls, each checked against numpy; the names of the wrong ones."""
    rng = np.random.default_rng(3)
    an = rng.standard_normal((SIDE, SIDE)).astype(np.float32)
    bn = rng.standard_normal((SIDE, SIDE)).astype(np.float32)
    a, b = sdk.from_numpy(an), sdk.from_numpy(bn)
    checks = {
        "add": ((a + b).numpy(), an + bn),
        "mul": ((a * b).numpy(), an * bn),
        "sigmoid": (sdk.sigmoid(a).numpy(), 1 / (1 + np.exp(-an))),
        "sum": (np.array(a.sum().item()), np.array(an.sum(dtype=np.float64))),
        "row sum": (a.sum(1).numpy(), an.sum(1)),
        "column sum": (a.sum(0).numpy(), an.sum(0)),
        "softmax": (sdk.softmax(a, 1).numpy(), np.exp(an) / np.exp(an).sum(1, keepdims=True)),
        "matmul": ((a @ b).numpy(), an @ bn),
        "matmul64": ((a.double() @ b.double()).numpy(), an.astype(np.float64) @ bn),
        "mv": ((a @ b[0]).numpy(), an @ bn[0]),
    }
    bad = []
    for name, (got, want) in checks.items():
        if not np.allclose(got, want, rtol=1e-3, atol=1e-2):
            bad.append(name)
    return bad


def threads() -> dict:
    """Every thread of this process: its name and scheduler state (R: runnable)."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:  # it ended while we looked
            continue
        out[int(tid)] = (name, stat[stat.rindex(")") + 2])
    return out


def runnable_after_matmul(samples: int = 10) -> list[int]:
    """Right after a threaded matmul, how many other threads are runnable, sampled every
    millisecond for 10 ms: a BLAS that keeps its workers busy-waiting after a call shows
    here (OpenBLAS's own workers did for about 8 ms on the 2-CPU machine)."""
    a = sdk.ones(SIDE, SIDE)
    a @ a  # noqa: B018  (the BLAS is loaded and its start-up is over by now)
    time.sleep(0.5)
    a @ a  # noqa: B018
    me = threading_native_id()
    counts = []
    for _ in range(samples):
        counts.append(sum(1 for t, (_, s) in threads().items() if t != me and s == "R"))
        time.sleep(0.001)
    return counts


def threading_native_id() -> int:
    import threading

    return threading.get_native_id()


def main(mode: str) -> dict:
    cpus = len(os.sched_getaffinity(0))
    if mode == "env":
        return {"num_threads": sdk.get_num_threads(), "info": sdk.parallel_info(), "cpus": cpus}
    if mode == "oversubscribed":
        sdk.set_num_threads(8 * cpus)
    bad = run_ops()
    result = {
        "cpus": cpus,
        "bad": bad,
        "num_threads": sdk.get_num_threads(),
        "info": sdk.parallel_info(),
        "runnable": runnable_after_matmul(),
        "threads": [name for name, _ in threads().values()],
    }
    if mode == "fork":
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the pool and the BLAS must work afresh
            os.close(r)
            os.write(w, json.dumps(run_ops()).encode())
            os._exit(0)
        os.close(w)
        data = b""
        while chunk := os.read(r, 4096):
            data += chunk
        _, status = os.waitpid(pid, 0)
        result["child_status"] = status
        result["child_bad"] = json.loads(data or b'["no answer"]')
    return result


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
