"""Run every benchmark in fresh subprocesses; write RESULTS.md, results.json, chart.png.

    python benchmarks/run_all.py [--quick] [--out benchmarks/results] [--no-torch]
    python benchmarks/run_all.py --render-only      # redraw the table and chart from results.json
    python benchmarks/run_all.py --only threaded    # rerun one part into the existing results.json

Each sub-benchmark runs in its own process (one thread: sdk, OpenBLAS, OpenMP, torch), so a
crash or a missing optional library costs one table cell ("error: ..."), never the run. The
`threaded` part reruns the core's elementwise, reduction and GEMM rows with every library at
its default thread count (no *_NUM_THREADS in the child's environment).
torch columns appear only when torch is importable; --no-torch hides it to check that.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
LLTM_DIR = REPO / "examples" / "lltm"
sys.path.insert(0, str(BENCH))
from _checkout import NO_COMPILER_CACHE, import_path  # noqa: E402  (the sdk under test, also for children)
from _report import LLTM_SIZES, draw_chart, render  # noqa: E402  (tables, chart, goals)
from bench_build import _child as timed_child  # noqa: E402  (fresh process: import/load/total/wall)

SINGLE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# --------------------------------------------------------------------------- running children


def child_env(extra: dict[str, str] | None = None, threaded: bool = False) -> dict[str, str]:
    """One thread everywhere (threaded: each library's default, so no *_NUM_THREADS), the
    checkout (and the torch shadow, if any) on sys.path."""
    env = dict(os.environ, **SINGLE_THREAD)
    if threaded:
        for var in (*SINGLE_THREAD, "SDK_NUM_THREADS"):
            env.pop(var, None)
    env.setdefault("MAX_JOBS", "2")
    paths = [p for p in (os.environ.get("RUN_ALL_SHADOW"), import_path()) if p]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(extra or {})
    return env


def short_error(text: str) -> str:
    """The last meaningful line of a traceback or of a compiler's output, for a table cell."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    msg = lines[-1] if lines else "failed without output"
    return msg.replace("|", "/")[:160]


def run_json(args: list[str], timeout: float, cwd: Path = REPO, threaded: bool = False) -> Any:
    """Run `python args... --json PATH` and return the parsed JSON; RuntimeError on failure."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, *args, "--json", str(out)]
        try:
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                env=child_env(threaded=threaded),
                cwd=cwd,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"timed out after {timeout:.0f} s") from None
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(short_error(proc.stderr or proc.stdout))
        return json.loads(out.read_text())


def guarded(name: str, fn: Callable[[], Any]) -> Any:
    """fn()'s result, or {"error": ...} so one failing benchmark leaves the others running."""
    start = time.perf_counter()
    log(f"[{name}] ...")
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 -- any failure becomes a table cell
        traceback.print_exc(file=sys.stderr)
        result = {"error": f"{type(exc).__name__}: {short_error(str(exc))}"}
    log(f"[{name}] done in {time.perf_counter() - start:.1f} s")
    return result


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- machine


def probe_torch() -> str | None:
    """torch's version when a child process can import it, else None."""
    code = "import torch; print(torch.__version__)"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=import_path(),  # '' leads sys.path: never the unbuilt checkout
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def machine_info(torch_version: str | None) -> dict:
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numpy

    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "torch": torch_version,
        "git": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip(),
    }


# --------------------------------------------------------------------------- measurements

SDK_IMPORTS = (
    f"import sys; sys.path.insert(0, {str(LLTM_DIR)!r}); import sdk\nfrom cpp_extension import load"
)
# The tutorial's own call: load(name, sources), each library's default flags (-O2 for the
# sdk); examples/lltm/lltm.py adds -O3 for the runtime figures.
SDK_SOURCES = {"pybind11": "lltm.cpp", "ctypes": "lltm_ctypes.cpp"}
SDK_LOADS = {
    "pybind11": "load('lltm_cpp', [{src!r}])",
    "ctypes": "load('lltm_ctypes', [{src!r}], is_python_module=False)",
}
TORCH_IMPORTS = "import torch\nfrom torch.utils.cpp_extension import load"
TORCH_LOAD = f"load('lltm_torch', [{str(LLTM_DIR / 'torch_ref' / 'lltm_torch.cpp')!r}])"


