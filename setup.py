"""Build script: the core shared library (ninja, in parallel) and sdk._C over its C ABI.

The core is one shared library, ``sdk/lib/libsdk_core.so``, compiled from
``core/src/*.cpp`` by ninja. ``sdk._C`` (the Python binding) links against it
with an ``$ORIGIN`` rpath and includes only ``sdk/c_api.h``. The public headers
are copied to ``sdk/include`` so that installed packages carry them.

The CUDA backend, ``sdk/lib/libsdk_cuda.so`` (``core/src/cuda/backend``, nvcc +
cudart), is built when a CUDA toolkit is found and a GPU is visible (``/dev/nvidia*``);
``SDK_WITH_CUDA=auto`` builds it whenever a toolkit is found (a wheel for GPU machines
built on one without), ``SDK_WITH_CUDA=0`` skips it and ``SDK_WITH_CUDA=1`` makes a
missing toolkit an error. The core loads it only when a
CUDA device is first used. Architectures: ``SDK_CUDA_ARCH_LIST`` (see docs/CUDA.md).
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import sys
import sysconfig
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
CORE_SRC = ROOT / "core" / "src"
CORE_INCLUDE = ROOT / "core" / "include"
CORE_LIB_NAME = "libsdk_core.so"
CUDA_BACKEND_SRC = CORE_SRC / "cuda" / "backend"
CUDA_LIB_NAME = "libsdk_cuda.so"
# core-side CUDA glue (no CUDA headers): loads the backend and routes CUDA tensors to it
CUDA_GLUE_SOURCES = sorted((CORE_SRC / "cuda" / "glue").glob("*.cpp"))

_TOOLING_LOCK = threading.Lock()  # the build threads load these files at the same time


def _tooling(module: str):
    """cpp_extension.<module> from this checkout: the package imports without sdk (its
    modules import sdk only inside the functions that load an extension), so the build of
    sdk itself can use its planner, ninja writer, toolchain and CUDA discovery."""
    import importlib

    with _TOOLING_LOCK:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        loaded = importlib.import_module(f"cpp_extension.{module}")
    if not Path(loaded.__file__).resolve().is_relative_to(ROOT / "cpp_extension"):
        raise RuntimeError(
            f"setup.py: cpp_extension was already imported from {loaded.__file__}, not from "
            f"this checkout ({ROOT}); run the build in a fresh interpreter"
        )
    return loaded


# Every compile's first flags come from one function (cpp_extension/builder/toolchain.py, base_flags);
# the targets differ only in its arguments.
_base_flags = _tooling("builder.toolchain").base_flags

# -O3, not -O2: most of the compile time -O3 adds is the vectorizer, and gcc's -O2 does not
# vectorize loops that need a run-time alias check, which every elementwise loop of the core
# does (benchmarks/results/MEASUREMENTS.md, "First build of the core").
CORE_OPT_LEVEL = "-O3"
# Release flags that run on any x86-64; faster paths are picked at run time.
CORE_CXXFLAGS = _base_flags(
    opt=CORE_OPT_LEVEL,
    hidden=True,
    warnings=False,
    extra=["-fno-math-errno", "-DSDK_CORE_BUILDING", "-Wall", "-Wextra", "-Wno-unused-parameter"],
)
CORE_LDFLAGS = ["-shared", "-pthread", "-ldl", "-Wl,-soname," + CORE_LIB_NAME]


def export_only(build_dir: Path, *patterns: str) -> str:
    """A linker flag exporting only `patterns` (a version script written into build_dir).

    The core exports its C ABI and nothing else: no C++ template instantiation, and none of
    the C++ runtime when a toolchain links it statically (-static-libstdc++). Exported, a
    static runtime's symbols interpose on another copy loaded later in the same process
    (cuBLAS brings libstdc++.so.6), and the two copies' locale tables mix: a crash at the
    first error message."""
    build_dir.mkdir(parents=True, exist_ok=True)
    script = build_dir / "exports.map"
    _tooling("builder.ninja").write_if_changed(
        script, "{\n  global: " + " ".join(f"{p};" for p in patterns) + "\n  local: *;\n};\n"
    )
    return f"-Wl,--version-script={script}"


def _blas_build_path() -> list[str]:
    """Bake the build machine's scipy-openblas32 path in as the BLAS loader's fallback."""
    try:
        import scipy_openblas32

        path = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    except Exception:  # optional at build time: the loader searches other places first
        return []
    return [f'-DSDK_BLAS_BUILD_PATH="{path}"'] if os.path.exists(path) else []


CORE_CXXFLAGS += _blas_build_path()


# A sanitized debug build (tests/sanitizers): stop at the first report, keep frames for
# readable stacks, and turn on libstdc++'s bounds checks in the containers the core uses.
# -O0: the dtype-templated kernels build ~3x faster instrumented than at -O1, and nothing
# is optimized away from the checks; the tests run small tensors, so speed hardly matters.
SANITIZE_CXXFLAGS = ["-O0", "-g", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]
SANITIZE_CXXFLAGS += ["-D_GLIBCXX_ASSERTIONS"]


# The core's sources that take longest to compile, longest first (CPU seconds measured by
# `python benchmarks/bench_build.py --first-build`; benchmarks/results/MEASUREMENTS.md; re-ordered
# from per-file user CPU after the kernel files stopped compiling the 100-pair cast copy).
# ninja starts its jobs in the order of build.ninja, so these start first and no long file
# is left running alone at the end of the build while the other cores idle.
CORE_HEAVY_FIRST = (
    "reduce.cpp",
    "elementwise_unary.cpp",
    "elementwise_compare.cpp",
    "elementwise_arith.cpp",
    "sort.cpp",
    "elementwise_copy.cpp",
    "scatter.cpp",
    "linalg.cpp",
    "softmax.cpp",
    "nn.cpp",
    "elementwise_misc.cpp",
    "reduce_dim.cpp",
    "elementwise_division.cpp",
    "index.cpp",
    "scan.cpp",
    "elementwise_ternary.cpp",
)


def core_sources() -> list[Path]:
    """The core library's sources in build order: CORE_HEAVY_FIRST, then the rest by name.
    core/src/cuda/ holds the CUDA backend, a separate library (see build_cuda_backend), but
    for its glue (CUDA_GLUE_SOURCES), which is part of the core."""
    found = sorted(
        p for p in CORE_SRC.glob("**/*.cpp") if "cuda" not in p.relative_to(CORE_SRC).parts
    )
    found += CUDA_GLUE_SOURCES
    # Only an order: a name no longer there never stops a build (tests/core/test_core_build.py
    # keeps the list current).
    heavy = [CORE_SRC / name for name in CORE_HEAVY_FIRST if CORE_SRC / name in found]
    return heavy + [p for p in found if p not in heavy]


def build_core(build_dir: Path, out_lib: Path, verbose: bool = False, sanitize: str = "") -> None:
    """Compile core/src/*.cpp into out_lib with ninja (incremental).

    ``sanitize`` (e.g. ``"address,undefined"``) makes a debug build instrumented with those
    ``-fsanitize=`` checks; give it its own build_dir and out_lib (never sdk/lib), since
    the result needs the sanitizer runtimes preloaded to run.
    """
    sources = core_sources()
    cflags = CORE_CXXFLAGS + [f"-I{CORE_INCLUDE}", f"-I{CORE_SRC}"]
    if os.environ.get("SDK_DEBUG"):
        cflags = [f for f in cflags if f != CORE_OPT_LEVEL] + ["-O0", "-g"]
    ldflags = [*CORE_LDFLAGS, export_only(build_dir, "sdk_*")]
    if sanitize:
        cflags = (
            [f for f in cflags if f != CORE_OPT_LEVEL]
            + SANITIZE_CXXFLAGS
            + [f"-fsanitize={sanitize}"]
        )
        ldflags.append(f"-fsanitize={sanitize}")
    out_lib.parent.mkdir(parents=True, exist_ok=True)
    build_library(build_dir, out_lib, sources, {"cxx": cflags, "ld": ldflags}, verbose=verbose)


def cuda_toolkit():
    """The CUDA toolkit to build the backend with, or None (SDK_WITH_CUDA=0, or none found)."""
    flag = os.environ.get("SDK_WITH_CUDA", "").strip().lower()
    if flag in ("0", "off", "false", "no"):
        return None
    if not flag and not glob.glob("/dev/nvidia[0-9]*"):
        # No GPU to run it on: a first install needs no backend (minutes of nvcc).
        print(
            "note: no GPU here: building without the CUDA backend "
            "(SDK_WITH_CUDA=auto builds it wherever a CUDA toolkit is found)",
            file=sys.stderr,
        )
        return None
    cuda = _tooling("_cuda")
    try:
        return cuda.find_cuda_toolkit()
    except Exception as e:  # BuildError: no toolkit
        if flag in ("1", "on", "true", "yes"):
            raise RuntimeError(f"SDK_WITH_CUDA={flag} but no CUDA toolkit was found: {e}") from None
        print(f"note: building without the CUDA backend ({e})", file=sys.stderr)
        return None


def build_cuda_backend(build_dir: Path, out_lib: Path, toolkit, verbose: bool = False) -> None:
    """Compile core/src/cuda/backend (host .cpp with c++, kernels with nvcc) into out_lib."""
    plan = _tooling("builder.plan")
    flags = plan.compile_flags(
        cxx=_base_flags(hidden=True, warnings=False, extra=["-Wall"]),
        c=[],
        common=[f"-I{CORE_INCLUDE}", f"-I{toolkit.include_dir}"],
        user_nvcc=["-Xcompiler", "-fvisibility=hidden"],
        with_cuda=True,
        nvcc=toolkit.nvcc,
    )
    libdir = toolkit.library_dir
    # cudart: the build's toolkit, else the NVIDIA runtime wheels beside an installed sdk
    rpaths = [
        "$ORIGIN",
        "$ORIGIN/../../nvidia/cu13/lib",
        "$ORIGIN/../../nvidia/cuda_runtime/lib",
        libdir,
    ]
    ldflags = ["-shared", "-pthread", "-ldl", f"-L{libdir}", "-lcudart"]
    ldflags.append(export_only(build_dir, "sdk_cuda_backend_init"))
    ldflags += ["-Wl,--no-undefined", "-Wl,-soname," + CUDA_LIB_NAME]
    flags["ld"] = ldflags + [f"-Wl,-rpath,{r}" for r in rpaths]
    sources = sorted(CUDA_BACKEND_SRC.glob("*.cpp")) + sorted(CUDA_BACKEND_SRC.glob("*.cu"))
    linked = build_dir / CUDA_LIB_NAME
    build_library(build_dir, linked, sources, flags, verbose=verbose)
    out_lib.parent.mkdir(parents=True, exist_ok=True)
    if not out_lib.exists() or out_lib.read_bytes() != linked.read_bytes():
        tmp = out_lib.with_name(f".{out_lib.name}.{os.getpid()}.tmp")
        shutil.copy(linked, tmp)  # keeps the mode
        os.replace(tmp, out_lib)
    write_cuda_version_record(out_lib, toolkit.version)


def write_cuda_version_record(out_lib: Path, version: tuple[int, int]) -> None:
    """libsdk_cuda.version beside the backend: the toolkit release ("12.4") it was built with,
    which the core reads for sdk.version.cuda without loading CUDA (sdk_cuda_build_version)."""
    record = out_lib.with_suffix(".version")
    text = f"{version[0]}.{version[1]}\n"
    if not record.exists() or record.read_text() != text:
        record.write_text(text)


def runtime_deferred() -> bool:
    """SDK_DEFER_PYBIND11_RUNTIME=1: this build leaves out pybind11's runtime object and the
    precompiled header (~19 CPU s beside the core's), and `python -m cpp_extension prepare`
    makes them later. scripts/demo.sh defers them: its first load() builds with -O3, which the
    installed header (default flags) does not fit, so they would only delay its first result."""
    return os.environ.get("SDK_DEFER_PYBIND11_RUNTIME", "") not in ("", "0")


def build_pybind11_runtime(build_dir: Path, lib_dir: Path) -> None:
    """pybind11's per-module runtime compiled once, for the flags load() uses by default
    (cpp_extension/builder/runtime.py): first pybind11 builds link it instead of generating it."""
    why_not = _tooling("builder.runtime").build_installed(str(CORE_INCLUDE), lib_dir, build_dir)
    if why_not:
        print(f"note: no pybind11_runtime.o, first pybind11 builds are slower: {why_not}")


def build_library(
    build_dir: Path,
    out: Path,
    sources: list[Path],
    flags: dict[str, list[str]],
    *,
    verbose: bool = False,
    implicit: tuple[Path, ...] = (),
) -> None:
    """Compile `sources` and link `out` with ninja in build_dir, incrementally (linked again
    also when an `implicit` input changes). The same planner as load() and BuildExtension
    (cpp_extension/builder/plan.py): one object per source, flags per language ("cxx", "cuda"; the
    link's "ld"), CXX and NVCC honoured, no compiler launcher. One ninja per build folder at a
    time (parallel development builds), under the same lock as load()'s builds."""
    plan, ninja, lock = (
        _tooling("builder.plan"),
        _tooling("builder.ninja"),
        _tooling("builder.lock"),
    )
    build_dir.mkdir(parents=True, exist_ok=True)
    names = [str(p) for p in sources]
    if not names:
        raise RuntimeError(f"no sources to build {out.name} from")
    toolchain = plan.Toolchain(plan.languages(names), launcher=[])
    graph = toolchain.graph(build_dir)
    target = plan.Target(str(out), names, build_dir, flags, implicit=[str(p) for p in implicit])
    plan.add_target(graph, target, toolchain.cxx)
    ninja.write_if_changed(build_dir / "build.ninja", ninja.render(graph))
    jobs = _tooling("builder.toolchain").default_jobs()
    with lock.file_lock(build_dir, exclusive=True):
        code, log = ninja.run(build_dir, jobs, verbose, out.name)
    (build_dir / "build.log").write_text(log)
    if code != 0:
        sys.stderr.write(log)
        raise RuntimeError(f"building {out.name} failed: the log is above and in {build_dir}")


def copy_headers(dest: Path) -> None:
    """Install the public headers inside the package (sdk/include/sdk/*.h)."""
    target = dest / "sdk"
    target.mkdir(parents=True, exist_ok=True)
    for header in (CORE_INCLUDE / "sdk").glob("*.h"):
        out = target / header.name
        if not out.exists() or out.read_bytes() != header.read_bytes():
            shutil.copyfile(header, out)


class BuildWithCore(build_ext):
    """build_ext that builds the core library and headers into the package, and sdk._C.

    The binding's objects need only the core's headers, so they compile while the core does
    (a thread runs the core's build); only the binding's link waits for libsdk_core.so. One
    after the other, the binding's ~21 CPU seconds were ~11 s of a first build's ~2 minutes
    on 2 cores (benchmarks/results/MEASUREMENTS.md, "First build of the core")."""

    def run(self) -> None:
        if self.inplace:
            pkg_dir = ROOT / "sdk"
        else:
            # absolute: ninja runs in its own folder (-C), where a relative path would land
            pkg_dir = Path(self.build_lib).resolve() / "sdk"
        builder = ThreadPoolExecutor(1, thread_name_prefix="sdk-core-build")
        self._core = builder.submit(self._build_core, pkg_dir)
        hide = _tooling("builder.toolchain").HIDE_STATIC_LIBS  # as for extensions (see there)
        for ext in self.extensions:
            ext.library_dirs.append(str(pkg_dir / "lib"))
            if hide not in ext.extra_link_args:
                ext.extra_link_args.append(hide)
        _progress("sdk._C, the Python binding (its objects beside the core's)")
        try:
            super().run()
        finally:
            builder.shutdown()  # a failed binding compile still lets the core's build end
        self._core.result()  # the core's failure, if any (the binding had nothing to link)

    def _build_core(self, pkg_dir: Path) -> None:
        """The core, the CUDA backend, the headers, pybind11's runtime object and header
        (unless deferred: see runtime_deferred)."""
        tag = f"{sys.implementation.cache_tag}-{sysconfig.get_platform()}"
        # one compile beside the core's many: a thread waits for it
        runtime = threading.Thread(
            target=build_pybind11_runtime,
            args=(ROOT / "build" / f"pybind11-runtime-{tag}", pkg_dir / "lib"),
        )
        if runtime_deferred():
            _progress(
                "pybind11's runtime object and precompiled header deferred "
                "(SDK_DEFER_PYBIND11_RUNTIME): `python -m cpp_extension prepare` makes them"
            )
        else:
            runtime.start()
        _progress("the core library, core/src -> sdk/lib/libsdk_core.so")
        try:
            build_core(
                ROOT / "build" / f"core-{tag}",
                pkg_dir / "lib" / CORE_LIB_NAME,
                verbose=bool(self.verbose > 1),
            )
            toolkit = cuda_toolkit()
            if toolkit is not None:
                # one folder per arch list: switching SDK_CUDA_ARCH_LIST never rebuilds the other
                archs = os.environ.get("SDK_CUDA_ARCH_LIST") or os.environ.get(
                    "TORCH_CUDA_ARCH_LIST"
                )
                key = hashlib.sha1((archs or "default").encode()).hexdigest()[:8]
                _progress(f"the CUDA backend (nvcc, archs: {archs or 'default'}) -> libsdk_cuda.so")
                build_cuda_backend(
                    ROOT / "build" / f"cuda-{tag}-{key}",
                    pkg_dir / "lib" / CUDA_LIB_NAME,
                    toolkit,
                    verbose=bool(self.verbose > 1),
                )
            copy_headers(pkg_dir / "include")
        finally:
            if runtime.is_alive():
                _progress("waiting for pybind11's runtime object and the precompiled header")
            if runtime.ident is not None:  # started
                runtime.join()

    def build_extension(self, ext) -> None:
        _compile_in_parallel(self.compiler)
        link = self.compiler.link_shared_object

        def link_after_core(*args, **kwargs):
            self._core.result()  # the binding links against libsdk_core.so
            return link(*args, **kwargs)

        self.compiler.link_shared_object = link_after_core
        try:
            super().build_extension(ext)
        finally:
            self.compiler.link_shared_object = link


def _progress(step: str) -> None:
    """One line per build step, shown by scripts/_venv.sh while pip runs (pip -v)."""
    print(f"sdk build: {step}", file=sys.stderr, flush=True)


def _compile_in_parallel(compiler) -> None:
    """Make `compiler.compile` (setuptools' CCompiler) compile its sources in parallel
    (MAX_JOBS, else one per core): setuptools compiles one extension's files one by one."""
    if getattr(compiler, "_sdk_parallel", False):
        return
    jobs = int(os.environ.get("MAX_JOBS") or os.cpu_count() or 1)

    def compile(sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                extra_preargs=None, extra_postargs=None, depends=None):  # fmt: skip
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs
        )
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)
        todo = [obj for obj in objects if obj in build]

        def one(obj):
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(max(1, min(jobs, len(todo)))) as pool:
            list(pool.map(one, todo))  # list(): re-raises the first failure
        return objects

    compiler.compile = compile
    compiler._sdk_parallel = True


TEMPLATES = ROOT / "templates"
TEMPLATES_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


class BuildPyWithTemplates(build_py):
    """build_py that also ships the project templates (templates/, dotfiles included) as
    cpp_extension/templates/, where `python -m cpp_extension new` finds them once installed.
    Editable installs skip this: cpp_extension finds the repo's templates/ next to itself."""

    def _templates_dest(self) -> Path:
        return Path(self.build_lib) / "cpp_extension" / "templates"

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or not TEMPLATES.is_dir():
            return
        dest = self._templates_dest()
        if dest.exists():
            shutil.rmtree(dest)  # files deleted from templates/ must not linger in the build
        shutil.copytree(TEMPLATES, dest, ignore=TEMPLATES_IGNORE)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        dest = self._templates_dest()
        if dest.is_dir():
            outputs += [str(p) for p in sorted(dest.rglob("*")) if p.is_file()]
        return outputs


binding = Extension(
    "sdk._C",
    sources=sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sdk" / "csrc").glob("*.cpp")),
    include_dirs=[str(CORE_INCLUDE)],
    libraries=["sdk_core"],
    runtime_library_dirs=["$ORIGIN/lib"],
    extra_compile_args=_base_flags(opt="-O3", pic=False, hidden=True, warnings=False),
    language="c++",
)

# Guarded so that tools (tests/sanitizers) can import build_core from this file; pip,
# setuptools' build backend and `python setup.py` all run it as __main__.
if __name__ == "__main__":
    setup(
        ext_modules=[binding],
        cmdclass={"build_ext": BuildWithCore, "build_py": BuildPyWithTemplates},
    )
