"""The caching allocator's logic (reuse, split/merge, per-stream pools, statistics,
empty_cache, out-of-memory retry) on a simulated CUDA runtime: no GPU needed."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.cuda.conftest import REPO, toolkit_or_none

BACKEND = REPO / "core" / "src" / "cuda" / "backend"


def test_caching_allocator_on_simulated_runtime(tmp_path):
    tk = toolkit_or_none()
    if tk is None:
        pytest.skip("needs the CUDA toolkit's headers (no toolkit found)")
    exe = tmp_path / "allocator_test"
    build = subprocess.run(
        [
            "c++",
            "-std=c++17",
            "-O1",
            f"-I{REPO / 'core' / 'src'}",
            f"-I{REPO / 'core' / 'include'}",
            f"-I{tk.include_dir}",
            os.path.join(os.path.dirname(__file__), "allocator_test.cpp"),
            str(BACKEND / "allocator.cpp"),
            str(BACKEND / "runtime.cpp"),
            "-o",
            str(exe),
            "-ldl",
            "-pthread",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
