"""Split code generation: a one-source pybind11 build compiles to GIMPLE (-flto) and gcc
generates the machine code at the link in parallel partitions (-flto=N)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

import cpp_extension
import sdk
from cpp_extension.builder import toolchain as _toolchain

_IDENTS = Path(tempfile.gettempdir()) / "sdk_test_split_codegen_toolchains.json"

SOURCE = """#include <sdk/extension.h>
sdk::Tensor affine(const sdk::Tensor& x, double a, double b) { return x * a + b; }
PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("affine", &affine); }
"""


def _gcc() -> list[str]:
    argv = _toolchain.compiler_command("cxx")
    if not _toolchain.is_gcc(_toolchain.compiler_identity(argv, _IDENTS)):
        pytest.skip("split code generation is gcc-only")
    return argv


def _jobs(argv, flags=(), launcher=(), sources=1) -> int:
    jobs = _toolchain.default_jobs()
    return _toolchain.split_codegen_jobs(argv, _IDENTS, list(launcher), list(flags), sources, jobs)


def test_when_it_applies(monkeypatch):
    argv = _gcc()
    monkeypatch.delenv("SDK_EXTENSIONS_NO_LTO", raising=False)
    monkeypatch.setenv("MAX_JOBS", "2")
    assert _jobs(argv, ["-O2"]) == 2
    assert _jobs(argv, ["-O2"], sources=2) == 0  # ninja already fills both slots
    assert _jobs(argv, ["-O2"], sources=0) == 0  # nothing to split (a C-only build)
    assert _jobs(argv, ["-O2"], launcher=["/usr/bin/ccache"]) == 0  # ccache caches objects
    assert _jobs(argv, ["-O2", "-O0"]) == 0  # the last -O wins: a debug build
    assert _jobs(argv, ["-O2", "-Og"]) == 0
    assert _jobs(argv, ["-O0", "-O3"]) == 2
    assert _jobs(argv, ["-O2", "-fno-lto"]) == 0  # the user's own LTO choice wins
    assert _jobs(argv, ["-O2", "-flto=auto"]) == 0
    monkeypatch.setenv("MAX_JOBS", "1")
    assert _jobs(argv, ["-O2"]) == 0
    monkeypatch.setenv("MAX_JOBS", "4")
    assert _jobs(argv, ["-O2"], sources=3) == 4
    monkeypatch.setenv("SDK_EXTENSIONS_NO_LTO", "1")
    assert _jobs(argv, ["-O2"]) == 0


def test_not_for_other_compilers(monkeypatch, tmp_path):
    monkeypatch.setenv("MAX_JOBS", "2")
    fake = tmp_path / "clang++"
    fake.write_text("#!/bin/sh\necho 'Debian clang version 16.0.6'\n")
    fake.chmod(0o755)
    assert _jobs([str(fake)], ["-O2"]) == 0


@pytest.mark.parametrize("off", [False, True])
def test_the_module_is_the_same_either_way(tmp_path, ext_dir, monkeypatch, off):
    _gcc()
    if off:
        monkeypatch.setenv("SDK_EXTENSIONS_NO_LTO", "1")
    path = tmp_path / "affine.cpp"
    path.write_text(SOURCE)
    name = "split_off" if off else "split_on"
    m = cpp_extension.load(name, [str(path)], extra_cflags=["-O3"])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(m.affine(x, 2.0, 1.0).numpy(), x * 2 + 1)
    assert isinstance(m.affine(sdk.ones(2), 0.5, 0.0), sdk.Tensor)
    ninja = (ext_dir / next(ext_dir.glob("py*")).name / name / "build.ninja").read_text()
    link = next(line for line in ninja.splitlines() if "-shared" in line)
    if off:
        assert "-flto" not in ninja
    else:
        # compiled to GIMPLE; the link generates code in 2 processes at the user's -O3, from
        # 4 partitions even for a program this small
        assert " -flto" in ninja and "-flto=2" in link and "-O3" in link
        assert "--param=lto-partitions=4" in link and "--param=lto-min-partition=" in link


def test_user_flags_turn_it_off_in_the_build(tmp_path, ext_dir):
    _gcc()
    path = tmp_path / "affine_dbg.cpp"
    path.write_text(SOURCE)
    m = cpp_extension.load("split_dbg", [str(path)], extra_cflags=["-O0", "-g"])
    assert m.affine(sdk.ones(1), 3.0, 0.0).tolist() == [3.0]
    ninja = (ext_dir / next(ext_dir.glob("py*")).name / "split_dbg" / "build.ninja").read_text()
    assert "-flto" not in ninja


def test_a_linker_without_lto_falls_back_once(tmp_path, ext_dir, monkeypatch):
    """A toolchain whose LTO link fails (a linker without gcc's plugin): the build still
    succeeds the usual way, the message names the cause, and later builds skip LTO."""
    argv = _gcc()
    real = argv[0] if len(argv) == 1 else None
    if real is None:
        pytest.skip("the compiler command has arguments")
    wrapper = tmp_path / "bin" / "g++"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case "$a" in -flto=*) '
        'echo "ld: error: could not load the LTO plugin (test stand-in)" >&2; exit 1;; '
        "esac; done\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("CXX", str(wrapper))
    monkeypatch.delenv("SDK_EXTENSIONS_NO_LTO", raising=False)
    path = tmp_path / "affine.cpp"
    path.write_text(SOURCE)
    m = cpp_extension.load("lto_fallback", [str(path)], extra_cflags=["-O2"])
    np.testing.assert_array_equal(m.affine(np.ones(3, np.float32), 2.0, 1.0).numpy(), [3, 3, 3])
    root = next(ext_dir.glob("py*"))
    assert "-flto" not in (root / "lto_fallback" / "build.ninja").read_text()
    idents = next(ext_dir.rglob(_toolchain.TOOLCHAINS_FILE_NAME))
    assert "LTO plugin" in (_toolchain.lto_failure([str(wrapper)], idents) or "")
    _toolchain._LTO_FAILURES.clear()  # as a new process would: the note is on disk
    assert _toolchain.split_codegen_jobs([str(wrapper)], idents, [], ["-O2"], 1, 2) == 0
