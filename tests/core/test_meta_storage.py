"""The core's meta tensors (device SDK_META: sizes, strides, dtype, no memory) and
sdk_from_blob_repoint, through the C ABI (ABI 1.7)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from tests.core._core import CPU, I32, I64, CoreError, Device, P, T, check, lib

META = Device(127, 0)
FLOAT32 = 8

lib.sdk_tensor_device.restype = Device
lib.sdk_tensor_device.argtypes = [P]
lib.sdk_tensor_storage_nbytes.restype = I64
lib.sdk_tensor_storage_nbytes.argtypes = [P]
lib.sdk_clone.argtypes = [P, ctypes.POINTER(P)]
lib.sdk_tensor_retain.argtypes = [P]
lib.sdk_from_blob.argtypes = [P, I64, ctypes.POINTER(I64), ctypes.POINTER(I64), I32, Device, P,
                              P, ctypes.POINTER(P)]  # fmt: skip
lib.sdk_from_blob_repoint.argtypes = [P, P]
lib.sdk_meta_mode_is_enabled.restype = I32


def _sizes(*shape: int):
    return (I64 * len(shape))(*shape)


def _meta(*shape: int) -> T:
    r = P()
    check(lib.sdk_empty(len(shape), _sizes(*shape), FLOAT32, META, ctypes.byref(r)))
    return T(r.value)


def test_a_meta_tensor_has_a_shape_and_no_memory():
    t = _meta(2, 3)
    assert t.shape == (2, 3) and t.strides == (3, 1) and t.dtype == FLOAT32
    assert lib.sdk_tensor_device(t.h).type == 127
    assert lib.sdk_tensor_data_ptr(t.h) is None  # NULL: there is no address to give
    assert lib.sdk_tensor_storage_nbytes(t.h) == 24
    v = P()
    check(lib.sdk_transpose(t.h, 0, 1, ctypes.byref(v)))  # views need no data
    view = T(v.value)
    assert view.shape == (3, 2) and lib.sdk_tensor_device(view.h).type == 127
    assert lib.sdk_meta_mode_is_enabled() == 0


def test_ops_that_touch_elements_refuse_a_meta_tensor():
    t = _meta(4)
    r = P()
    with pytest.raises(CoreError, match="meta device has sizes, strides and a dtype but no data"):
        check(lib.sdk_clone(t.h, ctypes.byref(r)))
    with pytest.raises(CoreError, match="no data"):
        check(lib.sdk_binary(0, t.h, t.h, None, ctypes.byref(r)))


def _blob(buf: np.ndarray) -> T:
    r = P()
    check(lib.sdk_from_blob(buf.ctypes.data, buf.ndim, _sizes(*buf.shape), None, FLOAT32, CPU,
                            None, None, ctypes.byref(r)))  # fmt: skip
    return T(r.value)


def test_repoint_moves_a_wrapped_tensor_to_other_memory():
    a, b = np.arange(4, dtype=np.float32), np.arange(4, 8, dtype=np.float32)
    t = _blob(a)
    version = lib.sdk_tensor_version(t.h)
    check(lib.sdk_from_blob_repoint(t.h, b.ctypes.data))
    assert lib.sdk_tensor_data_ptr(t.h) == b.ctypes.data
    np.testing.assert_array_equal(t.numpy(), b)
    assert lib.sdk_tensor_version(t.h) == version + 1


def test_repoint_refuses_a_shared_tensor_or_memory_and_changes_nothing():
    a, b = np.zeros(4, np.float32), np.ones(4, np.float32)
    t = _blob(a)
    lib.sdk_tensor_retain(t.h)  # someone else holds the tensor
    with pytest.raises(CoreError, match="shared"):
        check(lib.sdk_from_blob_repoint(t.h, b.ctypes.data))
    lib.sdk_tensor_release(t.h)
    v = P()
    check(lib.sdk_view(t.h, 1, _sizes(4), ctypes.byref(v)))  # another view of its memory
    view = T(v.value)
    with pytest.raises(CoreError, match="shared"):
        check(lib.sdk_from_blob_repoint(t.h, b.ctypes.data))
    assert lib.sdk_tensor_data_ptr(t.h) == a.ctypes.data
    del view
    check(lib.sdk_from_blob_repoint(t.h, b.ctypes.data))  # alone again


def test_repoint_refuses_memory_the_core_owns():
    r = P()
    check(lib.sdk_empty(1, _sizes(4), FLOAT32, CPU, ctypes.byref(r)))
    t = T(r.value)
    with pytest.raises(CoreError, match="does not wrap memory without a deleter"):
        check(lib.sdk_from_blob_repoint(t.h, np.ones(4, np.float32).ctypes.data))
    m = _meta(4)
    with pytest.raises(CoreError, match="does not wrap memory"):
        check(lib.sdk_from_blob_repoint(m.h, np.ones(4, np.float32).ctypes.data))
