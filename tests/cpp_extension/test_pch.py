"""The shared precompiled <sdk/extension.h>: which sources use it, its key, its ninja step."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pybind11
import pytest

import cpp_extension
from cpp_extension.builder import pch as _pch
from cpp_extension.builder import runtime as _runtime
from cpp_extension.builder import toolchain as _toolchain


def test_only_sources_that_start_with_the_extension_header():
    yes = [
        b"#include <sdk/extension.h>\nint x;\n",
        b'// op\n/* more\n comment */\n  #  include "sdk/extension.h"\n#include <vector>\n',
        b"#include <vector>\n#include <cmath>  // std::exp\n#include <sdk/extension.h>\n",
    ]
    no = [
        b"#define SDK_NO_IMPORT_HOOK\n#include <sdk/extension.h>\n",  # a macro before it
        b'#include "config.h"\n#include <sdk/extension.h>\n',  # a local header: macros
        b"#include <math.h>\n#include <sdk/extension.h>\n",  # not a bare standard name
        b"#include <Python.h>\n#include <sdk/extension.h>\n",
        b"#include <pybind11/pybind11.h>\n#include <sdk/extension.h>\n",
        b"#include <vector>\n#undef NDEBUG\n#include <sdk/extension.h>\n",
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


def _dynamic_symbols(path) -> set[str]:
    from sdk.utils import elf as _elf

    return set(_elf.ElfFile(str(path)).dynamic_symbols())


def _split_or_skip(ext_dir, monkeypatch):
    from cpp_extension.builder import toolchain as _toolchain

    monkeypatch.delenv("SDK_EXTENSIONS_NO_LTO", raising=False)
    argv = _toolchain.compiler_command("cxx")
    jobs = _toolchain.default_jobs()
    if not _toolchain.split_codegen_jobs(argv, ext_dir / "t.json", [], ["-O2"], 1, jobs):
        pytest.skip("no split code generation here (gcc, 2 jobs and make are needed)")


HALVES = (
    "#include <sdk/extension.h>\n"
    "std::vector<sdk::Tensor> halves(sdk::Tensor x) { return {x * 0.5, x - x * 0.5}; }\n"
    'PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("halves", &halves); }\n'
)


def _build_halves(tmp_path, ext_dir, name, text=HALVES, **kw):
    """Build and check a module; returns its build folder and the link line of build.ninja."""
    (tmp_path / f"{name}.cpp").write_text(text)
    m = cpp_extension.load(name, [str(tmp_path / f"{name}.cpp")], **kw)
    x = np.arange(4, dtype=np.float32)
    a, b = m.halves(x)
    np.testing.assert_array_equal(a.numpy() + b.numpy(), x)
    folder = next(ext_dir.glob("py*")) / name
    ninja = (folder / "build.ninja").read_text()
    return folder, next(line for line in ninja.splitlines() if ": link " in line)


def test_a_first_build_links_the_installed_runtime_object(tmp_path, ext_dir, monkeypatch):
    """setup.py compiles pybind11's runtime for load()'s default flags into sdk/lib: the first
    build of a fresh cache links it first instead of generating pybind11's runtime."""
    from cpp_extension.builder import toolchain as _toolchain

    _split_or_skip(ext_dir, monkeypatch)
    lib_dir = Path(_toolchain.sdk_paths().library_dir)
    installed = lib_dir / _runtime.OBJECT_NAME
    assert installed.is_file() and (lib_dir / _runtime.KEY_NAME).is_file(), (
        "setup.py made no pybind11_runtime.o (is pybind11 a build requirement?)"
    )
    ext_dir.mkdir(parents=True, exist_ok=True)
    (ext_dir / "pch").write_text("not a folder")  # no background job can start: no matter
    record = _runtime.installed_record(str(lib_dir))
    if record.get("pybind11") != pybind11.__version__:
        pytest.skip(f"sdk was built with pybind11 {record.get('pybind11')}, not this one")
    folder, link = _build_halves(tmp_path, ext_dir, "inst_a")
    assert link.split(": link ")[1].startswith(str(installed)), (
        f"the installed runtime object ({record}) does not fit a default load() here"
    )
    (ext_dir / "pch").unlink()
    # C++ standard headers before it change nothing pybind11 compiles: still shared
    # and -O3, -g, warnings change how code is generated, not what it means: shared too
    text = "#include <vector>\n" + HALVES
    _, link = _build_halves(tmp_path, ext_dir, "inst_c", text, extra_cflags=["-O3", "-Wall"])
    assert link.split(": link ")[1].startswith(str(installed))
    exported = _dynamic_symbols(folder / "inst_a.so")
    assert "PyInit_inst_a" in exported and not any("runtime_stub" in s for s in exported)
    # other flags are another key: not used, the cache makes its own in the background
    _, link = _build_halves(tmp_path, ext_dir, "inst_b", extra_cflags=["-DOTHER_FLAGS=1"])
    assert str(installed) not in link


