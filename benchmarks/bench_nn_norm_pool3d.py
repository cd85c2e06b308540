"""Torch-named layers composed from existing ops (3-D pooling, instance and local response
norm, embedding_bag), forward + backward, one thread, beside torch when it is importable.

    python benchmarks/bench_nn_norm_pool3d.py [--repeat 5]

No goals: these are compositions, not fused kernels; the table shows what a port pays.
Implementations alternate within each repeat; the table reports the best time in ms.
"""

from __future__ import annotations

import argparse
import time

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np

import sdk
import sdk.nn.functional as F

try:
    import torch
except ImportError:  # the sdk column alone
    torch = None


def _cases(lib, rng):
    """{name: a callable running one forward + backward} for library `lib`."""
    fn = F if lib is sdk else torch.nn.functional
    x = rng.standard_normal((4, 16, 16, 32, 32)).astype(np.float32)
    w = rng.standard_normal((10000, 64)).astype(np.float32)
    idx, off = rng.integers(0, 10000, 100000), np.arange(0, 100000, 50)

    def step(make):
        def run():
            t = lib.tensor(x, requires_grad=True)
            make(t).sum().backward()

        return run

    def bag(mode):
        def run():
            t = lib.tensor(w, requires_grad=True)
            fn.embedding_bag(lib.tensor(idx), t, lib.tensor(off), mode=mode).sum().backward()

        return run

    shape = "(4, 16, 16, 32, 32)"
    return {
        f"max_pool3d k3 s2 p1 {shape}": step(lambda t: fn.max_pool3d(t, 3, 2, 1)),
        f"avg_pool3d k2 {shape}": step(lambda t: fn.avg_pool3d(t, 2)),
        f"adaptive_avg_pool3d (3, 5, 7) {shape}": step(
            lambda t: fn.adaptive_avg_pool3d(t, (3, 5, 7))
        ),
        f"adaptive_max_pool3d (3, 5, 7) {shape}": step(
            lambda t: fn.adaptive_max_pool3d(t, (3, 5, 7))
        ),
        f"instance_norm {shape}": step(lambda t: fn.instance_norm(t)),
        f"local_response_norm size 5 {shape}": step(lambda t: fn.local_response_norm(t, 5)),
        "embedding_bag sum, 100k indices in 2k bags of (10000, 64)": bag("sum"),
        "embedding_bag mean, 100k indices in 2k bags of (10000, 64)": bag("mean"),
        "embedding_bag max, 100k indices in 2k bags of (10000, 64)": bag("max"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sdk.set_num_threads(1)
    libs = [sdk]
    if torch is not None:
        torch.set_num_threads(1)
        libs.append(torch)
    cases = {lib.__name__: _cases(lib, np.random.default_rng(0)) for lib in libs}
    best = {name: {lib: float("inf") for lib in cases} for name in cases["sdk"]}
    for _ in range(args.repeat):
        for name in best:
            for lib, table in cases.items():
                start = time.perf_counter()
                table[name]()
                best[name][lib] = min(best[name][lib], time.perf_counter() - start)
    print(f"| case | sdk ms | {'torch ms | ratio |' if torch is not None else ''}")
    print(f"|---|---:|{'---:|---:|' if torch is not None else ''}")
    for name, row in best.items():
        line = f"| {name} | {row['sdk'] * 1e3:.1f} |"
        if torch is not None:
            line += f" {row['torch'] * 1e3:.1f} | {row['sdk'] / row['torch']:.2f}x |"
        print(line)


if __name__ == "__main__":
    main()
