"""float32 reductions (whole tensors, long rows, short rows, columns) and the row-wise ops
built on them, against torch and numpy.

    python benchmarks/bench_reduce.py [--sizes 1K,1M,16M,64M] [--threads 1] [--only sum,argmax]

Each size is the element count of the input; "rows R" views it as (n / R, R) and reduces
the last dim, "cols" as (1024, n / 1024) over dim 0. Prints microseconds per call (the best
of interleaved rounds) and sdk's time over the better of torch and numpy; ops numpy lacks
(softmax, log_softmax) compare with torch alone. No goal is asserted: the table documents
where the reductions of core/src/reduce*.cpp stand.
"""

from __future__ import annotations

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np
from bench_unary import parse_size, setup, timed_cells

import sdk

try:
    import torch
except ImportError:  # the table then compares with numpy alone
    torch = None

# (name, row length or None for the whole tensor or "cols", method, numpy function)
CASES = [
    ("sum", None, "sum", np.sum),
    ("amax", None, "amax", np.max),
    ("argmax", None, "argmax", np.argmax),
    ("sum", 1024, "sum", np.sum),
    ("sum", 64, "sum", np.sum),
    ("sum", 16, "sum", np.sum),
    ("sum", "cols", "sum", np.sum),
    ("mean", 64, "mean", np.mean),
    ("amax", 64, "amax", np.max),
    ("argmax", 1024, "argmax", np.argmax),
    ("argmax", 64, "argmax", np.argmax),
    ("prod", 64, "prod", np.prod),
    ("var", 1024, "var", None),
    ("norm", 1024, "norm", None),
    ("softmax", 1024, "softmax", None),
    ("softmax", 128, "softmax", None),
    ("softmax", 16, "softmax", None),
    ("log_softmax", 1024, "log_softmax", None),
    ("log_softmax", 16, "log_softmax", None),
]


def calls(x: np.ndarray, rows, method: str, npfn) -> tuple:
    """(sdk call, torch call or None, numpy call or None) for one case over x."""
    if rows == "cols":
        a, dim = x.reshape(1024, -1), 0
    elif rows is None:
        a, dim = x, None
    else:
        a, dim = x.reshape(-1, rows), 1
    s = sdk.from_numpy(a)
    t = torch.from_numpy(a) if torch is not None else None
    kw = {} if dim is None else {"dim": dim}

    def call(obj):
        if obj is None:
            return None
        return lambda: getattr(obj, method)(**kw)

    npcall = None
    if npfn is not None:
        npcall = (lambda: npfn(a)) if dim is None else (lambda: npfn(a, axis=dim))
    elif method == "var":
        npcall = lambda: a.var(axis=dim, ddof=1)  # noqa: E731
    elif method == "norm":
        npcall = lambda: np.linalg.norm(a, axis=dim)  # noqa: E731
    return call(s), call(t), npcall


def main() -> None:
    args, only = setup(__doc__, "1K,1M,16M")
    print("| op | over | n | sdk (us) | torch (us) | numpy (us) | sdk/best |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for size in args.sizes.split(","):
        n = parse_size(size)
        x = rng.standard_normal(n, dtype=np.float32)
        for name, rows, method, npfn in CASES:
            if (only and name not in only) or (rows not in (None, "cols") and n % rows):
                continue
            if rows == "cols" and n < 1024 * 16:
                continue
            over = {None: "all", "cols": "dim 0 of (1024, n/1024)"}.get(rows, f"rows of {rows}")
            cells = timed_cells(list(calls(x, rows, method, npfn)), args, n)
            print(f"| {name} | {over} | {size} | {cells}")


if __name__ == "__main__":
    main()
