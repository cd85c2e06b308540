"""Core reductions, softmax, matmul and cat against numpy: prints a table (best of N runs).

Usage: python benchmarks/bench_core_reduce_linalg.py [--threads N] [--json PATH] [--sweep]
Talks to sdk/lib/libsdk_core.so through ctypes, so it measures the core alone.
--sweep instead times the reductions and softmax through sdk at sizes 1K..64M elements, at one
thread and at the default thread count, beside numpy and torch (when installed) at their defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--json", metavar="PATH", help="also write the raw numbers (seconds)")
parser.add_argument("--sweep", action="store_true", help="sizes 1K..64M, 1 and default threads")
parser.add_argument("--sizes", default="1e3,6.5e4,1e6,4e6,1.6e7,6.4e7", help="sweep sizes")
args = parser.parse_args()
if not args.sweep:
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # numpy's BLAS, read at import

import _checkout  # noqa: E402, F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np  # noqa: E402

from tests.core.core2_ctypes import LIB, T, call, dims_arg, tensor_list  # noqa: E402


def best(fn, reps=7):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


RECORDS: list = []  # raw numbers of every row, for --json


def row(name, t_sdk, t_np, extra=""):
    RECORDS.append({"case": name, "sdk": t_sdk, "numpy": t_np})
    print(f"{name:<34} {t_sdk * 1e3:10.3f} {t_np * 1e3:10.3f} {t_np / t_sdk:8.2f}x  {extra}")


def main() -> None:
    LIB.sdk_set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    print(f"threads={args.threads}")
    print(f"{'op':<34} {'sdk ms':>10} {'numpy ms':>10} {'speedup':>9}")
    x = rng.random((2048, 2048), dtype=np.float32)
    tx = T(x)
    for dim in (0, 1):
        n, arr = dims_arg((dim,))
        row(
            f"sum f32 2048x2048 dim={dim}",
            best(lambda n=n, arr=arr: call("sdk_reduce", 0, tx.h, n, arr, 0, -1, None)),
            best(lambda dim=dim: x.sum(axis=dim)),
        )
    v = rng.random(1 << 20, dtype=np.float32)
    tv = T(v)
    row(
        "sum f32 1M",
        best(lambda: call("sdk_reduce", 0, tv.h, 0, None, 0, -1, None)),
        best(lambda: v.sum()),
    )
    row(
        "amax f32 1M",
        best(lambda: call("sdk_reduce", 3, tv.h, 0, None, 0, -1, None)),
        best(lambda: v.max()),
    )
    s = rng.standard_normal((256, 1024)).astype(np.float32)
    ts = T(s)

    def np_softmax():
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    row("softmax f32 256x1024 dim=1", best(lambda: call("sdk_softmax", ts.h, 1)), best(np_softmax))
    for n in (1024, 2048):
        for dt in (np.float32, np.float64):
            a = rng.random((n, n)).astype(dt)
            b = rng.random((n, n)).astype(dt)
            ta, tb = T(a), T(b)
            t_sdk = best(lambda ta=ta, tb=tb: call("sdk_mm", ta.h, tb.h, None), reps=3)
            t_np = best(lambda a=a, b=b: a @ b, reps=3)
            gf = 2 * n**3 / 1e9
            row(
                f"mm {np.dtype(dt).name} {n}",
                t_sdk,
                t_np,
                f"{gf / t_sdk:7.1f} vs {gf / t_np:7.1f} GFLOP/s",
            )
    a = rng.random((1024, 1024)).astype(np.float32)
    b = rng.random((1024, 1024)).astype(np.float32)
    ta, tbt = T(a), T(b.T)
    row(
        "mm f32 1024 a @ b.T (view)",
        best(lambda: call("sdk_mm", ta.h, tbt.h, None), reps=3),
        best(lambda: a @ b.T, reps=3),
    )
    a, b = rng.random((4, 4), dtype=np.float32), rng.random((4, 4), dtype=np.float32)
    ta, tb = T(a), T(b)
    row(
        "mm f32 4x4 (per-call)",
        best(lambda: call("sdk_mm", ta.h, tb.h, None), reps=200),
        best(lambda: a @ b, reps=200),
    )
    h = rng.random((64, 128), dtype=np.float32)
    xi = rng.random((64, 32), dtype=np.float32)
    lst = tensor_list([T(h), T(xi)])
    row(
        "cat [(64,128),(64,32)] dim=1",
        best(lambda: call("sdk_cat", 2, lst, 1, None), 200),
        best(lambda: np.concatenate([h, xi], 1), 200),
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "core_reduce_linalg", "results": RECORDS}, f, indent=2)


def best_each(fns, reps):
    """Best seconds per call of each callable, their repeats taken in turn (A B C A B C ...),
    so a noisy moment on a shared machine slows all of them alike."""
    loops = []
    for fn in fns:
        t0 = time.perf_counter()
        fn()
        loops.append(max(1, int(2e-3 / max(time.perf_counter() - t0, 1e-7))))
    out = [float("inf")] * len(fns)
    for _ in range(reps):
        for i, (fn, n) in enumerate(zip(fns, loops)):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            out[i] = min(out[i], (time.perf_counter() - t0) / n)
    return out


def sweep_cases(x, s, t):
    """(name, sdk, numpy, torch or None) over a (rows, 1024) float32 matrix."""
    import sdk

    def np_softmax(log):
        z = x - x.max(1, keepdims=True)
        e = np.exp(z)
        return z - np.log(e.sum(1, keepdims=True)) if log else e / e.sum(1, keepdims=True)

    def torch_or_none(fn):
        return None if t is None else fn

    return [
        ("sum", s.sum, x.sum, torch_or_none(lambda: t.sum())),
        ("sum dim=1", lambda: s.sum(1), lambda: x.sum(1), torch_or_none(lambda: t.sum(1))),
        ("sum dim=0", lambda: s.sum(0), lambda: x.sum(0), torch_or_none(lambda: t.sum(0))),
        ("amax", s.amax, x.max, torch_or_none(lambda: t.amax())),
        ("softmax dim=1", lambda: sdk.softmax(s, 1), lambda: np_softmax(False),
         torch_or_none(lambda: t.softmax(1))),
        ("log_softmax dim=1", lambda: sdk.log_softmax(s, 1), lambda: np_softmax(True),
         torch_or_none(lambda: t.log_softmax(1))),
        ("softmax dim=0", lambda: sdk.softmax(s, 0), None, torch_or_none(lambda: t.softmax(0))),
    ]  # fmt: skip


def sweep() -> None:
    """The table of --sweep: sdk at 1 thread and at its default beside numpy and torch."""
    import sdk

    try:
        import torch
    except ImportError:
        torch = None
    default = sdk.get_num_threads()
    print(
        f"load {os.getloadavg()[0]:.2f}; sdk default threads {default}; torch and numpy at theirs"
    )
    print("| op | elements | sdk 1 thread (us) | sdk default (us) | numpy (us) | torch (us) |"
          " 1 thread / best other | default / best other |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for size in (int(float(v)) for v in args.sizes.split(",")):
        cols = 1024 if size >= 1 << 20 else max(1, int(size**0.5))
        x = rng.standard_normal((max(1, size // cols), cols)).astype(np.float32)
        s, t = sdk.from_numpy(x), (torch.from_numpy(x) if torch is not None else None)
        reps = 7 if size <= 1 << 22 else 3
        for name, f_sdk, f_np, f_t in sweep_cases(x, s, t):
            sdk.set_num_threads(1)
            one = best_each([f_sdk], reps)[0]
            sdk.set_num_threads(default)
            others = [f for f in (f_np, f_t) if f is not None]
            got = best_each([f_sdk, *others], reps)
            t_np = got[1] if f_np is not None else None
            t_t = got[-1] if f_t is not None else None
            ref = min(v for v in (t_np, t_t) if v is not None)
            cells = [f"{v * 1e6:.1f}" if v is not None else "-" for v in (one, got[0], t_np, t_t)]
            print(
                f"| {name} | {x.size} | {' | '.join(cells)} | {one / ref:.2f} | {got[0] / ref:.2f} |"
            )


if __name__ == "__main__":
    if args.sweep:
        sweep()
    else:
        main()
