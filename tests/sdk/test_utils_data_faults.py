"""DataLoader faults never hang the main process: a worker killed while it sends, batches and
exceptions that cannot be pickled, a worker stuck past `timeout`, errors in user code,
Ctrl-C, persistent workers, and workers outliving a killed main process. Each scenario
(tests/sdk/dataloader_faults.py) runs in its own interpreter and session, killed at a bound
if it hangs."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from tests._support import import_path, subprocess_env
from tests.sdk.dataloader_faults import gone

BOUND_S = 90  # a hang guard for a whole scenario on a loaded machine, not a timing


def _start(name: str, *args: str, stdout) -> subprocess.Popen:
    code = f"from tests.sdk.dataloader_faults import run; run({name!r}, *{args!r})"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=stdout,
        stderr=subprocess.STDOUT,
        env=subprocess_env(),
        cwd=import_path(),
        start_new_session=True,  # its own process group: killed whole if it hangs
    )


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _scenario(tmp_path, name: str, *args: str) -> str:
    """Run a scenario; its output. Output goes to a file: a leftover worker holding a pipe
    could otherwise keep the reader waiting."""
    out = tmp_path / f"{name}.out"
    with open(out, "w") as f:
        proc = _start(name, *args, stdout=f)
    try:
        rc = proc.wait(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        pytest.fail(f"scenario {name}{args} hung; its output:\n{out.read_text()}")
    _kill_group(proc)  # any worker it left behind
    text = out.read_text()
    assert rc == 0, f"scenario {name}{args} failed ({rc}):\n{text}"
    return text


@pytest.mark.forks
@pytest.mark.parametrize("ctx, timeout", [("fork", "5"), ("spawn", "0")])
def test_worker_killed_while_sending_raises_with_its_pid_and_signal(tmp_path, ctx, timeout):
    assert "killed by signal" in _scenario(tmp_path, "kill_mid_send", ctx, timeout)


@pytest.mark.forks
def test_unpicklable_batch_and_exceptions_raise_in_the_main_process(tmp_path):
    text = _scenario(tmp_path, "unpicklable")
    assert "batch:" in text and "local class:" in text and "worker-only class:" in text


@pytest.mark.forks
def test_stuck_worker_raises_after_timeout_and_is_stopped(tmp_path):
    assert "timed out" in _scenario(tmp_path, "hung_worker")


@pytest.mark.forks
def test_errors_in_user_code_and_deleting_the_iterator_mid_epoch(tmp_path):
    assert _scenario(tmp_path, "user_code_faults").strip() == "ok"


@pytest.mark.forks
def test_keyboard_interrupt_stops_the_workers(tmp_path):
    assert _scenario(tmp_path, "keyboard_interrupt").strip() == "ok"


@pytest.mark.forks
def test_persistent_workers_abandoned_epoch_and_killed_worker(tmp_path):
    assert _scenario(tmp_path, "persistent").strip() == "ok"


def _read_line(proc: subprocess.Popen) -> str:
    end = time.monotonic() + BOUND_S
    while time.monotonic() < end and proc.poll() is None:
        if select.select([proc.stdout], [], [], 0.1)[0]:
            return proc.stdout.readline().decode()
    raise AssertionError(f"the main process printed nothing (exit status {proc.poll()})")


@pytest.mark.forks
@pytest.mark.parametrize("ctx, where", [("fork", "main"), ("fork", "thread"), ("spawn", "main")])
def test_workers_exit_when_the_main_process_is_killed(ctx, where):
    proc = _start("parent", ctx, where, stdout=subprocess.PIPE)
    try:
        pids = [int(p) for p in _read_line(proc).split()]
        assert len(pids) == 2 and not any(gone(p) for p in pids)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        end = time.monotonic() + BOUND_S
        while not all(gone(p) for p in pids) and time.monotonic() < end:
            time.sleep(0.05)
        assert all(gone(p) for p in pids), f"workers outlived their parent: {pids}"
    finally:
        _kill_group(proc)
        proc.stdout.close()
