"""JIT builds: load() and load_inline(), the content-hashed cache, locking and import."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .._cpp_signature import pybind11_args
from .._ctypes_bridge import load_library as load_ctypes
from .._errors import (
    BuildError,
    CacheError,
    cache_error,
    damaged_intermediates,
    failed_command,
    format_build_failure,
)
from .._loading import NAME, import_pybind11
from . import cache as _cache
from . import lock as _lock
from . import ninja as _ninja
from . import plan as _plan
from . import runtime as _runtime
from . import toolchain as _toolchain
from . import trust as _trust

_LINE_ONE = "\n#line 1\n"  # after load_inline's implicit header: the user's string follows

# name -> (digest, loaded object); name -> number of versions loaded in this process
_LOADED: dict[str, tuple[str, object]] = {}
_VERSIONS: dict[str, int] = {}
_LAST_INFO: dict[str, object] = {}


class LoadObserver:
    """Told about every binary load() imports (before, then after, with the request that
    built it). The default does nothing; _remote, one layer up, installs the one that makes
    the loaded object picklable (set_load_observer), so this layer never imports it."""

    def before_load(self) -> object:
        return None

    def after_load(self, req: _Request, result: object, token: object, digest: str) -> None:
        pass


_OBSERVER: LoadObserver = LoadObserver()


def set_load_observer(observer: LoadObserver) -> None:
    """Install the observer of loads (one per process; the last call wins)."""
    global _OBSERVER
    _OBSERVER = observer


def last_load_info() -> dict[str, object]:
    """What the last load() did: name, built (a compiler ran), seconds, paths, hash."""
    return dict(_LAST_INFO)


class _Request:
    """A JIT build request, with its sources as (path, text).

    bridge: "pybind11", "ctypes" or "standalone"; write_sources: load_inline's
    texts are written into build_dir when building.
    """

    def __init__(self, **fields) -> None:
        self.name: str = fields.pop("name")
        self.sources: list[tuple[str, bytes]] = fields.pop("sources")
        self.build_dir: Path = fields.pop("build_dir")
        self.bridge: str = fields.pop("bridge")
        self.__dict__.update(fields)


def resolve_bridge(bridge: str | None, is_python_module: bool, is_standalone: bool) -> str:
    if is_standalone:
        return "standalone"
    if bridge is None:
        return "pybind11" if is_python_module else "ctypes"
    if bridge not in ("pybind11", "ctypes"):
        raise ValueError(f"bridge must be 'pybind11' or 'ctypes', got {bridge!r}")
    return bridge


def _as_list(value, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    try:
        return [os.fspath(v) if isinstance(v, os.PathLike) else str(v) for v in value]
    except TypeError:
        raise TypeError(f"{what} must be a string or a list of strings, got {value!r}") from None


def make_request(name, sources, *, inline: bool = False, **kw) -> _Request:
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"extension name must be a C identifier, got {name!r}")
    paths = _toolchain.sdk_paths()
    build_directory = kw.get("build_directory")
    build_dir = (
        Path(build_directory).expanduser().resolve()
        if build_directory
        else _cache.default_build_dir(name, paths.abi[0])
    )
    if inline:
        texts = list(sources)
    else:
        texts = []
        for src in _as_list(sources, "sources"):
            path = os.path.abspath(src)
            try:
                texts.append((path, _trust.read_regular(path)))
            except FileNotFoundError:
                raise FileNotFoundError(
                    f"extension '{name}': source file not found: {src}"
                ) from None
            except _trust.NotARegularFile as e:
                raise ValueError(f"extension '{name}': source {src}: {e.strerror}") from None
    if not texts:
        raise ValueError(f"extension '{name}': no sources given")
    with_cuda = kw.get("with_cuda")
    if with_cuda is None:
        with_cuda = any(_plan.language(p) == "cuda" for p, _ in texts)
    return _Request(
        name=name,
        sources=texts,
        extra_cflags=_as_list(kw.get("extra_cflags"), "extra_cflags"),
        extra_cuda_cflags=_as_list(kw.get("extra_cuda_cflags"), "extra_cuda_cflags"),
        extra_ldflags=_as_list(kw.get("extra_ldflags"), "extra_ldflags"),
        extra_include_paths=[
            os.path.abspath(p)
            for p in _as_list(kw.get("extra_include_paths"), "extra_include_paths")
        ],
        build_dir=build_dir,
        verbose=bool(kw.get("verbose", False)),
        with_cuda=bool(with_cuda),
        dlink=bool(kw.get("dlink", False)),
        bridge=kw["bridge"],
        keep_intermediates=bool(kw.get("keep_intermediates", True)),
        write_sources=inline,
    )


def _output_name(req: _Request) -> str:
    return req.name if req.bridge == "standalone" else f"{req.name}.so"


def _pybind11_include(req: _Request) -> str | None:
    """pybind11's headers: required by the pybind11 bridge; for the ctypes bridge too when
    installed, since operator libraries include <sdk/extension.h> as torch's include
    <torch/extension.h> (load(..., is_python_module=False) of a ported TORCH_LIBRARY)."""
    if req.bridge == "pybind11":
        import pybind11

        return pybind11.get_include()
    if req.bridge == "ctypes":
        try:
            import pybind11
        except ImportError:
            return None
        return pybind11.get_include()
    return None


def _include_dirs(req: _Request) -> list[str]:
    dirs = list(req.extra_include_paths) + [_toolchain.sdk_paths().include_dir]
    pybind11_dir = _pybind11_include(req)
    if pybind11_dir:
        dirs.append(pybind11_dir)
    if req.bridge != "standalone":  # libraries may include <Python.h>, as torch's do
        dirs += _toolchain.python_include_dirs()
    return dirs


def _toolchain_for(req: _Request) -> _plan.Toolchain:
    """The request's compilers, resolved once; identities remembered in the cache."""
    langs = _plan.languages((p for p, _ in req.sources), with_cuda=req.with_cuda)
    return _plan.Toolchain(langs, identities=_cache.toolchains_file())


