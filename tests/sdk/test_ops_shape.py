"""Views, joins and index ops against numpy (views checked to share storage)."""

from __future__ import annotations

import numpy as np
import pytest

import sdk


@pytest.fixture
def pair(rng):
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    return a, sdk.tensor(a)


def _shares(v, t):
    lo, hi = t.data_ptr(), t.data_ptr() + t.nbytes
    return lo <= v.data_ptr() < hi


def test_views_share_storage(pair, close):
    a, t = pair
    cases = [
        (t.view(6, 4), a.reshape(6, 4)),
        (t.view(-1), a.reshape(-1)),
        (t.reshape(4, 6), a.reshape(4, 6)),
        (t.transpose(0, 2), a.transpose(2, 1, 0)),
        (t.permute(1, 2, 0), a.transpose(1, 2, 0)),
        (t.permute((2, 0, 1)), a.transpose(2, 0, 1)),
        (t.narrow(2, 1, 2), a[:, :, 1:3]),
        (t.select(1, -1), a[:, -1]),
        (t.unsqueeze(1), a[:, None]),
        (t.unsqueeze(-1), a[..., None]),
        (t[:, :1].squeeze(), a[:, 0]),
        (t[:, :1].squeeze(1), a[:, 0]),
        (t.flatten(1), a.reshape(2, 12)),
        (t[0].t(), a[0].T),
        (t.T, a.T),
        (t.mT, np.swapaxes(a, -1, -2)),
        (t.movedim(0, -1), np.moveaxis(a, 0, -1)),
        (t[:, :, :1].expand(2, 3, 5), np.broadcast_to(a[:, :, :1], (2, 3, 5))),
        (t.view_as(sdk.empty(4, 6)), a.reshape(4, 6)),
    ]
    for v, ref in cases:
        close(v, ref)
        assert _shares(v, t)
    assert t.contiguous() is t
    c = t.transpose(0, 1).contiguous()
    assert c.is_contiguous()
    close(c, a.transpose(1, 0, 2))
    with pytest.raises((ValueError, RuntimeError), match="reshape"):
        t.transpose(0, 1).view(-1)  # strides forbid a view
    close(t.transpose(0, 1).reshape(-1), a.transpose(1, 0, 2).reshape(-1))


def test_split_chunk_unbind(pair, close):
    a, t = pair
    parts = t.split(3, 2)
    assert len(parts) == 2
    close(parts[0], a[:, :, :3])
    close(parts[1], a[:, :, 3:])
    parts = sdk.split(t, [1, 2], 1)
    close(parts[1], a[:, 1:])
    chunks = t.chunk(3, 1)
    assert len(chunks) == 3
    for c, r in zip(chunks, np.array_split(a, 3, 1)):
        close(c, r)
    close(sdk.chunk(t, 3, -1)[1], a[:, :, 2:4])
    rows = t.unbind(1)
    assert len(rows) == 3
    close(rows[2], a[:, 2])
    with pytest.raises(RuntimeError):
        sdk.split(t, [1, 1], 1)


def test_cat_stack(rng, close):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    close(sdk.cat([ta, tb]), np.concatenate([a, b]))
    close(sdk.cat((ta.t(), tb.t()), dim=1), np.concatenate([a.T, b.T], 1))
    close(sdk.concat([ta, ta], -1), np.concatenate([a, a], -1))
    close(sdk.stack([ta, ta * 2], 1), np.stack([a, a * 2], 1))
    out = sdk.empty(6, 3)
    assert sdk.cat([ta, tb], out=out) is out
    close(out, np.concatenate([a, b]))
    close(
        sdk.cat([ta, sdk.tensor(b.astype(np.float64))]), np.concatenate([a, b]).astype(np.float64)
    )
    with pytest.raises(TypeError):
        sdk.cat(ta)
    with pytest.raises((ValueError, RuntimeError)):
        sdk.cat([ta, sdk.zeros(2, 4)], 0)


