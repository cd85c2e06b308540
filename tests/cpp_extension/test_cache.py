"""The JIT cache across fresh processes: nothing changed -> no compiler; any input changed -> rebuild."""

from __future__ import annotations

import json
import os
import stat
import textwrap

import pytest

import cpp_extension
from cpp_extension import BuildError
from tests.cpp_extension.conftest import require_core, run_python

CORE_ERRORS = ("sdk_set_last_error", "sdk_last_error_kind", "sdk_last_error_message")

SOURCE = """
#include <sdk/export.h>
#include "local.h"

SDK_EXPORT(check, "(int n) -> ()")
sdk_status check(int64_t n) {
  if (n < LIMIT) return sdk_set_last_error(SDK_ERROR_VALUE, "n is below the limit");
  return SDK_OK;
}
"""


@pytest.fixture
def project(tmp_path):
    require_core(*CORE_ERRORS)
    src = tmp_path / "src"
    src.mkdir()
    (src / "ext.c").write_text(SOURCE)
    (src / "local.h").write_text('#include "sub/deeper.h"\n')
    (src / "sub").mkdir()
    (src / "sub" / "deeper.h").write_text("#define LIMIT 0\n")
    return src


def _load_in_fresh_process(src, flags=(), **env) -> dict:
    code = f"""
        import json, cpp_extension
        m = cpp_extension.load("cached_ext", [{str(src / "ext.c")!r}], extra_cflags={list(flags)!r},
                               is_python_module=False)
        m.check(5)
        info = cpp_extension.last_load_info()
        print(json.dumps({{"built": info["built"], "dir": info["build_directory"]}}))
    """
    out = run_python(code, **env).stdout.strip().splitlines()[-1]
    return json.loads(out)


def _builds(info: dict) -> int:
    with open(os.path.join(info["dir"], "build.stamp")) as f:
        return json.load(f)["builds"]


def test_cache_hit_and_miss_matrix(project, ext_dir):
    first = _load_in_fresh_process(project)
    assert first["built"] and _builds(first) == 1
    assert first["dir"].startswith(str(ext_dir))
    assert os.path.basename(os.path.dirname(first["dir"])).startswith("py3")  # py3XX_abiN/name

    again = _load_in_fresh_process(project)
    assert not again["built"] and _builds(again) == 1, "unchanged inputs must not recompile"

    os.utime(project / "ext.c")  # a newer mtime alone is not a change
    assert not _load_in_fresh_process(project)["built"]

    (project / "sub" / "deeper.h").write_text("#define LIMIT 1\n")  # transitively included
    assert _load_in_fresh_process(project)["built"]

    assert _load_in_fresh_process(project, flags=["-DEXTRA=1"])["built"]
    assert not _load_in_fresh_process(project, flags=["-DEXTRA=1"])["built"]

    (project / "ext.c").write_text(SOURCE + "\n/* edited */\n")
    info = _load_in_fresh_process(project, flags=["-DEXTRA=1"])
    assert info["built"] and _builds(info) == 4


def _wrapper(path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_compiler_change_rebuilds(project, ext_dir, tmp_path):
    assert _load_in_fresh_process(project)["built"]
    cc = _wrapper(tmp_path / "othercc", 'exec cc "$@"\n')
    assert _load_in_fresh_process(project, CC=cc)["built"], "another compiler is another build"
    assert not _load_in_fresh_process(project, CC=cc)["built"]


def test_failed_build_is_retried(project, ext_dir, tmp_path, monkeypatch):
    flag = tmp_path / "fail"
    flag.write_text("")
    cc = _wrapper(
        tmp_path / "flakycc",
        f"""
        case " $* " in *" -c "*) [ -e {flag} ] && {{ echo "flaky: broken today" >&2; exit 1; }};; esac
        exec cc "$@"
        """,
    )
    monkeypatch.setenv("CC", cc)
    with pytest.raises(BuildError):
        cpp_extension.load("retry_ext", [str(project / "ext.c")], is_python_module=False)
    flag.unlink()  # same sources, flags and compiler: only the outcome differs
    m = cpp_extension.load("retry_ext", [str(project / "ext.c")], is_python_module=False)
    assert cpp_extension.last_load_info()["built"]
    assert m.check(3) is None


def test_compile_error_then_fix_in_same_process(project, ext_dir):
    src = project / "ext.c"
    m0 = cpp_extension.load("fixme_ext", [str(src)], is_python_module=False)
    with pytest.raises(ValueError, match="below the limit"):
        m0.check(-1)

    src.write_text(SOURCE.replace("return SDK_OK;", "return SDK_OK\n}"))  # missing ';'
    with pytest.raises(BuildError) as info:
        cpp_extension.load("fixme_ext", [str(src)], is_python_module=False)
    msg = str(info.value)
    assert f"{src}:" in msg and "error" in msg, msg
    assert "Command:" in msg and " -c " in msg
    assert "Build folder:" in msg and "fixme_ext" in msg
    assert len(msg.splitlines()) < 30, "the message shows the first errors, not the whole log"
    assert info.value.diagnostics and info.value.diagnostics[0].file == str(src)

    src.write_text(SOURCE.replace("n < LIMIT", "n < LIMIT + 10"))
    m1 = cpp_extension.load("fixme_ext", [str(src)], is_python_module=False)
    assert m1.__name__ == "fixme_ext_v1", "a rebuild in one process loads under a fresh name"
    with pytest.raises(ValueError):
        m1.check(5)  # the new code really runs
    m0.check(5)  # the old module still works


def test_threads_share_one_build(project, ext_dir):
    from concurrent.futures import ThreadPoolExecutor

    def go(_):
        return cpp_extension.load("threaded_ext", [str(project / "ext.c")], is_python_module=False)

    with ThreadPoolExecutor(4) as pool:
        mods = list(pool.map(go, range(4)))
    assert all(m is mods[0] for m in mods)
    with open(os.path.join(cpp_extension.last_load_info()["build_directory"], "build.stamp")) as f:
        assert json.load(f)["builds"] == 1
