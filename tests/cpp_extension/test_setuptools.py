"""CppExtension + BuildExtension end to end: a project written to a temp dir, built in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.cpp_extension.conftest import subprocess_env

SETUP = """
from setuptools import setup
from cpp_extension import BuildExtension, CppExtension

setup(
    name="demo_ops",
    version="0.1",
    ext_modules=[
        CppExtension(
            "demo_ops._ops",
            ["src/op.cpp", "src/bind.cpp"],
            extra_compile_args={"cxx": ["-DGREETING=\\"hi\\"", "-O1"], "nvcc": []},
        )
    ],
    packages=["demo_ops"],
    cmdclass={"build_ext": BuildExtension.with_options(no_python_abi_suffix=True)},
)
"""
PYPROJECT = """
[build-system]
# This SDK must be importable while building: pip install --no-build-isolation .
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"
"""
OP = """
#include <string>
std::string greet(const std::string& who) { return std::string(GREETING) + ", " + who; }
"""
BIND = """
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>
std::string greet(const std::string& who);
#define STR2(x) #x
#define STR(x) STR2(x)
PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("greet", &greet);
  m.attr("module_macro") = STR(SDK_EXTENSION_NAME);
}
"""


def _write_project(root):
    (root / "src").mkdir(parents=True)
    (root / "demo_ops").mkdir()
    (root / "setup.py").write_text(textwrap.dedent(SETUP))
    (root / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (root / "src" / "op.cpp").write_text(OP)
    (root / "src" / "bind.cpp").write_text(BIND)
    (root / "demo_ops" / "__init__.py").write_text("from ._ops import greet\n")


def _check_import(cwd, env):
    code = "import demo_ops, demo_ops._ops as o; print(demo_ops.greet('sdk'), o.module_macro, o.__file__)"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_build_ext_inplace(tmp_path):
    root = tmp_path / "proj"
    _write_project(root)
    env = subprocess_env(MAX_JOBS="2")
    proc = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[2/3]" in proc.stderr or "[2/3]" in proc.stdout, "compiled by ninja"
    greeting, who, macro, path = _check_import(root, env)
    assert (greeting, who, macro) == ("hi,", "sdk", "_ops")
    assert path.endswith("demo_ops/_ops.so"), "no_python_abi_suffix"
    ninja = (root / "build").rglob("build.ninja")
    text = next(ninja).read_text()
    assert text.index("-std=c++17") < text.index("-O1"), "user flags come after the defaults"


def test_pip_install_no_build_isolation(tmp_path):
    root = tmp_path / "proj"
    _write_project(root)
    target = tmp_path / "site"
    env = subprocess_env(MAX_JOBS="2")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(root),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env["PYTHONPATH"] = str(target) + ":" + env["PYTHONPATH"]
    greeting, who, macro, path = _check_import(tmp_path, env)
    assert (greeting, who) == ("hi,", "sdk") and path.startswith(str(target))