def test_no_build_waits_for_the_shared_header(tmp_path, ext_dir, monkeypatch):
    """The .gch (and the cache's runtime object) are made by a detached job, started once the
    build has linked (beside it, it would slow the build down): a header compile that cannot
    finish until the test lets it does not hold up the build that starts it."""
    _split_or_skip(ext_dir, monkeypatch)
    release = tmp_path / "release"
    events = tmp_path / "events"
    slow = tmp_path / "slowcxx"
    slow.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" c++-header "*) echo header >> {events}; n=0; '
        f"while [ ! -e {release} ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n+1)); done;; esac\n"
        f'case " $* " in *" -shared "*) c++ "$@" && echo linked >> {events}; exit $?;; esac\n'
        'exec c++ "$@"\n'
    )
    slow.chmod(0o755)
    monkeypatch.setenv("CXX", str(slow))
    _build_halves(tmp_path, ext_dir, "bg_a")  # returns while the header compile is held
    (pch_dir,) = list((ext_dir / "pch").glob("*"))
    if not (pch_dir / _pch.BUSY).exists():
        pytest.skip("no background job here")
    assert not (pch_dir / (_pch.STUB + ".gch")).exists()
    deadline = time.monotonic() + 60
    while "header" not in events.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events.read_text().split() == ["linked", "header"]
    assert not _pch.wait_for_background_jobs(0.5)  # the job is still running
    release.touch()
    assert _pch.wait_for_background_jobs(300)
    assert (pch_dir / (_pch.STUB + ".gch")).is_file()
    # a wrapper is another compiler identity: the installed object does not fit, so the same
    # job made the cache's, and the next build links it first and uses the .gch
    folder, link = _build_halves(tmp_path, ext_dir, "bg_b")
    assert link.split(": link ")[1].startswith(str(pch_dir / _pch.RUNTIME))
    assert "-include" in (folder / "build.ninja").read_text()


# Flags that neither installed object fits: a first build starts the background job.
SETTLED = {"extra_cflags": ["-DCACHE_RUNTIME=1", "-Winvalid-pch"]}  # gcc logs a refused .gch
COMMENT_FIRST = "// a comment first is fine\n" + HALVES


@pytest.fixture(scope="module")
def settled(tmp_path_factory):
    """(folder, cache): a cache whose first build, with flags neither installed object fits,
    started the background job (.gch, runtime object), and the job has ended. The tests of
    what later builds do with the job's files share it: a first build and a job cost ~30 s."""
    tmp = tmp_path_factory.mktemp("settled")
    cache = tmp / "ext_cache"
    with pytest.MonkeyPatch.context() as mp:
        _cache_env(mp, cache)
        _build_halves(tmp, cache, "first", COMMENT_FIRST, **SETTLED)
        assert _pch.wait_for_background_jobs(300), "the background job never ended"
    return tmp, cache