def _flags(req: _Request, toolchain: _plan.Toolchain) -> dict[str, list[str]]:
    """Per-language compile flags and the link flags ("ld"); the user's come last."""
    from .. import _cuda

    includes = _include_dirs(req)
    toolkit = _cuda.find_cuda_toolkit() if req.with_cuda else None
    if toolkit is not None:
        includes.append(toolkit.include_dir)
    # pybind11: the flags the installed runtime object was compiled with (see runtime.py)
    base = _runtime.PYBIND11_BASE_FLAGS if req.bridge == "pybind11" else _toolchain.CXX_FLAGS
    flags = _plan.compile_flags(
        cxx=base,
        c=_toolchain.C_FLAGS,
        common=[f"-DSDK_EXTENSION_NAME={req.name}", *(f"-I{d}" for d in includes)],
        user_cxx=req.extra_cflags,
        user_nvcc=req.extra_cuda_cflags,
        with_cuda=req.with_cuda,
        rdc=req.dlink,
        nvcc=toolchain.nvcc,
    )
    paths = _toolchain.sdk_paths()
    core = [paths.library_dir] if paths.library_exists else []
    if not core and req.bridge != "pybind11":
        raise BuildError(
            f"extension '{req.name}' needs the sdk core library, which was not found at "
            f"{paths.library_path}; build it first (`python setup.py build_ext --inplace` "
            "in the repository, or install the sdk package)"
        )
    cuda_ld = _cuda.link_flags(toolkit, rdc=req.dlink) if toolkit is not None else []
    flags["ld"] = _plan.link_flags(
        shared=req.bridge != "standalone",
        library_dirs=core,
        libraries=["sdk_core"] if core else [],
        rpaths=core,
        extra=[*cuda_ld, *req.extra_ldflags, *_plan.openmp_link_args(flags)],
    )
    return flags


def _digest(req: _Request, flags: dict[str, list[str]], toolchain: _plan.Toolchain) -> str:
    paths = _toolchain.sdk_paths()
    config = {
        "recipe": _cache.RECIPE_VERSION,
        "name": req.name,
        "bridge": req.bridge,
        "flags": flags,
        "compilers": {lang: toolchain.identity(lang) for lang in toolchain.compilers},
        "abi": list(paths.abi),
        "python": sys.version,
    }
    if _pybind11_include(req):
        import pybind11

        config["pybind11"] = pybind11.__version__
    roots = [
        (str(req.build_dir) if req.write_sources else os.path.dirname(p), text)
        for p, text in req.sources
    ]
    # pybind11's and Python's headers are covered by their versions in `config`
    scan_dirs = list(req.extra_include_paths) + [paths.include_dir]
    headers = _cache.local_headers(roots, scan_dirs)
    labels = [(os.path.basename(p) if req.write_sources else p, t) for p, t in req.sources]
    return _cache.content_hash(labels, headers, config)


