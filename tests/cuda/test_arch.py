"""CUDA architecture list parsing, defaults, -gencode flags, -ccbin and toolkit lookup (no GPU)."""

from __future__ import annotations

import os
import stat
import warnings

import pytest

from cpp_extension import _cuda
from cpp_extension._cuda import Arch, parse_arch_list, resolve_archs
from cpp_extension._errors import BuildError

CUDA13 = frozenset(
    f"sm_{n}" for n in (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)
)  # `nvcc --list-gpu-code` of CUDA 13.0
CUDA12 = frozenset(f"sm_{n}" for n in (50, 52, 60, 61, 70, 75, 80, 86, 89, 90))


@pytest.fixture(autouse=True)
def _no_arch_env(monkeypatch):
    for var in _cuda.ARCH_ENV_VARS:
        monkeypatch.delenv(var, raising=False)


def strs(archs):
    return [str(a) for a in archs]


# ---------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text, expected",
    [
        ("8.0", ["8.0"]),
        ("8.6+PTX", ["8.6+PTX"]),
        ("9.0a", ["9.0a"]),
        ("10.0a", ["10.0a"]),
        ("10.0f", ["10.0f"]),
        ("12.0a+PTX", ["12.0a+PTX"]),
        ("7.5;8.0;8.6", ["7.5", "8.0", "8.6"]),
        ("7.5 8.0  8.6", ["7.5", "8.0", "8.6"]),
        (" 8.0 ; 9.0 ", ["8.0", "9.0"]),
        ("8.0+ptx", ["8.0+PTX"]),
    ],
)
def test_parse_forms(text, expected):
    assert strs(parse_arch_list(text)) == expected


def test_parse_sorts_and_merges_duplicates():
    # the same arch twice keeps one entry, with PTX if either asked for it
    assert strs(parse_arch_list("9.0 8.0 9.0+PTX 8.0")) == ["8.0", "9.0+PTX"]


def test_plain_and_suffixed_variants_are_distinct():
    assert strs(parse_arch_list("9.0 9.0a")) == ["9.0", "9.0a"]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Ampere", ["8.0", "8.6"]),
        ("ampere+PTX", ["8.0", "8.6+PTX"]),
        ("Hopper", ["9.0"]),
        ("Blackwell", ["10.0", "12.0"]),
        ("Turing;Ampere", ["7.5", "8.0", "8.6"]),
        ("Ada", ["8.9"]),
    ],
)
def test_named_families(name, expected):
    assert strs(parse_arch_list(name)) == expected


def test_unknown_wellformed_arch_goes_through():
    # a capability the SDK has never heard of is not refused: nvcc decides
    archs = parse_arch_list("13.7 21.0f")
    assert strs(archs) == ["13.7", "21.0f"]
    assert _cuda.gencode_flags(archs) == [
        "-gencode=arch=compute_137,code=sm_137",
        "-gencode=arch=compute_210f,code=sm_210f",
    ]


@pytest.mark.parametrize(
    "bad", ["8", "sm_80", "8.0.1", "8.0b", "Amperre", "8.0+SASS", "+PTX", "8.x", "9.0aa", "abc;8.0"]
)
def test_malformed_refused_with_accepted_forms(bad):
    with pytest.raises(ValueError) as info:
        parse_arch_list(bad)
    msg = str(info.value)
    assert "accepted" in msg and "X.Y+PTX" in msg and "9.0a" in msg and "Hopper" in msg


def test_empty_list_refused():
    with pytest.raises(ValueError, match="empty"):
        parse_arch_list(" ; ")


def test_arch_names():
    a = Arch(9, 0, "a")
    assert (a.sm, a.compute, a.number) == ("sm_90a", "compute_90a", "90a")
    assert Arch(12, 1).sm == "sm_121"


# ---------------------------------------------------------------------------- gencode


