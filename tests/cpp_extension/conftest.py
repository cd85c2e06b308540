"""Fixtures for cpp_extension tests: a private JIT cache per test, subprocess helpers, skips."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ext_dir(tmp_path, monkeypatch):
    """A fresh SDK_EXTENSIONS_DIR (also seen by subprocesses through os.environ)."""
    root = tmp_path / "ext_cache"
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(root))
    monkeypatch.setenv("MAX_JOBS", "2")
    monkeypatch.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")  # count real compiler runs
    return root


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_python(code: str, *, timeout: float = 300, check: bool = True, **env: str):
    """Run `code` in a fresh interpreter with the repo importable; returns CompletedProcess."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=subprocess_env(**env),
        cwd=str(REPO),
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"subprocess failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return proc


def _core_symbols() -> set[str]:
    from cpp_extension import _elf, _toolchain

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
