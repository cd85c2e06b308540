"""float32 math and activation ops, and scans, against torch and numpy, on one thread.

    python benchmarks/bench_unary.py [--sizes 1K,1M,16M] [--threads 1] [--only gelu,log]

Prints microseconds per call (the best of interleaved rounds, so the three libraries see the
same machine load) and sdk's time over the better of torch and numpy. Ops numpy lacks (erf,
GELU, SiLU) compare with torch alone; without torch, with numpy alone. No goal is asserted:
the table documents where the vectorized float32 forms of core/src/vec_math.h stand.
"""

from __future__ import annotations

import argparse
import math
import time

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np

import sdk
import sdk.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # the table then compares with numpy alone
    torch = None


def parse_size(text: str) -> int:
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1].upper(), 1)
    return int(text.rstrip("KMkm")) * scale


def cases(n: int) -> dict[str, tuple]:
    """name -> (sdk call, torch call or None, numpy call or None), over float32 data."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    pos = np.abs(x) + np.float32(0.01)
    rows = x.reshape(-1, 1024) if n % 1024 == 0 else x.reshape(1, -1)
    s, sp, sr = sdk.from_numpy(x), sdk.from_numpy(pos), sdk.from_numpy(rows)
    t = tp = tr = None
    if torch is not None:
        t, tp, tr = torch.from_numpy(x), torch.from_numpy(pos), torch.from_numpy(rows)

    def tcall(fn):
        return None if torch is None else fn

    return {
        "exp": (lambda: s.exp(), tcall(lambda: t.exp()), lambda: np.exp(x)),
        "log": (lambda: sp.log(), tcall(lambda: tp.log()), lambda: np.log(pos)),
        "log1p": (lambda: sp.log1p(), tcall(lambda: tp.log1p()), lambda: np.log1p(pos)),
        "expm1": (lambda: s.expm1(), tcall(lambda: t.expm1()), lambda: np.expm1(x)),
        "erf": (lambda: s.erf(), tcall(lambda: t.erf()), None),
        "gelu": (lambda: F.gelu(s), tcall(lambda: TF.gelu(t)), None),
        "gelu tanh": (
            lambda: F.gelu(s, approximate="tanh"),
            tcall(lambda: TF.gelu(t, approximate="tanh")),
            None,
        ),
        "silu": (lambda: F.silu(s), tcall(lambda: TF.silu(t)), None),
        "sigmoid": (lambda: s.sigmoid(), tcall(lambda: t.sigmoid()), None),
        "tanh": (lambda: s.tanh(), tcall(lambda: t.tanh()), lambda: np.tanh(x)),
        "sin": (lambda: s.sin(), tcall(lambda: t.sin()), lambda: np.sin(x)),
        "sqrt": (lambda: sp.sqrt(), tcall(lambda: tp.sqrt()), lambda: np.sqrt(pos)),
        "cumsum rows": (
            lambda: sr.cumsum(1),
            tcall(lambda: tr.cumsum(1)),
            lambda: np.cumsum(rows, 1),
        ),
    }


def best_of(calls: list, rounds: int) -> list[float]:
    """Microseconds per call of each callable: the minimum over interleaved rounds."""
    best = [math.inf] * len(calls)
    for _ in range(rounds):
        for k, fn in enumerate(calls):
            if fn is None:
                continue
            fn()
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return [b * 1e6 for b in best]


def setup(doc: str, sizes: str) -> tuple[argparse.Namespace, set[str]]:
    """The options these tables share (--sizes, --threads, --only, --rounds), parsed, with
    sdk's and torch's thread counts set; and the set of op names --only keeps."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--sizes", default=sizes, help="element counts, e.g. 1K,1M,16M")
    ap.add_argument("--threads", type=int, default=1, help="sdk's and torch's thread count")
    ap.add_argument("--only", default="", help="comma-separated op names")
    ap.add_argument("--rounds", type=int, default=0, help="rounds (default: by size)")
    args = ap.parse_args()
    sdk.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    print(f"threads {args.threads}; torch {torch.__version__ if torch else '-'}")
    return args, {o.strip() for o in args.only.split(",") if o.strip()}


def timed_cells(calls: list, args: argparse.Namespace, n: int) -> str:
    """The table cells of one row: sdk, torch and numpy microseconds, and sdk over the best."""
    rounds = args.rounds or max(5, min(200, (1 << 24) // max(n, 1)))
    s, t, npy = best_of(calls, rounds)
    cells = [f"{v:.1f}" if v < math.inf else "-" for v in (s, t, npy)]
    return f"{' | '.join(cells)} | {s / min(t, npy):.2f} |"


def main() -> None:
    args, only = setup(__doc__, "1K,1M")
    print("| op | n | sdk (us) | torch (us) | numpy (us) | sdk/best |\n|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        n = parse_size(size)
        for name, calls in cases(n).items():
            if not only or name in only:
                print(f"| {name} | {size} | {timed_cells(list(calls), args, n)}")


if __name__ == "__main__":
    main()
