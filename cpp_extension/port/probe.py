"""The port's compile probe: every ported translation unit compiled syntax-only against the
SDK's headers, its errors mapped back to the original file:line as names without counterpart.

The porter's own checks read the headers with patterns; the probe asks the compiler, so a
name the headers declare in another scope, a constructor form the SDK lacks or a rewrite to
something that does not exist shows up before the user's first build. It compiles a private
copy of the ported C++ files (the torch includes the porter left, already reported, blanked
so that the rest of the file is still checked), one compiler process per translation unit in
parallel (MAX_JOBS, else the CPUs), and keeps each unit's result in the JIT cache folder
keyed by its text, the project's headers, the SDK's headers and the compiler, so a second
port of the same tree runs no compiler at all.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import port_map
from .cxx import Missing

# Bump when the flags or the parsing change what a cached result would say.
PROBE_VERSION = 3
CXX_UNITS = frozenset((".cc", ".cpp", ".cxx", ".c++"))
CUDA_UNITS = frozenset((".cu",))
HEADERS = frozenset(".h .hh .hpp .hxx .cuh .inl .ipp .tpp".split())
MAX_ERRORS = 40
_NAME = "_ported"  # SDK_EXTENSION_NAME of the probe's compiles
_TORCH_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]\s*(?:' + "|".join(port_map.TORCH_INCLUDE_ROOTS) + ")",
    re.M,
)


@dataclass
class Compilers:
    """How the probe compiles: argv per language (nvcc None when absent) and the flags."""

    cxx: list[str]
    nvcc: list[str] | None
    include_dirs: list[str]  # the SDK's, pybind11's, Python's, the CUDA toolkit's
    cxx_flags: list[str]  # a default load()'s flags (its include folders among them)
    identity: str  # what the cache key knows of the compilers and headers
    pch: list[str] = field(default_factory=list)  # -include of the precompiled header
    notes: list[str] = field(default_factory=list)


@dataclass
class Diagnostic:
    """One compiler error, at a path relative to the probed tree (or absolute outside it)."""

    path: str
    line: int
    name: str
    kind: str
    reason: str


def find_compilers(include_dir: str | None = None) -> Compilers | None:
    """The compilers and include folders a build of the port would use, or None when there
    is no C++ compiler (the caller notes that the probe was skipped)."""
    from .._errors import BuildError
    from ..builder import runtime as _runtime
    from ..builder import toolchain as _toolchain
    from . import sdk_names as _port_names

    try:
        cxx = _toolchain.compiler_command("cxx")
    except BuildError:
        return None
    include_dir = include_dir or _port_names.default_include_dir()
    dirs = [include_dir]
    try:
        import pybind11

        dirs.append(pybind11.get_include())
    except ImportError:
        pass
    dirs += _toolchain.python_include_dirs()
    # a default load()'s C++ flags: the shared precompiled header was made with these
    flags = [*_runtime.PYBIND11_BASE_FLAGS, f"-DSDK_EXTENSION_NAME={_NAME}"]
    flags += [f"-I{d}" for d in dirs]
    notes: list[str] = []
    nvcc = None
    try:
        from .._cuda import find_cuda_toolkit

        toolkit = find_cuda_toolkit()
        nvcc = [toolkit.nvcc]
        dirs.append(toolkit.include_dir)  # CUDAExtension's C++ files see the toolkit too
    except BuildError:
        notes.append("no CUDA toolkit: .cu files were not compiled by the probe")
    tools = [_tool_identity(cxx), nvcc and _tool_identity(nvcc)]
    identity = json.dumps([PROBE_VERSION, tools, flags, dirs, _headers_key(include_dir)])
    pch = _precompiled(flags, cxx, include_dir)
    return Compilers(cxx, nvcc, dirs, flags, identity, pch, notes)


def _precompiled(flags: list[str], cxx: list[str], include_dir: str) -> list[str]:
    """The -include flags of the shared precompiled <sdk/extension.h> for `flags` (the
    package ships the one of a default load()'s), or [] when it is not at hand. It changes
    nothing but the speed of the units that start with that header (half their time)."""
    from .._errors import CacheError
    from ..builder import pch as _pch
    from ..builder import toolchain as _toolchain

    if os.path.realpath(include_dir) != os.path.realpath(_toolchain.sdk_paths().include_dir):
        return []
    ident = _tool_identity(cxx)
    if _pch.off_reason(ident) is not None:
        return []
    try:
        pch = _pch.Pch(flags, ident)
        pch.check()
        if pch.ready or (not pch.failed and pch.unpack_installed()):
            pch.touch()
            return pch.use_flags()
    except (CacheError, OSError, ImportError):
        pass  # an unusable cache root: the probe only runs slower
    return []


def _tool_identity(argv: list[str]) -> str:
    from ..builder import cache as _cache
    from ..builder import toolchain as _toolchain

    return _toolchain.compiler_identity(argv, _cache.toolchains_file())


def _headers_key(include_dir: str) -> list:
    folder = Path(include_dir) / "sdk"
    return sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob("*.h"))


# ---- the build's macros ----------------------------------------------------------------------

_DEFINE_FLAG = re.compile(r"-D([A-Za-z_]\w*)(?:=(.*))?\Z", re.S)
_MACRO_NAME = re.compile(r"[A-Za-z_]\w*\Z")


def setup_py_macros(text: str) -> list[str]:
    """-D flags for the probe from a setup.py: its "-DNAME[=VALUE]" strings and the
    ("NAME", value) pairs of its define_macros, whichever branch sets them, so the probe checks
    the build that defines them all (the CUDA build, `WITH_CUDA`, when there is one). ROCm's
    (names with HIP or ROCM) are left out: the SDK has no ROCm backend."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    flags: dict[str, str] = {}

    def add(name: str, value: object) -> None:
        if "HIP" not in name.upper() and "ROCM" not in name.upper():
            flags.setdefault(name, f"-D{name}" if value is None else f"-D{name}={value}")

    def is_macros(node: ast.AST) -> bool:  # a variable named like `define_macros`
        return isinstance(node, ast.Name) and "macro" in node.id.lower()

    lists: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if m := _DEFINE_FLAG.match(node.value):
                add(m.group(1), m.group(2))
        elif isinstance(node, ast.keyword) and node.arg == "define_macros":
            lists.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(is_macros(t) for t in targets):
                lists.append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if is_macros(node.func.value) and node.func.attr in ("append", "extend", "insert"):
                lists.extend(node.args)
    for value in lists:
        for pair in ast.walk(value):
            if not (isinstance(pair, ast.Tuple) and len(pair.elts) == 2):
                continue
            name, val = pair.elts
            if (isinstance(name, ast.Constant) and isinstance(name.value, str)
                    and _MACRO_NAME.match(name.value) and isinstance(val, ast.Constant)
                    and isinstance(val.value, (str, int, type(None)))):  # fmt: skip
                add(name.value, val.value)
    return sorted(flags.values())


# ---- compiling -------------------------------------------------------------------------------


def _project_flags(project_dirs: list[str], cuda: bool) -> list[str]:
    """The include flags of the project's folders: its root first (-I, as a setup.py's
    include_dirs names it), every other folder with headers after the system's (-idirafter),
    so a project header named like a system one (a `math.h` of its own) is found for its
    own includes yet never shadows <math.h> inside the C library or the CUDA headers, as it
    does not in the project's real build."""
    root, *others = project_dirs
    if cuda:  # nvcc has no -idirafter of its own; the host preprocessor it runs has
        return [f"-I{root}", *(f"-Xcompiler=-idirafter,{d}" for d in others)]
    return [f"-I{root}", *(f for d in others for f in ("-idirafter", d))]


def _command(
    compilers: Compilers, rel: str, text: str, project_dirs: list[str], defines: list[str]
) -> list[str]:
    cuda = Path(rel).suffix.lower() in CUDA_UNITS
    projects = [*defines, *_project_flags(project_dirs, cuda)]
    if cuda:
        incs = [f"-I{d}" for d in compilers.include_dirs]
        # -cuda: the front end parses host and device code and stops before code generation
        return [*compilers.nvcc, "-cuda", "-o", os.devnull, "--expt-relaxed-constexpr",
                "-std=c++17", f"-DSDK_EXTENSION_NAME={_NAME}", *incs, *projects, rel]  # fmt: skip
    from ..builder.pch import starts_with_extension_header

    more = [f"-I{d}" for d in compilers.include_dirs if f"-I{d}" not in compilers.cxx_flags]
    pch = compilers.pch if starts_with_extension_header(text.encode(errors="replace")) else []
    return [*compilers.cxx, *compilers.cxx_flags, "-fsyntax-only", f"-fmax-errors={MAX_ERRORS}",
            *more, *projects, *pch, rel]  # fmt: skip


def _compile(argv: list[str], cwd: str) -> str:
    env = dict(os.environ, LC_ALL="C", LANG="C")  # plain quotes in the messages
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return f"{argv[-1]}:1:1: error: the compile probe took over 300 s"
    except OSError as e:
        return f"{argv[-1]}:1:1: error: the compile probe could not run {argv[0]}: {e}"
    return proc.stdout + proc.stderr if proc.returncode else ""


# ---- reading the compiler's errors --------------------------------------------------------------

_GCC_LOC = re.compile(r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)?\s*(?P<rest>.*)$")
_EDG_LOC = re.compile(r"^(?P<path>[^()\s][^()]*)\((?P<line>\d+)\):\s*(?P<rest>.*)$")
_INCLUDED_FROM = re.compile(r"^(?:In file included from|from)\s+")
_ERROR = re.compile(r"^(?:fatal )?error:\s*(?P<msg>.*)$")
_Q = r"['\"‘’]"  # the compilers' quotes (LC_ALL=C gives plain ones; others just in case)
# (pattern, kind, how the name is spelled from the groups)
_NAMES: list[tuple[re.Pattern, str, str]] = [
    (re.compile(rf"{_Q}(?P<n>[\w:~]+){_Q} is not a member of {_Q}(?P<s>[\w:]+){_Q}"), "name", "{s}::{n}"),
    (re.compile(rf"no member named {_Q}(?P<n>\w+){_Q} in namespace {_Q}(?P<s>[\w:]+){_Q}"), "name", "{s}::{n}"),
    (re.compile(r'namespace "(?P<s>[\w:]+)" has no member "(?P<n>\w+)"'), "name", "{s}::{n}"),
    (re.compile(rf"{_Q}(?P<n>[\w:]+){_Q} in namespace {_Q}(?P<s>[\w:]+){_Q} does not name a"), "name", "{s}::{n}"),
    (re.compile(rf"{_Q}(?P<n>[\w:]+){_Q} (?:was not declared in this scope|has not been declared)"), "name", "{n}"),
    (re.compile(rf"use of undeclared identifier {_Q}(?P<n>[\w:]+){_Q}"), "name", "{n}"),
    (re.compile(r'identifier "(?P<n>[\w:]+)" is undefined'), "name", "{n}"),
    (re.compile(rf"{_Q}(?P<n>[\w:]+){_Q} does not name a type"), "name", "{n}"),
    (re.compile(rf"has no member named {_Q}(?P<n>\w+){_Q}"), "method", ".{n}()"),
    (re.compile(rf"no member named {_Q}(?P<n>\w+){_Q} in"), "method", ".{n}()"),
    (re.compile(r'class "[^"]+" has no member "(?P<n>\w+)"'), "method", ".{n}()"),
    (re.compile(r"^(?P<n>[^:\s]+): No such file or directory"), "header", "{n}"),
    (re.compile(rf"^{_Q}(?P<n>[^'\"]+){_Q} file not found"), "header", "{n}"),
    (re.compile(r'cannot open source file "(?P<n>[^"]+)"'), "header", "{n}"),
]  # fmt: skip


def classify(message: str) -> tuple[str, str, str]:
    """(kind, name, reason) of one error message: a name without counterpart when the
    message says so, else the message itself as a compile error."""
    for pattern, kind, spelling in _NAMES:
        m = pattern.search(message)
        if m:
            reason = "compile probe: " + (
                "header not found" if kind == "header" else "not declared by the SDK's headers"
            )
            return kind, spelling.format(**m.groupdict()), reason
    return "compile", message[:160], "compile probe: error"


def parse_errors(output: str, root: str, unit: str) -> list[Diagnostic]:
    """The errors in a compiler's output, each at the project location it belongs to (an
    error inside an SDK header is put at the last project line the compiler named before
    it: the instantiation or include that led there)."""
    found: list[Diagnostic] = []
    last: tuple[str, int] = (unit, 1)
    for raw in output.splitlines():
        m = _GCC_LOC.match(raw) or _EDG_LOC.match(raw)
        if not m:
            continue
        path = _relative(_INCLUDED_FROM.sub("", m.group("path").strip()), root)
        line = int(m.group("line"))
        error = _ERROR.match(m.group("rest"))
        if not os.path.isabs(path):
            last = (path, line)
        if error is None:
            continue
        kind, name, reason = classify(error.group("msg").strip())
        where = last if os.path.isabs(path) else (path, line)
        found.append(Diagnostic(where[0], where[1], name, kind, reason))
        last = (unit, 1) if os.path.isabs(path) else last
    return found


def _relative(path: str, root: str) -> str:
    full = os.path.normpath(os.path.join(root, path))
    rel = os.path.relpath(full, root)
    return full if rel.startswith("..") else Path(rel).as_posix()


# ---- the cache -------------------------------------------------------------------------------


def _cache_folder() -> Path | None:
    """<JIT cache>/port/probe, checked and made by the cache's trust rules; None when it
    cannot be used (the probe then just runs every compile)."""
    from .._errors import CacheError
    from ..builder import cache as _cache
    from ..builder import trust as _trust

    try:
        return _trust.trusted_folders(_cache.extensions_root(), "port", "probe")
    except (CacheError, OSError):
        return None


def _unit_key(
    compilers: Compilers, rel: str, text: str, headers_digest: str, defines: list[str]
) -> str:
    h = hashlib.sha256()
    for part in (compilers.identity, rel, headers_digest, text, *defines):
        h.update(part.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


def _cached(folder: Path | None, key: str) -> list[Diagnostic] | None:
    if folder is None:
        return None
    from ..builder import trust as _trust

    try:
        data = json.loads(_trust.read_no_follow(folder / f"{key[:32]}.json"))
        return [Diagnostic(**d) for d in data]
    except (OSError, ValueError, TypeError):
        return None


def _store(folder: Path | None, key: str, found: list[Diagnostic]) -> None:
    if folder is None:
        return
    from ..builder import trust as _trust

    try:
        _trust.write_atomic(folder / f"{key[:32]}.json", json.dumps([d.__dict__ for d in found]))
    except OSError:  # a full disk only costs the next port the compile
        pass


# ---- the probe -------------------------------------------------------------------------------


@dataclass
class ProbeResult:
    """What the probe found: errors mapped to the original files, notes, units compiled."""

    missing: list[Missing] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    units: int = 0
    compiled: int = 0  # units not answered from the cache
    seconds: float = 0.0


def _probe_text(text: str) -> str:
    """The ported text with the torch includes the porter left (reported already) blanked,
    lines kept, so the compiler goes on to check the rest of the file."""
    return _TORCH_INCLUDE.sub(lambda m: "//" + m.group(0), text)


def probe(
    sources: dict[str, str],
    line_maps: dict[str, list[int] | None] | None = None,
    *,
    compilers: Compilers | None = None,
    include_dir: str | None = None,
    jobs: int | None = None,
    defines: list[str] = (),
) -> ProbeResult:
    """Compile each translation unit of `sources` ({relative path: ported C++ text}, headers
    included) syntax-only, with `defines` (setup_py_macros); errors come back at the original
    lines (`line_maps`: per file, the original line of each ported line, None when they are
    the same)."""
    defines = list(defines)
    start = time.perf_counter()
    result = ProbeResult()
    compilers = compilers or find_compilers(include_dir)
    if compilers is None:
        result.notes.append("no C++ compiler found: the compile probe was skipped")
        return result
    result.notes += compilers.notes
    units = sorted(r for r in sources if Path(r).suffix.lower() in CXX_UNITS | CUDA_UNITS)
    if compilers.nvcc is None:
        units = [r for r in units if Path(r).suffix.lower() not in CUDA_UNITS]
    result.units = len(units)
    headers = sorted(r for r in sources if Path(r).suffix.lower() in HEADERS)
    digest = hashlib.sha256(
        json.dumps([(r, sources[r]) for r in headers], ensure_ascii=False).encode(
            "utf-8", "surrogateescape"
        )
    ).hexdigest()
    folder = _cache_folder()
    keys = {r: _unit_key(compilers, r, sources[r], digest, defines) for r in units}
    found: dict[str, list[Diagnostic]] = {}
    todo = []
    for r in units:
        hit = _cached(folder, keys[r])
        if hit is None:
            todo.append(r)
        else:
            found[r] = hit
    if todo:
        found.update(_run(todo, sources, compilers, jobs, defines))
        for r in todo:
            _store(folder, keys[r], found[r])
    result.compiled = len(todo)
    line_maps = line_maps or {}
    for r in units:
        for d in found[r]:
            lines = line_maps.get(d.path)
            line = lines[d.line - 1] if lines and 0 < d.line <= len(lines) else d.line
            if d.kind == "header":  # not a torch name (those are blanked): the build's own
                result.notes.append(
                    f"{d.path}:{line}: {d.name} was not found by the compile probe (a "
                    f"generated header, or an include folder of your build?): the rest of {r} "
                    "was not checked"
                )
            else:
                result.missing.append(Missing(d.path, line, d.name, d.kind, d.reason))
    result.seconds = time.perf_counter() - start
    return result


def _run(
    units: list[str],
    sources: dict[str, str],
    compilers: Compilers,
    jobs: int | None,
    defines: list[str],
) -> dict[str, list[Diagnostic]]:
    """Write the private copy, compile the units in parallel, parse their errors."""
    from ..builder import toolchain as _toolchain

    tmp = tempfile.mkdtemp(prefix="sdk-port-probe-")
    try:
        folders = set()
        for rel, text in sources.items():
            path = Path(tmp, rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_probe_text(text), encoding="utf-8", errors="surrogateescape")
            if path.suffix.lower() in HEADERS:
                folders.add(str(Path(rel).parent))
        folders.discard(".")
        project_dirs = [os.path.join(tmp, f) for f in [".", *sorted(folders)]]
        workers = max(1, min(jobs or _toolchain.default_jobs(), len(units)))

        def one(rel: str) -> list[Diagnostic]:
            argv = _command(compilers, rel, sources[rel], project_dirs, defines)
            return parse_errors(_compile(argv, tmp), tmp, rel)

        with ThreadPoolExecutor(workers) as pool:  # each job is a compiler process
            return dict(zip(units, pool.map(one, units)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
