"""Reductions, softmax, linalg, join and index ops of the core against numpy (through ctypes)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.core2_ctypes import (
    LIB,
    T,
    call,
    dims_arg,
    scalar,
    tensor_list,
)

pytestmark = pytest.mark.skipif(LIB is None, reason="libsdk_core.so is not built")
rng = np.random.default_rng(0)
SUM, MEAN, PROD, AMAX, AMIN, ALL, ANY = range(7)


def reduce(op, a, dims=None, keepdim=False, dtype=-1, out=None):
    n, arr = dims_arg(dims)
    t = T(a)
    if out is not None:
        from tests.core.core2_ctypes import check

        check(LIB.sdk_reduce(op, t.h, n, arr, int(keepdim), dtype, out.h, None))
        return out.numpy()
    return call("sdk_reduce", op, t.h, n, arr, int(keepdim), dtype, None).numpy()


NP_RED = {
    SUM: np.sum,
    MEAN: np.mean,
    PROD: np.prod,
    AMAX: np.max,
    AMIN: np.min,
    ALL: np.all,
    ANY: np.any,
}


@pytest.mark.parametrize("op", [SUM, MEAN, PROD, AMAX, AMIN, ALL, ANY])
@pytest.mark.parametrize("dims", [None, (0,), (1,), (2,), (0, 2), (-1, 0), (1, 2)])
@pytest.mark.parametrize("layout", ["contig", "transposed", "sliced"])
def test_reduce_matches_numpy(op, dims, layout):
    base = rng.standard_normal((6, 7, 9)).astype(np.float64)
    if op == PROD:
        base = 1 + 0.1 * base
    a = {
        "contig": base,
        "transposed": base.transpose(2, 0, 1).copy().transpose(1, 2, 0),
        "sliced": np.ascontiguousarray(np.repeat(base, 2, axis=2))[:, :, ::2],
    }[layout]
    if op in (ALL, ANY):
        a = a > 0.5
    for keep in (False, True):
        got = reduce(op, a, dims, keep)
        want = NP_RED[op](a, axis=None if dims is None else tuple(dims), keepdims=keep)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "shape,dim",
    [((2048, 512), 0), ((2048, 512), 1), ((1 << 20,), 0), ((3, 100000), 1), ((100000, 3), 0)],
)
def test_float32_sum_accuracy(shape, dim):
    a = rng.random(shape, dtype=np.float32)
    got = reduce(SUM, a, (dim,))
    want = a.astype(np.float64).sum(axis=dim)
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_reduce_dtype_rules():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert reduce(SUM, a).dtype == np.int64
    assert reduce(PROD, a + 1, (0,)).dtype == np.int64
    assert reduce(SUM, a > 3).dtype == np.int64 and reduce(SUM, a > 3) == 8
    assert reduce(SUM, a, None, False, 9).dtype == np.float64
    with pytest.raises(TypeError, match="mean"):
        reduce(MEAN, a)
    assert reduce(MEAN, a, (1,), False, 8).dtype == np.float32
    assert reduce(ALL, a).dtype == np.bool_
    h16 = rng.standard_normal((5, 300)).astype(np.float16)
    np.testing.assert_allclose(reduce(SUM, h16, (1,)), h16.astype(np.float32).sum(1), rtol=2e-3)


def test_reduce_errors_and_empty():
    a = np.zeros((0, 3), np.float32)
    assert reduce(SUM, a) == 0
    assert reduce(PROD, a) == 1
    np.testing.assert_array_equal(reduce(SUM, a, (0,)), np.zeros(3))
    assert reduce(AMAX, a, (1,)).shape == (0,)
    with pytest.raises(ValueError, match="amax"):
        reduce(AMAX, a)
    with pytest.raises(ValueError, match="multiple"):
        reduce(SUM, np.ones((2, 2)), (0, -2))
    with pytest.raises(IndexError):
        reduce(SUM, np.ones((2, 2)), (2,))
    assert reduce(SUM, np.float64(3.0), (0,)) == 3.0


def test_reduce_nan_and_out():
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    np.testing.assert_array_equal(reduce(AMAX, a, (1,)), [np.nan, 6.0])
    np.testing.assert_array_equal(reduce(AMIN, a, (0,)), [1.0, np.nan, 3.0])
    o = T(np.zeros(3, np.float64))
    v0 = o.version
    np.testing.assert_allclose(reduce(SUM, a[:, [0, 2]].copy(), (0,), out=T(np.zeros(2))), [5, 9])
    got = reduce(SUM, np.ones((4, 3), np.float32), (0,), out=o)
    np.testing.assert_array_equal(got, [4, 4, 4])
    assert o.version > v0
    with pytest.raises(ValueError, match="shape"):
        reduce(SUM, np.ones((4, 2), np.float32), (0,), out=o)
    with pytest.raises(TypeError):
        reduce(SUM, np.ones((4, 3), np.float32), (0,), out=T(np.zeros(3, np.int64)))


def test_max_min_dim_and_arg():
    from ctypes import byref, c_void_p

    from tests.core.core2_ctypes import Tensor, check

    a = np.array([[3.0, 1.0, 3.0], [2.0, np.nan, np.nan], [0.0, -1.0, -1.0]])
    for fn, npv, npi in (
        ("sdk_max_dim", [3, np.nan, 0], [0, 1, 0]),
        ("sdk_min_dim", [1, np.nan, -1], [1, 1, 1]),
    ):
        v, i = c_void_p(), c_void_p()
        check(getattr(LIB, fn)(T(a).h, 1, 0, byref(v), byref(i)))
        np.testing.assert_array_equal(Tensor(v.value).numpy(), npv)
        np.testing.assert_array_equal(Tensor(i.value).numpy(), npi)
    b = rng.standard_normal((5, 6, 7))
    for dim in range(3):
        got = call("sdk_arg_extremum", T(b).h, 0, 1, dim, 0).numpy()
        np.testing.assert_array_equal(got, b.argmax(dim))
        got = call("sdk_arg_extremum", T(b).h, 1, 1, dim, 1).numpy()
        np.testing.assert_array_equal(got, np.expand_dims(b.argmin(dim), dim))
    assert (
        call("sdk_arg_extremum", T(b.transpose(2, 0, 1)).h, 0, 0, 0, 0).numpy()
        == b.transpose(2, 0, 1).argmax()
    )
    with pytest.raises(ValueError):
        call("sdk_arg_extremum", T(np.zeros((0,))).h, 0, 0, 0, 0)


@pytest.mark.parametrize("dims", [None, (0,), (1,), (0, 2)])
@pytest.mark.parametrize("correction", [0.0, 1.0])
def test_var_std(dims, correction):
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    n, arr = dims_arg(dims)
    ax = None if dims is None else tuple(dims)
    got = call("sdk_var", T(a).h, n, arr, correction, 0).numpy()
    np.testing.assert_allclose(got, a.astype(np.float64).var(axis=ax, ddof=correction), rtol=1e-5)
    got = call("sdk_std", T(a).h, n, arr, correction, 1).numpy()
    np.testing.assert_allclose(
        got, a.astype(np.float64).std(axis=ax, ddof=correction, keepdims=True), rtol=1e-5
    )
    with pytest.raises(TypeError):
        call("sdk_var", T(np.ones(3, np.int64)).h, 0, None, 1.0, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax(dtype, dim):
    a = (rng.standard_normal((7, 9, 11)) * 5).astype(dtype)
    x = a.astype(np.float64)
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    want = e / e.sum(axis=dim, keepdims=True)
    tol = 2e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(
        call("sdk_softmax", T(a).h, dim).numpy(), want, rtol=tol, atol=tol * 1e-2
    )
    np.testing.assert_allclose(
        call("sdk_log_softmax", T(a).h, dim).numpy(), np.log(want), rtol=tol, atol=tol
    )
    with pytest.raises(TypeError):
        call("sdk_softmax", T(np.ones(3, np.int64)).h, 0)


def test_softmax_extremes():
    a = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0]], np.float32)
    got = call("sdk_softmax", T(a).h, 1).numpy()
    np.testing.assert_allclose(got[0], [1, 0, 0])
    np.testing.assert_allclose(got[1], [0, 1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-6)


def softmax64(x, log):
    """softmax/log_softmax of float64 x over its last dim (NaN rows NaN, as torch)."""
    m = x.max(axis=-1, keepdims=True)
    m = np.where(np.isneginf(m), 0.0, m)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        e = np.exp(x - m)
        s = e.sum(axis=-1, keepdims=True)
        return x - (m + np.log(s)) if log else e / s


@pytest.mark.parametrize("log", [False, True])
def test_softmax_short_rows(log):
    """Rows of 1-136 floats (up to 128 go eight at a time, written past each row's end and
    rewritten by the next): every row against float64, the tensor's last row, rows split
    across threads, and NaN/inf rows that must not leak into their neighbours."""
    name = "sdk_log_softmax" if log else "sdk_softmax"
    tol = dict(rtol=2e-6, atol=2e-6 if log else 1e-7)
    for r in range(1, 137):
        for rows in (1, 2, 9):
            a = (rng.standard_normal((rows, r)) * 4).astype(np.float32)
            np.testing.assert_allclose(
                call(name, T(a).h, -1).numpy(), softmax64(a.astype(np.float64), log), **tol
            )
    r = 13
    a = (rng.standard_normal((7, r)) * 4).astype(np.float32)
    a[1, 5], a[3, :], a[4, 2], a[5, 0] = np.nan, -np.inf, np.inf, -np.inf
    got = call(name, T(a).h, -1).numpy()
    np.testing.assert_allclose(got, softmax64(a.astype(np.float64), log), equal_nan=True, **tol)
    assert np.isnan(got[[1, 3, 4]]).all() and not np.isnan(got[[0, 2, 5, 6]]).any()
    # many rows per thread: chunks meet inside the tensor (each chunk's last row is masked)
    big = (rng.standard_normal((40001, 21)) * 4).astype(np.float32)
    want = softmax64(big.astype(np.float64), log)
    before = LIB.sdk_get_num_threads()
    try:
        for threads in (1, 2, 5):
            LIB.sdk_set_num_threads(threads)
            np.testing.assert_allclose(call(name, T(big).h, -1).numpy(), want, **tol)
    finally:
        LIB.sdk_set_num_threads(before)


# ----------------------------------------------------------------------------- linalg


def views(m):
    """m as contiguous, as a transposed view of its transpose, and strided (needs a copy)."""
    big = np.zeros((m.shape[0], m.shape[1] * 2), m.dtype)
    big[:, ::2] = m
    return [m, np.ascontiguousarray(m.T).T, big[:, ::2]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.int32])
def test_mm_layouts(dtype):
    a = (rng.standard_normal((33, 17)) * 3).astype(dtype)
    b = (rng.standard_normal((17, 29)) * 3).astype(dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    for av in views(a):
        for bv in views(b):
            got = call("sdk_mm", T(av).h, T(bv).h, None).numpy()
            assert got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


def test_mm_errors():
    with pytest.raises(ValueError, match=r"sdk_mm: shapes \[2, 3\] and \[4, 5\] cannot be"):
        call("sdk_mm", T(np.ones((2, 3))).h, T(np.ones((4, 5))).h, None)
    with pytest.raises(TypeError, match="float32.*float64"):
        call("sdk_mm", T(np.ones((2, 3), np.float32)).h, T(np.ones((3, 5))).h, None)
    with pytest.raises(ValueError):
        call("sdk_matmul", T(np.float64(1)).h, T(np.ones(3)).h, None)


def test_addmm_and_out():
    a, b = rng.standard_normal((8, 5)), rng.standard_normal((5, 6))
    bias = rng.standard_normal(6)
    got = call("sdk_addmm", T(bias).h, T(a).h, T(b).h, scalar(0.5), scalar(2.0), None).numpy()
    np.testing.assert_allclose(got, 0.5 * bias + 2 * a @ b)
    nan_bias = np.full((8, 1), np.nan)
    got = call("sdk_addmm", T(nan_bias).h, T(a).h, T(b).h, scalar(0), scalar(1), None).numpy()
    np.testing.assert_allclose(got, a @ b)
    out = T(np.full((8, 6), np.nan))
    v0 = out.version
    from tests.core.core2_ctypes import check

    check(LIB.sdk_addmm(T(nan_bias).h, T(a).h, T(b).h, scalar(0.0), scalar(1.0), out.h, None))
    np.testing.assert_allclose(out.numpy(), a @ b)
    assert out.version > v0
    ai = np.arange(6).reshape(2, 3)
    got = call(
        "sdk_addmm",
        T(np.ones(2, np.int64)).h,
        T(ai).h,
        T(ai.T.copy()).h,
        scalar(2),
        scalar(3),
        None,
    ).numpy()
    np.testing.assert_array_equal(got, 2 + 3 * ai @ ai.T)


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3,), (3,)),
        ((4, 3), (3,)),
        ((3,), (3, 5)),
        ((2, 4, 3), (3, 5)),
        ((2, 1, 4, 3), (3, 3, 5)),
        ((3,), (2, 3, 5)),
        ((2, 4, 3), (3,)),
        ((5, 4, 0), (0, 2)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_matmul_numpy_semantics(sa, sb, dtype):
    a = rng.standard_normal(sa).astype(dtype)
    b = rng.standard_normal(sb).astype(dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    got = call("sdk_matmul", T(a).h, T(b).h, None).numpy()
    assert got.shape == want.shape
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_bmm_mv_dot():
    a, b = rng.standard_normal((4, 3, 5)), rng.standard_normal((4, 5, 2))
    np.testing.assert_allclose(
        call("sdk_bmm", T(a).h, T(b.transpose(0, 2, 1).copy().transpose(0, 2, 1)).h, None).numpy(),
        a @ b,
    )
    m, x = rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal(8)[::2]
    x = x.astype(np.float32)
    for mv in views(m):
        np.testing.assert_allclose(call("sdk_mv", T(mv).h, T(x).h, None).numpy(), m @ x, rtol=1e-5)
    v = rng.standard_normal(10)
    np.testing.assert_allclose(call("sdk_dot", T(v).h, T(v[::-1].copy()).h).numpy(), v @ v[::-1])
    with pytest.raises(ValueError):
        call("sdk_dot", T(v).h, T(v[:3]).h)


# ----------------------------------------------------------------------------- join / index


def test_cat_stack():
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 2))
    for dim in (1, -1):
        got = call("sdk_cat", 2, tensor_list([T(a), T(b)]), dim, None).numpy()
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, np.concatenate([a, b], 1))
    h1, x1 = rng.standard_normal((4, 5)), rng.standard_normal((4, 3))
    np.testing.assert_array_equal(
        call("sdk_cat", 2, tensor_list([T(h1), T(x1)]), 1, None).numpy(),
        np.concatenate([h1, x1], 1),
    )
    empty = np.zeros((0,), np.float64)
    got = call("sdk_cat", 3, tensor_list([T(empty), T(h1), T(h1.T.copy().T)]), 0, None).numpy()
    np.testing.assert_array_equal(got, np.concatenate([h1, h1]))
    with pytest.raises(ValueError, match="dimension"):
        call("sdk_cat", 2, tensor_list([T(a), T(b)]), 0, None)
    for dim in (0, 1, 2, -1):
        got = call("sdk_stack", 2, tensor_list([T(h1), T(h1 * 2)]), dim, None).numpy()
        np.testing.assert_array_equal(got, np.stack([h1, h1 * 2], axis=dim))
    with pytest.raises(ValueError, match="equal size"):
        call("sdk_stack", 2, tensor_list([T(a), T(b)]), 0, None)


def test_index_select_gather_scatter():
    w = rng.standard_normal((10, 4))
    idx = np.array([3, 0, 9, 3])
    for it in (np.int64, np.int32):
        np.testing.assert_array_equal(
            call("sdk_index_select", T(w).h, 0, T(idx.astype(it)).h, None).numpy(), w[idx]
        )
    np.testing.assert_array_equal(
        call("sdk_index_select", T(w.T).h, 1, T(idx).h, None).numpy(), w.T[:, idx]
    )
    with pytest.raises(IndexError, match="10"):
        call("sdk_index_select", T(w).h, 0, T(np.array([10])).h, None)
    with pytest.raises(IndexError, match="-1"):
        call("sdk_index_select", T(w).h, 0, T(np.array([-1])).h, None)
    gi = rng.integers(0, 4, (10, 3))
    np.testing.assert_array_equal(
        call("sdk_gather", T(w).h, 1, T(gi).h, None).numpy(), np.take_along_axis(w, gi, 1)
    )
    t = T(np.zeros((3, 4)))
    src = rng.standard_normal((5, 4))
    si = rng.integers(0, 3, (5, 4))
    from tests.core.core2_ctypes import check

    check(LIB.sdk_scatter_add_(t.h, 0, T(si).h, T(src).h))
    want = np.zeros((3, 4))
    for i in range(5):
        for j in range(4):
            want[si[i, j], j] += src[i, j]
    np.testing.assert_allclose(t.numpy(), want)
    t2 = T(np.zeros((3, 4)))
    check(LIB.sdk_index_add_(t2.h, 0, T(np.array([2, 0, 2])).h, T(src[:3]).h))
    want = np.zeros((3, 4))
    np.add.at(want, [2, 0, 2], src[:3])
    np.testing.assert_allclose(t2.numpy(), want)


def test_advanced_index_put_nonzero():
    x = rng.standard_normal((5, 6, 3))
    i0 = np.array([[0, -1], [2, 4]])
    i1 = np.array([1, 5])
    got = call("sdk_index", T(x).h, 2, tensor_list([T(i0), T(i1)])).numpy()
    np.testing.assert_array_equal(got, x[i0, i1])
    xt = x.transpose(1, 0, 2)
    got = call("sdk_index", T(xt).h, 1, tensor_list([T(i1)])).numpy()
    np.testing.assert_array_equal(got, xt[i1])
    with pytest.raises(IndexError):
        call("sdk_index", T(x).h, 1, tensor_list([T(np.array([5]))]))
    with pytest.raises(TypeError, match="nonzero"):
        call("sdk_index", T(x).h, 1, tensor_list([T(np.array([True] * 5))]))
    from tests.core.core2_ctypes import check

    y = np.zeros((4, 3))
    ty = T(y)
    check(
        LIB.sdk_index_put_(
            ty.h, 1, tensor_list([T(np.array([1, 1, -1]))]), T(np.array([1.0, 2.0, 3.0])).h, 1
        )
    )
    want = np.zeros((4, 3))
    np.add.at(want, [1, 1, -1], np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(ty.numpy(), want)
    check(
        LIB.sdk_index_put_(
            ty.h, 2, tensor_list([T(np.array([0])), T(np.array([2]))]), T(np.array(7.0)).h, 0
        )
    )
    want[0, 2] = 7
    np.testing.assert_array_equal(ty.numpy(), want)
    m = rng.standard_normal((3, 4, 2)) > 0
    np.testing.assert_array_equal(call("sdk_nonzero", T(m).h).numpy(), np.argwhere(m))
    np.testing.assert_array_equal(
        call("sdk_nonzero", T(m.transpose(2, 0, 1)).h).numpy(), np.argwhere(m.transpose(2, 0, 1))
    )


def test_out_aliasing_and_strided_targets():
    from tests.core.core2_ctypes import check

    x = np.arange(6.0).reshape(3, 2)[:, :1].copy()  # (3, 1)
    tx = T(x)
    n, arr = dims_arg((1,))
    check(LIB.sdk_reduce(SUM, tx.h, n, arr, 1, -1, tx.h, None))
    np.testing.assert_array_equal(tx.numpy(), x)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 4))
    big = np.zeros((5, 8))
    out = T(big[:, ::2])  # a strided out= target
    check(LIB.sdk_matmul(T(a).h, T(b).h, out.h, None))
    np.testing.assert_allclose(out.numpy(), a @ b)
    t = np.zeros((4, 6))
    tt = T(t.T)  # non-contiguous destination
    check(
        LIB.sdk_index_put_(tt.h, 1, tensor_list([T(np.array([0, 5, 0]))]), T(np.ones((3, 4))).h, 1)
    )
    want = np.zeros((6, 4))
    np.add.at(want, [0, 5, 0], np.ones((3, 4)))
    np.testing.assert_array_equal(tt.numpy(), want)
    cat_out = T(np.zeros((3, 5)))
    check(
        LIB.sdk_cat(2, tensor_list([T(np.ones((3, 2))), T(np.zeros((3, 3)))]), 1, cat_out.h, None)
    )
    np.testing.assert_array_equal(cat_out.numpy()[:, :2], 1)
