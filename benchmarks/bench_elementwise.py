"""The fused elementwise kernels added with ABI 1.3 against the composites of older ops they
replace (what a user, or this package before, had to write) and against numpy, on one thread.

    python benchmarks/bench_elementwise.py [--n 1000000] [--repeat 5] [--sweep]

Prints a table of microseconds per call (best of the repeats) and the speedup of the fused
kernel over the composite. No goal is asserted: these numbers document the kernels.
--sweep instead times exp and sigmoid at 1K..64M elements, sdk at one thread and at its default,
beside numpy and torch (when installed) at their defaults.
"""

from __future__ import annotations

import argparse
import timeit

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)
import numpy as np

import sdk


def cases(n: int) -> list[tuple[str, object, object, object]]:
    """(name, fused, composite, numpy) callables over float32 operands of n elements."""
    rng = np.random.default_rng(0)
    a_np, b_np, c_np = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    c_np = np.abs(c_np) + 0.5
    a, b, c = sdk.from_numpy(a_np), sdk.from_numpy(b_np), sdk.from_numpy(c_np)
    lo, hi = a * 0 - 0.5, a * 0 + 0.5
    return [
        ("lerp(a, b, 0.3)", lambda: sdk.lerp(a, b, 0.3), lambda: a + 0.3 * (b - a),
         lambda: a_np + np.float32(0.3) * (b_np - a_np)),
        ("addcmul(a, b, c, value=2)", lambda: sdk.addcmul(a, b, c, value=2),
         lambda: a + 2 * b * c, lambda: a_np + np.float32(2) * b_np * c_np),
        ("addcdiv(a, b, c)", lambda: sdk.addcdiv(a, b, c), lambda: a + b / c,
         lambda: a_np + b_np / c_np),
        ("clamp(a, lo, hi) tensors", lambda: sdk.clamp(a, lo, hi),
         lambda: sdk.minimum(sdk.maximum(a, lo), hi),
         lambda: np.minimum(np.maximum(a_np, lo.numpy()), hi.numpy())),
        ("isclose(a, b)", lambda: sdk.isclose(a, b),
         lambda: ((a - b).abs() <= 1e-8 + 1e-5 * b.abs()).logical_or(a == b),
         lambda: np.isclose(a_np, b_np)),
        ("div(a, c, 'trunc')", lambda: sdk.div(a, c, rounding_mode="trunc"),
         lambda: sdk.where(a / c < 0, (a / c).ceil(), (a / c).floor()),
         lambda: np.trunc(a_np / c_np)),
        ("silu(a)", lambda: sdk.silu(a), lambda: a * a.sigmoid(),
         lambda: a_np / (np.float32(1) + np.exp(-a_np))),
        ("isfinite(a)", lambda: sdk.isfinite(a), lambda: (a - a) == 0,
         lambda: np.isfinite(a_np)),
    ]  # fmt: skip


def best_us(fn: object, number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def best_each(fns: list, repeat: int) -> list:
    """Best microseconds per call of each callable, their repeats taken in turn (A B C A B C)."""
    timers = [timeit.Timer(fn) for fn in fns]
    loops = [max(1, t.autorange()[0] // 10) for t in timers]
    out = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, (t, n) in enumerate(zip(timers, loops)):
            out[i] = min(out[i], t.timeit(n) / n * 1e6)
    return out


def sweep(repeat: int) -> None:
    import os

    try:
        import torch
    except ImportError:
        torch = None
    default = sdk.get_num_threads()
    print(f"load {os.getloadavg()[0]:.2f}; sdk default threads {default}; numpy, torch at theirs")
    print("| op | n | sdk 1 thread (us) | sdk default (us) | numpy (us) | torch (us) |"
          " 1 thread / best other | default / best other |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n in (1_000, 65_536, 1 << 20, 1 << 22, 1 << 24, 1 << 26):
        a_np = rng.standard_normal(n).astype(np.float32)
        a, a_t = sdk.from_numpy(a_np), (torch.from_numpy(a_np) if torch is not None else None)
        for name, f, ref, tf in (
            ("exp", sdk.exp, np.exp, torch.exp if torch else None),
            (
                "sigmoid",
                sdk.sigmoid,
                lambda v: 1 / (1 + np.exp(-v)),
                torch.sigmoid if torch else None,
            ),
        ):
            reps = repeat if n <= 1 << 22 else 2
            sdk.set_num_threads(1)
            one = best_each([lambda f=f, a=a: f(a)], reps)[0]
            sdk.set_num_threads(default)
            fns = [lambda f=f, a=a: f(a), lambda ref=ref, a_np=a_np: ref(a_np)]
            if tf is not None:
                fns.append(lambda tf=tf, a_t=a_t: tf(a_t))
            got = best_each(fns, reps)
            best = min(got[1:])
            t_t = f"{got[2]:.1f}" if tf is not None else "-"
            print(f"| {name} | {n} | {one:.1f} | {got[0]:.1f} | {got[1]:.1f} | {t_t} |"
                  f" {one / best:.2f} | {got[0] / best:.2f} |")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="*", default=[1000, 1_000_000])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument(
        "--sweep", action="store_true", help="exp/sigmoid at 1K..64M, 1 and default threads"
    )
    args = p.parse_args()
    if args.sweep:
        return sweep(args.repeat)
    sdk.set_num_threads(1)
    print("| op | n | fused (us) | composite (us) | numpy (us) | fused vs composite |")
    print("|---|---|---|---|---|---|")
    for n in args.n:
        number = max(1, 2_000_000 // max(n, 1))
        for name, fused, composite, ref in cases(n):
            f, c, r = (best_us(fn, number, args.repeat) for fn in (fused, composite, ref))
            print(f"| {name} | {n} | {f:.1f} | {c:.1f} | {r:.1f} | {c / f:.2f}x |")


if __name__ == "__main__":
    main()
