"""flip, roll, tril/triu, diagonal, diag, diag_embed, repeat_interleave, unfold and resize_
against numpy: dtypes, negative dims, strided inputs, empty and 0-dim tensors, views that
share storage, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def values(rng, shape, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.integers(0, 100, size=shape).astype(dtype)


def _shares(v, t):
    lo, hi = t.data_ptr(), t.data_ptr() + t.nbytes
    return lo <= v.data_ptr() < hi


# ------------------------------------------------------------------------------ flip, roll


@pytest.mark.parametrize("dtype", DTYPES)
def test_flip(rng, dtype):
    a = values(rng, (3, 4, 5), dtype)
    t = sdk.tensor(a)
    for dims in [(0,), (-1,), (0, 2), (2, 0, 1), ()]:
        r = sdk.flip(t, dims)
        np.testing.assert_array_equal(r.numpy(), np.flip(a, dims) if dims else a)
        assert r.is_contiguous() and not _shares(r, t)
    np.testing.assert_array_equal(t.flip(1, 2).numpy(), np.flip(a, (1, 2)))
    np.testing.assert_array_equal(t.flip(dims=[1]).numpy(), np.flip(a, 1))
    np.testing.assert_array_equal(sdk.fliplr(t).numpy(), np.fliplr(a))
    np.testing.assert_array_equal(sdk.flipud(t).numpy(), np.flipud(a))


def test_flip_strided_empty_and_errors(rng):
    a = rng.standard_normal((6, 8))
    v = sdk.tensor(a)[::2, 1::3].t()
    np.testing.assert_array_equal(v.flip(0).numpy(), np.flip(a[::2, 1::3].T, 0))
    assert tuple(sdk.zeros(0, 3).flip(0, 1).shape) == (0, 3)
    assert list(reversed(sdk.tensor([1, 2, 3]))) == [3, 2, 1]
    with pytest.raises(ValueError, match=r"flip\(\): dim -1 appears multiple times"):
        sdk.zeros(2, 3).flip(1, -1)
    with pytest.raises(IndexError, match="out of range"):
        sdk.zeros(2, 3).flip(2)


@pytest.mark.parametrize("dtype", ["bool", "int16", "float16", "float32", "int64"])
def test_roll(rng, dtype):
    a = values(rng, (3, 4, 5), dtype)
    t = sdk.tensor(a)
    cases = [
        (2, None), (-7, None), (1, 0), (-1, -1), (13, 2), ((1, 2), (0, 2)), ((5, -3, 1), (2, 1, 0)),
        ((1, 1), (1, 1)),  # a dim named twice rolls by the sum
    ]  # fmt: skip
    for shifts, dims in cases:
        np.testing.assert_array_equal(
            sdk.roll(t, shifts, dims).numpy(), np.roll(a, shifts, dims), err_msg=f"{shifts} {dims}"
        )
    v = t.transpose(0, 2)
    np.testing.assert_array_equal(v.roll(2, 1).numpy(), np.roll(a.transpose(2, 1, 0), 2, 1))
    np.testing.assert_array_equal(v.roll(3).numpy(), np.roll(a.transpose(2, 1, 0), 3))


def test_roll_many_dims_empty_and_errors(rng):
    a = rng.standard_normal((2,) * 8)
    shifts = tuple(range(1, 9))
    np.testing.assert_array_equal(
        sdk.tensor(a).roll(shifts, tuple(range(8))).numpy(), np.roll(a, shifts, tuple(range(8)))
    )
    assert tuple(sdk.zeros(0, 3).roll(1, 0).shape) == (0, 3)
    assert sdk.tensor(4.0).roll(3).item() == 4.0
    with pytest.raises(ValueError, match=r"roll\(\): shifts and dims must have the same length"):
        sdk.zeros(2, 3).roll((1, 2), 0)
    with pytest.raises(ValueError, match="one element"):
        sdk.zeros(2, 3).roll((1, 2))


# ------------------------------------------------------------------------------ tril, triu


@pytest.mark.parametrize("dtype", DTYPES)
def test_tril_triu(rng, dtype):
    a = values(rng, (2, 4, 5), dtype)
    t = sdk.tensor(a)
    for k in (-5, -1, 0, 2, 7):
        np.testing.assert_array_equal(sdk.tril(t, k).numpy(), np.tril(a, k))
        np.testing.assert_array_equal(t.triu(k).numpy(), np.triu(a, k))
    np.testing.assert_array_equal(t.tril(diagonal=1).numpy(), np.tril(a, 1))


def test_tril_triu_in_place_strided_out_and_errors(rng):
    a = rng.standard_normal((5, 3))
    t = sdk.tensor(a.T.copy()).t()  # (5, 3), transposed layout
    assert t.tril_(-1) is t
    np.testing.assert_array_equal(t.numpy(), np.tril(a, -1))
    u = sdk.tensor(a)
    u.triu_(1)
    np.testing.assert_array_equal(u.numpy(), np.triu(a, 1))
    out = sdk.empty(5, 3, dtype=sdk.float64)
    assert sdk.triu(sdk.tensor(a), out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.triu(a))
    assert tuple(sdk.zeros(0, 3).tril().shape) == (0, 3)
    with pytest.raises(ValueError, match=r"tril\(\): expected a tensor with at least 2 dims"):
        sdk.zeros(3).tril()


# ------------------------------------------------------------------------------ diagonal, diag


def test_diagonal_is_a_view(rng):
    a = rng.standard_normal((3, 4, 5))
    t = sdk.tensor(a)
    for offset, d1, d2 in [(0, 0, 1), (1, 0, 1), (-2, 0, 1), (2, -1, 0), (0, 1, 2), (9, 0, 2)]:
        v = t.diagonal(offset, d1, d2)
        np.testing.assert_array_equal(v.numpy(), np.diagonal(a, offset, d1, d2))
        if v.numel():
            assert _shares(v, t)
    v = sdk.diagonal(t, dim1=1, dim2=2)
    v.fill_(7.0)
    assert (t.numpy()[:, range(4), range(4)] == 7.0).all()  # written through the view
    with pytest.raises(ValueError, match="cannot be identical"):
        t.diagonal(0, 1, -2)
    with pytest.raises(ValueError, match="at least 2 dims"):
        sdk.zeros(3).diagonal()


def test_diag_diag_embed_diagflat(rng):
    v = rng.standard_normal(4)
    for k in (0, 2, -1):
        np.testing.assert_array_equal(sdk.diag(sdk.tensor(v), k).numpy(), np.diag(v, k))
    m = rng.standard_normal((4, 6))
    d = sdk.tensor(m).diag(1)
    np.testing.assert_array_equal(d.numpy(), np.diag(m, 1))
    assert not _shares(d, sdk.tensor(m))
    b = rng.standard_normal((2, 3))
    e = sdk.diag_embed(sdk.tensor(b))
    ref = np.zeros((2, 3, 3))
    ref[:, range(3), range(3)] = b
    np.testing.assert_array_equal(e.numpy(), ref)
    e = sdk.tensor(b).diag_embed(offset=-1, dim1=0, dim2=2)
    assert tuple(e.shape) == (4, 2, 4)
    np.testing.assert_array_equal(e.diagonal(-1, 0, 2).numpy(), b)
    assert e.abs().sum().item() == pytest.approx(np.abs(b).sum())
    np.testing.assert_array_equal(sdk.diagflat(sdk.tensor(m)).numpy(), np.diagflat(m))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        sdk.diag(sdk.zeros(2, 2, 2))


# ------------------------------------------------------------------------------ repeat_interleave


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float64"])
def test_repeat_interleave(rng, dtype):
    a = values(rng, (3, 4), dtype)
    t = sdk.tensor(a)
    np.testing.assert_array_equal(t.repeat_interleave(2).numpy(), np.repeat(a, 2))
    np.testing.assert_array_equal(t.repeat_interleave(3, dim=-1).numpy(), np.repeat(a, 3, -1))
    reps = np.array([1, 0, 3])
    r = sdk.repeat_interleave(t, sdk.tensor(reps), dim=0)
    np.testing.assert_array_equal(r.numpy(), np.repeat(a, reps, 0))
    r = t.t().repeat_interleave(sdk.tensor(reps, dtype=sdk.int32), 1)  # strided input
    np.testing.assert_array_equal(r.numpy(), np.repeat(a.T, reps, 1))
    r = t.repeat_interleave(sdk.tensor([2]), dim=1)  # one count for all
    np.testing.assert_array_equal(r.numpy(), np.repeat(a, 2, 1))
    flat = t.repeat_interleave(sdk.tensor(np.arange(12) % 3))
    np.testing.assert_array_equal(flat.numpy(), np.repeat(a.reshape(-1), np.arange(12) % 3))


def test_repeat_interleave_index_form_and_errors():
    r = sdk.repeat_interleave(sdk.tensor([2, 0, 1, 3]))
    assert r.tolist() == [0, 0, 2, 3, 3, 3] and r.dtype == sdk.int64
    assert sdk.tensor(5).repeat_interleave(3).tolist() == [5, 5, 5]
    assert tuple(sdk.zeros(0, 2).repeat_interleave(2, dim=0).shape) == (0, 2)
    with pytest.raises(ValueError, match="repeats can not be negative"):
        sdk.zeros(3).repeat_interleave(sdk.tensor([1, -1, 1]))
    with pytest.raises(ValueError, match="repeats can not be negative"):
        sdk.zeros(3).repeat_interleave(-2)
    with pytest.raises(
        ValueError, match=r"repeat_interleave\(\): repeats must have one element or"
    ):
        sdk.zeros(3).repeat_interleave(sdk.tensor([1, 2]))
    with pytest.raises(TypeError, match="int64 or int32"):
        sdk.zeros(3).repeat_interleave(sdk.tensor([1.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match="output_size"):
        sdk.zeros(3).repeat_interleave(2, output_size=5)


# ------------------------------------------------------------------------------ unfold


def test_unfold_is_a_view_of_windows(rng):
    a = rng.standard_normal((3, 10))
    t = sdk.tensor(a)
    for size, step in [(3, 1), (4, 3), (10, 1), (1, 4), (0, 2)]:
        w = t.unfold(1, size, step)
        n = (10 - size) // step + 1
        ref = np.stack([a[:, i * step : i * step + size] for i in range(n)], axis=1)
        np.testing.assert_array_equal(w.numpy(), ref)
        if w.numel():
            assert _shares(w, t)
    w = t.t().unfold(0, 5, 5)  # strided input, dim 0
    np.testing.assert_array_equal(
        w.numpy(), np.stack([a.T[:5], a.T[5:]], axis=0).transpose(0, 2, 1)
    )
    assert tuple(sdk.tensor(2.0).unfold(0, 1, 1).shape) == (1,)
    with pytest.raises(ValueError, match=r"unfold\(\): size 11"):
        t.unfold(1, 11, 1)
    with pytest.raises(ValueError, match="step must be positive"):
        t.unfold(1, 2, 0)


# ------------------------------------------------------------------------------ resize_


def test_resize_shrinks_keeps_and_grows(rng):
    a = rng.standard_normal(6)
    t = sdk.tensor(a)
    ptr = t.data_ptr()
    assert t.resize_(2, 2) is t
    assert tuple(t.shape) == (2, 2) and t.data_ptr() == ptr
    np.testing.assert_array_equal(t.numpy().reshape(-1), a[:4])
    view = t.view(-1)
    t.resize_((4, 5))  # grows: the old values come first
    assert tuple(t.shape) == (4, 5) and t.is_contiguous()
    np.testing.assert_array_equal(t.numpy().reshape(-1)[:6], a)
    assert view.numpy().tolist() == a[:4].tolist()  # other views keep the old memory
    t.resize_([0])
    assert tuple(t.shape) == (0,)
    s = sdk.tensor(a.reshape(2, 3)).t()
    s.resize_(3, 2)
    assert s.is_contiguous() and tuple(s.shape) == (3, 2)


def test_resize_grow_keeps_exported_memory_valid_and_refuses_bad_input():
    t = sdk.arange(4.0)
    arr = t.numpy()  # shares the old memory
    t.resize_(1000)
    t.fill_(1.0)
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0]  # still readable, no longer shared
    for _ in range(50):  # a chain of growths
        t.resize_(t.numel() + 100)
    assert t.numel() == 6000
    with pytest.raises(ValueError, match="negative"):
        sdk.zeros(3).resize_(-1)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        sdk.zeros(3, requires_grad=True).resize_(4)
    b = np.zeros(3)
    with pytest.raises(RuntimeError, match=r"resize_\(\): cannot grow a tensor over memory"):
        sdk.from_numpy(b).resize_(10)
    s = sdk.from_numpy(b)
    s.resize_(2)  # shrinking wrapped memory is fine
    assert tuple(s.shape) == (2,)


@pytest.mark.parametrize(
    "call",
    ["transpose_(0, 2)", "swapdims_(1, 0)", "squeeze_()", "squeeze_(1)", "unsqueeze_(-1)",
     "as_strided_((2, 3), (1, 2), 1)", "as_strided_((4,), (3,))"],
)  # fmt: skip
def test_in_place_geometry_matches_torch_and_every_holder_sees_it(call):
    """transpose_, squeeze_, unsqueeze_, as_strided_ change the tensor itself to any strides
    (the C ABI's sdk_as_strided_): sizes, strides, offset and values as torch gives them."""
    base = np.arange(12.0).reshape(2, 1, 6)
    if call.startswith("transpose_") or call.startswith("swapdims_"):
        base = base.reshape(2, 3, 2)
    t = sdk.from_numpy(base.copy())
    alias = t
    assert eval(f"t.{call}") is t
    got = (tuple(alias.shape), alias.stride(), alias.storage_offset(), alias.tolist())
    torch = pytest.importorskip("torch")
    r = torch.from_numpy(base.copy())
    eval(f"r.{call}")
    assert got == (tuple(r.shape), r.stride(), r.storage_offset(), r.tolist())


def test_in_place_geometry_refusals_change_nothing():
    t = sdk.arange(6.0)
    with pytest.raises(ValueError, match="reach element 6 but the storage holds 6 elements"):
        t.as_strided_((2, 2), (2, 1), 3)
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        t.as_strided_((2, 2), (1,))
    w = sdk.ones(2, 3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"t_\(\): changing the geometry of a tensor that requires"
    ):
        w.t_()
    assert tuple(t.shape) == (6,) and t.stride() == (1,) and tuple(w.shape) == (2, 3)