def _cache_env(mp, cache) -> None:
    """What the ext_dir fixture sets, for `cache`, and split code generation allowed."""
    mp.setenv("SDK_EXTENSIONS_DIR", str(cache))
    mp.setenv("MAX_JOBS", "2")
    mp.setenv("SDK_EXTENSIONS_NO_CCACHE", "1")
    mp.delenv("SDK_EXTENSIONS_NO_LTO", raising=False)


def _settled_gch(settled, monkeypatch) -> Path:
    """The settled cache's .gch (skip where the job made none), with its cache in the env."""
    tmp, cache = settled
    _cache_env(monkeypatch, cache)
    made = list((cache / "pch").glob("*/sdk_extension.h.gch"))
    if not made:
        pytest.skip("no precompiled header was made (compiler is not gcc, or one job only)")
    return made[0]


def test_later_extensions_compile_with_the_shared_pch(settled, monkeypatch):
    _settled_gch(settled, monkeypatch)
    tmp, cache = settled
    folder, _ = _build_halves(tmp, cache, "pch_b", COMMENT_FIRST, **SETTLED)
    ninja = (folder / "build.ninja").read_text()
    assert "-include" in ninja
    assert "--param=ggc-min-heapsize=" in ninja  # gcc: fewer garbage collections
    assert "invalid" not in (folder / "build.log").read_text()


def test_the_cache_runtime_object(settled, monkeypatch):
    """For flags the installed object does not fit, the background job makes one in the
    cache; split-codegen links put it first. It is not an intermediate of any extension;
    a damaged one is dropped."""
    tmp, cache = settled
    _split_or_skip(tmp, monkeypatch)
    runtime = _settled_gch(settled, monkeypatch).parent / _pch.RUNTIME
    assert runtime.is_file()
    folder, link = _build_halves(tmp, cache, "rt_c", keep_intermediates=False, **SETTLED)
    assert link.split(": link ")[1].startswith(str(runtime))  # first: its copies prevail
    exported = _dynamic_symbols(folder / "rt_c.so")
    assert "PyInit_rt_c" in exported and not any("runtime_stub" in s for s in exported)
    assert runtime.is_file()  # keep_intermediates=False removes the extension's own objects only
    # a source with a macro before the header may compile pybind11 differently: not shared
    _, link = _build_halves(tmp, cache, "rt_d", "#define RT_D 1\n" + HALVES, **SETTLED)
    assert str(runtime) not in link
    # a damaged runtime object: the link fails on it, it is deleted, the link runs without it
    runtime.write_bytes(runtime.read_bytes()[:100])
    folder, _ = _build_halves(tmp, cache, "rt_e", **SETTLED)
    assert not runtime.exists()
    assert "PyInit_rt_e" in _dynamic_symbols(folder / "rt_e.so")


def test_a_damaged_installed_runtime_object_is_never_deleted(tmp_path, ext_dir, monkeypatch):
    """The installed object may sit in a read-only site-packages: a link that fails on it
    marks its key rejected in the cache and links without it; later builds skip it."""
    from cpp_extension.builder import toolchain as _toolchain

    _split_or_skip(ext_dir, monkeypatch)
    real = _toolchain.sdk_paths()
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in os.listdir(real.library_dir):
        if name.endswith(".so"):
            (lib / name).symlink_to(Path(real.library_dir, name))
    key_file = Path(real.library_dir, _runtime.KEY_NAME)
    if not key_file.is_file():
        pytest.skip("no installed runtime object")
    (lib / _runtime.KEY_NAME).write_text(key_file.read_text())
    key = _runtime.installed_record(str(lib))["key"]
    # the installed header too, as in a real install: both builds compile with it, and what
    # is checked (the damaged object is kept, rejected once, skipped after) is the same
    for name in (_runtime.PCH_SEED_NAME, _runtime.PCH_KEY_NAME):
        if Path(real.library_dir, name).is_file():
            shutil.copyfile(Path(real.library_dir, name), lib / name)
    damaged = lib / _runtime.OBJECT_NAME
    damaged.write_bytes(Path(real.library_dir, _runtime.OBJECT_NAME).read_bytes()[:100])
    paths = _toolchain.SdkPaths(real.include_dir, str(lib / "libsdk_core.so"), real.abi)
    monkeypatch.setattr(_toolchain, "_SDK_PATHS", paths)
    folder, link = _build_halves(tmp_path, ext_dir, "dmg_a")
    assert damaged.is_file() and damaged.stat().st_size == 100
    marker = ext_dir / "pch" / f"{key}.{_pch.REJECTED}"
    assert marker.is_file()
    _, link = _build_halves(tmp_path, ext_dir, "dmg_b")
    assert str(damaged) not in link


