"""cpp_extension's public functions take torch.utils.cpp_extension's parameters in torch's
order (2.13), so positional calls port unchanged; what torch has and this SDK does not (SYCL)
is refused with a clear message."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest

import cpp_extension
from tests._support import import_path, subprocess_env

FUNCS = [
    "load",
    "load_inline",
    "include_paths",
    "library_paths",
    "_get_build_directory",
    "get_cxx_compiler",
]


@pytest.mark.parametrize("fn", FUNCS)
def test_parameters_match_torch(fn):
    torch_ext = pytest.importorskip("torch.utils.cpp_extension")
    ours = inspect.signature(getattr(cpp_extension, fn)).parameters
    theirs = inspect.signature(getattr(torch_ext, fn)).parameters
    positional = [p for p in ours.values() if p.kind != p.KEYWORD_ONLY]
    assert [p.name for p in positional] == list(theirs), fn
    for p in positional:
        assert p.default == theirs[p.name].default, (fn, p.name)
    assert all(p.kind == p.KEYWORD_ONLY for p in list(ours.values())[len(theirs) :])


PLATFORM_CONSTANTS = [
    "IS_WINDOWS", "IS_MACOS", "IS_LINUX", "LIB_EXT", "CLIB_EXT", "CLIB_PREFIX", "EXEC_EXT",
    "SHARED_FLAG", "IS_HIP_EXTENSION",
]  # fmt: skip


def test_setup_py_constants_match_torch():
    torch_ext = pytest.importorskip("torch.utils.cpp_extension")
    for name in PLATFORM_CONSTANTS:
        assert getattr(cpp_extension, name) == getattr(torch_ext, name), name
    assert cpp_extension.CUDNN_HOME == torch_ext.CUDNN_HOME  # both read the environment
    assert cpp_extension.ROCM_HOME is cpp_extension.HIP_HOME is cpp_extension.ROCM_VERSION is None


def test_common_nvcc_flags_are_what_every_nvcc_compile_gets():
    from cpp_extension import _cuda

    flags = cpp_extension.COMMON_NVCC_FLAGS
    flags.append("-lineinfo")  # a setup.py extends its copy, never the SDK's list
    assert "-lineinfo" not in cpp_extension.COMMON_NVCC_FLAGS
    compile_flags = _cuda.nvcc_flags(nvcc=None)
    assert all(f in compile_flags for f in cpp_extension.COMMON_NVCC_FLAGS)
    assert set(PLATFORM_CONSTANTS) | {"COMMON_NVCC_FLAGS"} <= set(cpp_extension.__all__)


def test_sycl_is_refused_by_name():
    with pytest.raises(ValueError, match="SYCL is not supported.*extra_sycl_cflags"):
        cpp_extension.load("x", ["a.cpp"], None, None, ["-fsycl"])
    with pytest.raises(ValueError, match="SYCL.*with_sycl"):
        cpp_extension.load("x", ["a.cpp"], with_sycl=True)
    with pytest.raises(ValueError, match="SYCL.*sycl_sources"):
        cpp_extension.load_inline("x", "", None, "kernel")


def test_include_and_library_paths():
    base = cpp_extension.include_paths()
    assert cpp_extension.include_paths("cpu") == base and len(base) == 1
    assert os.path.isfile(os.path.join(base[0], "sdk", "extension.h"))
    assert cpp_extension.include_paths(torch_include_dirs=False) == []
    with pytest.raises(ValueError, match="device_type 'xpu'"):
        cpp_extension.include_paths("xpu")
    with pytest.raises(ValueError, match="cross_target_platform"):
        cpp_extension.library_paths("cpu", True, "windows")
    lib = cpp_extension.library_paths("cpu")
    assert len(lib) == 1 and any(f.startswith("libsdk_core") for f in os.listdir(lib[0]))
    if cpp_extension.CUDA_HOME:  # torch < 2.5 spelled it include_paths(cuda=True)
        cuda = cpp_extension.include_paths(True)
        assert cuda[:1] == base and cuda == cpp_extension.include_paths("cuda")
        assert cuda == cpp_extension.include_paths(cuda=True)


def test_torch_extensions_dir_is_the_fallback(tmp_path):
    code = "import cpp_extension; print(cpp_extension.get_default_build_root())"
    env = subprocess_env()
    env.pop("SDK_EXTENSIONS_DIR", None)
    env["TORCH_EXTENSIONS_DIR"] = str(tmp_path / "torch_ext")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=import_path(), capture_output=True, text=True
    )
    assert out.stdout.strip() == str(tmp_path / "torch_ext"), out.stderr
    env["SDK_EXTENSIONS_DIR"] = str(tmp_path / "sdk_ext")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=import_path(), capture_output=True, text=True
    )
    assert out.stdout.strip() == str(tmp_path / "sdk_ext"), out.stderr


def test_no_implicit_headers(ext_dir):
    src = "#include <sdk/extension.h>\nint64_t twice(int64_t x) { return 2 * x; }\n"
    m = cpp_extension.load_inline("no_implicit", src, functions="twice", no_implicit_headers=True)
    assert m.twice(21) == 42
    with pytest.raises(cpp_extension.BuildError, match="Tensor"):  # nothing was prepended
        cpp_extension.load_inline(
            "no_implicit_bad", "sdk::Tensor f(sdk::Tensor x) { return x; }", functions="f",
            no_implicit_headers=True,
        )  # fmt: skip


def test_build_directory_helpers_name_where_load_builds(tmp_path, monkeypatch):
    # torch's _get_build_directory, TORCH_LIB_PATH and get_cxx_compiler, which setup.py files
    # and tests call, answer for the SDK's builds
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path))
    folder = cpp_extension._get_build_directory("my_ext", False)
    assert os.path.isdir(folder) and folder.startswith(str(tmp_path))
    assert os.path.basename(folder) == "my_ext"
    assert cpp_extension.TORCH_LIB_PATH == cpp_extension.library_paths()[0]
    assert "TORCH_LIB_PATH" in dir(cpp_extension)
    monkeypatch.setenv("CXX", "g++ -m64")
    assert os.path.basename(cpp_extension.get_cxx_compiler()) == "g++"
