"""Data loading for training, one thread, beside torch when it is importable: one epoch of
DataLoader over a TensorDataset of 1M rows (32 float32 features and an int64 label) in
batches of 256, in order and shuffled.

    python benchmarks/bench_train.py [--repeat 3] [--rows 1000000] [--json PATH]

Goal (issue 21: training essentials): at most 1.0x torch's time per epoch. The libraries
alternate within each repeat; the table reports the best epoch.
"""

from __future__ import annotations

import argparse
import json
import time

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np

import sdk
import sdk.utils.data as sdk_data

try:
    import torch
    import torch.utils.data as torch_data
except ImportError:  # the sdk columns alone
    torch = None

GOAL = 1.0
CASES = ("in order", "shuffled")


def _loaders(lib, data, x, y, generator):
    ds = data.TensorDataset(lib.from_numpy(x), lib.from_numpy(y))
    return {
        "in order": data.DataLoader(ds, batch_size=256),
        "shuffled": data.DataLoader(ds, batch_size=256, shuffle=True, generator=generator),
    }


def _epoch(loader) -> float:
    t0 = time.perf_counter()
    n = 0
    for _xb, yb in loader:
        n += yb.shape[0]
    elapsed = time.perf_counter() - t0
    assert n == len(loader.dataset)
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--json", help="write the raw timings here")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.rows, 32)).astype(np.float32)
    y = rng.integers(0, 10, args.rows)
    sdk.set_num_threads(1)
    loaders = {"sdk": _loaders(sdk, sdk_data, x, y, sdk.Generator(0))}
    if torch is not None:
        torch.set_num_threads(1)
        loaders["torch"] = _loaders(torch, torch_data, x, y, torch.Generator().manual_seed(0))
    best = {name: {case: float("inf") for case in CASES} for name in loaders}
    for _ in range(args.repeat):
        for case in CASES:
            for name in loaders:
                best[name][case] = min(best[name][case], _epoch(loaders[name][case]))
    print(f"| DataLoader epoch, TensorDataset {args.rows} x 32 + labels, batch 256 "
          "| sdk s | torch s | sdk / torch | goal |")  # fmt: skip
    print("|---|---|---|---|---|")
    for case in CASES:
        s = best["sdk"][case]
        if "torch" in best:
            t = best["torch"][case]
            met = "met" if s / t <= GOAL else "NOT met"
            print(f"| {case} | {s:.3f} | {t:.3f} | {s / t:.2f} | <= {GOAL}x torch: {met} |")
        else:
            print(f"| {case} | {s:.3f} | - | - | <= {GOAL}x torch (torch not installed) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(best, f, indent=1)


if __name__ == "__main__":
    main()
