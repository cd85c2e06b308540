"""Pickled build requests (cpp_extension/_remote.py) build only from the receiver's own copy:
the sender's folder is never read (another user's files, a FIFO), paths in the request
outside the copy must pass the cache's trust rules, and a malformed request is refused
naming its field before anything is written (nothing is left under shipped/)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from cpp_extension import _remote
from tests.cpp_extension.conftest import require_core, run_python
from tests.security.conftest import as_attacker, needs_root

OP = b"""#include <sdk/export.h>
#include "k.h"
#if __has_include("site.h")
#include "site.h"
#endif
SDK_EXPORT(plus_k, "(Tensor x) -> Tensor")
sdk_status plus_k(const sdk_tensor* x, sdk_tensor** out) {
  sdk_scalar k = {K, 0, SDK_SCALAR_FLOAT, 0};
  return sdk_binary_scalar(SDK_ADD, x, k, 0, NULL, out);
}
"""


def _request(sender: Path, **change) -> dict:
    """A request as a sender in `folder` makes it: op.cpp and its header k.h."""
    state = {
        "format": "sdk.build-request", "version": 1, "name": "req_plus_k", "bridge": "ctypes",
        "inline": False, "folder": str(sender),
        "files": [("op.cpp", OP), ("k.h", b"#define K 1.5\n")], "sources": 1,
        "extra_cflags": [], "extra_cuda_cflags": [], "extra_ldflags": [],
        "extra_include_paths": [], "with_cuda": False, "dlink": False, "abi": [1, 0],
        "digest": "cd" * 32, "origin": "sender",
    }  # fmt: skip
    state.update(change)
    return state


# the receiver: unpickle (here: load_shipped) in a fresh process, print what it got
RECEIVE = """
import json, sdk
from cpp_extension import _remote
try:
    lib = _remote.load_shipped({state!r})
    print(json.dumps({{"ok": True, "y": lib.plus_k(sdk.ones(1)).tolist()[0]}}))
except Exception as e:
    print(json.dumps({{"ok": False, "type": type(e).__name__, "msg": str(e)}}))
"""


def _receive(state: dict, cache: Path) -> dict:
    import json

    require_core()
    code = textwrap.dedent(RECEIVE.format(state=state))
    # a guard against the hang this checks for, not a timing: unpickling never waits
    proc = run_python(code, timeout=240, SDK_EXTENSIONS_DIR=str(cache), MAX_JOBS="2")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_fifo_in_the_senders_folder_is_never_opened(tmp_path):
    sender = tmp_path / "sender"
    sender.mkdir()
    os.mkfifo(sender / "op.cpp")  # the same path here: opening it would wait forever
    (sender / "k.h").write_bytes(b"#define K 100.0\n")  # and this is not the shipped header
    got = _receive(_request(sender), tmp_path / "cache")
    assert got == {"ok": True, "y": 2.5}  # built from the shipped texts, K = 1.5
    copies = list((tmp_path / "cache" / "shipped").glob("req_plus_k-*/k.h"))
    assert len(copies) == 1 and copies[0].read_bytes() == b"#define K 1.5\n"


@needs_root()
def test_another_users_copy_of_the_senders_folder_is_not_built_from(public_dir, tmp_path):
    # the attacker recreates the sender's folder with the same bytes, plus the optional
    # header the sender did not have (so the request does not ship it)
    folder = public_dir / "project"
    (public_dir / "op.cpp.in").write_bytes(OP)
    as_attacker(
        f"mkdir -p {folder} && cd {folder} && cp {public_dir}/op.cpp.in op.cpp && "
        f"printf '#define K 1.5\\n' > k.h && printf '#error planted header\\n' > site.h"
    )
    got = _receive(_request(folder), tmp_path / "cache")
    assert got == {"ok": True, "y": 2.5}, got


@needs_root()
def test_an_include_path_another_user_controls_is_refused(public_dir, tmp_path):
    inc = public_dir / "inc"
    as_attacker(f"mkdir -p {inc}/sdk && printf '#error planted\\n' > {inc}/sdk/export.h")
    for key, value in (("extra_include_paths", [str(inc)]), ("extra_cflags", [f"-I{inc}"])):
        got = _receive(_request(tmp_path / "gone", **{key: value}), tmp_path / "cache")
        assert not got["ok"] and got["type"] == "ValueError", got
        assert f"unpickling an extension: {key}: " in got["msg"]
        assert "not a folder this user alone controls" in got["msg"]


def test_include_paths_below_the_senders_folder_point_into_the_copy(tmp_path):
    state = _request(
        tmp_path / "sender",
        files=[("src/op.cpp", OP), ("inc/k.h", b"#define K 0.25\n")],
        extra_include_paths=[str(tmp_path / "sender" / "inc"), str(tmp_path / "nowhere")],
    )
    assert _receive(state, tmp_path / "cache") == {"ok": True, "y": 1.25}


LONG = "x" * 300 + ".h"
BAD = [
    ({"files": [("op.cpp", OP), (LONG, b"")]}, "files", "longer than 255 bytes"),
    ({"files": [("op.cpp", OP), ("op.cpp", b"")]}, "files", "named twice"),
    ({"files": [("op.cpp", OP), ("op.cpp/k.h", b"")]}, "files", "is a file and a folder"),
    ({"files": [("op.cpp", OP), ("k\ud800.h", b"")]}, "files", "not valid UTF-8"),
    ({"files": [("op.cpp", OP), ("k\0.h", b"")]}, "files", "NUL"),
    ({"extra_cflags": ["-DX\0"]}, "extra_cflags", "NUL"),
    ({"extra_ldflags": ["-L" + "y" * 5000]}, "extra_ldflags", "more than 4096"),
    ({"extra_cflags": ["-O2"] * 1001}, "extra_cflags", "more than 1000"),
    ({"extra_include_paths": ["inc"]}, "extra_include_paths", "not an absolute path"),
    ({"folder": "/a\0b"}, "folder", "NUL"),
    ({"origin": "o" * 5000}, "origin", "more than 4096"),
    ({"name": "n" * 300}, "name", "C identifier of at most"),
    ({"inline": True, "folder": "", "files": [("build.ninja", b"")]}, "files", "inline"),
]


@pytest.mark.parametrize("change,field,text", BAD, ids=[f"{f}-{t}" for _, f, t in BAD])
def test_malformed_requests_are_refused_naming_the_field(tmp_path, monkeypatch, change, field,
                                                         text):  # fmt: skip
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match=f"unpickling an extension: {field}: ") as info:
        _remote.load_shipped(_request(tmp_path / "sender", **change))
    assert text in str(info.value)
    assert not (tmp_path / "cache").exists()  # refused before anything was written


def test_a_failed_write_leaves_nothing_under_shipped(tmp_path, monkeypatch):
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "cache"))
    real = _remote._trust.open_no_follow
    calls = []

    def fail_second(path, flags, *args):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(path))
        return real(path, flags, *args)

    monkeypatch.setattr(_remote._trust, "open_no_follow", fail_second)
    with pytest.raises(OSError, match="writing its file 'k.h'"):
        _remote._write_copies(_request(tmp_path / "sender"), "ef" * 32)
    assert list((tmp_path / "cache" / "shipped").iterdir()) == []
    monkeypatch.setattr(_remote._trust, "open_no_follow", real)
    folder = _remote._write_copies(_request(tmp_path / "sender"), "ef" * 32)
    assert sorted(p.name for p in folder.iterdir()) == ["k.h", "op.cpp"]
    assert list((tmp_path / "cache" / "shipped").iterdir()) == [folder]
