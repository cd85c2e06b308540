"""Builds and runs the C++ checks of sdk/ops_struct.h (sorting, scans, scatter/index and
reordering ops with torch's C++ spellings), and of sdk/ops_data.h, sdk/linalg.h,
sdk/sampling.h and the later sdk/layers.h functions."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.core.test_cpp_api import CPP, INCLUDE, LIBDIR, _cxx, _require_core, _run


@pytest.mark.parametrize("program", ["test_struct_api", "test_more_api"])
def test_cpp_program_passes(program: str, tmp_path: Path) -> None:
    _require_core()
    exe = tmp_path / program
    _run(
        [
            _cxx(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
            str(CPP / f"{program}.cpp"), "-o", str(exe), f"-L{LIBDIR}", "-lsdk_core",
            f"-Wl,-rpath,{LIBDIR}",
        ]
    )  # fmt: skip
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout
