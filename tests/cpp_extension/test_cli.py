"""`python -m cpp_extension info|clean`."""

from __future__ import annotations

import subprocess
import sys

from tests.cpp_extension.conftest import REPO, subprocess_env


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cpp_extension", *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=str(REPO),
        timeout=120,
    )


def test_info_lists_toolchain_and_paths(ext_dir):
    proc = _cli("info")
    assert proc.returncode == 0, proc.stderr
    for key in ("sdk ABI", "include path", "library", "C++ compiler", "ninja", "JIT cache"):
        assert key in proc.stdout
    assert str(ext_dir) in proc.stdout
    assert "precompiled header" in proc.stdout and "split code generation" in proc.stdout
    assert "pybind11 runtime object" in proc.stdout
    # the installed header: one of "fits", "for another setup", "no installed ..."
    assert "installed precompiled header" in proc.stdout


def test_clean_one_and_all(ext_dir):
    for name in ("a_ext", "b_ext"):
        (ext_dir / "py3_abi1" / name).mkdir(parents=True)
    proc = _cli("clean", "a_ext")
    assert proc.returncode == 0 and "a_ext" in proc.stdout
    assert not (ext_dir / "py3_abi1" / "a_ext").exists()
    assert (ext_dir / "py3_abi1" / "b_ext").exists()
    assert _cli("clean", "missing_ext").returncode == 1
    assert _cli("clean").returncode == 0
    assert not (ext_dir / "py3_abi1").exists()
