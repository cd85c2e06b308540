"""DataLoader faults never hang the main process: a worker killed while it sends, batches and
exceptions that cannot be pickled, a worker stuck past `timeout`, errors in user code,
Ctrl-C, persistent workers, and workers outliving a killed main process. Each scenario
(tests/sdk/data/dataloader_faults.py) runs in its own interpreter and session, killed at a bound
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
from tests.sdk.data.dataloader_faults import gone

BOUND_S = 60  # a hang guard for a whole scenario on a loaded machine, not a timing
ORPHAN_BOUND_S = 20  # how long workers may outlive a killed main process (they take < 1 s)

SCENARIOS = [
    ("kill_mid_send", "fork", "20"),
    ("kill_mid_send", "spawn", "0"),
    ("unpicklable",),
    ("hung_worker",),
    ("user_code_faults",),
    ("keyboard_interrupt",),
    ("persistent",),
]
PARENTS = [("fork", "main"), ("fork", "thread"), ("spawn", "main"), ("forkserver", "main")]


class Scenario:
    """One scenario's interpreter, in a session of its own (killed whole at the end)."""

    def __init__(self, folder, name: str, *args: str, pipe: bool = False) -> None:
        self.label = f"{name}{args}"
        self.out = folder / f"{name}-{'-'.join(args)}.out"
        code = f"from tests.sdk.data.dataloader_faults import run; run({name!r}, *{args!r})"
        # Output goes to a file unless read as it comes: a worker left behind holding a
        # pipe would keep a reader of the pipe waiting.
        with open(self.out, "w") as f:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code],
                stdout=subprocess.PIPE if pipe else f,
                stderr=f,
                env=subprocess_env(),
                cwd=import_path(),
                start_new_session=True,
            )

    def result(self) -> str:
        """Its output, once it has exited 0; a failure when it fails or hangs."""
        try:
            rc = self.proc.wait(timeout=BOUND_S)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"scenario {self.label} hung; its output:\n{self.out.read_text()}")
        self.kill()  # any worker it left behind
        text = self.out.read_text()
        assert rc == 0, f"scenario {self.label} failed ({rc}):\n{text}"
        return text

    def first_line(self) -> str:
        end = time.monotonic() + BOUND_S
        while time.monotonic() < end and self.proc.poll() is None:
            if select.select([self.proc.stdout], [], [], 0.1)[0]:
                return self.proc.stdout.readline().decode()
        raise AssertionError(f"{self.label} printed nothing:\n{self.out.read_text()}")

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """Every scenario, started at once: they mostly wait (on imports, workers, timeouts),
    so side by side the file takes about as long as the slowest."""
    folder = tmp_path_factory.mktemp("dataloader-faults")
    runs = {s: Scenario(folder, *s) for s in SCENARIOS}
    runs.update({p: Scenario(folder, "parent", *p, pipe=True) for p in PARENTS})
    yield runs
    for run in runs.values():
        run.kill()


@pytest.mark.forks
@pytest.mark.parametrize("ctx, timeout", [("fork", "20"), ("spawn", "0")])
def test_worker_killed_while_sending_raises_with_its_pid_and_signal(started, ctx, timeout):
    assert "killed by signal" in started["kill_mid_send", ctx, timeout].result()


@pytest.mark.forks
def test_unpicklable_batch_and_exceptions_raise_in_the_main_process(started):
    text = started["unpicklable",].result()
    for what in ("batch:", "local class:", "worker-only class:", "unpickling:"):
        assert what in text, text


@pytest.mark.forks
def test_stuck_worker_raises_after_timeout_and_is_stopped(started):
    assert "timed out" in started["hung_worker",].result()


@pytest.mark.forks
def test_errors_in_user_code_and_deleting_the_iterator_mid_epoch(started):
    assert started["user_code_faults",].result().strip() == "ok"


@pytest.mark.forks
def test_keyboard_interrupt_stops_the_workers(started):
    assert started["keyboard_interrupt",].result().strip() == "ok"


@pytest.mark.forks
def test_persistent_workers_abandoned_epoch_and_killed_worker(started):
    assert started["persistent",].result().strip() == "ok"


@pytest.mark.forks
@pytest.mark.parametrize("ctx, where", PARENTS)
def test_workers_exit_when_the_main_process_is_killed(started, ctx, where):
    run = started[ctx, where]
    pids = [int(p) for p in run.first_line().split()]
    assert len(pids) == 2 and not any(gone(p) for p in pids)
    os.kill(run.proc.pid, signal.SIGKILL)
    run.proc.wait()
    end = time.monotonic() + ORPHAN_BOUND_S
    while not all(gone(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.05)
    assert all(gone(p) for p in pids), f"workers outlived the main process: {pids}"
