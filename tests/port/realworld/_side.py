"""One framework's side of a real-world check, run in its own process: build one build of a
package (the ported sources with the SDK, or the originals with torch), run its ops on
seeded inputs and save the outputs. `python -m tests.port.realworld._side SPEC.json`.

This module imports numpy and the package table only, so torch's interpreter can run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from ._spec import Build
from .packages import PACKAGES


class Adapter:
    """What an op's call needs from a framework: tensors in and out, and its loaders."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "torch":
            import torch
            from torch.utils import cpp_extension as ext

            self._torch = torch
            self.load, self.ops, self.include_paths = ext.load, torch.ops, ext.include_paths
        else:
            import cpp_extension as ext
            import sdk

            self._sdk = sdk
            self.load, self.ops, self.include_paths = ext.load, sdk.ops, ext.include_paths

    def tensor(self, a: np.ndarray) -> Any:
        a = np.ascontiguousarray(a).copy()
        if self.name == "torch":
            return self._torch.from_numpy(a)
        return self._sdk.from_numpy(a)

    def empty(self, shape: tuple[int, ...], dtype: Any) -> Any:
        return self.tensor(np.zeros(shape, dtype=dtype))

    def to_numpy(self, value: Any) -> list[np.ndarray]:
        """Every tensor (or list of ints) in a result, flattened in order."""
        if value is None:
            return []
        if isinstance(value, (tuple, list)):
            if all(isinstance(v, (int, float)) for v in value):
                return [np.asarray(value)]
            return [a for v in value for a in self.to_numpy(v)]
        if isinstance(value, (int, float, np.ndarray)):
            return [np.asarray(value)]
        if self.name == "torch":
            return [value.detach().numpy().copy()]
        return [np.array(value.numpy(), copy=True)]


_COMPILER_ERROR = re.compile(r"([^\s:]+):(\d+):(?:\d+:)? (?:fatal )?error: (.*)")


def first_error(exc: BaseException) -> str:
    """The first compiler error (file:line: message), else the exception's first line."""
    for diag in getattr(exc, "diagnostics", None) or []:
        return f"{Path(diag.file).name}:{diag.line}: {diag.message}"
    text = str(exc).strip()
    m = _COMPILER_ERROR.search(text)  # a build log (torch's loader): its first compiler error
    if m:
        return f"{Path(m.group(1)).name}:{m.group(2)}: error: {m.group(3).strip()}"[:300]
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    return (text.splitlines() or [type(exc).__name__])[0][:300]


def first_compile_error(stderr: str) -> str:
    """nvcc's or the host compiler's first diagnostic that is an error (`file:line: error:` or
    `file(line): error:`), not an `In file included from .../error.h` line above it."""
    lines = [ln for ln in stderr.splitlines() if "error:" in ln]
    return lines[0] if lines else (stderr.strip().splitlines() or ["failed"])[-1]


def _compile_only(fw: Adapter, build: Build, root: Path) -> None:
    """nvcc -c on each CUDA source: the check for CUDA-only packages on a machine with no GPU."""
    import sysconfig

    import pybind11

    nvcc = os.environ.get("NVCC", "nvcc")
    paths = [*fw.include_paths(cuda=True), pybind11.get_include(), sysconfig.get_paths()["include"]]
    incs = [f"-I{p}" for p in paths]
    incs += [f"-I{root / d}" for d in build.include_dirs]
    for src in build.sources:
        path = root / src
        cmd = [nvcc, "-c", "-std=c++17", "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC"]
        cmd += ["-DSDK_EXTENSION_NAME=rw_check", "-DTORCH_EXTENSION_NAME=rw_check"]
        cmd += [f"-D{d}" for d in build.defines] + incs + [str(path), "-o", os.devnull]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            msg = first_compile_error(proc.stderr)
            for p in (str(root) + "/", *(str(Path(p)) + "/" for p in paths)):
                msg = msg.replace(p, "")
            raise RuntimeError(msg)


def _distinct_names(sources: list[str], out: Path) -> list[str]:
    """torch's load() names each object file after its source's file name, so two sources
    called nms.cpp in different folders collide: each later one is compiled through a file of
    its own name that includes it (its own includes still resolve from its folder)."""
    seen: set[str] = set()
    result = []
    for n, src in enumerate(sources):
        name = Path(src).name
        if name in seen:
            wrapper = out / f"dup{n}_{name}"
            wrapper.write_text(f'#include "{src}"\n')
            src = str(wrapper)
        seen.add(Path(src).name)
        result.append(src)
    return result


def _as_cxx(sources: list[str], out: Path) -> list[str]:
    """Each .cu source compiled as C++, through a .cpp file that includes it."""
    result = []
    for src in sources:
        if src.endswith(".cu"):
            wrapper = out / f"{Path(src).stem}_cu.cpp"
            wrapper.write_text(f'#include "{src}"\n')
            src = str(wrapper)
        result.append(src)
    return result


def _build(fw: Adapter, pkg_name: str, build: Build, root: Path, glue: Path, out: Path) -> Any:
    sources = [str(root / s) for s in build.sources]
    if build.glue:
        sources.append(str(glue / build.glue[0]))
    if build.cu_as_cxx:
        sources = _as_cxx(sources, out)
    if fw.name == "torch":
        sources = _distinct_names(sources, out)
    name = f"rw_{pkg_name}_{build.name}".replace("-", "_")
    library = build.namespace is not None
    return fw.load(
        name,
        sources,
        extra_cflags=["-O1", "-w", *build.cflags] + [f"-D{d}" for d in build.defines],
        extra_include_paths=[str(root / d) for d in build.include_dirs],
        is_python_module=not library,
    )


def mark_phase(out: Path, framework: str, phase: str) -> None:
    """Say what this side does now ("build", or "run OP"): the runner times each phase."""
    Path(out, f"{framework}.phase").write_text(phase)


def run(spec: dict) -> dict:
    fw = Adapter(spec["framework"])
    pkg = PACKAGES[spec["package"]]
    build = pkg.build(spec["build"])
    root, glue, out = Path(spec["root"]), Path(spec["glue"]), Path(spec["out"])
    result: dict[str, Any] = {"build": "ok", "error": "", "ops": {}}
    mark_phase(out, fw.name, "build")
    try:
        if build.compile_only:
            _compile_only(fw, build, root)
            return result
        module = _build(fw, pkg.name, build, root, glue, out)
    except Exception as exc:  # a failed build is a result, not a crash of the runner
        result["build"], result["error"] = "failed", first_error(exc)
        return result
    ns = getattr(fw.ops, build.namespace) if build.namespace else module
    arrays: dict[str, np.ndarray] = {}
    for op in pkg.ops_of(build.name):
        mark_phase(out, fw.name, f"run {op.name}")
        try:
            outputs = fw.to_numpy(op.call(ns, fw, op.inputs_now()))
        except Exception as exc:
            result["ops"][op.name] = {"status": "raised", "error": first_error(exc)}
            continue
        result["ops"][op.name] = {"status": "ran", "n": len(outputs)}
        for i, a in enumerate(outputs):
            arrays[f"{op.name}.{i}"] = a
    np.savez(out / f"{spec['framework']}.npz", **arrays)
    return result


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    try:
        result = run(spec)
    except Exception:
        result = {"build": "failed", "error": traceback.format_exc().splitlines()[-1], "ops": {}}
    Path(spec["out"], f"{spec['framework']}.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
