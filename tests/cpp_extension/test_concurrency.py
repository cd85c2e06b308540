"""Processes racing for one extension, and a builder killed mid-compile."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from tests.cpp_extension.conftest import REPO, require_core, subprocess_env
from tests.cpp_extension.test_cache import SOURCE, _wrapper

LOAD = """
import sys, cpp_extension
m = cpp_extension.load("race_ext", [sys.argv[1]], is_python_module=False)
m.check(1)
print("ok", cpp_extension.last_load_info()["built"])
"""


def _project(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "ext.c").write_text(SOURCE)
    (src / "local.h").write_text('#include "sub/deeper.h"\n')
    (src / "sub" / "deeper.h").write_text("#define LIMIT 0\n")
    return src / "ext.c"


def _counting_cc(tmp_path, log, sleep: str = "1"):
    """A C compiler wrapper that logs each compile (not --version probes), optionally slow."""
    return _wrapper(
        tmp_path / "countcc",
        f"""
        case " $* " in *" -c "*) echo "$$" >> {log}; sleep ${{CC_SLEEP:-{sleep}}};; esac
        exec cc "$@"
        """,
    )


def _spawn(src, **env):
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(LOAD), str(src)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(**env),
        cwd=str(REPO),
    )


def test_six_processes_one_compile(tmp_path, ext_dir):
    require_core("sdk_set_last_error", "sdk_abi_version")
    src = _project(tmp_path)
    log = tmp_path / "compiles.log"
    cc = _counting_cc(tmp_path, log)
    procs = [_spawn(src, CC=cc) for _ in range(6)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert out.startswith("ok")
    assert len(log.read_text().split()) == 1, "exactly one compile for six loaders"
    assert sum(out.strip().endswith("True") for out, _ in results) == 1


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_builder_killed_mid_compile_does_not_block(tmp_path, ext_dir):
    require_core("sdk_set_last_error", "sdk_abi_version")
    src = _project(tmp_path)
    log = tmp_path / "compiles.log"
    cc = _counting_cc(tmp_path, log, sleep="0")
    victim = _spawn(src, CC=cc, CC_SLEEP="120")
    deadline = time.monotonic() + 60
    while not (log.exists() and log.read_text().strip()):
        assert time.monotonic() < deadline, "the first builder never started compiling"
        assert victim.poll() is None, victim.communicate()
        time.sleep(0.05)
    orphan = int(log.read_text().split()[0])
    victim.send_signal(signal.SIGKILL)
    victim.wait()

    start = time.monotonic()
    later = _spawn(src, CC=cc)
    out, err = later.communicate(timeout=120)
    elapsed = time.monotonic() - start
    assert later.returncode == 0, err
    assert out.strip() == "ok True", "the next loader redoes the interrupted build"
    assert elapsed < 60, f"a dead builder blocked the next load for {elapsed:.0f}s"
    time.sleep(0.2)
    assert not _alive(orphan), "the dead builder's compiler was left running"
    leftovers = [n for n in os.listdir(os.path.dirname(_built_path(ext_dir))) if n.endswith(".tmp")]
    assert not leftovers


def _built_path(ext_dir):
    (found,) = list(ext_dir.glob("*/race_ext/race_ext.so"))
    return str(found)
