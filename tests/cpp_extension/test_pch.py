"""The shared precompiled <sdk/extension.h>: which sources use it, its key, its ninja step."""

from __future__ import annotations

import os
import time

import pytest

import cpp_extension
from cpp_extension import _pch


def test_only_sources_that_start_with_the_extension_header():
    yes = [
        b"#include <sdk/extension.h>\nint x;\n",
        b'// op\n/* more\n comment */\n  #  include "sdk/extension.h"\n#include <vector>\n',
    ]
    no = [
        b"#define SDK_NO_IMPORT_HOOK\n#include <sdk/extension.h>\n",  # a macro before it
        b"#include <vector>\n#include <sdk/extension.h>\n",
        b"int x;\n#include <sdk/extension.h>\n",
        b"#include <sdk/tensor.h>\n",
        b"",
    ]
    assert all(_pch.starts_with_extension_header(t) for t in yes)
    assert not any(_pch.starts_with_extension_header(t) for t in no)


def test_gcc_only_and_opt_out(monkeypatch):
    gcc = "/usr/bin/c++: c++ (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free Software Foundation"
    assert _pch.enabled(gcc)
    assert not _pch.enabled("/usr/bin/clang++: Debian clang version 16.0.6")
    monkeypatch.setenv("SDK_EXTENSIONS_NO_PCH", "1")
    assert not _pch.enabled(gcc)


def test_include_dirs_with_their_own_sdk_headers_turn_it_off(tmp_path):
    sdk_inc = str(tmp_path / "sdk_include")
    mine, old = tmp_path / "mine", tmp_path / "old_release"
    mine.mkdir()
    (old / "sdk").mkdir(parents=True)
    assert not _pch.shadowed([f"-I{mine}", f"-I{sdk_inc}", "-Ipybind11_dir"], sdk_inc)
    assert _pch.shadowed([f"-I{old}", f"-I{sdk_inc}"], sdk_inc)
    # after the sdk's own dir it cannot shadow anything
    assert not _pch.shadowed([f"-I{sdk_inc}", f"-I{old}"], sdk_inc)


def test_key_ignores_the_extension_name_only(tmp_path, monkeypatch):
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path))
    base = ["-std=c++17", "-O2", "-fPIC"]
    a = _pch.Pch([*base, "-DSDK_EXTENSION_NAME=a"], "gcc 12")
    b = _pch.Pch([*base, "-DSDK_EXTENSION_NAME=b"], "gcc 12")
    assert a.dir == b.dir and a.dir.parent == tmp_path / "pch"
    assert _pch.Pch([*base, "-O3"], "gcc 12").dir != a.dir
    assert _pch.Pch(base, "gcc 13").dir != a.dir
    cmd = a.build_command(["/usr/bin/c++"])
    assert "-x c++-header" in cmd and "SDK_EXTENSION_NAME" not in cmd and "failed" in cmd


def test_later_extensions_compile_with_the_shared_pch(tmp_path, ext_dir):
    src = (
        "// a comment first is fine\n#include <sdk/extension.h>\n"
        "int twice(int x) { return 2 * x; }\n"
        'PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("twice", &twice); }\n'
    )
    flags = ["-Winvalid-pch"]  # gcc says so in the build log if it refuses the .gch
    for name in ("pch_a", "pch_b"):
        (tmp_path / f"{name}.cpp").write_text(src)
    a = cpp_extension.load("pch_a", [str(tmp_path / "pch_a.cpp")], extra_cflags=flags)
    if not list((ext_dir / "pch").glob("*/sdk_extension.h.gch")):
        pytest.skip("no precompiled header was made (compiler is not gcc, or one job only)")
    b = cpp_extension.load("pch_b", [str(tmp_path / "pch_b.cpp")], extra_cflags=flags)
    build_dir = ext_dir / next(ext_dir.glob("py*")).name / "pch_b"
    ninja = (build_dir / "build.ninja").read_text()
    assert "-include" in ninja
    assert "--param=ggc-min-heapsize=" in ninja  # gcc: fewer garbage collections
    assert "invalid" not in (build_dir / "build.log").read_text()
    assert a.twice(2) == 4 and b.twice(21) == 42


def test_only_the_most_recently_used_headers_are_kept(tmp_path, monkeypatch):
    """Each flag set (and each sdk upgrade) makes a new ~140 MB .gch; old ones are deleted."""
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path))
    old = time.time() - 3600
    made = []
    for i in range(_pch.KEEP + 2):
        p = _pch.Pch(["-std=c++17", f"-DFLAVOUR={i}"], "gcc 12")
        p.prepare()
        p.gch.write_bytes(b"gch")
        made.append(p)
    for i, p in enumerate(made):
        os.utime(p.gch, (old + i, old + i))  # made in this order, an hour ago
    made[0].touch()  # the oldest was just used again: it stays
    young = _pch.Pch(["-std=c++17", "-DFLAVOUR=young"], "gcc 12")
    young.dir.mkdir(parents=True)  # a build in progress elsewhere: no .gch yet
    newest = _pch.Pch(["-std=c++17", "-DFLAVOUR=new"], "gcc 12")
    newest.prepare()
    kept = {d.name for d in (tmp_path / "pch").iterdir()}
    # KEEP - 1 others by last use: the young folder and made[0]; the in-progress one
    # also survives its grace period even beyond that
    assert newest.dir.name in kept and made[0].dir.name in kept and young.dir.name in kept
    assert all(p.dir.name not in kept for p in made[1:])
