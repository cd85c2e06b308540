"""Core benchmark: per-call overhead, elementwise/reduction bandwidth, GEMM and import cost vs numpy/torch.

Prints a Markdown table. By default everything runs on one thread: sdk.set_num_threads(1),
numpy's BLAS through threadpoolctl when installed (else this script re-runs itself with
OPENBLAS_NUM_THREADS=1), torch.set_num_threads(1). With --threads default each library keeps
its own default thread count (run it in an environment without *_NUM_THREADS set).
Usage: python benchmarks/bench_core.py [--json PATH] [--sections tiny,elementwise,...]
                                       [--threads 1|default]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit

_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

# `--threads default`: every library at its own default (else one thread each)
DEFAULT_THREADS = "--threads" in sys.argv and sys.argv[sys.argv.index("--threads") + 1 :][:1] == [
    "default"
]

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1" and not DEFAULT_THREADS:
        env = dict(os.environ, **{v: "1" for v in _THREAD_VARS})
        os.execve(sys.executable, [sys.executable, *sys.argv], env)

import _checkout  # noqa: E402, F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np  # noqa: E402

import sdk  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def best(fn, min_time: float = 0.2, repeat: int = 5) -> float:
    """Seconds per call: the best of `repeat` runs of an auto-sized loop."""
    t = timeit.Timer(fn)
    n, _ = t.autorange()
    n = max(1, int(n * min_time / 0.2))
    return min(t.repeat(repeat=repeat, number=n)) / n


# Rounds of best_each() in the default-thread run: at 2 threads on 2 shared cores one round
# can lose a core to anything, so the ratio read there is the median over many rounds.
ROUNDS = 15 if DEFAULT_THREADS else 5
LAST_ROUNDS: list = []  # per round, each implementation's seconds per call (None: absent)


def paired_vs_best(rounds: list, higher_is_better: bool = False) -> float | None:
    """The median over rounds of sdk's time over the better other time of the same round (a
    paired ratio: a slow round slows both sides of it). For GFLOP/s rows, the inverse."""
    ratios = []
    for times in rounds:
        others = [t for t in times[1:] if t is not None]
        if times[0] is None or not others:
            return None
        r = times[0] / min(others)
        ratios.append(1 / r if higher_is_better else r)
    return statistics.median(ratios) if ratios else None


def best_each(fns, min_time: float = 0.1, repeat: int | None = None) -> list:
    """best() for several implementations of one case, their repeats taken in turn (A B C A B
    C ...): a noisy second on the shared machine then slows all of them, not just one. Each
    round's times stay in LAST_ROUNDS for paired_vs_best()."""
    repeat = ROUNDS if repeat is None else repeat
    timers = []
    for fn in fns:
        if fn is None:
            timers.append(None)
            continue
        t = timeit.Timer(fn)
        n, _ = t.autorange()
        timers.append((t, max(1, int(n * min_time / 0.2))))
    bests = [float("inf")] * len(fns)
    LAST_ROUNDS.clear()
    for _ in range(repeat):
        times = [None if tn is None else tn[0].timeit(tn[1]) / tn[1] for tn in timers]
        LAST_ROUNDS.append(times)
        bests = [b if t is None else min(b, t) for b, t in zip(bests, times)]
    return [None if tn is None else b for tn, b in zip(timers, bests)]


def fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.3f} us"
    return f"{s * 1e3:.3f} ms"


def ratio(a, b) -> str:
    return "" if a is None or b is None else f"{a / b:.2f}"


RECORDS: list = []  # raw numbers of every row, for --json


def row(name: str, s, n, t, unit=fmt_time) -> str:
    paired = paired_vs_best(LAST_ROUNDS) if LAST_ROUNDS else None
    LAST_ROUNDS.clear()
    RECORDS.append({"case": name, "sdk": s, "numpy": n, "torch": t, "paired_vs_best": paired})
    cells = [unit(x) if x is not None else "-" for x in (s, n, t)]
    return f"| {name} | {' | '.join(cells)} | {ratio(s, n)} | {ratio(s, t)} |"


