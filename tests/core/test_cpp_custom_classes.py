"""Custom classes and intrusive_ptr from C++ alone (sdk/custom_class.h, sdk/intrusive_ptr.h):
tests/core/cpp/test_custom_class_api.cpp built against the core and run, under AddressSanitizer
and UBSan when the compiler has them, so that every object's lifetime through the core's
values is checked (a leak or a double free fails the run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._compile_cache import run_compiler
from tests._support import include_dir, lib_dir

CPP = Path(__file__).resolve().parent / "cpp"
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]


def _compile(cxx: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [cxx, "-std=c++17", "-g", "-O1", "-Wall", "-Wextra", "-Werror", *extra,
           f"-I{include_dir()}", str(CPP / "test_custom_class_api.cpp"), "-o", str(out),
           f"-L{lib_dir()}", "-lsdk_core", f"-Wl,-rpath,{lib_dir()}"]  # fmt: skip
    return run_compiler(cmd, timeout=600)


def test_custom_classes_from_cpp_keep_every_object_alive_exactly_as_long_as_needed(tmp_path):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    if not (Path(lib_dir()) / "libsdk_core.so").exists():
        pytest.skip("the core library is not built")
    exe = tmp_path / "custom_classes"
    proc = _compile(cxx, exe, *SANITIZE)
    if proc.returncode != 0 and "sanitize" in proc.stderr:  # no sanitizer runtime here
        proc = _compile(cxx, exe)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert " 0 failures" in run.stdout
