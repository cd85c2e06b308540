"""The porter's file handling (cpp_extension/port/files.py): links in and out of SRC,
dangling links and loops, FIFOs, a link to /dev/zero, a large sparse file and --out folders
that overlap SRC; nothing outside SRC is read or written, nothing blocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cpp_extension.port import files as _port_files
from cpp_extension.port import main as _port
from tests.cpp_extension.conftest import REPO

INCLUDE = str(REPO / "core" / "include")
TORCH_CPP = "#include <torch/extension.h>\ntorch::Tensor f(torch::Tensor x) { return x; }\n"


def _port_it(src: Path, out: Path | None = None) -> _port.PortReport:
    return _port.port_paths([src], out, in_place=out is None, include_dir=INCLUDE)


def _skipped(report: _port.PortReport) -> dict[str, str]:
    return dict(report.skipped)


@pytest.fixture
def tree(tmp_path):
    """SRC with one source, and a secret and a source outside it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "op.cpp").write_text(TORCH_CPP)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key.pem").write_text("secret\n")
    (outside / "other.cpp").write_text(TORCH_CPP)
    return src, outside


def test_in_place_never_rewrites_a_file_outside_src_through_a_link(tree):
    src, outside = tree
    (src / "linked.cpp").symlink_to(outside / "other.cpp")
    report = _port_it(src)
    assert (outside / "other.cpp").read_text() == TORCH_CPP  # untouched
    assert (src / "linked.cpp").is_symlink()
    assert "outside SRC" in _skipped(report)["linked.cpp"]
    assert "sdk" in (src / "op.cpp").read_text()  # the source itself is ported


def test_out_never_copies_a_linked_file_from_outside_src(tree, tmp_path):
    src, outside = tree
    (src / "key.pem").symlink_to(outside / "key.pem")
    (src / "lib").symlink_to(outside, target_is_directory=True)
    out = tmp_path / "out"
    report = _port_it(src, out)
    assert not (out / "key.pem").exists() and not (out / "key.pem").is_symlink()
    assert not (out / "lib").exists()
    assert "outside SRC" in _skipped(report)["key.pem"]
    assert "outside SRC" in _skipped(report)["lib"]
    assert "key.pem" in report.summary() and (out / "op.cpp").is_file()


def test_links_inside_src_are_copied_as_links_to_the_ported_copy(tree, tmp_path):
    src, _ = tree
    (src / "inc").mkdir()
    (src / "inc" / "alias.cpp").symlink_to("../op.cpp")
    (src / "abs.cpp").symlink_to(src / "op.cpp")  # absolute, but inside SRC
    out = tmp_path / "out"
    report = _port_it(src, out)
    for name, text in (("inc/alias.cpp", "../op.cpp"), ("abs.cpp", "op.cpp")):
        assert os.readlink(out / name) == text
        assert "copied as a link" in _skipped(report)[name]
    assert (out / "inc" / "alias.cpp").read_text() == (out / "op.cpp").read_text()
    assert "sdk" in (out / "op.cpp").read_text()


def test_dangling_links_and_loops_are_skipped_with_the_reason(tree, tmp_path):
    src, _ = tree
    (src / "gone.cpp").symlink_to(src / "missing.cpp")
    (src / "a.h").symlink_to("b.h")
    (src / "b.h").symlink_to("a.h")
    report = _port_it(src, tmp_path / "out")
    skipped = _skipped(report)
    assert "dangling" in skipped["gone.cpp"]
    assert "loop" in skipped["a.h"] and "loop" in skipped["b.h"]
    assert not (tmp_path / "out" / "a.h").is_symlink()


@pytest.mark.parametrize("out", [False, True])
def test_a_fifo_and_a_link_to_dev_zero_are_never_read(tree, tmp_path, out):
    src, _ = tree
    os.mkfifo(src / "pipe.cpp")  # opening it for reading would wait for a writer
    (src / "zero.h").symlink_to("/dev/zero")  # reading it would never end
    report = _port_it(src, tmp_path / "out" if out else None)
    skipped = _skipped(report)
    assert "FIFO" in skipped["pipe.cpp"]
    assert "outside SRC" in skipped["zero.h"]
    if out:
        assert not (tmp_path / "out" / "pipe.cpp").exists()
        assert not (tmp_path / "out" / "zero.h").exists()


