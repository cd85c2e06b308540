"""The C ABI header compiles as strict C99, a pure C program runs against the core, struct layouts hold."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._support import include_dir, lib_dir

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
INCLUDE = include_dir()
LIB_DIR = lib_dir()

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler found")


def _compile(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CC, *args], cwd=cwd, capture_output=True, text=True)


def test_header_is_strict_c99(tmp_path: Path) -> None:
    src = tmp_path / "inc.c"
    src.write_text('#include "sdk/c_api.h"\nint main(void) { return SDK_OK; }\n')
    r = _compile(
        [
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            f"-I{INCLUDE}",
            "-c",
            str(src),
            "-o",
            str(tmp_path / "inc.o"),
        ],
        tmp_path,
    )
    assert r.returncode == 0, r.stderr


def test_abi_layout_static_asserts(tmp_path: Path) -> None:
    r = _compile(
        [
            "-std=c11",
            "-Wall",
            "-Werror",
            "-pedantic",
            f"-I{INCLUDE}",
            "-c",
            str(HERE / "test_abi_layout.c"),
            "-o",
            str(tmp_path / "layout.o"),
        ],
        tmp_path,
    )
    assert r.returncode == 0, r.stderr


def test_pure_c_program(tmp_path: Path) -> None:
    if not (LIB_DIR / "libsdk_core.so").exists():
        pytest.skip("libsdk_core.so not built (python setup.py build_ext --inplace)")
    exe = tmp_path / "c_program"
    r = _compile(
        [
            "-std=c99",
            "-Wall",
            "-Werror",
            "-pedantic",
            f"-I{INCLUDE}",
            str(HERE / "c_program.c"),
            "-o",
            str(exe),
            f"-L{LIB_DIR}",
            "-lsdk_core",
            f"-Wl,-rpath,{LIB_DIR}",
            "-lm",
        ],
        tmp_path,
    )
    assert r.returncode == 0, r.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
