"""The core's tests pass against an ASan + UBSan build of the core and sdk._C, and the registry
and thread tests against a TSan build, with no report. (Marked slow: debug builds, and TSan
runs the threaded tests several times slower.)"""

from __future__ import annotations

import os
import re
import time

import pytest

from tests.sanitizers import harness

# Each job builds the core a third and fourth time (ASan, TSan) and reruns whole test folders
# under it: about 10 worker-minutes, more than the rest of a developer's run. So they run
# where they are asked for: .ci/run and scripts/sanitize.sh set SDK_SANITIZERS=1.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("SDK_SANITIZERS") != "1",
        reason="sanitizer jobs run in CI (.ci/run) and with SDK_SANITIZERS=1 pytest "
        "tests/sanitizers (or scripts/sanitize.sh)",
    ),
]

# Fewer passing tests than this means the run selected or collected far less than meant.
MIN_PASSED = 900


def _tail(text: str, limit: int = 30000) -> str:
    return text if len(text) <= limit else "...\n" + text[-limit:]


def test_core_tests_pass_under_asan_and_ubsan() -> None:
    if harness.runtime_libraries() is None:
        pytest.skip(f"{harness._cxx()} has no ASan/UBSan runtimes (libasan.so, libubsan.so)")
    start = time.monotonic()
    proc = harness.run(["-q"], timeout=1800)  # a hang must not eat the CI budget
    output = proc.stdout + proc.stderr
    print(f"sanitized build + run: {time.monotonic() - start:.0f} s")
    found = harness.reports(output, harness.ASAN)
    assert not found, "sanitizer reports:\n" + "\n".join(found) + "\n\n" + _tail(output)
    assert proc.returncode == 0, _tail(output)
    passed = re.search(r"(\d+) passed", output)
    assert passed and int(passed.group(1)) >= MIN_PASSED, _tail(output)


# The registry and thread tests under TSan (tests/sanitizers/harness.TSAN.default_tests).
MIN_PASSED_TSAN = 40


def test_registry_and_thread_tests_pass_under_tsan() -> None:
    if harness.runtime_libraries(harness.TSAN) is None:
        pytest.skip(f"{harness._cxx()} has no TSan runtime (libtsan.so)")
    start = time.monotonic()
    proc = harness.run(["-q"], timeout=1800, flavor=harness.TSAN)
    output = proc.stdout + proc.stderr
    print(f"TSan build + run: {time.monotonic() - start:.0f} s")
    found = harness.reports(output, harness.TSAN)
    assert not found, "TSan reports:\n" + "\n".join(found) + "\n\n" + _tail(output)
    assert proc.returncode == 0, _tail(output)
    passed = re.search(r"(\d+) passed", output)
    assert passed and int(passed.group(1)) >= MIN_PASSED_TSAN, _tail(output)
