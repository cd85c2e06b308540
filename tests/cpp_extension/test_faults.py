"""Faults in the JIT cache: a read-only folder, a full disk, damaged binaries and objects,
and load() from several threads. (A builder killed with SIGKILL: test_concurrency.py.)

A read-only folder is made with chmod; root ignores permissions, so as root the child
process runs in a user namespace (``unshare -U``), where it is an unprivileged user. A full
disk is a file-size limit (RLIMIT_FSIZE) in the child: writes past it fail with EFBIG, as
they fail with ENOSPC on a full disk, and neither needs a special file system.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import cpp_extension
from cpp_extension import BuildError, CacheError
from tests.cpp_extension.conftest import REPO, require_core, subprocess_env

SOURCE = """
#include <sdk/export.h>

SDK_EXPORT(scale, "(Tensor x, float a) -> Tensor")
sdk_status scale(const sdk_tensor* x, double a, sdk_tensor** out) {
  sdk_scalar s = {a, 0, SDK_SCALAR_FLOAT, 0};
  return sdk_binary_scalar(SDK_MUL, x, s, 0, NULL, out);
}
"""


def _unprivileged_prefix() -> list[str] | None:
    """How to run a child for which chmod a-w means read-only: [] when we are not root, the
    unshare command as root, None when neither works."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    probe = subprocess.run([unshare, "-U", "true"], capture_output=True)
    return [unshare, "-U"] if probe.returncode == 0 else None


