"""Fixtures for the CUDA tests: skips for a missing toolkit or GPU, one-arch builds, caches."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests import _support
from tests._support import REPO, subprocess_env  # noqa: F401  (used by the tests)


def toolkit_or_none():
    from cpp_extension import _cuda
    from cpp_extension._errors import BuildError

    try:
        return _cuda.find_cuda_toolkit()
    except BuildError:
        return None


def require_nvcc():
    tk = toolkit_or_none()
    if tk is None:
        pytest.skip("nvcc not found: no CUDA toolkit (set CUDA_HOME or put nvcc on PATH)")
    return tk


def gpu_available() -> bool:
    try:
        import sdk.cuda

        return sdk.cuda.is_available()
    except Exception:
        return False


GPU_VISIBLE = gpu_available()  # asked once per test process
requires_gpu = pytest.mark.skipif(not GPU_VISIBLE, reason="no CUDA GPU visible")


def _test_arch() -> str:
    """One architecture keeps every nvcc test build to a few seconds: the visible GPU's, so
    the kernels the GPU tests build run there (sm_80 code does not run on sm_90), else 8.0."""
    if GPU_VISIBLE:
        import sdk.cuda

        major, minor = sdk.cuda.get_device_capability(0)
        return f"{major}.{minor}"
    return "8.0"


TEST_ARCH = _test_arch()


@pytest.fixture
def cuda_env(tmp_path, monkeypatch):
    """A private JIT cache, one arch, two jobs; seen by subprocesses too."""
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "ext_cache"))
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", TEST_ARCH)
    monkeypatch.setenv("MAX_JOBS", "2")
    return tmp_path


def run_python(code: str, *, cwd: Path | None = None, timeout: float = 600, **env: str):
    """Run `code` in a fresh interpreter with the package under test; returns CompletedProcess."""
    return _support.run_python(code, cwd=cwd, timeout=timeout, **env)


def build_fake_backend(out_dir: Path) -> Path:
    """Compile the host-memory stand-in backend (fake_backend.cpp) into out_dir; skip the
    test when no CUDA toolkit (its half-precision headers) is found."""
    tk = toolkit_or_none()
    if tk is None:
        pytest.skip("the stand-in backend uses the CUDA toolkit's half-precision headers")
    out = Path(out_dir) / "libfake_cuda.so"
    cmd = [
        "c++",
        "-std=c++17",
        "-O1",
        "-shared",
        "-fPIC",
        f"-I{REPO / 'core' / 'src'}",
        f"-I{REPO / 'core' / 'include'}",
        f"-I{tk.include_dir}",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_backend.cpp"),
        "-o",
        str(out),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out
