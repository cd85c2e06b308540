"""Leaks: a million tensor create/view/destroy cycles and tens of thousands of extension calls
grow the resident set by less than 1 MB; wrapped external memory is given back."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import weakref

import numpy as np
import pytest

import sdk
from tests.reliability.conftest import run_module

LIMIT = 1 << 20  # bytes of RSS growth allowed over a whole measured run


def probe(name: str, *args: str) -> dict:
    """Run one probe of _leak_probes in a fresh interpreter and print its figures."""
    r = run_module("tests.reliability._leak_probes", name, *args)
    print(
        f"\n{name}: {r['cycles']} cycles in {r['seconds']} s ({r['cycles_per_s']}/s); RSS "
        f"{r['rss_before'] / 2**20:.1f} MB, growth {r['growth']} B; malloc in use growth "
        f"{r['malloc_growth']} B"
    )
    return r


def test_a_million_view_cycles_from_python():
    r = probe("views")
    assert r["cycles"] == 1_000_000
    assert r["growth"] < LIMIT, r


def test_small_ops_with_fresh_results():
    r = probe("ops")
    assert r["growth"] < LIMIT, r


def test_a_million_view_cycles_through_the_c_abi():
    r = probe("capi")
    assert r["cycles"] == 1_000_000
    assert r["growth"] < LIMIT, r
    # views share the storage, not the handle: the base keeps exactly one owner
    assert r["base_use_count_with_views"] == 1


def test_wrapped_external_memory_cycles():
    r = probe("external")
    assert r["growth"] < LIMIT, r
    assert r["array_refcount_delta"] == 0, "from_numpy/from_dlpack kept references to the array"
    assert r["blob_deleter_calls"] == r["blobs_wrapped"], "from_blob deleters did not all run"


def test_extension_calls_through_both_bridges(extensions):
    r = probe("extensions", extensions.pybind11_path, extensions.ctypes_path)
    per_bridge = {
        b: sum(v.startswith(b) for v in r["variants"]) * r["calls_per_variant"]
        for b in ("pybind11", "ctypes")
    }
    assert min(per_bridge.values()) >= 20_000, per_bridge
    assert any("Error" in v or "exception" in v for v in r["variants"])
    assert r["growth"] < LIMIT, r
    assert r["tensor_use_counts"] == [1, 1, 1], "a bridge kept a reference to an argument"
    assert r["array_refcount_deltas"] == [0, 0], "a bridge kept a numpy argument alive"


# ------------------------------------------------------------------ last view releases


def _wrappers():
    return {
        "from_numpy": sdk.from_numpy,
        "from_dlpack": sdk.from_dlpack,
        "as_tensor": sdk.as_tensor,
        "asarray": sdk.asarray,
    }


@pytest.mark.parametrize("wrap", list(_wrappers()))
def test_numpy_memory_released_with_its_last_view(wrap):
    arr = np.arange(24, dtype=np.float64).reshape(4, 6)
    dead = weakref.ref(arr)
    t = _wrappers()[wrap](arr)
    assert t.data_ptr() == arr.ctypes.data, "expected a zero-copy wrapper"
    views = [t[1:3], t.transpose(0, 1), t.reshape(24), t.select(0, 2), t[..., 1::2]]
    last = views[-1][0]
    del arr, t, views
    gc.collect()
    assert dead() is not None, "the array died while a view of it lives"
    assert last.tolist() == [1.0, 3.0, 5.0]
    del last
    gc.collect()
    assert dead() is None, f"{wrap}: the array outlived every tensor viewing it"


def test_tensor_memory_released_after_numpy_exports_die():
    t = sdk.arange(12.0).reshape(3, 4)
    dead = weakref.ref(t)
    a = np.from_dlpack(t)
    b = t.numpy()
    assert t._use_count == 2, "np.from_dlpack holds one extra reference to the handle"
    c = a[1:]
    del a
    gc.collect()
    assert t._use_count == 2  # c still views the export
    del c
    gc.collect()
    assert t._use_count == 1
    del t
    gc.collect()
    assert dead() is not None, "t.numpy() must keep its tensor alive"
    assert b.sum() == 66.0
    del b
    gc.collect()
    assert dead() is None


def test_from_blob_deleter_runs_once_after_the_last_view():
    from tests.core._core import CPU, LIB_PATH, Device

    lib = ctypes.CDLL(str(LIB_PATH))  # a private handle: argtypes below stay local to this test
    lib.sdk_last_error_message.restype = ctypes.c_char_p
    buf = (ctypes.c_float * 6)(*range(6))
    calls = []

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    def deleter(data, ctx):
        calls.append((data, ctx))

    P = ctypes.c_void_p
    lib.sdk_from_blob.argtypes = [P, ctypes.c_int64, P, P, ctypes.c_int32, Device, P, P, P]
    h = P()
    sizes = (ctypes.c_int64 * 2)(2, 3)
    st = lib.sdk_from_blob(buf, 2, sizes, None, 8, CPU, deleter, 1234, ctypes.byref(h))
    assert st == 0, lib.sdk_last_error_message()
    t = sdk._from_handle(h.value)
    v = t.transpose(0, 1)[1:]
    w = sdk.from_dlpack(v)
    del t, v
    gc.collect()
    assert calls == [], "the deleter ran while views were alive"
    assert w.tolist() == [[1.0, 4.0], [2.0, 5.0]]
    del w
    gc.collect()
    assert calls == [(ctypes.addressof(buf), 1234)]


def test_extension_arguments_from_numpy_are_released(extensions):
    arr = np.linspace(0, 1, 32, dtype=np.float32)
    other = np.ones(32, np.float32)
    dead = weakref.ref(arr)
    refs = sys.getrefcount(other)
    out = [
        extensions.pybind11.scaled_add(arr, other, 3.0),
        extensions.ctypes.scaled_add(arr, other, 3.0),
    ]
    for r in out:
        np.testing.assert_allclose(r.numpy(), arr * 3 + 1, rtol=1e-6)
    del arr, out
    gc.collect()
    assert dead() is None, "an extension call kept its numpy argument alive"
    assert sys.getrefcount(other) == refs


def test_threads_that_call_an_op_leave_nothing_behind():
    """Each thread that called an op used to keep ~430 B of boxed values after it ended."""
    if sys.platform != "linux" or ctypes.util.find_library("c") is None:
        pytest.skip("mallinfo2 (glibc) measures the C heap")
    r = run_module("tests.reliability._leak_probes", "op_threads", MALLOC_ARENA_MAX="1")
    if r["malloc_growth"] is None:
        pytest.skip("this C library has no mallinfo2")
    per_thread = r["malloc_growth"] / r["cycles"]
    print(f"\nop_threads: {r['cycles']} threads, C heap growth {per_thread:.1f} B per thread")
    assert per_thread < 64, r
