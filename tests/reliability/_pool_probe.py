"""python -m tests.reliability._pool_probe: set_num_threads from several threads while others
run pooled ops; prints JSON with the op counts and every mismatch against numpy.

Run in its own process so that a deadlock is a timeout and a crash an exit code, not a hung
or killed test session."""

from __future__ import annotations

import faulthandler
import json
import sys
import threading
import time

import numpy as np

import sdk

SETTERS, WORKERS = 3, 4
SECONDS = 5.0  # of work per worker; a deadlock shows as a timeout of the whole process


def main() -> dict:
    faulthandler.dump_traceback_later(100, exit=True)  # a hang prints every thread's stack
    rng = np.random.default_rng(5)
    # Integer values: float32 sums are exact in any order, so a lost or garbage chunk shows.
    # 2^18 + 1 elements take the split full-sum path, whose chunks must cover the tail too.
    xn = rng.integers(1, 5, (1 << 18) + 1).astype(np.float32)
    mn = rng.standard_normal((256, 256)).astype(np.float32)
    x, m = sdk.from_numpy(xn), sdk.from_numpy(mn)
    ref = {"sum": float(xn.sum(dtype=np.float64)), "exp": np.exp(xn), "mm": mn @ mn}
    stop = threading.Event()
    seen: set[int] = set()
    mismatches: list[str] = []
    done = [0] * WORKERS

    def setter(k: int) -> None:
        i = k
        while not stop.is_set():
            sdk.set_num_threads(1 + i % 3)
            seen.add(sdk.get_num_threads())
            i += 1

    def worker(k: int) -> None:
        t0 = time.monotonic()
        while time.monotonic() - t0 < SECONDS:
            s = x.sum().item()
            if s != ref["sum"]:
                mismatches.append(f"sum {s} != {ref['sum']}")
            if done[k] % 50 == 0:
                if not np.allclose(sdk.exp(x).numpy(), ref["exp"], rtol=1e-6):
                    mismatches.append("exp")
                if not np.allclose((m @ m).numpy(), ref["mm"], rtol=1e-4, atol=1e-3):
                    mismatches.append("matmul")
                if not np.array_equal(m.amax(0).numpy(), mn.max(0)):
                    mismatches.append("amax")
            done[k] += 1

    setters = [threading.Thread(target=setter, args=(k,)) for k in range(SETTERS)]
    workers = [threading.Thread(target=worker, args=(k,)) for k in range(WORKERS)]
    for t in setters + workers:
        t.start()
    for t in workers:
        t.join()
    stop.set()
    for t in setters:
        t.join()
    faulthandler.cancel_dump_traceback_later()
    return {
        "done": done,
        "mismatch_count": len(mismatches),
        "mismatches": sorted(set(mismatches))[:10],
        "thread_counts_seen": sorted(seen),
    }


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
