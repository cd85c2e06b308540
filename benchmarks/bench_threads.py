"""Thread scaling of sdk ops: each op's time at several thread counts and its ratio to 1 thread.

    python benchmarks/bench_threads.py                       # 1, default, 8x the CPUs
    python benchmarks/bench_threads.py --threads 1,2,4,8,16 --sizes 4M --scaling
    python benchmarks/bench_threads.py --json out.json --quick

Oversubscription check (issue 31): with threads set to 8x the CPUs no op should take more than
1.5x its 1-thread time (the `8x/1` column). Scaling (--scaling): efficiency = t1 / (n * tn),
1.0 being linear. The thread counts of one case are timed in turn (1 N M 1 N M ...) so that a
noisy moment on a shared machine slows them alike; the machine's load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _checkout  # noqa: E402, F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np  # noqa: E402

import sdk  # noqa: E402

LLTM_DIR = Path(__file__).resolve().parents[1] / "examples" / "lltm"
SIZES = {"1K": 1 << 10, "64K": 1 << 16, "1M": 1 << 20, "4M": 1 << 22, "16M": 1 << 24}
OPS = ("add", "mul", "sigmoid", "sum", "row sum", "column sum", "softmax", "matmul", "lltm")
MATMUL_MAX = 1 << 22  # a 2048x2048 matmul; 4096x4096 takes seconds on a few cores
LLTM_SIZE = (64, 256, 512)  # batch, features, state: the LLTM row


def square(n: int) -> tuple[int, int]:
    rows = 1 << (int(math.log2(n)) // 2)
    return rows, n // rows


def case(op: str, n: int) -> Callable[[], object] | None:
    """A closure running `op` on n float32 elements (None: not run at that size)."""
    rng = np.random.default_rng(0)
    if op == "lltm":
        return lltm_forward()
    if op == "matmul":
        if n > MATMUL_MAX:
            return None
        side = square(n)[0]
        a = sdk.from_numpy(rng.standard_normal((side, side)).astype(np.float32))
        return lambda: a @ a
    x = sdk.from_numpy(rng.standard_normal(square(n)).astype(np.float32))
    return {
        "add": lambda: x + x,
        "mul": lambda: x * x,
        "sigmoid": lambda: sdk.sigmoid(x),
        "sum": lambda: x.sum(),
        "row sum": lambda: x.sum(1),
        "column sum": lambda: x.sum(0),
        "softmax": lambda: sdk.softmax(x, 1),
    }[op]


def lltm_forward() -> Callable[[], object]:
    """The LLTM cell's forward in sdk ops (examples/lltm/reference.py: no compile step)."""
    sys.path.insert(0, str(LLTM_DIR))
    from reference import PythonLLTM

    b, f, s = LLTM_SIZE
    cell = PythonLLTM(f, s)
    x, h, c = (sdk.randn(b, k) for k in (f, s, s))

    def run():
        with sdk.no_grad():
            return cell(x, (h, c))

    return run


def calls_for(fn: Callable[[], object], min_time: float) -> int:
    """Calls per timed block: about min_time seconds at 1 thread."""
    fn()
    t = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t, 1e-7)
    return max(1, int(min_time / one))


def time_case(fn: Callable[[], object], threads: list[int], repeat: int, min_time: float):
    """Best seconds per call at each thread count, the counts timed in turn."""
    sdk.set_num_threads(threads[0])
    calls = calls_for(fn, min_time)
    best = [float("inf")] * len(threads)
    for _ in range(repeat):
        for i, n in enumerate(threads):
            sdk.set_num_threads(n)
            fn()  # the pool at this count exists before the clock starts
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t) / calls)
    return best


def fmt(s: float) -> str:
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def parse_threads(text: str, cpus: int, default: int) -> list[tuple[str, int]]:
    out = []
    for item in text.split(","):
        item = item.strip()
        if item == "default":
            out.append((f"default ({default})", default))
        elif item.endswith("x"):
            out.append((f"{item} ({int(item[:-1]) * cpus})", int(item[:-1]) * cpus))
        else:
            out.append((item, int(item)))
    if not out or out[0][1] != 1:
        out.insert(0, ("1", 1))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", default="1,default,8x", help="counts: N, 'default', 'Kx' (x CPUs)")
    p.add_argument("--sizes", default=",".join(SIZES), help=f"subset of {','.join(SIZES)}")
    p.add_argument("--ops", default=",".join(OPS), help=f"subset of {','.join(OPS)}")
    p.add_argument("--scaling", action="store_true", help="add efficiency columns t1/(n*tn)")
    p.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    p.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    args = p.parse_args(argv)
    cpus = len(os.sched_getaffinity(0))
    default = sdk.get_num_threads()
    threads = parse_threads(args.threads, cpus, default)
    counts = [n for _, n in threads]
    repeat, min_time = (2, 0.02) if args.quick else (3, 0.05)
    load = os.getloadavg()[0]
    print(f"sdk {sdk.__version__}: {cpus} CPUs, default {default} threads, load {load:.2f}")
    info = sdk.parallel_info() if hasattr(sdk, "parallel_info") else "n/a (an older sdk)"
    print(f"parallel_info: {info}\n")
    head = ["op", "size", *(f"{label} thr" for label, _ in threads)]
    head += [f"{label.split()[0]}/1" for label, _ in threads[1:]]
    if args.scaling:
        head += [f"eff {n}" for n in counts[1:]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    rows = []
    for op in args.ops.split(","):
        # (the LLTM row has its own size: timed once)
        for size in args.sizes.split(",")[: 1 if op == "lltm" else None]:
            fn = case(op, SIZES[size])
            if fn is None:
                continue
            times = time_case(fn, counts, repeat, min_time)
            label = f"{LLTM_SIZE}" if op == "lltm" else size
            cells = [op, label, *(fmt(t) for t in times)]
            cells += [f"{t / times[0]:.2f}" for t in times[1:]]
            if args.scaling:
                cells += [f"{times[0] / (n * t):.2f}" for n, t in zip(counts[1:], times[1:])]
            print("| " + " | ".join(cells) + " |", flush=True)
            rows.append({"op": op, "size": label, "threads": counts, "seconds": times})
    load_after = os.getloadavg()[0]
    print(f"\nload average {load:.2f} before, {load_after:.2f} after")
    if args.json:
        meta = {"cpus": cpus, "default_threads": default, "load": [load, load_after]}
        Path(args.json).write_text(json.dumps({"meta": meta, "results": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