def _check_folders(req: _Request) -> None:
    """The cache's folders down to the build folder pass _trust's checks (made 0700 when
    missing); CacheError otherwise, or when a folder cannot be made. The build then uses the
    physical folder the checks walked to, not a path that could resolve elsewhere."""
    try:
        req.build_dir = _trust.check_cache(_cache.extensions_root(), req.build_dir)
    except CacheError:
        raise
    except OSError as e:
        error = cache_error(req.name, req.build_dir, e)
        if error is None:
            raise
        raise error from e


def jit_build(req: _Request):
    """Build (or reuse) and load the extension described by `req`."""
    start = time.monotonic()
    _check_folders(req)  # before anything in the cache is read
    toolchain = _toolchain_for(req)
    flags = _flags(req, toolchain)
    digest = _digest(req, flags, toolchain)
    output = req.build_dir / _output_name(req)
    info = {"name": req.name, "build_directory": str(req.build_dir), "hash": digest}
    with _lock.thread_lock(req.build_dir):
        cached = _LOADED.get(req.name)
        if cached is not None and cached[0] == digest and req.bridge != "standalone":
            _LAST_INFO.clear()
            _LAST_INFO.update(
                info, built=False, seconds=time.monotonic() - start, output=str(output)
            )
            return cached[1]
        built = False
        try:
            with _lock.file_lock(req.build_dir, exclusive=False):
                state = _state(req, digest, output)
                if state == "fresh":
                    result = _load_output(req, digest, output)
            if state != "fresh":
                with _lock.file_lock(req.build_dir, exclusive=True):
                    state = _state(req, digest, output)
                    if state != "fresh":
                        # a damaged binary from unchanged inputs: its intermediates are
                        # suspect too, so build from scratch
                        clean = state == "corrupt"
                        _build_locked(req, toolchain, flags, digest, output, clean=clean)
                        built = True
                    result = _load_output(req, digest, output)
        except CacheError:
            raise
        except OSError as e:
            error = cache_error(req.name, req.build_dir, e)
            if error is None:
                raise
            raise error from e
    _LAST_INFO.clear()
    _LAST_INFO.update(info, built=built, seconds=time.monotonic() - start, output=str(output))
    return result


def _state(req: _Request, digest: str, output: Path) -> str:
    """'fresh', 'stale' or 'corrupt' (see _cache.check_output)."""
    return _cache.check_output(_cache.read_stamp(req.build_dir), digest, output)


def _clean_intermediates(build_dir: Path) -> None:
    """Remove objects, the link folder and ninja's records so that the next build starts
    from nothing (the last good output, if any, is left in place)."""
    for p in build_dir.iterdir():
        if p.name.endswith((".o", ".o.d")) or p.name in (".ninja_log", ".ninja_deps"):
            p.unlink(missing_ok=True)
    shutil.rmtree(build_dir / "link", ignore_errors=True)


@dataclass
class _Build:
    """One build.ninja for a request: its graph, its link step, the request's own objects
    (`link.objects` puts the `shared` ones first), the split code generation's process count
    (0: none) and the precompiled header's background job to start afterwards."""

    graph: _ninja.BuildPlan
    link: _ninja.LinkStep
    objects: list[str]
    shared: list[str]
    split: int
    start_job: Callable[[], object] | None


def _build_locked(req, toolchain, flags, digest, output: Path, clean: bool = False) -> None:
    """Compile and link under the exclusive lock: plan, run (with retries), publish. The
    output appears atomically, with the stamp that makes it fresh."""
    start = time.monotonic()
    _lock.reap_stale_builder(req.build_dir)
    if clean:
        _clean_intermediates(req.build_dir)
    if req.write_sources:
        for path, text in req.sources:
            _ninja.write_if_changed(req.build_dir / os.path.basename(path), text.decode())
    build = _plan_build(req, toolchain, flags, output, allow_split=True)
    code, log = _run_with_retries(req, build, clean)
    lto_error = _lto_link_error(log, build.link.output) if code != 0 and build.split else None
    if lto_error:
        # this toolchain cannot link split code generation (a linker without gcc's LTO
        # plugin, say): remember it, and build the usual way, from scratch
        toolchain.note_lto_failure(lto_error)
        _clean_intermediates(req.build_dir)
        build = _plan_build(req, toolchain, flags, output, allow_split=False)
        code, log = _run_with_retries(req, build, clean=True)
    if build.start_job is not None:
        build.start_job()  # what the shared header lacks, now that no compile needs the cores
    _publish(req, build, code, log, digest, output, time.monotonic() - start)


