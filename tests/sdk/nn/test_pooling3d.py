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
