"""run_compiler(): a compiler command (gcc, g++, clang++, nvcc) whose successful result a
later run reuses while nothing it read has changed: the C++ programs, header checks and nvcc
compiles of tests/core, which test the headers' contents and gain nothing from compiling
unchanged inputs again.

The test is the one ccache's direct mode makes. The key: the command, each file it names by
its bytes (not its path, so a source written to a fresh temporary folder still matches),
the libraries its -l flags find, the compiler found (its path, size and time stamp) and the
environment variables compilers read. Beside each kept result, the headers the compiler
read (its own -M list, taken after the first build) with their hashes: a hit needs every
one unchanged. Only successes are kept: a command that fails runs every time. The folder is
a `kept_folder` (so SDK_TEST_CACHE=off turns this off)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from tests._support import keeping, kept_folder

ENV_READ = (
    "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX",
    "COMPILER_PATH", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "CUDA_HOME",
)  # fmt: skip
COMPILER = re.compile(r"^(c\+\+|cc|nvcc)$|g\+\+|gcc|clang")  # what run_compiler keeps
KEEP_ENTRIES = 600  # the least recently used beyond these are dropped


def run_compiler(
    cmd: list[str], *, cwd=None, env=None, timeout: float = 900
) -> subprocess.CompletedProcess:
    """subprocess.run(cmd, capture_output=True, text=True) with a kept result reused when
    `cmd` and everything it read are unchanged (SDK_TEST_CACHE=off: never)."""
    cmd = [str(c) for c in cmd]
    base = Path(cwd or os.getcwd())
    key = _key(cmd, base, env) if keeping() else None
    out = _output(cmd, base)
    if key is not None:
        folder = kept_folder(None, "compiles")
        hit = _reuse(folder / key, cmd, out)
        if hit is not None:
            return hit
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if key is not None and proc.returncode == 0:
        _keep(folder, key, cmd, out, proc, base, env, timeout)
    return proc


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _output(cmd: list[str], cwd: Path) -> Path | None:
    if "-o" not in cmd or cmd.index("-o") + 1 >= len(cmd):
        return None
    return cwd / cmd[cmd.index("-o") + 1]


def _key(cmd: list[str], cwd: Path, env) -> str | None:
    """The hash of what the command is, its files by content; None when it cannot be kept
    (not a compiler, none found, output to /dev/null)."""
    exe = shutil.which(cmd[0], path=(env or os.environ).get("PATH"))
    if exe is None or os.devnull in cmd or not COMPILER.search(Path(cmd[0]).name):
        return None
    real = os.stat(os.path.realpath(exe))  # a compiler upgraded in place is another key
    parts = [os.path.realpath(exe), f"{real.st_size}:{real.st_mtime_ns}"]
    lib_dirs = [a[2:] for a in cmd if a.startswith("-L")]
    after_o = False
    for arg in cmd[1:]:
        path = cwd / arg
        if after_o:
            parts.append(f"out:{Path(arg).name}")
        elif arg != "-o" and not arg.startswith("-") and path.is_file():
            parts.append(f"file:{_sha(path)}")
        elif arg.startswith("-l"):
            found = [Path(d) / f"lib{arg[2:]}{s}" for d in lib_dirs for s in (".so", ".a")]
            parts.append(arg + "".join(f":{_sha(p)}" for p in found if p.is_file()))
        else:
            parts.append(arg)
        after_o = arg == "-o"
    if any(_relative_include(a) for a in cmd):
        parts.append(f"cwd:{cwd}")  # a relative include folder finds other headers elsewhere
    source = env if env is not None else os.environ
    parts += [f"{v}={source.get(v, '')}" for v in ENV_READ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _relative_include(arg: str) -> bool:
    """-I<folder> (or -iquote, -isystem) not absolute; a bare flag, its folder next, counts."""
    for flag in ("-isystem", "-iquote", "-I"):
        if arg.startswith(flag):
            return not arg[len(flag) :].startswith("/")
    return False


def _reuse(entry: Path, cmd: list[str], out: Path | None) -> subprocess.CompletedProcess | None:
    try:
        record = json.loads((entry / "record.json").read_text())
        if any(not Path(p).is_file() or _sha(Path(p)) != h for p, h in record["read"].items()):
            return None
        if out is not None:
            shutil.copyfile(entry / "output", out)
            shutil.copymode(entry / "output", out)
        os.utime(entry)
    except (OSError, ValueError, KeyError):
        return None
    return subprocess.CompletedProcess(cmd, 0, record["stdout"], record["stderr"])


def _headers_read(cmd: list[str], out: Path | None, base: Path, env, timeout) -> list[str] | None:
    """The files the compiler reads for `cmd`: its -M list (a make rule per source)."""
    probe = list(cmd)
    if out is not None:
        i = probe.index("-o")
        del probe[i : i + 2]
    probe = [a for a in probe if a not in ("-c", "-fsyntax-only", "-MD", "-MMD")] + ["-M"]
    proc = subprocess.run(probe, cwd=base, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        return None
    words = proc.stdout.replace("\\\n", " ").split()
    named = {os.path.realpath(base / a) for a in cmd[1:] if not a.startswith("-")}
    read = {str(base / w) for w in words if not w.endswith(":") and (base / w).is_file()}
    # the files the command names are in its key by content, wherever a run writes them
    return sorted(p for p in read if os.path.realpath(p) not in named)


def _keep(folder: Path, key: str, cmd, out: Path | None, proc, base: Path, env, timeout) -> None:
    read = _headers_read(cmd, out, base, env, timeout)
    if read is None or (out is not None and not out.is_file()):
        return
    tmp = folder / f".{key}.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    if out is not None:
        shutil.copyfile(out, tmp / "output")
        shutil.copymode(out, tmp / "output")
    record = {"read": {p: _sha(Path(p)) for p in read}, "stdout": proc.stdout}
    record["stderr"] = proc.stderr
    (tmp / "record.json").write_text(json.dumps(record))
    shutil.rmtree(folder / key, ignore_errors=True)
    try:
        tmp.rename(folder / key)
    except OSError:  # another worker kept the same result first
        shutil.rmtree(tmp, ignore_errors=True)
    entries = sorted((p for p in folder.iterdir() if not p.name.startswith(".")), key=_mtime)
    for old in entries[:-KEEP_ENTRIES]:
        shutil.rmtree(old, ignore_errors=True)


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
