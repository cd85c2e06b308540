"""The folders that outlive a run (tests/_support.py's kept_folder, sync_tree): a warm run
of the porting corpus rebuilds nothing only if an unchanged source keeps its time stamp, and
it stays correct only if every change reaches the copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests._compile_cache import run_compiler
from tests._support import kept_folder, kept_source, run_folder, sync_tree


def _tree(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


def test_sync_tree_rewrites_only_what_changed(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    (src / "a" / "b").mkdir(parents=True)
    (src / "same.cpp").write_text("int same;\n")
    (src / "a" / "edit.cpp").write_text("int v = 1;\n")
    (src / "a" / "b" / "deep.h").write_text("#pragma once\n")
    (src / "run.sh").write_text("echo\n")
    (src / "run.sh").chmod(0o755)
    sync_tree(src, dst)
    assert _tree(dst) == _tree(src) and os.access(dst / "run.sh", os.X_OK)
    old = 1_000_000_000
    for p in dst.rglob("*.*"):
        os.utime(p, (old, old))
    (src / "a" / "edit.cpp").write_text("int v = 2;\n")
    (src / "new").mkdir()
    (src / "new" / "n.cpp").write_text("int n;\n")
    (src / "a" / "b" / "deep.h").unlink()
    (dst / "leftover.o").write_bytes(b"\0")  # what a build or a patch left in the copy
    sync_tree(src, dst)
    assert _tree(dst) == _tree(src)
    assert (dst / "same.cpp").stat().st_mtime == old  # unchanged: ninja sees nothing to do
    assert (dst / "a" / "edit.cpp").stat().st_mtime > old


def test_sync_tree_replaces_links_in_the_copy_and_refuses_them_in_the_source(tmp_path):
    src, dst, outside = tmp_path / "src", tmp_path / "dst", tmp_path / "outside.txt"
    src.mkdir()
    dst.mkdir()
    outside.write_text("not yours\n")
    (src / "f.cpp").write_text("int f;\n")
    (src / "d").mkdir()
    (dst / "f.cpp").symlink_to(outside)  # a link where a file goes: replaced, not written through
    (dst / "d").symlink_to(tmp_path)  # a link where a folder goes
    sync_tree(src, dst)
    assert outside.read_text() == "not yours\n"
    assert not (dst / "f.cpp").is_symlink() and (dst / "f.cpp").read_text() == "int f;\n"
    assert (dst / "d").is_dir() and not (dst / "d").is_symlink()
    (src / "link.h").symlink_to(outside)
    with pytest.raises(ValueError, match="files and folders only"):
        sync_tree(src, dst)


def test_kept_source_rewrites_a_source_only_when_its_text_changed(tmp_path):
    path = kept_source(tmp_path, "op.cpp", "int v = 1;\n")
    assert path == tmp_path / "op.cpp" and path.read_text() == "int v = 1;\n"
    old = 1_000_000_000
    os.utime(path, (old, old))
    assert kept_source(tmp_path, "op.cpp", "int v = 1;\n").stat().st_mtime == old
    link_target = tmp_path / "elsewhere.cpp"
    link_target.write_text("outside\n")
    kept_source(tmp_path, "op.cpp", "int v = 2;\n")
    assert path.read_text() == "int v = 2;\n" and path.stat().st_mtime != old
    # a link where the source goes is replaced, never written through
    path.unlink()
    path.symlink_to(link_target)
    kept_source(tmp_path, "op.cpp", "int v = 3;\n")
    assert not path.is_symlink() and path.read_text() == "int v = 3;\n"
    assert link_target.read_text() == "outside\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".source-lock", "elsewhere.cpp", "op.cpp"]


def test_kept_folder_follows_its_key_and_can_be_turned_off(tmp_path, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SDK_TEST_CACHE", str(tmp_path / "kept"))
    first = kept_folder(tmp_path_factory, "thing", "gcc 12", "torch 2.13")
    (first / "built.so").write_bytes(b"x")
    assert kept_folder(tmp_path_factory, "thing", "gcc 12", "torch 2.13") == first
    assert (first / "built.so").is_file()
    other = kept_folder(tmp_path_factory, "thing-two", "gcc 12", "torch 2.13")
    upgraded = kept_folder(tmp_path_factory, "thing", "gcc 13", "torch 2.13")
    assert upgraded != first and first.is_dir()  # another key's, in use until a day passes
    two_days_ago = time.time() - 2 * 86400
    for folder in (first, other):
        os.utime(folder, (two_days_ago, two_days_ago))
    assert kept_folder(tmp_path_factory, "thing", "gcc 13", "torch 2.13") == upgraded
    assert not first.exists()  # an older key's builds, unused for a day, are dropped
    assert other.is_dir()  # another name's folder is not an older key of this one
    assert oct(upgraded.stat().st_mode & 0o777) == "0o700"
    monkeypatch.setenv("SDK_TEST_CACHE", "off")
    assert kept_folder(tmp_path_factory, "thing", "gcc 13") == run_folder(tmp_path_factory, "thing")


def test_a_kept_compile_is_reused_until_a_header_it_read_changes(tmp_path, monkeypatch):

    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++ here")
    monkeypatch.setenv("SDK_TEST_CACHE", str(tmp_path / "kept"))
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "bin" / "logging-g++"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {gxx} "$@"\n')
    wrapper.chmod(0o755)
    (tmp_path / "inc").mkdir()
    header = tmp_path / "inc" / "value.h"
    header.write_text("#define VALUE 3\n")

    def build(run: str, body: str = "int main() { return VALUE; }\n"):
        src = tmp_path / run / "prog.cpp"  # a fresh folder each "run": matched by content
        src.parent.mkdir(exist_ok=True)
        src.write_text('#include "value.h"\n' + body)
        exe = src.parent / "prog"
        proc = run_compiler([str(wrapper), f"-I{tmp_path / 'inc'}", str(src), "-o", str(exe)])
        return proc, exe

    def calls() -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0

    proc, exe = build("one")
    assert proc.returncode == 0 and calls() == 2  # the build, then its -M list
    shutil.rmtree(tmp_path / "one")  # as a later run finds its temporary folders: wiped
    proc, exe = build("two")
    assert proc.returncode == 0 and calls() == 2  # kept: the compiler did not run
    assert subprocess.run([str(exe)]).returncode == 3
    header.write_text("#define VALUE 4\n")  # a header it read changed: built again
    proc, exe = build("three")
    assert calls() == 4 and subprocess.run([str(exe)]).returncode == 4
    for run in ("four", "five"):  # a failure is never kept
        proc, _ = build(run, "int main() { return undeclared; }\n")
        assert proc.returncode != 0 and "undeclared" in proc.stderr
    assert calls() == 6
    monkeypatch.setenv("SDK_TEST_CACHE", "off")
    build("six")
    assert calls() == 7


def test_a_relative_include_folder_is_read_where_the_command_runs(tmp_path, monkeypatch):

    if shutil.which("g++") is None:
        pytest.skip("no g++ here")
    monkeypatch.setenv("SDK_TEST_CACHE", str(tmp_path / "kept"))
    results = []
    for where, value in (("a", 5), ("b", 6), ("a", 5)):
        cwd = tmp_path / where
        (cwd / "inc").mkdir(parents=True, exist_ok=True)
        (cwd / "inc" / "value.h").write_text(f"#define VALUE {value}\n")
        (cwd / "prog.cpp").write_text('#include "value.h"\nint main() { return VALUE; }\n')
        proc = run_compiler(["g++", "-Iinc", "prog.cpp", "-o", "prog"], cwd=cwd)
        assert proc.returncode == 0, proc.stderr
        results.append(subprocess.run([str(cwd / "prog")]).returncode)
    assert results == [5, 6, 5]
