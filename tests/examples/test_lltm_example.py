"""The LLTM example end to end: correctness scripts, both build paths, benchmark, training."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.examples.examples_util import EXAMPLES, example_env, run_script

LLTM = EXAMPLES / "lltm"
pytestmark = pytest.mark.slow


def test_check_all_variants_match_references():
    out = run_script(LLTM, "check.py").stdout
    for variant in ("cpp", "ctypes", "py"):
        assert f"{variant:7s} ok" in out, out


def test_check_fails_loudly_on_a_wrong_backend(tmp_path):
    # check.py must be able to fail: a backend with a wrong sign in d_input is caught.
    script = tmp_path / "wrong.py"
    script.write_text(
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import check, lltm, lltm_py\n"
        "class Wrong:\n"
        "    forward = staticmethod(lltm_py.forward)\n"
        "    @staticmethod\n"
        "    def backward(*a):\n"
        "        g = lltm_py.backward(*a)\n"
        "        return [g[0], -g[1], *g[2:]]\n"
        "lltm._loaded['py'] = Wrong\n"
        "sys.exit(check.main(['--variant', 'py']))\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script), str(LLTM)], env=example_env(), capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL [py] backward vs numpy d_input" in proc.stdout


def test_check_takes_each_variant_as_its_build_finishes(tmp_path):
    # The builds run side by side (all three reach the barrier together; one after another,
    # the barrier would break) and the quickest is checked first; a failed build raises.
    script = tmp_path / "order.py"
    script.write_text(
        "import sys, threading, time; sys.path.insert(0, sys.argv[1])\n"
        "import check\n"
        "delay = {'cpp': 0.6, 'ctypes': 0.05, 'py': 0.3}\n"
        "together = threading.Barrier(3, timeout=30)\n"
        "def fake(v):\n"
        "    together.wait()\n"
        "    time.sleep(delay[v])\n"
        "    if v == 'py' and len(sys.argv) > 2: raise RuntimeError('build of py failed')\n"
        "    return v\n"
        "check.load_backend = fake\n"
        "print(list(check.built_as_ready(['cpp', 'ctypes', 'py'])))\n"
    )
    env = example_env()
    run = [sys.executable, str(script), str(LLTM)]
    proc = subprocess.run(run, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['ctypes', 'py', 'cpp']", proc.stdout
    proc = subprocess.run([*run, "fail"], env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and "build of py failed" in proc.stderr


def test_grad_check_all_variants():
    out = run_script(LLTM, "grad_check.py").stdout
    assert out.count(" ok: gradcheck") == 3, out


def test_jit_builds_and_exposes_forward_backward():
    out = run_script(LLTM, "jit.py").stdout
    assert "backward" in out and "forward" in out, out


def test_setup_build_ext_inplace(tmp_path):
    for name in ("setup.py", "lltm.cpp"):
        shutil.copy(LLTM / name, tmp_path / name)
    run_script(tmp_path, "setup.py", "build_ext", "--inplace")
    code = (
        "import numpy as np, sdk, lltm_cpp\n"
        "x, h, c = (sdk.tensor(np.ones((2, n))) for n in (3, 4, 4))\n"
        "w, b = sdk.tensor(np.full((12, 7), 0.1)), sdk.tensor(np.zeros((1, 12)))\n"
        "out = lltm_cpp.forward(x, w, b, h, c)\n"
        "assert len(out) == 7 and tuple(out[0].shape) == (2, 4), out\n"
        "print('imported', lltm_cpp.__file__)\n"
    )
    out = run_script(tmp_path, "-c", code).stdout
    assert str(tmp_path) in out


def test_benchmark_json_has_every_requested_variant():
    proc = run_script(
        LLTM,
        "benchmark.py",
        "-b",
        "4",
        "-f",
        "8",
        "-s",
        "16",
        "-r",
        "3",
        "--variant",
        "py",
        "cpp",
        "ctypes",
        "mm",
        "--json",
        "-",
    )
    data = json.loads(proc.stdout)
    got = {r["variant"] for r in data["results"]}
    assert got == {"py", "cpp", "ctypes", "mm"}
    for r in data["results"]:
        assert r["runs"] == 3 and r["forward_us"]["min"] > 0 and r["backward_us"]["min"] > 0


def test_train_reaches_target_with_fewer_steps(tmp_path):
    png = tmp_path / "loss.png"
    out = run_script(LLTM, "train.py", "--steps", "150", "--plot", str(png)).stdout
    assert "validation MSE" in out
    if shutil.which("true") and _has("matplotlib"):
        assert png.stat().st_size > 1000


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_bad_shapes_raise_clear_errors():
    code = (
        "import sdk\n"
        "from lltm import load_backend\n"
        "x, h, c = sdk.randn(2, 3), sdk.randn(2, 4), sdk.randn(2, 4)\n"
        "w, b = sdk.randn(12, 6), sdk.randn(1, 12)  # weights must be (12, 7)\n"
        "for variant in ('ctypes', 'cpp'):\n"
        "    try:\n"
        "        load_backend(variant).forward(x, w, b, h, c)\n"
        "    except (ValueError, RuntimeError) as e:\n"
        "        print(variant, type(e).__name__, e)\n"
        "    else:\n"
        "        print(variant, 'NO ERROR')\n"
    )
    out = run_script(LLTM, "-c", code).stdout
    assert "ctypes InvalidArgumentError" in out, out  # a ValueError that is also a RuntimeError
    assert "weights must have shape (12, 7), got (12, 6)" in out, out
    assert "cpp NO ERROR" not in out, out
