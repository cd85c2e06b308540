"""sort, argsort, topk, kthvalue, median against numpy and small reference implementations:
every dtype, negative dims, strided inputs, empty and 0-dim tensors, ties (stability) and NaN.
(The scans are in test_ops_scan.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk

DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64",
]  # fmt: skip
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def make(a: np.ndarray, dtype: str) -> sdk.Tensor:
    """A tensor of `dtype` holding a (bfloat16 through float32; values chosen exact)."""
    if dtype == "bfloat16":
        return sdk.tensor(a.astype(np.float32)).to(sdk.bfloat16)
    return sdk.tensor(a.astype(dtype if dtype != "bool" else np.bool_))


def arr(t: sdk.Tensor) -> np.ndarray:
    return (t.float() if t.dtype == sdk.bfloat16 else t).numpy()


def small_values(rng, shape, dtype: str) -> np.ndarray:
    """Values exact in every dtype, with many ties."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    lo = 0 if dtype == "uint8" else -4
    return rng.integers(lo, 5, size=shape).astype(np.float64)


def ref_sort_1d(row, descending: bool):
    """Stable order with NaN above every number (torch's)."""

    def key(i):
        v = float(row[i])
        nan = math.isnan(v)
        return (not nan, -v if not nan else 0.0) if descending else (nan, v if not nan else 0.0)

    idx = sorted(range(len(row)), key=key)
    return np.asarray([row[i] for i in idx]), np.asarray(idx, dtype=np.int64)


def ref_sort(a, dim, descending):
    moved = np.moveaxis(a, dim, -1)
    vals, idxs = np.empty_like(moved), np.empty(moved.shape, dtype=np.int64)
    for pos in np.ndindex(moved.shape[:-1]):
        vals[pos], idxs[pos] = ref_sort_1d(moved[pos], descending)
    return np.moveaxis(vals, -1, dim), np.moveaxis(idxs, -1, dim)


# ------------------------------------------------------------------------------ sort


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_stable_and_matches_the_reference(rng, dtype, dim, descending):
    a = small_values(rng, (5, 9), dtype)
    t = make(a, dtype)
    values, indices = sdk.sort(t, dim, descending, stable=True)
    ref_v, ref_i = ref_sort(arr(t), dim, descending)
    assert values.dtype == t.dtype and indices.dtype == sdk.int64
    np.testing.assert_array_equal(arr(values), ref_v)
    np.testing.assert_array_equal(indices.numpy(), ref_i)
    np.testing.assert_array_equal(t.argsort(dim, descending).numpy(), ref_i)


def test_sort_result_fields_and_default_dim(rng):
    a = rng.standard_normal((3, 4))
    r = sdk.tensor(a).sort()
    assert r.values is r[0] and r.indices is r[1]
    np.testing.assert_array_equal(r.values.numpy(), np.sort(a, axis=-1))
    np.testing.assert_array_equal(r.indices.numpy(), np.argsort(a, axis=-1, kind="stable"))


def test_sort_places_nan_last_ascending_first_descending():
    t = sdk.tensor([2.0, math.nan, -1.0, math.nan, 0.5])
    v, i = t.sort()
    np.testing.assert_array_equal(v.numpy(), [-1.0, 0.5, 2.0, math.nan, math.nan])
    assert i.tolist() == [2, 4, 0, 1, 3]
    v, i = t.sort(descending=True)
    np.testing.assert_array_equal(v.numpy(), [math.nan, math.nan, 2.0, 0.5, -1.0])
    assert i.tolist() == [1, 3, 0, 4, 2]


@pytest.mark.parametrize("layout", ["transposed", "stepped"])
def test_sort_of_strided_inputs(rng, layout):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    t = sdk.tensor(a)
    v, ref = (t.t(), a.T) if layout == "transposed" else (t[::2, 1::3], a[::2, 1::3])
    assert not v.is_contiguous()
    for dim in (0, 1, -1):
        values, indices = v.sort(dim)
        np.testing.assert_array_equal(values.numpy(), np.sort(ref, axis=dim))
        np.testing.assert_array_equal(indices.numpy(), np.argsort(ref, axis=dim, kind="stable"))


def test_sort_of_a_long_row_and_many_rows(rng):
    a = rng.standard_normal(100_003).astype(np.float32)
    v, i = sdk.tensor(a).sort(descending=True)
    np.testing.assert_array_equal(v.numpy(), np.sort(a)[::-1])
    np.testing.assert_array_equal(a[i.numpy()], v.numpy())
    b = rng.integers(-50, 50, size=(2000, 33)).astype(np.int32)
    v, i = sdk.tensor(b).sort(1)
    np.testing.assert_array_equal(v.numpy(), np.sort(b, axis=1))
    np.testing.assert_array_equal(i.numpy(), np.argsort(b, axis=1, kind="stable"))


@pytest.mark.parametrize("shape, dim", [((0, 3), 0), ((0, 3), 1), ((3, 0), 1), ((), 0), ((), -1)])
def test_sort_of_empty_and_0dim(shape, dim):
    t = sdk.ones(shape)
    v, i = t.sort(dim)
    assert tuple(v.shape) == shape and tuple(i.shape) == shape and i.dtype == sdk.int64
    if shape == ():
        assert v.item() == 1.0 and i.item() == 0


def test_sort_dim_out_of_range():
    with pytest.raises(IndexError, match="out of range"):
        sdk.zeros(2, 3).sort(2)
    with pytest.raises(TypeError, match="must be Tensor"):
        sdk.sort([3, 1, 2])


def test_msort_sorts_dim_0(rng):
    a = rng.standard_normal((4, 3))
    np.testing.assert_array_equal(sdk.msort(sdk.tensor(a)).numpy(), np.sort(a, axis=0))


