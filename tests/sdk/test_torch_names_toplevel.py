"""torch's top-level nn and linalg functions (sdk/_toplevel.py, loaded by name from the sdk
namespace) and the margin/embedding losses of sdk.nn.functional: values and gradients against
torch on the same inputs, with torch's top-level signatures (skipped without torch)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from tests.sdk._torch_compare import assert_same, compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 6, 5))
IMG = RNG.standard_normal((2, 4, 5, 5))
W1 = RNG.standard_normal((4, 6, 3))
W2 = RNG.standard_normal((3, 4, 3, 3))
B4 = RNG.standard_normal(4)
G6 = RNG.standard_normal(6)
EMB = RNG.standard_normal((5, 3))
IDX = np.array([[0, 2], [4, 2]])
A, P, N = (RNG.standard_normal((4, 5)) for _ in range(3))
SIGN4 = np.array([1.0, -1.0, -1.0, 1.0])
SIGN45 = np.sign(RNG.standard_normal((4, 5)))
COUNTS = np.abs(RNG.standard_normal((4, 5))) * 3
W_IH, W_HH = RNG.standard_normal((8, 3)), RNG.standard_normal((8, 2))

CASES = [
    ("conv1d", lambda m, x, w, b: m.conv1d(x, w, b, 1, 1), [X, W1, B4]),
    ("conv2d", lambda m, x, w: m.conv2d(x, w, None, 2, 1, 1, 1), [IMG, W2]),
    ("conv_transpose1d", lambda m, x, w: m.conv_transpose1d(x, w, None, 2, 1, 1), [X[:, :4], W1]),
    (
        "convolution",
        lambda m, x, w: m.convolution(x, w, None, [1], [1], [1], False, [0], 1),
        [X, W1],
    ),
    (
        "convolution_transposed",
        lambda m, x, w: m.convolution(x, w, None, [2], [0], [1], True, [1], 1),
        [X[:, :4], W1],
    ),
    ("layer_norm", lambda m, x, g: m.layer_norm(x, [6, 5], None, None, 1e-5, True), [X, G6]),
    ("group_norm", lambda m, x, g: m.group_norm(x, 3, g, g, 1e-5, True), [X, G6]),
    (
        "batch_norm_eval",
        lambda m, x, g: m.batch_norm(
            x, g, g, x.new_zeros(6), x.new_ones(6), False, 0.1, 1e-5, True
        ),
        [X, G6],
    ),
    (
        "batch_norm_train",
        lambda m, x, g: m.batch_norm(x, g, None, None, None, True, 0.1, 1e-5, True),
        [X, G6],
    ),
    (
        "instance_norm",
        lambda m, x, g: m.instance_norm(x, g, g, None, None, True, 0.1, 1e-5, True),
        [X, G6],
    ),
    ("rms_norm", lambda m, x, g: m.rms_norm(x, [5], g[:5], 1e-6), [X, G6]),
    ("embedding", lambda m, w, i: m.embedding(w, i), [EMB, IDX]),
    ("embedding_padding", lambda m, w, i: m.embedding(w, i, 2), [EMB, IDX]),
    ("dropout_eval", lambda m, x: m.dropout(x, 0.4, False), [X]),
    ("alpha_dropout_eval", lambda m, x: m.alpha_dropout(x, 0.4, False), [X]),
    ("feature_dropout_eval", lambda m, x: m.feature_dropout(x, 0.4, False), [X]),
    ("max_pool1d", lambda m, x: m.max_pool1d(x, 2), [X]),
    ("max_pool1d_with_indices", lambda m, x: m.max_pool1d_with_indices(x, 3, 1, 1), [X]),
    ("max_pool2d", lambda m, x: m.max_pool2d(x, 2, [], 0, 1, True), [IMG]),
    ("avg_pool1d", lambda m, x: m.avg_pool1d(x, 3, 2, 1, False, False), [X]),
    ("adaptive_avg_pool1d", lambda m, x: m.adaptive_avg_pool1d(x, 3), [X]),
    ("adaptive_max_pool1d", lambda m, x: m.adaptive_max_pool1d(x, 2), [X]),
    ("pixel_shuffle", lambda m, x: m.pixel_shuffle(x, 2), [IMG]),
    ("pixel_unshuffle", lambda m, x: m.pixel_unshuffle(x[..., :4, :4], 2), [IMG]),
    ("channel_shuffle", lambda m, x: m.channel_shuffle(x, 3), [X]),
    ("selu", lambda m, x: m.selu(x), [X]),
    ("celu", lambda m, x: m.celu(x, 0.7), [X]),
    ("threshold", lambda m, x: m.threshold(x, 0.1, -2.0), [X]),
    ("rrelu_eval", lambda m, x: m.rrelu(x), [X]),
    ("prelu", lambda m, x, w: m.prelu(x, w), [X, G6]),
    ("hardshrink", lambda m, x: m.hardshrink(x, 0.3), [X]),
    ("pdist", lambda m, a: m.pdist(a), [A]),
    ("pdist_p", lambda m, a: m.pdist(a, 3), [A]),
    ("pairwise_distance", lambda m, a, b: m.pairwise_distance(a, b, 3.0, 1e-6, True), [A, P]),
    ("cosine_similarity", lambda m, a, b: m.cosine_similarity(a, b, 0), [A, P]),
    (
        "bilinear",
        lambda m, a, b, w, c: m.bilinear(a, b, w, c),
        [A[:, :3], P[:, :2], RNG.standard_normal((4, 3, 2)), B4],
    ),
    ("constant_pad_nd", lambda m, x: m.constant_pad_nd(x, [1, 2, 0, 1], 0.5), [X]),
    ("kl_div", lambda m, a, b: m.kl_div(a, b, 2), [A, np.abs(P)]),
    ("kl_div_log_target", lambda m, a, b: m.kl_div(a, b, 1, log_target=True), [A, P]),
    (
        "bce_logits",
        lambda m, a, t, w: m.binary_cross_entropy_with_logits(a, t, None, w, 0),
        [A, np.abs(SIGN45), np.abs(G6[:5])],
        {"grad": (True, True, False)},
    ),
    (
        "margin_ranking_loss",
        lambda m, a, b, t: m.margin_ranking_loss(a, b, t, 0.3, 2),
        [A[:, 0], P[:, 0], SIGN4],
    ),
    ("hinge_embedding_loss", lambda m, a, t: m.hinge_embedding_loss(a, t, 0.7, 1), [A, SIGN45]),
    (
        "cosine_embedding_loss",
        lambda m, a, b, t: m.cosine_embedding_loss(a, b, t, 0.2, 0),
        [A, P, SIGN4],
    ),
    (
        "triplet_margin_loss",
        lambda m, a, p, n: m.triplet_margin_loss(a, p, n, 1.0, 3, 1e-6, True, 1),
        [A, P, N],
    ),
    (
        "poisson_nll_loss",
        lambda m, a, t: m.poisson_nll_loss(a, t, True, True, 1e-8, 1),
        [A, COUNTS],
    ),
    (
        "rnn_tanh_cell",
        lambda m, x, h, wi, wh, b: m.rnn_tanh_cell(x, h, wi, wh, b, b),
        [A[:, :3], P[:, :2], W_IH[:2], W_HH[:2], B4[:2]],
    ),
    (
        "rnn_relu_cell",
        lambda m, x, h, wi, wh: m.rnn_relu_cell(x, h, wi, wh),
        [A[:, :3], P[:, :2], W_IH[:2], W_HH[:2]],
    ),
    (
        "lstm_cell",
        lambda m, x, h, c, wi, wh, b: m.lstm_cell(x, (h, c), wi, wh, b, b),
        [A[:, :3], P[:, :2], N[:, :2], W_IH[:8], W_HH[:8], RNG.standard_normal(8)],
    ),
    (
        "gru_cell",
        lambda m, x, h, wi, wh, b: m.gru_cell(x, h, wi, wh, b, None),
        [A[:, :3], P[:, :2], W_IH[:6], W_HH[:6], B4[:3].repeat(2)],
    ),
    (
        "poisson_nll_loss_rates",
        lambda m, a, t: m.poisson_nll_loss(a.abs(), t, False, False, 1e-8, 2),
        [A, COUNTS],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(case):
    _, fn, arrays, *kw = case
    compare(torch, functools.partial(fn, sdk), functools.partial(fn, torch), *arrays,
            rtol=1e-9, atol=1e-9, **(kw[0] if kw else {}))  # fmt: skip


LOSSES = [
    ("margin_ranking_loss", lambda f, a, b, t: f.margin_ranking_loss(a[:, 0], b[:, 0], t[:, 0])),
    ("hinge_embedding_loss", lambda f, a, b, t: f.hinge_embedding_loss(a, t, margin=0.5)),
    ("cosine_embedding_loss", lambda f, a, b, t: f.cosine_embedding_loss(a, b, t[:, 0])),
    ("triplet_margin_loss", lambda f, a, b, t: f.triplet_margin_loss(a, b, a * t, p=1.5)),
    ("soft_margin_loss", lambda f, a, b, t: f.soft_margin_loss(a, t)),
    ("poisson_nll_loss", lambda f, a, b, t: f.poisson_nll_loss(a, b.abs() * 2, full=True)),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", LOSSES, ids=[c[0] for c in LOSSES])
def test_functional_losses_match_torch(case, reduction):
    _, fn = case
    compare(
        torch,
        lambda a, b, t: fn(F, a, b, t) if reduction == "mean" else _with(fn, F, reduction, a, b, t),
        lambda a, b, t: fn(TF, a, b, t) if reduction == "mean" else _with(fn, TF, reduction, a, b, t),
        A, P, SIGN45, grad=(True, True, False), rtol=1e-9,
    )  # fmt: skip


def _with(fn, module, reduction, *args):
    """fn with reduction= given: the module's functions seen through a partial."""

    class Reduced:
        def __getattr__(self, name):
            return functools.partial(getattr(module, name), reduction=reduction)

    return fn(Reduced(), *args)


