"""The cache's paths as the kernel uses them (cpp_extension/builder/trust.py): ``..`` after another
user's link is followed as the kernel follows it, a POSIX ACL that lets another user write
is seen, and ``python -m cpp_extension clean`` removes only what lies in the cache root."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from cpp_extension import CacheError
from cpp_extension.builder import trust as _trust
from tests.cpp_extension.conftest import REPO, subprocess_env
from tests.security.conftest import ATTACKER, as_attacker, needs_root


@needs_root()
def test_dotdot_after_another_users_link_is_checked_where_it_leads(public_dir):
    # public/att -> public/evil/sub: the kernel reads public/att/../cache as public/evil/cache
    as_attacker(
        f"mkdir -p {public_dir}/evil/sub {public_dir}/evil/cache && "
        f"ln -s {public_dir}/evil/sub {public_dir}/att"
    )
    root = Path(f"{public_dir}/att/../cache")
    with pytest.raises(CacheError, match="this link above the cache belongs to"):
        _trust.check_cache(root, root / "py3_abi1" / "ext")
    assert not (public_dir / "cache").exists()  # the normalised path was not what it checked


def test_the_folder_checked_is_the_folder_returned(tmp_path):
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")  # this user's link: allowed
    root = Path(f"{tmp_path}/link/../real/cache")
    found = _trust.check_cache(root, root / "py3_abi1" / "ext")
    assert found == tmp_path / "real" / "cache" / "py3_abi1" / "ext" and found.is_dir()


# ---- POSIX ACLs ------------------------------------------------------------------------------


def _acl(*entries: tuple[int, int, int]) -> bytes:
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20


def test_acl_layout_is_parsed_and_malformed_ones_are_refused():
    data = _acl((USER_OBJ, 7, 0xFFFFFFFF), (USER, 6, 1234), (OTHER, 5, 0xFFFFFFFF))
    assert _trust.parse_acl(data) == [
        (USER_OBJ, 7, 0xFFFFFFFF),
        (USER, 6, 1234),
        (OTHER, 5, 0xFFFFFFFF),
    ]  # noqa: E501
    with pytest.raises(ValueError, match="whole entries"):
        _trust.parse_acl(data[:-3])
    with pytest.raises(ValueError, match="version 1"):
        _trust.parse_acl(struct.pack("<I", 1))


@pytest.mark.parametrize(
    "entries,refused",
    [
        ([(USER, 7, ATTACKER), (MASK, 7, 0)], "user"),
        ([(GROUP, 6, ATTACKER), (MASK, 7, 0)], "group"),
        ([(USER, 7, ATTACKER), (MASK, 5, 0)], None),  # the mask takes write away
        ([(USER, 5, ATTACKER), (MASK, 7, 0)], None),  # read only
        ([(USER_OBJ, 7, 0), (OTHER, 5, 0)], None),
    ],
)
def test_acl_entries_that_let_another_uid_write_are_refused(tmp_path, monkeypatch, entries,
                                                            refused):  # fmt: skip
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(_trust.os, "getxattr", lambda *a, **k: _acl(*entries), raising=False)
    if refused is None:
        _trust.check_folder(folder)
        return
    with pytest.raises(CacheError, match=f"{refused} .* \\(by an ACL entry\\) may write"):
        _trust.check_folder(folder)


def test_no_acl_support_is_not_an_error(tmp_path, monkeypatch):
    def unsupported(*args, **kwargs):
        raise OSError(95, "Operation not supported")

    monkeypatch.setattr(_trust.os, "getxattr", unsupported, raising=False)
    _trust.check_folder(tmp_path)


def test_a_real_acl_set_with_setfacl_is_refused(tmp_path):
    if shutil.which("setfacl") is None:
        pytest.skip("setfacl is not installed (apt-get install acl)")
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    proc = subprocess.run(["setfacl", "-m", f"u:{ATTACKER}:rwx", str(root)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"no ACLs on this file system: {proc.stderr.decode().strip()}")
    with pytest.raises(CacheError, match=r"\(by an ACL entry\) may write.*setfacl -b"):
        _trust.check_cache(root, root / "py3_abi1" / "ext")
    subprocess.run(["setfacl", "-m", "m::rx", str(root)], check=True)  # the mask: no write
    _trust.check_cache(root, root / "py3_abi1" / "ext")


# ---- clean ------------------------------------------------------------------------------------


def _clean(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cpp_extension", "clean", *args],
        capture_output=True, text=True, env=subprocess_env(), cwd=str(REPO), timeout=120,
    )  # fmt: skip


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "ext_cache"
    (root / "py3_abi1" / "mine").mkdir(parents=True)
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(root))
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "data.txt").write_text("keep me\n")
    return root, victim


@pytest.mark.parametrize("name", ["../../victim", "..", "*", "py3_abi1/mine", "a\\b", ""])
def test_clean_refuses_anything_but_an_extension_name(cache, name):
    root, victim = cache
    proc = _clean(name)
    assert proc.returncode == 2 and "is not an extension name" in proc.stderr, proc.stdout
    assert (victim / "data.txt").read_text() == "keep me\n"
    assert (root / "py3_abi1" / "mine").is_dir()


def test_clean_removes_links_never_what_they_point_to(cache, tmp_path):
    root, victim = cache
    (root / "py3_abi1" / "lnk").symlink_to(victim, target_is_directory=True)
    (root / "flavor_link").symlink_to(victim, target_is_directory=True)
    proc = _clean("lnk")
    assert proc.returncode == 0 and "removed" in proc.stdout, proc.stderr
    assert not (root / "py3_abi1" / "lnk").is_symlink()
    assert (victim / "data.txt").read_text() == "keep me\n"
    proc = _clean()
    assert proc.returncode == 0, proc.stderr
    assert not (root / "flavor_link").is_symlink() and not (root / "py3_abi1").exists()
    assert (victim / "data.txt").read_text() == "keep me\n"
