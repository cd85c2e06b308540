"""Fixtures for the reliability tests: the test extensions, subprocess probes, thread runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import traceback

import pytest

from tests._support import REPO, kept_folder, run_folder, subprocess_env, toolchain_key  # noqa: F401


@pytest.fixture(scope="module")
def extensions(tmp_path_factory):
    """Both test extensions, built once per module into a private SDK_EXTENSIONS_DIR that
    all modules and workers of the run share (the others load from that cache)."""
    if shutil.which(os.environ.get("CXX", "c++")) is None:
        pytest.skip("no C++ compiler to build the test extensions")
    from tests.reliability._extensions import build

    return build(kept_folder(tmp_path_factory, "reliability_ext_cache", *toolchain_key()))


def run_module(module: str, *args: str, timeout: float = 180, **env: str) -> dict:
    """`python -m module args` in a fresh interpreter; the JSON object on its last line."""
    full_env = subprocess_env(**env)
    proc = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        cwd=str(REPO),
    )
    assert proc.returncode == 0, (
        f"{module} {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_threads(target, n: int, timeout: float = 300) -> list[str]:
    """Run target(index) on n threads started together; the failures (tracebacks) they hit.
    A thread still running after `timeout` seconds counts as a failure (a hang)."""
    barrier = threading.Barrier(n)
    failures: list[str] = []

    def body(i: int) -> None:
        try:
            barrier.wait()
            target(i)
        except BaseException:  # noqa: BLE001  (reported to the test, which fails)
            failures.append(f"thread {i}:\n{traceback.format_exc()}")

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    failures += [
        f"thread {i} did not finish in {timeout} s" for i, t in enumerate(threads) if t.is_alive()
    ]
    return failures