def _plan_build(req, toolchain, flags, output: Path, allow_split: bool) -> _Build:
    """The ninja graph of the request: its target (see _plan), split code generation when
    it pays (see _toolchain.split_codegen_jobs) and the shared precompiled header."""
    from . import pch as _pch  # the shared precompiled <sdk/extension.h>, see pch.py

    sources = [
        str(req.build_dir / os.path.basename(p)) if req.write_sources else p for p, _ in req.sources
    ]
    linked = req.build_dir / "link" / output.name
    linked.parent.mkdir(mode=_trust.FOLDER_MODE, exist_ok=True)
    graph = toolchain.graph(req.build_dir)
    target = _plan.Target(str(linked), sources, req.build_dir, flags, dlink=req.dlink)
    link = _plan.add_target(graph, target, toolchain.cxx)
    objects = list(link.objects)
    cxx_steps = [s for s in graph.compiles if s.language == "cxx"]
    jobs = _toolchain.default_jobs()
    split = toolchain.split_codegen_jobs(flags["cxx"], len(cxx_steps), jobs) if allow_split else 0
    if split:  # code generation at the link, in `split` processes
        for step in cxx_steps:
            step.flags = [*step.flags, "-flto"]
        codegen = [f for f in flags["cxx"] if f.startswith(("-O", "-f", "-m"))]
        partitions = _toolchain.lto_partition_args(split)
        speed = toolchain.speed_args()
        link.ldflags = [*speed, *codegen, f"-flto={split}", *partitions, *link.ldflags]
    # shared objects go first on the link line, so that their copies prevail (see pch.py)
    attached = _pch.attach(graph, req.bridge, flags["cxx"], toolchain, bool(split))
    if split or attached.applies:  # a ccache found on PATH could not cache these compiles
        toolchain.give_way(graph)
    link.objects = [*attached.shared, *objects]
    return _Build(graph, link, objects, list(attached.shared), split, attached.start_job)


def _run_with_retries(req: _Request, build: _Build, clean: bool) -> tuple[int, str]:
    """Run ninja on `build`. A link that fails on a shared object runs again without it; a
    build that fails on damaged intermediates (a truncated object file, say, left by a full
    disk or a killed builder) once more from scratch, unless it started from scratch."""
    from . import pch as _pch

    _ninja.write_if_changed(req.build_dir / "build.ninja", _ninja.render(build.graph))
    code, log = _run_ninja(req)
    if code != 0 and any(os.path.basename(p) in log for p in build.shared):
        # a damaged shared object: not used again (see _pch.discard), link without it
        _pch.discard(build.shared)
        build.shared = []
        build.link.objects = build.objects
        _ninja.write_if_changed(req.build_dir / "build.ninja", _ninja.render(build.graph))
        code, log = _run_ninja(req)
    if code != 0 and not clean and damaged_intermediates(log):
        _clean_intermediates(req.build_dir)
        code, log = _run_ninja(req)
    return code, log


def _publish(req, build: _Build, code: int, log: str, digest: str, output: Path, seconds) -> None:
    """Keep the log; on success put the linked binary in place atomically, drop the objects
    when asked to, and write the stamp that makes the output fresh for `digest`."""
    log_path = req.build_dir / "build.log"
    _trust.write_atomic(log_path, log)  # never through a link planted as build.log
    if code != 0:
        texts = _inline_texts(req)
        raise format_build_failure(req.name, log, str(req.build_dir), str(log_path), texts)
    _atomic_copy(Path(build.link.output), output)
    if not req.keep_intermediates:
        for obj in build.objects:
            for p in (obj, obj + ".d"):
                if os.path.exists(p):
                    os.remove(p)
    _cache.write_stamp(req.build_dir, digest, str(output), seconds)


def _inline_texts(req: _Request) -> dict[str, str]:
    """{written source: the user's string in it}, for load_inline's sources that start their
    numbering at the user's string with `#line 1` (see inline_sources)."""
    texts = {}
    for path, data in req.sources if req.write_sources else []:
        text = data.decode(errors="replace")
        at = text.find(_LINE_ONE)
        if at >= 0:
            texts[str(req.build_dir / os.path.basename(path))] = text[at + len(_LINE_ONE) :]
    return texts