def tiny_overhead() -> list:
    a, b = sdk.ones(4), sdk.ones(4)
    na, nb = np.ones(4, np.float32), np.ones(4, np.float32)
    ts = best(lambda: a + b)
    tn = best(lambda: na + nb)
    tt = None
    if torch is not None:
        xa, xb = torch.ones(4), torch.ones(4)
        tt = best(lambda: xa + xb)
    out = [row("a + b, 4 float32 (per call)", ts, tn, tt)]
    ts = best(lambda: sdk.add(a, b))
    tt = best(lambda: torch.add(xa, xb)) if torch is not None else None
    out.append(row("sdk.add(a, b), 4 float32", ts, best(lambda: np.add(na, nb)), tt))
    ts = best(lambda: a.exp())
    tt = best(lambda: xa.exp()) if torch is not None else None
    out.append(row("a.exp(), 4 float32", ts, best(lambda: np.exp(na)), tt))
    return out


def _np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _elementwise_cases(sa, na, ta) -> dict:
    return {
        "add": (lambda: sa + sa, lambda: na + na, lambda: ta + ta),
        "mul": (lambda: sa * sa, lambda: na * na, lambda: ta * ta),
        "sigmoid": (lambda: sdk.sigmoid(sa), lambda: _np_sigmoid(na), lambda: torch.sigmoid(ta)),
        "tanh": (lambda: sdk.tanh(sa), lambda: np.tanh(na), lambda: torch.tanh(ta)),
        "exp": (lambda: sdk.exp(sa), lambda: np.exp(na), lambda: torch.exp(ta)),
    }


def elementwise() -> list:
    out = []
    base = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    for layout in ("contiguous", "transposed"):
        na = base if layout == "contiguous" else base.T
        sa = sdk.from_numpy(base) if layout == "contiguous" else sdk.from_numpy(base).t()
        ta = None
        if torch is not None:
            ta = torch.from_numpy(base) if layout == "contiguous" else torch.from_numpy(base).t()
        cases = _elementwise_cases(sa, na, ta)
        for name, (fs, fn, ft) in cases.items():
            ts, tn, tt = best_each([fs, fn, ft if torch is not None else None])
            out.append(row(f"{name}, 1M float32 {layout}", ts, tn, tt))
    # A transposed copy (x.t().contiguous(), np.ascontiguousarray(a.T)): tiled in the core.
    st = sdk.from_numpy(base).t()
    tt_ = torch.from_numpy(base).t() if torch is not None else None
    ft = (lambda: tt_.contiguous()) if tt_ is not None else None
    ts, tn, tt = best_each([lambda: st.contiguous(), lambda: np.ascontiguousarray(base.T), ft])
    out.append(row("contiguous() of a transpose, 1M float32", ts, tn, tt))
    return out


def reductions() -> list:
    a = np.random.default_rng(1).standard_normal((2048, 2048)).astype(np.float32)
    s = sdk.from_numpy(a)
    t = torch.from_numpy(a) if torch is not None else None
    out = []
    for dim, label in ((1, "sum over rows (dim=1)"), (0, "sum over columns (dim=0)")):
        ft = (lambda dim=dim: t.sum(dim)) if t is not None else None
        ts, tn, tt = best_each([lambda dim=dim: s.sum(dim), lambda dim=dim: a.sum(dim), ft])
        out.append(row(f"{label}, 2048x2048", ts, tn, tt))
    v = np.random.default_rng(3).random(1 << 20, dtype=np.float32)
    sv = sdk.from_numpy(v)
    tv = torch.from_numpy(v) if torch is not None else None
    for name, fs, fn, ft in (
        ("sum", lambda: sv.sum(), lambda: v.sum(), lambda: tv.sum()),
        ("max", lambda: sv.max(), lambda: v.max(), lambda: tv.max()),
    ):
        ts, tn, tt = best_each([fs, fn, ft if tv is not None else None])
        out.append(row(f"{name}, 1M float32", ts, tn, tt))
    x = np.random.default_rng(4).standard_normal((256, 1024)).astype(np.float32)
    sx = sdk.from_numpy(x)
    tx = torch.from_numpy(x) if torch is not None else None

    def np_softmax():
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    ft = (lambda: torch.softmax(tx, 1)) if tx is not None else None
    ts, tn, tt = best_each([lambda: sdk.softmax(sx, 1), np_softmax, ft])
    out.append(row("softmax dim=1, 256x1024", ts, tn, tt))
    return out


