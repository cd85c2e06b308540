"""The core's CUDA paths without a GPU: test_gpu.py and test_gpu_elementwise.py against a
host-memory stand-in backend.

The stand-in (fake_backend.cpp) implements the backend table with host memory and the same
element math as the CUDA kernels, so the routing of CUDA tensors through the core, the
problem descriptions handed to the backend (strides, broadcasting, merged dims, reductions,
gemm layouts), dtype rules, device moves and autograd across devices are all exercised.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests._support import build_once, run_folder
from tests.cuda.conftest import REPO, build_fake_backend, gpu_available, subprocess_env

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def fake_backend(tmp_path_factory):
    return build_once(run_folder(tmp_path_factory, "fake_backend"), build_fake_backend)


@pytest.mark.skipif(gpu_available(), reason="a real GPU is visible: test_gpu.py runs on it")
def test_gpu_suite_on_host_memory_backend(fake_backend):
    env = subprocess_env(SDK_CUDA_LIBRARY=str(fake_backend), SDK_CUDA_FAKE="1")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            os.path.join(HERE, "test_gpu.py"),
            os.path.join(HERE, "test_gpu_elementwise.py"),
            os.path.join(HERE, "test_gpu_struct.py"),
            os.path.join(HERE, "test_gpu_fast.py"),
            os.path.join(HERE, "test_gpu_streams.py"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=str(REPO),
    )
    tail = proc.stdout[-4000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    assert "no CUDA GPU visible" not in proc.stdout, tail  # it really ran
    assert " passed" in proc.stdout, tail
