"""JIT builds: load() and load_inline(), the content-hashed cache, locking and import."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path

from . import _cache, _lock, _runtime, _toolchain, _trust
from ._errors import (
    BuildError,
    CacheError,
    cache_error,
    damaged_intermediates,
    failed_command,
    format_build_failure,
)

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CUDA_SUFFIXES = (".cu", ".cuh")
_C_SUFFIXES = (".c",)

# name -> (digest, loaded object); name -> number of versions loaded in this process
_LOADED: dict[str, tuple[str, object]] = {}
_VERSIONS: dict[str, int] = {}
_LAST_INFO: dict[str, object] = {}


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
    if not isinstance(name, str) or not _NAME.match(name):
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
                with open(path, "rb") as f:
                    texts.append((path, f.read()))
            except FileNotFoundError:
                raise FileNotFoundError(
                    f"extension '{name}': source file not found: {src}"
                ) from None
    if not texts:
        raise ValueError(f"extension '{name}': no sources given")
    with_cuda = kw.get("with_cuda")
    if with_cuda is None:
        with_cuda = any(p.endswith(_CUDA_SUFFIXES) for p, _ in texts)
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


def _language(path: str) -> str:
    if path.endswith(_CUDA_SUFFIXES):
        return "cuda"
    if path.endswith(_C_SUFFIXES):
        return "c"
    return "cxx"


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


def _flags(req: _Request) -> dict[str, list[str]]:
    """Per-language compile flags and the link flags; user flags come last so they win."""
    incs = [f"-I{d}" for d in _include_dirs(req)]
    define = [f"-DSDK_EXTENSION_NAME={req.name}"]
    # pybind11: the flags the installed runtime object was compiled with (see _runtime.py)
    base = _runtime.PYBIND11_BASE_FLAGS if req.bridge == "pybind11" else _toolchain.CXX_FLAGS
    cxx = [*base, *define, *incs, *req.extra_cflags]
    user_c = [f for f in req.extra_cflags if not f.startswith("-std=c++")]
    c = ["-std=c11", "-O2", "-fPIC", *define, *incs, *user_c]
    cuda: list[str] = []
    if req.with_cuda:
        from . import _cuda

        toolkit = _cuda.find_cuda_toolkit()
        cxx.insert(len(cxx) - len(req.extra_cflags), f"-I{toolkit.include_dir}")
        # archs (SDK_CUDA_ARCH_LIST, the GPUs, or the portable set), -ccbin, -rdc: _cuda.py
        cuda = _cuda.nvcc_flags(
            [*define, *incs, *req.extra_cuda_cflags],
            nvcc=_toolchain.compiler_command("cuda")[0],
            rdc=req.dlink,
        )
    paths = _toolchain.sdk_paths()
    ld = [] if req.bridge == "standalone" else ["-shared", _toolchain.HIDE_STATIC_LIBS]
    if paths.library_exists:
        ld += [f"-L{paths.library_dir}", "-lsdk_core", f"-Wl,-rpath,{paths.library_dir}"]
    elif req.bridge != "pybind11":
        raise BuildError(
            f"extension '{req.name}' needs the sdk core library, which was not found at "
            f"{paths.library_path}; build it first (`python setup.py build_ext --inplace` "
            "in the repository, or install the sdk package)"
        )
    if req.with_cuda:
        ld += _cuda.link_flags(toolkit, rdc=req.dlink)
    ld += req.extra_ldflags
    return {"cxx": cxx, "c": c, "cuda": cuda, "ld": ld}


def _languages(req: _Request) -> set[str]:
    langs = {_language(p) for p, _ in req.sources} | {"cxx"}  # cxx links
    if not req.with_cuda:
        langs.discard("cuda")
    return langs


def _digest(req: _Request, flags: dict[str, list[str]], compilers: dict[str, list[str]]) -> str:
    paths = _toolchain.sdk_paths()
    idents_file = _cache.extensions_root() / "toolchains.json"
    config = {
        "recipe": _cache.RECIPE_VERSION,
        "name": req.name,
        "bridge": req.bridge,
        "flags": flags,
        "compilers": {
            k: _toolchain.compiler_identity(v, idents_file) for k, v in compilers.items()
        },
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
    missing); CacheError otherwise, or when a folder cannot be made."""
    try:
        _trust.check_cache(_cache.extensions_root(), req.build_dir)
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
    compilers = {lang: _toolchain.compiler_command(lang) for lang in _languages(req)}
    flags = _flags(req)
    digest = _digest(req, flags, compilers)
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
                        _build_locked(req, digest, flags, compilers, output, clean=clean)
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


def _object_paths(req: _Request) -> list[tuple[str, str, str]]:
    """(source path, object path, language) with unique object names."""
    used: set[str] = set()
    result = []
    for path, _ in req.sources:
        lang = _language(path)
        if lang == "cuda" and path.endswith(".cuh"):
            continue
        stem = os.path.splitext(os.path.basename(path))[0]
        obj = f"{stem}.cuda.o" if lang == "cuda" else f"{stem}.o"
        n = 1
        while obj in used:
            obj = f"{stem}_{n}.o"
            n += 1
        used.add(obj)
        src = str(req.build_dir / os.path.basename(path)) if req.write_sources else path
        result.append((src, str(req.build_dir / obj), lang))
    return result