def test_gencode_sass_and_ptx():
    flags = _cuda.gencode_flags(parse_arch_list("8.0;9.0a;12.0+PTX"))
    assert flags == [
        "-gencode=arch=compute_80,code=sm_80",
        "-gencode=arch=compute_90a,code=sm_90a",
        "-gencode=arch=compute_120,code=sm_120",
        "-gencode=arch=compute_120,code=compute_120",
    ]


# ---------------------------------------------------------------------------- sources


def test_env_variable_wins(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "8.0")
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "9.0")
    archs, source = resolve_archs(supported=CUDA13, visible=[Arch(8, 6)])
    assert strs(archs) == ["8.0"] and source == "SDK_CUDA_ARCH_LIST"


def test_torch_variable_is_a_fallback(monkeypatch):
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "7.5;8.6+PTX")
    archs, source = resolve_archs(supported=CUDA13, visible=[])
    assert strs(archs) == ["7.5", "8.6+PTX"] and source == "TORCH_CUDA_ARCH_LIST"


def test_empty_env_is_unset(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "  ")
    _, source = resolve_archs(supported=CUDA13, visible=[])
    assert source.startswith("portable")


def test_explicit_argument_beats_env(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "8.0")
    archs, source = resolve_archs("9.0", supported=CUDA13, visible=[])
    assert strs(archs) == ["9.0"] and source == "argument"


def test_explicit_arch_unknown_to_nvcc_warns_but_passes(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "7.0;8.0")
    with pytest.warns(UserWarning, match="7.0"):
        archs, _ = resolve_archs(supported=CUDA13, visible=[])
    assert strs(archs) == ["7.0", "8.0"]


def test_suffixed_archs_checked_by_number(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "9.0a 10.0f")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        archs, _ = resolve_archs(supported=CUDA13, visible=[])
    assert strs(archs) == ["9.0a", "10.0f"]


def test_visible_gpus_with_ptx_on_newest():
    archs, source = resolve_archs(supported=CUDA13, visible=[Arch(8, 6), Arch(8, 0), Arch(8, 6)])
    assert strs(archs) == ["8.0", "8.6+PTX"] and source == "visible GPUs"


def test_gpu_newer_than_nvcc_gets_newest_ptx():
    archs, _ = resolve_archs(supported=CUDA12, visible=[Arch(12, 0)])
    assert strs(archs) == ["9.0+PTX"]


def test_gpu_older_than_nvcc_is_a_clear_error():
    with pytest.raises(BuildError, match=r"7\.0.*no longer supports.*7\.5"):
        resolve_archs(supported=CUDA13, visible=[Arch(7, 0)])


def test_portable_default_cuda13():
    archs, source = resolve_archs(supported=CUDA13, visible=[])
    assert strs(archs) == ["7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0+PTX"]
    assert "portable" in source
    assert all(a.major * 10 + a.minor >= 75 for a in archs)  # CUDA 13 dropped sm < 7.5


def test_portable_default_cuda12():
    archs, _ = resolve_archs(supported=CUDA12, visible=[])
    assert strs(archs) == ["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0+PTX"]


def test_portable_default_by_version_when_nvcc_cannot_list():
    assert strs(_cuda.portable_archs(None, (13, 0)))[0] == "7.5"
    assert strs(_cuda.portable_archs(None, (12, 4)))[0] == "5.0"
    assert strs(_cuda.portable_archs(None, (13, 0)))[-1].endswith("+PTX")


def test_user_arch_flags_suppress_ours(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "8.0")
    assert _cuda.arch_flags(["-arch=sm_90"]) == []
    assert _cuda.arch_flags(["-gencode=arch=compute_90,code=sm_90"]) == []
    assert _cuda.arch_flags(["-O3"]) == ["-gencode=arch=compute_80,code=sm_80"]


def test_malformed_env_is_a_build_error(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "eighty")
    with pytest.raises(BuildError, match="SDK|accepted"):
        _cuda.arch_flags([])


# ---------------------------------------------------------------------------- flags