def _child(code: str, *, prefix=(), limit_bytes: int | None = None, check=True, **env):
    """Run `code` in a fresh interpreter (optionally with a file-size limit); the last line
    of its stdout is parsed as JSON."""
    if limit_bytes is not None:
        code = (
            "import resource, signal\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit_bytes}, {limit_bytes}))\n"
        ) + textwrap.dedent(code)
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=300, env=subprocess_env(**env), cwd=str(REPO),
    )  # fmt: skip
    if check and proc.returncode != 0:
        raise AssertionError(f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else None


LOAD = """
    import json, cpp_extension, sdk
    try:
        m = cpp_extension.load("faulty", [{src!r}], is_python_module=False)
        y = m.scale(sdk.tensor([1.0, 2.0]), 3.0)
        info = cpp_extension.last_load_info()
        print(json.dumps({{"ok": True, "built": info["built"], "y": y.tolist()}}))
    except Exception as e:
        print(json.dumps({{"ok": False, "type": type(e).__name__, "msg": str(e),
                           "oserror": isinstance(e, OSError)}}))
"""


@pytest.fixture
def source(tmp_path):
    require_core("sdk_binary_scalar")
    src = tmp_path / "src" / "faulty.c"
    src.parent.mkdir()
    src.write_text(SOURCE)
    return src


def _make_read_only(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            p = os.path.join(dirpath, name)
            os.chmod(p, os.stat(p).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        os.chmod(dirpath, 0o555)


def _make_writable(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)


def test_read_only_cache_serves_its_builds_and_refuses_new_ones(source, ext_dir, tmp_path):
    prefix = _unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root and cannot drop privileges (no user namespaces)")
    first = _child(LOAD.format(src=str(source)))
    assert first["ok"] and first["built"] and first["y"] == [3.0, 6.0]
    # the child runs as another user: let it read everything, write nothing
    for p in (tmp_path, source.parent):
        os.chmod(p, 0o755)
    os.chmod(source, 0o644)
    _make_read_only(ext_dir)
    try:
        warm = _child(LOAD.format(src=str(source)), prefix=prefix)
        assert warm["ok"] and not warm["built"], warm
        assert warm["y"] == [3.0, 6.0]
        _make_writable(source.parent)
        source.write_text(SOURCE.replace("SDK_MUL", "SDK_ADD"))
        refused = _child(LOAD.format(src=str(source)), prefix=prefix)
        assert not refused["ok"] and refused["type"] == "CacheError" and refused["oserror"]
        assert "not writable" in refused["msg"] and "SDK_EXTENSIONS_DIR" in refused["msg"]
        assert str(ext_dir) in refused["msg"]
    finally:
        _make_writable(ext_dir)
    # nothing was lost: the original build is still there and still fresh
    source.write_text(SOURCE)
    again = _child(LOAD.format(src=str(source)))
    assert again["ok"] and not again["built"]


def test_cache_root_that_cannot_be_created(source, tmp_path, monkeypatch):
    """SDK_EXTENSIONS_DIR below a regular file: the error names the folder and the fix."""
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("")
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(blocker / "cache"))
    with pytest.raises(OSError) as info:
        cpp_extension.load("faulty", [str(source)], is_python_module=False)
    assert str(blocker) in str(info.value)


def test_full_disk_gives_a_clear_error_and_keeps_the_old_build(source, ext_dir):
    first = _child(LOAD.format(src=str(source)))
    assert first["ok"] and first["built"]
    stamp_before = (next(ext_dir.glob("*/faulty")) / "build.stamp").read_text()
    source.write_text(SOURCE.replace("SDK_MUL", "SDK_ADD"))
    # 4 KB: too small for the object file and the linked library
    full = _child(LOAD.format(src=str(source)), limit_bytes=4096)
    assert not full["ok"], full
    assert full["type"] in ("BuildError", "CacheError"), full
    assert "full" in full["msg"] and "SDK_EXTENSIONS_DIR" in full["msg"], full["msg"]
    build_dir = next(ext_dir.glob("*/faulty"))
    assert (build_dir / "build.stamp").read_text() == stamp_before
    assert not list(build_dir.glob(".*.tmp")), "a half-written copy was left behind"
    # the previous build still loads without a compiler; the new one builds once space is back
    source.write_text(SOURCE)
    old = _child(LOAD.format(src=str(source)))
    assert old["ok"] and not old["built"] and old["y"] == [3.0, 6.0]
    source.write_text(SOURCE.replace("SDK_MUL", "SDK_ADD"))
    new = _child(LOAD.format(src=str(source)))
    assert new["ok"] and new["built"] and new["y"] == [4.0, 5.0]


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete", "truncate_all"])
def test_damaged_cached_library_is_detected_and_rebuilt(source, ext_dir, damage):
    first = _child(LOAD.format(src=str(source)))
    assert first["ok"] and first["built"]
    build_dir = next(ext_dir.glob("*/faulty"))
    output = Path(json.loads((build_dir / "build.stamp").read_text())["output"])
    data = output.read_bytes()
    if damage == "truncate":
        output.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        output.write_bytes(bytes(len(data)))
    elif damage == "delete":
        output.unlink()
    else:  # the binary, its linked copy and every object file: only a full rebuild helps
        for p in [output, *build_dir.glob("*.o"), *(build_dir / "link").iterdir()]:
            p.write_bytes(p.read_bytes()[:100])
    again = _child(LOAD.format(src=str(source)))
    assert again["ok"] and again["built"], again
    assert again["y"] == [3.0, 6.0]
    third = _child(LOAD.format(src=str(source)))
    assert third["ok"] and not third["built"]


def test_damaged_object_file_is_rebuilt(tmp_path, ext_dir):
    """A truncated object of an unchanged source: ninja keeps it, the link fails on it, and
    the build is retried once from scratch."""
    require_core("sdk_binary_scalar")
    a, b = tmp_path / "a.c", tmp_path / "b.c"
    a.write_text(SOURCE)
    b.write_text("int helper_b(void) { return 7; }\n")
    code = f"""
        import json, cpp_extension, sdk
        m = cpp_extension.load("two_objects", [{str(a)!r}, {str(b)!r}], is_python_module=False)
        print(json.dumps({{"built": cpp_extension.last_load_info()["built"],
                           "y": m.scale(sdk.tensor([1.0]), 2.0).tolist()}}))
    """
    assert _child(code)["built"]
    build_dir = next(ext_dir.glob("*/two_objects"))
    b_obj = build_dir / "b.o"
    b_obj.write_bytes(b_obj.read_bytes()[:64])
    os.utime(b_obj)  # newer than its source: ninja will not recompile it on its own
    a.write_text(SOURCE + "\n/* changed */\n")
    out = _child(code)
    assert out["built"] and out["y"] == [2.0]


def test_pybind11_load_from_threads_builds_once(ext_dir):
    src = "sdk::Tensor twice(const sdk::Tensor& x) { return x * 2; }"

    def go(_):
        return cpp_extension.load_inline("threaded_pb", [src], functions="twice")

    with ThreadPoolExecutor(4) as pool:
        mods = list(pool.map(go, range(4)))
    assert all(m is mods[0] for m in mods)
    import sdk

    assert mods[0].twice(sdk.tensor([1.5])).tolist() == [3.0]
    stamp = json.loads((next(ext_dir.glob("*/threaded_pb")) / "build.stamp").read_text())
    assert stamp["builds"] == 1


def test_threads_loading_different_extensions(ext_dir, tmp_path):
    require_core("sdk_binary_scalar")
    import sdk

    def go(i):
        src = tmp_path / f"many_{i}.c"
        src.write_text(SOURCE.replace("SDK_MUL", "SDK_ADD" if i % 2 else "SDK_SUB"))
        mod = cpp_extension.load(f"many_{i}", [str(src)], is_python_module=False)
        return mod.scale(sdk.tensor([1.0]), float(i)).tolist()

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(go, range(4)))
    assert results == [[1.0], [2.0], [-1.0], [4.0]]


def test_cache_error_is_an_oserror():
    assert issubclass(CacheError, OSError) and not issubclass(CacheError, BuildError)
