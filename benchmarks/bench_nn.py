"""Layers with fused core kernels, forward + backward, one thread, beside torch when it is
importable: LayerNorm at (4096, 1024), Embedding (a 4096 x 1024 lookup) and Conv2d (batch 32,
3 -> 64 channels, 3x3, 32x32, padding 1).

    python benchmarks/bench_nn.py [--repeat 7] [--json PATH]

Goals (issue: training essentials): LayerNorm and Embedding at most 1.0x torch, Conv2d at
most 1.5x torch. Implementations alternate within each repeat; the table reports the best.
"""

from __future__ import annotations

import argparse
import json
import time

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np

import sdk
import sdk.nn.functional as F

try:
    import torch
except ImportError:  # the sdk columns alone
    torch = None

CASES = {
    "LayerNorm (4096, 1024)": 1.0,
    "Embedding 4096 rows of (50000, 1024)": 1.0,
    "Conv2d 32x3x32x32, 64 3x3": 1.5,
}


def _inputs(rng):
    x = rng.standard_normal((4096, 1024)).astype(np.float32)
    w = rng.standard_normal(1024).astype(np.float32)
    table = rng.standard_normal((50000, 1024)).astype(np.float32)
    idx = rng.integers(0, 50000, 4096)
    img = rng.standard_normal((32, 3, 32, 32)).astype(np.float32)
    k = rng.standard_normal((64, 3, 3, 3)).astype(np.float32)
    return x, w, table, idx, img, k


def _steps(lib, data):
    """One forward + backward per case for library `lib` (sdk or torch)."""
    x, w, table, idx, img, k = data
    if lib is sdk:
        t = lambda a, g=False: sdk.tensor(a, requires_grad=g)  # noqa: E731
        ln = lambda a, b, c: F.layer_norm(a, (1024,), b, c)  # noqa: E731
        emb, conv = F.embedding, lambda a, b: F.conv2d(a, b, padding=1)  # noqa: E731
    else:
        tf = torch.nn.functional
        t = lambda a, g=False: torch.tensor(a, requires_grad=g)  # noqa: E731
        ln = lambda a, b, c: tf.layer_norm(a, (1024,), b, c)  # noqa: E731
        emb, conv = tf.embedding, lambda a, b: tf.conv2d(a, b, padding=1)  # noqa: E731
    xs, ws, bs = t(x, True), t(w, True), t(np.zeros_like(w), True)
    ts, ids = t(table, True), t(idx)
    ims, ks = t(img, True), t(k, True)

    def run_ln():
        ln(xs, ws, bs).sum().backward()

    def run_emb():
        emb(ids, ts).sum().backward()
        ts.grad = None

    def run_conv():
        conv(ims, ks).sum().backward()

    return dict(zip(CASES, (run_ln, run_emb, run_conv)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", help="write the raw timings here")
    args = ap.parse_args()
    sdk.set_num_threads(1)
    libs = {"sdk": sdk}
    if torch is not None:
        torch.set_num_threads(1)
        libs["torch"] = torch
    data = _inputs(np.random.default_rng(0))
    steps = {name: _steps(lib, data) for name, lib in libs.items()}
    best = {name: {case: float("inf") for case in CASES} for name in libs}
    for _ in range(args.repeat):
        for case in CASES:
            for name in libs:
                t0 = time.perf_counter()
                steps[name][case]()
                best[name][case] = min(best[name][case], time.perf_counter() - t0)
    print("| forward + backward | sdk ms | torch ms | sdk / torch | goal |")
    print("|---|---|---|---|---|")
    for case, goal in CASES.items():
        s = best["sdk"][case] * 1e3
        if "torch" in best:
            tt = best["torch"][case] * 1e3
            ratio = s / tt
            met = "met" if ratio <= goal else "NOT met"
            print(f"| {case} | {s:.2f} | {tt:.2f} | {ratio:.2f} | <= {goal}x torch: {met} |")
        else:
            print(f"| {case} | {s:.2f} | - | - | <= {goal}x torch (torch not installed) |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(best, f, indent=1)


if __name__ == "__main__":
    main()
