"""3-D pooling (max, average, adaptive) against torch: values and gradients across kernel,
stride, padding, dilation and ceil_mode; the modules; bad input raises."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

from ._parity import check, pair

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = {
    "max_k2": ("max_pool3d", (2,), {}, (2, 2, 4, 5, 6)),
    "max_k3_s2_p1": ("max_pool3d", (3, 2, 1), {}, (1, 2, 5, 6, 7)),
    "max_dil_ceil": (
        "max_pool3d",
        ((2, 3, 2), (1, 2, 2), (1, 1, 0)),
        {"dilation": (2, 1, 2), "ceil_mode": True},
        (1, 3, 6, 7, 5),
    ),  # fmt: skip
    "max_unbatched": ("max_pool3d", ((2, 1, 3),), {}, (2, 4, 3, 6)),
    "avg_k2": ("avg_pool3d", (2,), {}, (2, 2, 4, 5, 6)),
    "avg_k3_s2_p1": ("avg_pool3d", (3, 2, 1), {}, (1, 2, 5, 6, 7)),
    "avg_nopad_ceil": (
        "avg_pool3d",
        (3, 2, 1),
        {"ceil_mode": True, "count_include_pad": False},
        (1, 2, 6, 5, 6),
    ),  # fmt: skip
    "avg_divisor": ("avg_pool3d", ((2, 2, 3),), {"divisor_override": 5}, (1, 2, 4, 4, 6)),
    "adaptive_avg": ("adaptive_avg_pool3d", ((2, 3, 4),), {}, (2, 2, 5, 7, 9)),
    "adaptive_avg_none": ("adaptive_avg_pool3d", ((None, 2, 3),), {}, (2, 3, 4, 6)),
    "adaptive_max": ("adaptive_max_pool3d", ((3, 2, 4),), {}, (2, 2, 5, 7, 9)),
    "adaptive_max_int": ("adaptive_max_pool3d", (2,), {}, (1, 2, 4, 4, 4)),
}


@pytest.mark.parametrize("case", CASES)
def test_functional_matches_torch(case):
    fn, args, kw, shape = CASES[case]
    sx, tx = pair(torch, shape)
    check(torch, getattr(F, fn)(sx, *args, **kw), getattr(TF, fn)(tx, *args, **kw), [sx], [tx])


def test_max_pool3d_indices_match_torch():
    sx, tx = pair(torch, (2, 2, 5, 6, 7))
    s_out, s_idx = F.max_pool3d(sx, 3, 2, 1, return_indices=True)
    t_out, t_idx = TF.max_pool3d(tx, 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(s_idx.numpy(), t_idx.numpy())
    check(torch, s_out, t_out, [sx], [tx])


@pytest.mark.parametrize(("name", "args"), [("MaxPool3d", (3, 2, 1)), ("AvgPool3d", (3, 2, 1)),
                                            ("AdaptiveAvgPool3d", ((2, 3, 2),)),
                                            ("AdaptiveMaxPool3d", (3,))])  # fmt: skip
def test_modules_match_torch(name, args):
    sx, tx = pair(torch, (2, 3, 6, 5, 7))
    check(torch, getattr(nn, name)(*args)(sx), getattr(torch.nn, name)(*args)(tx), [sx], [tx])


@pytest.mark.parametrize(("n", "shape", "size"), [(1, (2, 3, 11), 4), (2, (2, 3, 7, 5), (3, None)),
                                                  (3, (2, 2, 5, 7, 6), (2, 3, 4)),
                                                  (3, (2, 4, 6, 5), 2)])  # fmt: skip
def test_adaptive_max_pool_indices_match_torch(n, shape, size):
    sx, tx = pair(torch, shape)
    s_out, s_idx = getattr(F, f"adaptive_max_pool{n}d")(sx, size, return_indices=True)
    t_out, t_idx = getattr(TF, f"adaptive_max_pool{n}d")(tx, size, return_indices=True)
    np.testing.assert_array_equal(s_idx.numpy(), t_idx.numpy())
    check(torch, s_out, t_out, [sx], [tx])
    m = getattr(nn, f"AdaptiveMaxPool{n}d")(size, return_indices=True)
    np.testing.assert_array_equal(m(sx)[1].numpy(), t_idx.numpy())


@pytest.mark.parametrize("fn", ["max_pool2d", "max_pool3d"])
def test_max_pool_ties_send_the_gradient_where_torch_does(fn):
    """Many equal values: each window's gradient goes to its first maximum in scan order."""
    shape = (1, 2, 5, 6) if fn == "max_pool2d" else (1, 2, 5, 6, 4)
    a = np.random.default_rng(1).integers(0, 2, size=shape).astype(np.float64)
    sx, tx = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    check(torch, getattr(F, fn)(sx, 3, 2, 1), getattr(TF, fn)(tx, 3, 2, 1), [sx], [tx])


