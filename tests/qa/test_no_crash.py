"""Crash hunting: every public sdk function and Tensor method with adversarial arguments, and
the C ABI with NULL pointers and bogus codes, in child processes (a crash or hang is reported
with the case that caused it; the run then resumes after it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.qa.conftest import REPO, run_python, subprocess_env


def run_cases(module: str, timeout: float = 120) -> tuple[list, list]:
    """Run `python -m module START` until every case ran; (crashes, bad lines)."""
    start, crashes, bad = 0, [], []
    while True:
        proc = subprocess.Popen(
            [sys.executable, "-m", module, str(start)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=subprocess_env(), cwd=REPO,
        )  # fmt: skip
        try:
            out, err = proc.communicate(timeout=timeout)
            hung = False
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            hung = True
        current = None
        for line in out.splitlines():
            if line.startswith("START "):
                current = int(line.split()[1])
            elif line.startswith(("OK ", "RAISED ", "BAD ")):
                current = None
                if line.startswith("BAD "):
                    bad.append(line)
        if proc.returncode == 0 and not hung:
            return crashes, bad
        what = "hang" if hung else f"exit code {proc.returncode}"
        crashes.append(f"case {current}: {what}; stderr: {err[-800:]}")
        if current is None:
            return crashes, bad
        start = current + 1


def _label(module: str, i: int) -> str:
    r = run_python(
        f"import importlib; m = importlib.import_module({module!r}); print(m.cases()[{i}][0])"
    )
    return r.stdout.strip()


def _describe(module: str, crashes: list) -> list:
    out = []
    for c in crashes:
        head = c.split(":", 1)[0]
        i = head.split()[-1]
        out.append((_label(module, int(i)) if i.isdigit() else "?") + " -> " + c)
    return out


def test_python_api_never_crashes():
    crashes, bad = run_cases("tests.qa.crash_cases")
    assert not crashes, "\n".join(_describe("tests.qa.crash_cases", crashes))
    assert not bad, "unexpected exception types:\n" + "\n".join(bad[:50])


def test_c_abi_null_and_bogus_codes_never_crash():
    crashes, bad = run_cases("tests.qa.capi_cases")
    assert not crashes, "\n".join(_describe("tests.qa.capi_cases", crashes))
    assert not bad, "\n".join(bad)


GETTERS = ["sdk_tensor_ndim", "sdk_tensor_sizes", "sdk_tensor_strides", "sdk_tensor_numel",
           "sdk_tensor_dtype", "sdk_tensor_data_ptr", "sdk_tensor_is_contiguous",
           "sdk_tensor_version", "sdk_tensor_storage_offset"]  # fmt: skip


def test_null_safe_entry_points():
    """release/retain/use_count accept NULL (documented or harmless)."""
    r = run_python(
        """
        import ctypes, sdk
        lib = ctypes.CDLL(sdk.get_library_path())
        lib.sdk_tensor_release(None)
        lib.sdk_tensor_retain(None)
        lib.sdk_tensor_bump_version(None)
        lib.sdk_tensor_use_count.restype = ctypes.c_int64
        print("OK", lib.sdk_tensor_use_count(None))
        """
    )
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr


@pytest.mark.parametrize("getter", GETTERS)
def test_getters_with_null_handle(getter):
    r = run_python(
        f"""
        import ctypes, sdk
        fn = getattr(ctypes.CDLL(sdk.get_library_path()), {getter!r})
        fn.restype = ctypes.c_int64
        print("OK", fn(None))
        """
    )
    assert r.returncode == 0, f"{getter}(NULL): exit code {r.returncode}"


def test_errors_name_the_problem():
    import sdk

    cases = [
        (lambda: sdk.randn(2, 3) @ sdk.randn(4, 5), "[2, 3]"),
        (lambda: sdk.randn(2, 3) + sdk.randn(4), "3"),
        (lambda: sdk.randn(2, 3).view(5), "5"),
        (lambda: sdk.randn(2, 3).sum(4), "4"),
        (lambda: sdk.cat([sdk.ones(2, 3), sdk.ones(2, 4)]), "cat"),
        (lambda: sdk.randn(2, 3)[5], "5"),
    ]
    for fn, needle in cases:
        with pytest.raises((ValueError, IndexError, RuntimeError, TypeError)) as e:
            fn()
        assert needle in str(e.value), str(e.value)
