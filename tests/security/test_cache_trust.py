"""The JIT cache's trust model (cpp_extension/builder/trust.py): load() uses only folders that are
this user's (or root's) and nobody else may write, creates its own with mode 0700, and never
follows a symbolic link it did not make.

Each attack here worked before the checks: a binary planted in a cache root another user
made was loaded, a header planted in the shared precompiled-header folder was compiled into
every pybind11 build, links planted in a build folder made load() overwrite their targets.
"""

from __future__ import annotations

import json
import os
import stat
import statistics
import time
from pathlib import Path

import pytest

import cpp_extension
import sdk
from cpp_extension import CacheError
from cpp_extension.builder import cache as _cache
from cpp_extension.builder import trust as _trust
from tests.cpp_extension.conftest import require_core, run_python
from tests.security.conftest import ATTACKER, abi_version, as_attacker, compile_c, needs_root

SOURCE = r"""
SDK_EXPORT(scale, "(Tensor x, float a) -> Tensor")
sdk_status scale(const sdk_tensor* x, double a, sdk_tensor** out) {
  sdk_scalar s = {a, 0, SDK_SCALAR_FLOAT, 0};
  return sdk_binary_scalar(SDK_MUL, x, s, 0, NULL, out);
}
"""

# A binary the attacker puts in place of the victim's: its constructor runs at dlopen.
PLANTED = r"""
#include <stdint.h>
#include <stdio.h>
__attribute__((visibility("default"))) const uint32_t sdk_extension_abi_version = %(abi)du;
__attribute__((visibility("default"))) const char sdk_sig_scale[] = "(Tensor x, float a) -> Tensor";
__attribute__((visibility("default"))) int scale(void* x, double a, void** out) { return 4; }
__attribute__((constructor)) static void planted(void) {
  FILE* f = fopen("%(marker)s", "w");
  if (f) { fputs("planted code ran", f); fclose(f); }
}
"""

LOAD = """
import json, cpp_extension, sdk
try:
    m = cpp_extension.load_inline({name!r}, {source!r}, bridge="ctypes")
    print(json.dumps({{"ok": True, "y": m.scale(sdk.ones(2), 3.0).tolist(),
                       "dir": cpp_extension.last_load_info()["build_directory"]}}))
except Exception as e:
    print(json.dumps({{"ok": False, "type": type(e).__name__, "msg": str(e)}}))
"""


@pytest.fixture(autouse=True)
def _core():
    require_core("sdk_binary_scalar")


def _load(name: str, **kw):
    return cpp_extension.load_inline(name, SOURCE, bridge="ctypes", **kw)


def _load_in_child(name: str, root: Path) -> dict:
    proc = run_python(LOAD.format(name=name, source=SOURCE), SDK_EXTENSIONS_DIR=str(root))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _flavor() -> str:
    from cpp_extension.builder import toolchain as _toolchain

    return _cache.flavor(_toolchain.sdk_paths().abi[0])


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# --------------------------------------------------------------------------- folders