@pytest.mark.parametrize(
    ("fn", "args", "kw"),
    [("max_pool1d", (4,), {}), ("max_pool1d", (3, 1, 1), {}),
     ("adaptive_max_pool1d", (2,), {}), ("max_pool2d", ((2, 4),), {})],
)  # fmt: skip
def test_nan_windows_pick_the_last_nan_like_torch(fn, args, kw):
    """A NaN is the max of its window (the last one when there are several): values,
    indices and where the gradient goes agree with torch."""
    a = np.array([[[1.0, np.nan, np.nan, 2.0, 0.5, np.nan, 3.0, -1.0]]])
    if fn == "max_pool2d":
        a = a.reshape(1, 1, 2, 4)
    sx, tx = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    s_out, s_idx = getattr(F, fn)(sx, *args, return_indices=True, **kw)
    t_out, t_idx = getattr(TF, fn)(tx, *args, return_indices=True, **kw)
    np.testing.assert_array_equal(s_idx.numpy(), t_idx.numpy())
    np.testing.assert_array_equal(s_out.detach().numpy(), t_out.detach().numpy())
    s_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_array_equal(sx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize(("args", "kw"), [((3, 2, 1), {}), ((2, 2, 1), {"dilation": 2}),
                                          ((3, 2, 1), {"ceil_mode": True})])  # fmt: skip
def test_all_minus_inf_windows_pick_their_first_entry_like_torch(args, kw):
    """Windows of -inf reaching into the padding: the index is the first entry inside the
    input, not a padded position."""
    a = np.full((1, 1, 5), -np.inf)
    s_out, s_idx = F.max_pool1d(sdk.tensor(a), *args, return_indices=True, **kw)
    t_out, t_idx = TF.max_pool1d(torch.tensor(a), *args, return_indices=True, **kw)
    np.testing.assert_array_equal(s_idx.numpy(), t_idx.numpy())
    np.testing.assert_array_equal(s_out.numpy(), t_out.numpy())


@pytest.mark.parametrize("fn", ["avg_pool1d", "max_pool1d"])
def test_pooling_second_derivatives(fn):
    """The hand-written backward passes are themselves differentiable."""
    x = sdk.tensor(np.random.default_rng(3).normal(size=(2, 2, 9)), requires_grad=True)
    assert sdk.autograd.gradgradcheck(lambda t: getattr(F, fn)(t, 3, 2, 1), (x,))


def test_float32_and_non_contiguous_input_match_torch():
    a = np.random.default_rng(4).normal(size=(2, 3, 7, 6, 5)).astype(np.float32)
    sx = sdk.tensor(a).permute(0, 1, 4, 3, 2).requires_grad_(True)
    tx = torch.tensor(a).permute(0, 1, 4, 3, 2).requires_grad_(True)
    for fn, args in (("max_pool3d", (3, 2, 1)), ("adaptive_max_pool3d", ((2, 3, 4),)),
                     ("avg_pool3d", (3, 2, 1))):  # fmt: skip
        sx.grad = tx.grad = None
        check(torch, getattr(F, fn)(sx, *args), getattr(TF, fn)(tx, *args), [sx], [tx], tol=1e-5)


@pytest.mark.parametrize("shape", [(2, 4, 32, 32, 40), (1, 2, 5, 7, 6)])
def test_adaptive_max_ties_match_torch_on_long_and_short_rows(shape):
    """Many equal values (0/1): the first maximum in scan order gets the index and the
    gradient, whether the window max comes from one indexed max (long rows) or from the
    scoring passes (short ones)."""
    a = np.random.default_rng(6).integers(0, 2, size=shape).astype(np.float64)
    sx, tx = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    s_out, s_idx = F.adaptive_max_pool3d(sx, (3, 5, 7), return_indices=True)
    t_out, t_idx = TF.adaptive_max_pool3d(tx, (3, 5, 7), return_indices=True)
    np.testing.assert_array_equal(s_idx.numpy(), t_idx.numpy())
    check(torch, s_out, t_out, [sx], [tx])
