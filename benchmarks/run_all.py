"""Run every benchmark in fresh single-threaded subprocesses; write RESULTS.md, results.json, chart.png.

    python benchmarks/run_all.py [--quick] [--out benchmarks/results] [--no-torch]
    python benchmarks/run_all.py --render-only      # redraw the table and chart from results.json

Each sub-benchmark runs in its own process (one thread: sdk, OpenBLAS, OpenMP, torch), so a
crash or a missing optional library costs one table cell ("error: ..."), never the run.
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
from _checkout import import_path  # noqa: E402  (the sdk under test, also for children)
from bench_build import _child as timed_child  # noqa: E402  (fresh process: import/load/total/wall)

LLTM_SIZES = ((16, 32, 128), (64, 256, 512), (256, 1024, 1024))
LLTM_GOALS = {LLTM_SIZES[0]: 0.8, LLTM_SIZES[1]: 1.0, LLTM_SIZES[2]: 1.0}  # time vs torch
LLTM_MM_GOAL = 1.25  # LLTM op / its matmuls alone, at the largest size
GOALS = {
    "tiny_us": 0.5,
    "tiny_vs_torch": 0.6,
    "gemm_vs_numpy": 0.95,  # GFLOP/s ratio, higher is better
    "elementwise_vs_numpy": 1.0,  # time ratio
    "import_s": 0.15,
    "import_mb": 50.0,
    "cold_pybind_s": 5.0,
    "cold_pybind_vs_torch": 0.25,
    "ctypes_build_s": 1.0,
    "warm_load_s": 0.2,
    "autograd_vs_torch": 1.0,
}
SINGLE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# --------------------------------------------------------------------------- running children


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """One thread everywhere, the checkout (and the torch shadow, if any) on sys.path."""
    env = dict(os.environ, **SINGLE_THREAD)
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


def run_json(args: list[str], timeout: float, cwd: Path = REPO) -> Any:
    """Run `python args... --json PATH` and return the parsed JSON; RuntimeError on failure."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, *args, "--json", str(out)]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, env=child_env(), cwd=cwd, timeout=timeout
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
    cpp_extension/_pch.py) is let finish, as it does while a user reads the first results:
    it never runs during a measurement, and the folder is not deleted under it."""
    env = child_env({cache_var: cache} if cache else None)
    if cache is None:
        env.pop(cache_var, None)

    def settle() -> None:
        if cache_var == "SDK_EXTENSIONS_DIR" and cache:
            from cpp_extension import _pch

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
    for _ in range(runs):
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
    results["imports"] = bench_imports(torch_version)
    results["meta"]["elapsed_s"] = round(time.perf_counter() - started, 1)
    return results


# --------------------------------------------------------------------------- the report


class Report:
    """Markdown lines plus every checked goal (for the summary table and the chart)."""

    def __init__(self, has_torch: bool) -> None:
        self.has_torch = has_torch
        self.lines: list[str] = []
        self.goals: list[dict] = []
        self.sections: list[tuple[str, str, str | None]] = []  # title, goal, error

    def check(self, panel: str, label: str, value, limit: float, higher: bool = False) -> str:
        """Record a goal; return its status for a table cell."""
        if value is None:
            return "n/a"
        met = value >= limit if higher else value <= limit
        self.goals.append(
            {
                "panel": panel,
                "label": label,
                "value": value,
                "goal": limit,
                "higher": higher,
                "met": met,
                "section": self.sections[-1][0] if self.sections else "",
            }
        )
        return "met" if met else "**not met**"

    def table(self, head: list[str], rows: list[list[str]]) -> None:
        self.lines += md_table(head, rows)

    def section(self, title: str, goal: str, data: Any) -> bool:
        """Header with its goal; False (after an error line) when the data is an error."""
        self.lines += [f"## {title}", "", f"Goal: {goal}", ""]
        error = data["error"] if isinstance(data, dict) and "error" in data else None
        self.sections.append((title, goal, error))
        if error:
            self.lines += [f"error: {error}", ""]
        return error is None

    def summary(self) -> list[str]:
        """One row per section: its goal, how many checks met, and the ones not met."""
        met = sum(g["met"] for g in self.goals)
        rows = []
        for title, goal, error in self.sections:
            checks = [g for g in self.goals if g["section"] == title]
            missed = [f"{g['label']}: {num(g['value'], 2)}" for g in checks if not g["met"]]
            count = f"{len(checks) - len(missed)} / {len(checks)}" if checks else "n/a"
            rows.append(
                [
                    title.split(" (")[0],
                    goal,
                    f"error: {error}" if error else count,
                    ", ".join(missed),
                ]
            )
        head = ["section", "goal", "met", "not met (measured)"]
        return [f"## Summary: {met} of {len(self.goals)} goal checks met", ""] + md_table(
            head, rows
        )


def md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows] + [""]


def num(x, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def cell(data: Any, fmt: Callable[[Any], str]) -> str:
    """A table cell from a value or a guarded() error."""
    if isinstance(data, dict) and "error" in data:
        return f"error: {data['error']}"
    return fmt(data)


def get(data: Any, *keys):
    """data[k0][k1]... or None when missing or an error."""
    for k in keys:
        if not isinstance(data, dict) or "error" in data or data.get(k) is None:
            return None
        data = data[k]
    return data


def render_build(rep: Report, build: dict) -> None:
    g = GOALS
    rep.section(
        "JIT build of the LLTM op (seconds, fresh processes, fresh cache dirs, the tutorial's load(name, sources) call)",
        f"cold pybind11 build <= {g['cold_pybind_s']} s and <= {g['cold_pybind_vs_torch']}x torch; "
        f"ctypes build <= {g['ctypes_build_s']} s; warm load <= {g['warm_load_s']} s",
        build,
    )
    pyb, cty, tor = (build.get(c) for c in ("pybind11", "ctypes", "torch"))
    panel = "absolute (value / goal)"
    cold = [
        "pybind11: "
        + rep.check(panel, "cold build pybind11 (s)", get(pyb, "cold", "load"), g["cold_pybind_s"]),
        "ctypes: "
        + rep.check(panel, "cold build ctypes (s)", get(cty, "cold", "load"), g["ctypes_build_s"]),
    ]
    if rep.has_torch:
        cold_ratio = ratio(get(pyb, "cold", "load"), get(tor, "cold", "load"))
        status = rep.check(
            "vs torch (time ratio)", "cold build pybind11", cold_ratio, g["cold_pybind_vs_torch"]
        )
        cold.append("pybind11/torch: " + status)
    warm = [
        f"{b}: " + rep.check(panel, f"warm load {b} (s)", get(d, "warm", "total"), g["warm_load_s"])
        for b, d in (("pybind11", pyb), ("ctypes", cty))
    ]
    steps = [
        ("cold build: load()", "cold", "load", "; ".join(cold)),
        ("cold build: process wall", "cold", "wall", ""),
        ("warm: load() alone, fresh process", "warm", "load", ""),
        ("warm load incl. import, fresh process", "warm", "total", "; ".join(warm)),
        ("rebuild after an edit: load()", "edit", "load", "(info)"),
        ("later rebuilds (3rd build): load()", "edit_later", "load", "(info)"),
    ]
    cols = [pyb, cty] + ([tor] if rep.has_torch else [])
    rows = []
    for label, phase, field, goal in steps:
        row = [label] + [cell(d, lambda d, p=phase, f=field: num(get(d, p, f), 2)) for d in cols]
        if rep.has_torch:
            row.append(num(ratio(get(pyb, phase, field), get(tor, phase, field)), 2))
        rows.append(row + [goal])
    head = ["step", "sdk pybind11", "sdk ctypes"]
    head += ["torch", "pybind11/torch"] if rep.has_torch else []
    rep.table(head + ["goal"], rows)
    if rep.has_torch and isinstance(tor, dict) and "error" not in tor and tor.get("cold") is None:
        rep.lines += [
            "torch's cold build skipped (--quick); its warm load used the user's cache.",
            "",
        ]


def render_lltm(rep: Report, lltm: dict, clock: str) -> None:
    rep.section(
        f"LLTM forward / backward (us per call, {clock} clock, float32, 1 thread)",
        "C++ op (cpp, ctypes) <= 0.8x torch at 16/32/128, <= 1.0x at 64/256/512 and 256/1024/1024 "
        "(ratios of the min times, forward and backward both)",
        lltm,
    )
    rows = []
    for key, variants in lltm.items():
        size = tuple(int(v) for v in key.split(","))
        ref = variants.get("torch")
        for name, data in variants.items():
            if name == "mm":
                continue
            if "error" in data:
                rows.append([key, name, f"error: {data['error']}"] + [""] * (3 + 3 * rep.has_torch))
                continue
            row = [key, name] + [
                num(get(data, p, s), 1)
                for p in ("forward_us", "backward_us")
                for s in ("min", "mean")
            ]
            if rep.has_torch:
                rf = ratio(get(data, "forward_us", "min"), get(ref, "forward_us", "min"))
                rb = ratio(get(data, "backward_us", "min"), get(ref, "backward_us", "min"))
                goal = ""
                if name in ("cpp", "ctypes"):
                    limit = LLTM_GOALS[size]
                    fs = rep.check("LLTM vs torch (time ratio)", f"{key} {name} fwd", rf, limit)
                    bs = rep.check("LLTM vs torch (time ratio)", f"{key} {name} bwd", rb, limit)
                    goal = f"<= {limit}x: fwd {fs}, bwd {bs}"
                row += [num(rf, 2), num(rb, 2), goal]
            rows.append(row)
    head = ["B,F,S", "variant", "fwd min", "fwd mean", "bwd min", "bwd mean"]
    head += ["fwd/torch", "bwd/torch", "goal"] if rep.has_torch else []
    rep.table(head, rows)


def render_lltm_mm(rep: Report, lltm: dict, clock: str) -> None:
    key = ",".join(map(str, LLTM_SIZES[-1]))
    variants = lltm.get(key, {}) if isinstance(lltm, dict) else {}
    mm = variants.get("mm", {"error": "not measured"})
    ok = rep.section(
        f"LLTM at {key} vs its matmuls alone (us, min per call, {clock} clock)",
        f"LLTM op <= {LLTM_MM_GOAL}x the time of its GEMMs done with sdk.addmm / sdk.mm directly "
        "(forward: addmm(b, X, W.t()); backward: dG.t() @ X and dG @ W)",
        mm,
    )
    if not ok:
        return
    rows = [
        [
            "matmuls alone (sdk)",
            num(get(mm, "forward_us", "min"), 1),
            "",
            num(get(mm, "backward_us", "min"), 1),
            "",
            "",
        ]
    ]
    for name in ("cpp", "ctypes", "torch"):
        data = variants.get(name)
        if data is None:
            continue
        if "error" in data:
            rows.append([name, f"error: {data['error']}", "", "", "", ""])
            continue
        f, b = get(data, "forward_us", "min"), get(data, "backward_us", "min")
        rf, rb = ratio(f, get(mm, "forward_us", "min")), ratio(b, get(mm, "backward_us", "min"))
        goal = ""
        if name != "torch":
            fs = rep.check("LLTM vs its matmuls", f"{name} fwd", rf, LLTM_MM_GOAL)
            bs = rep.check("LLTM vs its matmuls", f"{name} bwd", rb, LLTM_MM_GOAL)
            goal = f"fwd {fs}, bwd {bs}"
        rows.append([name, num(f, 1), num(rf, 2), num(b, 1), num(rb, 2), goal])
    rep.table(["variant", "fwd", "fwd / mm", "bwd", "bwd / mm", "goal"], rows)


def core_rows(core: Any, sections: tuple) -> list[dict]:
    return [r for r in core if r.get("section") in sections] if isinstance(core, list) else []


def render_tiny(rep: Report, core: Any) -> None:
    g = GOALS
    goal = f"a + b on 4 elements <= {g['tiny_us']} us and <= {g['tiny_vs_torch']}x torch"
    if not rep.section(
        "Per-op overhead (us per call, 4 float32 elements)",
        goal,
        core if not isinstance(core, list) else None,
    ):
        return
    rows = []
    for r in core_rows(core, ("tiny",)):
        us = {k: None if r[k] is None else r[k] * 1e6 for k in ("sdk", "numpy", "torch")}
        row = [r["case"], num(us["sdk"]), num(us["numpy"]), num(ratio(us["sdk"], us["numpy"]), 2)]
        status = ""
        if r["case"].startswith("a + b"):
            status = "<= 0.5 us: " + rep.check(
                "absolute (value / goal)", "a + b (us)", us["sdk"], g["tiny_us"]
            )
        if rep.has_torch:
            rt = ratio(us["sdk"], us["torch"])
            row += [num(us["torch"]), num(rt, 2)]
            if r["case"].startswith("a + b"):
                status += "; vs torch: " + rep.check(
                    "vs torch (time ratio)", "a + b, 4 elements", rt, g["tiny_vs_torch"]
                )
        rows.append(row + [status])
    head = ["case", "sdk", "numpy", "sdk/numpy"] + (["torch", "sdk/torch"] if rep.has_torch else [])
    rep.table(head + ["goal"], rows)


def render_autograd(rep: Report, ag: Any) -> None:
    goal = "backward of the 20-op chain <= torch (medians)"
    if not rep.section("Autograd: 20-op chain on 8x8 float32 (us per call)", goal, ag):
        return
    rows = [
        [r["library"]]
        + [
            num(r[k] * 1e6, 1)
            for k in ("forward_median", "forward_min", "backward_median", "backward_min")
        ]
        for r in ag
    ]
    rep.table(["library", "fwd median", "fwd min", "bwd median", "bwd min"], rows)
    if rep.has_torch and len(ag) == 2:
        rb = ratio(ag[0]["backward_median"], ag[1]["backward_median"])
        status = rep.check(
            "vs torch (time ratio)", "autograd 20-op bwd", rb, GOALS["autograd_vs_torch"]
        )
        rep.lines += [f"backward sdk/torch (median): {num(rb, 2)}x -- goal {status}", ""]


def render_throughput(rep: Report, core: Any, c_abi: Any) -> None:
    ok = rep.section(
        "Elementwise and reductions vs numpy (time per call, 1 thread)",
        "sdk time <= numpy time (sdk/numpy <= 1.0) on every row",
        core if not isinstance(core, list) else None,
    )
    rows = []
    for r in core_rows(core, ("elementwise", "reductions")) if ok else []:
        rows.append(throughput_row(rep, r["case"], r["sdk"], r["numpy"], r.get("torch")))
    if isinstance(c_abi, dict):
        rows.append(
            ["C ABI rows (bench_core_reduce_linalg)", f"error: {c_abi['error']}", "", "", ""]
            + [""] * (2 * rep.has_torch)
        )
    else:
        # the core alone, called through ctypes: each call carries ~2.5 us of ctypes overhead
        # (the user-facing rows above include sum/max/softmax through sdk itself)
        for r in c_abi:
            if r["case"].startswith(("sum", "amax", "softmax")):
                s, n = r["sdk"], r["numpy"]
                row = [r["case"] + " (C ABI)", ms(s) + " ms", ms(n) + " ms", num(ratio(s, n), 2)]
                rows.append(row + (["-", ""] if rep.has_torch else []) + ["(C ABI, info)"])
    head = ["case", "sdk", "numpy", "sdk/numpy"] + (["torch", "sdk/torch"] if rep.has_torch else [])
    rep.table(head + ["goal"], rows)


def ms(seconds) -> str:
    return num(None if seconds is None else seconds * 1e3, 3)


def throughput_row(rep: Report, case: str, s, n, t) -> list[str]:
    rn = ratio(s, n)
    status = rep.check(
        "vs numpy (time ratio)", case.replace(" float32", ""), rn, GOALS["elementwise_vs_numpy"]
    )
    row = [case, ms(s) + " ms", ms(n) + " ms", num(rn, 2)]
    if rep.has_torch:
        row += ["-" if t is None else ms(t) + " ms", num(ratio(s, t), 2)]
    return row + [status]


def render_gemm(rep: Report, core: Any, c_abi: Any) -> None:
    goal = f"sgemm and dgemm GFLOP/s >= {GOALS['gemm_vs_numpy']}x numpy"
    if not rep.section(
        "GEMM (GFLOP/s, 1 thread)", goal, core if not isinstance(core, list) else None
    ):
        return
    rows = []
    for r in core_rows(core, ("gemm",)):
        rn = ratio(r["sdk"], r["numpy"])
        status = rep.check(
            "GEMM vs numpy (GFLOP/s ratio)",
            r["case"].replace(" (GFLOP/s)", ""),
            rn,
            GOALS["gemm_vs_numpy"],
            higher=True,
        )
        row = [
            r["case"].replace(" (GFLOP/s)", ""),
            num(r["sdk"], 1),
            num(r["numpy"], 1),
            num(rn, 2),
        ]
        if rep.has_torch:
            row += [num(r["torch"], 1), num(ratio(r["sdk"], r["torch"]), 2)]
        rows.append(row + [status])
    for r in c_abi if isinstance(c_abi, list) else []:
        parts = r["case"].split()
        if parts[0] == "mm" and len(parts) == 3:  # "mm float32 1024": square GEMM via the C ABI
            flops = 2.0 * int(parts[2]) ** 3 / 1e9
            s, n = flops / r["sdk"], flops / r["numpy"]
            row = [r["case"] + " (C ABI)", num(s, 1), num(n, 1), num(ratio(s, n), 2)]
            rows.append(row + (["-", ""] if rep.has_torch else []) + ["(C ABI, info)"])
    head = ["case", "sdk", "numpy", "sdk/numpy"] + (["torch", "sdk/torch"] if rep.has_torch else [])
    rep.table(head + ["goal"], rows)


def render_imports(rep: Report, imports: dict) -> None:
    g = GOALS
    rep.section(
        "Import cost (fresh processes, median of 5)",
        f"`import sdk` <= {g['import_s']} s and <= {g['import_mb']:.0f} MB peak RSS",
        imports,
    )
    rows = []
    for module, data in imports.items():
        if "error" in data:
            rows.append([module, f"error: {data['error']}", "", ""])
            continue
        goal = ""
        if module == "sdk":
            ts = rep.check(
                "absolute (value / goal)", "import sdk (s)", data["seconds"], g["import_s"]
            )
            rs = rep.check(
                "absolute (value / goal)", "import sdk RSS (MB)", data["rss_mb"], g["import_mb"]
            )
            goal = f"time {ts}, RSS {rs}"
        rows.append(
            [f"import {module}", num(data["seconds"] * 1e3, 1), num(data["rss_mb"], 1), goal]
        )
    rep.table(["module", "time (ms)", "peak RSS (MB)", "goal"], rows)


def render(results: dict) -> Report:
    meta = results["meta"]
    rep = Report(has_torch=meta.get("torch") is not None)
    rep.lines += [
        "# Benchmark results",
        "",
        f"- Date: {meta['date']} (git {meta.get('git', '?')}), mode: {meta.get('mode', '?')}, "
        f"took {meta.get('elapsed_s', '?')} s",
        f"- Machine: {meta['cpu']}, {meta['cores']} cores (load average at start {num(meta.get('load_average'), 1)})",
        f"- Python {meta['python']}, numpy {meta['numpy']}, torch {meta['torch'] or 'not installed'}",
        "- Everything single-threaded, each benchmark in a fresh process. The machine is shared and",
        "  noisy: compare ratios within one run, not absolute times across runs.",
        "- Produced by `python benchmarks/run_all.py`; raw numbers in results.json, chart in chart.png.",
        "",
    ]
    head = len(rep.lines)
    render_build(rep, results["build"])
    clock = meta.get("lltm_clock", "wall")
    render_lltm(rep, results["lltm"], clock)
    render_lltm_mm(rep, results["lltm"], clock)
    render_tiny(rep, results["core"])
    render_autograd(rep, results["autograd"])
    render_throughput(rep, results["core"], results["core_c_abi"])
    render_gemm(rep, results["core"], results["core_c_abi"])
    render_imports(rep, results["imports"])
    rep.lines[head:head] = rep.summary()
    return rep


PANEL_NOTES = {
    "LLTM vs torch (time ratio)": "lower is better",
    "LLTM vs its matmuls": "time ratio, lower is better",
    "vs torch (time ratio)": "lower is better",
    "vs numpy (time ratio)": "lower is better",
    "GEMM vs numpy (GFLOP/s ratio)": "higher is better",
    "absolute (value / goal)": "lower is better; 1.0 = the goal",
}


def draw_chart(goals: list[dict], path: Path, title: str) -> None:
    """Horizontal bars per panel, green when the goal is met; a black tick marks each bar's goal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p for p in PANEL_NOTES if any(g["panel"] == p for g in goals)]
    sizes = [sum(g["panel"] == p for g in goals) for p in panels]
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(10, 1.2 + 0.32 * sum(sizes) + 0.6 * len(panels)),
        gridspec_kw={"height_ratios": [n + 1.5 for n in sizes]},
        squeeze=False,
    )
    for ax, panel in zip(axes[:, 0], panels):
        items = [g for g in goals if g["panel"] == panel]
        scale = [g["goal"] if panel.startswith("absolute") else 1.0 for g in items]
        values = [g["value"] / s for g, s in zip(items, scale)]
        limits = [g["goal"] / s for g, s in zip(items, scale)]
        ys = range(len(items))
        ax.barh(ys, values, color=["#4c9a2a" if g["met"] else "#c0392b" for g in items], height=0.6)
        for y, limit in zip(ys, limits):
            ax.plot([limit, limit], [y - 0.42, y + 0.42], color="black", lw=2)
        for y, v in zip(ys, values):
            ax.text(v, y, f" {v:.2f}", va="center", fontsize=7)
        labels = [g["label"] for g in items]
        if panel.startswith("absolute"):
            labels = [f"{g['label']}: {g['value']:.2f} / {g['goal']}" for g in items]
        ax.set_yticks(list(ys), labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, max(max(values), max(limits)) * 1.15)
        ax.set_title(f"{panel} ({PANEL_NOTES[panel]}); black tick = goal", fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    keep: list = []
    if args.no_torch:
        hide_torch(keep)
    if args.render_only:
        results = json.loads((args.out / "results.json").read_text())
    else:
        results = run_all(args)
        (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    rep = render(results)
    (args.out / "RESULTS.md").write_text("\n".join(rep.lines))
    meta = results["meta"]
    title = f"sdk benchmarks, {meta['date']}, {meta['cpu']} ({meta['cores']} cores), 1 thread"
    try:
        draw_chart(rep.goals, args.out / "chart.png", title)
    except Exception as exc:  # noqa: BLE001 -- the table is still worth having
        log(f"chart: error: {exc}")
    print("\n".join(rep.lines))
    log(f"wrote {args.out}/RESULTS.md, results.json, chart.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