def build_pair(
    imports: str, load: str, cache_var: str, cache: str | None, source: Path | None = None
) -> dict:
    """Cold build then warm load, each in a fresh process; cache=None keeps the user's cache.
    With `source` (a copy of the extension's source), also two rebuilds after an edit of it:
    the first after the cold build, and a later one (the third build of the same cache).
    Between steps, the sdk's background job (the shared precompiled header, see
    cpp_extension/builder/pch.py) is let finish, as it does while a user reads the first results:
    it never runs during a measurement, and the folder is not deleted under it."""
    env = child_env({**NO_COMPILER_CACHE, cache_var: cache} if cache else NO_COMPILER_CACHE)
    if cache is None:
        env.pop(cache_var, None)

    def settle() -> None:
        if cache_var == "SDK_EXTENSIONS_DIR" and cache:
            from cpp_extension.builder import pch as _pch

            _pch.wait_for_background_jobs(600, Path(cache))

    result = {"cold": timed_child(imports, load, env)}
    settle()
    result["warm"] = timed_child(imports, load, env)
    if source is not None:
        for phase in ("edit", "edit_later"):
            source.write_text(source.read_text() + f"// {phase}\n")
            result[phase] = timed_child(imports, load, env)
            settle()
    return result


def bench_builds(repeat: int, torch_version: str | None, torch_cold: bool) -> dict:
    """LLTM JIT builds: sdk pybind11 / ctypes bridges (fresh cache dirs), torch's for comparison."""
    out: dict[str, Any] = {}
    for bridge, load in SDK_LOADS.items():

        def one(load: str = load, name: str = SDK_SOURCES[bridge]) -> dict:
            runs = []
            for _ in range(repeat):
                with tempfile.TemporaryDirectory() as cache:
                    src = Path(cache) / "src" / name  # a copy, edited between rebuilds
                    src.parent.mkdir()
                    shutil.copyfile(LLTM_DIR / name, src)
                    code = load.format(src=str(src))
                    runs.append(build_pair(SDK_IMPORTS, code, "SDK_EXTENSIONS_DIR", cache, src))
            return median_runs(runs)

        out[bridge] = guarded(f"build {bridge}", one)
    if torch_version:

        def torch_build() -> dict:
            if torch_cold:
                with tempfile.TemporaryDirectory() as cache:
                    return median_runs(
                        [build_pair(TORCH_IMPORTS, TORCH_LOAD, "TORCH_EXTENSIONS_DIR", cache)]
                    )
            result = median_runs(
                [build_pair(TORCH_IMPORTS, TORCH_LOAD, "TORCH_EXTENSIONS_DIR", None)]
            )
            result["cold"] = None  # the first load above used the user's cache: not a cold build
            return result

        out["torch"] = guarded("build torch", torch_build)
    return out


def median_runs(runs: list[dict]) -> dict:
    """Per phase (cold/warm) and field (import/load/total/wall): the median over runs."""
    return {
        phase: {k: statistics.median(r[phase][k] for r in runs) for k in runs[0][phase]}
        for phase in runs[0]
    }


def bench_lltm(quick: bool, torch_version: str | None, clock: str) -> dict:
    """examples/lltm/benchmark.py --json, one process per size running every variant in
    interleaved blocks (a noisy second then slows all variants alike), one thread. If that
    process fails, each variant is retried in a process of its own, so one broken variant
    leaves the others' figures."""
    variants = ["py", "cpp", "ctypes", "mm"] + (["torch"] if torch_version else [])
    runs = dict(zip(LLTM_SIZES, (300, 40, 8) if quick else (1000, 200, 30)))

    def run(names: list[str], size: tuple) -> dict:
        args = [str(LLTM_DIR / "benchmark.py"), "--variant", *names]
        args += ["--sizes", ",".join(map(str, size))]
        args += ["--runs", str(runs[size]), "--clock", clock]
        return {
            r["variant"]: {
                "forward_us": r["forward_us"],
                "backward_us": r["backward_us"],
                "runs": r["runs"],
            }
            for r in run_json(args, timeout=1800, cwd=LLTM_DIR)["results"]
        }

    out: dict[str, Any] = {}
    for size in LLTM_SIZES:
        key = ",".join(map(str, size))
        # the matmul floor matters at the top size only
        names = [v for v in variants if v != "mm" or size == LLTM_SIZES[-1]]
        together = guarded(f"lltm {key} {' '.join(names)}", lambda n=names, s=size: run(n, s))
        if "error" not in together:
            out[key] = together
            continue
        out[key] = {
            v: guarded(f"lltm {key} {v}", lambda v=v, s=size: run([v], s)[v]) for v in names
        }
    return out


IMPORT_CODE = (
    "import time; t = time.perf_counter(); import {module}; d = time.perf_counter() - t; "
    "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
    "print(d, hwm)"
)


