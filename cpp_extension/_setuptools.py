"""setuptools helpers: CppExtension/CUDAExtension and BuildExtension (parallel builds with ninja)."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from setuptools import Extension
from setuptools.command.build_ext import build_ext

from . import _cuda
from ._errors import format_build_failure
from .builder import ninja as _ninja
from .builder import plan as _plan
from .builder import toolchain as _toolchain


def _origin_relative(ext_name: str, folder: str) -> str:
    """`folder` (relative to site-packages) as seen from the module `ext_name` installed there."""
    return "$ORIGIN/" + "../" * ext_name.count(".") + folder


def _local_rpaths(ext: Extension) -> list[str]:
    """The absolute rpaths CppExtension/CUDAExtension added for this machine (the SDK's and
    the CUDA toolkit's library folders)."""
    return list(getattr(ext, "sdk_local_rpaths", []))


def CppExtension(name: str, sources: list[str], *args, **kwargs) -> Extension:
    """A setuptools.Extension for C++ built against the sdk core (headers, library, rpath)."""
    paths = _toolchain.sdk_paths()
    include_dirs = list(kwargs.get("include_dirs") or [])
    include_dirs.append(paths.include_dir)
    try:
        import pybind11

        include_dirs.append(pybind11.get_include())
    except ImportError:
        pass
    kwargs["include_dirs"] = include_dirs
    kwargs["library_dirs"] = list(kwargs.get("library_dirs") or []) + [paths.library_dir]
    kwargs["libraries"] = list(kwargs.get("libraries") or []) + ["sdk_core"]
    # With `pip install`, the module lands in the same site-packages as sdk, so an $ORIGIN path
    # finds the core wherever the environment is. The absolute folder serves in-place and
    # editable builds only; wheels leave it out (BuildExtension), as it names this machine.
    kwargs["runtime_library_dirs"] = list(kwargs.get("runtime_library_dirs") or []) + [
        _origin_relative(name, "sdk/lib"),
        paths.library_dir,
    ]
    kwargs["language"] = "c++"
    ext = Extension(name, sources, *args, **kwargs)
    ext.sdk_local_rpaths = [paths.library_dir]
    return ext


def CUDAExtension(name: str, sources: list[str], *args, **kwargs) -> Extension:
    """CppExtension plus CUDA: the toolkit's include and library folders, cudart and an
    rpath; .cu files go to nvcc with the arch flags of SDK_CUDA_ARCH_LIST (see docs/CUDA.md).

    dlink=True compiles device code relocatable (-rdc=true) and adds the device-link step
    (nvcc -dlink, with cudadevrt); dlink_libraries are extra libraries for that step.
    """
    dlink = bool(kwargs.pop("dlink", False))
    dlink_libraries = list(kwargs.pop("dlink_libraries", None) or [])
    toolkit = _cuda.find_cuda_toolkit()
    kwargs["include_dirs"] = list(kwargs.get("include_dirs") or []) + [toolkit.include_dir]
    kwargs["library_dirs"] = list(kwargs.get("library_dirs") or []) + [toolkit.library_dir]
    libraries = ["cudadevrt", "cudart"] if dlink else ["cudart"]
    kwargs["libraries"] = list(kwargs.get("libraries") or []) + libraries
    # cudart from the nvidia-* wheels beside sdk when installed, else the toolkit's (local)
    kwargs["runtime_library_dirs"] = list(kwargs.get("runtime_library_dirs") or []) + [
        *(_origin_relative(name, f"nvidia/{d}/lib") for d in ("cu13", "cuda_runtime")),
        toolkit.library_dir,
    ]
    ext = CppExtension(name, sources, *args, **kwargs)
    ext.sdk_local_rpaths.append(toolkit.library_dir)
    ext.dlink = dlink
    ext.dlink_libraries = dlink_libraries
    return ext


class BuildExtension(build_ext):
    """build_ext that compiles every source of every extension in parallel with ninja.

    Options: no_python_abi_suffix (name.so instead of name.cpython-3xx-...so),
    use_ninja (False falls back to setuptools' serial build). extra_compile_args
    may be a list or {"cxx": [...], "nvcc": [...]}; user flags come after ours.
    """

    @classmethod
    def with_options(cls, **options):
        """A subclass with preset options, for cmdclass={"build_ext": ...}."""

        class BuildExtensionWithOptions(cls):
            def __init__(self, *args, **kwargs):
                kwargs.update(options)
                super().__init__(*args, **kwargs)

        return BuildExtensionWithOptions

    def __init__(self, *args, **kwargs) -> None:
        self.no_python_abi_suffix = kwargs.pop("no_python_abi_suffix", False)
        self.use_ninja = kwargs.pop("use_ninja", True)
        super().__init__(*args, **kwargs)

    def get_ext_filename(self, ext_name: str) -> str:
        filename = super().get_ext_filename(ext_name)
        if self.no_python_abi_suffix:
            suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
            if filename.endswith(suffix):
                filename = filename[: -len(suffix)] + ".so"
        return filename

    def run(self) -> None:
        # setuptools clears `inplace` while it builds (it copies the modules into the source
        # tree afterwards): remember it here, where it still says what was asked for.
        self._keeps_local_rpaths = bool(self.inplace or getattr(self, "editable_mode", False))
        super().run()

    def build_extensions(self) -> None:
        # A wheel or an install: RUNPATH holds $ORIGIN-relative paths only. In place and
        # editable: the build machine's sdk/lib too, so the module imports before `import sdk`.
        if not getattr(self, "_keeps_local_rpaths", self.inplace):
            for ext in self.extensions:
                local = _local_rpaths(ext)
                ext.runtime_library_dirs = [d for d in ext.runtime_library_dirs if d not in local]
        if not self.use_ninja:
            for ext in self.extensions:
                self._split_flags_for_setuptools(ext)
            super().build_extensions()
            return
        self.check_extensions_list(self.extensions)
        build_dir = Path(self.build_temp).resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        sources = [s for e in self.extensions for s in e.sources]
        # compiler identities remembered beside the objects: the speed arguments need them
        identities = build_dir / _toolchain.TOOLCHAINS_FILE_NAME
        toolchain = _plan.Toolchain(_plan.languages(sources), identities=identities)
        graph = toolchain.graph(build_dir)
        for ext in self.extensions:
            _plan.add_target(graph, self._target(ext, build_dir, toolchain), toolchain.cxx)
        _ninja.write_if_changed(build_dir / "build.ninja", _ninja.render(graph))
        verbose = bool(self.verbose) and self.verbose > 1
        code, log = _ninja.run(build_dir, _toolchain.default_jobs(), verbose, "extensions")
        log_path = build_dir / "build.log"
        log_path.write_text(log)
        if code != 0:
            names = ", ".join(e.name for e in self.extensions)
            raise format_build_failure(names, log, str(build_dir), str(log_path))

    def _target(self, ext: Extension, build_dir: Path, toolchain: _plan.Toolchain) -> _plan.Target:
        """The build of one Extension: its flags from the Extension's fields and the
        command's options, its objects in build_temp/<name>, its output where setuptools
        puts it."""
        out = Path(self.get_ext_fullpath(ext.name)).resolve()
        out.parent.mkdir(parents=True, exist_ok=True)
        objdir = build_dir / ext.name
        objdir.mkdir(parents=True, exist_ok=True)
        user = ext.extra_compile_args or []
        if isinstance(user, dict):
            user_cxx, user_nvcc = list(user.get("cxx", [])), list(user.get("nvcc", []))
        else:
            user_cxx, user_nvcc = list(user), []
        incs = [f"-I{os.path.abspath(d)}" for d in list(ext.include_dirs) + list(self.include_dirs)]
        macros = []
        for macro in ext.define_macros:
            name, value = macro[0], macro[1] if len(macro) > 1 else None
            macros.append(f"-D{name}" if value is None else f"-D{name}={value}")
        macros += [f"-U{m}" for m in ext.undef_macros]
        short = ext.name.split(".")[-1]
        dlink = bool(getattr(ext, "dlink", False))
        flags = _plan.compile_flags(
            # -O2 and -fPIC are in `common`, which nvcc gets too
            cxx=_toolchain.base_flags(opt=None, pic=False, hidden=True),
            c=_toolchain.base_flags("c", opt=None, pic=False),
            common=["-fPIC", "-O2", "-DNDEBUG", f"-DSDK_EXTENSION_NAME={short}", *incs, *macros],
            user_cxx=user_cxx,
            user_nvcc=user_nvcc,
            with_cuda=any(_plan.language(s) == "cuda" for s in ext.sources),
            rdc=dlink,
            nvcc=toolchain.nvcc,
        )
        flags["ld"] = _plan.link_flags(
            objects=[os.path.abspath(o) for o in ext.extra_objects],
            library_dirs=list(ext.library_dirs) + list(self.library_dirs or []),
            libraries=list(ext.libraries) + list(self.libraries or []),
            rpaths=ext.runtime_library_dirs,
            extra=[*(ext.extra_link_args or []), *_plan.openmp_link_args(flags)],
        )
        sources = [os.path.abspath(s) for s in ext.sources]
        libraries = list(getattr(ext, "dlink_libraries", []))
        return _plan.Target(
            str(out), sources, objdir, flags, dlink=dlink, dlink_libraries=libraries
        )

    @staticmethod
    def _split_flags_for_setuptools(ext: Extension) -> None:
        args = ext.extra_compile_args or []
        if isinstance(args, dict):
            args = args.get("cxx", [])
        ext.extra_compile_args = [*_toolchain.WARNING_FLAGS, *args]  # the user's still win
