"""The core refuses shapes whose element count overflows, even when the product wraps to 0."""

from __future__ import annotations

import ctypes

import pytest

from tests.core._core import CPU, I64, LIB_PATH, Device, P

pytestmark = pytest.mark.skipif(not LIB_PATH.exists(), reason="core library not built")


def _empty(sizes: list[int]) -> tuple[int, bytes, P]:
    lib = ctypes.CDLL(str(LIB_PATH))
    lib.sdk_last_error_message.restype = ctypes.c_char_p
    lib.sdk_empty.argtypes = [I64, ctypes.POINTER(I64), ctypes.c_int32, Device, ctypes.POINTER(P)]
    out = P()
    status = lib.sdk_empty(len(sizes), (I64 * len(sizes))(*sizes), 8, CPU, ctypes.byref(out))
    msg = lib.sdk_last_error_message() if status else b""
    if out.value:
        lib.sdk_tensor_release(out)
    return status, msg, out


def test_product_wrapping_to_zero_is_refused():
    status, msg, _ = _empty([2**62, 2**62])
    assert status == 1  # SDK_ERROR_VALUE
    assert b"too many elements" in msg


def test_zero_size_dim_with_huge_others_is_empty():
    status, _, out = _empty([2**62, 2**62, 0])
    assert status == 0


def test_zero_size_dim_whose_strides_overflow_is_refused():
    # Empty, but the dims before the 0 multiply past int64: no stride can hold them.
    status, msg, _ = _empty([2**62, 2**62, 2**62, 0])
    assert status == 1  # SDK_ERROR_VALUE
    assert b"stride calculation overflowed" in msg