# ------------------------------------------------------------------------------ topk


@pytest.mark.parametrize("dtype", DTYPES)
def test_topk_largest_and_smallest(rng, dtype):
    a = small_values(rng, (4, 10), dtype)
    t = make(a, dtype)
    x = arr(t)
    for largest in (True, False):
        values, indices = t.topk(3, largest=largest)
        ref_v, ref_i = ref_sort(x, -1, descending=largest)
        np.testing.assert_array_equal(arr(values), ref_v[:, :3])
        np.testing.assert_array_equal(indices.numpy(), ref_i[:, :3])  # of ties: the first ones


def test_topk_unsorted_gives_the_same_set(rng):
    a = rng.standard_normal((7, 50))
    t = sdk.tensor(a)
    values, indices = t.topk(12, dim=1, sorted=False)
    np.testing.assert_array_equal(np.sort(values.numpy(), axis=1), np.sort(a, axis=1)[:, -12:])
    np.testing.assert_array_equal(np.take_along_axis(a, indices.numpy(), 1), values.numpy())


def test_topk_dims_ties_nan_and_edges(rng):
    a = rng.standard_normal((5, 6))
    values, indices = sdk.tensor(a).topk(2, dim=0)
    np.testing.assert_array_equal(values.numpy(), -np.sort(-a, axis=0)[:2])
    np.testing.assert_array_equal(np.take_along_axis(a, indices.numpy(), 0), values.numpy())
    t = sdk.tensor([1.0, 3.0, math.nan, 3.0, 2.0])
    v, i = t.topk(2)
    assert math.isnan(v[0].item()) and v[1].item() == 3.0 and i.tolist() == [2, 1]
    assert tuple(t.topk(0).values.shape) == (0,)
    assert t.topk(5).indices.tolist() == [2, 1, 3, 4, 0]
    with pytest.raises(IndexError, match="topk.*k 6 is out of range"):
        t.topk(6)
    with pytest.raises(IndexError, match="topk.*k -1"):
        t.topk(-1)


# ------------------------------------------------------------------------------ kthvalue, median


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "float16", "float32", "float64"])
def test_kthvalue_matches_partition(rng, dtype):
    a = small_values(rng, (6, 7), dtype)
    t = make(a, dtype)
    for k in (1, 4, 6):
        for dim in (1, -2):
            values, indices = t.kthvalue(k, dim)
            ref = np.sort(arr(t), axis=dim).take(k - 1, axis=dim)
            np.testing.assert_array_equal(arr(values), ref)
            picked = np.take_along_axis(arr(t), np.expand_dims(indices.numpy(), dim), dim)
            np.testing.assert_array_equal(picked.squeeze(dim), ref)


def test_kthvalue_keepdim_and_errors():
    t = sdk.tensor([[5.0, 1.0, 3.0], [2.0, 2.0, 0.0]])
    v, i = t.kthvalue(2, 1, keepdim=True)
    assert tuple(v.shape) == (2, 1) and v.flatten().tolist() == [3.0, 2.0]
    assert i.flatten().tolist()[0] == 2 and i.flatten().tolist()[1] in (0, 1)
    with pytest.raises(IndexError, match="kthvalue.*k 4 is out of range"):
        t.kthvalue(4)
    with pytest.raises(IndexError, match="kthvalue.*k 0"):
        t.kthvalue(0)
    with pytest.raises(IndexError, match="non-zero size"):
        sdk.zeros(2, 0).kthvalue(1)


def test_median_is_the_lower_median(rng):
    a = rng.standard_normal((5, 8))
    t = sdk.tensor(a)
    v, i = t.median(1)
    ref = np.sort(a, axis=1)[:, 3]
    np.testing.assert_array_equal(v.numpy(), ref)
    np.testing.assert_array_equal(a[np.arange(5), i.numpy()], ref)
    v, i = t.median(0, keepdim=True)
    assert tuple(v.shape) == (1, 8)
    np.testing.assert_array_equal(v.numpy()[0], np.sort(a, axis=0)[2])
    all_ = sdk.median(t)
    assert all_.shape == () and all_.item() == np.sort(a.reshape(-1))[19]
    assert sdk.tensor([4, 1, 3, 2]).median().item() == 2  # ints too


def test_median_propagates_nan_with_its_first_index():
    t = sdk.tensor([[1.0, math.nan, 0.0, math.nan], [3.0, 1.0, 2.0, 0.0]])
    v, i = t.median(1)
    assert math.isnan(v[0].item()) and i[0].item() == 1
    assert v[1].item() == 1.0 and i[1].item() == 1
    assert math.isnan(sdk.median(t).item())
    assert math.isnan(sdk.median(sdk.zeros(0)).item())
    with pytest.raises(IndexError, match="median.*non-zero size"):
        sdk.zeros(3, 0).median(1)


@pytest.mark.parametrize("k", [1, 3, 31, 500])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_of_a_long_line_with_ties_takes_the_first_by_position(rng, k, largest):
    """topk on NaN-free lines picks the k-th value on bare values and then keeps every value
    ahead of it and, of those equal to it, the first by position (sort.cpp, select_front): on
    lines of heavy ties (and one of a single repeated value) that must match a stable sort."""
    lines = [
        rng.integers(0, 50, 100_003).astype(np.float32),
        np.full(70_000, 2.5, np.float32),
        rng.integers(-3, 3, 4_000).astype(np.float32),
    ]
    for a in lines:
        v, i = sdk.from_numpy(a).topk(k, largest=largest)
        order = np.argsort(-a if largest else a, kind="stable")[:k]
        np.testing.assert_array_equal(i.numpy(), order)
        np.testing.assert_array_equal(v.numpy(), a[order])
