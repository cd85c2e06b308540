"""JIT build times: cold/warm builds through the pybind11 and ctypes bridges, beside torch's.

Each measurement runs in a fresh interpreter with a fresh cache folder (cold) or the
same folder again (warm). "warm load" is timed inside the child from before
`import sdk` to the loaded module, which is what a notebook restart pays.
Usage: python benchmarks/bench_build.py [--repeat N]
       python benchmarks/bench_build.py --first-build [--workers 2]
(--first-build: a fresh copy's setup.py build and the demo's first step, each compile's CPU
time and the quiet makespan estimated from them; see _first_build.py.)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from _checkout import NO_COMPILER_CACHE, import_path, subprocess_env  # noqa: E402  (the sdk under test)

PYBIND_SRC = """
#include <{header}>
double add(double a, double b) {{ return a + b; }}
PYBIND11_MODULE({macro}, m) {{ m.def("add", &add); }}
"""
CTYPES_SRC = """
#include <sdk/export.h>
SDK_EXPORT(check, "(int n) -> ()")
sdk_status check(int64_t n) { return n < 0 ? sdk_set_last_error(SDK_ERROR_VALUE, "n < 0") : SDK_OK; }
"""

CHILD = """
import json, sys, time
t0 = time.perf_counter()
{imports}
t1 = time.perf_counter()
m = {load}
t2 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "load": t2 - t1, "total": t2 - t0}}))
"""


def _child(imports: str, load: str, env: dict[str, str]) -> dict:
    code = textwrap.dedent(CHILD.format(imports=imports, load=load))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=import_path()
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def _sdk_works() -> bool:
    """sdk/extension.h imports sdk at run time: use it only when sdk imports."""
    if not (REPO / "core/include/sdk/extension.h").exists():
        return False
    probe = subprocess.run(
        [sys.executable, "-c", "import sdk._C"],
        cwd=import_path(),
        env=subprocess_env(),
        capture_output=True,
    )
    return probe.returncode == 0


def _sdk_case(work: Path, bridge: str) -> tuple[str, str, str]:
    if bridge == "pybind11":
        header = "sdk/extension.h" if _sdk_works() else "pybind11/pybind11.h"
        src = work / "op.cpp"
        src.write_text(PYBIND_SRC.format(header=header, macro="SDK_EXTENSION_NAME"))
        load = f"cpp_extension.load('bench_pyb', [{str(src)!r}])"
    else:
        src = work / "op.c"
        src.write_text(CTYPES_SRC)
        load = f"cpp_extension.load('bench_ctypes', [{str(src)!r}], is_python_module=False)"
    imports = "import sdk, cpp_extension" if _sdk_works() else "import cpp_extension"
    return imports, load, str(src)


def _header_of(work: Path) -> str:
    return (work / "op.cpp").read_text().split("<")[1].split(">")[0]


def _torch_case(work: Path) -> tuple[str, str] | None:
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    src = work / "torch_op.cpp"
    src.write_text(PYBIND_SRC.format(header="torch/extension.h", macro="TORCH_EXTENSION_NAME"))
    load = f"load('bench_torch', [{str(src)!r}])"
    return "import torch\nfrom torch.utils.cpp_extension import load", load


def _measure(label, imports, load, repeat, cache_var) -> list[tuple[str, float, str]]:
    rows = []
    colds, warms, warm_walls = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env = subprocess_env()
            env.update(NO_COMPILER_CACHE, **{cache_var: cache})
            env.setdefault("MAX_JOBS", "2")
            colds.append(_child(imports, load, env)["wall"])
            if cache_var == "SDK_EXTENSIONS_DIR":  # the cold build's background job ends first
                from cpp_extension.builder import pch as _pch

                _pch.wait_for_background_jobs(600, Path(cache))
            warm = _child(imports, load, env)
            warms.append(warm["total"])
            warm_walls.append(warm["wall"])
    rows.append((f"{label}: cold build (process wall)", statistics.median(colds), "s"))
    rows.append((f"{label}: warm load incl. imports", statistics.median(warms), "s"))
    rows.append((f"{label}: warm process wall", statistics.median(warm_walls), "s"))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument("--first-build", action="store_true", help="time the first build")
    parser.add_argument("--workers", type=int, default=2, help="MAX_JOBS for --first-build")
    args = parser.parse_args(argv)
    if args.first_build:
        from _first_build import report

        return report(args.workers)
    rows = []
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        for bridge in ("ctypes", "pybind11"):
            imports, load, _ = _sdk_case(work, bridge)
            label = f"sdk {bridge}" + (f" ({_header_of(work)})" if bridge == "pybind11" else "")
            rows += _measure(label, imports, load, args.repeat, "SDK_EXTENSIONS_DIR")
        torch_case = None if args.skip_torch else _torch_case(work)
        if torch_case:
            rows += _measure("torch", *torch_case, args.repeat, "TORCH_EXTENSIONS_DIR")
        else:
            rows.append(("torch: not importable (pip install torch to compare)", float("nan"), ""))
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  time")
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:7.3f} {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
