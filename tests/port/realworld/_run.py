"""The real-world port run: fetch each package, port the sources it needs with the porter
alone, build each build with the SDK (and the originals with torch when a torch interpreter
is there), run the ops and compare; the results go to the cache as JSON, one file per package."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from tests._support import sync_tree

from . import _fetch
from ._spec import Build, Op, Package

REPO = Path(__file__).resolve().parents[3]
PATCHES = Path(__file__).resolve().parent / "patches"
# Each phase of a side (its build, each op's run) gets its own limit, so that a hang (a stale
# JIT lock left by a killed run, a kernel that never returns) stops that side, not the run.
BUILD_TIMEOUT_S = float(os.environ.get("REALWORLD_BUILD_TIMEOUT_S", "900"))
RUN_TIMEOUT_S = float(os.environ.get("REALWORLD_RUN_TIMEOUT_S", "120"))


@dataclass
class OpResult:
    """One op's outcome: `status` is "ported" (matches), "compiles" (compile-only builds),
    "ran" (unchecked), "timed out" or "not yet"; `reason` the first compiler error, missing
    name, mismatch or what timed out."""

    package: str
    version: str
    op: str
    build: str
    status: str
    reason: str = ""
    hand_edits: int = 0
    hand_edit_note: str = ""
    checked_against: str = ""
    missing: list[str] = field(default_factory=list)


def torch_python() -> str | None:
    """The interpreter that builds the originals: $REALWORLD_TORCH_PYTHON, else this one when
    it has torch, else none (numpy references only)."""
    if env := os.environ.get("REALWORLD_TORCH_PYTHON"):
        return env or None
    import importlib.util

    return sys.executable if importlib.util.find_spec("torch") else None


def _port(pkg: Package, src: Path, work: Path) -> tuple[Path, Path, list]:
    """Port the package's roots and its glue into work/; returns (ported root, ported glue,
    the porter's missing names). Each run ports afresh into work/fresh, then copies only the
    files that changed into the folders the builds read (`sync_tree`): a later run's JIT
    builds then find their sources unchanged and rebuild nothing."""
    from cpp_extension.port import main as _port

    fresh = work / "fresh"
    shutil.rmtree(fresh, ignore_errors=True)
    ported, glue_src, glue_out = fresh / "ported", fresh / "glue-src", fresh / "glue"
    roots = [src / r for r in pkg.port_roots]
    missing = []
    base = Path(os.path.commonpath([str(r) for r in roots]))
    if base.resolve() == src.resolve():
        report = _port.port_paths(roots, ported)
    else:
        report = _port.port_paths(roots, ported / "_tmp")
        target = ported / base.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        (ported / "_tmp").rename(target)
        prefix = base.relative_to(src).as_posix()
        for m in report.missing:
            object.__setattr__(m, "path", f"{prefix}/{m.path}".lstrip("./"))
    missing += report.missing
    glues = [b.glue for b in pkg.builds if b.glue]
    glue_src.mkdir(parents=True)
    for fname, text in glues:
        (glue_src / fname).write_text(text)
    if glues:
        missing += _port.port_paths([glue_src], glue_out).missing
    else:
        glue_out.mkdir(parents=True)
    for d in (ported, glue_src, glue_out):
        sync_tree(d, work / d.name)
    shutil.rmtree(fresh, ignore_errors=True)
    return work / ported.name, work / glue_out.name, missing


def _apply_patch(build: Build, root: Path) -> tuple[int, str]:
    """Apply a build's hand edits to the ported tree; returns the number of hunks and the
    patch's description (its first line)."""
    if not build.patch:
        return 0, ""
    patch = PATCHES / build.patch
    proc = subprocess.run(
        ["patch", "-p1", "-s", "-d", str(root), "-i", str(patch)], capture_output=True, text=True
    )
    if proc.returncode != 0:  # the porter's output changed under the patch: say so, go on
        return 0, f"patches/{build.patch} no longer applies: {proc.stdout.strip()[:200]}"
    text = patch.read_text()
    hunks = sum(1 for line in text.splitlines() if line.startswith("@@"))
    return hunks, f"patches/{build.patch}: {text.splitlines()[0]}"


