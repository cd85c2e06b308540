"""Builds and runs the C++ checks of sdk/ops_struct.h (sorting, scans, scatter/index and
reordering ops with torch's C++ spellings)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.core.test_cpp_api import CPP, INCLUDE, LIBDIR, _cxx, _require_core, _run


def test_struct_ops_cpp_program_passes(tmp_path: Path) -> None:
    _require_core()
    exe = tmp_path / "test_struct_api"
    _run(
        [
            _cxx(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
            str(CPP / "test_struct_api.cpp"), "-o", str(exe), f"-L{LIBDIR}", "-lsdk_core",
            f"-Wl,-rpath,{LIBDIR}",
        ]
    )  # fmt: skip
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout


def test_more_ops_cpp_program_passes(tmp_path: Path) -> None:
    # sdk/ops_data.h, sdk/linalg.h and the later sdk/layers.h functions.
    _require_core()
    exe = tmp_path / "test_more_api"
    _run(
        [
            _cxx(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
            str(CPP / "test_more_api.cpp"), "-o", str(exe), f"-L{LIBDIR}", "-lsdk_core",
            f"-Wl,-rpath,{LIBDIR}",
        ]
    )  # fmt: skip
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout
