"""The torch.nn functions the sdk builds from other ops (padding, pooling, embedding_bag, the
norms and shuffles), forward and backward apart, at three sizes, beside torch when importable.

    python benchmarks/bench_nn_compositions.py [--sizes small,medium,large] [--repeat 5]
        [--only SUBSTRING] [--clock cpu|wall] [--out benchmarks/results/nn_compositions.md]

torch is optional: without it the table has the sdk column alone. One thread each (the
machine is shared; ratios, not absolute times, are what to compare). Goal: every row at
<= 1.5x torch's time. Each cell is the best of --repeat runs, the two libraries alternating,
timed by this thread's CPU time by default (with one thread it measures the same work as
the wall clock, but other jobs preempting the benchmark do not inflate it).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from typing import Any, Callable

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np

import sdk

try:
    import torch
except ImportError:  # the sdk column alone
    torch = None

# Elements of the (float32) input at each size.
SIZES = {"small": 4096, "medium": 1 << 18, "large": 1 << 24}
GOAL = 1.5
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def _shape(elements: int, k: int, n: int = 2, c: int = 4, even: bool = False) -> tuple:
    """(n, c, *k equal spatial sides) holding about `elements` values."""
    side = max(int(round((elements / (n * c)) ** (1.0 / k))), 4)
    side += side % 2 if even else 0
    return (n, c) + (side,) * k


class Case:
    """One row: make(lib, F, rng) -> (inputs needing grad, forward callable)."""

    def __init__(self, name: str, make: Callable) -> None:
        self.name, self.make = name, make


def _spatial(fn: Callable, k: int, c: int = 4, even: bool = False) -> Callable:
    def make(lib: Any, F: Any, rng: Any, elements: int) -> tuple:
        x = rng.standard_normal(_shape(elements, k, c=c, even=even)).astype(np.float32)
        x = lib.tensor(x)
        x.requires_grad_(True)
        return [x], lambda: fn(F, x), tuple(x.shape)

    return make


def _bag(mode: str, weighted: bool = False) -> Callable:
    def make(lib: Any, F: Any, rng: Any, elements: int) -> tuple:
        dim = 64
        count = max(elements // dim, 16)  # indices picked; the table has as many rows
        w = lib.tensor(rng.standard_normal((count, dim)).astype(np.float32))
        w.requires_grad_(True)
        idx = lib.tensor(rng.integers(0, count, count))
        off = lib.tensor(np.sort(rng.integers(0, count, count // 8)))
        off[0] = 0
        psw = lib.tensor(rng.random(count).astype(np.float32)) if weighted else None
        if weighted:
            psw.requires_grad_(True)

        def run() -> Any:
            return F.embedding_bag(idx, w, off, mode=mode, per_sample_weights=psw)

        return [w] + ([psw] if weighted else []), run, (count, dim)

    return make


def _cases() -> list:
    cases = []
    for mode in ("reflect", "replicate", "circular"):
        for k in (1, 2, 3):
            cases.append(
                Case(
                    f"pad {mode} {k}d (3 each side)",
                    _spatial(lambda F, x, m=mode, k=k: F.pad(x, [3] * (2 * k), mode=m), k),
                )
            )
    cases += [
        Case("adaptive_max_pool1d (L/3+1)", _spatial(
            lambda F, x: F.adaptive_max_pool1d(x, x.shape[-1] // 3 + 1), 1)),
        Case("adaptive_max_pool2d (5, 7)", _spatial(
            lambda F, x: F.adaptive_max_pool2d(x, (5, 7)), 2)),
        Case("adaptive_max_pool3d (3, 5, 7)", _spatial(
            lambda F, x: F.adaptive_max_pool3d(x, (3, 5, 7)), 3)),
        Case("adaptive_avg_pool2d (5, 7)", _spatial(
            lambda F, x: F.adaptive_avg_pool2d(x, (5, 7)), 2)),
        Case("adaptive_avg_pool3d (3, 5, 7)", _spatial(
            lambda F, x: F.adaptive_avg_pool3d(x, (3, 5, 7)), 3)),
        Case("max_pool1d k3 s2 p1", _spatial(lambda F, x: F.max_pool1d(x, 3, 2, 1), 1)),
        Case("max_pool2d k3 s2 p1", _spatial(lambda F, x: F.max_pool2d(x, 3, 2, 1), 2)),
        Case("max_pool3d k3 s2 p1", _spatial(lambda F, x: F.max_pool3d(x, 3, 2, 1), 3)),
        Case("max_pool3d k2", _spatial(lambda F, x: F.max_pool3d(x, 2), 3)),
        Case("avg_pool2d k3 s2 p1", _spatial(lambda F, x: F.avg_pool2d(x, 3, 2, 1), 2)),
        Case("avg_pool3d k3 s2 p1", _spatial(lambda F, x: F.avg_pool3d(x, 3, 2, 1), 3)),
        Case("avg_pool3d k2", _spatial(lambda F, x: F.avg_pool3d(x, 2), 3)),
        Case("embedding_bag sum", _bag("sum")),
        Case("embedding_bag mean", _bag("mean")),
        Case("embedding_bag max", _bag("max")),
        Case("embedding_bag sum per_sample_weights", _bag("sum", weighted=True)),
        Case("instance_norm 2d", _spatial(lambda F, x: F.instance_norm(x), 2)),
        Case("instance_norm 3d", _spatial(lambda F, x: F.instance_norm(x), 3)),
        Case("group_norm 2 groups 2d", _spatial(lambda F, x: F.group_norm(x, 2), 2)),
        Case("pixel_shuffle r2", _spatial(lambda F, x: F.pixel_shuffle(x, 2), 2, c=16)),
        Case("pixel_unshuffle r2", _spatial(lambda F, x: F.pixel_unshuffle(x, 2), 2, even=True)),
        Case("local_response_norm size 5", _spatial(
            lambda F, x: F.local_response_norm(x, 5), 2, c=16)),
        Case("interpolate nearest x2 2d", _spatial(
            lambda F, x: F.interpolate(x, scale_factor=2, mode="nearest"), 2)),
        Case("interpolate bilinear x2 2d", _spatial(
            lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear"), 2)),
    ]  # fmt: skip
    return cases


def _time(lib: Any, F: Any, case: Case, elements: int, seed: int) -> tuple:
    """(forward s, backward s, shape) of one run; the gradient seed is a fixed random tensor."""
    leaves, fwd, shape = case.make(lib, F, np.random.default_rng(seed), elements)
    start = clock()
    out = fwd()
    t_fwd = clock() - start
    grad = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32))
    start = clock()
    out.backward(grad)
    t_bwd = clock() - start
    return t_fwd, t_bwd, shape


def _libs() -> dict:
    libs = {"sdk": (sdk, sdk.nn.functional)}
    if torch is not None:
        libs["torch"] = (torch, torch.nn.functional)
    return libs


def _measure(case: Case, elements: int, repeat: int) -> dict:
    libs = _libs()
    best = {name: [float("inf"), float("inf")] for name in libs}
    shape = None
    for r in range(repeat):
        for name, (lib, F) in libs.items():
            f, b, shape = _time(lib, F, case, elements, seed=r)
            best[name] = [min(best[name][0], f), min(best[name][1], b)]
    return {"shape": shape, **best}


def _load() -> str:
    try:
        return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "load average unknown"


def _row(name: str, size: str, m: dict) -> tuple:
    """A markdown row and the worse of its two ratios (None without torch)."""
    cells = [name, size, "x".join(map(str, m["shape"]))]
    worst = None
    for part in (0, 1):
        s = m["sdk"][part] * 1e3
        if "torch" in m:
            t = m["torch"][part] * 1e3
            ratio = s / t
            worst = ratio if worst is None else max(worst, ratio)
            cells += [f"{s:.3f}", f"{t:.3f}", f"{ratio:.2f}x"]
        else:
            cells += [f"{s:.3f}"]
    return "| " + " | ".join(cells) + " |", worst


def _header() -> list:
    if torch is None:
        return ["| case | size | shape | fwd sdk ms | bwd sdk ms |", "|---|---|---|---:|---:|"]
    return [
        "| case | size | shape | fwd sdk ms | fwd torch ms | fwd ratio | bwd sdk ms "
        "| bwd torch ms | bwd ratio |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="small,medium,large")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--out", default="", help="also write the table (markdown) here")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = ap.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    sdk.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    sizes = args.sizes.split(",")
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        sys.exit(f"unknown size(s) {unknown}; choose from {list(SIZES)}")
    started = (datetime.datetime.now(datetime.timezone.utc), _load())
    lines, over = _header(), []
    print("\n".join(lines), flush=True)
    for case in _cases():
        if args.only not in case.name:
            continue
        for size in sizes:
            repeat = args.repeat if size != "large" else max(2, args.repeat // 2)
            line, worst = _row(case.name, size, _measure(case, SIZES[size], repeat))
            print(line, flush=True)
            lines.append(line)
            if worst is not None and worst > GOAL:
                over.append(f"{case.name} ({size}): {worst:.2f}x")
    summary = [
        "",
        f"Rows over {GOAL}x torch's time: {len(over)}" + (": " + "; ".join(over) if over else ""),
    ]
    if torch is None:
        summary = ["", "torch is not importable: the sdk column alone."]
    print("\n".join(summary))
    if args.out:
        _write(args.out, started, lines + summary)


def _write(path: str, started: tuple, lines: list) -> None:
    when, load = started
    head = [
        "# nn compositions: sdk vs torch, forward and backward (one thread each)",
        "",
        f"Measured {when:%Y-%m-%d %H:%M} UTC; {load} at the start, {_load()} at the end "
        f"(2 cores, shared). torch {torch.__version__ if torch else 'absent'}. Times in ms by "
        f"{'thread CPU time' if clock is time.thread_time else 'wall clock'}, best of the "
        "repeats; ratio = sdk / torch (forward and backward apart).",
        "",
        f"Command: `python {' '.join(sys.argv)}`",
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(head + lines) + "\n")


if __name__ == "__main__":
    main()
