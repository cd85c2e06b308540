"""One threading model for the pool and the BLAS: a thread count above the CPUs runs one thread
per CPU at most, BLAS is single-threaded inside parallel regions and runs on the pool outside
them, nothing busy-waits after a call, the default follows physical cores and the environment,
and set_num_threads/get_num_threads behave as torch's."""

from __future__ import annotations

import os

import pytest

import sdk
from tests._support import run_python
from tests.reliability.conftest import run_module

CPUS = len(os.sched_getaffinity(0))


@pytest.fixture
def restore_threads():
    n = sdk.get_num_threads()
    yield
    sdk.set_num_threads(n)


def probe(mode: str, **env: str) -> dict:
    env.setdefault("SDK_NUM_THREADS", "")
    env.setdefault("OMP_NUM_THREADS", "")
    return run_module("tests.reliability._threads_probe", mode, timeout=240, **env)


@pytest.fixture(scope="module")
def oversubscribed() -> dict:
    return probe("oversubscribed")


def test_oversubscribed_results_are_right(oversubscribed):
    assert oversubscribed["bad"] == []
    assert oversubscribed["num_threads"] == 8 * CPUS  # kept as set, as torch keeps it


def test_oversubscribed_runs_one_thread_per_cpu_at_most(oversubscribed):
    info = oversubscribed["info"]
    assert info["max_concurrency"] == CPUS
    assert info["pool_workers"] == CPUS - 1
    assert oversubscribed["threads"].count("sdk-pool") == CPUS - 1
    # The main thread, the pool's workers and two BLAS libraries' own idle threads (the sdk's
    # and numpy's), nothing per thread set: 8x the CPUs would be far above this.
    assert len(oversubscribed["threads"]) <= 3 * CPUS + 2, oversubscribed["threads"]


def test_blas_single_threaded_inside_regions_and_on_the_pool_outside(oversubscribed):
    info = oversubscribed["info"]
    assert info["blas_threads_in_region"] == 1
    assert info["blas_threads"] == CPUS
    assert info["blas_on_pool"] == 1


@pytest.mark.skipif(CPUS < 2, reason="one CPU: nothing runs beside the caller")
def test_nothing_busy_waits_after_a_blas_call(oversubscribed):
    # A BLAS whose workers busy-wait after each call keeps them runnable for a while; the
    # pool's workers sleep as soon as a region ends.
    runnable = oversubscribed["runnable"]
    assert sum(1 for n in runnable if n > 0) <= 1, runnable


def test_default_follows_physical_cores():
    r = probe("default")
    assert r["bad"] == []
    info = r["info"]
    assert r["num_threads"] == info["physical_cores"] == physical_cores_from_sysfs()
    assert info["max_concurrency"] == min(r["num_threads"], CPUS)
    assert info["blas_threads"] == info["max_concurrency"]


def physical_cores_from_sysfs() -> int:
    cores = set()
    for cpu in os.sched_getaffinity(0):
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f:
                package = int(f.read())
            with open(base + "core_id") as f:
                core = int(f.read())
        except OSError:
            return CPUS
        cores.add((package, core))
    return len(cores)


@pytest.mark.parametrize(
    ("sdk_env", "omp_env", "expected"),
    [
        ("3", "", 3),
        ("3", "5", 3),  # SDK_NUM_THREADS first
        ("", "5", 5),
        ("", "5,2", 5),  # OpenMP's nested list: the outer level
        (" 7 ", "", 7),
        ("4x", "6", 6),  # malformed: ignored, the next variable counts
        ("0", "-2", None),  # not positive: the default
        ("abc", "", None),
        ("99999999999", "", None),
    ],
)
def test_thread_count_from_the_environment(sdk_env, omp_env, expected):
    r = probe("env", SDK_NUM_THREADS=sdk_env, OMP_NUM_THREADS=omp_env)
    want = expected if expected is not None else r["info"]["physical_cores"]
    assert r["num_threads"] == want
    assert r["info"]["max_concurrency"] == min(want, CPUS)


def test_fork_after_the_pool_and_blas_ran():
    r = probe("fork")
    assert r["bad"] == []
    assert r["child_status"] == 0
    assert r["child_bad"] == []


def test_set_num_threads_as_torch(restore_threads):
    big = 8 * CPUS + 3
    sdk.set_num_threads(big)  # above the CPUs: kept, not refused
    assert sdk.get_num_threads() == big
    assert sdk.parallel_info()["max_concurrency"] == CPUS
    sdk.set_num_threads(100000)
    assert sdk.get_num_threads() == 100000
    sdk.set_num_threads(1)
    assert sdk.get_num_threads() == 1
    assert sdk.parallel_info()["max_concurrency"] == 1


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, ValueError, "argument 'n' must be a positive integer"),
        (-3, ValueError, "argument 'n' must be a positive integer"),
        (2**31, ValueError, "argument 'n'"),
        (True, TypeError, "argument 'n' must be int, not bool"),
        (1.5, TypeError, "argument 'n' must be int, not float"),
        ("2", TypeError, "argument 'n' must be int, not str"),
        (None, TypeError, "argument 'n' must be int, not NoneType"),
    ],
)
def test_set_num_threads_rejects(value, error, message, restore_threads):
    before = sdk.get_num_threads()
    with pytest.raises(error, match=message):
        sdk.set_num_threads(value)
    assert sdk.get_num_threads() == before


def test_pool_shrinks_and_grows_with_the_count(restore_threads):
    import numpy as np

    x = sdk.from_numpy(np.arange(1 << 20, dtype=np.float32))
    for n in (1, CPUS, 8 * CPUS, 2):
        sdk.set_num_threads(n)
        assert x.sum().item() == float(np.arange(1 << 20, dtype=np.float64).sum())
        # (a smaller count leaves the last pool idle until a larger one replaces it)
        assert sdk.parallel_info()["pool_workers"] <= CPUS - 1


@pytest.mark.parametrize("value", ["4x", "99999999999", ""])
def test_malformed_sdk_num_threads_warns_and_is_ignored(value):
    proc = run_python(
        "import sdk; print(sdk.get_num_threads())", SDK_NUM_THREADS=value, OMP_NUM_THREADS="3"
    )
    assert proc.returncode == 0, proc.stderr
    assert f"SDK_NUM_THREADS={value!r} is not an integer in [1, 65536]" in proc.stderr
    assert proc.stdout.strip() == "3"


def test_parallel_run_abi_runs_every_chunk_once(restore_threads):
    """sdk_parallel_run (the C ABI under sdk::parallel_for): each chunk exactly once, on at
    most max_concurrency threads; bad arguments refused with a message."""
    import ctypes
    import threading

    lib = ctypes.CDLL(sdk.get_library_path())
    fn_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)
    lib.sdk_parallel_run.argtypes = [ctypes.c_int64, fn_type, ctypes.c_void_p]
    lib.sdk_last_error_message.restype = ctypes.c_char_p
    sdk.set_num_threads(8 * CPUS)
    seen: list[int] = []
    threads: set[int] = set()

    def body(_ctx, chunk):
        seen.append(chunk)
        threads.add(threading.get_native_id())

    callback = fn_type(body)
    assert lib.sdk_parallel_run(37, callback, None) == 0
    assert sorted(seen) == list(range(37))
    assert len(threads) <= CPUS
    assert lib.sdk_parallel_run(0, callback, None) == 0
    assert lib.sdk_parallel_run(-1, callback, None) != 0
    assert b"nchunks must be >= 0" in lib.sdk_last_error_message()
