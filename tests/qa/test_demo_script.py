"""scripts/demo.sh's order of steps, run against a stand-in venv interpreter that records its
calls: the first result (check.py) waits for nothing that only later steps need."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _demo_calls(tmp_path: Path, **env: str) -> list[str]:
    """Run demo.sh --quick with a venv whose python only appends its SDK_DEFER_PYBIND11_RUNTIME
    and arguments to a file (and says whether its pip is recent); returns those lines."""
    if shutil.which("bash") is None or shutil.which("tail") is None:
        pytest.skip("needs bash and tail")
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    calls = tmp_path / "calls"
    stub = bindir / "python"
    stub.write_text(
        "#!/bin/sh\n"  # OLD_PIP=1: the venv's pip is older than the scripts want
        'case "$*" in *pip.__version__*) exit "${OLD_PIP:-0}";; esac\n'
        f'echo "${{SDK_DEFER_PYBIND11_RUNTIME:-unset}} $*" >> "{calls}"\n'
    )
    stub.chmod(0o755)
    unset = ("SDK_DEFER_PYBIND11_RUNTIME", "PYTHONDONTWRITEBYTECODE")
    base = {k: v for k, v in os.environ.items() if k not in unset}
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh"), "--quick"],
        env={**base, "SDK_VENV": str(tmp_path / "venv"), "SDK_WITH_CUDA": "0", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return calls.read_text().splitlines()


def _index(calls: list[str], text: str) -> int:
    found = [i for i, call in enumerate(calls) if text in call]
    assert len(found) == 1, (text, calls)
    return found[0]


def test_the_first_result_waits_for_no_extras_nor_runtime_objects(tmp_path):
    calls = _demo_calls(tmp_path)
    install = calls[_index(calls, "--no-build-isolation -e")]
    assert install.startswith("1 ") and install.endswith(str(ROOT)), install  # no [extras]
    check = _index(calls, "lltm/check.py")
    extras = _index(calls, "install -q --no-compile tensor-sdk[examples]")
    assert _index(calls, "--no-build-isolation -e") < check < extras < _index(calls, "train.py")
    assert _index(calls, "benchmark.py") < _index(calls, "-m cpp_extension prepare")


def test_a_build_that_was_not_deferred_needs_no_prepare(tmp_path):
    calls = _demo_calls(tmp_path, SDK_DEFER_PYBIND11_RUNTIME="0")
    assert calls[_index(calls, "--no-build-isolation -e")].startswith("0 ")
    assert not [c for c in calls if "cpp_extension prepare" in c]


def test_pip_is_upgraded_only_when_it_is_old(tmp_path):
    for old, upgraded in (("0", False), ("1", True)):
        calls = _demo_calls(tmp_path / old, OLD_PIP=old)
        tools = calls[_index(calls, "pybind11>=2.10")].split()
        assert ("pip" in tools[tools.index("--upgrade") :]) is upgraded, tools


def test_pip_leaves_compiling_to_imports_unless_python_may_not_save_it(tmp_path):
    for env, flag in (({}, "--no-compile"), ({"PYTHONDONTWRITEBYTECODE": "1"}, "--compile")):
        calls = _demo_calls(tmp_path / flag, **env)
        for step in ("pybind11>=2.10", "--no-build-isolation -e", "tensor-sdk[examples]"):
            assert flag in calls[_index(calls, step)].split(), (step, calls)