def _build_locked(req, digest, flags, compilers, output: Path, clean: bool = False) -> None:
    """Compile and link under the exclusive lock; the output appears atomically.

    A build that fails on damaged intermediates (a truncated object file, say, left by a
    full disk or a killed builder) is retried once from scratch."""
    from . import _ninja

    start = time.monotonic()
    _lock.reap_stale_builder(req.build_dir)
    if clean:
        _clean_intermediates(req.build_dir)
    if req.write_sources:
        for path, text in req.sources:
            _ninja.write_if_changed(req.build_dir / os.path.basename(path), text.decode())
    launcher = _toolchain.compiler_launcher()
    idents = _cache.extensions_root() / "toolchains.json"
    plan_compilers = {
        lang: argv if lang == "cuda" else [*launcher, *argv, *_toolchain.speed_args(argv, idents)]
        for lang, argv in compilers.items()
    }
    plan = _ninja.BuildPlan(req.build_dir, plan_compilers)
    objects = []
    for src, obj, lang in _object_paths(req):
        plan.compiles.append(_ninja.CompileStep(src, obj, lang, flags[lang]))
        objects.append(obj)
    ldflags = flags["ld"]
    jobs = _toolchain.default_jobs()
    cxx_steps = [s for s in plan.compiles if s.language == "cxx"]
    split = _toolchain.split_codegen_jobs(
        compilers["cxx"], idents, launcher, flags["cxx"], len(cxx_steps), jobs
    )
    if split:  # code generation at the link, in `split` processes (see split_codegen_jobs)
        for step in cxx_steps:
            step.flags = [*step.flags, "-flto"]
        codegen = [f for f in flags["cxx"] if f.startswith(("-O", "-f", "-m"))]
        speed = _toolchain.speed_args(compilers["cxx"], idents)
        partitions = _toolchain.lto_partition_args(split)
        ldflags = [*speed, *codegen, f"-flto={split}", *partitions, *ldflags]
    from . import _pch  # the shared precompiled <sdk/extension.h>, see _pch.py

    # shared objects go first on the link line, so that their copies prevail (see _pch.py)
    attached = _pch.attach(plan, req.bridge, flags["cxx"], compilers["cxx"], bool(split), launcher)
    shared = attached.shared
    cuda_objects = [o for _, o, lang in _object_paths(req) if lang == "cuda"]
    if req.dlink and cuda_objects:
        # relocatable device code: nvcc links the device parts into one object first
        from ._cuda import dlink_flags

        dlinked = str(req.build_dir / "dlink.o")
        dl_flags = ["-dlink", *dlink_flags(flags["cuda"]), "-Xcompiler", "-fPIC"]
        plan.links.append(_ninja.LinkStep(dlinked, cuda_objects, dl_flags, compilers["cuda"]))
        objects.append(dlinked)
    linked = req.build_dir / "link" / output.name
    linked.parent.mkdir(mode=_trust.FOLDER_MODE, exist_ok=True)
    link = _ninja.LinkStep(str(linked), [*shared, *objects], ldflags, compilers["cxx"])
    plan.links.append(link)
    _ninja.write_if_changed(req.build_dir / "build.ninja", _ninja.render(plan))
    code, log = _run_ninja(req)
    if code != 0 and any(os.path.basename(p) in log for p in shared):
        # a damaged shared object: not used again (see _pch.discard), link without it
        _pch.discard(shared)
        link.objects = objects
        _ninja.write_if_changed(req.build_dir / "build.ninja", _ninja.render(plan))
        code, log = _run_ninja(req)
    if code != 0 and not clean and damaged_intermediates(log):
        _clean_intermediates(req.build_dir)
        code, log = _run_ninja(req)
    lto_error = _lto_link_error(log, str(linked)) if code != 0 and split else None
    if lto_error:
        # this toolchain cannot link split code generation (a linker without gcc's LTO
        # plugin, say): remember it, and build the usual way
        _toolchain.note_lto_failure(compilers["cxx"], idents, lto_error)
        _clean_intermediates(req.build_dir)
        _build_locked(req, digest, flags, compilers, output, clean=True)
        return
    if attached.start_job is not None:
        attached.start_job()  # what the shared header lacks, now that no compile needs the cores
    log_path = req.build_dir / "build.log"
    _trust.write_atomic(log_path, log)  # never through a link planted as build.log
    if code != 0:
        raise format_build_failure(req.name, log, str(req.build_dir), str(log_path))
    _atomic_copy(linked, output)
    if not req.keep_intermediates:
        for obj in objects:
            for p in (obj, obj + ".d"):
                if os.path.exists(p):
                    os.remove(p)
    _cache.write_stamp(req.build_dir, digest, str(output), time.monotonic() - start)


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
    from . import _ninja

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
    from . import _remote  # what load() returns pickles by its build request

    ops_before = _remote.registered_ops()
    if req.bridge == "ctypes":
        from ._ctypes_bridge import load_library

        result = load_library(str(path), module_name)
    else:
        result = _import_pybind11(req.name, module_name, str(path))
    _LOADED[req.name] = (digest, result)
    _remote.remember(req, result, ops_before, digest)
    return result


def _import_pybind11(init_name: str, module_name: str, path: str):
    """Import an extension module from `path`; its PyInit_ function is named after init_name."""
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.ExtensionFileLoader(init_name, path)
    spec = importlib.util.spec_from_file_location(init_name, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot import extension from {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[module_name] = module
    _check_registrations(path)  # SDK_LIBRARY blocks ran while the module loaded
    return module


def _check_registrations(path: str) -> None:
    """ImportError listing the operator registrations of the library at `path` that failed
    while it loaded (when sdk is importable: registrations need it)."""
    try:
        from sdk.ops import check_registrations
    except ImportError:
        return
    check_registrations(path)


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
    body = header + "\n".join(cpp)
    funcs = _functions_dict(functions)
    if funcs and bridge == "pybind11":
        defs = []
        for fname, doc in funcs.items():
            doc_lit = '"' + doc.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
            defs.append(f'  m.def("{fname}", &{fname}, {doc_lit});')
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
            else "#include <sdk/c_api.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
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
