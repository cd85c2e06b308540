"""`python -m cpp_extension new`: rendering, and a generated project that builds and passes its tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cpp_extension import _new

from tests._support import REPO as ROOT  # noqa: F401
from tests._support import subprocess_env


def env_with_repo() -> dict[str, str]:
    return subprocess_env()


def run(cmd: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env_with_repo(), capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.mark.parametrize("bridge", _new.BRIDGES)
@pytest.mark.parametrize("cuda", [False, True])
def test_render_fills_every_placeholder(tmp_path, bridge, cuda):
    files = _new.render("fancy_op", tmp_path / "p", cuda=cuda, bridge=bridge)
    rel = sorted(p.relative_to(tmp_path / "p").as_posix() for p in files)
    assert "src/fancy_op/__init__.py" in rel and "tests/test_fancy_op.py" in rel
    assert "csrc/fancy_op.cpp" in rel and "pyproject.toml" in rel and "setup.py" in rel
    assert ("csrc/fancy_op_cuda.cu" in rel) == cuda
    for path in files:
        text = path.read_text()
        assert "{{" not in text and "}}" not in text.replace("}}}", ""), path
    setup = (tmp_path / "p" / "setup.py").read_text()
    assert ("CUDAExtension" in setup) == cuda and ("CppExtension" in setup) != cuda
    pyproject = (tmp_path / "p" / "pyproject.toml").read_text()
    assert "tensor-sdk" in pyproject and "setuptools" in pyproject
    assert "--no-build-isolation" in (tmp_path / "p" / "README.md").read_text()


@pytest.mark.parametrize("name", ["Bad", "1op", "with-dash", "class", "sdk", ""])
def test_bad_names_are_refused(tmp_path, name):
    with pytest.raises(ValueError, match="name"):
        _new.render(name, tmp_path / "p")


def test_refuses_a_non_empty_destination(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(FileExistsError, match="not empty"):
        _new.render("myop", tmp_path)


def test_cli_creates_the_project(tmp_path):
    proc = run(
        [
            sys.executable,
            "-m",
            "cpp_extension",
            "new",
            "cli_op",
            "--bridge",
            "ctypes",
            "--dir",
            str(tmp_path / "proj"),
        ],
        cwd=tmp_path,
    )
    assert "created" in proc.stdout
    assert (tmp_path / "proj" / "csrc" / "cli_op.cpp").is_file()
    bad = subprocess.run(
        [sys.executable, "-m", "cpp_extension", "new", "Bad-Name"],
        cwd=tmp_path,
        env=env_with_repo(),
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "lowercase Python identifier" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("bridge", _new.BRIDGES)
def test_generated_project_installs_and_its_tests_pass(tmp_path, bridge):
    name = f"gen_{bridge}_op"
    project = tmp_path / "src" / name
    _new.render(name, project, bridge=bridge)
    site = tmp_path / "site"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--target",
            str(site),
            str(project),
        ],
        cwd=tmp_path,
        timeout=600,
    )
    assert any(site.glob(f"{name}/_*.so")), sorted(p.name for p in site.rglob("*"))
    # Run from the install folder so that `import NAME` finds the installed package.
    env = env_with_repo()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(project / "tests")],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout and "failed" not in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("bridge", _new.BRIDGES)
def test_generated_cuda_kernels_compile_with_nvcc(tmp_path, bridge):
    # No GPU here: the CUDA path is checked by compiling it (nvcc -c), not by running it.
    import shutil

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    _new.render("cu_op", tmp_path / "p", cuda=True, bridge=bridge)
    include = ROOT / "core" / "include"
    run(
        [nvcc, "-std=c++17", f"-I{include}", "-c", "csrc/cu_op_cuda.cu", "-o", "cu_op_cuda.o"],
        cwd=tmp_path / "p",
        timeout=300,
    )
    assert (tmp_path / "p" / "cu_op_cuda.o").stat().st_size > 0