def _side(
    framework: str,
    python: str,
    pkg: Package,
    build: Build,
    root: Path,
    glue: Path,
    out: Path,
    env_extra: dict[str, str],
) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    spec = {
        "framework": framework,
        "package": pkg.name,
        "build": build.name,
        "root": str(root),
        "glue": str(glue),
        "out": str(out),
    }
    spec_path = out / f"{framework}-spec.json"
    spec_path.write_text(json.dumps(spec))
    env = {**os.environ, **env_extra, "PYTHONPATH": str(REPO)}
    cmd = [python, "-m", "tests.port.realworld._side", str(spec_path)]
    result_path = out / f"{framework}.json"
    for stale in (result_path, out / f"{framework}.npz", out / f"{framework}.phase"):
        stale.unlink(missing_ok=True)
    timed_out, returncode, stderr = _run_timed(cmd, env, out / f"{framework}.phase")
    if timed_out:
        return {"build": "timed out", "error": f"{framework} side: {timed_out}", "ops": {}}
    if not result_path.exists():
        tail = (stderr.strip().splitlines() or [f"exit {returncode}"])[-1]
        return {"build": "failed", "error": f"crashed (exit {returncode}): {tail}", "ops": {}}
    result = json.loads(result_path.read_text())
    npz = out / f"{framework}.npz"
    result["arrays"] = dict(np.load(npz)) if npz.exists() else {}
    return result


def _run_timed(cmd: list[str], env: dict, phase_file: Path) -> tuple[str, int, str]:
    """Run a side, killing it (and the compilers it started) when one phase outlasts its
    limit. Returns (what timed out, or "", the exit status, stderr)."""
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
        )
        phase, since = "start", time.monotonic()
        while proc.poll() is None:
            now = phase_file.read_text() if phase_file.exists() else "start"
            if now != phase:
                phase, since = now, time.monotonic()
            limit = RUN_TIMEOUT_S if phase.startswith("run ") else BUILD_TIMEOUT_S
            if time.monotonic() - since > limit:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                what = phase if phase.startswith("run ") else "build"
                return f"{what} timed out after {limit:g} s", proc.returncode, ""
            time.sleep(0.2)
        err.seek(0)
        return "", proc.returncode, err.read()


def _outputs(arrays: dict, op: Op) -> list[np.ndarray]:
    keys = sorted(
        (k for k in arrays if k.rsplit(".", 1)[0] == op.name),
        key=lambda k: int(k.rsplit(".", 1)[1]),
    )
    return [arrays[k] for k in keys]


def _ref_outputs(op: Op) -> list[np.ndarray]:
    value = op.ref(op.inputs_now())
    values = value if isinstance(value, tuple) else (value,)
    return [np.asarray(v) for v in values]


def compare(got: list[np.ndarray], want: list[np.ndarray], op: Op) -> str:
    """Empty when the outputs match, else what differs."""
    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    for n, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return f"output {n}: shape {g.shape}, expected {w.shape}"
        if g.dtype.kind in "iub" or w.dtype.kind in "iub":
            if not np.array_equal(g, w):
                return f"output {n}: values differ"
        elif not np.allclose(g, w, rtol=op.rtol, atol=op.atol, equal_nan=True):
            return f"output {n}: max |diff| {np.max(np.abs(g - w)):.3g}"
    return ""


_LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def _included_files(build: Build, root: Path) -> set[str]:
    """The build's sources and the local headers they include, transitively (paths relative
    to root): the files whose missing names can stop this build."""
    todo = [root / s for s in build.sources]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        for name in _LOCAL_INCLUDE.findall(path.read_text(errors="replace")):
            dirs = [path.parent] + [root / d for d in build.include_dirs]
            todo += [d / name for d in dirs if (d / name).is_file()][:1]
    return {p.resolve().relative_to(root.resolve()).as_posix() for p in seen}


def _missing_for(build: Build, root: Path, missing: list) -> list[str]:
    files = _included_files(build, root)
    names = []
    for m in missing:
        if m.path in files or (build.glue and m.path == build.glue[0]):
            names.append(f"{m.path}:{m.line}: {m.name}")
    return names