def test_the_key_follows_header_contents_not_folders(tmp_path):
    """A package is built in one folder and installed in another: the key of the installed
    runtime object must not depend on where the headers are, only on what they say."""
    from cpp_extension.builder import toolchain as _toolchain

    include = _toolchain.sdk_paths().include_dir
    copy = tmp_path / "include"
    shutil.copytree(include, copy)
    flags = ["-std=c++17", "-O2", *_runtime.installed_flags(include)[3:]]
    moved = ["-std=c++17", "-O2", *_runtime.installed_flags(str(copy))[3:]]
    assert moved != flags
    assert _runtime.key(moved, "gcc 12", str(copy)) == _runtime.key(flags, "gcc 12", include)
    with open(copy / "sdk" / "tensor.h", "a") as f:
        f.write("// changed\n")
    assert _runtime.key(moved, "gcc 12", str(copy)) != _runtime.key(flags, "gcc 12", include)
    assert _runtime.key([*flags, "-O3"], "gcc 12", include) != _runtime.key(
        flags, "gcc 12", include
    )
    assert _runtime.key(flags, "gcc 13", include) != _runtime.key(flags, "gcc 12", include)
    # a runtime object serves other optimisation levels, debug info and warnings, not macros
    obj = _runtime.object_key(flags, "gcc 12", include)
    same = [*flags, "-O3", "-g", "-Wall", "-march=native"]
    assert _runtime.object_key(same, "gcc 12", include) == obj
    for other in ("-DNDEBUG", "-Wp,-DNDEBUG", "-fno-exceptions", "-std=c++20"):
        assert _runtime.object_key([*flags, other], "gcc 12", include) != obj, other


def _installed_pch_or_skip(ext_dir, monkeypatch) -> Path:
    _split_or_skip(ext_dir, monkeypatch)
    lib_dir = _toolchain.sdk_paths().library_dir
    record = _runtime.installed_record(lib_dir, _runtime.PCH_KEY_NAME)
    if not record:
        pytest.skip("setup.py made no precompiled header here")
    if record.get("pybind11") != pybind11.__version__:
        pytest.skip(f"sdk was built with pybind11 {record.get('pybind11')}, not this one")
    return Path(lib_dir, _runtime.PCH_SEED_NAME)


