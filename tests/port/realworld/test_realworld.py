"""The real-world port run's fast subset (published sdists from PyPI, ported and built with
the SDK, checked against numpy references), and its fetcher's safety checks (offline)."""

from __future__ import annotations

import io
import json
import os
import sys
import tarfile
import time
import urllib.error
from pathlib import Path

import numpy as np
import pytest

from . import _doc, _fetch, _run, _side
from .packages import PACKAGES

# Small packages whose every op ports today with no hand edit: a pybind11 module, and
# ops-namespace libraries. (A build's hand edits, when one needs them, come from patches/.)
FAST = ("torchsort", "torch-cluster")


@pytest.fixture(scope="module")
def cache_env():
    """The run's own cache (sdists, JIT builds) outside the repository, kept between runs."""
    yield _fetch.cache_root()


@pytest.mark.slow
@pytest.mark.parametrize("name", FAST)
def test_fast_subset_ports_builds_and_matches_numpy(name, cache_env, monkeypatch):
    pkg = PACKAGES[name]
    try:
        _fetch.download(pkg.name, pkg.version, pkg.filename, pkg.sha256)
    except (urllib.error.URLError, OSError) as exc:
        pytest.skip(f"PyPI is not reachable, so {pkg.filename} cannot be downloaded: {exc}")
    results = _run.run_package(pkg, torch_py=None, log=lambda s: None, save_results=False)
    by_op = {r.op: r for r in results}
    assert set(by_op) == {op.name for op in pkg.ops}
    for op in pkg.ops:
        r = by_op[op.name]
        patch = pkg.build(op.build).patch
        assert r.hand_edits == (_patch_hunks(patch) if patch else 0)
        if op.ref is not None:
            assert (r.status, r.reason, r.checked_against) == ("ported", "", "numpy reference")
        else:
            assert r.status == "ran", r.reason


def _patch_hunks(name: str) -> int:
    text = (_run.PATCHES / name).read_text()
    return sum(line.startswith("@@") for line in text.splitlines())


def test_a_wrong_result_is_reported_not_passed():
    op = PACKAGES["torchsort"].ops[0]
    want = _run._ref_outputs(op)
    assert _run.compare(want, want, op) == ""
    assert "max |diff|" in _run.compare([want[0] + 1e-3], want, op)
    assert "shape" in _run.compare([want[0][:1]], want, op)
    assert "values differ" in _run.compare([np.arange(3)], [np.arange(1, 4)], op)


def test_the_doc_table_is_generated_from_results():
    results = [
        {
            "package": "p",
            "version": "1",
            "why": "",
            "seconds": 0,
            "ops": [
                {
                    "op": "a",
                    "build": "b",
                    "status": "ported",
                    "reason": "",
                    "hand_edits": 0,
                    "checked_against": "numpy reference",
                    "missing": [],
                },
                {
                    "op": "c",
                    "build": "b",
                    "status": "not yet",
                    "reason": "x.cpp:3: error: no `foo`",
                    "hand_edits": 0,
                    "checked_against": "",
                    "missing": ["x.cpp:3: at::foo"],
                },
            ],
        }
    ]
    text = _doc.render(results)
    assert "**1 of 2 ops**" in text and "**0 of 1 packages**" in text
    assert "| p 1 | `c` | b | not yet | - | x.cpp:3: error: no `foo` |" in text
    assert "| `at::foo` | 1 |" in text


def _tar(tmp_path: Path, member: tarfile.TarInfo, data: bytes = b"x") -> Path:
    path = tmp_path / "evil.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        member.size = len(data) if member.isfile() else 0
        tar.addfile(member, io.BytesIO(data) if member.isfile() else None)
    return path


@pytest.mark.parametrize("name", ["../escape.txt", "/etc/escape.txt", "pkg/../../escape.txt"])
def test_unpack_refuses_members_that_leave_the_folder(tmp_path, monkeypatch, name):
    monkeypatch.setenv("REALWORLD_CACHE", str(tmp_path / "cache"))
    archive = _tar(tmp_path, tarfile.TarInfo(name))
    with pytest.raises(_fetch.FetchError, match="leaves the folder|absolute"):
        _fetch.unpack(archive, "0" * 64)
    assert not (tmp_path / "escape.txt").exists()


def test_unpack_skips_links(tmp_path, monkeypatch):
    monkeypatch.setenv("REALWORLD_CACHE", str(tmp_path / "cache"))
    link = tarfile.TarInfo("pkg/link")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    top = _fetch.unpack(_tar(tmp_path, link), "1" * 64)
    assert not any(p.is_symlink() for p in top.rglob("*"))


def test_download_refuses_a_file_whose_hash_is_not_pinned(tmp_path, monkeypatch):
    monkeypatch.setenv("REALWORLD_CACHE", str(tmp_path))
    payload = tmp_path / "served.tar.gz"
    payload.write_bytes(b"not the pinned sdist")
    monkeypatch.setattr(_fetch, "_sdist_url", lambda *a: payload.as_uri())
    with pytest.raises(_fetch.FetchError, match="is not the pinned"):
        _fetch.download("p", "1", "p-1.tar.gz", "a" * 64)
    assert not (tmp_path / "sdists" / "p-1.tar.gz").exists()


def test_every_package_is_pinned_and_lists_existing_builds():
    assert len(PACKAGES) >= 8 and sum(len(p.ops) for p in PACKAGES.values()) >= 30
    for pkg in PACKAGES.values():
        assert len(pkg.sha256) == 64 and pkg.filename.startswith(pkg.filename.split("-")[0])
        for op in pkg.ops:
            pkg.build(op.build)


