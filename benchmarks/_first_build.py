"""The first build from a fresh clone, measured by compile CPU time (bench_build.py --first-build).

Wall time on a shared machine says more about the neighbours than about the build, so every
compiler and linker run is wrapped in /usr/bin/time and its user+sys CPU seconds recorded.
The quiet-machine wall time is then estimated as the makespan of those CPU times scheduled
on N workers, phase by phase, as setup.py and the demo run them:

1. the core's objects (ninja, in its manifest's order) beside pybind11's runtime object and
   precompiled header (one thread of setup.py, one after the other) and the binding sdk._C's
   objects (setuptools, MAX_JOBS threads: they need only the headers); then the core's link;
2. the binding's link;
3. the demo's first result: examples/lltm/check.py, whose load() builds the LLTM op.

No compiler cache: CC/CXX are the wrapper, and CCACHE_DISABLE=1 for any cache below it.
"""

from __future__ import annotations

import heapq
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

WRAPPER = """#!/bin/sh
# Run the real compiler under /usr/bin/time; one line per run: user sys wall output
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
exec /usr/bin/time -a -o "$SDK_TIME_LOG" -f "%U %S %e $out" {real} "$@"
"""


@dataclass
class Run:
    """One compiler run: CPU seconds (user+sys), wall seconds, the file it wrote."""

    cpu: float
    wall: float
    output: str

    @property
    def name(self) -> str:
        return Path(self.output).name


def fresh_copy(dest: Path) -> None:
    """The checkout's files as a fresh clone has them (tracked and new, no build outputs)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        rel = raw.decode()
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def read_log(log: Path) -> list[Run]:
    runs = []
    for line in log.read_text().splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[3]:  # no output: a version probe
            runs.append(Run(float(parts[0]) + float(parts[1]), float(parts[2]), parts[3]))
    return runs


def makespan(durations: list[float], workers: int, start: list[float] | None = None) -> float:
    """When the last of `durations` ends, each started in order on the first free worker."""
    free = list(start) if start else [0.0] * workers
    heapq.heapify(free)
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def ninja_order(build_dir: Path) -> list[str]:
    """The core's object files in the order of its build.ninja (ninja's order for equal
    priority)."""
    text = (build_dir / "build.ninja").read_text()
    return [
        Path(line.split()[1].rstrip(":")).name
        for line in text.splitlines()
        if line.startswith("build ") and line.split()[1].endswith(".o:")
    ]


def classify(runs: list[Run]) -> dict[str, list[Run]]:
    """Split the runs into the build's phases by the file each one wrote."""
    phases: dict[str, list[Run]] = {k: [] for k in ("core", "core link", "runtime", "binding",
                                                    "binding link", "demo")}  # fmt: skip
    for r in runs:
        out = r.output
        if out.endswith("libsdk_core.so"):
            phases["core link"].append(r)
        elif "/core-" in out:
            phases["core"].append(r)
        elif "pybind11-runtime" in out:
            phases["runtime"].append(r)
        elif Path(out).name.startswith("_C.") and out.endswith(".so"):
            phases["binding link"].append(r)
        elif "/csrc/" in out:
            phases["binding"].append(r)
        else:
            phases["demo"].append(r)
    return phases


def estimate(phases: dict[str, list[Run]], order: list[str], workers: int) -> dict[str, float]:
    """The quiet makespan of each phase on `workers`, from CPU times."""
    core = {r.name: r.cpu for r in phases["core"]}
    runtime = sum(r.cpu for r in phases["runtime"])
    binding = [r.cpu for r in phases["binding"]]  # setuptools' threads, beside ninja's jobs
    # the runtime thread takes one worker from the start; the core's and the binding's
    # compiles share the machine (the binding's are short: as if after the core's in line)
    core_ms = makespan(
        [core[n] for n in order if n in core] + binding,
        workers,
        [runtime] + [0.0] * (workers - 1),
    )
    out = {
        "core + runtime + binding": core_ms,
        "core link": sum(r.cpu for r in phases["core link"]),
        "binding link": sum(r.cpu for r in phases["binding link"]),
        "demo": sum(r.cpu for r in phases["demo"]),
    }
    out["total"] = sum(out.values())
    return out


def measure(workers: int, keep: Path | None = None) -> tuple[dict, float, float]:
    """Build a fresh copy (MAX_JOBS=workers) and run the demo's first step, timed."""
    work = Path(keep or tempfile.mkdtemp(prefix="sdk-first-build-"))
    root = work / "clone"
    root.mkdir(parents=True, exist_ok=True)
    fresh_copy(root)
    log = work / "times.log"
    log.write_text("")
    wrapper = work / "timed-cxx"
    real = shlex.quote(shutil.which("c++") or "c++")
    wrapper.write_text(WRAPPER.format(real=real))
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CXX", "PYTHONPATH")}
    env.update(CC=str(wrapper), CXX=str(wrapper), SDK_TIME_LOG=str(log), CCACHE_DISABLE="1")
    env.update(MAX_JOBS=str(workers), SDK_WITH_CUDA="0", SDK_EXTENSIONS_DIR=str(work / "cache"))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                   cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    t1 = time.perf_counter()
    env["PYTHONPATH"] = str(root)
    subprocess.run([sys.executable, "check.py"], cwd=root / "examples" / "lltm", env=env,
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    t2 = time.perf_counter()
    runs = read_log(log)
    tag = next((root / "build").glob("core-*"))
    phases = classify(runs)
    result = {"phases": phases, "order": ninja_order(tag)}
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return result, t1 - t0, t2 - t1


def report(workers: int) -> int:
    load = os.getloadavg()
    result, build_wall, demo_wall = measure(workers)
    phases, order = result["phases"], result["order"]
    est = estimate(phases, order, workers)
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    print(f"real run (MAX_JOBS={workers}): build {build_wall:.1f} s, check.py {demo_wall:.1f} s")
    print("\n| file | phase | CPU s (user+sys) |\n|---|---|---:|")
    rows = [(r.cpu, name, r.name) for name, rs in phases.items() for r in rs]
    for cpu, phase, name in sorted(rows, reverse=True):
        print(f"| {name} | {phase} | {cpu:.1f} |")
    cpu = {name: sum(r.cpu for r in rs) for name, rs in phases.items()}
    cpu["core + runtime + binding"] = cpu.pop("core") + cpu.pop("runtime") + cpu.pop("binding")
    print(f"\n| phase | CPU s | makespan on {workers} workers, s |\n|---|---:|---:|")
    for name in ("core + runtime + binding", "core link", "binding link", "demo"):
        print(f"| {name} | {cpu[name]:.1f} | {est[name]:.1f} |")
    print(f"| total | {sum(cpu.values()):.1f} | {est['total']:.1f} |")
    print("\ncore build order: " + " ".join(order))
    return 0
