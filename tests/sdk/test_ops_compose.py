"""repeat, tile, unflatten, meshgrid, as_strided and unique against numpy (np.tile,
np.meshgrid, np.lib.stride_tricks.as_strided, np.unique), with gradcheck for the
differentiable ones and the errors bad arguments give."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk

RNG = np.random.default_rng(1821)


def f64(*shape: int, requires_grad: bool = False) -> sdk.Tensor:
    return sdk.tensor(RNG.standard_normal(shape), dtype=sdk.float64, requires_grad=requires_grad)


@pytest.mark.parametrize(
    "shape, reps",
    [((2, 3), (2, 2)), ((2, 3), (3, 1, 2)), ((4,), (0,)), ((), (2, 3)), ((0, 2), (2, 1))],
)
def test_repeat_and_tile_match_np_tile(shape, reps):
    x = sdk.tensor(RNG.standard_normal(shape))
    expected = np.tile(x.numpy(), reps)
    assert np.array_equal(x.repeat(*reps).numpy(), expected)
    assert np.array_equal(x.repeat(list(reps)).numpy(), expected)
    assert np.array_equal(sdk.tile(x, reps).numpy(), expected)


def test_tile_pads_short_dims_with_leading_ones_and_repeat_refuses_them():
    x = sdk.arange(6).reshape(2, 3)
    assert np.array_equal(x.tile((2,)).numpy(), np.tile(x.numpy(), (1, 2)))
    with pytest.raises(sdk.InvalidArgumentError, match="repeat"):
        x.repeat(2)
    with pytest.raises(sdk.InvalidArgumentError, match="negative"):
        x.repeat(2, -1)
    with pytest.raises(TypeError, match="repeat"):
        x.repeat("2", 1)


def test_unflatten_splits_a_dim_as_a_view():
    x = sdk.arange(24).reshape(2, 12)
    y = x.unflatten(1, (3, -1))
    assert tuple(y.shape) == (2, 3, 4)
    assert np.array_equal(y.numpy(), x.numpy().reshape(2, 3, 4))
    assert tuple(sdk.unflatten(x, -2, (1, 2)).shape) == (1, 2, 12)
    y[0, 0, 0] = 100
    assert x[0, 0].item() == 100  # a view, as torch


@pytest.mark.parametrize("sizes", [(5, 3), (-1, 5), (-1, -1, 12), (), (0, -1)])
def test_unflatten_refuses_sizes_that_do_not_split_the_dim(sizes):
    with pytest.raises(sdk.InvalidArgumentError, match="unflatten"):
        sdk.arange(24).reshape(2, 12).unflatten(1, sizes)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = sdk.arange(3), sdk.arange(4) * 10, sdk.tensor(7)
    got = sdk.meshgrid(a, b, c, indexing=indexing)
    want = np.meshgrid(a.numpy(), b.numpy(), c.numpy().reshape(1), indexing=indexing)
    assert len(got) == 3
    for g, w in zip(got, want):
        assert np.array_equal(g.numpy(), w)
    pair = sdk.meshgrid([a, b], indexing=indexing)  # a list, as torch also takes
    want = np.meshgrid(a.numpy(), b.numpy(), indexing=indexing)
    assert all(np.array_equal(g.numpy(), w) for g, w in zip(pair, want))


def test_meshgrid_refuses_bad_inputs():
    with pytest.raises(sdk.InvalidArgumentError, match="indexing"):
        sdk.meshgrid(sdk.arange(2), indexing="yx")
    with pytest.raises(sdk.InvalidArgumentError, match="dims"):
        sdk.meshgrid(sdk.zeros(2, 2))
    with pytest.raises(sdk.InvalidArgumentError, match="dtype"):
        sdk.meshgrid(sdk.arange(2), sdk.zeros(2))
    with pytest.raises(TypeError, match=r"tensors\[1\]"):
        sdk.meshgrid(sdk.arange(2), [1, 2])
    with pytest.raises(sdk.InvalidArgumentError, match="at least one"):
        sdk.meshgrid()


def test_as_strided_reads_the_storage_like_numpy():
    base = sdk.arange(12.0, dtype=sdk.float64)
    x = base[2:]
    got = x.as_strided((3, 4), (2, 1))  # offset defaults to x's own (2)
    want = np.lib.stride_tricks.as_strided(base.numpy()[2:], (3, 4), (16, 8))
    assert np.array_equal(got.numpy(), want)
    assert np.array_equal(sdk.as_strided(x, (2, 2), (1, 1), 0).numpy(), [[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="storage_offset"):
        sdk.as_strided(x, (2,), (1,), "0")


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.as_strided((3, 2), (1, 1), 1),  # overlapping reads accumulate
        lambda t: t.t().as_strided((2, 2), (1, 3)),  # a non-contiguous input
        lambda t: t.as_strided((2,), (5,), 0),  # some inputs read nowhere
        lambda t: t.repeat(2, 1, 3),
        lambda t: sdk.tile(t, (2,)),
        lambda t: t.unflatten(0, (2, 2)),
        lambda t: sdk.meshgrid(t[0], t[1], indexing="xy")[0] * sdk.meshgrid(t[2], t[1])[1].t(),
    ],
    ids=["as_strided_overlap", "as_strided_transposed", "as_strided_gaps", "repeat", "tile",
         "unflatten", "meshgrid"],
)  # fmt: skip
def test_gradients_match_finite_differences(fn):
    x = f64(4, 3, requires_grad=True)
    assert sdk.autograd.gradcheck(fn, [x])
    assert sdk.autograd.gradgradcheck(fn, [x])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool"])
def test_unique_matches_np_unique(dtype):
    a = RNG.integers(0, 5, size=(4, 6)).astype(dtype)
    x = sdk.tensor(a)
    values, inverse, counts = sdk.unique(x, return_inverse=True, return_counts=True)
    want_v, want_i, want_c = np.unique(a, return_inverse=True, return_counts=True)
    assert values.dtype == x.dtype and inverse.dtype == counts.dtype == sdk.int64
    assert np.array_equal(values.numpy(), want_v)
    assert np.array_equal(inverse.numpy(), want_i.reshape(a.shape))
    assert np.array_equal(counts.numpy(), want_c)
    assert np.array_equal(x.t().unique().numpy(), want_v)  # strided input
    assert np.array_equal(x.unique(sorted=False, return_counts=True)[1].numpy(), want_c)


def test_unique_of_empty_0dim_and_nan_inputs():
    v, i, c = sdk.zeros(0, 3).unique(return_inverse=True, return_counts=True)
    assert tuple(v.shape) == (0,) and tuple(i.shape) == (0, 3) and tuple(c.shape) == (0,)
    assert i.dtype == c.dtype == sdk.int64
    v, i = sdk.tensor(5.0).unique(return_inverse=True)
    assert v.tolist() == [5.0] and i.ndim == 0 and i.item() == 0
    v, c = sdk.tensor([math.nan, 1.0, math.nan]).unique(return_counts=True)
    assert v[0].item() == 1.0 and all(math.isnan(e) for e in v[1:].tolist())  # NaNs distinct
    assert c.tolist() == [1, 1, 1]


def test_unique_gives_no_gradient_and_refuses_bad_arguments():
    x = f64(5, requires_grad=True)
    assert not sdk.unique(x).requires_grad
    with pytest.raises(TypeError, match="return_inverse"):
        sdk.unique(x, return_inverse="yes")
    with pytest.raises(NotImplementedError, match="dim"):
        sdk.unique(x, dim=0)
    with pytest.raises(TypeError, match="input"):
        sdk.unique([1, 2])
