"""Build planning, shared by load(), BuildExtension and the package's own setup.py.

Each front end reduces what it is given (a load() request, setuptools Extensions, the
core's sources) to a Toolchain and Targets; this module turns them into one ninja graph
(_ninja.BuildPlan), which _ninja renders and runs:

- Toolchain: the compilers of one build, resolved once (argv per language, the compiler
  launcher, each compiler's identity);
- language(): which compiler a source goes to; object_paths(): one unique object per source;
- compile_flags() / link_flags(): the flag lists, ours first and the user's last;
- add_target(): the compile steps, CUDA's device link (relocatable device code) and the link.

Nothing here runs a compiler or touches the cache: load()'s locking, retries and publishing
are in jit.py, BuildExtension's setuptools glue in cpp_extension/_setuptools.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# by name, not `from . import`: setup.py loads these files without the package (see there)
from .ninja import BuildPlan, CompileStep, LinkStep
from .toolchain import (
    GCC_SPEED_ARGS,
    HIDE_STATIC_LIBS,
    choose_launcher,
    compiler_command,
    compiler_identity,
    is_gcc,
    note_lto_failure,
    split_codegen_jobs,
)

CUDA_SUFFIXES = (".cu", ".cuh")
C_SUFFIXES = (".c",)
# listed among the sources for completeness (as setuptools allows): nothing to compile
HEADER_SUFFIXES = (".cuh",)


def language(path: str) -> str:
    """The compiler a source goes to: "cuda" (nvcc), "c" or "cxx"."""
    if path.endswith(CUDA_SUFFIXES):
        return "cuda"
    if path.endswith(C_SUFFIXES):
        return "c"
    return "cxx"


def languages(sources: Iterable[str], with_cuda: bool = True) -> set[str]:
    """The languages a build needs: those of the sources it compiles, and C++, which links."""
    langs = {language(p) for p in sources if not p.endswith(HEADER_SUFFIXES)} | {"cxx"}
    if not with_cuda:
        langs.discard("cuda")
    return langs


def object_paths(sources: Sequence[str], objdir: Path) -> list[tuple[str, str, str]]:
    """(source, object, language) for each source to compile, with object names unique in
    `objdir`: <stem>.o, <stem>.cuda.o for CUDA, <stem>_<n>.o when a stem repeats."""
    used: set[str] = set()
    result = []
    for src in sources:
        if src.endswith(HEADER_SUFFIXES):
            continue
        lang = language(src)
        stem = os.path.splitext(os.path.basename(src))[0]
        obj = f"{stem}.cuda.o" if lang == "cuda" else f"{stem}.o"
        n = 1
        while obj in used:
            obj, n = f"{stem}_{n}.o", n + 1
        used.add(obj)
        result.append((src, str(objdir / obj), lang))
    return result


class Toolchain:
    """The compilers of one build, resolved once: argv per language (CXX, CC and NVCC
    honoured), the compiler launcher (ccache/sccache, see _toolchain.choose_launcher)
    and each compiler's identity, remembered in `identities` (a toolchains.json; None:
    nothing is probed, so nothing that depends on the identity is used). A `launcher`
    given here counts as named by the user unless `launcher_named` says otherwise."""

    def __init__(
        self,
        langs: Iterable[str],
        *,
        identities: Path | None = None,
        launcher: Sequence[str] | None = None,
        launcher_named: bool = True,
    ) -> None:
        self.compilers = {lang: compiler_command(lang) for lang in sorted(langs)}
        if launcher is None:
            launcher, launcher_named = choose_launcher()
        self.launcher = list(launcher)
        self.launcher_named = launcher_named
        self.identities = identities
        self._identity: dict[str, str] = {}

    @property
    def fast_path_launcher(self) -> list[str]:
        """The launcher that turns the precompiled header and split code generation off:
        one the user named. One found on PATH gives way to them (see give_way)."""
        return self.launcher if self.launcher_named else []

    def give_way(self, plan: BuildPlan) -> None:
        """Take a launcher found on PATH out of `plan`'s compilers, for a build that uses
        the precompiled header or split code generation: it could not cache those compiles
        (see _toolchain.choose_launcher). A launcher the user named stays."""
        n = len(self.launcher)
        if self.launcher_named or not n:
            return
        for lang, argv in plan.compilers.items():
            if lang != "cuda" and argv[:n] == self.launcher:
                plan.compilers[lang] = argv[n:]

    @property
    def cxx(self) -> list[str]:
        return self.compilers["cxx"]

    @property
    def nvcc(self) -> str | None:
        return self.compilers["cuda"][0] if "cuda" in self.compilers else None

    def identity(self, lang: str = "cxx") -> str:
        """`<compiler> --version` with its path (see _toolchain.compiler_identity)."""
        if lang not in self._identity:
            if self.identities is None:
                raise ValueError("this toolchain was resolved without an identities file")
            argv = self.compilers[lang]
            self._identity[lang] = compiler_identity(argv, self.identities)
        return self._identity[lang]

    def speed_args(self, lang: str = "cxx") -> list[str]:
        """Arguments that make this compiler faster without changing its output."""
        if self.identities is None or lang == "cuda":
            return []
        return GCC_SPEED_ARGS if is_gcc(self.identity(lang)) else []

    def split_codegen_jobs(self, cxx_flags: list[str], cxx_sources: int, jobs: int) -> int:
        """Processes for link-time code generation, or 0 (see _toolchain.split_codegen_jobs)."""
        if self.identities is None:
            return 0
        return split_codegen_jobs(
            self.cxx, self.identities, self.fast_path_launcher, cxx_flags, cxx_sources, jobs,
            ident=self.identity(),
        )  # fmt: skip

    def note_lto_failure(self, reason: str) -> None:
        if self.identities is not None:
            note_lto_failure(self.cxx, self.identities, reason)

    def graph(self, build_dir: Path) -> BuildPlan:
        """An empty ninja graph with these compilers: C and C++ behind the launcher, with
        the speed arguments when the identities are known; nvcc as it is."""
        compilers = {}
        for lang, argv in self.compilers.items():
            if lang != "cuda":
                argv = [*self.launcher, *argv, *self.speed_args(lang)]
            compilers[lang] = argv
        return BuildPlan(build_dir, compilers)


def compile_flags(
    *,
    cxx: Sequence[str],
    c: Sequence[str],
    common: Sequence[str],
    user_cxx: Sequence[str] = (),
    user_nvcc: Sequence[str] = (),
    with_cuda: bool = False,
    rdc: bool = False,
    nvcc: str | None = None,
) -> dict[str, list[str]]:
    """Compile flags per language: the language's own (`cxx`, `c`), then `common` (defines,
    include folders), then the user's, which come last so that they win. C gets the user's
    C++ flags less -std=c++NN; nvcc gets `common` less -fPIC (its host flags carry it), the
    archs, -ccbin and -rdc (see _cuda.nvcc_flags)."""
    flags = {
        "cxx": [*cxx, *common, *user_cxx],
        "c": [*c, *common, *(f for f in user_cxx if not f.startswith("-std=c++"))],
        "cuda": [],
    }
    if with_cuda:
        from .._cuda import nvcc_flags

        device = [*(f for f in common if f != "-fPIC"), *user_nvcc]
        flags["cuda"] = nvcc_flags(device, nvcc=nvcc, rdc=rdc)
    return flags


def link_flags(
    *,
    shared: bool = True,
    objects: Iterable[str] = (),
    library_dirs: Iterable[str] = (),
    libraries: Iterable[str] = (),
    rpaths: Iterable[str] = (),
    extra: Iterable[str] = (),
) -> list[str]:
    """The link line after the compiled objects: prebuilt `objects` (archives too) before
    the libraries; `extra` (the user's) last. A shared library keeps the symbols of static
    archives inside (see _toolchain.HIDE_STATIC_LIBS)."""
    ld = ["-shared", HIDE_STATIC_LIBS] if shared else []
    ld += list(objects)
    ld += [f"-L{d}" for d in library_dirs]
    ld += [f"-l{lib}" for lib in libraries]
    ld += [f"-Wl,-rpath,{d}" for d in rpaths]
    return ld + list(extra)


# Compile flags that turn OpenMP on (gcc and clang, Intel); the same flag links its runtime.
_OPENMP_FLAGS = ("-fopenmp", "-qopenmp", "-openmp")


def _is_openmp(flag: str) -> bool:
    return flag in _OPENMP_FLAGS or flag.startswith(("-fopenmp=", "-qopenmp="))


def openmp_link_args(flags: dict[str, list[str]]) -> list[str]:
    """The link flags OpenMP needs when only the compile flags ask for it.

    `extra_compile_args={"cxx": ["-fopenmp"]}` alone links under torch because libtorch has
    already loaded the OpenMP runtime; here nothing has, and the import fails on an undefined
    GOMP_ symbol. So the first OpenMP flag of the C/C++ flags (or one nvcc hands to the host
    compiler with -Xcompiler) is passed to the link too: the linker is the C++ compiler, and
    the flag makes it link its own runtime."""
    for lang in ("cxx", "c"):
        for flag in flags.get(lang, []):
            if _is_openmp(flag):
                return [flag]
    cuda = flags.get("cuda", [])
    for i in range(len(cuda)):
        for part in _host_flags(cuda, i):
            if _is_openmp(part):
                return [part]
    return []


def _host_flags(cuda: list[str], i: int) -> list[str]:
    """The host compiler flags nvcc's flag `i` passes on: `-Xcompiler A,B`,
    `-Xcompiler=A`, `--compiler-options A` (else none)."""
    flag = cuda[i]
    for opt in ("-Xcompiler", "--compiler-options"):
        if flag == opt and i + 1 < len(cuda):
            return cuda[i + 1].split(",")
        if flag.startswith(opt + "="):
            return flag[len(opt) + 1 :].split(",")
    return []


@dataclass
class Target:
    """One library (or program) to build: its sources, where their objects go, and its
    flags per language ("cxx", "c", "cuda") and for the link ("ld")."""

    output: str
    sources: list[str]
    objdir: Path
    flags: dict[str, list[str]]
    dlink: bool = False  # relocatable device code: nvcc links the device parts first
    dlink_libraries: list[str] = field(default_factory=list)
    implicit: list[str] = field(default_factory=list)  # link again when these change


def add_target(graph: BuildPlan, target: Target, linker: list[str]) -> LinkStep:
    """Add the compile steps of `target`, its device link and its link (run by `linker`,
    the C++ compiler without a launcher) to `graph`; returns the link step, for callers
    that adjust it."""
    objects = []
    cuda_objects = []
    for src, obj, lang in object_paths(target.sources, target.objdir):
        graph.compiles.append(CompileStep(src, obj, lang, target.flags[lang]))
        objects.append(obj)
        if lang == "cuda":
            cuda_objects.append(obj)
    if target.dlink and cuda_objects:
        from .._cuda import dlink_flags

        dlinked = str(target.objdir / "dlink.o")
        device = ["-dlink", *dlink_flags(target.flags["cuda"]), "-Xcompiler", "-fPIC"]
        device += [f"-l{lib}" for lib in target.dlink_libraries]
        graph.links.append(LinkStep(dlinked, cuda_objects, device, graph.compilers["cuda"]))
        objects.append(dlinked)
    link = LinkStep(target.output, objects, target.flags["ld"], linker, target.implicit)
    graph.links.append(link)
    return link