def test_gather_index_select_index_put(rng, close):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    t = sdk.tensor(a)
    idx = np.array([[0, 1, 3, 3, 2], [2, 2, 0, 1, 0]])
    close(t.gather(0, sdk.tensor(idx)), np.take_along_axis(a, idx, 0))
    idx1 = np.array([[4, 0], [1, 1], [0, 3], [2, 2]])
    close(sdk.gather(t, 1, sdk.tensor(idx1)), np.take_along_axis(a, idx1, 1))
    close(t.index_select(1, sdk.tensor([4, 0, 0])), a[:, [4, 0, 0]])
    close(sdk.index_select(t, 0, sdk.tensor([3, 1], dtype=sdk.int32)), a[[3, 1]])
    w = sdk.zeros(3)
    w.index_put_((sdk.tensor([0, 0, 2]),), sdk.tensor([1.0, 2.0, 3.0]), accumulate=True)
    close(w, np.array([3.0, 0, 3.0], np.float32))


def test_nonzero(rng, close):
    a = rng.integers(0, 2, size=(3, 4))
    t = sdk.tensor(a)
    close(t.nonzero(), np.argwhere(a))
    for got, ref in zip(sdk.nonzero(t, as_tuple=True), np.nonzero(a)):
        close(got, ref)
    close(sdk.zeros(0).nonzero(), np.zeros((0, 1), np.int64))


def test_view_errors(pair):
    _, t = pair
    with pytest.raises((ValueError, RuntimeError)):
        t.view(5, 5)
    with pytest.raises((ValueError, RuntimeError)):
        t.permute(0, 1)
    with pytest.raises(IndexError):
        t.transpose(0, 3)
    with pytest.raises(IndexError):
        t.select(1, 3)
    with pytest.raises((ValueError, RuntimeError)):
        t.expand(5, 3, 4)
    with pytest.raises(RuntimeError):
        t.t()