def test_a_first_build_unpacks_the_installed_header(tmp_path, ext_dir, monkeypatch):
    """setup.py precompiles <sdk/extension.h> for load()'s default flags into the package,
    compressed: the first build of a fresh cache unpacks it and compiles with it (no parse of
    pybind11), and no background job is left to make anything."""
    seed = _installed_pch_or_skip(ext_dir, monkeypatch)
    before = seed.read_bytes()
    folder, _ = _build_halves(tmp_path, ext_dir, "seed_a")
    (pch_dir,) = list((ext_dir / "pch").glob("*"))
    gch = pch_dir / (_pch.STUB + ".gch")
    assert gch.is_file(), "the installed header does not fit a default load() here"
    assert "-include" in (folder / "build.ninja").read_text()
    assert _pch.wait_for_background_jobs(0.5), "a background job was started"
    assert not list(pch_dir.glob("*.tmp")) and seed.read_bytes() == before
    # gcc takes it: -H marks a precompiled header it uses with "!" (one it refuses with "x")
    cxx = [
        *_toolchain.compiler_command("cxx"),
        *_runtime.installed_flags(_toolchain.sdk_paths().include_dir),
    ]
    use = ["-include", str(pch_dir / _pch.STUB)]
    probe = subprocess.run(
        [*cxx, *use, "-H", "-fsyntax-only", "-x", "c++", "-"],
        input="int main() { return 0; }\n",
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert f"! {gch}" in probe.stderr, probe.stderr[:2000]
    # and it changes nothing but the speed: the object is the same byte for byte, once the
    # header folders are spelled by name in __FILE__ as in the installed header (it may have
    # been compiled in pip's temporary build environment)
    names = _runtime.macro_prefix_map(_toolchain.sdk_paths().include_dir)
    objects = []
    for extra in (names, [*names, *use]):
        obj = tmp_path / f"seed{len(extra)}.o"
        cmd = [*cxx, "-DSDK_EXTENSION_NAME=seed_a", *extra, "-c", str(tmp_path / "seed_a.cpp")]
        subprocess.run([*cmd, "-o", str(obj)], check=True)
        objects.append(obj.read_bytes())
    assert objects[0] == objects[1]


def test_a_damaged_installed_header_is_left_alone(tmp_path, ext_dir, monkeypatch):
    """A truncated or foreign seed: the build compiles without it, the background job makes
    the cache's .gch as for any other flags, and the installed file is not touched."""
    seed = _installed_pch_or_skip(ext_dir, monkeypatch)
    real = _toolchain.sdk_paths()
    lib = tmp_path / "lib"
    lib.mkdir()
    for name in os.listdir(real.library_dir):
        if not name.startswith("sdk_extension.h.gch"):
            (lib / name).symlink_to(Path(real.library_dir, name))
    (lib / _runtime.PCH_KEY_NAME).write_text(
        Path(real.library_dir, _runtime.PCH_KEY_NAME).read_text()
    )
    damaged = lib / _runtime.PCH_SEED_NAME
    damaged.write_bytes(seed.read_bytes()[:100_000])
    paths = _toolchain.SdkPaths(real.include_dir, str(lib / "libsdk_core.so"), real.abi)
    monkeypatch.setattr(_toolchain, "_SDK_PATHS", paths)
    folder, _ = _build_halves(tmp_path, ext_dir, "seed_bad")
    assert "-include" not in (folder / "build.ninja").read_text()
    assert damaged.stat().st_size == 100_000
    (pch_dir,) = list((ext_dir / "pch").glob("*"))
    assert _pch.wait_for_background_jobs(300)
    # (checked after the job: while it runs, its half-written .gch is a .tmp by design)
    assert not list(pch_dir.glob("*.tmp"))
    assert (pch_dir / (_pch.STUB + ".gch")).is_file()  # made by the job instead


def test_the_seed_format_round_trips_and_refuses_damage(tmp_path):
    data = os.urandom(1 << 16) * 200  # 13 MB: two chunks
    seed = tmp_path / "seed"
    seed.write_bytes(_runtime.pack_pch(data))
    out = tmp_path / "out.gch"
    assert _runtime.unpack_pch(seed, out) and out.read_bytes() == data
    packed = seed.read_bytes()
    for bad in (packed[:-1], packed + b"x", b"garbage" + packed, packed[:40]):
        out.write_bytes(b"kept")
        seed.write_bytes(bad)
        assert not _runtime.unpack_pch(seed, out)
        assert out.read_bytes() == b"kept" and not list(tmp_path.glob("*.tmp"))
    # a chunk whose bytes are damaged inside
    mid = len(packed) // 2
    seed.write_bytes(packed[:mid] + bytes([packed[mid] ^ 0xFF]) + packed[mid + 1 :])
    assert not _runtime.unpack_pch(seed, out) and out.read_bytes() == b"kept"


def test_setup_makes_the_seed_unless_told_not_to(tmp_path, monkeypatch):
    """build_installed (what setup.py runs) writes the runtime object and the compressed
    header with their keys; SDK_EXTENSIONS_NO_PCH=1 at build time leaves the header out and
    drops one from an earlier build. A stand-in compiler writes its arguments as output."""
    fake = tmp_path / "g++"
    fake.write_text(
        "#!/bin/sh\n"
        'case "$*" in *--version*) echo "g++ (GCC) 12.2.0 Free Software Foundation"; exit 0;; esac\n'
        'out=; prev=; for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done\n'
        'echo "$*" > "$out"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake))
    include = _toolchain.sdk_paths().include_dir
    lib, work = tmp_path / "lib", tmp_path / "work"
    monkeypatch.setenv("SDK_EXTENSIONS_NO_PCH", "0")
    assert _runtime.build_installed(include, lib, work) is None
    ident = _toolchain.compiler_identity([str(fake)], work / "toolchains.json")
    key = _runtime.key(_runtime.installed_flags(include), ident, include)
    seed = _runtime.installed_pch(key, str(lib))
    assert seed is not None and _runtime.installed_pch("other", str(lib)) is None
    assert _runtime.unpack_pch(seed, tmp_path / "out.gch")
    assert "c++-header" in (tmp_path / "out.gch").read_text()  # the header's compile output
    assert (lib / _runtime.OBJECT_NAME).is_file()
    monkeypatch.setenv("SDK_EXTENSIONS_NO_PCH", "1")
    assert _runtime.build_installed(include, lib, work) is None
    assert (lib / _runtime.OBJECT_NAME).is_file() and (lib / _runtime.KEY_NAME).is_file()
    assert not (lib / _runtime.PCH_SEED_NAME).exists()
    assert not (lib / _runtime.PCH_KEY_NAME).exists()


def test_prepare_makes_what_setup_deferred(tmp_path, ext_dir, monkeypatch, capsys):
    """`python -m cpp_extension prepare` writes the runtime object and the header into the
    sdk package's lib folder, as setup.py does unless SDK_DEFER_PYBIND11_RUNTIME=1, and says
    why when it cannot."""
    from cpp_extension.__main__ import main

    fake = tmp_path / "g++"
    fake.write_text(
        "#!/bin/sh\n"
        'case "$*" in *--version*) echo "g++ (GCC) 12.2.0 Free Software Foundation"; exit 0;; esac\n'
        '[ -n "$FAIL" ] && { echo "error: no room" >&2; exit 1; }\n'
        'out=; prev=; for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done\n'
        'echo "$*" > "$out"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake))
    monkeypatch.setenv("SDK_EXTENSIONS_NO_PCH", "0")
    real = _toolchain.sdk_paths()
    lib = tmp_path / "lib"
    paths = _toolchain.SdkPaths(real.include_dir, str(lib / "libsdk_core.so"), real.abi)
    monkeypatch.setattr(_toolchain, "_SDK_PATHS", paths)
    monkeypatch.setenv("FAIL", "1")
    assert main(["prepare"]) == 1
    assert "prepare: nothing made" in capsys.readouterr().err
    assert not (lib / _runtime.OBJECT_NAME).exists()
    monkeypatch.delenv("FAIL")
    assert main(["prepare"]) == 0
    ident = _toolchain.compiler_identity([str(fake)], tmp_path / "t.json")
    flags = _runtime.installed_flags(real.include_dir)
    assert _runtime.installed_object(flags, ident, real.include_dir, str(lib)) is not None
    assert _runtime.installed_pch(_runtime.key(flags, ident, real.include_dir), str(lib))
    capsys.readouterr()
    monkeypatch.setenv("FAIL", "1")  # up to date: nothing is compiled again
    assert main(["prepare"]) == 0 and "up to date" in capsys.readouterr().out
