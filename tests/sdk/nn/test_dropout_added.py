"""Dropout3d, AlphaDropout, FeatureAlphaDropout: the identity in eval; in training the kept
fraction is about 1 - p, kept values are scaled exactly as torch scales them, and gradients
follow the same mask."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

ALPHA = 1.7580993408473766  # SELU scale * alpha


def _input(shape):
    return sdk.tensor(np.random.default_rng(3).normal(size=shape) + 5.0, requires_grad=True)


@pytest.mark.parametrize("cls", ["Dropout3d", "AlphaDropout", "FeatureAlphaDropout"])
def test_eval_mode_is_the_identity(cls):
    x = _input((2, 3, 2, 2, 2))
    out = getattr(nn, cls)(0.7).eval()(x)
    np.testing.assert_array_equal(out.detach().numpy(), x.detach().numpy())


def test_functional_alpha_dropouts_default_to_not_training():
    x = _input((2, 3, 4))
    assert F.alpha_dropout(x, 0.5) is x and F.feature_alpha_dropout(x, 0.5) is x


def test_dropout3d_drops_whole_channels_and_scales_the_rest():
    p = 0.3
    x = _input((40, 50, 2, 2, 2))  # 2000 channels of 8 values
    out = nn.Dropout3d(p)(x)
    o, v = out.detach().numpy(), x.detach().numpy()
    kept = (o != 0).reshape(40, 50, -1)
    assert (kept.all(-1) | ~kept.any(-1)).all()  # whole channels only
    frac = kept[..., 0].mean()
    assert abs(frac - (1 - p)) < 4 * np.sqrt(p * (1 - p) / 2000)
    np.testing.assert_allclose(o[o != 0], v[o != 0] / (1 - p), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (o != 0) / (1 - p), rtol=1e-12)


def test_dropout3d_unbatched_input_and_extremes():
    x = _input((3, 2, 2, 2))
    assert F.dropout3d(x, 0.5).shape == x.shape
    assert (F.dropout3d(x, 1.0).detach().numpy() == 0).all()
    assert F.dropout3d(x, 0.0) is x


@pytest.mark.parametrize(("fn", "per_channel"), [("alpha_dropout", False),
                                                 ("feature_alpha_dropout", True)])  # fmt: skip
def test_alpha_dropouts_keep_fraction_and_affine_values(fn, per_channel):
    p = 0.2
    a = ((ALPHA * ALPHA * p + 1) * (1 - p)) ** -0.5
    x = _input((40, 50, 4))
    out = getattr(F, fn)(x, p, training=True)
    o, v = out.detach().numpy(), x.detach().numpy()
    dropped = np.isclose(o, -ALPHA * a + ALPHA * a * p, rtol=0, atol=1e-12)
    kept = ~dropped
    np.testing.assert_allclose(o[kept], a * v[kept] + ALPHA * a * p, rtol=1e-12)
    if per_channel:
        assert (dropped.all(-1) | ~dropped.any(-1)).all()
    n = 2000 if per_channel else 8000
    assert abs(kept.mean() - (1 - p)) < 4 * np.sqrt(p * (1 - p) / n)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept * a, rtol=1e-12)


def test_alpha_dropout_keeps_selu_statistics():
    x = sdk.randn(200000, dtype=sdk.float64)
    o = F.alpha_dropout(x, 0.4, training=True).numpy()
    assert abs(o.mean()) < 0.02 and abs(o.std() - 1) < 0.02


@pytest.mark.parametrize("fn", ["dropout3d", "alpha_dropout", "feature_alpha_dropout"])
def test_bad_input(fn):
    with pytest.raises(ValueError, match="probability has to be between 0 and 1"):
        getattr(F, fn)(sdk.ones(2, 3, 2, 2, 2), 1.5, True)
    with pytest.raises(TypeError, match="argument 'input'"):
        getattr(F, fn)([1.0], 0.5, True)


def test_bad_shapes():
    with pytest.raises(ValueError, match="dropout3d: expected 4D"):
        F.dropout3d(sdk.ones(2, 3, 4), 0.5)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(sdk.ones(3), 0.5, True)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.AlphaDropout(-0.1)
