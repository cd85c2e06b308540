"""Time the LLTM cell: forward call and backward of (h'.sum() + C'.sum()), per variant.

Variants: py (sdk Python ops + autograd), cpp (pybind11 extension), ctypes (C ABI
extension), torch (the same C++ op built against torch; only when torch is importable),
mm (the op's matmuls alone: addmm forward, the two mm of backward -- the floor for large
sizes). Prints min / median / mean microseconds per call; --json for machines.

    python benchmark.py                       # B=16 F=32 S=128, variant cpp
    python benchmark.py --variant all --sizes 16,32,128 64,256,512 256,1024,1024
    python benchmark.py --variant cpp torch --json results.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ALL_VARIANTS = ("py", "cpp", "ctypes", "torch", "mm")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-b", "--batch-size", type=int, default=16)
    p.add_argument("-f", "--features", type=int, default=32)
    p.add_argument("-s", "--state-size", type=int, default=128)
    p.add_argument("--sizes", nargs="+", metavar="B,F,S", help="several sizes (overrides -b/-f/-s)")
    p.add_argument("-r", "--runs", type=int, default=0, help="timed runs (default: ~1 s worth)")
    p.add_argument("--double", action="store_true", help="float64 instead of float32")
    p.add_argument("--variant", nargs="+", default=["cpp"], choices=(*ALL_VARIANTS, "all"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: this thread's CPU time (steadier on a busy machine; one thread only)",
    )
    p.add_argument("--json", nargs="?", const="-", metavar="PATH", help="write JSON (- = stdout)")
    args = p.parse_args(argv)
    if "all" in args.variant:
        args.variant = list(ALL_VARIANTS)
    if args.sizes:
        args.sizes = [tuple(int(v) for v in s.split(",")) for s in args.sizes]
    else:
        args.sizes = [(args.batch_size, args.features, args.state_size)]
    return args


CLOCK = time.perf_counter


def auto_runs(fn: Callable[[], object], budget_s: float = 1.0) -> int:
    start = time.perf_counter()
    fn()
    fn()
    per_call = (time.perf_counter() - start) / 2
    return max(10, min(1000, int(budget_s / max(per_call, 1e-7))))


def summary(times: list[float]) -> dict[str, float]:
    return {
        "min": min(times),
        "median": statistics.median(times),
        "mean": statistics.fmean(times),
    }


def sdk_pass(variant: str, B: int, F: int, S: int, double: bool):
    """(forward, backward) closures for an sdk variant; backward reruns a forward untimed."""
    import sdk

    dtype = sdk.float64 if double else sdk.float32
    x, h, c = (sdk.randn(B, n, dtype=dtype) for n in (F, S, S))
    if variant == "mm":
        W = sdk.randn(3 * S, F + S, dtype=dtype)
        bias = sdk.randn(1, 3 * S, dtype=dtype)
        X = sdk.randn(B, F + S, dtype=dtype)
        dG = sdk.randn(B, 3 * S, dtype=dtype)
        return (lambda: sdk.addmm(bias, X, W.t())), (lambda: (dG.t().mm(X), dG.mm(W)))
    if variant == "py":
        from reference import PythonLLTM

        cell = PythonLLTM(F, S)
    else:
        from lltm import LLTM

        cell = LLTM(F, S, backend=variant)
    cell = cell.to(dtype)
    return _passes(lambda: cell(x, (h, c)))


def torch_pass(B: int, F: int, S: int, double: bool):
    import torch
    from torch_ref.torch_lltm import TorchLLTM

    dtype = torch.float64 if double else torch.float32
    x, h, c = (torch.randn(B, n, dtype=dtype) for n in (F, S, S))
    cell = TorchLLTM(F, S).to(dtype)
    return _passes(lambda: cell(x, (h, c)))


def _passes(run_forward: Callable[[], tuple]):
    """Forward: the cell call. Backward: (h'.sum() + C'.sum()).backward() on a fresh forward."""
    pending: list = []

    def forward():
        return run_forward()

    def prepare():
        pending.append(run_forward())

    def backward():
        new_h, new_cell = pending.pop()
        (new_h.sum() + new_cell.sum()).backward()

    return forward, (prepare, backward)


ROUNDS = 5  # each variant's calls are split into this many blocks, interleaved


def measure_size(variants: list[str], size: tuple[int, int, int], args) -> list[dict]:
    """Time every variant at one size. Each variant's calls run in ROUNDS blocks taken in
    turn (A B C A B C ...): inside a block a variant runs back to back with warm caches, as in
    a user's loop (its first call is an untimed warm-up), and a noisy neighbour for a second
    slows every variant alike instead of one, so the ratios stay meaningful."""
    B, F, S = size
    passes = {
        v: torch_pass(B, F, S, args.double) if v == "torch" else sdk_pass(v, B, F, S, args.double)
        for v in variants
    }
    runs = args.runs or min(auto_runs(forward) for forward, _ in passes.values())
    blocks = [len(b) for b in _split(runs, ROUNDS)]
    fwd: dict[str, list[float]] = {v: [] for v in variants}
    bwd: dict[str, list[float]] = {v: [] for v in variants}
    for n in blocks:
        for v, (forward, _) in passes.items():
            for i in range(n + 1):
                start = CLOCK()
                forward()
                if i:
                    fwd[v].append((CLOCK() - start) * 1e6)
    for n in blocks:
        for v, (_, backward) in passes.items():
            for i in range(n + 1):
                if isinstance(backward, tuple):  # autograd: only the backward call is timed
                    prepare, run = backward
                    prepare()
                else:
                    run = backward
                start = CLOCK()
                run()
                if i:
                    bwd[v].append((CLOCK() - start) * 1e6)
    return [
        {
            "variant": v,
            "B": B,
            "F": F,
            "S": S,
            "dtype": "float64" if args.double else "float32",
            "threads": args.threads,
            "clock": args.clock,
            "runs": runs,
            "forward_us": summary(fwd[v]),
            "backward_us": summary(bwd[v]),
        }
        for v in variants
    ]


def _split(n: int, k: int) -> list[range]:
    """n items in at most k nearly equal non-empty blocks."""
    k = max(1, min(k, n))
    edges = [round(i * n / k) for i in range(k + 1)]
    return [range(a, b) for a, b in zip(edges, edges[1:]) if b > a]


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    global CLOCK
    args = parse_args(argv)
    if args.clock == "cpu":
        CLOCK = time.thread_time
    sys.path.insert(0, HERE)
    import sdk

    sdk.manual_seed(0)
    sdk.set_num_threads(args.threads)
    variants = list(args.variant)
    if "torch" in variants:
        if torch_available():
            import torch

            torch.manual_seed(0)
            torch.set_num_threads(args.threads)
        else:
            print("torch is not installed: skipping the torch variant", file=sys.stderr)
            variants.remove("torch")
    results = [r for size in args.sizes for r in measure_size(variants, size, args)]
    # With --json on stdout, the table goes to stderr so stdout stays valid JSON.
    print_table(results, sys.stderr if args.json == "-" else sys.stdout)
    if args.json:
        text = json.dumps({"benchmark": "lltm", "results": results}, indent=2)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return 0


def _ratio(r: dict, ref: dict | None) -> str:
    if ref is None or r is ref:
        return f"{'':>13}"
    rf = r["forward_us"]["median"] / ref["forward_us"]["median"]
    rb = r["backward_us"]["median"] / ref["backward_us"]["median"]
    return f" {rf:>5.2f}x {rb:>5.2f}x"


def print_table(results: list[dict], out) -> None:
    """One row per (size, variant); ratios of medians against torch and the matmuls alone."""
    head = f"{'B,F,S':>15} {'variant':>7} | {'forward min/med/mean (us)':>28} | "
    head += f"{'backward min/med/mean (us)':>28} | {'vs torch':>13} | {'vs mm':>13}"
    print(head, file=out)
    by = {(r["variant"], r["B"], r["F"], r["S"]): r for r in results}
    for r in results:
        size = (r["B"], r["F"], r["S"])
        f, b = r["forward_us"], r["backward_us"]
        line = f"{r['B']:>4},{r['F']:>4},{r['S']:>5} {r['variant']:>7} | "
        line += f"{f['min']:>8.1f} {f['median']:>9.1f} {f['mean']:>9.1f} | "
        line += f"{b['min']:>8.1f} {b['median']:>9.1f} {b['mean']:>9.1f} |"
        line += _ratio(r, by.get(("torch", *size))) + " |"
        line += _ratio(r, by.get(("mm", *size)))
        print(line, file=out)
    if not any(r["variant"] == "torch" for r in results):
        why = (
            "the torch variant was not asked for (add torch to --variant)"
            if torch_available()
            else "torch is not installed (pip install torch; the SDK itself does not need it)"
        )
        print(f"(the 'vs torch' column is empty: {why})", file=out)


if __name__ == "__main__":
    sys.exit(main())
