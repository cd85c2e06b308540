"""Builds and runs the C++ checks of sdk/nn.h (nn::functional with torch's options structs,
nn::Module and the built-in modules), and compiles each nn header on its own."""

from __future__ import annotations

import subprocess
import sysconfig
from pathlib import Path

import pytest

from tests.core.test_cpp_api import CPP, INCLUDE, LIBDIR, _cxx, _require_core, _run

NN_HEADERS = [
    "nn.h",
    "nn_functional.h",
    "nn_functional_spatial.h",
    "nn_losses.h",
    "nn_module.h",
    "nn_modules.h",
    "nn_options.h",
]


def test_nn_program_passes(tmp_path: Path) -> None:
    _require_core()
    exe = tmp_path / "test_nn_api"
    _run(
        [
            _cxx(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Wshadow", "-Werror", f"-I{INCLUDE}",
            str(CPP / "test_nn_api.cpp"), "-o", str(exe), f"-L{LIBDIR}", "-lsdk_core",
            f"-Wl,-rpath,{LIBDIR}",
        ]
    )  # fmt: skip
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout


@pytest.mark.parametrize("header", NN_HEADERS)
def test_nn_header_compiles_alone(header: str, tmp_path: Path) -> None:
    src = tmp_path / "one.cpp"
    src.write_text(f"#include <sdk/{header}>\n#include <sdk/{header}>\n")
    flags = ["-Wall", "-Wextra", "-Wshadow", "-Werror", f"-I{INCLUDE}"]
    _run([_cxx(), "-std=c++17", "-fsyntax-only", *flags, str(src)])


def test_nn_python_header_compiles_alone(tmp_path: Path) -> None:
    pybind11 = pytest.importorskip("pybind11", reason="pybind11 not installed")
    src = tmp_path / "one.cpp"
    src.write_text("#include <sdk/nn_python.h>\n#include <sdk/nn_python.h>\n")
    # no -Wshadow here: extension.h brings in all.h, whose tensor_utils.h is not shadow-clean
    includes = [f"-I{INCLUDE}", "-isystem", pybind11.get_include()]
    includes += ["-isystem", sysconfig.get_paths()["include"]]
    _run(
        [
            _cxx(),
            "-std=c++17",
            "-fsyntax-only",
            "-Wall",
            "-Wextra",
            "-Werror",
            *includes,
            str(src),
        ]
    )