def _sleeper(phase_file: Path, phase: str) -> list[str]:
    """A side that says it is in `phase`, then hangs."""
    code = f"import pathlib, time; pathlib.Path({str(phase_file)!r}).write_text({phase!r}); "
    return [sys.executable, "-c", code + "time.sleep(600)"]


@pytest.mark.parametrize(
    ("phase", "limits", "what"),
    [("build", (0.5, 600), "build timed out"), ("run scatter_sum", (600, 0.5), "run scatter_sum")],
)
def test_a_hanging_phase_is_killed_and_named(tmp_path, monkeypatch, phase, limits, what):
    monkeypatch.setattr(_run, "BUILD_TIMEOUT_S", limits[0])
    monkeypatch.setattr(_run, "RUN_TIMEOUT_S", limits[1])
    phase_file = tmp_path / "sdk.phase"
    timed_out, returncode, _ = _run._run_timed(_sleeper(phase_file, phase), {}, phase_file)
    assert timed_out.startswith(what) and "timed out after 0.5 s" in timed_out
    assert returncode == -9  # killed, not left running


def test_a_side_that_ends_in_time_is_not_timed_out(tmp_path):
    cmd = [sys.executable, "-c", "import sys; sys.stderr.write('done')"]
    assert _run._run_timed(cmd, {}, tmp_path / "x.phase") == ("", 0, "done")


def test_a_timed_out_build_is_reported_as_such():
    pkg = PACKAGES["torchsort"]
    op = pkg.ops[0]
    sdk = {"build": "timed out", "error": "sdk side: build timed out after 900 s", "ops": {}}
    r = _run._judge(pkg, pkg.build(op.build), op, sdk, None, 0, [])
    assert (r.status, r.reason) == ("timed out", sdk["error"])
    assert _doc._status({"status": "timed out", "hand_edits": 0}) == "timed out"


def test_a_build_that_fails_for_torch_too_says_so():
    pkg = PACKAGES["torchsort"]
    op = pkg.ops[0]
    sdk = {"build": "failed", "error": "a.cpp:1: error: x", "ops": {}}
    torch = {"build": "failed", "error": "a.cpp:1: error: x", "ops": {}}
    r = _run._judge(pkg, pkg.build(op.build), op, sdk, torch, 0, [])
    assert r.status == "not yet"
    assert r.reason.endswith("(the original does not build with torch either: a.cpp:1: error: x)")


def test_the_sdist_is_found_through_the_projects_page_when_the_release_page_is_missing(
    tmp_path, monkeypatch
):
    # an index serving only /NAME/json: the release's files are read from its "releases"
    project = {"releases": {"1.0": [{"filename": "p-1.0.tar.gz", "url": "files/p-1.0.tar.gz"}]}}
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "json").write_text(json.dumps(project))
    monkeypatch.setattr(_fetch, "INDEX", tmp_path.as_uri())

    def fake_open(url, timeout):
        if not url.endswith("/p/json"):
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        return open(url.removeprefix("file://"), "rb")

    monkeypatch.setattr(_fetch.urllib.request, "urlopen", fake_open)
    assert (
        _fetch._sdist_url("p", "1.0", "p-1.0.tar.gz") == f"{tmp_path.as_uri()}/p/files/p-1.0.tar.gz"
    )
    with pytest.raises(_fetch.FetchError, match="lists no file p-2.0.tar.gz"):
        _fetch._sdist_url("p", "2.0", "p-2.0.tar.gz")


def test_only_stale_locks_of_the_package_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(_run, "BUILD_TIMEOUT_S", 60)
    old, fresh, other = (
        tmp_path / "jit-torch" / "rw_torch_cluster_knn" / "lock",
        tmp_path / "jit-sdk" / "py311" / "rw_torch_cluster_fps" / "lock",
        tmp_path / "jit-torch" / "rw_torchsort_isotonic" / "lock",
    )
    for lock in (old, fresh, other):
        lock.parent.mkdir(parents=True)
        lock.touch()
    os.utime(old, (time.time() - 120, time.time() - 120))
    os.utime(other, (time.time() - 120, time.time() - 120))
    removed = _run.clear_stale_locks(tmp_path, PACKAGES["torch-cluster"], log=lambda s: None)
    assert removed == [old] and not old.exists() and fresh.exists() and other.exists()


def test_the_first_compiler_error_of_a_build_log_is_reported():
    log = (
        "Error building extension 'x': [1/2] c++ -c /a/b/bindings.cpp\n"
        "/a/b/src/neighbors.cpp:47:10: error: 'unique_ptr' is not a member of 'std'\n"
        "/a/b/src/other.cpp:3:1: error: later\n"
    )
    got = _side.first_error(RuntimeError(log))
    assert got == "neighbors.cpp:47: error: 'unique_ptr' is not a member of 'std'"
    assert _side.first_error(RuntimeError("plain failure")) == "plain failure"


def test_a_compile_only_build_reports_the_error_line_not_an_include_chain():
    stderr = (
        "In file included from /x/sdk/error.h:16,\n"
        "                 from /x/sdk/device.h:8,\n"
        "/p/selective_scan.cpp:236:71: error: 'at' has not been declared\n"
        '/p/k.cu(53): error: identifier "scalar_t" is undefined\n'
        '2 errors detected in the compilation of "k.cu".\n'
    )
    got = _side.first_compile_error(stderr)
    assert got == "/p/selective_scan.cpp:236:71: error: 'at' has not been declared"
    nvcc_only = '/p/k.cu(53): error: identifier "scalar_t" is undefined\n1 error detected\n'
    assert _side.first_compile_error(nvcc_only).startswith("/p/k.cu(53): error: identifier")