def test_default_root_and_build_folders_are_private(tmp_path, monkeypatch, cache_env):
    cache_env(tmp_path / "unused")  # the build settings; the root is the default one:
    monkeypatch.delenv("SDK_EXTENSIONS_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _load("sec_private").scale(sdk.ones(2), 2.0).tolist() == [2.0, 2.0]
    root = tmp_path / "xdg" / "sdk_extensions"
    assert Path(cpp_extension.get_default_build_root()) == root
    for folder in (root, root / _flavor(), root / _flavor() / "sec_private"):
        assert _mode(folder) == 0o700, f"{folder} is {_mode(folder):o}"


@pytest.mark.parametrize("level", ["root", "flavor", "build"])
@pytest.mark.parametrize("fault", ["world-writable", "symlink"])
def test_a_folder_others_may_change_is_refused(tmp_path, cache_env, level, fault):
    root = cache_env(tmp_path / "cache")
    chain = {"root": root, "flavor": root / _flavor(), "build": root / _flavor() / "sec_fault"}
    for folder in chain.values():
        folder.mkdir(mode=0o700)
    bad = chain[level]
    if fault == "world-writable":
        bad.chmod(0o777)
        problem = "everyone may write it (mode 0777)"
    else:
        real = tmp_path / "elsewhere"
        bad.rename(real)
        bad.symlink_to(real)
        problem = "it is a symbolic link"
    with pytest.raises(CacheError) as info:
        _load("sec_fault")
    msg = str(info.value)
    assert f"Refusing to use the JIT cache folder {bad}: {problem}" in msg
    assert "Fix: " in msg and info.value.build_directory == str(bad)
    assert not list(tmp_path.rglob("*.so")), "nothing was built"


def test_a_parent_anyone_may_write_needs_the_sticky_bit(tmp_path, cache_env):
    parent = tmp_path / "open"
    parent.mkdir()
    parent.chmod(0o777)
    cache_env(parent / "cache")
    with pytest.raises(CacheError, match=r"open: everyone may write this folder above the cache"):
        _load("sec_parent")
    assert not (parent / "cache").exists()
    parent.chmod(0o1777)  # as /tmp: others cannot rename what is ours in it
    assert _load("sec_parent").scale(sdk.ones(1), 2.0).tolist() == [2.0]


def test_links_above_the_root_are_followed_and_what_they_reach_is_checked(tmp_path, cache_env):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "home").symlink_to(real)  # a symlinked home or ~/.cache is fine
    cache_env(tmp_path / "home" / "cache")
    assert _load("sec_via_link").scale(sdk.ones(1), 2.0).tolist() == [2.0]
    assert _mode(real / "cache") == 0o700
    unsafe = tmp_path / "open"
    unsafe.mkdir()
    unsafe.chmod(0o777)
    (tmp_path / "home2").symlink_to(unsafe)
    cache_env(tmp_path / "home2" / "cache")
    with pytest.raises(CacheError, match=f"{unsafe}: everyone may write this folder"):
        _load("sec_via_link")


def test_an_explicit_build_directory_is_checked_too(tmp_path, cache_env):
    cache_env(tmp_path / "cache")
    build = tmp_path / "mine"
    build.mkdir()
    build.chmod(0o757)
    with pytest.raises(CacheError, match="everyone may write it"):
        _load("sec_explicit", build_directory=str(build))
    build.chmod(0o755)
    assert _load("sec_explicit", build_directory=str(build)).scale is not None
    fresh = tmp_path / "a" / "b"
    _load("sec_explicit2", build_directory=str(fresh))
    assert _mode(fresh) == 0o700 and _mode(fresh.parent) == 0o700


def test_the_checks_cost_a_warm_load_far_less_than_a_millisecond(tmp_path):
    root = tmp_path / "cache"
    build = root / "py_abi" / "name"
    _trust.check_cache(root, build)
    times = []
    for _ in range(200):
        start = time.perf_counter()
        _trust.check_cache(root, build)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) < 1e-3, f"median {statistics.median(times) * 1e6:.0f} us"


# ----------------------------------------------------------------- another local user


@needs_root()
def test_a_root_another_user_made_is_refused(public_dir, cache_env):
    shared = public_dir / "shared"
    as_attacker(f"mkdir -m 0777 {shared}")
    cache_env(shared)
    with pytest.raises(CacheError) as info:
        _load("sec_foreign_root")
    msg = str(info.value)
    assert str(shared) in msg and f"belongs to nobody (uid {ATTACKER})" in msg
    assert list(shared.iterdir()) == [], "nothing was written into the other user's folder"


