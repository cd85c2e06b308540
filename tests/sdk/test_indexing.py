"""Indexing and assignment against numpy: basic, advanced, masks, combinations."""

from __future__ import annotations

import numpy as np
import pytest

import sdk


@pytest.fixture
def pair(rng):
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    return a, sdk.tensor(a)


BASIC = [
    1,
    -1,
    (0, 2),
    (slice(None), 3),
    slice(1, 3),
    (slice(None, None, 2), slice(1, None, 3)),
    (Ellipsis, 2),
    (1, Ellipsis, slice(0, 4, 2)),
    (None, 1),
    (slice(None), None, 2),
    (Ellipsis, None),
    (slice(10, 20),),
    (slice(-3, -1), -2, slice(None, None, 4)),
]


@pytest.mark.parametrize("idx", BASIC, ids=[str(i) for i in range(len(BASIC))])
def test_basic_indexing_is_a_view(pair, idx, close):
    a, t = pair
    r = t[idx]
    close(r, a[idx])
    if r.numel():
        # views share the storage: writing through the view changes the base
        r.fill_(7)
        a2 = a.copy()
        a2[idx] = 7
        close(t, a2)


ADVANCED = [
    [0, 2, 3],
    ([0, 1], [1, 2]),
    (slice(None), [4, 0, 1]),
    (slice(None), [0, 1], [2, 3]),
    (slice(1, 3), [0, 2], slice(None)),
    ([0, 3], slice(None), [1, 5]),  # separated advanced indices: broadcast dims go first
    (Ellipsis, [1, -1]),
    ([[0, 1], [2, 3]],),
    (1, [0, 4], slice(None, None, 2)),
    ([-1, -4],),
]


@pytest.mark.parametrize("idx", ADVANCED, ids=[str(i) for i in range(len(ADVANCED))])
def test_advanced_indexing(pair, idx, close):
    a, t = pair
    close(t[idx], a[idx])
    tidx = tuple(
        sdk.tensor(x) if isinstance(x, list) else x
        for x in (idx if isinstance(idx, tuple) else (idx,))
    )
    close(t[tidx], a[idx])


def test_bool_masks(pair, close):
    a, t = pair
    close(t[t > 0], a[a > 0])
    close(t[a > 0], a[a > 0])  # a numpy mask
    m = a[:, :, 0] > 0
    close(t[sdk.tensor(m)], a[m])
    m1 = np.array([True, False, True, True])
    close(t[sdk.tensor(m1)], a[m1])
    close(t[:, [True, False, True, False, True]], a[:, [True, False, True, False, True]])


def test_int_tensor_scalar_and_index_protocol(pair, close):
    a, t = pair
    close(t[sdk.tensor(2)], a[2])
    close(t[np.int64(1)], a[1])
    assert [10, 20, 30][sdk.tensor(1)] == 20
    assert t[1, 2, 3].item() == pytest.approx(float(a[1, 2, 3]))


def test_negative_step_raises(pair):
    _, t = pair
    with pytest.raises(ValueError, match="step"):
        t[::-1]


def test_index_errors(pair):
    _, t = pair
    with pytest.raises(IndexError):
        t[4]
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError):
        t[sdk.tensor([0, 9])]
    with pytest.raises(IndexError):
        t[1.5]
    with pytest.raises(IndexError):
        t[sdk.tensor([True, False])]
    with pytest.raises(IndexError):
        sdk.tensor(3.0)[0]


SET = [
    (1, 5.0),
    ((slice(None), 2), -1.0),
    ((slice(1, 3), slice(None, None, 2)), "tensor"),
    ([0, 2], 3.0),
    ((slice(None), [1, 3]), "tensor"),
    (([0, 1], [2, 3]), "tensor"),
    ((1, [0, 4], slice(None, None, 2)), "tensor"),
    (Ellipsis, 0.0),
]


@pytest.mark.parametrize("idx,value", SET, ids=[str(i) for i in range(len(SET))])
def test_setitem(pair, idx, value, rng, close):
    a, t = pair
    a = a.copy()
    if value == "tensor":
        shape = a[idx].shape
        v = rng.standard_normal(shape).astype(np.float32)
        t[idx] = sdk.tensor(v)
        a[idx] = v
        # a broadcast value from numpy works too
        v2 = rng.standard_normal(shape[-1:]).astype(np.float32)
        t[idx] = v2
        a[idx] = v2
    else:
        t[idx] = value
        a[idx] = value
    close(t, a)


def test_setitem_mask_and_version(pair, close):
    a, t = pair
    a = a.copy()
    v = t._version
    t[t > 0] = 0.0
    a[a > 0] = 0
    close(t, a)
    assert t._version > v
    t[sdk.tensor(a < -1)] = sdk.tensor(9.0)
    a[a < -1] = 9
    close(t, a)
    m = a[:, :, 0] < 0
    t[sdk.tensor(m)] = 1.0
    a[m] = 1
    close(t, a)


def test_zero_dim_and_empty_indexing(close):
    t = sdk.tensor(3.0)
    close(t[...], np.array(3.0, np.float32))
    close(t[None], np.array([3.0], np.float32))
    e = sdk.zeros(0, 3)
    close(e[:, 1], np.zeros(0, np.float32))
    close(sdk.arange(5)[sdk.tensor([], dtype=sdk.int64)], np.zeros(0, np.int64))


def test_len_iter(pair, close):
    a, t = pair
    assert len(t) == 4
    rows = list(t)
    assert len(rows) == 4
    close(rows[2], a[2])
    with pytest.raises(TypeError, match="0-d"):
        len(sdk.tensor(1.0))
    with pytest.raises(TypeError, match="0-d"):
        iter(sdk.tensor(1.0))


def test_indexing_autograd_records():
    x = sdk.arange(12, dtype=sdk.float64).reshape(3, 4).requires_grad_()
    y = x[1:, [0, 2]].sum() + x[0, 1] * 2
    y.backward()
    g = np.zeros((3, 4))
    g[1:, [0, 2]] = 1
    g[0, 1] = 2
    np.testing.assert_array_equal(x.grad.numpy(), g)
