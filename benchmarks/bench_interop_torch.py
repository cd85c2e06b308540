"""An SDK op used from torch: torch.ops.<ns>.<op> after sdk.interop.torch.register(ns),
against the same C++ op written as a native torch custom op (TORCH_LIBRARY, built with
torch's cpp_extension), at 4 elements (the call path) and 1M elements (the data path).

    python benchmarks/bench_interop_torch.py [--repeat 7]

Goals (issue: one op binary for every framework): 4 elements <= 1.5x the native op;
1M elements at parity (<= 1.1x: the tensors cross zero-copy). Needs torch; the repeats of
every row are interleaved and the best is reported.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import timeit

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
from bench_ops import KERNEL  # the same kernel as the op benchmarks, for both sides

SDK_LIB = (
    KERNEL.format(include="#include <sdk/library.h>", ns="sdk", check="SDK_CHECK")
    + """
SDK_LIBRARY(bench_interop, m) { m.def("mymul(Tensor a, Tensor b) -> Tensor"); }
SDK_LIBRARY_IMPL(bench_interop, CPU, m) { m.impl("mymul", &mymul); }
"""
)
TORCH_LIB = (
    KERNEL.format(include="#include <torch/extension.h>", ns="at", check="TORCH_CHECK")
    + """
TORCH_LIBRARY(bench_interop_native, m) { m.def("mymul(Tensor a, Tensor b) -> Tensor"); }
TORCH_LIBRARY_IMPL(bench_interop_native, CPU, m) { m.impl("mymul", &mymul); }
"""
)


def build(work: str) -> None:
    from torch.utils.cpp_extension import load as torch_load

    import sdk
    import sdk.interop.torch
    from cpp_extension import load

    for name, text in (("sdk_lib.cpp", SDK_LIB), ("torch_lib.cpp", TORCH_LIB)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    load("bench_interop", [os.path.join(work, "sdk_lib.cpp")], is_python_module=False)
    sdk.library.register_fake("bench_interop::mymul", lambda a, b: sdk.empty_like(a))
    sdk.interop.torch.register("bench_interop")
    torch_load("bench_interop_native", [os.path.join(work, "torch_lib.cpp")],
               is_python_module=False)  # fmt: skip


def cases(n: int) -> dict:
    import torch

    import sdk

    ta, tb = torch.randn(n), torch.randn(n)
    sa, sb = sdk.randn(n), sdk.randn(n)
    sdk_op, native = torch.ops.bench_interop.mymul, torch.ops.bench_interop_native.mymul
    return {
        "torch.ops (SDK op, registered)": lambda: sdk_op(ta, tb),
        "torch.ops (native TORCH_LIBRARY op)": lambda: native(ta, tb),
        "sdk.ops (sdk tensors, for scale)": lambda: sdk.ops.bench_interop.mymul(sa, sb),
    }


def measure(fns: dict, repeat: int) -> dict[str, float]:
    for fn in fns.values():
        fn()
    loops = {
        k: max(20, int(0.2 / max(timeit.timeit(f, number=20) / 20, 1e-8))) for k, f in fns.items()
    }
    best = {k: float("inf") for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            best[k] = min(best[k], timeit.timeit(fn, number=loops[k]) / loops[k])
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to compare")
        return 0
    with tempfile.TemporaryDirectory() as work:
        build(work)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print("| elements | call | us | vs native | goal |")
    print("|---|---|---|---|---|")
    for n, limit in ((4, 1.5), (1 << 20, 1.1)):
        best = measure(cases(n), args.repeat)
        native = best["torch.ops (native TORCH_LIBRARY op)"]
        for name, t in best.items():
            goal = ""
            if name.startswith("torch.ops (SDK"):
                goal = f"<= {limit}x: {'met' if t <= limit * native else '**not met**'}"
            print(f"| {n} | {name} | {t * 1e6:.2f} | {t / native:.2f} | {goal} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