def import_cost(module: str, runs: int) -> dict:
    """Median over fresh processes of the import time and the peak RSS (VmHWM) after it."""
    secs, mbs = [], []
    for run in range(runs + 1):  # the first, untimed, writes the bytecode a user's import reads
        proc = subprocess.run(
            [sys.executable, "-c", IMPORT_CODE.format(module=module)],
            capture_output=True,
            text=True,
            env=child_env(),
            cwd=import_path(),
            timeout=120,
        )
        if proc.returncode != 0:
            raise RuntimeError(short_error(proc.stderr))
        s, kb = proc.stdout.split()
        if run == 0:
            continue
        secs.append(float(s))
        mbs.append(int(kb) / 1024)
    return {"seconds": statistics.median(secs), "rss_mb": statistics.median(mbs), "runs": runs}


def bench_imports(torch_version: str | None) -> dict:
    modules = ["sdk", "numpy"] + (["torch"] if torch_version else [])
    return {m: guarded(f"import {m}", lambda m=m: import_cost(m, 5)) for m in modules}


def run_all(args: argparse.Namespace) -> dict:
    torch_version = probe_torch()
    log(f"torch: {torch_version or 'not importable'}; mode: {'quick' if args.quick else 'full'}")
    results: dict[str, Any] = {"meta": machine_info(torch_version)}
    results["meta"]["mode"] = "quick" if args.quick else "full"
    started = time.perf_counter()
    results["build"] = bench_builds(1 if args.quick else 3, torch_version, not args.quick)
    results["meta"]["lltm_clock"] = args.clock
    results["lltm"] = bench_lltm(args.quick, torch_version, args.clock)
    core = ["benchmarks/bench_core.py", "--sections", "tiny,elementwise,reductions,gemm"]
    results["core"] = guarded("bench_core", lambda: run_json(core, 900)["results"])
    rl = ["benchmarks/bench_core_reduce_linalg.py"]
    results["core_c_abi"] = guarded(
        "bench_core_reduce_linalg", lambda: run_json(rl, 600)["results"]
    )
    ag = ["benchmarks/bench_autograd.py", "--repeat", "500" if args.quick else "2000"]
    results["autograd"] = guarded("bench_autograd", lambda: run_json(ag, 600)["results"])
    results["core_threaded"] = bench_threaded()
    results["imports"] = bench_imports(torch_version)
    results["meta"]["elapsed_s"] = round(time.perf_counter() - started, 1)
    return results


def bench_threaded() -> Any:
    """The core's elementwise, reduction and GEMM rows at each library's default thread count,
    with the counts used and the machine's load at the start."""
    args = ["benchmarks/bench_core.py", "--threads", "default"]
    args += ["--sections", "elementwise,reductions,gemm"]
    load = os.getloadavg()[0]

    def run() -> dict:
        out = run_json(args, 900, threaded=True)
        return {"threads": out.get("threads"), "load_average": load, "results": out["results"]}

    return guarded("bench_core --threads default", run)


PARTS = {"threaded": ("core_threaded", bench_threaded)}


def hide_torch(stack: list) -> None:
    """--no-torch: a `torch` package that fails to import, first on every child's path."""
    tmp = tempfile.TemporaryDirectory()
    stack.append(tmp)
    pkg = Path(tmp.name) / "torch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('torch hidden by run_all.py --no-torch')\n")
    os.environ["RUN_ALL_SHADOW"] = tmp.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="fewer runs, no cold torch build (~3 min)"
    )
    parser.add_argument("--out", type=Path, default=BENCH / "results", help="output folder")
    parser.add_argument(
        "--no-torch", action="store_true", help="run as if torch were not installed"
    )
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="LLTM timer: this thread's CPU time (default; steady on a shared machine) or wall",
    )
    parser.add_argument("--render-only", action="store_true", help="redraw from OUT/results.json")
    parser.add_argument(
        "--only", choices=sorted(PARTS), help="rerun one part into OUT/results.json, then render"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    keep: list = []
    if args.no_torch:
        hide_torch(keep)
    if args.render_only or args.only:
        results = json.loads((args.out / "results.json").read_text())
    if args.only:
        key, fn = PARTS[args.only]
        results[key] = fn()
        (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    elif not args.render_only:
        results = run_all(args)
        (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    rep = render(results)
    (args.out / "RESULTS.md").write_text("\n".join(rep.lines))
    meta = results["meta"]
    title = f"sdk benchmarks, {meta['date']}, {meta['cpu']} ({meta['cores']} cores)"
    try:
        draw_chart(rep.goals, args.out / "chart.png", title)
    except Exception as exc:  # noqa: BLE001 -- the table is still worth having
        log(f"chart: error: {exc}")
    print("\n".join(rep.lines))
    log(f"wrote {args.out}/RESULTS.md, results.json, chart.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