def test_ccbin_from_cxx_skips_launchers(monkeypatch):
    assert _cuda.host_compiler({"CXX": "ccache g++-12 -m64"}).endswith("g++-12")
    assert _cuda.host_compiler({"CC": "/opt/gcc/bin/gcc"}) == "/opt/gcc/bin/gcc"
    assert _cuda.host_compiler({"CXX": "", "CC": ""}) is None
    assert _cuda.host_compiler({}) is None


def test_nvcc_flags_compose(monkeypatch):
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", "8.0")
    monkeypatch.setenv("CXX", "/usr/bin/g++")
    flags = _cuda.nvcc_flags(["-O3", "-lineinfo"], rdc=True)
    assert flags[flags.index("-ccbin") + 1] == "/usr/bin/g++"
    assert "-rdc=true" in flags and "-gencode=arch=compute_80,code=sm_80" in flags
    assert flags[-2:] == ["-O3", "-lineinfo"]  # user flags last: they win
    # the user's own -ccbin is respected
    assert "/usr/bin/g++" not in _cuda.nvcc_flags(["-ccbin", "clang++"])
    monkeypatch.delenv("CXX")
    monkeypatch.delenv("CC", raising=False)
    assert "-ccbin" not in _cuda.nvcc_flags([])


def test_dlink_flags_keep_archs_and_ccbin():
    compile_flags = ["-std=c++17", "-ccbin", "g++", "-gencode=arch=compute_80,code=sm_80", "-O2"]
    assert _cuda.dlink_flags(compile_flags) == [
        "-ccbin",
        "g++",
        "-gencode=arch=compute_80,code=sm_80",
    ]


# ---------------------------------------------------------------------------- toolkit


def _fake_toolkit(root, with_headers=True, wrapper_for=None):
    """A folder shaped like a toolkit: bin/nvcc printing a version, include/, lib64/."""
    os.makedirs(os.path.join(root, "bin"))
    nvcc = os.path.join(root, "bin", "nvcc")
    with open(nvcc, "w") as f:
        if wrapper_for:
            f.write(f'#!/bin/sh\nexec {wrapper_for} "$@"\n')
        else:
            f.write('#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.99"\n')
    os.chmod(nvcc, os.stat(nvcc).st_mode | stat.S_IEXEC)
    if with_headers:
        os.makedirs(os.path.join(root, "include"))
        open(os.path.join(root, "include", "cuda_runtime.h"), "w").close()
        os.makedirs(os.path.join(root, "lib64"))
        open(os.path.join(root, "lib64", "libcudart.so"), "w").close()
    return nvcc


def test_cuda_home_is_used(tmp_path, monkeypatch):
    root = str(tmp_path / "cuda")
    _fake_toolkit(root)
    monkeypatch.setenv("CUDA_HOME", root)
    _cuda._find_cached.cache_clear()
    tk = _cuda.find_cuda_toolkit()
    assert tk.root == root and tk.found_by == "CUDA_HOME" and tk.version == (12, 4)
    assert tk.library_dir == os.path.join(root, "lib64")


def test_bad_cuda_home_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "nothing"))
    _cuda._find_cached.cache_clear()
    with pytest.raises(BuildError, match="CUDA_HOME=.*nothing.*bin/nvcc"):
        _cuda.find_cuda_toolkit()


def test_symlinked_nvcc_resolves_to_root(tmp_path, monkeypatch):
    root = str(tmp_path / "cuda-12.4")
    nvcc = _fake_toolkit(root)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(nvcc, bindir / "nvcc")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("NVCC", raising=False)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    _cuda._find_cached.cache_clear()
    tk = _cuda.find_cuda_toolkit()
    assert tk.root == root and tk.found_by == "nvcc on PATH"


def test_missing_toolkit_lists_places(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("NVCC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_cuda, "_has_runtime_headers", lambda root: None)
    _cuda._find_cached.cache_clear()
    with pytest.raises(BuildError) as info:
        _cuda.find_cuda_toolkit()
    msg = str(info.value)
    for place in ("$CUDA_HOME", "$CUDA_PATH", "nvcc on PATH", "/usr/local/cuda"):
        assert place in msg
    _cuda._find_cached.cache_clear()
