"""The read-only mark of the C ABI (1.4): sdk_tensor_set_read_only / sdk_tensor_is_read_only,
the writers refusing, and DLPack carrying the flag out; called through ctypes, without sdk._C."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from tests._support import run_python
from tests.core._core import P, Scalar, T, check, from_numpy, lib
from tests.fuzz import dlpack_ctypes as dl

RUNTIME_ERROR, VALUE_ERROR = 4, 1

lib.sdk_tensor_set_read_only.argtypes = [P, ctypes.c_char_p]
lib.sdk_tensor_is_read_only.argtypes = [P]
lib.sdk_fill_.argtypes = [P, Scalar]
lib.sdk_to_dlpack.argtypes = [P, ctypes.POINTER(P)]
lib.sdk_from_dlpack.argtypes = [P, ctypes.POINTER(P)]
lib.sdk_abi_version.restype = ctypes.c_uint32


def _fill(t: T, value: float) -> int:
    return lib.sdk_fill_(t.h, Scalar(value, 0, 2, 0))  # kind 2: SDK_SCALAR_FLOAT


def test_abi_minor_is_at_least_4():
    assert lib.sdk_abi_version() >> 16 == 1 and lib.sdk_abi_version() & 0xFFFF >= 4


def test_set_read_only_refuses_writes_and_names_the_owner():
    t = from_numpy(np.arange(4.0))
    view = P()
    check(lib.sdk_slice(t.h, 0, 1, 3, 1, ctypes.byref(view)))
    view = T(view.value)
    assert lib.sdk_tensor_is_read_only(t.h) == 0
    check(_fill(t, 1.0))  # writable until marked
    check(lib.sdk_tensor_set_read_only(view.h, b"a ctypes buffer"))  # through a view
    assert lib.sdk_tensor_is_read_only(t.h) == 1 and lib.sdk_tensor_is_read_only(view.h) == 1
    assert _fill(t, 2.0) == RUNTIME_ERROR
    assert lib.sdk_last_error_message().decode() == (
        "fill_(): the tensor is read-only (it shares memory with a ctypes buffer); clone() it first"
    )
    assert lib.sdk_copy_(view.h, view.h) == RUNTIME_ERROR
    np.testing.assert_array_equal(t.numpy(), [1.0, 1.0, 1.0, 1.0])
    check(lib.sdk_tensor_set_read_only(t.h, None))  # again: no change, no error


def test_null_arguments():
    assert lib.sdk_tensor_is_read_only(None) == 0
    assert lib.sdk_tensor_set_read_only(None, b"x") == VALUE_ERROR
    assert b"NULL" in lib.sdk_last_error_message()


@pytest.mark.parametrize("read_only", [False, True])
def test_dlpack_carries_the_flag_both_ways(read_only):
    t = from_numpy(np.arange(3.0))
    if read_only:
        check(lib.sdk_tensor_set_read_only(t.h, b"x"))
    m = P()
    check(lib.sdk_to_dlpack(t.h, ctypes.byref(m)))
    managed = dl.DLManagedTensorVersioned.from_address(m.value)
    assert bool(managed.flags & dl.FLAG_READ_ONLY) == read_only
    back = P()
    check(lib.sdk_from_dlpack(m, ctypes.byref(back)))  # now owns m
    back = T(back.value)
    assert lib.sdk_tensor_is_read_only(back.h) == int(read_only)
    assert (_fill(back, 5.0) == RUNTIME_ERROR) == read_only


def test_read_only_capsule_import_refuses_writes():
    a = np.arange(3.0)
    p = dl.Producer(a, flags=dl.FLAG_READ_ONLY)
    r = P()
    check(lib.sdk_from_dlpack(ctypes.addressof(p.managed), ctypes.byref(r)))
    t = T(r.value)
    assert _fill(t, 9.0) == RUNTIME_ERROR
    assert b"a read-only DLPack tensor" in lib.sdk_last_error_message()
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])
    del t
    assert p.calls == 1  # the producer's deleter ran once
    p.release()


def test_many_owner_names_stay_bounded():
    """Owner names live in a table of 255; past that the generic name is used, not more memory.
    In a fresh interpreter: a full table stays full for the life of the process, and the other
    tests in this one expect their owners named."""
    proc = run_python(_MANY_OWNERS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split() == ["named", "generic"], proc.stdout


_MANY_OWNERS = """
import ctypes
import numpy as np
from tests.core._core import P, Scalar, check, from_numpy, lib

lib.sdk_tensor_set_read_only.argtypes = [P, ctypes.c_char_p]
lib.sdk_fill_.argtypes = [P, Scalar]
fill = lambda t: lib.sdk_fill_(t.h, Scalar(1.0, 0, 2, 0))
t = from_numpy(np.zeros(1))
kinds = []
for k in range(300):
    u = from_numpy(np.zeros(1))
    check(lib.sdk_tensor_set_read_only(u.h, f"owner {k}".encode()))
    assert fill(u) == 4
    msg = lib.sdk_last_error_message().decode()
    kind = "named" if f"owner {k})" in msg else "generic" if "read-only memory" in msg else msg
    if not kinds or kinds[-1] != kind:
        kinds.append(kind)
check(fill(t))  # the others are untouched
print(*kinds)
"""
