"""Sorting, scans, scatter/index and reordering ops against numpy: prints a table (best of N
runs, milliseconds).

Usage: python benchmarks/bench_struct.py [--threads N] [--json PATH]
Goes through the Python API (sdk.sort, Tensor.scatter_, ...), so a row includes the
binding's per-call cost, which is negligible at these sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--json", metavar="PATH", help="also write the raw numbers (seconds)")
args = parser.parse_args()
os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)

import _checkout  # noqa: E402, F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np  # noqa: E402

import sdk  # noqa: E402


def best(fn, reps=5):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


RECORDS: list = []


def sort_np(a, axis):
    idx = np.argsort(a, axis=axis, kind="stable")
    return np.take_along_axis(a, idx, axis), idx


def row(name, f_sdk, f_np):
    t_sdk, t_np = best(f_sdk), best(f_np)
    RECORDS.append({"case": name, "sdk": t_sdk, "numpy": t_np})
    print(f"{name:<44} {t_sdk * 1e3:10.3f} {t_np * 1e3:10.3f} {t_np / t_sdk:8.2f}x")


def main() -> None:
    sdk.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    print(f"threads={args.threads}")
    print(f"{'op':<44} {'sdk ms':>10} {'numpy ms':>10} {'speedup':>9}")

    v = rng.standard_normal(1 << 20).astype(np.float32)
    tv = sdk.tensor(v)
    # sdk's sort is stable and returns values and indices: numpy's counterpart is a stable
    # argsort plus a gather (np.sort alone, values only, is listed for scale).
    row("sort f32 1M vs argsort(stable)+take", lambda: tv.sort(), lambda: sort_np(v, 0))
    row("sort f32 1M vs np.sort (values only)", lambda: tv.sort(), lambda: np.sort(v))
    row("argsort f32 1M vs argsort(stable)", lambda: tv.argsort(),
        lambda: np.argsort(v, kind="stable"))  # fmt: skip
    m = rng.standard_normal((1000, 1000)).astype(np.float32)
    tm = sdk.tensor(m)
    row("sort f32 1000x1000 dim=1", lambda: tm.sort(1), lambda: sort_np(m, 1))
    row("sort f32 1000x1000 dim=0", lambda: tm.sort(0), lambda: sort_np(m, 0))
    iv = rng.integers(0, 1000, size=1 << 20).astype(np.int32)
    tiv = sdk.tensor(iv)
    row("argsort i32 1M (many ties)", lambda: tiv.argsort(),
        lambda: np.argsort(iv, kind="stable"))  # fmt: skip
    row("topk k=10 f32 1000x1000 dim=1 vs argpartition", lambda: tm.topk(10, 1),
        lambda: np.argpartition(-m, 10, axis=1)[:, :10])  # fmt: skip
    row("kthvalue f32 1000x1000 dim=1 vs partition", lambda: tm.kthvalue(500, 1),
        lambda: np.partition(m, 499, axis=1)[:, 499])  # fmt: skip
    row("unique i32 1M (inverse, counts)",
        lambda: tiv.unique(return_inverse=True, return_counts=True),
        lambda: np.unique(iv, return_inverse=True, return_counts=True))  # fmt: skip

    row("cumsum f32 1000x1000 dim=1", lambda: tm.cumsum(1), lambda: np.cumsum(m, axis=1))
    row("cumsum f32 1000x1000 dim=0", lambda: tm.cumsum(0), lambda: np.cumsum(m, axis=0))
    row("cumsum i32 1M -> int64", lambda: tiv.cumsum(0), lambda: np.cumsum(iv, dtype=np.int64))
    d = rng.uniform(0.9, 1.1, (1000, 1000))
    td = sdk.tensor(d)
    row("cumprod f64 1000x1000 dim=1", lambda: td.cumprod(1), lambda: np.cumprod(d, axis=1))
    row("cummax f32 1000x1000 dim=1 vs maximum.accumulate", lambda: tm.cummax(1),
        lambda: np.maximum.accumulate(m, axis=1))  # fmt: skip

    n = 200_000
    labels = rng.integers(0, 100, size=n)
    tl = sdk.tensor(labels).reshape(n, 1)
    onehot_np = np.zeros((n, 100), np.float32)
    onehot = sdk.zeros(n, 100)
    rows_ = np.arange(n)

    def np_onehot():
        onehot_np[rows_, labels] = 1.0

    row("scatter_ one-hot 200000x100", lambda: onehot.scatter_(1, tl, 1.0), np_onehot)
    vals = rng.standard_normal(1 << 20)
    bins = rng.integers(0, 1000, size=1 << 20)
    tvals, tbins = sdk.tensor(vals), sdk.tensor(bins)
    acc = sdk.zeros(1000, dtype=sdk.float64)
    acc_np = np.zeros(1000)
    row("scatter_reduce sum 1M -> 1000 vs add.at", lambda: acc.scatter_reduce(0, tbins, tvals, "sum"),
        lambda: np.add.at(acc_np, bins, vals))  # fmt: skip
    row("scatter_reduce amax 1M -> 1000 vs maximum.at",
        lambda: acc.scatter_reduce(0, tbins, tvals, "amax"),
        lambda: np.maximum.at(acc_np, bins, vals))  # fmt: skip
    big = rng.standard_normal((2000, 512)).astype(np.float32)
    tbig = sdk.tensor(big)
    pick = rng.permutation(2000)[:1000]
    tpick, src = sdk.tensor(pick), sdk.tensor(big[:1000])

    def np_index_copy():
        big[pick] = big[:1000]

    row("index_copy_ 1000 rows of 512 f32", lambda: tbig.index_copy_(0, tpick, src), np_index_copy)
    mask = v > 0
    tmask = sdk.tensor(mask)
    row("masked_select f32 1M", lambda: tv.masked_select(tmask), lambda: v[mask])
    idx = rng.integers(0, 1 << 20, size=1 << 20)
    tidx = sdk.tensor(idx)
    row("take f32 1M random", lambda: tv.take(tidx), lambda: np.take(v, idx))

    row("flip f32 1000x1000 dim=0", lambda: tm.flip(0), lambda: np.flip(m, 0).copy())
    row("flip f32 1000x1000 dim=1", lambda: tm.flip(1), lambda: np.flip(m, 1).copy())
    row("roll f32 1000x1000 (7, 3)", lambda: tm.roll((7, 3), (0, 1)),
        lambda: np.roll(m, (7, 3), (0, 1)))  # fmt: skip
    sq = rng.standard_normal((2048, 2048)).astype(np.float32)
    tsq = sdk.tensor(sq)
    row("tril f32 2048x2048", lambda: tsq.tril(), lambda: np.tril(sq))
    row("repeat_interleave f32 1000x1000 x3 dim=1", lambda: tm.repeat_interleave(3, 1),
        lambda: np.repeat(m, 3, 1))  # fmt: skip
    reps = rng.integers(0, 4, size=1000)
    treps = sdk.tensor(reps)
    row("repeat_interleave f32 rows by tensor", lambda: tm.repeat_interleave(treps, 0),
        lambda: np.repeat(m, reps, 0))  # fmt: skip
    row("repeat f32 1000x1000 (2, 2) vs tile", lambda: tm.repeat(2, 2),
        lambda: np.tile(m, (2, 2)))  # fmt: skip

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "rows": RECORDS}, f, indent=1)


if __name__ == "__main__":
    main()
