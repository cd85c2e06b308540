"""The data and linear-algebra functions the C++ API had before Python (bucketize,
searchsorted, histc, bincount, logspace, mode, cross, cdist, det, inverse, cholesky,
triangular_solve, addmv, addbmm, var_mean, fmax, ...) against numpy, and torch when installed."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

RNG = np.random.default_rng(11)
t = sdk.from_numpy


def test_bucketize_and_searchsorted_match_numpy():
    bounds = np.array([1.0, 3.0, 5.0, 7.0])
    x = RNG.uniform(0, 8, size=(3, 5)).round()
    for right, side in ((False, "left"), (True, "right")):
        got = sdk.bucketize(t(x), t(bounds), right=right)
        assert got.dtype == sdk.int64
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(bounds, x, side=side))
        got = sdk.searchsorted(t(bounds), t(x), side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(bounds, x, side=side))
    seq = np.sort(RNG.standard_normal((2, 6)), axis=1)
    vals = RNG.standard_normal((2, 4))
    got = sdk.searchsorted(t(seq), t(vals), right=True, out_int32=True)
    assert got.dtype == sdk.int32
    expected = np.stack([np.searchsorted(seq[i], vals[i], side="right") for i in range(2)])
    np.testing.assert_array_equal(got.numpy(), expected)
    with pytest.raises(ValueError, match="side can only be 'left' or 'right'"):
        sdk.searchsorted(t(bounds), t(x), side="middle")
    with pytest.raises(ValueError, match="boundaries tensor must be 1 dimension"):
        sdk.bucketize(t(x), t(seq))


def test_histc_bincount_logspace_mode():
    x = RNG.standard_normal(200)
    counts, _ = np.histogram(x, bins=7, range=(-1.5, 2.0))
    np.testing.assert_array_equal(sdk.histc(t(x), bins=7, min=-1.5, max=2.0).numpy(), counts)
    counts, _ = np.histogram(x, bins=5)  # min == max: the data's range
    np.testing.assert_array_equal(sdk.histc(t(x), bins=5).numpy(), counts)
    ints = RNG.integers(0, 6, size=50)
    np.testing.assert_array_equal(sdk.bincount(t(ints)).numpy(), np.bincount(ints))
    w = RNG.standard_normal(50)
    np.testing.assert_allclose(
        sdk.bincount(t(ints), t(w), minlength=9).numpy(), np.bincount(ints, w, minlength=9)
    )
    with pytest.raises(ValueError, match="non-negative integral"):
        sdk.bincount(t(np.array([1, -1])))
    np.testing.assert_allclose(sdk.logspace(-1, 2, 4).numpy(), np.logspace(-1, 2, 4), rtol=1e-6)
    np.testing.assert_allclose(
        sdk.logspace(0, 3, 4, base=2, dtype=sdk.float64).numpy(), np.logspace(0, 3, 4, base=2)
    )
    m = np.array([[1, 2, 2, 1, 3], [4, 4, 5, 5, 5], [7, 6, 6, 7, 9]])
    values, indices = sdk.mode(t(m), 1)
    np.testing.assert_array_equal(values.numpy(), [1, 5, 6])  # the smallest of tied ones
    np.testing.assert_array_equal(indices.numpy(), [3, 4, 2])  # its last position
    assert sdk.mode(t(m), 0, keepdim=True).values.shape == (1, 5)
    assert sdk.scalar_tensor(3).dtype == sdk.float32


def test_cross_and_cdist():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    np.testing.assert_allclose(sdk.cross(t(a), t(b), dim=1).numpy(), np.cross(a, b))
    np.testing.assert_allclose(sdk.linalg_cross(t(a), t(b)).numpy(), np.cross(a, b))
    np.testing.assert_allclose(sdk.cross(t(a.T), t(b.T)).numpy(), np.cross(a, b).T)
    x1, x2 = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 4, 3))
    diff = np.abs(x1[:, :, None, :] - x2[:, None, :, :])
    for p, ref in (
        (2.0, np.sqrt((diff**2).sum(-1))),
        (1.0, diff.sum(-1)),
        (3.0, (diff**3).sum(-1) ** (1 / 3)),
        (float("inf"), diff.max(-1)),
        (0.0, (diff != 0).sum(-1)),
    ):
        np.testing.assert_allclose(sdk.cdist(t(x1), t(x2), p=p).numpy(), ref, rtol=1e-12)
    with pytest.raises(ValueError, match="same number of columns"):
        sdk.cdist(t(x1), t(x2[..., :2]))


def test_det_inverse_cholesky_triangular_solve():
    a = RNG.standard_normal((3, 4, 4))
    np.testing.assert_allclose(sdk.det(t(a)).numpy(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(sdk.inverse(t(a)).numpy(), np.linalg.inv(a), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sdk.linalg_det(t(a[0])).numpy(), np.linalg.det(a[0]), rtol=1e-10)
    # a zero leading entry needs a row swap; a singular matrix has det 0 and no inverse
    swap = np.array([[0.0, 2.0], [3.0, 1.0]])
    np.testing.assert_allclose(sdk.det(t(swap)).numpy(), -6.0)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(sdk.det(t(singular))) == 0
    with pytest.raises(ValueError, match="singular"):
        sdk.inverse(t(singular))
    spd = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    low = np.linalg.cholesky(spd)
    np.testing.assert_allclose(sdk.cholesky(t(spd)).numpy(), low, rtol=1e-10)
    np.testing.assert_allclose(
        sdk.cholesky(t(spd), upper=True).numpy(), low.transpose(0, 2, 1), rtol=1e-10
    )
    with pytest.raises(ValueError, match="not positive-definite"):
        sdk.cholesky(t(-spd))
    rhs = RNG.standard_normal((3, 4, 2))
    up = np.triu(a) + 3 * np.eye(4)
    for upper, transpose, m in (
        (True, False, up),
        (False, False, np.tril(up)),
        (True, True, up.transpose(0, 2, 1)),
    ):
        sol, coef = sdk.triangular_solve(t(rhs), t(up), upper=upper, transpose=transpose)
        np.testing.assert_allclose(sol.numpy(), np.linalg.solve(m, rhs), rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(coef.numpy(), up)


def test_det_gradient_is_the_adjugate_transpose():
    a = RNG.standard_normal((3, 3))
    x = t(a.copy()).requires_grad_(True)
    sdk.det(x).backward()
    expected = np.linalg.det(a) * np.linalg.inv(a).T
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-8)


def test_math_extras():
    m, v, inp = RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal(3)
    np.testing.assert_allclose(
        sdk.addmv(t(inp), t(m), t(v), beta=0.5, alpha=2).numpy(), 0.5 * inp + 2 * m @ v
    )
    b1, b2, c = (
        RNG.standard_normal((5, 3, 2)),
        RNG.standard_normal((5, 2, 4)),
        RNG.standard_normal((3, 4)),
    )
    np.testing.assert_allclose(sdk.addbmm(t(c), t(b1), t(b2)).numpy(), c + (b1 @ b2).sum(0))
    x = np.array([1.0, np.nan, 3.0, np.nan])
    y = np.array([2.0, 5.0, np.nan, np.nan])
    np.testing.assert_array_equal(sdk.fmax(t(x), t(y)).numpy(), np.fmax(x, y))
    np.testing.assert_array_equal(sdk.fmin(t(x), t(y)).numpy(), np.fmin(x, y))
    p = np.array([0.0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(
        sdk.logit(t(p), eps=0.1).numpy(), np.log((q := p.clip(0.1, 0.9)) / (1 - q))
    )
    d = RNG.standard_normal((4, 5))
    var, mean = sdk.var_mean(t(d), 1)
    np.testing.assert_allclose(var.numpy(), d.var(1, ddof=1))
    np.testing.assert_allclose(mean.numpy(), d.mean(1))
    std, _ = sdk.std_mean(t(d), correction=0)
    np.testing.assert_allclose(float(std), d.std())
    z = np.array([[0, 1, 2], [0, 0, 3]])
    np.testing.assert_array_equal(sdk.count_nonzero(t(z), 1).numpy(), [2, 1])
    assert int(sdk.count_nonzero(t(z))) == 3
    parts = sdk.split_with_sizes(sdk.arange(6), [1, 2, 3])
    assert [list(p.numpy()) for p in parts] == [[0], [1, 2], [3, 4, 5]]
    r = sdk.randint_like(sdk.zeros(100, dtype=sdk.int64), 3, 7)
    assert r.dtype == sdk.int64 and int(r.min()) >= 3 and int(r.max()) < 7


def test_against_torch_when_installed():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    x = RNG.standard_normal((3, 4))
    bounds = np.sort(RNG.standard_normal(5))
    got = sdk.bucketize(t(x), t(bounds), right=True).numpy()
    ref = torch.bucketize(torch.from_numpy(x), torch.from_numpy(bounds), right=True).numpy()
    np.testing.assert_array_equal(got, ref)
    ints = RNG.integers(0, 4, size=20)
    w = RNG.standard_normal(20).astype(np.float32)
    got = sdk.bincount(t(ints), t(w))
    ref = torch.bincount(torch.from_numpy(ints), torch.from_numpy(w))
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    m = RNG.integers(0, 3, size=(4, 7))
    assert (
        sdk.mode(t(m), 1).values.numpy().tolist()
        == torch.mode(torch.from_numpy(m), 1).values.tolist()
    )


def _conv2d_ref(x, w, pad=0):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", win, w)


def test_nn_functional_conv3d_conv_transpose2d_pairwise_distance_grid_sample():
    F = sdk.nn.functional
    x, w, b = (
        RNG.standard_normal((2, 2, 4, 5, 5)),
        RNG.standard_normal((3, 2, 2, 3, 3)),
        RNG.standard_normal(3),
    )
    ref = (
        sum(
            np.stack([_conv2d_ref(x[:, :, o + k], w[:, :, k], 1) for o in range(3)], 2)
            for k in range(2)
        )
        + b[None, :, None, None, None]
    )
    np.testing.assert_allclose(
        F.conv3d(t(x), t(w), t(b), padding=(0, 1, 1)).numpy(), ref, rtol=1e-10
    )
    # conv_transpose2d is the adjoint of conv2d: <conv2d(u, k), v> == <u, conv_transpose2d(v, k)>
    u, v = RNG.standard_normal((1, 2, 7, 7)), RNG.standard_normal((1, 3, 4, 4))
    k = RNG.standard_normal((3, 2, 3, 3))
    lhs = (F.conv2d(t(u), t(k), stride=2, padding=1).numpy() * v).sum()
    back = F.conv_transpose2d(t(v), t(k), stride=2, padding=1)
    assert back.shape == (1, 2, 7, 7)
    np.testing.assert_allclose((u * back.numpy()).sum(), lhs, rtol=1e-10)
    full = F.conv_transpose2d(t(v), t(k), stride=2, padding=1, output_padding=1)
    assert full.shape == (1, 2, 8, 8)
    a, c = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    np.testing.assert_allclose(
        F.pairwise_distance(t(a), t(c)).numpy(), np.linalg.norm(a - c + 1e-6, axis=1)
    )
    img = RNG.standard_normal((1, 2, 3, 4))
    ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), indexing="ij")
    grid = np.stack([xs, ys], -1)[None]
    np.testing.assert_allclose(
        F.grid_sample(t(img), t(grid), align_corners=True).numpy(), img, atol=1e-12
    )
    shifted = F.grid_sample(
        t(img), t(grid + 5), mode="nearest", padding_mode="border", align_corners=True
    )
    np.testing.assert_allclose(shifted.numpy(), np.broadcast_to(img[:, :, -1:, -1:], img.shape))
    assert not F.grid_sample(t(img), t(grid + 5), align_corners=True).numpy().any()  # zeros padding


def test_nn_functional_additions_against_torch():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    F, TF = sdk.nn.functional, torch.nn.functional
    v, k = RNG.standard_normal((2, 4, 5, 6)), RNG.standard_normal((4, 3, 3, 2))
    kw = dict(stride=2, padding=1, output_padding=1, groups=2)
    np.testing.assert_allclose(
        F.conv_transpose2d(t(v), t(k), **kw).numpy(),
        TF.conv_transpose2d(torch.from_numpy(v), torch.from_numpy(k), **kw).numpy(),
        rtol=1e-10, atol=1e-12,
    )  # fmt: skip
    img, grid = RNG.standard_normal((2, 3, 5, 4)), RNG.uniform(-1.4, 1.4, (2, 3, 6, 2))
    for mode in ("bilinear", "nearest"):
        for padding_mode in ("zeros", "border", "reflection"):
            for corners in (True, False):
                args = dict(mode=mode, padding_mode=padding_mode, align_corners=corners)
                got = F.grid_sample(t(img), t(grid), **args).numpy()
                ref = TF.grid_sample(torch.from_numpy(img), torch.from_numpy(grid), **args)
                np.testing.assert_allclose(got, ref.numpy(), rtol=1e-10, atol=1e-12)
    x, w = RNG.standard_normal((1, 2, 5, 6, 7)), RNG.standard_normal((4, 1, 3, 2, 3))
    kw = dict(stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), groups=2)
    np.testing.assert_allclose(
        F.conv3d(t(x), t(w), **kw).numpy(),
        TF.conv3d(torch.from_numpy(x), torch.from_numpy(w), **kw).numpy(),
        rtol=1e-10, atol=1e-12,
    )  # fmt: skip


def test_linalg_namespace_spellings():
    a = np.triu(RNG.standard_normal((3, 3))) + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    np.testing.assert_allclose(sdk.linalg.det(t(a)).numpy(), np.linalg.det(a))
    np.testing.assert_allclose(sdk.linalg.inv(t(a)).numpy(), np.linalg.inv(a), atol=1e-12)
    x = sdk.linalg.solve_triangular(t(a), t(b), upper=True).numpy()
    np.testing.assert_allclose(a @ x, b, atol=1e-12)
    y = sdk.linalg.solve_triangular(t(a), t(b.T), upper=True, left=False).numpy()
    np.testing.assert_allclose(y @ a, b.T, atol=1e-12)
    spd = a @ a.T
    np.testing.assert_allclose(
        sdk.linalg.cholesky(t(spd), upper=True).numpy(), np.linalg.cholesky(spd).T, atol=1e-12
    )
    np.testing.assert_allclose(
        sdk.linalg.cross(t(a), t(b[:, :1].repeat(3, 1))).numpy(), np.cross(a, b[:, :1].repeat(3, 1))
    )
