"""pixel_shuffle/pixel_unshuffle, PairwiseDistance and CosineSimilarity against torch:
values and gradients on the same inputs, and clear errors on bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(3)


def _inputs(shape):
    a = RNG.normal(size=shape)
    return sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(s_out, t_out, s_in, t_in, tol=1e-10):
    np.testing.assert_allclose(s_out.detach().numpy(), t_out.detach().numpy(), rtol=tol, atol=tol)
    w = RNG.normal(size=tuple(t_out.shape))
    (s_out * sdk.tensor(w)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    for s, t in zip(s_in, t_in):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,r", [((1, 8, 3, 2), 2), ((2, 18, 2, 3), 3), ((9, 2, 4), 3),
                                     ((2, 2, 4, 3, 5), 1), ((2, 1, 8, 3, 3), 2)])  # fmt: skip
def test_pixel_shuffle_matches_torch(shape, r):
    s, t = _inputs(shape)
    _check(F.pixel_shuffle(s, r), TF.pixel_shuffle(t, r), [s], [t])
    s, t = _inputs(shape[:-3] + (shape[-3], shape[-2] * r, shape[-1] * r))
    _check(nn.PixelUnshuffle(r)(s), torch.nn.PixelUnshuffle(r)(t), [s], [t])


def test_pixel_shuffle_module_and_round_trip():
    s, t = _inputs((2, 12, 3, 4))
    _check(nn.PixelShuffle(2)(s), torch.nn.PixelShuffle(2)(t), [s], [t])
    x = sdk.randn(2, 12, 3, 4)
    back = F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2)
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_pixel_shuffle_bad_arguments():
    with pytest.raises(ValueError, match="divisible by upscale_factor"):
        F.pixel_shuffle(sdk.randn(1, 6, 2, 2), 2)
    with pytest.raises(ValueError, match="'upscale_factor'"):
        F.pixel_shuffle(sdk.randn(1, 4, 2, 2), 0)
    with pytest.raises(ValueError, match="at least 3 dims"):
        F.pixel_shuffle(sdk.randn(4, 2), 2)
    with pytest.raises(ValueError, match="divisible by downscale_factor"):
        F.pixel_unshuffle(sdk.randn(1, 1, 4, 3), 2)
    with pytest.raises(ValueError, match="'downscale_factor'"):
        F.pixel_unshuffle(sdk.randn(1, 1, 4, 4), 2.0)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_matches_torch(p, keepdim):
    (s1, t1), (s2, t2) = _inputs((5, 7)), _inputs((5, 7))
    _check(nn.PairwiseDistance(p, 1e-6, keepdim)(s1, s2),
           torch.nn.PairwiseDistance(p, 1e-6, keepdim)(t1, t2), [s1, s2], [t1, t2])  # fmt: skip


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cosine_similarity_matches_torch(dim):
    (s1, t1), (s2, t2) = _inputs((4, 6, 3)), _inputs((4, 6, 3))
    _check(nn.CosineSimilarity(dim)(s1, s2), torch.nn.CosineSimilarity(dim)(t1, t2),
           [s1, s2], [t1, t2])  # fmt: skip


def test_distance_bad_input_names_the_argument():
    for mod in (nn.CosineSimilarity(), nn.PairwiseDistance()):
        with pytest.raises(TypeError, match="'x1' must be Tensor"):
            mod([1.0], sdk.randn(1))
        with pytest.raises(TypeError, match="'x2' must be Tensor"):
            mod(sdk.randn(1), 2.0)
        with pytest.raises(ValueError, match=r"x1 shape \[2, 3\] and x2 shape \[2, 4\]"):
            mod(sdk.randn(2, 3), sdk.randn(2, 4))