def test_a_special_file_swapped_in_after_the_walk_is_not_opened(tmp_path):
    fifo = tmp_path / "late.cpp"
    os.mkfifo(fifo)
    with pytest.raises(_port_files.NotRegular, match="not a regular file"):
        _port_files.open_regular(fifo)  # O_NONBLOCK: returns at once
    link = tmp_path / "late.h"
    link.symlink_to("/dev/zero")
    with pytest.raises(_port_files.NotRegular, match="link"):
        _port_files.open_regular(link)


@pytest.mark.parametrize("out", [False, True])
def test_a_source_over_the_limit_is_copied_by_streaming_not_ported(tree, tmp_path, out):
    src, _ = tree
    big = src / "generated.cpp"
    with open(big, "wb") as f:  # sparse: no disk used
        f.write(TORCH_CPP.encode())
        f.truncate(_port_files.MAX_REWRITE + 4096)
    report = _port_it(src, tmp_path / "out" if out else None)
    why = _skipped(report)["generated.cpp"]
    assert ("copied unchanged" if out else "left unchanged") in why
    assert str(_port_files.MAX_REWRITE) in why
    copy = (tmp_path / "out" / "generated.cpp") if out else big
    assert copy.stat().st_size == _port_files.MAX_REWRITE + 4096
    with open(copy, "rb") as f:
        assert f.read(len(TORCH_CPP)) == TORCH_CPP.encode()  # not rewritten


def test_out_equal_to_src_or_its_parent_for_a_file_is_refused(tree):
    src, _ = tree
    with pytest.raises(ValueError, match="is a source"):
        _port.port_paths([src], src, include_dir=INCLUDE)
    with pytest.raises(ValueError, match="inside the source folder"):
        _port.port_paths([src / "op.cpp"], src, include_dir=INCLUDE)  # would overwrite op.cpp
    assert (src / "op.cpp").read_text() == TORCH_CPP


def test_src_inside_out_must_not_overwrite_inputs(tmp_path):
    top = tmp_path / "top"
    (top / "src" / "src").mkdir(parents=True)
    (top / "src" / "op.cpp").write_text(TORCH_CPP)
    (top / "src" / "src" / "op.cpp").write_text(TORCH_CPP)  # its copy would be top/src/op.cpp
    with pytest.raises(ValueError, match="inside the source folder"):
        _port.port_paths([top / "src"], top, include_dir=INCLUDE)
    assert (top / "src" / "op.cpp").read_text() == TORCH_CPP
    assert not (top / "op.cpp").exists()  # refused before anything was written


def test_src_inside_out_without_overlap_and_out_inside_src_work(tmp_path):
    top = tmp_path / "top"
    (top / "src").mkdir(parents=True)
    (top / "src" / "op.cpp").write_text(TORCH_CPP)
    _port.port_paths([top / "src"], top, include_dir=INCLUDE)
    assert "sdk" in (top / "op.cpp").read_text()
    assert (top / "src" / "op.cpp").read_text() == TORCH_CPP
    inner = top / "src" / "ported"
    report = _port.port_paths([top / "src"], inner, include_dir=INCLUDE)
    assert [p for p, _ in report.files] == ["op.cpp"]  # the output is not walked
    assert "sdk" in (inner / "op.cpp").read_text()


def test_out_never_writes_through_a_link_in_dir(tree, tmp_path):
    src, outside = tree
    (src / "sub").mkdir()
    (src / "sub" / "x.cpp").write_text(TORCH_CPP)
    out = tmp_path / "out"
    out.mkdir()
    (out / "sub").symlink_to(outside, target_is_directory=True)
    (out / "op.cpp").symlink_to(outside / "key.pem")
    with pytest.raises(ValueError, match="never writes through"):
        _port_it(src, out)
    assert (outside / "key.pem").read_text() == "secret\n"
    assert not (outside / "x.cpp").exists()
