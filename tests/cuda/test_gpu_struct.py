"""The sorting, scan, scatter/index and reordering ops on CUDA tensors: what runs there
(cumsum/cumprod kernels, flip/roll as strided copies, tril/triu as a masked fill, the views,
compositions) against numpy, and a NotImplementedError naming the op and the device for the
rest. Runs on a real GPU, and on the host-memory test backend (test_fake_backend.py)."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from tests.cuda.conftest import requires_gpu

pytestmark = requires_gpu

RNG = np.random.default_rng(7)


def cuda(a, dtype=None):
    return sdk.tensor(a, dtype=dtype).cuda()


def host(t):
    assert t.is_cuda
    return t.cpu().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "float16"])
def test_cumsum_cumprod(dtype):
    a = RNG.integers(0, 3, size=(4, 5, 6)).astype(dtype)
    t = cuda(a)
    for dim in (0, 1, -1):
        s, p = t.cumsum(dim), t.cumprod(dim)
        assert s.is_cuda and s.dtype == t.cpu().cumsum(dim).dtype
        np.testing.assert_allclose(host(s), t.cpu().cumsum(dim).numpy(), rtol=1e-3)
        np.testing.assert_allclose(host(p), t.cpu().cumprod(dim).numpy(), rtol=1e-3)
    strided = cuda(a).transpose(0, 2)
    np.testing.assert_allclose(
        host(strided.cumsum(1, dtype=sdk.float64)), np.cumsum(a.transpose(2, 1, 0), 1, dtype=float)
    )
    inplace = cuda(a.astype(np.float32))
    inplace.cumsum_(1)
    np.testing.assert_allclose(host(inplace), np.cumsum(a.astype(np.float32), 1))


def test_reordering_and_views():
    a = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    t = cuda(a)
    np.testing.assert_array_equal(host(t.flip(0, 2)), np.flip(a, (0, 2)))
    np.testing.assert_array_equal(host(t.transpose(0, 1).flip(1)), np.flip(a.transpose(1, 0, 2), 1))
    np.testing.assert_array_equal(host(t.roll((1, -2), (0, 2))), np.roll(a, (1, -2), (0, 2)))
    np.testing.assert_array_equal(host(t.roll(7)), np.roll(a, 7))
    np.testing.assert_array_equal(host(t.tril(1)), np.tril(a, 1))
    np.testing.assert_array_equal(host(sdk.triu(t, -1)), np.triu(a, -1))
    u = cuda(a)
    u.triu_()
    np.testing.assert_array_equal(host(u), np.triu(a))
    np.testing.assert_array_equal(host(t.diagonal(0, 1, 2)), np.diagonal(a, 0, 1, 2))
    np.testing.assert_array_equal(host(t.unfold(2, 2, 2)), a[..., :4].reshape(3, 4, 2, 2))
    v = RNG.standard_normal(3)
    np.testing.assert_array_equal(host(sdk.diag(cuda(v), 1)), np.diag(v, 1))
    np.testing.assert_array_equal(host(t.repeat_interleave(2, 1)), np.repeat(a, 2, 1))


def test_resize_grows_a_cuda_tensor():
    t = cuda(np.arange(6.0))
    t.resize_(4, 5)
    assert t.is_cuda and tuple(t.shape) == (4, 5)
    np.testing.assert_array_equal(host(t).reshape(-1)[:6], np.arange(6.0))


@pytest.mark.parametrize(
    "name, call",
    [
        ("sort", lambda t, i: t.sort()),
        ("topk", lambda t, i: t.topk(1)),
        ("kthvalue", lambda t, i: t.kthvalue(1)),
        ("median", lambda t, i: t.median(0)),
        ("cummax", lambda t, i: t.cummax(0)),
        ("scatter", lambda t, i: t.scatter(0, i, 1.0)),
        ("scatter_reduce", lambda t, i: t.scatter_reduce(0, i, t, "sum")),
        ("index_copy", lambda t, i: t.index_copy(0, i, t)),
        ("index_fill", lambda t, i: t.index_fill(0, i, 1.0)),
        ("masked_select", lambda t, i: t.masked_select(t > 0)),
        ("masked_scatter", lambda t, i: t.masked_scatter(t > 0, t)),
        ("take", lambda t, i: t.take(i)),
        ("repeat_interleave", lambda t, i: t.repeat_interleave(i)),
    ],
)
def test_cpu_only_ops_name_the_op_and_the_device(name, call):
    t = cuda(np.array([1.0, -2.0, 3.0]))
    i = cuda(np.array([0, 2, 1]))
    with pytest.raises(NotImplementedError, match=rf"{name}\(\): .*CUDA device"):
        call(t, i)
