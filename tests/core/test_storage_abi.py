"""The storages of the C ABI (ABI 1.12: sdk_tensor_storage, sdk_storage_*, sdk_tensor_set_*):
the C++ program over sdk/storage.h (tests/core/cpp/test_storage_api.cpp), and the C functions
through ctypes: NULL handles, refcounts, the checks of set_ before anything changes, and the
ABI version an extension built against 1.11 still loads under."""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest

from tests.core._core import CPU, I32, I64, CoreError, P, T, check, from_numpy, lib
from tests.core.test_cpp_port_surface import _nvcc_compiles, _program

lib.sdk_tensor_storage.argtypes = [P, ctypes.POINTER(P)]
lib.sdk_storage_release.argtypes = [P]
lib.sdk_storage_retain.argtypes = [P]
for _name, _restype in [
    ("sdk_storage_use_count", I64),
    ("sdk_storage_nbytes", I64),
    ("sdk_storage_data_ptr", P),
    ("sdk_storage_is_read_only", I32),
    ("sdk_storage_resizable", I32),
]:
    getattr(lib, _name).argtypes = [P]
    getattr(lib, _name).restype = _restype
lib.sdk_tensor_set_storage_.argtypes = [P, P, I64, I64, ctypes.POINTER(I64), ctypes.POINTER(I64)]
lib.sdk_tensor_set_tensor_.argtypes = [P, P]
lib.sdk_abi_check.argtypes = [ctypes.c_uint32, ctypes.c_uint32]
lib.sdk_abi_version.restype = ctypes.c_uint32


def test_cpp_program_passes(tmp_path_factory) -> None:
    exe = _program(tmp_path_factory, "test_storage_api")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failures" in proc.stdout, proc.stdout


def test_nvcc_compiles_the_storage_idioms_of_cuda_extensions(tmp_path) -> None:
    # set_ onto a CUDA tensor's storage, a kernel over the view, recordStream of the storage
    _nvcc_compiles(tmp_path, "cuda_storage_kernel")


def storage_of(t: T) -> int:
    s = P()
    check(lib.sdk_tensor_storage(t.h, ctypes.byref(s)))
    return s.value


def ints(*v: int) -> ctypes.Array:
    return (I64 * max(len(v), 1))(*v)


def test_a_storage_handle_counts_and_keeps_the_memory() -> None:
    t = from_numpy(np.arange(6, dtype=np.float32))
    s = storage_of(t)
    assert lib.sdk_storage_use_count(s) == 2  # the tensor and the handle
    assert lib.sdk_storage_nbytes(s) == 24 and lib.sdk_storage_resizable(s) == 1
    assert lib.sdk_storage_data_ptr(s) == lib.sdk_tensor_data_ptr(t.h)
    assert storage_of(t) == s  # the same handle for the same memory
    lib.sdk_storage_release(s)  # the second reference taken just above
    del t
    assert lib.sdk_storage_use_count(s) == 1
    # a fresh tensor set onto the storage reads the values the first one left
    r = P()
    check(lib.sdk_empty(1, ints(0), 8, CPU, ctypes.byref(r)))
    v = T(r.value)
    check(lib.sdk_tensor_set_storage_(v.h, s, 2, 1, ints(3), None))
    lib.sdk_storage_release(s)
    np.testing.assert_array_equal(v.numpy(), [2, 3, 4])


def test_null_handles_give_zero_values_or_errors() -> None:
    assert lib.sdk_storage_use_count(None) == 0 and lib.sdk_storage_nbytes(None) == 0
    assert lib.sdk_storage_data_ptr(None) is None and lib.sdk_storage_is_read_only(None) == 0
    lib.sdk_storage_release(None)
    lib.sdk_storage_retain(None)
    t = from_numpy(np.zeros(2, np.float32))
    with pytest.raises(CoreError, match="argument 'result' is NULL") as e:
        check(lib.sdk_tensor_storage(t.h, None))
    assert e.value.kind == 1
    with pytest.raises(CoreError, match="argument 'storage' is NULL"):
        check(lib.sdk_tensor_set_storage_(t.h, None, 0, 1, ints(1), None))
    with pytest.raises(CoreError, match="argument 't' is NULL"):
        check(lib.sdk_tensor_set_tensor_(None, t.h))
    with pytest.raises(CoreError, match="argument 'sizes' is NULL"):
        s = storage_of(t)
        try:
            check(lib.sdk_tensor_set_storage_(t.h, s, 0, 1, None, None))
        finally:
            lib.sdk_storage_release(s)
    assert t.shape == (2,)


@pytest.mark.parametrize(
    "offset, sizes, strides, needle",
    [
        (0, (5,), None, "reach element 4 but the storage holds 4 elements (16 bytes"),
        (4, (1,), None, "reach element 4"),
        (0, (2, 2), (3, 1), "reach element 4"),
        (-1, (1,), None, "storage_offset must be >= 0, got -1"),
        (0, (2,), (-1,), "strides must be >= 0, got -1"),
        (0, (2**62, 4), None, "too many elements"),
        (0, (3,), (2**62,), "strides overflow"),
    ],
)
def test_set_storage_refuses_what_reaches_past_the_bytes(offset, sizes, strides, needle) -> None:
    src = from_numpy(np.arange(4, dtype=np.float32))
    dst = from_numpy(np.zeros(3, np.float32))
    s = storage_of(src)
    try:
        with pytest.raises(CoreError, match=needle.replace("(", r"\(")) as e:
            st = ints(*strides) if strides is not None else None
            check(lib.sdk_tensor_set_storage_(dst.h, s, offset, len(sizes), ints(*sizes), st))
    finally:
        lib.sdk_storage_release(s)
    assert e.value.kind == 1  # ValueError (InvalidArgumentError, a RuntimeError, in sdk)
    # nothing changed
    assert dst.shape == (3,) and lib.sdk_tensor_storage_offset(dst.h) == 0
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 0])


def test_set_tensor_checks_the_dtype() -> None:
    src = from_numpy(np.arange(4, dtype=np.float32))
    dst = from_numpy(np.zeros(1, np.int32))  # same item size: still refused
    with pytest.raises(CoreError, match="dtype int32 to a source of dtype float32") as e:
        check(lib.sdk_tensor_set_tensor_(dst.h, src.h))
    assert e.value.kind == 2  # TypeError
    same = from_numpy(np.zeros(1, np.float32))
    check(lib.sdk_tensor_set_tensor_(same.h, src.h))
    assert same.shape == (4,) and lib.sdk_tensor_data_ptr(same.h) == lib.sdk_tensor_data_ptr(src.h)
    check(lib.sdk_tensor_set_tensor_(same.h, same.h))  # onto itself: nothing to do
    assert same.shape == (4,)


def test_an_extension_built_against_abi_1_11_still_loads() -> None:
    major, minor = lib.sdk_abi_version() >> 16, lib.sdk_abi_version() & 0xFFFF
    assert major == 1 and minor >= 12
    check(lib.sdk_abi_check(1, 11))
    check(lib.sdk_abi_check(1, 12))
    with pytest.raises(CoreError, match=f"1\\.{minor + 1}"):
        check(lib.sdk_abi_check(1, minor + 1))
