"""Autograd overhead: forward and backward of a 20-op chain of small tensors, sdk vs torch.

python benchmarks/bench_autograd.py [--size 8] [--repeat 2000] [--json PATH]

One thread for both libraries. Each backward needs a fresh graph, so backward is timed
as (forward + backward) - forward, from interleaved runs; the table reports the median
and minimum per call in microseconds. torch is optional (skipped when not importable).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any, Callable

import _checkout  # noqa: E402, F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np


def chain(lib: Any, x: Any, w: Any, b: Any) -> Any:
    """20 recorded ops: elementwise, broadcasting, a matmul, a reduction."""
    h = x * w  # 1
    h = h + b  # 2
    h = h.tanh()  # 3
    h = h @ w  # 4
    h = h.sigmoid()  # 5
    h = h * 2.0  # 6
    h = h - x  # 7
    h = h.exp()  # 8
    h = h / (w * w + 1.0)  # 9, 10, 11
    h = h.relu()  # 12
    h = h.sum(1, keepdim=True) + h  # 13, 14
    h = h.t()  # 15
    h = h.softmax(1)  # 16
    h = h.sqrt()  # 17
    h = h.transpose(0, 1)  # 18
    h = h * b  # 19
    return h.sum()  # 20


def _time(fn: Callable[[], Any], repeat: int) -> list:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def bench(name: str, lib: Any, make: Callable[[Any], Any], repeat: int) -> tuple:
    x, w, b = (make(a) for a in _data())

    def fwd() -> Any:
        return chain(lib, x, w, b)

    def fwd_bwd() -> None:
        fwd().backward()

    for _ in range(50):  # warm-up
        fwd_bwd()
    f_times, fb_times = [], []
    for _ in range(repeat // 100):
        f_times += _time(fwd, 100)
        fb_times += _time(fwd_bwd, 100)
    f_med, fb_med = statistics.median(f_times), statistics.median(fb_times)
    return name, f_med, min(f_times), fb_med - f_med, min(fb_times) - min(f_times)


_SIZE = 8


def _data() -> list:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((_SIZE, _SIZE)).astype(np.float32) for _ in range(3)]


def main() -> None:
    global _SIZE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--json", metavar="PATH", help="also write the raw numbers (seconds)")
    args = parser.parse_args()
    _SIZE = args.size

    import sdk

    sdk.set_num_threads(1)
    rows = [bench("sdk", sdk, lambda a: sdk.tensor(a, requires_grad=True), args.repeat)]
    try:
        import torch
    except ImportError:
        print("torch not importable: sdk only")
    else:
        torch.set_num_threads(1)
        rows.append(
            bench(
                f"torch {torch.__version__}",
                torch,
                lambda a: torch.tensor(a, requires_grad=True),
                args.repeat,
            )
        )

    print(f"20-op chain, {args.size}x{args.size} float32, 1 thread, {args.repeat} runs")
    print(
        f"{'library':<22}{'forward med':>13}{'forward min':>13}{'backward med':>14}{'backward min':>14}"
    )
    for name, fm, fmin, bm, bmin in rows:
        print(
            f"{name:<22}{fm * 1e6:>11.1f}us{fmin * 1e6:>11.1f}us{bm * 1e6:>12.1f}us{bmin * 1e6:>12.1f}us"
        )
    if len(rows) == 2:
        print(f"backward sdk/torch (median): {rows[0][3] / rows[1][3]:.2f}x")
    if args.json:
        keys = ("library", "forward_median", "forward_min", "backward_median", "backward_min")
        results = [dict(zip(keys, r)) for r in rows]
        with open(args.json, "w") as f:
            json.dump({"benchmark": "autograd", "size": args.size, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
