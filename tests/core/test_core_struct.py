"""The C ABI of the sorting, scan, scatter/index and reordering ops (ABI 1.3), through ctypes:
the out / in-place convention, aliasing, and that NULL or bad arguments give an error status
naming the function, never a crash."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_int32, c_int64, c_void_p

import numpy as np
import pytest

from tests.core.core2_ctypes import LIB, P, Scalar, T, Tensor, call, check, scalar

pytestmark = pytest.mark.skipif(LIB is None, reason="core library not built")

I64, I32 = c_int64, c_int32
SIGS = {
    "sdk_sort": [P, I64, I32, I32, P, P],
    "sdk_topk": [P, I64, I64, I32, I32, P, P],
    "sdk_kthvalue": [P, I64, I64, I32, P, P],
    "sdk_median_dim": [P, I64, I32, P, P],
    "sdk_cumsum": [P, I64, I32, P, P],
    "sdk_cumprod": [P, I64, I32, P, P],
    "sdk_cummax": [P, I64, P, P],
    "sdk_cummin": [P, I64, P, P],
    "sdk_scatter": [P, I64, P, P, P, P],
    "sdk_scatter_value": [P, I64, P, Scalar, P, P],
    "sdk_scatter_reduce": [P, I64, P, P, I32, I32, P, P],
    "sdk_index_copy": [P, I64, P, P, P, P],
    "sdk_index_fill": [P, I64, P, Scalar, P, P],
    "sdk_masked_select": [P, P, P],
    "sdk_masked_scatter": [P, P, P, P, P],
    "sdk_take": [P, P, P],
    "sdk_repeat_interleave": [P, P, I32, I64, P],
    "sdk_flip": [P, I64, P, P],
    "sdk_roll": [P, I64, P, I64, P, P],
    "sdk_tril": [P, I64, P, P],
    "sdk_triu": [P, I64, P, P],
    "sdk_diagonal": [P, I64, I64, I64, P],
    "sdk_unfold": [P, I64, I64, I64, P],
    "sdk_resize_": [P, I64, P],
}
if LIB is not None:
    for _name, _sig in SIGS.items():
        getattr(LIB, _name).argtypes = _sig

rng = np.random.default_rng(3)
SUM, PROD, MEAN, AMAX, AMIN = 0, 2, 1, 3, 4  # SDK_REDUCE_OPS codes


def pair(fn: str, *args):
    v, i = c_void_p(), c_void_p()
    check(getattr(LIB, fn)(*args, byref(v), byref(i)))
    return Tensor(v.value), Tensor(i.value)


def ints(*v):
    return (c_int64 * max(len(v), 1))(*v)


def test_sort_topk_scans_through_the_abi():
    a = rng.standard_normal((4, 6))
    v, i = pair("sdk_sort", T(a).h, -1, 1, 1)
    np.testing.assert_array_equal(v.numpy(), -np.sort(-a, axis=1))
    np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), 1), v.numpy())
    v, i = pair("sdk_topk", T(a).h, 2, 0, 0, 1)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=0)[:2])
    v, _ = pair("sdk_kthvalue", T(a).h, 3, 1, 1)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=1)[:, 2:3])
    v, _ = pair("sdk_median_dim", T(a).h, 0, 0)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, axis=0)[1])
    np.testing.assert_allclose(call("sdk_cumsum", T(a).h, 1, -1, None).numpy(), a.cumsum(1))
    np.testing.assert_allclose(call("sdk_cumprod", T(a).h, 0, -1, None).numpy(), a.cumprod(0))
    v, i = pair("sdk_cummax", T(a).h, 1)
    np.testing.assert_array_equal(v.numpy(), np.maximum.accumulate(a, 1))


def test_out_convention_in_place_and_into_another_tensor():
    a = np.zeros((2, 3))
    t = T(a)
    index = T(np.array([[2, 0]]))
    src = T(np.array([[5.0, 6.0]]))
    r = c_void_p()
    check(LIB.sdk_scatter(t.h, 1, index.h, src.h, t.h, byref(r)))  # in place: out == t
    assert r.value == t._h
    Tensor(r.value)  # release the new reference
    np.testing.assert_array_equal(a, [[6.0, 0.0, 5.0], [0.0, 0.0, 0.0]])
    before = t.version
    check(LIB.sdk_scatter_value(t.h, 0, T(np.array([[1, 1, 1]])).h, scalar(1.5), t.h, None))
    assert t.version > before  # written in place, result NULL allowed with out
    np.testing.assert_array_equal(a[1], [1.5, 1.5, 1.5])
    dst = T(np.full((2, 3), -1.0))
    check(LIB.sdk_tril(t.h, 0, dst.h, None))  # into another tensor
    np.testing.assert_array_equal(dst.numpy(), np.tril(a))
    # the source aliasing the tensor written in place is read before it is overwritten
    b = np.arange(6.0).reshape(2, 3)
    tb = T(b)
    check(LIB.sdk_scatter(tb.h, 0, T(np.array([[1, 0, 1]])).h, tb.h, tb.h, None))
    np.testing.assert_array_equal(b, [[0.0, 1.0, 2.0], [0.0, 4.0, 2.0]])


def test_scatter_reduce_codes_and_bad_code():
    t = T(np.ones(3))
    r = call("sdk_scatter_reduce", t.h, 0, T(np.array([0, 0, 2])).h, T(np.array([2.0, 3.0, 4.0])).h,
             PROD, 1, None)  # fmt: skip
    np.testing.assert_array_equal(r.numpy(), [6.0, 1.0, 4.0])
    with pytest.raises(ValueError, match="sdk_scatter_reduce: reduce must be"):
        call("sdk_scatter_reduce", t.h, 0, T(np.array([0])).h, T(np.ones(1)).h, 6, 1, None)


def test_reordering_and_views_through_the_abi():
    a = rng.standard_normal((3, 4))
    np.testing.assert_array_equal(call("sdk_flip", T(a).h, 1, ints(-1)).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(
        call("sdk_roll", T(a).h, 2, ints(1, 2), 2, ints(0, 1)).numpy(), np.roll(a, (1, 2), (0, 1))
    )
    np.testing.assert_array_equal(
        call("sdk_roll", T(a).h, 1, ints(5), 0, None).numpy(), np.roll(a, 5)
    )
    np.testing.assert_array_equal(call("sdk_diagonal", T(a).h, 1, 0, 1).numpy(), np.diagonal(a, 1))
    w = call("sdk_unfold", T(a).h, 1, 2, 2)
    np.testing.assert_array_equal(w.numpy(), a.reshape(3, 2, 2))
    r = call("sdk_repeat_interleave", None, T(np.array([1, 2])).h, 0, 0)
    np.testing.assert_array_equal(r.numpy(), [0, 1, 1])


def test_resize_through_the_abi():
    t = call("sdk_flip", T(np.arange(4.0)).h, 0, None)  # a core-owned copy of 0..3
    check(LIB.sdk_resize_(t.h, 2, ints(3, 3)))
    np.testing.assert_array_equal(t.numpy().reshape(-1)[:4], [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="sdk_resize_: argument 'sizes' is NULL"):
        check(LIB.sdk_resize_(t.h, 1, None))
    with pytest.raises(ValueError, match="ndim must be in"):
        check(LIB.sdk_resize_(t.h, -1, None))
    with pytest.raises(RuntimeError, match="cannot grow"):
        check(LIB.sdk_resize_(T(np.zeros(2)).h, 1, ints(5)))  # from_blob memory


NULL_CALLS = {
    "sdk_sort": lambda: LIB.sdk_sort(None, 0, 0, 0, byref(c_void_p()), byref(c_void_p())),
    "sdk_sort values": lambda: LIB.sdk_sort(T(np.ones(2)).h, 0, 0, 0, None, byref(c_void_p())),
    "sdk_topk": lambda: LIB.sdk_topk(T(np.ones(2)).h, 1, 0, 1, 1, byref(c_void_p()), None),
    "sdk_cumsum": lambda: LIB.sdk_cumsum(T(np.ones(2)).h, 0, -1, None, None),
    "sdk_cummin": lambda: LIB.sdk_cummin(None, 0, byref(c_void_p()), byref(c_void_p())),
    "sdk_scatter": lambda: LIB.sdk_scatter(T(np.ones(2)).h, 0, None, None, None, byref(c_void_p())),
    "sdk_index_copy": lambda: LIB.sdk_index_copy(None, 0, None, None, None, byref(c_void_p())),
    "sdk_masked_select": lambda: LIB.sdk_masked_select(T(np.ones(2)).h, None, byref(c_void_p())),
    "sdk_take": lambda: LIB.sdk_take(T(np.ones(2)).h, T(np.zeros(1, np.int64)).h, None),
    "sdk_repeat_interleave": lambda: LIB.sdk_repeat_interleave(None, None, 0, 0, byref(c_void_p())),
    "sdk_flip": lambda: LIB.sdk_flip(T(np.ones(2)).h, 1, None, byref(c_void_p())),
    "sdk_roll": lambda: LIB.sdk_roll(T(np.ones(2)).h, 1, None, 0, None, byref(c_void_p())),
    "sdk_tril": lambda: LIB.sdk_tril(T(np.ones((2, 2))).h, 0, None, None),
    "sdk_diagonal": lambda: LIB.sdk_diagonal(None, 0, 0, 1, byref(c_void_p())),
    "sdk_resize_": lambda: LIB.sdk_resize_(None, 0, None),
}


@pytest.mark.parametrize("name", sorted(NULL_CALLS))
def test_null_arguments_are_value_errors_naming_the_function(name):
    status = NULL_CALLS[name]()
    assert status == 1  # SDK_ERROR_VALUE
    LIB.sdk_last_error_message.restype = ctypes.c_char_p
    assert name.split()[0] in LIB.sdk_last_error_message().decode()