def gemm() -> list:
    out = []
    for dtype in ("float32", "float64"):
        for n in (1024, 2048):
            a = np.random.default_rng(2).standard_normal((n, n)).astype(dtype)
            s = sdk.from_numpy(a)
            flops = 2.0 * n**3

            def gf(sec, flops=flops):
                return flops / sec / 1e9

            ft = None
            if torch is not None:
                x = torch.from_numpy(a)
                ft = lambda x=x: x @ x  # noqa: E731
            rounds = max(3, ROUNDS // 2)
            ts, tn, tt = best_each([lambda s=s: s @ s, lambda a=a: a @ a, ft], 0.2, rounds)
            name = f"{'s' if dtype == 'float32' else 'd'}gemm {n} (GFLOP/s)"
            vals = [gf(x) if x is not None else None for x in (ts, tn, tt)]
            paired = paired_vs_best(LAST_ROUNDS, higher_is_better=True)
            LAST_ROUNDS.clear()
            RECORDS.append(
                {
                    "case": name,
                    "sdk": vals[0],
                    "numpy": vals[1],
                    "torch": vals[2],
                    "paired_vs_best": paired,
                }
            )
            cells = [f"{v:.1f}" if v is not None else "-" for v in vals]
            out.append(
                f"| {name} | {' | '.join(cells)} | {ratio(vals[0], vals[1])} | {ratio(vals[0], vals[2])} |"
            )
    return out


def import_cost(module: str) -> tuple:
    # VmHWM (peak RSS of this process image, in kB): ru_maxrss would carry the parent's peak
    # across exec on Linux.
    code = (
        f"import time; t = time.perf_counter(); import {module}; d = time.perf_counter() - t; "
        "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
        "print(d, hwm)"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = []
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
        if r.returncode != 0:
            return None, None
        secs, rss = r.stdout.split()
        runs.append((float(secs), int(rss)))
    return min(runs)


def imports() -> list:
    s = import_cost("sdk")
    n = import_cost("numpy")
    t = import_cost("torch") if torch is not None else (None, None)
    out = [row("import time (in a fresh process)", s[0], n[0], t[0], lambda x: f"{x * 1e3:.1f} ms")]
    out.append(row("peak RSS after import", s[1], n[1], t[1], lambda x: f"{x / 1024:.1f} MB"))
    return out


SECTIONS = ("tiny", "elementwise", "reductions", "gemm", "imports")
THREADS: dict = {}  # each library's thread count in this run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the raw numbers as JSON")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated subset")
    parser.add_argument(
        "--threads",
        choices=("1", "default"),
        default="1",
        help="1 (every library on one thread) or each library's default thread count",
    )
    args = parser.parse_args()
    funcs = dict(zip(SECTIONS, (tiny_overhead, elementwise, reductions, gemm, imports)))
    limiter = None
    if args.threads == "1":
        sdk.set_num_threads(1)
        if torch is not None:
            torch.set_num_threads(1)
        limiter = threadpoolctl.threadpool_limits(1) if threadpoolctl is not None else None
    THREADS.update(sdk=sdk.get_num_threads(), torch=torch.get_num_threads() if torch else None)
    threads = "one thread" if args.threads == "1" else f"default threads {THREADS}"
    print(
        f"sdk {sdk.__version__}, numpy {np.__version__}, torch {torch.__version__ if torch else 'absent'}; {threads}\n"
    )
    print("| case | sdk | numpy | torch | sdk/numpy | sdk/torch |")
    print("|---|---|---|---|---|---|")
    for key in args.sections.split(","):
        start = len(RECORDS)
        for line in funcs[key]():
            print(line, flush=True)
        for record in RECORDS[start:]:
            record["section"] = key
    print(
        "\nRatios are time ratios (lower is better for sdk) except GFLOP/s rows (higher is better)."
    )
    del limiter
    if args.json:
        units = "seconds per call; gemm rows GFLOP/s; import rows seconds and peak RSS in kB"
        with open(args.json, "w") as f:
            out = {"benchmark": "core", "units": units, "threads": THREADS, "results": RECORDS}
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