@needs_root()
def test_a_binary_planted_in_a_shared_root_is_never_loaded(public_dir, tmp_path, cache_env):
    """The attack of the issue end to end: the victim's build folder in a root another user
    made is replaced by a planted binary with a matching stamp."""
    name = "sec_planted"
    mine = _load_in_child(name, tmp_path / "private")  # the victim's own, genuine build
    assert mine["ok"] and mine["y"] == [3.0, 3.0], mine
    stamp = json.loads((Path(mine["dir"]) / _cache.STAMP_NAME).read_text())

    marker = public_dir / "marker"
    staging = public_dir / "staging"
    staging.mkdir(mode=0o755)
    shared = public_dir / "shared"
    target = shared / _flavor() / name
    planted = compile_c(PLANTED % {"abi": abi_version(), "marker": marker}, staging / "p.so")
    stamp.update(
        output=str(target / f"{name}.so"),
        output_size=planted.stat().st_size,
        output_sha256=_cache.file_digest(planted),
    )
    (staging / "build.stamp").write_text(json.dumps(stamp))
    for p in staging.iterdir():
        p.chmod(0o644)
    as_attacker(
        f"mkdir -m 0777 {shared}; mkdir -p {target}; cp {planted} {target}/{name}.so; "
        f"cp {staging}/build.stamp {target}/build.stamp"
    )

    victim = _load_in_child(name, shared)
    assert not marker.exists(), "the planted binary was loaded"
    assert not victim["ok"] and victim["type"] == "CacheError", victim
    assert str(shared) in victim["msg"] and "SDK_EXTENSIONS_DIR" in victim["msg"]


@needs_root()
@pytest.mark.parametrize("level", ["flavor", "build"])
def test_a_folder_below_the_root_owned_by_another_user_is_refused(tmp_path, cache_env, level):
    root = cache_env(tmp_path / "cache")
    chain = {"flavor": root / _flavor(), "build": root / _flavor() / "sec_owner"}
    root.mkdir(mode=0o700)
    for folder in chain.values():
        folder.mkdir(mode=0o700)
    os.chown(chain[level], ATTACKER, ATTACKER)
    with pytest.raises(CacheError, match=f"{chain[level]}: it belongs to nobody"):
        _load("sec_owner")


@needs_root()
def test_a_parent_another_user_owns_is_refused(public_dir, cache_env):
    theirs = public_dir / "theirs"
    as_attacker(f"mkdir -m 0755 {theirs}")
    os.mkdir(theirs / "cache", 0o700)  # ours, but they may rename it and put theirs instead
    cache_env(theirs / "cache")
    with pytest.raises(CacheError, match=f"{theirs}: this folder above the cache belongs to"):
        _load("sec_parent_owner")


@needs_root()
def test_a_link_above_the_root_another_user_owns_is_refused(public_dir, tmp_path, cache_env):
    mine = public_dir / "mine"
    mine.mkdir(mode=0o755)
    link = public_dir / "their-link"
    as_attacker(f"ln -s {mine} {link}")  # they may point it elsewhere at any time
    cache_env(link / "cache")
    with pytest.raises(CacheError, match=f"{link}: this link above the cache belongs to nobody"):
        _load("sec_their_link")
    assert not (mine / "cache").exists()


@needs_root()
def test_group_write_is_refused_unless_the_group_is_the_users_own(tmp_path, cache_env):
    cache_env(tmp_path / "cache")
    build = tmp_path / "build"
    build.mkdir(mode=0o770)
    build.chmod(0o770)
    os.chown(build, 0, ATTACKER)  # a group with other members (or another user's)
    with pytest.raises(CacheError, match="group .* may write it"):
        _load("sec_group", build_directory=str(build))
    os.chown(build, 0, 0)  # root's own group, with no other member
    assert _load("sec_group", build_directory=str(build)).scale is not None


# --------------------------------------------------------------- precompiled header


