"""The core's fast paths for structural ops against numpy: copies with a short inner dim
(broadcast repeats, thin strided views, strided destinations), kthvalue/topk selection on
bare values (ties by position, NaN lines), and take from a flat buffer; every element width,
size-0 and size-1 dims."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

DTYPES = [
    "bool", "uint8", "int8", "int16", "float16", "bfloat16", "int32", "float32", "int64",
    "float64",
]  # fmt: skip


def make(a: np.ndarray, dtype: str) -> sdk.Tensor:
    if dtype == "bfloat16":
        return sdk.tensor(a.astype(np.float32)).to(sdk.bfloat16)
    return sdk.tensor(a.astype(np.bool_ if dtype == "bool" else dtype))


def arr(t: sdk.Tensor) -> np.ndarray:
    return (t.float() if t.dtype == sdk.bfloat16 else t).numpy()


def ints(rng, shape, dtype: str) -> np.ndarray:
    """Values exact in every dtype, with many ties."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.integers(0 if dtype == "uint8" else -4, 5, size=shape).astype(np.float64)


def expect(a: np.ndarray, dtype: str) -> np.ndarray:
    return arr(make(a, dtype))


# ------------------------------------------------------------------ copies, short inner dim


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reps", [0, 1, 2, 3, 4, 5, 16, 17])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_repeat_interleave_int_every_width(rng, dtype, reps, dim):
    a = ints(rng, (7, 5, 3), dtype)
    r = make(a, dtype).repeat_interleave(reps, dim)
    np.testing.assert_array_equal(arr(r), np.repeat(expect(a, dtype), reps, dim))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (1, 4), (4, 1), (1,), (0,)])
@pytest.mark.parametrize("reps", [1, 3])
def test_repeat_interleave_size_0_and_1_dims(rng, shape, reps):
    a = rng.standard_normal(shape).astype(np.float32)
    for dim in range(len(shape)):
        r = sdk.tensor(a).repeat_interleave(reps, dim)
        np.testing.assert_array_equal(r.numpy(), np.repeat(a, reps, dim))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inner", [1, 2, 3, 4, 7, 16, 17])
def test_broadcast_inner_dim_copy(rng, dtype, inner):
    a = ints(rng, (6, 9, 1), dtype)
    t = make(a, dtype).expand(6, 9, inner)
    np.testing.assert_array_equal(arr(t.contiguous()), np.broadcast_to(expect(a, dtype), t.shape))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inner", [2, 3, 5, 16])
