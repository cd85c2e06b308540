"""Leak probes, each run in a fresh interpreter: python -m tests.reliability._leak_probes NAME.

A probe warms up (allocator caches, first-call setup), reads the resident set size, runs its
cycles, reads it again and prints one JSON line with the figures and any counters it checked.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import sys
import time

import numpy as np

import sdk

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    """Resident set size of this process in bytes (from /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def malloc_in_use() -> int:
    """Bytes the C allocator has handed out and not got back (glibc's mallinfo2), or -1."""
    try:
        info = ctypes.CDLL(None).mallinfo2
    except AttributeError:
        return -1

    class Info(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks")] + [
            (n, ctypes.c_size_t) for n in ("hblkhd", "usmblks", "fsmblks", "uordblks")
        ]

    info.restype = Info
    m = info()
    return m.uordblks + m.hblkhd


def measure(step, cycles: int, warmup: int) -> dict:
    """Run step(warmup), then time step(cycles) between two RSS readings.

    The warm-up must be long: besides allocator caches, CPython's interned-string table is
    rebuilt every few ten thousand new keys (numpy's __array_interface__ dicts make them),
    and the first rebuilds move ~1 MB between malloc's heap and mmap once."""
    step(warmup)
    gc.collect()
    before, in_use = rss(), malloc_in_use()
    t0 = time.perf_counter()
    step(cycles)
    seconds = time.perf_counter() - t0
    gc.collect()
    after = rss()
    return {
        "cycles": cycles,
        "seconds": round(seconds, 3),
        "cycles_per_s": round(cycles / seconds),
        "rss_before": before,
        "rss_after": after,
        "growth": after - before,
        "malloc_growth": malloc_in_use() - in_use if in_use >= 0 else None,
    }


# ------------------------------------------------------------------ tensors from Python


def probe_views(cycles: int = 1_000_000) -> dict:
    """create + slice/transpose/reshape/select/view + destroy, all from Python."""

    def step(n: int) -> None:
        empty = sdk.empty
        for _ in range(n):
            t = empty(4, 6)
            a = t[1:3]
            b = t.transpose(0, 1)
            c = t.reshape(24)
            d = t.select(0, 2)
            e = b.view(-1) if b.is_contiguous() else a.view(12)
            del t, a, b, c, d, e

    out = measure(step, cycles, warmup=50_000)
    out["views_per_cycle"] = 5
    return out


def probe_ops(cycles: int = 200_000) -> dict:
    """Small ops that allocate results (arithmetic, reductions, cat, indexing), destroyed."""
    x = sdk.rand(8, 8)
    idx = sdk.tensor([0, 3, 5])

    def step(n: int) -> None:
        for _ in range(n):
            y = (x * 2.0 + x).sum(0)
            z = sdk.cat([x, x])[idx]
            w = x @ x
            del y, z, w

    return measure(step, cycles, warmup=20_000)


# ------------------------------------------------------------------ the C ABI through ctypes


def _core() -> ctypes.CDLL:
    from tests.core._core import Device, lib

    P, I64 = ctypes.c_void_p, ctypes.c_int64
    lib.sdk_select.argtypes = [P, I64, I64, ctypes.POINTER(P)]
    lib.sdk_tensor_use_count.restype = I64
    lib.sdk_tensor_use_count.argtypes = [P]
    lib.sdk_from_blob.argtypes = [
        P,
        I64,
        ctypes.POINTER(I64),
        ctypes.POINTER(I64),
        ctypes.c_int32,
        Device,
        P,
        P,
        ctypes.POINTER(P),
    ]
    return lib


def probe_capi(cycles: int = 1_000_000) -> dict:
    """sdk_empty + sdk_slice/transpose/reshape/select + sdk_tensor_release, by handle."""
    from tests.core._core import CPU

    lib = _core()
    sizes = (ctypes.c_int64 * 2)(4, 6)
    flat = (ctypes.c_int64 * 1)(24)
    base, v1, v2, v3, v4 = (ctypes.c_void_p() for _ in range(5))
    r_base, r1, r2, r3, r4 = (ctypes.byref(h) for h in (base, v1, v2, v3, v4))
    empty, release = lib.sdk_empty, lib.sdk_tensor_release
    sl, tr, rs, se = lib.sdk_slice, lib.sdk_transpose, lib.sdk_reshape, lib.sdk_select

    def make() -> None:
        if (
            empty(2, sizes, 8, CPU, r_base)
            or sl(base, 0, 1, 3, 1, r1)
            or tr(base, 0, 1, r2)
            or rs(base, 1, flat, r3)
            or se(v2, 0, 2, r4)
        ):
            raise RuntimeError(lib.sdk_last_error_message().decode())

    def step(n: int) -> None:
        for _ in range(n):
            make()
            release(v4)
            release(v3)
            release(v2)
            release(v1)
            release(base)

    out = measure(step, cycles, warmup=50_000)
    # The ABI's only live-object counter is a handle's use count: views share the storage,
    # not the handle, so a base tensor with four live views still has exactly one owner.
    make()
    out["base_use_count_with_views"] = lib.sdk_tensor_use_count(base)
    for h in (v4, v3, v2, v1, base):
        release(h)
    return out


# ------------------------------------------------------------------ external buffers


def probe_external(cycles: int = 200_000) -> dict:
    """numpy memory wrapped (from_numpy, from_dlpack, from_blob with a counting deleter),
    viewed and dropped: every wrapper must give its reference/ownership back."""
    from tests.core._core import CPU

    lib = _core()
    arr = np.arange(24, dtype=np.float32).reshape(4, 6)
    refs0 = sys.getrefcount(arr)
    deleted = [0]

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    def deleter(data, ctx):
        deleted[0] += 1

    sizes = (ctypes.c_int64 * 2)(4, 6)
    h = ctypes.c_void_p()
    ptr = arr.ctypes.data
    from_numpy, from_dlpack, wrap = sdk.from_numpy, sdk.from_dlpack, sdk._from_handle
    blobs = [0]

    def step(n: int) -> None:
        for _ in range(n):
            a = from_numpy(arr)[1:3].transpose(0, 1)
            b = from_dlpack(arr)[2]
            if lib.sdk_from_blob(ptr, 2, sizes, None, 8, CPU, deleter, None, ctypes.byref(h)):
                raise RuntimeError(lib.sdk_last_error_message().decode())
            c = wrap(h.value)[:, 1:]
            blobs[0] += 1
            del a, b, c

    out = measure(step, cycles, warmup=cycles)
    gc.collect()
    out["array_refcount_delta"] = sys.getrefcount(arr) - refs0
    out["blobs_wrapped"] = blobs[0]
    out["blob_deleter_calls"] = deleted[0]
    return out


# ------------------------------------------------------------------ extension calls


def probe_extensions(pybind11_path: str, ctypes_path: str, calls: int = 25_000) -> dict:
    """Calls into a built extension through each bridge: tensors, numpy arrays straight in,
    and calls that fail inside the op (sdk::Error, std::exception, a status + message) or in
    argument conversion. Every variant runs `calls` times."""
    import cpp_extension

    pyb = cpp_extension.load_library(pybind11_path)
    cty = cpp_extension.load_library(ctypes_path)
    t = sdk.rand(16)
    u = sdk.rand(16)
    bad = sdk.rand(17)
    na = np.linspace(0, 1, 16, dtype=np.float32)
    nb = np.ones(16, np.float32)
    refs0 = (sys.getrefcount(na), sys.getrefcount(nb))
    expect = na * 2 + nb

    def must_raise(fn, exc, *args) -> None:
        try:
            fn(*args)
        except exc:
            return
        raise AssertionError(f"{fn} did not raise {exc.__name__}")

    variants = {
        "pybind11 tensors": lambda: pyb.scaled_add(t, u, 2.0),
        "pybind11 numpy": lambda: pyb.scaled_add(na, nb, 2.0),
        "pybind11 sdk::Error": lambda: must_raise(pyb.scaled_add, ValueError, t, bad, 2.0),
        "pybind11 std::exception": lambda: must_raise(pyb.throw_std, IndexError, na),
        "pybind11 bad argument": lambda: must_raise(pyb.scaled_add, TypeError, t, "x", 2.0),
        "ctypes tensors": lambda: cty.scaled_add(t, u, 2.0),
        "ctypes numpy": lambda: cty.scaled_add(na, nb, 2.0),
        "ctypes error status": lambda: must_raise(cty.scaled_add, ValueError, na, bad, 2.0),
        "ctypes bad argument": lambda: must_raise(cty.scaled_add, TypeError, t, "x", 2.0),
    }
    for f in (pyb.scaled_add, cty.scaled_add):  # the results are right, not just leak-free
        np.testing.assert_allclose(f(na, nb, 2.0).numpy(), expect, rtol=1e-6)

    def step(n: int) -> None:
        for fn in variants.values():
            for _ in range(n):
                fn()

    out = measure(step, calls, warmup=calls)
    out["variants"] = list(variants)
    out["calls_per_variant"] = calls
    out["cycles"] = calls * len(variants)  # one cycle = one call here
    out["cycles_per_s"] = round(out["cycles"] / out["seconds"])
    gc.collect()
    out["tensor_use_counts"] = [t._use_count, u._use_count, bad._use_count]
    out["array_refcount_deltas"] = [sys.getrefcount(na) - refs0[0], sys.getrefcount(nb) - refs0[1]]
    return out


# ------------------------------------------------------------------ threads calling ops


def probe_op_threads(threads: int = 3000) -> dict:
    """Short-lived threads that each call a registered op once (the call's per-thread pool
    of boxed values must go when its thread does). Run with MALLOC_ARENA_MAX=1, so that the
    threads allocate from the arena mallinfo2 reports."""
    import threading
    import uuid

    import sdk.library as L

    ns = "leak" + uuid.uuid4().hex[:8]
    lib = L.Library(ns, "DEF")
    lib.define("f(Tensor x, int[] s) -> Tensor")
    lib.impl("f", lambda x, s: x, "CompositeExplicitAutograd")
    op = getattr(sdk.ops, ns).f
    x = sdk.ones(2)

    def step(n: int) -> None:
        for _ in range(n):
            t = threading.Thread(target=op, args=(x, [1, 2]))
            t.start()
            t.join()

    out = measure(step, threads, warmup=200)
    lib._destroy()
    return out


PROBES = {
    "op_threads": probe_op_threads,
    "views": probe_views,
    "ops": probe_ops,
    "capi": probe_capi,
    "external": probe_external,
    "extensions": probe_extensions,
}

if __name__ == "__main__":
    name, *args = sys.argv[1:]
    result = PROBES[name](*args)
    result["probe"] = name
    print(json.dumps(result))