def _pch_key(name: str, source: str) -> str:
    from cpp_extension.builder import jit as _build
    from cpp_extension.builder import pch as _pch
    from cpp_extension.builder import toolchain as _toolchain

    texts = _build.inline_sources(name, [source], None, ["f"], "pybind11")
    req = _build.make_request(name, texts, inline=True, bridge="pybind11")
    compiler = _toolchain.compiler_command("cxx")
    ident = _toolchain.compiler_identity(compiler, _cache.toolchains_file())
    if not _pch.enabled(ident):
        pytest.skip("the shared precompiled header is used with gcc only")
    return _pch.Pch(_build._flags(req, _build._toolchain_for(req))["cxx"], ident).key


PCH_STUB = r"""// planted
#include <cstdio>
namespace { struct Planted { Planted() { if (FILE* f = std::fopen("%s", "w")) std::fclose(f); } } planted; }
#include <sdk/extension.h>
"""


@pytest.mark.parametrize("fault", ["world-writable", "symlink", "other-user"])
def test_a_planted_precompiled_header_is_never_compiled(tmp_path, cache_env, monkeypatch, fault):
    if fault == "other-user" and os.geteuid() != 0:
        pytest.skip("cross-user cases run as root, with a second uid")
    monkeypatch.delenv("SDK_EXTENSIONS_NO_PCH", raising=False)
    root = cache_env(tmp_path / "cache")
    source = "int f() { return 1; }\n"
    key = _pch_key("sec_pch", source)
    folder = root / "pch" / key
    planted = tmp_path / "planted" if fault == "symlink" else folder
    planted.mkdir(parents=True, mode=0o700)
    folder.parent.mkdir(parents=True, exist_ok=True)
    marker = tmp_path / "marker"
    (planted / "sdk_extension.h").write_text(PCH_STUB % marker)
    (planted / "sdk_extension.h.gch").write_bytes(b"junk: gcc falls back to the header")
    if fault == "world-writable":
        folder.chmod(0o777)
    elif fault == "symlink":
        folder.symlink_to(planted)
    else:
        for p in (folder, *folder.iterdir()):
            os.chown(p, ATTACKER, ATTACKER)
    with pytest.raises(CacheError) as info:
        cpp_extension.load_inline("sec_pch", source, functions=["f"])
    assert str(folder) in str(info.value)
    assert not marker.exists()
    assert not list((root / _flavor() / "sec_pch").glob("*.o")), "nothing was compiled"


# ----------------------------------------------------------------------------- links


def test_links_planted_in_a_build_folder_are_replaced_not_followed(tmp_path, cache_env):
    root = cache_env(tmp_path / "cache")
    name = "sec_links"
    build = root / _flavor() / name
    build.mkdir(parents=True, mode=0o700)
    for p in (root, root / _flavor()):
        p.chmod(0o700)
    victims = {}
    pid = os.getpid()
    # build.log and .builder by name; the temporary names the cache once derived from the
    # process id (a link there was written through)
    for link in (
        "build.log",
        ".builder",
        f"build.stamp.{pid}.tmp",
        f".{name}.so.{pid}.tmp",
        f"main.cpp.{pid}.tmp",
        f"build.ninja.{pid}.tmp",
    ):
        victim = tmp_path / f"victim{len(victims)}"
        victim.write_text("precious")
        (build / link).symlink_to(victim)
        victims[link] = victim
    assert _load(name).scale(sdk.ones(1), 4.0).tolist() == [4.0]
    for link, victim in victims.items():
        assert victim.read_text() == "precious", f"written through {link}"
    assert (build / "build.log").is_file() and not (build / "build.log").is_symlink()


def test_a_link_in_place_of_the_lock_file_is_refused(tmp_path, cache_env):
    root = cache_env(tmp_path / "cache")
    build = root / _flavor() / "sec_lock"
    build.mkdir(parents=True, mode=0o700)
    for p in (root, root / _flavor()):
        p.chmod(0o700)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (build / ".lock").symlink_to(victim)
    with pytest.raises(CacheError, match=r"\.lock: it is a symbolic link") as info:
        _load("sec_lock")
    assert "rm " in str(info.value) and victim.read_text() == "precious"
