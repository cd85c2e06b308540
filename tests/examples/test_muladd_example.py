"""examples/muladd: its own tests (JIT build of the sources), and its one-for-all-Pythons
wheel: built with setup.py (abi3), installed, imported (the import registers the ops)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest

from tests._support import subprocess_env
from tests.cuda.conftest import TEST_ARCH
from tests.examples.examples_util import EXAMPLES, run_script

MULADD = EXAMPLES / "muladd"
# Where a CUDA toolkit is found, muladd.cu is built too: for tests/cuda's one GPU architecture
# (SDK_CUDA_ARCH_LIST), not the portable default's seven, each a pass of nvcc over the file.
# These tests are about the package and its registration; the arch list is tests/cuda's.


@pytest.mark.slow
def test_example_tests_pass_with_the_jit_build(tmp_path):
    env = subprocess_env(
        SDK_EXTENSIONS_DIR=str(tmp_path / "cache"), MAX_JOBS="2", SDK_CUDA_ARCH_LIST=TEST_ARCH
    )
    env["PYTHONPATH"] = f"{MULADD}:{env['PYTHONPATH']}"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=MULADD, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout


@pytest.mark.slow
def test_abi3_wheel_installs_and_registers_on_import(tmp_path):
    src = tmp_path / "muladd"
    shutil.copytree(
        MULADD, src, ignore=shutil.ignore_patterns("build", "dist", "*.so", "__pycache__")
    )
    run_script(
        src,
        "setup.py", "-q", "bdist_wheel",
        SDK_EXTENSIONS_DIR=str(tmp_path / "cache"), SDK_CUDA_ARCH_LIST=TEST_ARCH,
    )  # fmt: skip
    wheels = list((src / "dist").glob("*.whl"))
    assert len(wheels) == 1 and wheels[0].name.endswith("-cp39-abi3-linux_x86_64.whl"), wheels
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "muladd_ops/_C.abi3.so" in names and "muladd_ops/ops.py" in names, names
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheels[0])],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    code = (
        "import muladd_ops, sdk\n"
        "assert muladd_ops._C.__file__.endswith('_C.abi3.so'), muladd_ops._C.__file__\n"
        "a = sdk.tensor([1.0, 2.0]); print(muladd_ops.mymuladd(a, a, 0.5).tolist())\n"
    )
    env = subprocess_env()
    env["PYTHONPATH"] = f"{site}:{env['PYTHONPATH']}"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[1.5, 4.5]"
