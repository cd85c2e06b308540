"""cumsum, cumprod (and their in-place forms), cummax, cummin against numpy and a small
reference implementation: every dtype, torch's dtype rule, negative dims, strided inputs,
empty and 0-dim tensors, and NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk
from tests.sdk.test_ops_sort import DTYPES, FLOATS, arr, make, small_values

# ------------------------------------------------------------------------------ cumsum, cumprod


def scan_dtype(dtype: str) -> str:
    return dtype if dtype in FLOATS else "int64"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scans_follow_torchs_dtype_rule(rng, dtype, op):
    a = small_values(rng, (4, 6), dtype)
    if op == "cumprod" and dtype not in ("bool", "uint8"):
        a = np.where(a == 0, 1, a)
    t = make(a, dtype)
    for dim in (1, 0, -1):
        r = getattr(t, op)(dim)
        assert r.dtype.name == scan_dtype(dtype)
        x = arr(t).astype(np.float64 if dtype in FLOATS else np.int64)
        ref = getattr(np, op)(x, axis=dim)
        tol = {"float16": 1e-2, "bfloat16": 3e-2}.get(dtype, 1e-6)
        np.testing.assert_allclose(arr(r).astype(np.float64), ref, rtol=tol)


@pytest.mark.parametrize("shape", [(1, 1000), (1000,), (9, 70), (17, 3), (2, 9, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_scans_along_the_last_dim_whatever_the_row_count(rng, shape, dtype):
    """The last dim scans eight rows at a time (9 and 17 rows end in a block of one), and a
    tensor of one row takes a loop of its own: same values either way."""
    a = small_values(rng, shape, dtype)
    t = make(a, dtype)
    x = arr(t).astype(np.float64 if dtype in FLOATS else np.int64)
    np.testing.assert_allclose(arr(t.cumsum(-1)).astype(np.float64), np.cumsum(x, -1), rtol=1e-6)
    p = np.where(x == 0, 1, np.clip(x, -2, 2))
    np.testing.assert_allclose(
        arr(make(p.astype(a.dtype), dtype).cumprod(-1)).astype(np.float64)[..., :20],
        np.cumprod(p, -1)[..., :20],
        rtol=1e-6,
    )


def test_cumsum_dtype_argument_casts_first(rng):
    a = np.array([[0.6, 0.6, 0.6], [1.5, -1.5, 2.5]])
    t = sdk.tensor(a)
    r = t.cumsum(1, dtype=sdk.int32)
    assert r.dtype == sdk.int32
    np.testing.assert_array_equal(r.numpy(), np.cumsum(a.astype(np.int32), axis=1))
    r = sdk.tensor([1, 2, 3], dtype=sdk.int16).cumprod(0, dtype=sdk.float64)
    assert r.dtype == sdk.float64 and r.tolist() == [1.0, 2.0, 6.0]


def test_integer_scans_wrap_like_numpy():
    big = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    np.testing.assert_array_equal(sdk.tensor(big).cumsum(0).numpy(), np.cumsum(big))
    np.testing.assert_array_equal(sdk.tensor(big).cumprod(0).numpy(), np.cumprod(big))


def test_scans_of_strided_empty_and_0dim(rng):
    a = rng.standard_normal((5, 300))
    t = sdk.tensor(a)
    for v, ref in ((t.t(), a.T), (t[1::2, ::7], a[1::2, ::7])):
        for dim in (0, 1):
            np.testing.assert_allclose(v.cumsum(dim).numpy(), np.cumsum(ref, axis=dim))
            np.testing.assert_allclose(v.cumprod(dim).numpy(), np.cumprod(ref, axis=dim))
    assert tuple(sdk.zeros(0, 3).cumsum(0).shape) == (0, 3)
    assert tuple(sdk.zeros(3, 0).cumprod(1).shape) == (3, 0)
    z = sdk.tensor(2.5).cumsum(0)
    assert z.shape == () and z.item() == 2.5
    with pytest.raises(IndexError, match="out of range"):
        sdk.zeros(2, 3).cumsum(2)


def test_cumsum_out_and_in_place(rng):
    a = rng.integers(-5, 5, size=(3, 4)).astype(np.int32)
    t = sdk.tensor(a)
    out = sdk.empty(3, 4, dtype=sdk.int64)
    assert sdk.cumsum(t, 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.cumsum(a, axis=1))
    assert t.cumsum_(0) is t and t.dtype == sdk.int32
    np.testing.assert_array_equal(t.numpy(), np.cumsum(a, axis=0))
    f = sdk.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    f.cumprod_(1)
    np.testing.assert_array_equal(f.numpy(), [[1.0, 3.0], [2.0, 8.0]])
    with pytest.raises(TypeError, match="can't be cast"):
        sdk.cumsum(sdk.tensor([0.5, 1.0]), 0, out=sdk.empty(2, dtype=sdk.int64))


# ------------------------------------------------------------------------------ cummax, cummin


def ref_cum_extremum(row, is_min):
    """torch's rule: an equal value takes over (the last index), and so does any NaN."""
    vals, idx = [], []
    best, at = None, 0
    for j, v in enumerate(row):
        v = float(v)
        take = (
            j == 0
            or math.isnan(v)
            or (not math.isnan(best) and (v <= best if is_min else v >= best))
        )
        if take:
            best, at = v, j
        vals.append(best)
        idx.append(at)
    return vals, idx


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(rng, dtype, op):
    a = small_values(rng, (3, 12), dtype)
    t = make(a, dtype)
    for dim in (1, 0):
        values, indices = getattr(t, op)(dim)
        assert values.dtype == t.dtype and indices.dtype == sdk.int64
        x = np.moveaxis(arr(t), dim, -1)
        for pos in np.ndindex(x.shape[:-1]):
            rv, ri = ref_cum_extremum(x[pos], op == "cummin")
            got_v = np.moveaxis(arr(values), dim, -1)[pos]
            got_i = np.moveaxis(indices.numpy(), dim, -1)[pos]
            np.testing.assert_array_equal(got_v.astype(np.float64), rv)
            np.testing.assert_array_equal(got_i, ri)


def test_cummax_nan_sticks():
    v, i = sdk.tensor([1.0, math.nan, 5.0, math.nan, 0.0]).cummax(0)
    assert v[0].item() == 1.0 and all(math.isnan(x) for x in v.tolist()[1:])
    assert i.tolist() == [0, 1, 1, 3, 3]
    r = sdk.cummin(sdk.zeros(0, 2), 0)
    assert r.values.shape == (0, 2) and r.indices.dtype == sdk.int64