def _lto_link_error(log: str, linked: str) -> str | None:
    """The first line blaming link-time optimisation when the link of `linked` failed."""
    # ninja: "FAILED: <outputs>" (1.12+: "FAILED: [code=N] <outputs>")
    if not any(ln.startswith("FAILED: ") and linked in ln for ln in log.splitlines()):
        return None
    command = failed_command(log)
    for line in log.splitlines():
        text = line.strip()
        if not text or text == command or text.startswith(("ninja: ", "[", "FAILED: ")):
            continue
        if re.search(r"\blto\b|lto-wrapper|lto1|plugin|bytecode", text, re.I):
            return text
    return None


def _run_ninja(req: _Request) -> tuple[int, str]:
    env = _lock.start_builder(req.build_dir)
    try:
        return _ninja.run(req.build_dir, _toolchain.default_jobs(), req.verbose, req.name, env=env)
    finally:
        _lock.finish_builder(req.build_dir)


def _atomic_copy(src: Path, dst: Path) -> None:
    """Never expose a half-written binary: copy to a temp name, then rename over (a failed
    copy, e.g. on a full disk, leaves the previous binary as it was)."""
    _trust.copy_atomic(src, dst, mode=0o777)  # less the umask, as the linker makes it


def _load_output(req: _Request, digest: str, output: Path):
    """Import the built binary; a rebuild in this process loads a versioned copy."""
    if req.bridge == "standalone":
        return str(output)
    path = output
    module_name = req.name
    previous = _LOADED.get(req.name)
    if previous is not None and previous[0] != digest:
        version = _VERSIONS.get(req.name, 0) + 1
        _VERSIONS[req.name] = version
        module_name = f"{req.name}_v{version}"
        path = output.with_name(f"{module_name}{output.suffix}")
        _atomic_copy(output, path)
    token = _OBSERVER.before_load()
    if req.bridge == "ctypes":
        result = load_ctypes(str(path), module_name)
    else:
        result = import_pybind11(req.name, module_name, str(path))
    _LOADED[req.name] = (digest, result)
    _OBSERVER.after_load(req, result, token, digest)
    return result


# ------------------------------------------------------------------------------ inline


def inline_sources(
    name: str,
    cpp_sources,
    cuda_sources,
    functions,
    bridge: str,
    no_implicit_headers: bool = False,
) -> list[tuple[str, bytes]]:
    """main.cpp (header prepended, module generated from `functions`) and cuda.cu."""
    cpp = _as_list(cpp_sources, "cpp_sources")
    cuda = _as_list(cuda_sources, "cuda_sources")
    if no_implicit_headers:
        header = ""
    elif bridge == "pybind11":
        header = "#include <sdk/extension.h>\n"
    else:
        header = "#include <sdk/export.h>\n"
    user = "\n".join(cpp)
    # `#line 1` after the header: a compile error names the line of the user's own string.
    body = header + ("#line 1\n" if header else "") + user
    funcs = _functions_dict(functions)
    if funcs and bridge == "pybind11":
        defs = []
        for fname, doc in funcs.items():
            doc_lit = '"' + doc.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
            # The C++ parameter names (and literal defaults), so keyword arguments work.
            args = pybind11_args(user, fname)
            defs.append(f'  m.def("{fname}", &{fname}, {doc_lit}{args});')
        body += "\n\nPYBIND11_MODULE(SDK_EXTENSION_NAME, m) {\n" + "\n".join(defs) + "\n}\n"
    elif funcs and bridge == "ctypes":
        raise ValueError(
            f"load_inline('{name}'): `functions` generates pybind11 bindings; with the ctypes "
            'bridge mark each function with SDK_EXPORT(name, "signature") instead'
        )
    out = [("main.cpp", body.encode())]
    if cuda:
        cu = (
            ""
            if no_implicit_headers
            else "#include <sdk/c_api.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n#line 1\n"
        )
        out.append(("cuda.cu", (cu + "\n".join(cuda)).encode()))
    return out


def _functions_dict(functions) -> dict[str, str]:
    if functions is None:
        return {}
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, dict):
        return {str(k): str(v) for k, v in functions.items()}
    return {str(f): "" for f in functions}
