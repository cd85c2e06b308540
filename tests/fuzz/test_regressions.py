"""Fixed cases the fuzz tests found, kept as plain deterministic tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk


@pytest.mark.parametrize("dtype", [sdk.float16, sdk.bfloat16, sdk.float32, sdk.float64, sdk.int64])
@pytest.mark.parametrize(
    "bounds", [(math.nan, None), (None, math.nan), (0, math.nan), (math.nan, 1)]
)
def test_clamp_nan_bound_gives_nan(dtype, bounds):
    """A NaN bound propagates (as maximum/minimum and tensor bounds do), not ignored."""
    x = sdk.tensor([-2, 0, 3]).to(dtype)
    r = sdk.clamp(x, *bounds)
    assert r.dtype == (dtype if dtype.is_floating_point else sdk.float32)
    assert np.isnan(r.float().numpy()).all()
    lo, hi = (sdk.tensor(b) if b is not None else None for b in bounds)
    assert np.isnan(sdk.clamp(x.float(), lo, hi).numpy()).all()  # the tensor-bound path agrees
    if dtype.is_floating_point:
        x.clamp_(*bounds)
        assert np.isnan(x.float().numpy()).all()


def test_split_and_chunk_of_an_empty_dim():
    """torch: split(n) of an empty dim gives one empty piece, chunk(k) gives k of them."""
    x = sdk.zeros(0, 3)
    assert [tuple(p.shape) for p in x.split(2)] == [(0, 3)]
    assert [tuple(p.shape) for p in x.chunk(3)] == [(0, 3)] * 3
    assert [tuple(p.shape) for p in sdk.zeros(2, 0).chunk(2, 1)] == [(2, 0)] * 2
    assert [tuple(p.shape) for p in sdk.zeros(5).chunk(3)] == [(2,), (2,), (1,)]


def test_flip_and_movedim_of_a_0dim_tensor():
    x = sdk.tensor(2.5)
    for r in (x.flip(0), x.flip([-1]), sdk.movedim(x, 0, 0), x.movedim(-1, 0)):
        assert r.shape == () and r.item() == 2.5
    with pytest.raises(IndexError, match="out of range"):
        x.flip(1)
    with pytest.raises(IndexError, match="out of range"):
        x.movedim(0, 1)


def test_movedim_refuses_repeated_dims():
    x = sdk.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="repeated dim in `destination`"):
        sdk.movedim(x, (0, 1), (2, 2))
    with pytest.raises(RuntimeError, match="repeated dim in `source`"):
        sdk.movedim(x, (0, 0), (1, 2))
    assert sdk.movedim(x, (0, 1), (2, 0)).shape == (3, 4, 2)


def test_squeeze_of_an_empty_dim_list_squeezes_nothing():
    x = sdk.zeros(1, 2, 1)
    assert x.squeeze(()).shape == (1, 2, 1)
    assert sdk.squeeze(x, []).shape == (1, 2, 1)
    assert x.squeeze().shape == (2,)
    assert x.squeeze((0, 2)).shape == (2,)


def test_bool_scalar_indices_broadcast_like_advanced_indices():
    """x[True, True] is (1, ...) as in numpy and torch (each bool is a [0]/[] index on a
    new dim, broadcast with the other advanced indices), not (1, 1, ...)."""
    a = np.arange(6).reshape(2, 3)
    x = sdk.tensor(a)
    for idx in [True, False, (True, True), (False, True), (True, [0, 1]), (0, True), (None, False)]:
        np.testing.assert_array_equal(x[idx].numpy(), a[idx], err_msg=str(idx))
    assert sdk.tensor(5)[True, True].shape == (1,)
    x[True, :, 1] = 7
    a[True, :, 1] = 7
    np.testing.assert_array_equal(x.numpy(), a)


@pytest.mark.parametrize("step", [2**62, 2**63 - 1, 2**64, 10**30])
def test_slice_with_a_huge_step_takes_one_element(step):
    """(end - start + step - 1) / step overflowed int64 into a negative size."""
    a = np.arange(6).reshape(2, 3)
    t = sdk.tensor(a)
    np.testing.assert_array_equal(t[::step].numpy(), a[::step])
    np.testing.assert_array_equal(t[:, 1::step].numpy(), a[:, 1::step])
    np.testing.assert_array_equal(t[5::step].numpy(), a[5::step])
    assert sdk.arange(3)[::5].stride() == (5,)  # ordinary steps keep stride * step


def test_cat_whose_total_size_overflows_int64_says_so():
    big = sdk.zeros(1).expand(2**62)
    with pytest.raises(ValueError, match="overflows int64"):
        sdk.cat([big, big])


@pytest.mark.parametrize("size", [{}, b"x", "ab", True, {2: 3}])
def test_size_arguments_refuse_non_sequences(size):
    """full({}, v) was a 0-dim tensor and full(b"x", v) one of 120 elements."""
    with pytest.raises(TypeError, match="sequence of ints"):
        sdk.full(size, 1.0)
    with pytest.raises(TypeError, match="sequence of ints"):
        sdk.empty_strided(size, (1,))
    with pytest.raises(TypeError, match="sequence of ints"):
        sdk.broadcast_to(sdk.ones(1), size)
    assert sdk.full(3, 1.0).shape == (3,) and sdk.full([2, 1], 1.0).shape == (2, 1)


def test_full_with_out_checks_the_size():
    with pytest.raises(ValueError, match=r"out has shape \[5\]"):
        sdk.full((2, 3), 1.0, out=sdk.empty(5))
    out = sdk.empty(2, 3)
    assert sdk.full((2, 3), 4.0, out=out) is out and out.sum().item() == 24


@pytest.mark.parametrize("shape", [(), (2,), (2, 3)])
def test_flip_refuses_dims_none(shape):
    """flip(None) was a no-op copy for a 0-dim tensor and "NoneType is not iterable" else."""
    with pytest.raises(TypeError, match="argument 'dims' must be a tuple of ints"):
        sdk.zeros(shape).flip(None)


@pytest.mark.parametrize(
    "stride, offset, match",
    [(2**62, 0, r"strides \[4611686018427387904\] .*overflow"), (1, 2**64 - 8, "byte_offset")],
)
def test_dlpack_import_refuses_extents_past_the_address_space(stride, offset, match):
    """A capsule whose strides (or byte_offset) overflow was imported, its size wrapped."""
    import gc

    from tests.fuzz import dlpack_ctypes as dl

    p = dl.Producer(np.zeros(4), byte_offset=offset)
    p.strides[0] = stride
    cap = p.capsule()
    with pytest.raises(ValueError, match=match):
        sdk.from_dlpack(cap)
    del cap
    gc.collect()
    assert p.calls == 1  # the refused capsule's producer still frees it, once
    p.release()
