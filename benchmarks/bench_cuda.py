"""The CUDA path on a real GPU: LLTM on CUDA against the CPU op, sdk.mm against a direct
cuBLAS call, the caching allocator over 1000 LLTM steps, and a few kernel rates.

    python benchmarks/bench_cuda.py                    # tables on stdout
    python benchmarks/bench_cuda.py --json r.json --markdown r.md
    python benchmarks/bench_cuda.py --quick            # fewer repeats

Goals (issue: the CUDA path on a lent GPU): sgemm 4096 through sdk.mm >= 0.9x the GFLOP/s of
cuBLAS called directly on the same buffers; the allocator makes no cudaMalloc after the first
LLTM step (one per size class) across 1000 steps. Everything else is information. GPU times
are wall-clock with a device synchronize after each timed block; CPU times use all the
host's cores (sdk's default thread count).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "examples", "lltm"))
sys.path.insert(0, os.path.join(REPO, "examples", "lltm", "cuda"))

import _checkout  # noqa: E402, F401  (the sdk under test: the checkout's build or the installed one)

import sdk  # noqa: E402
import sdk.cuda  # noqa: E402

LLTM_SIZES = [(16, 32, 128), (64, 256, 512), (256, 1024, 1024)]  # (batch, features, state)
GEMM_N = 4096


def timed(fn: Callable[[], Any], runs: int, sync: Callable[[], None]) -> list[float]:
    """Seconds per call for `runs` calls, each followed by `sync` (two untimed warm-ups)."""
    fn()
    fn()
    sync()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - start)
    return out


def loaded_library(fragment: str) -> str:
    """The path of a loaded shared library whose name contains `fragment`, or ''."""
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and fragment in os.path.basename(parts[5]):
                return parts[5]
    return ""


# ---- LLTM ---------------------------------------------------------------------------------


def lltm_args(batch: int, features: int, state: int, device: str):
    sdk.manual_seed(0)
    args = [
        sdk.randn(batch, features),
        sdk.randn(3 * state, features + state),
        sdk.randn(1, 3 * state),
        sdk.randn(batch, state),
        sdk.randn(batch, state),
    ]
    return [a.to(device) for a in args]


def bench_lltm(cpu_op: Any, cuda_op: Any, runs: int) -> list[dict]:
    rows = []
    cpu_threads = sdk.get_num_threads()
    for size in LLTM_SIZES:
        for name, op, device, sync, threads in (
            ("cuda", cuda_op, "cuda", sdk.cuda.synchronize, cpu_threads),
            ("cpu", cpu_op, "cpu", lambda: None, cpu_threads),
            ("cpu, 1 thread", cpu_op, "cpu", lambda: None, 1),
        ):
            sdk.set_num_threads(threads)
            args = lltm_args(*size, device)
            out = op.forward(*args)
            grads = [sdk.ones_like(out[0]), sdk.ones_like(out[1])]
            n = runs if device == "cuda" else max(3, runs // 10)
            bwd_args = [*grads, *out[1:], args[1]]
            fwd = timed(lambda op=op, a=args: op.forward(*a), n, sync)
            bwd = timed(lambda op=op, a=bwd_args: op.backward(*a), n, sync)
            rows.append(
                {
                    "size": ",".join(map(str, size)),
                    "device": name,
                    "fwd_min_us": min(fwd) * 1e6,
                    "fwd_median_us": statistics.median(fwd) * 1e6,
                    "bwd_min_us": min(bwd) * 1e6,
                    "bwd_median_us": statistics.median(bwd) * 1e6,
                }
            )
    sdk.set_num_threads(cpu_threads)
    return rows


def bench_allocator(cuda_op: Any, steps: int) -> dict:
    """cudaMalloc calls over `steps` LLTM steps (forward + backward) after one warm-up step."""
    args = lltm_args(64, 256, 512, "cuda")

    def step():
        out = cuda_op.forward(*args)
        grads = [sdk.ones_like(out[0]), sdk.ones_like(out[1])]
        cuda_op.backward(*grads, *out[1:], args[1])

    step()
    sdk.cuda.synchronize()
    before = sdk.cuda.memory_stats()
    for _ in range(steps):
        step()
    sdk.cuda.synchronize()
    after = sdk.cuda.memory_stats()
    return {
        "steps": steps,
        "allocations_requested": after["num_allocs"] - before["num_allocs"],
        "cudaMalloc_during_steps": after["num_device_allocs"] - before["num_device_allocs"],
        "cudaMalloc_total": after["num_device_allocs"],
        "reserved_bytes": after["reserved_bytes"],
        "goal_met": after["num_device_allocs"] == before["num_device_allocs"],
    }


# ---- GEMM ---------------------------------------------------------------------------------


class DirectCublas:
    """cublasSgemm_v2/cublasDgemm_v2 through ctypes on raw device pointers: the reference."""

    def __init__(self, path: str) -> None:
        self.lib = ctypes.CDLL(path)
        self.handle = ctypes.c_void_p()
        status = self.lib.cublasCreate_v2(ctypes.byref(self.handle))
        if status != 0:
            raise RuntimeError(f"cublasCreate_v2 failed with status {status}")
        self.lib.cublasSetStream_v2(self.handle, ctypes.c_void_p(0))

    def gemm(self, a: Any, b: Any, c: Any, n: int, double: bool) -> None:
        # Column-major C = A B on n x n buffers (the layout does not change the work).
        ctype = ctypes.c_double if double else ctypes.c_float
        fn = self.lib.cublasDgemm_v2 if double else self.lib.cublasSgemm_v2
        one, zero = ctype(1.0), ctype(0.0)
        ptrs = [ctypes.c_void_p(t.data_ptr()) for t in (a, b, c)]
        status = fn(
            self.handle, 0, 0, n, n, n, ctypes.byref(one), ptrs[0], n, ptrs[1], n,
            ctypes.byref(zero), ptrs[2], n,
        )  # fmt: skip
        if status != 0:
            raise RuntimeError(f"cuBLAS gemm failed with status {status}")


def bench_gemm(runs: int) -> dict:
    n = GEMM_N
    result: dict[str, Any] = {"n": n}
    a32 = sdk.randn(n, n, device="cuda")
    b32 = sdk.randn(n, n, device="cuda")
    sdk.mm(a32, b32)  # loads cuBLAS
    sdk.cuda.synchronize()
    cublas_path = loaded_library("libcublas.so")
    result["cublas"] = cublas_path or "not loaded: sdk.mm ran the backend's own kernel"
    direct = DirectCublas(cublas_path) if cublas_path else None
    flop = 2.0 * n**3
    for label, dtype in (("sgemm", sdk.float32), ("dgemm", sdk.float64)):
        a, b = a32.to(dtype), b32.to(dtype)
        c = sdk.empty(n, n, dtype=dtype, device="cuda")
        sdk_times: list[float] = []
        ref_times: list[float] = []
        for _ in range(3):  # interleaved blocks: a clock change hits both alike
            sdk_times += timed(lambda a=a, b=b: sdk.mm(a, b), runs, sdk.cuda.synchronize)
            if direct:
                ref_times += timed(
                    lambda a=a, b=b, c=c, d=dtype: direct.gemm(a, b, c, n, d == sdk.float64),
                    runs,
                    sdk.cuda.synchronize,
                )
        result[f"{label}_sdk_gflops"] = flop / min(sdk_times) / 1e9
        if ref_times:
            result[f"{label}_cublas_gflops"] = flop / min(ref_times) / 1e9
            result[f"{label}_ratio"] = (
                result[f"{label}_sdk_gflops"] / result[f"{label}_cublas_gflops"]
            )
    result["goal_met"] = result.get("sgemm_ratio", 0.0) >= 0.9
    try:  # a third opinion when this Python has a CUDA torch
        import torch

        if torch.cuda.is_available():
            ta, tb = (torch.randn(n, n, device="cuda") for _ in range(2))
            t = timed(lambda: torch.mm(ta, tb), runs, torch.cuda.synchronize)
            result["sgemm_torch_gflops"] = flop / min(t) / 1e9
    except ImportError:
        pass
    return result


# ---- kernels ------------------------------------------------------------------------------


def bench_kernels(runs: int) -> list[dict]:
    rows = []
    n = 1 << 26  # 64M float32: 256 MB per tensor
    x = sdk.randn(n, device="cuda")
    y = sdk.randn(n, device="cuda")
    t = timed(lambda: x + y, runs, sdk.cuda.synchronize)
    rows.append({"op": "x + y, 64M float32", "ms": min(t) * 1e3, "GB/s": 3 * 4 * n / min(t) / 1e9})
    t = timed(lambda: x.exp(), runs, sdk.cuda.synchronize)
    rows.append(
        {"op": "x.exp(), 64M float32", "ms": min(t) * 1e3, "GB/s": 2 * 4 * n / min(t) / 1e9}
    )
    t = timed(lambda: x.sum(), runs, sdk.cuda.synchronize)
    rows.append({"op": "x.sum(), 64M float32", "ms": min(t) * 1e3, "GB/s": 4 * n / min(t) / 1e9})
    m = x.reshape(8192, 8192)
    t = timed(lambda: m.sum(1), runs, sdk.cuda.synchronize)
    rows.append({"op": "x.sum(1), 8192x8192", "ms": min(t) * 1e3, "GB/s": 4 * n / min(t) / 1e9})
    t = timed(lambda: m.sum(0), runs, sdk.cuda.synchronize)
    rows.append({"op": "x.sum(0), 8192x8192", "ms": min(t) * 1e3, "GB/s": 4 * n / min(t) / 1e9})
    t = timed(lambda: m.t().contiguous(), runs, sdk.cuda.synchronize)
    rows.append({"op": "m.t().contiguous()", "ms": min(t) * 1e3, "GB/s": 8 * n / min(t) / 1e9})
    host = sdk.randn(n)
    t = timed(lambda: host.cuda(), max(3, runs // 4), lambda: None)
    rows.append({"op": "host -> device, 256 MB", "ms": min(t) * 1e3, "GB/s": 4 * n / min(t) / 1e9})
    return rows


# ---- bandwidth: achieved GB/s against the device's peak ----------------------------------

SIZES = [1 << 20, 1 << 22, 1 << 24, 1 << 26]  # 1M, 4M, 16M, 64M elements
SQUARE = {1 << 20: 1024, 1 << 22: 2048, 1 << 24: 4096, 1 << 26: 8192}


def peak_gbs() -> float:
    """Memory bandwidth from the device's attributes: memory clock (kHz) x bus width x 2;
    0.0 when the CUDA runtime is not loaded (a rehearsal on the host-memory test backend)."""
    path = loaded_library("libcudart")
    if not path:
        return 0.0
    lib = ctypes.CDLL(path)
    clock, width = ctypes.c_int(), ctypes.c_int()
    lib.cudaDeviceGetAttribute(ctypes.byref(clock), 36, 0)  # cudaDevAttrMemoryClockRate
    lib.cudaDeviceGetAttribute(ctypes.byref(width), 37, 0)  # cudaDevAttrGlobalMemoryBusWidth
    return 2.0 * clock.value * 1e3 * width.value / 8 / 1e9


def per_launch(fn: Callable[[], Any], sync: Callable[[], None], runs: int, batch: int = 20):
    """Seconds per call: the best of `runs` blocks of `batch` calls with one synchronize each
    (launch cost hides behind the queued work)."""
    fn()
    sync()
    best = float("inf")
    for _ in range(max(2, runs // 4)):
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        sync()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def bandwidth_cases(lib: Any, n: int, dtype: Any, itemsize: int) -> list[tuple]:
    """(name, fn, bytes moved) for one library (sdk or torch) at n elements."""
    x = lib.randn(n, device="cuda").to(dtype)
    y = lib.randn(n, device="cuda").to(dtype)
    m = x.reshape(SQUARE[n], n // SQUARE[n])
    b = n * itemsize
    return [
        ("clone (D2D copy)", lambda: x.clone(), 2 * b),
        ("x + y", lambda: x + y, 3 * b),
        ("x * y", lambda: x * y, 3 * b),
        ("x.exp()", lambda: x.exp(), 2 * b),
        ("x.sum()", lambda: x.sum(), b),
        ("m.sum(0)", lambda: m.sum(0), b),
        ("m.sum(1)", lambda: m.sum(1), b),
    ]


def bench_bandwidth(runs: int, max_elements: int) -> dict:
    peak = peak_gbs()
    torch = torch_cuda()
    rows = []
    sizes = [n for n in SIZES if n <= max_elements] or SIZES[:1]
    plans = [("float32", n) for n in sizes] + [("float16", sizes[-1]), ("bfloat16", sizes[-1])]
    for dname, n in plans:
        itemsize = 4 if dname == "float32" else 2
        ours = bandwidth_cases(sdk, n, getattr(sdk, dname), itemsize)
        theirs = bandwidth_cases(torch, n, getattr(torch, dname), itemsize) if torch else None
        for i, (name, fn, nbytes) in enumerate(ours):
            t = per_launch(fn, sdk.cuda.synchronize, runs)
            row = {"op": name, "dtype": dname, "n": n, "us": t * 1e6, "GB/s": nbytes / t / 1e9}
            row["pct_peak"] = 100.0 * row["GB/s"] / peak if peak else 0.0
            if theirs:
                tt = per_launch(theirs[i][1], torch.cuda.synchronize, runs)
                row["torch_GB/s"] = nbytes / tt / 1e9
            rows.append(row)
        del ours, theirs
    return {"peak_GB/s": peak, "torch": bool(torch), "rows": rows}


def bench_gemm16(runs: int, n: int = GEMM_N) -> list[dict]:
    """mm n x n in float16, bfloat16 and float32, sdk against torch.mm on the same GPU."""
    torch = torch_cuda()
    rows = []
    for dname in ("float16", "bfloat16", "float32"):
        a = sdk.randn(n, n, device="cuda").to(getattr(sdk, dname))
        b = sdk.randn(n, n, device="cuda").to(getattr(sdk, dname))
        t = per_launch(lambda a=a, b=b: sdk.mm(a, b), sdk.cuda.synchronize, runs, batch=5)
        row = {"dtype": dname, "sdk_tflops": 2.0 * n**3 / t / 1e12}
        if torch:
            ta = torch.randn(n, n, device="cuda", dtype=getattr(torch, dname))
            tb = torch.randn(n, n, device="cuda", dtype=getattr(torch, dname))
            tt = per_launch(
                lambda ta=ta, tb=tb: torch.mm(ta, tb), torch.cuda.synchronize, runs, batch=5
            )
            row["torch_tflops"] = 2.0 * n**3 / tt / 1e12
            row["ratio"] = row["sdk_tflops"] / row["torch_tflops"]
        rows.append(row)
    return rows


def markdown_bandwidth(r: dict) -> str:
    out = []
    if "bandwidth" in r:
        bw = r["bandwidth"]
        out += ["", f"### Bandwidth (peak from the device: {bw['peak_GB/s']:.0f} GB/s)", ""]
        out += [
            "| op | dtype | n | us | GB/s | % of peak | torch GB/s |",
            "|---|---|---|---|---|---|---|",
        ]
        for k in bw["rows"]:
            tg = k.get("torch_GB/s")
            out.append(
                f"| {k['op']} | {k['dtype']} | {k['n'] >> 20}M | {k['us']:.1f} | {k['GB/s']:.0f} "
                f"| {k['pct_peak']:.0f}% | {'-' if tg is None else f'{tg:.0f}'} |"
            )
    if "gemm16" in r:
        out += [
            "",
            f"### mm {r['gemm16_n']} (TFLOP/s)",
            "",
            "| dtype | sdk | torch.mm | sdk/torch |",
        ]
        out += ["|---|---|---|---|"]
        for g in r["gemm16"]:
            t, q = g.get("torch_tflops"), g.get("ratio")
            out.append(
                f"| {g['dtype']} | {g['sdk_tflops']:.1f} | {'-' if t is None else f'{t:.1f}'} "
                f"| {'-' if q is None else f'{q:.2f}'} |"
            )
    return "\n".join(out) + "\n"


# ---- report -------------------------------------------------------------------------------


def markdown(r: dict) -> str:
    out = [f"device: {r['device']}; CPU threads for the 'cpu' rows: {r['cpu_threads']}", ""]
    if "lltm" not in r:
        return "\n".join(out) + markdown_bandwidth(r)
    out += ["### LLTM forward / backward, float32 (us per call)", ""]
    out += [
        "| B,F,S | device | fwd min | fwd median | bwd min | bwd median | cuda speedup (fwd/bwd) |"
    ]
    out += ["|---|---|---|---|---|---|---|"]
    by = {(row["size"], row["device"]): row for row in r["lltm"]}
    for row in r["lltm"]:
        speed = ""
        if row["device"] == "cuda":
            cpu = by[(row["size"], "cpu")]
            fs = cpu["fwd_min_us"] / row["fwd_min_us"]
            bs = cpu["bwd_min_us"] / row["bwd_min_us"]
            speed = f"{fs:.1f}x / {bs:.1f}x"
        out.append(
            f"| {row['size']} | {row['device']} | {row['fwd_min_us']:.1f} | "
            f"{row['fwd_median_us']:.1f} | {row['bwd_min_us']:.1f} | "
            f"{row['bwd_median_us']:.1f} | {speed} |"
        )
    g = r["gemm"]
    out += ["", f"### GEMM {g['n']}x{g['n']} (GFLOP/s, best of 3 interleaved blocks)", ""]
    out += [f"cuBLAS: {g['cublas']}", ""]
    out += ["| gemm | sdk.mm | cuBLAS direct | sdk/cuBLAS | goal |", "|---|---|---|---|---|"]
    for label in ("sgemm", "dgemm"):
        ref = g.get(f"{label}_cublas_gflops")
        ratio = g.get(f"{label}_ratio")
        goal = "" if label != "sgemm" else ("met" if g["goal_met"] else "NOT met") + " (>= 0.9)"
        out.append(
            f"| {label} | {g[f'{label}_sdk_gflops']:.0f} | {'-' if ref is None else f'{ref:.0f}'} "
            f"| {'-' if ratio is None else f'{ratio:.3f}'} | {goal} |"
        )
    if "sgemm_torch_gflops" in g:
        out.append(
            f"\ntorch.mm float32 (same GPU, same run): {g['sgemm_torch_gflops']:.0f} GFLOP/s"
        )
    a = r["allocator"]
    out += ["", f"### Caching allocator over {a['steps']} LLTM steps (64,256,512)", ""]
    out += [
        f"- allocations requested: {a['allocations_requested']}",
        f"- cudaMalloc during the steps: {a['cudaMalloc_during_steps']} "
        f"(goal 0: {'met' if a['goal_met'] else 'NOT met'}); in all: {a['cudaMalloc_total']}",
        f"- reserved: {a['reserved_bytes'] / 2**20:.1f} MiB",
    ]
    out += ["", "### Kernels", "", "| op | ms | GB/s |", "|---|---|---|"]
    out += [f"| {k['op']} | {k['ms']:.3f} | {k['GB/s']:.0f} |" for k in r["kernels"]]
    return "\n".join(out) + markdown_bandwidth(r)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--markdown", metavar="PATH")
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    p.add_argument(
        "--only",
        default="all",
        help="comma-separated: full (LLTM, allocator, sgemm, kernels), bandwidth, gemm16; "
        "default all",
    )
    p.add_argument(
        "--max-elements", type=int, default=1 << 26, help="largest bandwidth size (default 64M)"
    )
    p.add_argument("--gemm-n", type=int, default=GEMM_N, help="size of the gemm16 rows")
    args = p.parse_args(argv)
    if not sdk.cuda.is_available():
        print(f"error: CUDA is not available: {sdk.cuda.unavailable_reason()}", file=sys.stderr)
        return 2
    runs = 10 if args.quick else 30
    only = {"full", "bandwidth", "gemm16"} if args.only == "all" else set(args.only.split(","))
    result: dict[str, Any] = {
        "device": os.environ.get("SDK_GPU_NAME", "cuda:0"),
        "cpu_threads": sdk.get_num_threads(),
    }
    if "full" in only:
        from jit import lltm_cuda  # builds on first use
        from lltm import load_backend

        result["lltm"] = bench_lltm(load_backend("cpp"), lltm_cuda, runs)
        result["allocator"] = bench_allocator(lltm_cuda, 1000)
        result["gemm"] = bench_gemm(runs)
        result["kernels"] = bench_kernels(runs)
    if "bandwidth" in only:
        result["bandwidth"] = bench_bandwidth(runs, args.max_elements)
    if "gemm16" in only:
        result["gemm16_n"] = args.gemm_n
        result["gemm16"] = bench_gemm16(runs, args.gemm_n)
    text = markdown(result)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