def test_creation(close):
    close(sdk.zeros(2, 3), np.zeros((2, 3), np.float32))
    close(sdk.ones((2, 3), dtype=sdk.int32), np.ones((2, 3), np.int32))
    close(sdk.full((2,), 7), np.full(2, 7, np.int64))
    close(sdk.full((2,), 7.0), np.full(2, 7, np.float32))
    close(sdk.full((2,), True), np.full(2, True))
    close(sdk.arange(5), np.arange(5))
    close(sdk.arange(1, 2, 0.25), np.arange(1, 2, 0.25, dtype=np.float32))
    close(sdk.arange(10, 0, -3), np.arange(10, 0, -3))
    close(sdk.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    close(sdk.eye(3), np.eye(3, dtype=np.float32))
    close(sdk.eye(2, 4, dtype=sdk.float64), np.eye(2, 4))
    t = sdk.ones(2, 3, dtype=sdk.float64)
    close(sdk.zeros_like(t), np.zeros((2, 3)))
    close(sdk.ones_like(t, dtype=sdk.int64), np.ones((2, 3), np.int64))
    close(sdk.full_like(t, 2.5), np.full((2, 3), 2.5))
    assert sdk.empty_like(t).shape == (2, 3)
    assert sdk.empty(0).shape == (0,) and sdk.empty(()).shape == ()
    assert sdk.tensor([[True, False]]).dtype == sdk.bool
    assert sdk.tensor([1, 2.5]).dtype == sdk.float32
    assert sdk.tensor([]).shape == (0,)
    close(sdk.tensor([[1, 2], [3, 4]], dtype=sdk.float64), np.array([[1.0, 2], [3, 4]]))


def test_random_and_generators():
    sdk.manual_seed(0)
    a = sdk.rand(1000)
    sdk.manual_seed(0)
    b = sdk.rand(1000)
    assert sdk.equal(a, b) if hasattr(sdk, "equal") else bool((a == b).all())
    an = a.numpy()
    assert 0 <= an.min() and an.max() < 1 and abs(an.mean() - 0.5) < 0.05
    g = sdk.Generator(42)
    x = sdk.randn(2000, generator=g, dtype=sdk.float64).numpy()
    assert abs(x.mean()) < 0.1 and abs(x.std() - 1) < 0.1
    g2 = sdk.Generator().manual_seed(42)
    assert (sdk.randn(2000, generator=g2, dtype=sdk.float64).numpy() == x).all()
    r = sdk.randint(3, 7, (500,)).numpy()
    assert r.min() >= 3 and r.max() < 7 and r.dtype == np.int64
    r2 = sdk.randint(5, (10,))
    assert r2.dtype == sdk.int64 and int(r2.max()) < 5
    p = sdk.randperm(10, generator=g).numpy()
    assert sorted(p) == list(range(10))
    assert sdk.rand_like(sdk.zeros(2, 2)).shape == (2, 2) and sdk.randn_like(
        sdk.zeros(3)
    ).shape == (3,)
    with pytest.raises(TypeError):
        sdk.rand(3, generator="nope")


# ------------------------------------------------------------------ transposed copies
# core/src/elementwise_copy.cpp copies a transposed plane in tiles and register blocks;
# these shapes cover whole blocks, tile edges (not multiples of 4 or 32), thin planes,
# outer dims, every element size (1, 2, 4, 8 bytes) and both threads.

_TRANSPOSE_DTYPES = ["bool", "uint8", "int16", "float16", "float32", "int32", "float64", "int64"]


def _bits(shape, dtype: str, rng) -> np.ndarray:
    if dtype == "bool":
        return rng.random(shape) < 0.5
    # Distinct bit patterns per element, so a misplaced element cannot go unseen.
    n = int(np.prod(shape))
    return (np.arange(n) * 7919 % 65521).astype(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", _TRANSPOSE_DTYPES)
@pytest.mark.parametrize("shape", [(64, 96), (37, 53), (8, 1000), (1000, 9), (33, 4), (3, 5)])
def test_contiguous_of_a_transpose_matches_numpy(dtype: str, shape, rng) -> None:
    a = _bits(shape, dtype, rng)
    t = sdk.from_numpy(a).t()
    got = t.contiguous()
    assert got.is_contiguous() and got.stride() == (shape[0], 1)
    np.testing.assert_array_equal(got.numpy(), np.ascontiguousarray(a.T))


@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64"])
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((5, 40, 36), (0, 2, 1)),
        ((40, 3, 36), (2, 1, 0)),
        ((6, 7, 33, 34), (0, 1, 3, 2)),
        ((12, 34, 35), (1, 2, 0)),
        ((34, 35, 4), (1, 0, 2)),
    ],
)
def test_contiguous_of_a_permute_matches_numpy(dtype: str, shape, perm, rng) -> None:
    a = _bits(shape, dtype, rng)
    got = sdk.from_numpy(a).permute(*perm).contiguous()
    np.testing.assert_array_equal(got.numpy(), np.ascontiguousarray(a.transpose(perm)))


@pytest.mark.parametrize("threads", [1, 2])
def test_large_transposed_copy_on_each_thread_count(threads: int) -> None:
    a = _bits((700, 1300), "float32", None)
    before = sdk.get_num_threads()
    sdk.set_num_threads(threads)
    try:
        got = sdk.from_numpy(a).t().contiguous()
        back = sdk.empty(700, 1300)
        back.t().copy_(got)  # a contiguous source into a transposed destination
    finally:
        sdk.set_num_threads(before)
    np.testing.assert_array_equal(got.numpy(), a.T)
    np.testing.assert_array_equal(back.numpy(), a)