def test_training_dropouts_keep_or_scale():
    x = sdk.ones(200, 8, 3)
    y = sdk.dropout(x, 0.25, True)
    kept = y.ne(0)
    assert bool((y[kept] - 1 / 0.75).abs().lt(1e-6).all())
    z = sdk.feature_dropout(x, 0.5, True)  # whole channels: each (n, c) row is all kept or not
    rows = z.ne(0).to(sdk.float32).mean(-1)
    assert bool((rows.eq(0) | rows.eq(1)).all())
    w = x.clone()
    assert sdk.dropout_(w, 0.5, True) is w


def test_linalg_forms():
    a = RNG.standard_normal((5, 3))
    q, r = sdk.qr(sdk.tensor(a))
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
    assert tuple(q.shape) == (5, 3) and tuple(sdk.qr(sdk.tensor(a), False)[0].shape) == (5, 5)
    u, s, v = sdk.svd(sdk.tensor(a))
    np.testing.assert_allclose((u * s.unsqueeze(0) @ v.t()).numpy(), a, atol=1e-12)
    tu, ts, tv = torch.svd(torch.tensor(a))
    assert_same(s, ts)
    assert tuple(v.shape) == tuple(tv.shape)
    _, _, v0 = sdk.svd(sdk.tensor(a), compute_uv=False)
    assert float(v0.abs().sum()) == 0.0
    assert_same(sdk.pinverse(sdk.tensor(a)), torch.pinverse(torch.tensor(a)), rtol=1e-9)
    t = sdk.tensor(a)
    assert_same(t.pinverse(1e-3), torch.tensor(a).pinverse(1e-3), rtol=1e-9)
    assert_same(t.qr().R.abs(), torch.tensor(a).qr().R.abs(), rtol=1e-9)
    assert_same(t.svd().S, torch.tensor(a).svd().S, rtol=1e-9)
    with pytest.raises(NotImplementedError, match="forward only"):
        sdk.tensor(a, requires_grad=True).svd()


@pytest.mark.parametrize("name", ["conv_transpose3d", "embedding_bag", "ctc_loss"])
def test_refused_names_say_what_to_do(name):
    with pytest.raises(NotImplementedError, match=f"torch.{name}"):
        getattr(sdk, name)(sdk.ones(1))
