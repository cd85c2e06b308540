"""The CPU allocator's cache of large blocks (core/src/allocator.cpp), sized by SDK_CPU_CACHE_MB.

A 3 MB block is above glibc's first mmap threshold: without the cache, freeing the first one
unmaps it and its successor comes from fresh heap pages, one page fault per 4 KB on first touch.
With the cache, the next tensor of the same size class reuses the block, already resident.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import json, resource, sdk
n = 768 * 1024                            # 3 MB of float32
a = sdk.ones(n); ptr = a.data_ptr(); del a
b = sdk.empty(n + 1000)                   # same size class (eighths of a power of two)
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
b.fill_(2.0)
f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
# large blocks start on a page and the data a few hundred bytes in (cache colouring)
print(json.dumps({"faults": f1 - f0, "same_block": b.data_ptr() // 4096 == ptr // 4096,
                  "sum": b.sum().item(), "n": n + 1000}))
"""


def run_probe(cache_mb: str | None) -> dict:
    env = dict(os.environ)
    env.pop("SDK_CPU_CACHE_MB", None)
    if cache_mb is not None:
        env["SDK_CPU_CACHE_MB"] = cache_mb
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "stderr": out.stderr}


def test_a_freed_large_block_is_reused_without_page_faults():
    cached = run_probe(None)
    fresh = run_probe("0")
    pages = 3 * 1024 * 1024 // os.sysconf("SC_PAGE_SIZE")
    assert cached["same_block"]
    assert cached["sum"] == fresh["sum"] == 2.0 * cached["n"]
    # Without the cache the kernel hands out fresh pages; with it the block is resident.
    assert cached["faults"] < 50, cached
    assert pages // 2 < fresh["faults"] <= pages + 200, (fresh, cached)


@pytest.mark.parametrize("cache_mb", ["2", "0"])
def test_blocks_larger_than_the_limit_are_not_kept(cache_mb):
    """A limit below the block size (or 0, cache off) frees the block at once."""
    probe = run_probe(cache_mb)
    assert probe["faults"] > 400, probe
    assert probe["sum"] == 2.0 * probe["n"]


@pytest.mark.parametrize("value", ["lots", "-5", ""])
def test_a_malformed_limit_falls_back_to_the_default_with_a_warning(value):
    probe = run_probe(value)
    assert probe["same_block"] and probe["faults"] < 50, probe
    assert f"SDK_CPU_CACHE_MB={value!r} is not an integer >= 0" in probe["stderr"]


@pytest.mark.skipif(
    "libasan" in os.environ.get("LD_PRELOAD", ""),
    reason="GCC 12's AddressSanitizer allocator is not locked around fork(): a child can "
    "hang inside ASan itself (seen in __sanitizer::SizeClassAllocator64::GetFromAllocator)",
)
def test_fork_while_other_threads_allocate_large_blocks(tmp_path):
    """The cache's lock is held across fork(): a child never inherits it locked. The probe is C
    (tests/core/fork_probe.c) so that the allocating threads run with no GIL between them and
    the fork."""
    import shutil

    import sdk

    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler found")
    here = os.path.dirname(os.path.abspath(__file__))
    lib_dir = os.path.dirname(sdk.get_library_path())
    exe = tmp_path / "fork_probe"
    build = subprocess.run(
        [cc, "-std=c11", "-O2", "-pthread", f"-I{sdk.get_include()}",
         os.path.join(here, "fork_probe.c"), "-o", str(exe),
         f"-L{lib_dir}", "-lsdk_core", f"-Wl,-rpath,{lib_dir}"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    hung, bad = map(int, out.stdout.split())
    assert (hung, bad) == (0, 0)


def test_large_tensors_start_at_different_places_in_a_page():
    """Cache colouring (core/src/tensor.cpp): fresh large tensors do not all start at one offset
    in a 4 KB page (4K aliasing between a loop's input and output), and none starts just past
    numpy's large arrays, which begin 16 bytes into a page."""
    import numpy as np

    import sdk

    for n in (16 * 1024, 256 * 1024, 1000 * 1000):  # 64 KB (the threshold) and up, float32
        ts = [sdk.full((n,), float(i)) for i in range(8)]
        offsets = [t.data_ptr() % 4096 for t in ts]
        assert len(set(offsets)) == 8, offsets
        assert all(o % 64 == 0 and not 0 <= (o - 16) % 4096 < 256 for o in offsets), offsets
        assert [float(t.numpy()[[0, -1]].sum()) for t in ts] == [2.0 * i for i in range(8)]
        del ts
    small = [sdk.empty(1000).data_ptr() % 64 for _ in range(4)]
    assert small == [0] * 4
    big = sdk.from_numpy(np.arange(300_000, dtype=np.float64))
    assert float((big + 1).sum()) == float(np.arange(300_000, dtype=np.float64).sum() + 300_000)
