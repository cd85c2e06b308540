"""Build C++/CUDA extensions against the sdk core: setuptools helpers and JIT load().

Layering rule: cpp_extension may import sdk, never the reverse.

The public names and argument names follow torch.utils.cpp_extension, so a
torch extension's setup.py or load() call ports by changing the import.
Importing this package is light (no setuptools, no compiler): setuptools is
imported only when CppExtension / BuildExtension are used.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from . import _remote  # noqa: F401  (makes what load() returns picklable; see _remote)
from ._errors import BuildError, CacheError
from ._jit import load, load_inline, load_library
from .builder.jit import last_load_info

__all__ = [
    "AnyPythonWheel",
    "CUDA_HOME",
    "CUDNN_HOME",
    "ROCM_HOME",
    "HIP_HOME",
    "ROCM_VERSION",
    "IS_HIP_EXTENSION",
    "IS_LINUX",
    "IS_MACOS",
    "IS_WINDOWS",
    "LIB_EXT",
    "CLIB_EXT",
    "CLIB_PREFIX",
    "EXEC_EXT",
    "SHARED_FLAG",
    "COMMON_NVCC_FLAGS",
    "CacheError",
    "BuildError",
    "BuildExtension",
    "CppExtension",
    "CUDAExtension",
    "get_cxx_compiler",
    "get_default_build_root",
    "include_paths",
    "is_ninja_available",
    "last_load_info",
    "library_paths",
    "load",
    "load_inline",
    "load_library",
    "verify_ninja_availability",
]

_LAZY = {"BuildExtension", "CppExtension", "CUDAExtension", "CUDA_HOME"}

# torch's: setup.py files test these to decide what to build. No ROCm/HIP support here.
ROCM_HOME = None
HIP_HOME = None
ROCM_VERSION = None
IS_HIP_EXTENSION = False
CUDNN_HOME = os.environ.get("CUDNN_HOME") or os.environ.get("CUDNN_PATH")
# the platform and its file names, with torch's names (setup.py files name outputs with them)
IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")
IS_LINUX = sys.platform.startswith("linux")
LIB_EXT = ".pyd" if IS_WINDOWS else ".so"
CLIB_EXT = ".dll" if IS_WINDOWS else ".dylib" if IS_MACOS else ".so"
CLIB_PREFIX = "" if IS_WINDOWS else "lib"
EXEC_EXT = ".exe" if IS_WINDOWS else ""
SHARED_FLAG = "/DLL" if IS_WINDOWS else "-shared"


def __getattr__(name: str) -> Any:
    if name == "CUDA_HOME":  # looked up on first use (it may run nvcc to find the toolkit)
        from ._cuda import find_cuda_toolkit
        from ._errors import BuildError

        try:
            home: str | None = find_cuda_toolkit().root
        except BuildError:
            home = None
        globals()["CUDA_HOME"] = home
        return home
    if name == "COMMON_NVCC_FLAGS":  # a copy: setup.py files extend it
        from ._cuda import COMMON_NVCC_FLAGS

        return list(COMMON_NVCC_FLAGS)
    if name == "TORCH_LIB_PATH":  # torch's name for the framework's library folder
        return library_paths()[0]
    if name == "AnyPythonWheel":  # bdist_wheel tagged py3-none-<platform> (see _wheel)
        from . import _wheel

        return _wheel.AnyPythonWheel
    if name in _LAZY:
        from . import _setuptools

        return getattr(_setuptools, name)
    raise AttributeError(f"module 'cpp_extension' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(
        set(globals()) | _LAZY | {"AnyPythonWheel", "COMMON_NVCC_FLAGS", "TORCH_LIB_PATH"}
    )


def _device_cuda(fn: str, device_type: Any, cuda: bool) -> bool:
    """Whether `device_type` (torch's first parameter; a bool in torch < 2.5, which took
    `cuda` there) asks for CUDA's folders."""
    if isinstance(device_type, bool):
        return device_type or cuda
    if device_type not in ("cpu", "cuda"):
        raise ValueError(f"{fn}: device_type {device_type!r} is not supported ('cpu' or 'cuda')")
    return cuda or device_type == "cuda"


def include_paths(
    device_type: str = "cpu", torch_include_dirs: bool = True, *, cuda: bool = False
) -> list[str]:
    """Include folders for extensions: the sdk headers (torch_include_dirs: torch's name for
    the framework's own) and CUDA's for device_type="cuda"."""
    from .builder.toolchain import cuda_home, sdk_paths

    paths = [sdk_paths().include_dir] if torch_include_dirs else []
    if _device_cuda("include_paths", device_type, cuda):
        paths.append(os.path.join(cuda_home(), "include"))
    return paths


def library_paths(
    device_type: str = "cpu",
    torch_include_dirs: bool = True,
    cross_target_platform: str | None = None,
    *,
    cuda: bool = False,
) -> list[str]:
    """Library folders for extensions: the sdk core's and CUDA's for device_type="cuda"."""
    from .builder.toolchain import cuda_home, cuda_library_dir, sdk_paths

    if cross_target_platform is not None:
        raise ValueError(
            f"library_paths: cross_target_platform {cross_target_platform!r} is not supported"
        )
    paths = [sdk_paths().library_dir] if torch_include_dirs else []
    if _device_cuda("library_paths", device_type, cuda):
        paths.append(cuda_library_dir(cuda_home()))
    return paths


def load_ipython_extension(ipython) -> None:
    """`%load_ext cpp_extension`: registers the `%%cpp_extension` cell magic (see _ipython)."""
    from ._ipython import load_ipython_extension as register

    register(ipython)


def _get_build_directory(name: str, verbose: bool) -> str:
    """The folder load(name, ...) builds in (created): torch's private helper, which setup
    scripts and tests call to find or clear a JIT build."""
    from .builder.cache import default_build_dir
    from .builder.toolchain import sdk_paths

    folder = default_build_dir(name, sdk_paths().abi[0])
    if verbose:
        print(f"Using {folder} as the extension build directory for {name}")
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


def get_cxx_compiler() -> str:
    """The C++ compiler extensions build with ($CXX, else c++), as torch's."""
    from .builder.toolchain import compiler_command

    return compiler_command("cxx")[0]


def get_default_build_root() -> str:
    """Where JIT builds are cached: $SDK_EXTENSIONS_DIR or <cache dir>/sdk_extensions."""
    from .builder.cache import extensions_root

    return str(extensions_root())


def is_ninja_available() -> bool:
    """Always true when the SDK is installed (ninja is a dependency); kept for torch users."""
    try:
        from .builder.toolchain import ninja_executable

        ninja_executable()
        return True
    except BuildError:
        return False


def verify_ninja_availability() -> None:
    """Raise BuildError (explaining the fix) if ninja is missing."""
    from .builder.toolchain import ninja_executable

    ninja_executable()
