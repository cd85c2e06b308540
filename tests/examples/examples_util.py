"""Helpers for the example tests: run example scripts in a subprocess with the repo importable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests._support import REPO as ROOT
from tests._support import subprocess_env

EXAMPLES = ROOT / "examples"


def example_env(**extra: str) -> dict[str, str]:
    """The environment of the tests, with the package under test importable."""
    env = subprocess_env()
    env.setdefault("OMP_NUM_THREADS", "1")
    env.update(extra)
    return env


def run_script(cwd: Path, *args: str, timeout: float = 600, **env: str):
    """Run `python *args` in cwd; fail the test with its output when it exits nonzero."""
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=example_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        pytest.fail(
            f"{' '.join(args)} exited with {proc.returncode}\n--- stdout\n{proc.stdout}\n"
            f"--- stderr\n{proc.stderr}"
        )
    return proc
