"""The flags every C and C++ compile starts with come from one function,
cpp_extension.builder.toolchain.base_flags: the core, the CUDA backend's host code and sdk._C
(setup.py), JIT C and C++ builds, the pybind11 runtime object and BuildExtension. Each target's
list is pinned here: JIT cache keys, the precompiled header and the installed runtime object
compare flags as written, so changing one must be deliberate (it rebuilds those)."""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import pytest

from cpp_extension.builder import jit as _build
from cpp_extension.builder import plan as _plan
from cpp_extension.builder import runtime as _runtime
from cpp_extension.builder import toolchain as _toolchain

ROOT = Path(__file__).resolve().parents[2]
# setup.py loads cpp_extension from its own checkout (setup._tooling)
needs_setup_py = pytest.mark.skipif(
    not (ROOT / "setup.py").is_file()
    or ROOT / "cpp_extension" not in Path(_toolchain.__file__).resolve().parents,
    reason="needs the checkout's setup.py and cpp_extension",
)

# Each target's first flags, as they were when base_flags replaced the lists written out in
# setup.py, builder/toolchain.py, _setuptools.py and builder/jit.py.
PINNED = {
    "core": [
        "-std=c++17", "-O3", "-fPIC", "-fvisibility=hidden", "-fno-math-errno",
        "-DSDK_CORE_BUILDING", "-Wall", "-Wextra", "-Wno-unused-parameter",
    ],
    "binding": ["-std=c++17", "-O3", "-fvisibility=hidden"],
    "cuda_backend": ["-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden", "-Wall"],
    "jit_cxx": ["-std=c++17", "-O2", "-fPIC", "-Werror=return-type"],
    "jit_c": ["-std=c11", "-O2", "-fPIC", "-Werror=return-type"],
    "jit_pybind11": ["-std=c++17", "-O2", "-fPIC", "-Werror=return-type", "-fvisibility=hidden"],
    "build_extension_cxx": ["-std=c++17", "-fvisibility=hidden", "-Werror=return-type"],
    "build_extension_c": ["-std=c11", "-Werror=return-type"],
}  # fmt: skip


def _setup_py(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cuda_backend_cxx(setup, monkeypatch, tmp_path) -> list[str]:
    """The backend's C++ flags, as build_cuda_backend hands them to the build (no compile)."""
    seen = {}

    def capture(build_dir, out_lib, sources, flags, verbose=False):
        seen.update(flags)
        raise StopIteration

    monkeypatch.setattr(setup, "build_library", capture)
    monkeypatch.setattr(setup, "export_only", lambda build_dir, *patterns: "-Wl,--version-script")
    toolkit = types.SimpleNamespace(include_dir="/cuda/include", nvcc="nvcc", library_dir="/lib")
    with pytest.raises(StopIteration):
        setup.build_cuda_backend(tmp_path, tmp_path / "libsdk_cuda.so", toolkit)
    return seen["cxx"]


def _jit_flags(bridge: str, tmp_path) -> dict[str, list[str]]:
    cpp, c = tmp_path / "m.cpp", tmp_path / "c.c"
    cpp.write_text("int f() { return 1; }\n")
    c.write_text("int g(void) { return 1; }\n")
    req = _build.make_request(f"base_flags_{bridge}", [str(cpp), str(c)], bridge=bridge)
    return _build._flags(req, _plan.Toolchain({"cxx", "c"}))


def _build_extension_flags(tmp_path) -> dict[str, list[str]]:
    from setuptools import Distribution

    from cpp_extension import BuildExtension, CppExtension

    ext = CppExtension("pkg.m", ["m.cpp", "c.c"], extra_compile_args=["-DUSER"])
    cmd = BuildExtension(Distribution({"name": "pkg", "ext_modules": [ext]}))
    cmd.ensure_finalized()
    return cmd._target(ext, tmp_path, _plan.Toolchain({"cxx", "c"})).flags


def test_base_flags_keeps_one_order_whatever_the_arguments():
    assert _toolchain.base_flags() == ["-std=c++17", "-O2", "-fPIC", "-Werror=return-type"]
    assert _toolchain.base_flags(
        "c", opt="-O3", pic=False, hidden=True, extra=["-DX"], warnings=False
    ) == ["-std=c11", "-O3", "-fvisibility=hidden", "-DX"]
    assert _toolchain.base_flags(opt=None, pic=False) == ["-std=c++17", "-Werror=return-type"]
    with pytest.raises(ValueError, match="language must be one of"):
        _toolchain.base_flags("fortran")


def test_jit_targets_start_with_their_pinned_base(tmp_path):
    assert _toolchain.CXX_FLAGS == PINNED["jit_cxx"] == _toolchain.base_flags()
    assert _toolchain.C_FLAGS == PINNED["jit_c"] == _toolchain.base_flags("c")
    assert _runtime.PYBIND11_BASE_FLAGS == PINNED["jit_pybind11"]
    for bridge, cxx in (("ctypes", "jit_cxx"), ("pybind11", "jit_pybind11")):
        flags = _jit_flags(bridge, tmp_path)
        assert flags["cxx"][: len(PINNED[cxx])] == PINNED[cxx], bridge
        assert flags["c"][: len(PINNED["jit_c"])] == PINNED["jit_c"], bridge
    # the installed pybind11 runtime object is compiled with the same first flags
    installed = _runtime.installed_flags(_toolchain.sdk_paths().include_dir)
    assert installed[: len(PINNED["jit_pybind11"])] == PINNED["jit_pybind11"]


def test_build_extension_starts_with_its_pinned_base(tmp_path):
    flags = _build_extension_flags(tmp_path)
    assert flags["cxx"][:3] == PINNED["build_extension_cxx"]
    assert flags["c"][:2] == PINNED["build_extension_c"]
    assert flags["cxx"][-1] == "-DUSER"  # the user's come last, after the base


@needs_setup_py
def test_setup_py_targets_start_with_their_pinned_base(monkeypatch, tmp_path):
    setup = _setup_py("_sdk_setup_base_flags")
    assert setup.CORE_CXXFLAGS[: len(PINNED["core"])] == PINNED["core"]
    assert setup.binding.extra_compile_args == PINNED["binding"]
    cxx = _cuda_backend_cxx(setup, monkeypatch, tmp_path)
    assert cxx[: len(PINNED["cuda_backend"])] == PINNED["cuda_backend"]


@needs_setup_py
def test_setup_py_takes_every_base_from_base_flags(monkeypatch, tmp_path):
    """With base_flags marking what it returns, every setup.py target carries the mark: none
    writes its own base."""
    real = _toolchain.base_flags
    monkeypatch.setattr(_toolchain, "base_flags", lambda *a, **k: ["-DBASE_MARK", *real(*a, **k)])
    setup = _setup_py("_sdk_setup_base_flags_marked")
    assert setup.CORE_CXXFLAGS[0] == "-DBASE_MARK"
    assert setup.binding.extra_compile_args[0] == "-DBASE_MARK"
    assert _cuda_backend_cxx(setup, monkeypatch, tmp_path)[0] == "-DBASE_MARK"


def test_no_other_build_module_spells_a_language_standard():
    """The standards are written once (_toolchain.STANDARDS); the other places that build C
    or C++ take them from base_flags."""
    from cpp_extension import _setuptools

    files = [Path(m.__file__) for m in (_build, _setuptools, _runtime)]
    files += [ROOT / "setup.py"] if (ROOT / "setup.py").is_file() else []
    for path in files:
        text = path.read_text()
        assert '"-std=c' not in text, f"{path.name} writes a -std= flag of its own"