def test_transposed_copy_into_a_strided_destination_and_from_a_broadcast() -> None:
    a = _bits((40, 48), "float64", None)
    dst = sdk.zeros(48, 80)
    dst[:, ::2].copy_(sdk.from_numpy(a).t())  # destination rows with a gap
    expect = np.zeros((48, 80))
    expect[:, ::2] = a.T
    np.testing.assert_array_equal(dst.numpy(), expect)
    col = sdk.from_numpy(np.arange(48.0)).reshape(48, 1)
    wide = sdk.zeros(48, 40)
    wide.copy_(col)  # a stride-0 source dim
    np.testing.assert_array_equal(wide.numpy(), np.broadcast_to(np.arange(48.0)[:, None], (48, 40)))


def test_transposed_copy_over_overlapping_memory_reads_first() -> None:
    a = _bits((64, 64), "float32", None)
    t = sdk.from_numpy(a.copy())
    t.copy_(t.t())  # in-place transpose: the source is read before it is overwritten
    np.testing.assert_array_equal(t.numpy(), a.T)


# ------------------------------------------------------------------ memory formats
# *_like and clone keep a dense source's layout (torch's preserve_format, the default).

_LIKE = ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"]


def _like(name: str, t, **kw):
    return getattr(sdk, name)(t, **kw)


@pytest.mark.parametrize("name", _LIKE)
def test_like_functions_keep_a_transposed_layout(name: str) -> None:
    t = sdk.arange(12.0).reshape(3, 4).t()
    assert _like(name, t).stride() == (1, 4)
    assert _like(name, t, memory_format=sdk.preserve_format).stride() == (1, 4)
    assert _like(name, t, memory_format=sdk.contiguous_format).stride() == (3, 1)
    assert _like(name, t, dtype=sdk.float64).dtype == sdk.float64


def test_like_values_and_clone_keep_the_layout() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    t = sdk.from_numpy(a).permute(2, 0, 1)
    np.testing.assert_array_equal(sdk.zeros_like(t).numpy(), np.zeros((4, 2, 3)))
    np.testing.assert_array_equal(sdk.full_like(t, 7).numpy(), np.full((4, 2, 3), 7.0))
    assert sdk.full_like(t, 7).stride() == (1, 12, 4)
    c = t.clone()
    assert c.stride() == t.stride() and c.data_ptr() != t.data_ptr()
    np.testing.assert_array_equal(c.numpy(), a.transpose(2, 0, 1))
    c2 = sdk.clone(t, memory_format=sdk.contiguous_format)
    assert c2.is_contiguous()
    np.testing.assert_array_equal(c2.numpy(), a.transpose(2, 0, 1))


def test_like_of_a_view_with_gaps_is_dense_in_its_order() -> None:
    t = sdk.arange(24.0).reshape(4, 6).t()[:, ::2]  # shape (6, 2), strides (1, 12)
    assert sdk.empty_like(t).stride() == (1, 6)
    c = t.clone()
    assert c.stride() == (1, 6)
    np.testing.assert_array_equal(c.numpy(), np.arange(24.0).reshape(4, 6).T[:, ::2])
    e = sdk.arange(3.0).reshape(3, 1).expand(3, 4)  # overlapping: row-major
    assert sdk.empty_like(e).stride() == (4, 1)


def test_clone_of_a_transpose_keeps_autograd() -> None:
    x = sdk.randn(3, 4, requires_grad=True)
    y = x.t().clone()
    assert y.stride() == (1, 4)
    (y * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 4), 2.0, np.float32))


def test_bad_memory_formats_raise() -> None:
    t = sdk.zeros(2, 3)
    with pytest.raises(TypeError, match="memory_format"):
        sdk.empty_like(t, memory_format="channels_last")
    with pytest.raises(TypeError, match="memory_format"):
        t.clone(memory_format=1)
    with pytest.raises(TypeError, match="contiguous_format"):
        t.contiguous(memory_format=sdk.preserve_format)
    assert repr(sdk.preserve_format) == "sdk.preserve_format"
    import pickle

    assert pickle.loads(pickle.dumps(sdk.contiguous_format)) is sdk.contiguous_format