def test_short_strided_inner_dim_copy(rng, dtype, inner):
    a = ints(rng, (inner, 40), dtype)
    t = make(a, dtype).t()  # (40, inner), inner stride 40
    np.testing.assert_array_equal(arr(t.contiguous()), expect(a, dtype).T)
    b = ints(rng, (30, 4 * inner), dtype)
    s = make(b, dtype)[:, ::4]  # inner stride 4, outer 4 * inner
    np.testing.assert_array_equal(arr(s.contiguous()), expect(b, dtype)[:, ::4])
    c = ints(rng, (5, 2 * inner, 3), dtype)
    u = make(c, dtype)[:, ::2, 1]  # three dims walk before coalescing
    np.testing.assert_array_equal(arr(u.contiguous()), expect(c, dtype)[:, ::2, 1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_copy_into_strided_destination(rng, dtype):
    a = ints(rng, (8, 1), dtype)
    dst = make(np.zeros((8, 6)), dtype)
    dst[:, ::2].copy_(make(a, dtype).expand(8, 3))  # destination inner stride 2, source 0
    want = np.zeros((8, 6), dtype=np.float64)
    want[:, ::2] = a.astype(np.float64)
    np.testing.assert_array_equal(arr(dst), expect(want, dtype))
    d2 = make(np.zeros((3, 20)), dtype)
    b = ints(rng, (20, 3), dtype)
    d2.t().copy_(make(b, dtype))  # destination inner stride 20
    np.testing.assert_array_equal(arr(d2), expect(b, dtype).T)


def test_large_broadcast_copies(rng):
    a = rng.standard_normal((300, 400)).astype(np.float32)
    np.testing.assert_array_equal(sdk.tensor(a).repeat_interleave(3, 1).numpy(), np.repeat(a, 3, 1))
    b = rng.standard_normal((200, 300)).astype(np.float64)
    np.testing.assert_array_equal(sdk.tensor(b).repeat(2, 3).numpy(), np.tile(b, (2, 3)))
    c = rng.integers(0, 100, size=(500, 300)).astype(np.int16)
    t = sdk.tensor(c)[:, :, None].expand(500, 300, 5)
    np.testing.assert_array_equal(t.contiguous().numpy(), np.broadcast_to(c[:, :, None], t.shape))


@pytest.mark.parametrize("reps", [(2, 2), (1, 3), (3, 1), (2, 1, 2)])
def test_repeat_matches_tile(rng, reps):
    a = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(sdk.tensor(a).repeat(*reps).numpy(), np.tile(a, reps))


# ------------------------------------------------------------------------ kthvalue, topk


def ref_order(row: np.ndarray, descending: bool) -> np.ndarray:
    """Positions in torch's order: NaN above every number, ties by position."""
    v = row.astype(np.float64)
    nan = np.isnan(v)
    v = np.where(nan, 0.0, v)
    pos = np.arange(len(v))
    if descending:
        return np.lexsort((pos, -v, ~nan))
    return np.lexsort((pos, v, nan))


def lines(rng, shape, dtype, nan_rows):
    a = ints(rng, shape, dtype)
    if dtype in ("float16", "bfloat16", "float32", "float64") and nan_rows:
        a[: shape[0] // 2, rng.integers(0, shape[1])] = np.nan
        a[0, :] = np.nan
        a[1, 0] = -0.0
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 7, 50])
def test_kthvalue_every_rank_with_ties_and_nan(rng, dtype, n):
    a = lines(rng, (6, n), dtype, nan_rows=True)
    t = make(a, dtype)
    for k in sorted({1, 2, n // 2 + 1, n} & set(range(1, n + 1))):
        v, i = t.kthvalue(k, 1)
        e = expect(a, dtype)
        for r in range(a.shape[0]):
            j = ref_order(a[r], False)[k - 1]
            assert i.numpy()[r] == j
            np.testing.assert_array_equal(arr(v)[r], e[r, j])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("n", [1, 3, 40])
def test_topk_sorted_with_ties_and_nan(rng, dtype, largest, n):
    a = lines(rng, (5, n), dtype, nan_rows=True)
    t = make(a, dtype)
    e = expect(a, dtype)
    for k in sorted({0, 1, 2, n // 2, n} & set(range(n + 1))):
        v, i = t.topk(k, 1, largest=largest)
        for r in range(a.shape[0]):
            js = ref_order(a[r], largest)[:k]
            np.testing.assert_array_equal(i.numpy()[r], js)
            np.testing.assert_array_equal(arr(v)[r], e[r, js])


def test_kthvalue_topk_strided_lines_and_signed_zero(rng):
    a = rng.integers(-3, 4, size=(30, 20)).astype(np.float32)
    a[a == 0] = -0.0
    a[::3, 5] = 0.0
    t = sdk.tensor(a)
    v, i = t.kthvalue(10, 0)  # lines along dim 0: strided
    for c in range(a.shape[1]):
        j = ref_order(a[:, c], False)[9]
        assert i.numpy()[c] == j
        assert np.signbit(v.numpy()[c]) == np.signbit(a[j, c])
    v, i = t.t().topk(4, 1)
    for c in range(a.shape[1]):
        js = ref_order(a[:, c], True)[:4]
        np.testing.assert_array_equal(i.numpy()[c], js)
        np.testing.assert_array_equal(np.signbit(v.numpy()[c]), np.signbit(a[js, c]))


def test_median_uses_the_same_selection(rng):
    a = rng.integers(-3, 4, size=(9, 11)).astype(np.float64)
    v, i = sdk.tensor(a).median(1)
    for r in range(a.shape[0]):
        j = ref_order(a[r], False)[(a.shape[1] - 1) // 2]
        assert i.numpy()[r] == j and v.numpy()[r] == a[r, j]


# ------------------------------------------------------------------------------- take


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_take_every_width_and_index_dtype(rng, dtype, index_dtype):
    a = ints(rng, (40, 50), dtype)
    index = rng.integers(-2000, 2000, size=(70000,)).astype(index_dtype)
    r = make(a, dtype).take(sdk.tensor(index))
    np.testing.assert_array_equal(arr(r), expect(a, dtype).reshape(-1)[index])


def test_take_strided_index_and_source(rng):
    a = rng.standard_normal((30, 40))
    index = rng.integers(-1200, 1200, size=(50, 60))
    r = sdk.tensor(a).t().take(sdk.tensor(index).t())
    np.testing.assert_array_equal(r.numpy(), a.T.reshape(-1)[index.T])
    r = sdk.tensor(a).take(sdk.tensor(index)[::2, 1::3])
    np.testing.assert_array_equal(r.numpy(), a.reshape(-1)[index[::2, 1::3]])


@pytest.mark.parametrize("bad", [1200, -1201])
def test_take_reports_the_first_bad_index(rng, bad):
    index = rng.integers(0, 1200, size=100000)
    index[70000] = bad
    index[90000] = 5000
    with pytest.raises(IndexError, match=f"index {bad} is out of range for a tensor of 1200"):
        sdk.zeros(30, 40).take(sdk.tensor(index))


def patterned_lines(rng, n: int) -> np.ndarray:
    """Lines that stress a selection: random, few distinct values, sorted both ways, all
    equal, organ pipe, sawtooth."""
    up = np.arange(n, dtype=np.float64)
    return np.stack([
        rng.standard_normal(n), rng.integers(-3, 4, n).astype(np.float64), up, up[::-1],
        np.zeros(n), np.minimum(up, up[::-1]), up % 7, np.where(up % 2 == 0, up, -up),
    ])  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int16", "float16"])
@pytest.mark.parametrize("n", [33, 100, 1000, 4099])
def test_selection_on_long_lines(rng, dtype, n):
    a = patterned_lines(rng, n)
    if dtype in ("int16", "float16"):
        a = np.round(a) % 1000
    t = make(a, dtype)
    e = expect(a, dtype)
    orders = {d: [ref_order(e[r], d) for r in range(len(a))] for d in (False, True)}
    for k in sorted({1, 2, 5, 31, 32, n // 3, n // 2 + 1, n - 1, n}):
        v, i = t.kthvalue(k, 1)
        want = np.array([o[k - 1] for o in orders[False]])
        np.testing.assert_array_equal(i.numpy(), want)
        np.testing.assert_array_equal(arr(v), e[np.arange(len(a)), want])
        for largest in (True, False):
            v, i = t.topk(k, 1, largest=largest)
            want = np.stack([o[:k] for o in orders[largest]])
            np.testing.assert_array_equal(i.numpy(), want)
            np.testing.assert_array_equal(arr(v), np.take_along_axis(e, want, 1))