def _judge(
    pkg: Package,
    build: Build,
    op: Op,
    sdk: dict,
    torch: dict | None,
    edits: int,
    missing: list[str],
) -> OpResult:
    r = OpResult(
        pkg.name, pkg.version, op.name, build.name, "not yet", hand_edits=edits, missing=missing
    )
    if sdk["build"] != "ok":
        r.reason = sdk["error"]
        if sdk["build"] == "timed out":
            r.status = "timed out"
        elif torch is not None and torch["build"] != "ok":
            r.reason += f" (the original does not build with torch either: {torch['error']})"
        return r
    if build.compile_only:
        r.status, r.checked_against = "compiles", "nvcc -c (no GPU)"
        return r
    ran = sdk["ops"].get(op.name, {})
    if ran.get("status") != "ran":
        r.reason = f"raised: {ran.get('error', 'did not run')}"
        return r
    got = _outputs(sdk["arrays"], op)
    if torch is not None and torch["ops"].get(op.name, {}).get("status") == "ran":
        want, r.checked_against = _outputs(torch["arrays"], op), "torch build of the original"
    elif op.ref is not None:
        want, r.checked_against = _ref_outputs(op), "numpy reference"
    else:
        r.status, r.reason = "ran", "no torch build and no numpy reference: unchecked"
        if torch is not None and torch["build"] != "ok":
            r.reason += f" (torch: {torch['error']})"
        elif torch is not None:
            r.reason += f" (torch: {torch['ops'].get(op.name, {}).get('error', 'did not run')})"
        return r
    diff = compare(got, want, op)
    if diff:
        r.reason = f"wrong result ({r.checked_against}): {diff}"
        return r
    if op.ref is not None and r.checked_against.startswith("torch"):
        ref_diff = compare(got, _ref_outputs(op), op)
        if ref_diff:
            r.reason = f"wrong result (numpy reference): {ref_diff}"
            return r
    r.status = "ported"
    return r


def clear_stale_locks(cache: Path, pkg: Package, log=print) -> list[Path]:
    """Remove the JIT build locks of this package's extensions that are older than a build's
    limit: a run killed mid-build leaves its lock, and torch's loader waits on it forever."""
    stem = f"rw_{pkg.name}_".replace("-", "_")
    now, removed = time.time(), []
    for folder in (cache / "jit-torch", cache / "jit-sdk"):
        for lock in folder.glob(f"**/{stem}*/lock") if folder.is_dir() else ():
            if now - lock.stat().st_mtime > BUILD_TIMEOUT_S:
                lock.unlink(missing_ok=True)
                removed.append(lock)
                log(f"  removed a stale build lock: {lock}")
    return removed


def run_package(
    pkg: Package, torch_py: str | None, log=print, save_results: bool = True
) -> list[OpResult]:
    """Fetch, port, build and check one package; the results are saved to the cache (the
    table's source) unless `save_results` is false."""
    cache = _fetch.cache_root()
    # a check that does not save (the tests) works apart, so it can run beside a full run
    work = cache / ("work" if save_results else "work-check") / f"{pkg.name}-{pkg.version}"
    start = time.perf_counter()
    archive = _fetch.download(pkg.name, pkg.version, pkg.filename, pkg.sha256)
    src = _fetch.unpack(archive, pkg.sha256)
    ported, glue, missing = _port(pkg, src, work)
    originals_glue = work / "glue-src"
    clear_stale_locks(cache, pkg, log)
    env = {
        "SDK_EXTENSIONS_DIR": str(cache / "jit-sdk"),
        "TORCH_EXTENSIONS_DIR": str(cache / "jit-torch"),
        "MAX_JOBS": os.environ.get("MAX_JOBS", "2"),
    }
    results = []
    for build in pkg.builds:
        edits, note = _apply_patch(build, ported)
        sdk = _side("sdk", sys.executable, pkg, build, ported, glue, work / "out" / build.name, env)
        torch = None
        # torch's build of the originals checks what the SDK built, and tells a build that
        # fails for the SDK from one that fails for torch too (a compiler the sources predate)
        if torch_py and not build.compile_only and sdk["build"] in ("ok", "failed"):
            torch = _side(
                "torch", torch_py, pkg, build, src, originals_glue, work / "out" / build.name, env
            )
        for op in pkg.ops_of(build.name):
            r = _judge(pkg, build, op, sdk, torch, edits, _missing_for(build, ported, missing))
            r.hand_edit_note = note
            log(f"  {pkg.name} {op.name}: {r.status}{': ' + r.reason if r.reason else ''}")
            results.append(r)
    if save_results:
        save(pkg, results, time.perf_counter() - start)
    return results


def save(pkg: Package, results: list[OpResult], seconds: float) -> None:
    folder = _fetch.cache_root() / "results"
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "package": pkg.name,
        "version": pkg.version,
        "why": pkg.why,
        "seconds": seconds,
        "ops": [asdict(r) for r in results],
    }
    (folder / f"{pkg.name}.json").write_text(json.dumps(data, indent=1))


def load_results() -> list[dict]:
    """The saved results of the packages in the table, in the table's order."""
    from .packages import PACKAGES

    folder = _fetch.cache_root() / "results"
    found = [folder / f"{name}.json" for name in PACKAGES]
    return [json.loads(p.read_text()) for p in found if p.exists()]
