"""Builds and runs the C++ checks of the elementwise API added with ABI 1.3 (test_elementwise_api.cpp)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.core.test_cpp_api import CORE_LIB, CPP, INCLUDE, LIBDIR, _cxx, _require_core, _run


def test_elementwise_cpp_program_passes(tmp_path: Path) -> None:
    _require_core()
    exe = tmp_path / "test_elementwise_api"
    _run(
        [
            _cxx(),
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{INCLUDE}",
            str(CPP / "test_elementwise_api.cpp"),
            "-o",
            str(exe),
            f"-L{LIBDIR}",
            "-lsdk_core",
            f"-Wl,-rpath,{LIBDIR}",
        ]
    )
    assert CORE_LIB.exists()
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout
