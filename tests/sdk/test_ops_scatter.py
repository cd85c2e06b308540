"""scatter, scatter_add, scatter_reduce, index_add, index_copy, index_fill, masked_select, masked_scatter, take and
take_along_dim against loop references in numpy: dtypes, negative dims, strided operands,
in place and out of place, empty tensors, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def idx(a) -> sdk.Tensor:
    return sdk.tensor(np.asarray(a, dtype=np.int64))


def values(rng, shape, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    lo = 0 if dtype == "uint8" else -5
    return rng.integers(lo, 6, size=shape).astype(dtype)


def unique_index(rng, index_shape, dim, size):
    """An index along dim without repeats in any line (torch's scatter is then defined)."""
    moved = list(index_shape)
    n = moved.pop(dim)
    out = np.empty((*moved, n), dtype=np.int64)
    for pos in np.ndindex(*moved):
        out[pos] = rng.permutation(size)[:n]
    return np.moveaxis(out, -1, dim)


def targets(index, dim):
    """(position in index, position written) pairs, in row-major order of index."""
    for pos in np.ndindex(index.shape):
        tgt = list(pos)
        tgt[dim] = index[pos]
        yield pos, tuple(tgt)


def ref_scatter(a, dim, index, src):
    out = a.copy()
    for pos, tgt in targets(index, dim):
        out[tgt] = src[pos] if np.ndim(src) else src
    return out


# ------------------------------------------------------------------------------ scatter


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_src_and_value(rng, dtype, dim):
    a, src = values(rng, (4, 5, 3), dtype), values(rng, (4, 5, 3), dtype)
    ishape = [3, 4, 2]
    ishape[dim] = 2
    index = unique_index(rng, ishape, dim, a.shape[dim])
    t = sdk.tensor(a)
    r = sdk.scatter(t, dim, idx(index), sdk.tensor(src))
    assert r.dtype == t.dtype
    np.testing.assert_array_equal(r.numpy(), ref_scatter(a, dim, index, src))
    np.testing.assert_array_equal(t.numpy(), a)  # out of place
    r = t.scatter(dim, idx(index), 1)
    np.testing.assert_array_equal(r.numpy(), ref_scatter(a, dim, index, np.asarray(1, a.dtype)))
    assert t.scatter_(dim, idx(index), sdk.tensor(src)) is t
    np.testing.assert_array_equal(t.numpy(), ref_scatter(a, dim, index, src))


def test_scatter_strided_operands_and_int32_index(rng):
    a = rng.standard_normal((6, 4))
    base = sdk.tensor(a.T.copy())
    t = base.t()  # (6, 4), not contiguous
    src_full = rng.standard_normal((8, 6))
    src = sdk.tensor(src_full)[::2, 1::2]  # (4, 3), strided
    index = unique_index(rng, (4, 3), 0, 6)
    index_t = sdk.tensor(np.ascontiguousarray(np.repeat(index, 2, axis=1)), dtype=sdk.int32)
    index_t = index_t[:, ::2]  # int32, strided
    t.scatter_(0, index_t, src)
    np.testing.assert_array_equal(t.numpy(), ref_scatter(a, 0, index, src_full[::2, 1::2]))
    np.testing.assert_array_equal(base.numpy(), t.numpy().T)  # wrote through the view


def test_scatter_repeated_indices_last_write_wins():
    r = sdk.zeros(3).scatter(0, idx([1, 1, 1]), sdk.tensor([1.0, 2.0, 3.0]))
    assert r.tolist() == [0.0, 3.0, 0.0]


def test_scatter_legacy_reduce():
    t = sdk.ones(2, 3)
    t.scatter_(1, idx([[0, 0], [2, 1]]), sdk.full((2, 2), 2.0), reduce="add")
    np.testing.assert_array_equal(t.numpy(), [[5.0, 1.0, 1.0], [1.0, 3.0, 3.0]])
    t.scatter_(1, idx([[0], [2]]), 3.0, reduce="multiply")
    np.testing.assert_array_equal(t.numpy(), [[15.0, 1.0, 1.0], [1.0, 3.0, 9.0]])
    with pytest.raises(ValueError, match="'add' or 'multiply'"):
        t.scatter_(1, idx([[0]]), 1.0, reduce="max")


def test_scatter_errors_name_the_op_and_write_nothing():
    t = sdk.zeros(2, 3)
    with pytest.raises(IndexError, match=r"scatter\(\): index 3 is out of bounds for dim 1"):
        t.scatter_(1, idx([[0, 3]]), sdk.ones(1, 2))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        t.scatter_(1, idx([[-1]]), 1.0)
    assert t.sum().item() == 0.0  # nothing written before the error
    with pytest.raises(TypeError, match="scatter.*int64 or int32"):
        t.scatter(1, sdk.tensor([[0.0]]), 1.0)
    with pytest.raises(TypeError, match="scatter.*dtype of the input"):
        t.scatter(1, idx([[0]]), sdk.ones(1, 1, dtype=sdk.float64))
    with pytest.raises(ValueError, match="as many dims"):
        t.scatter(1, idx([0]), sdk.ones(1))
    with pytest.raises(ValueError, match="larger than src"):
        t.scatter(0, idx([[0, 1]]), sdk.ones(1, 1))
    with pytest.raises(ValueError, match="larger than the input"):
        t.scatter(0, idx([[0, 1, 0, 1]]), sdk.ones(1, 4))
    with pytest.raises(IndexError, match="out of range"):
        t.scatter(2, idx([[0]]), 1.0)
    with pytest.raises(ValueError, match="share one memory location"):
        sdk.zeros(1, 3).expand(2, 3).scatter_(1, idx([[0], [1]]), 1.0)


def test_scatter_empty_index_is_a_copy():
    t = sdk.tensor([[1.0, 2.0]])
    r = t.scatter(1, sdk.zeros(1, 0, dtype=sdk.int64), sdk.ones(1, 0))
    assert r.tolist() == [[1.0, 2.0]] and r is not t


# ------------------------------------------------------------------------------ scatter_reduce


def ref_scatter_reduce(a, dim, index, src, reduce, include_self):
    groups = {}
    for pos, tgt in targets(index, dim):
        groups.setdefault(tgt, [a[tgt]] if include_self else []).append(src[pos])
    out = a.copy()
    for tgt, vs in groups.items():
        vs = np.asarray(vs)
        if reduce == "sum":
            out[tgt] = vs.sum(dtype=a.dtype)
        elif reduce == "prod":
            out[tgt] = vs.prod(dtype=a.dtype)
        elif reduce == "amax":
            out[tgt] = vs.max()
        elif reduce == "amin":
            out[tgt] = vs.min()
        elif np.issubdtype(a.dtype, np.integer):
            out[tgt] = vs.sum() // len(vs)
        else:
            out[tgt] = vs.sum() / len(vs)
    return out


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_scatter_reduce(rng, reduce, include_self, dtype):
    a, src = values(rng, (3, 6), dtype), values(rng, (4, 5), dtype)
    index = rng.integers(0, 6, size=(3, 4))  # repeats: the point of reducing
    r = sdk.scatter_reduce(
        sdk.tensor(a), 1, idx(index), sdk.tensor(src), reduce, include_self=include_self
    )
    ref = ref_scatter_reduce(a, 1, index, src, reduce, include_self)
    np.testing.assert_allclose(r.numpy(), ref, rtol=1e-6)
    t = sdk.tensor(a)
    assert t.scatter_reduce_(1, idx(index), sdk.tensor(src), reduce, include_self=include_self) is t
    np.testing.assert_allclose(t.numpy(), ref, rtol=1e-6)


def test_scatter_reduce_mean_floors_integers_and_keeps_nan():
    r = sdk.tensor([0, 0]).scatter_reduce(0, idx([0, 0, 1]), sdk.tensor([-3, 0, 5]), "mean")
    assert r.tolist() == [-1, 2]  # (0 - 3 + 0) // 3, (0 + 5) // 2
    nan = sdk.tensor([1.0, 2.0]).scatter_reduce(0, idx([0, 0]), sdk.tensor([math.nan, 5.0]), "amax")
    assert math.isnan(nan[0].item()) and nan[1].item() == 2.0
    with pytest.raises(ValueError, match="reduce argument must be one of"):
        sdk.zeros(2).scatter_reduce(0, idx([0]), sdk.ones(1), "max")
    with pytest.raises(TypeError, match="'mean' is not supported for bool"):
        sdk.zeros(2, dtype=sdk.bool).scatter_reduce(
            0, idx([0]), sdk.ones(1, dtype=sdk.bool), "mean"
        )


# ------------------------------------------------------------------------------ index_copy, fill


def ref_index_copy(a, dim, index, src):
    out = np.moveaxis(a.copy(), dim, 0)
    s = np.moveaxis(src, dim, 0)
    for i, ix in enumerate(index):
        out[ix] = s[i]
    return np.moveaxis(out, 0, dim)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_copy(rng, dtype, dim):
    a = values(rng, (5, 4, 3), dtype)
    index = rng.permutation(a.shape[dim])[:2]
    sshape = list(a.shape)
    sshape[dim] = 2
    src = values(rng, sshape, dtype)
    t = sdk.tensor(a)
    r = t.index_copy(dim, idx(index), sdk.tensor(src))
    np.testing.assert_array_equal(r.numpy(), ref_index_copy(a, dim, index, src))
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.index_copy_(dim, idx(index), sdk.tensor(src)) is t
    np.testing.assert_array_equal(t.numpy(), ref_index_copy(a, dim, index, src))


def test_index_copy_into_a_contiguous_view_with_an_offset(rng):
    a = rng.standard_normal((5, 4, 3))
    t = sdk.tensor(a.copy())
    src = rng.standard_normal((3, 2, 3))
    t[2:].index_copy_(1, idx([3, 1]), sdk.tensor(src))  # the row-major slab path
    ref = a.copy()
    ref[2:] = ref_index_copy(a[2:], 1, [3, 1], src)
    np.testing.assert_array_equal(t.numpy(), ref)


def test_index_copy_strided_0d_index_and_errors(rng):
    a = rng.standard_normal((4, 6))
    t = sdk.tensor(a.copy())
    view = t[:, ::2]  # (4, 3) strided
    src = rng.standard_normal((2, 4))
    view.index_copy_(1, idx([2, 0]), sdk.tensor(src).t())
    ref = a.copy()
    ref[:, ::2] = ref_index_copy(a[:, ::2], 1, [2, 0], src.T)
    np.testing.assert_array_equal(t.numpy(), ref)
    r = sdk.zeros(3, 2).index_copy(0, idx(1), sdk.tensor([7.0, 8.0]))  # 0-d index
    assert r.tolist() == [[0, 0], [7, 8], [0, 0]]
    with pytest.raises(IndexError, match=r"index_copy\(\): index 3 is out of bounds"):
        sdk.zeros(3, 2).index_copy(0, idx([3]), sdk.ones(1, 2))
    with pytest.raises(ValueError, match="does not match"):
        sdk.zeros(3, 2).index_copy(0, idx([0, 1]), sdk.ones(1, 2))
    with pytest.raises(TypeError, match="dtype of the input"):
        sdk.zeros(3, 2).index_copy(0, idx([0]), sdk.ones(1, 2, dtype=sdk.int64))
    with pytest.raises(ValueError, match="1-D or 0-d"):
        sdk.zeros(3, 2).index_copy(0, idx([[0]]), sdk.ones(1, 2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_fill(rng, dtype):
    a = values(rng, (4, 5), dtype)
    t = sdk.tensor(a)
    value = True if dtype == "bool" else 3
    r = t.index_fill(1, idx([0, -1, 2]), value)  # negative counts from the end
    ref = a.copy()
    ref[:, [0, 4, 2]] = value
    np.testing.assert_array_equal(r.numpy(), ref)
    assert t.index_fill_(-2, idx([1]), sdk.tensor(value)) is t  # a 0-dim tensor value
    ref = a.copy()
    ref[1] = value
    np.testing.assert_array_equal(t.numpy(), ref)


def test_index_fill_errors():
    with pytest.raises(IndexError, match=r"index_fill\(\): index 5 is out of bounds"):
        sdk.zeros(2, 5).index_fill(1, idx([5]), 1.0)
    with pytest.raises(IndexError, match="index -6"):
        sdk.zeros(2, 5).index_fill(1, idx([-6]), 1.0)
    with pytest.raises(ValueError, match="0-dim tensor"):
        sdk.zeros(2, 5).index_fill(1, idx([0]), sdk.ones(2))


# ------------------------------------------------------------------------------ masks


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_select_broadcasts(rng, dtype):
    a = values(rng, (3, 1, 4), dtype)
    m = rng.integers(0, 2, size=(5, 4)).astype(bool)
    r = sdk.masked_select(sdk.tensor(a), sdk.tensor(m))
    ab, mb = np.broadcast_arrays(a, m)
    np.testing.assert_array_equal(r.numpy(), ab[mb])
    assert r.dtype.name == dtype and r.ndim == 1


def test_masked_select_strided_empty_and_errors(rng):
    a = rng.standard_normal((6, 4))
    m = a > 0
    r = sdk.tensor(a).t().masked_select(sdk.tensor(m).t())
    np.testing.assert_array_equal(r.numpy(), a.T[m.T])
    assert tuple(sdk.zeros(0, 3).masked_select(sdk.ones(3, dtype=sdk.bool)).shape) == (0,)
    with pytest.raises(TypeError, match=r"masked_select\(\): expected a bool mask"):
        sdk.zeros(3).masked_select(sdk.ones(3))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        sdk.zeros(3).masked_select(sdk.ones(2, dtype=sdk.bool))


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_scatter(rng, dtype):
    a = values(rng, (3, 5), dtype)
    m = rng.integers(0, 2, size=(5,)).astype(bool)  # broadcast over the rows
    src = values(rng, (4, 4), dtype)
    t = sdk.tensor(a)
    r = t.masked_scatter(sdk.tensor(m), sdk.tensor(src))
    ref = a.copy()
    mb = np.broadcast_to(m, a.shape)
    ref[mb] = src.reshape(-1)[: mb.sum()]
    np.testing.assert_array_equal(r.numpy(), ref)
    assert t.masked_scatter_(sdk.tensor(m), sdk.tensor(src)) is t
    np.testing.assert_array_equal(t.numpy(), ref)


def test_masked_scatter_errors_and_broadcast_input():
    with pytest.raises(
        ValueError, match=r"masked_scatter\(\): the mask selects 3 elements but source"
    ):
        sdk.zeros(3).masked_scatter_(sdk.ones(3, dtype=sdk.bool), sdk.ones(2))
    with pytest.raises(TypeError, match="bool mask"):
        sdk.zeros(3).masked_scatter_(sdk.ones(3), sdk.ones(3))
    with pytest.raises(TypeError, match="dtype of the input"):
        sdk.zeros(3).masked_scatter_(sdk.ones(3, dtype=sdk.bool), sdk.ones(3, dtype=sdk.int64))
    # out of place, input broadcast against the mask
    r = sdk.masked_scatter(sdk.zeros(2), sdk.tensor([[True, False], [True, True]]), sdk.arange(3.0))
    assert r.tolist() == [[0.0, 0.0], [1.0, 2.0]]


# ------------------------------------------------------------------------------ take


@pytest.mark.parametrize("dtype", DTYPES)
def test_take(rng, dtype):
    a = values(rng, (3, 4), dtype)
    index = rng.integers(-12, 12, size=(2, 5))
    r = sdk.take(sdk.tensor(a), idx(index))
    np.testing.assert_array_equal(r.numpy(), a.reshape(-1)[index])
    r = sdk.tensor(a).t().take(idx([0, 1, -1]))  # row-major order of the transposed view
    np.testing.assert_array_equal(r.numpy(), a.T.reshape(-1)[[0, 1, -1]])


def test_take_errors_and_empty():
    assert tuple(sdk.zeros(0).take(sdk.zeros(0, dtype=sdk.int64)).shape) == (0,)
    with pytest.raises(IndexError, match=r"take\(\): index 6 is out of range for a tensor of 6"):
        sdk.zeros(2, 3).take(idx([6]))
    with pytest.raises(IndexError, match="index -7"):
        sdk.zeros(2, 3).take(idx([-7]))
    with pytest.raises(IndexError, match="of 0 elements"):
        sdk.zeros(0).take(idx([0]))


def test_take_along_dim(rng):
    a = rng.standard_normal((3, 5))
    order = np.argsort(a, axis=1)
    r = sdk.take_along_dim(sdk.tensor(a), idx(order), dim=1)
    np.testing.assert_array_equal(r.numpy(), np.take_along_axis(a, order, 1))
    b = rng.standard_normal((4, 1, 3))
    i = rng.integers(0, 3, size=(1, 2, 3))
    r = sdk.tensor(b).take_along_dim(idx(i), -1)  # broadcast outside dim
    np.testing.assert_array_equal(r.numpy(), np.take_along_axis(b, i, -1))
    flat = sdk.take_along_dim(sdk.tensor(a), idx([0, 14, 7]))
    np.testing.assert_array_equal(flat.numpy(), a.reshape(-1)[[0, 14, 7]])
    with pytest.raises(ValueError, match="same number of dimensions"):
        sdk.take_along_dim(sdk.tensor(a), idx([0]), 1)


def test_scatter_add_and_index_add_accumulate(rng, close):
    z = sdk.zeros(3, 5)
    src = rng.standard_normal((2, 5)).astype(np.float32)
    sidx = np.array([[0, 1, 2, 0, 0], [0, 2, 2, 1, 0]])
    ref = np.zeros((3, 5), np.float32)
    for i in range(2):
        for j in range(5):
            ref[sidx[i, j], j] += src[i, j]
    v = z._version
    assert z.scatter_add_(0, sdk.tensor(sidx), sdk.tensor(src)) is z
    assert z._version > v
    close(z, ref, rtol=1e-6)
    close(sdk.scatter_add(sdk.zeros(3, 5), 0, sdk.tensor(sidx), sdk.tensor(src)), ref, rtol=1e-6)
    y = sdk.zeros(4, 5)
    y.index_add_(0, sdk.tensor([0, 0, 2]), sdk.ones(3, 5), alpha=2)
    ref = np.zeros((4, 5), np.float32)
    np.add.at(ref, [0, 0, 2], 2.0)
    close(y, ref)
    close(
        sdk.index_add(sdk.zeros(4, 5), 1, sdk.tensor([1]), sdk.ones(4, 1)),
        np.eye(5, dtype=np.float32)[1][None].repeat(4, 0),
    )
