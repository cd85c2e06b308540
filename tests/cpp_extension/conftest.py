"""Fixtures for cpp_extension tests: a private JIT cache per test, subprocess helpers, skips."""

from __future__ import annotations

import os

import pytest

from tests import _support
from tests._support import REPO, subprocess_env  # noqa: F401  (used by the tests)


@pytest.fixture
def ext_dir(tmp_path, monkeypatch):
    """A fresh SDK_EXTENSIONS_DIR (also seen by subprocesses through os.environ)."""
    root = tmp_path / "ext_cache"
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(root))
    monkeypatch.setenv("MAX_JOBS", "2")
    monkeypatch.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")  # count real compiler runs
    return root


def run_python(code: str, *, timeout: float = 300, check: bool = True, **env: str):
    """Run `code` in a fresh interpreter with the package under test; returns CompletedProcess."""
    return _support.run_python(code, timeout=timeout, check=check, **env)


def _core_symbols() -> set[str]:
    from cpp_extension.builder import toolchain as _toolchain
    from sdk.utils import elf as _elf

    path = _toolchain.sdk_paths().library_path
    if not os.path.isfile(path):
        return set()
    return set(_elf.ElfFile(path).dynamic_symbols())


def require_core(*symbols: str) -> None:
    """Skip unless the core library is built and exports `symbols`."""
    have = _core_symbols()
    if not have:
        pytest.skip("the sdk core library is not built yet (python setup.py build_ext --inplace)")
    missing = [s for s in symbols if s not in have]
    if missing:
        pytest.skip(f"the sdk core does not export {', '.join(missing)} yet")


def require_sdk_tensors() -> None:
    """Skip unless `import sdk` gives tensors (sdk.tensor / sdk.from_numpy)."""
    try:
        import sdk
    except Exception as e:  # the package may be half-written while it lands
        pytest.skip(f"import sdk fails: {e}")
    if not hasattr(sdk, "tensor") or not hasattr(sdk, "Tensor"):
        pytest.skip("sdk does not provide sdk.tensor / sdk.Tensor yet")
