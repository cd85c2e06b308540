"""nn.functional additions (norms, pooling, interpolate, losses, one_hot, normalize,
cosine_similarity, scaled_dot_product_attention) against numpy references, with gradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn
from sdk.autograd import gradcheck

RNG = np.random.default_rng(0)


def t64(a, grad=False):
    return sdk.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def close(t, ref, tol=1e-10):
    np.testing.assert_allclose(t.detach().numpy(), ref, rtol=tol, atol=tol)


# ---- normalization ----------------------------------------------------------------------


def test_batch_norm_training_updates_running_stats_and_eval_uses_them():
    x = RNG.normal(size=(4, 3, 5))
    rm, rv = sdk.zeros(3, dtype=sdk.float64), sdk.ones(3, dtype=sdk.float64)
    w, b = RNG.normal(size=3), RNG.normal(size=3)
    out = F.batch_norm(t64(x), rm, rv, t64(w), t64(b), training=True, momentum=0.2, eps=1e-5)
    mean, var = x.mean((0, 2)), x.var((0, 2))
    ref = (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5) * w[:, None] + b[:, None]
    close(out, ref)
    close(rm, 0.2 * mean)
    close(rv, 0.8 + 0.2 * x.var((0, 2), ddof=1))
    ev = F.batch_norm(t64(x), rm, rv, t64(w), t64(b), training=False)
    ref = (x - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5) * w[:, None] + b[:, None]
    close(ev, ref)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(t64(np.ones((1, 3))), None, None, training=True)


def test_group_norm_and_rms_norm():
    x = RNG.normal(size=(2, 6, 4))
    g = x.reshape(2, 3, -1)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(
        x.shape
    )
    close(F.group_norm(t64(x), 3), ref)
    with pytest.raises(ValueError, match="num_groups"):
        F.group_norm(t64(x), 4)
    w = RNG.normal(size=4)
    ref = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
    close(F.rms_norm(t64(x), (4,), t64(w), eps=1e-6), ref)
    default = F.rms_norm(t64(x), 4)
    close(default, x / np.sqrt((x * x).mean(-1, keepdims=True) + np.finfo(np.float64).eps))
    with pytest.raises(ValueError, match="normalized_shape"):
        F.rms_norm(t64(x), (3,))


# ---- pooling ----------------------------------------------------------------------------


def _np_pool2d(x, k, s, p, reduce, fill):
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    H = (x.shape[2] + 2 * p - k) // s + 1
    W = (x.shape[3] + 2 * p - k) // s + 1
    out = np.empty(x.shape[:2] + (H, W))
    for i in range(H):
        for j in range(W):
            out[:, :, i, j] = reduce(xp[:, :, i * s : i * s + k, j * s : j * s + k], axis=(2, 3))
    return out


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1), (3, 1, 1), (2, 3, 0)])
def test_max_and_avg_pool2d(k, s, p):
    x = RNG.normal(size=(2, 3, 7, 6))
    close(F.max_pool2d(t64(x), k, s, p), _np_pool2d(x, k, s, p, np.max, -np.inf))
    close(F.avg_pool2d(t64(x), k, s, p), _np_pool2d(x, k, s, p, np.mean, 0.0))


def test_avg_pool_without_pad_count_and_1d_pools():
    x = RNG.normal(size=(1, 2, 5, 5))
    got = F.avg_pool2d(t64(x), 3, 2, 1, count_include_pad=False)
    counts = _np_pool2d(np.ones((1, 1, 5, 5)), 3, 2, 1, np.sum, 0.0)
    close(got, _np_pool2d(x, 3, 2, 1, np.sum, 0.0) / counts)
    y = RNG.normal(size=(2, 3, 9))
    close(F.max_pool1d(t64(y), 3, 2), _np_pool2d(y[:, :, None, :].repeat(3, 2), 3, 2, 0, np.max,
                                                  0)[:, :, 0])  # fmt: skip
    close(F.avg_pool1d(t64(y), 3), y[:, :, :9].reshape(2, 3, 3, 3).mean(-1))
    close(F.max_pool1d(t64(y[0]), 2), y[0, :, :8].reshape(3, 4, 2).max(-1))  # unbatched


def test_max_pool_ceil_mode_and_dilation():
    x = RNG.normal(size=(1, 1, 5, 5))
    got = F.max_pool2d(t64(x), 2, 2, ceil_mode=True)
    assert tuple(got.shape) == (1, 1, 3, 3)
    assert got[0, 0, 2, 2].item() == x[0, 0, 4, 4]
    dil = F.max_pool2d(t64(x), 2, 1, dilation=2)
    ref = np.maximum.reduce([x[:, :, a : a + 3, b : b + 3] for a in (0, 2) for b in (0, 2)])
    close(dil, ref)


def test_max_pool_return_indices_point_at_the_maxima():
    x = RNG.normal(size=(2, 3, 6, 5))
    out, idx = F.max_pool2d(t64(x), 3, 2, 1, return_indices=True)
    assert idx.dtype == sdk.int64 and tuple(idx.shape) == tuple(out.shape)
    flat = x.reshape(2, 3, -1)
    picked = np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), -1).reshape(out.shape)
    close(out, picked)
    _, idx1 = F.max_pool1d(t64(x[0, 0]), 2, return_indices=True)  # unbatched (C, L)
    np.testing.assert_array_equal(idx1.numpy(), x[0, 0, :, :4].reshape(6, 2, 2).argmax(-1)
                                  + np.arange(2) * 2)  # fmt: skip
    mod_out, mod_idx = nn.MaxPool2d(2, return_indices=True)(t64(x))
    assert tuple(mod_idx.shape) == (2, 3, 3, 2)


def test_avg_pool_ceil_mode_divides_by_the_clipped_window():
    x = RNG.normal(size=(1, 1, 5))
    got = F.avg_pool1d(t64(x), 2, 2, ceil_mode=True)
    close(got, [[[x[0, 0, 0:2].mean(), x[0, 0, 2:4].mean(), x[0, 0, 4]]]])
    padded = F.avg_pool1d(t64(x), 3, 2, 1, ceil_mode=True)  # windows [-1,2) [1,4) [3,6)
    close(padded, [[[x[0, 0, 0:2].sum() / 3, x[0, 0, 1:4].mean(), x[0, 0, 3:5].sum() / 3]]])


def test_adaptive_pools_match_window_formula():
    x = RNG.normal(size=(2, 3, 7, 5))
    got = F.adaptive_avg_pool2d(t64(x), (3, 2))
    ref = np.empty((2, 3, 3, 2))
    for i in range(3):
        for j in range(2):
            h0, h1 = (i * 7) // 3, -(-(i + 1) * 7 // 3)
            w0, w1 = (j * 5) // 2, -(-(j + 1) * 5 // 2)
            ref[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean((2, 3))
    close(got, ref)
    close(F.adaptive_avg_pool2d(t64(x), 1), x.mean((2, 3), keepdims=True))
    close(F.adaptive_max_pool2d(t64(x), (1, None)), x.max(2, keepdims=True))
    close(F.adaptive_avg_pool1d(t64(x[0]), 2), _np_adaptive_5_to_2(x[0]))


def _np_adaptive_5_to_2(x):
    out = np.empty(x.shape[:-1] + (2,))
    out[..., 0] = x[..., 0:3].mean(-1)
    out[..., 1] = x[..., 2:5].mean(-1)
    return out


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda x: F.max_pool2d(x, 3, padding=2), "half of kernel"),
        (lambda x: F.max_pool2d(x, 0), "positive"),
        (lambda x: F.max_pool2d(x, "a"), "kernel_size"),
        (lambda x: F.max_pool2d(x[0, 0, 0], 2), "3-d or 4-d"),
        (lambda x: F.max_pool2d(x, 9), "too small"),
        (lambda x: F.avg_pool2d(x, 2, divisor_override=0), "divisor_override"),
        (lambda x: F.adaptive_avg_pool2d(x, (0, 1)), "positive"),
    ],
)
def test_pool_errors(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call(t64(RNG.normal(size=(1, 1, 4, 4))))


# ---- interpolate ------------------------------------------------------------------------


def _np_linear_1d(x, out, align):
    L = x.shape[-1]
    dst = np.arange(out)
    if align:
        src = dst * ((L - 1) / (out - 1) if out > 1 else 0)
    else:
        src = np.maximum((dst + 0.5) * L / out - 0.5, 0)
    i0 = np.minimum(np.floor(src).astype(int), L - 1)
    i1 = np.minimum(i0 + 1, L - 1)
    w = src - i0
    return x[..., i0] * (1 - w) + x[..., i1] * w


@pytest.mark.parametrize("align", [False, True])
def test_interpolate_linear_and_bilinear(align):
    x = RNG.normal(size=(2, 3, 5))
    close(F.interpolate(t64(x), size=8, mode="linear", align_corners=align),
          _np_linear_1d(x, 8, align))  # fmt: skip
    img = RNG.normal(size=(1, 2, 4, 5))
    got = F.interpolate(t64(img), size=(7, 3), mode="bilinear", align_corners=align)
    rows = np.swapaxes(_np_linear_1d(np.swapaxes(img, -1, -2), 7, align), -1, -2)
    close(got, _np_linear_1d(rows, 3, align))


def test_interpolate_nearest():
    x = RNG.normal(size=(1, 1, 3, 4))
    got = F.interpolate(t64(x), scale_factor=2)
    close(got, x.repeat(2, axis=2).repeat(2, axis=3))
    down = F.interpolate(t64(x), size=(2, 3))
    close(down, x[:, :, [0, 1]][:, :, :, [0, 1, 2]])
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(t64(x))
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(t64(x), scale_factor=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="bilinear mode needs 4D"):
        F.interpolate(t64(x[0]), scale_factor=2, mode="bilinear")


# ---- losses -----------------------------------------------------------------------------

X = RNG.normal(size=(4, 3))
Y = RNG.normal(size=(4, 3))
P = 1 / (1 + np.exp(-X))
T01 = (RNG.uniform(size=(4, 3)) > 0.5).astype(np.float64)


def _smooth(d, beta):
    a = np.abs(d)
    return np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)


LOSS_CASES = {
    "l1": (lambda: F.l1_loss(t64(X), t64(Y)), np.abs(X - Y).mean()),
    "l1_sum": (lambda: F.l1_loss(t64(X), t64(Y), reduction="sum"), np.abs(X - Y).sum()),
    "smooth_l1": (lambda: F.smooth_l1_loss(t64(X), t64(Y), beta=0.5), _smooth(X - Y, 0.5).mean()),
    "huber": (lambda: F.huber_loss(t64(X), t64(Y), delta=0.7), (0.7 * _smooth(X - Y, 0.7)).mean()),
    "bce": (lambda: F.binary_cross_entropy(t64(P), t64(T01)),
            -(T01 * np.log(P) + (1 - T01) * np.log(1 - P)).mean()),
    "bce_logits": (lambda: F.binary_cross_entropy_with_logits(t64(X), t64(T01), reduction="none"),
                   -(T01 * np.log(P) + (1 - T01) * np.log(1 - P))),
    "bce_logits_pos_weight": (
        lambda: F.binary_cross_entropy_with_logits(t64(X), t64(T01), pos_weight=t64([1, 2, 3.0])),
        -(np.array([1, 2, 3.0]) * T01 * np.log(P) + (1 - T01) * np.log(1 - P)).mean()),
    "kl_batchmean": (lambda: F.kl_div(t64(np.log(P)), t64(P[::-1].copy()), reduction="batchmean"),
                     (P[::-1] * (np.log(P[::-1]) - np.log(P))).sum() / 4),
    "kl_log_target": (lambda: F.kl_div(t64(X), t64(Y), reduction="sum", log_target=True),
                      (np.exp(Y) * (Y - X)).sum()),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(LOSS_CASES))
def test_losses_match_numpy(name):
    fn, ref = LOSS_CASES[name]
    close(fn(), ref)


def test_bce_clamps_log_and_checks_range():
    out = F.binary_cross_entropy(t64([0.0, 1.0]), t64([1.0, 0.0]), reduction="none")
    close(out, [100.0, 100.0])
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.binary_cross_entropy(t64([1.5]), t64([1.0]))
    with pytest.raises(ValueError, match="reduction"):
        F.l1_loss(t64(X), t64(Y), reduction="avg")
    with pytest.raises(TypeError, match="target"):
        F.l1_loss(t64(X), Y)


# ---- one_hot, normalize, cosine_similarity, attention -----------------------------------


def test_one_hot():
    idx = sdk.tensor([[0, 2], [1, 0]])
    out = F.one_hot(idx)
    assert out.dtype == sdk.int64 and tuple(out.shape) == (2, 2, 3)
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype=np.int64)[idx.numpy()])
    assert tuple(F.one_hot(idx, 5).shape) == (2, 2, 5)
    with pytest.raises(ValueError, match="smaller than num_classes"):
        F.one_hot(idx, 2)
    with pytest.raises(TypeError, match="index tensor"):
        F.one_hot(sdk.tensor([0.0]))
    with pytest.raises(ValueError, match="non-negative"):
        F.one_hot(sdk.tensor([-1]))


def test_normalize_and_cosine_similarity():
    close(F.normalize(t64(X)), X / np.linalg.norm(X, axis=1, keepdims=True))
    close(F.normalize(t64(X), p=1, dim=0), X / np.abs(X).sum(0, keepdims=True))
    close(F.normalize(t64(np.zeros((2, 2)))), np.zeros((2, 2)))
    ref = (X * Y).sum(1) / (np.linalg.norm(X, axis=1) * np.linalg.norm(Y, axis=1))
    close(F.cosine_similarity(t64(X), t64(Y)), ref)
    close(F.cosine_similarity(t64(X), t64(Y[:1])), (X * Y[:1]).sum(1) / (
        np.linalg.norm(X, axis=1) * np.linalg.norm(Y[:1])))  # fmt: skip


def _np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_scaled_dot_product_attention():
    q, k, v = (RNG.normal(size=(2, 3, n, 4)) for n in (5, 6, 6))
    scores = q @ np.swapaxes(k, -1, -2) / 2.0
    close(F.scaled_dot_product_attention(t64(q), t64(k), t64(v)), _np_softmax(scores) @ v)
    mask = RNG.uniform(size=(5, 6)) > 0.3
    mask[:, 0] = True
    masked = np.where(mask, scores, -np.inf)
    close(F.scaled_dot_product_attention(t64(q), t64(k), t64(v), attn_mask=sdk.tensor(mask)),
          _np_softmax(masked) @ v)  # fmt: skip
    qc = RNG.normal(size=(2, 6, 4))
    causal = np.where(np.tril(np.ones((6, 6), bool)), qc @ np.swapaxes(qc, -1, -2) * 0.1, -np.inf)
    close(F.scaled_dot_product_attention(t64(qc), t64(qc), t64(qc), is_causal=True, scale=0.1),
          _np_softmax(causal) @ qc)  # fmt: skip
    kv = RNG.normal(size=(2, 1, 6, 4))
    gqa = F.scaled_dot_product_attention(t64(q), t64(kv), t64(kv), enable_gqa=True)
    close(gqa, _np_softmax(q @ np.swapaxes(kv, -1, -2) / 2.0) @ kv)
    with pytest.raises(ValueError, match="is_causal"):
        F.scaled_dot_product_attention(t64(q), t64(k), t64(v), attn_mask=sdk.tensor(mask),
                                       is_causal=True)  # fmt: skip


# ---- gradients --------------------------------------------------------------------------

GRAD_CASES = {
    "batch_norm": (lambda x, w: F.batch_norm(x, None, None, w, None, training=True), (3, 2, 4), (2,)),
    "group_norm": (lambda x, w: F.group_norm(x, 2, w), (2, 4, 3), (4,)),
    "rms_norm": (lambda x, w: F.rms_norm(x, 3, w), (2, 4, 3), (3,)),
    "max_pool2d": (lambda x, w: F.max_pool2d(x * w.sum(), 3, 2, 1), (1, 2, 5, 5), (1,)),
    "avg_pool2d": (lambda x, w: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False) * w, (1, 2, 5, 5), (1,)),
    "adaptive_avg": (lambda x, w: F.adaptive_avg_pool2d(x, (2, 3)) * w, (1, 2, 5, 7), (1,)),
    "bilinear": (lambda x, w: F.interpolate(x, size=(5, 3), mode="bilinear") * w, (1, 1, 3, 4), (1,)),
    "smooth_l1": (lambda x, w: F.smooth_l1_loss(x, w.expand(2, 3), beta=0.5), (2, 3), (3,)),
    "bce_logits": (lambda x, w: F.binary_cross_entropy_with_logits(
        x, sdk.tensor([[0.0, 1, 1], [1, 0, 0]], dtype=sdk.float64), pos_weight=w.abs()), (2, 3), (3,)),
    "bce": (lambda x, w: F.binary_cross_entropy(x.sigmoid(), w.sigmoid().expand(2, 3)), (2, 3), (3,)),
    "kl_div": (lambda x, w: F.kl_div(x.log_softmax(-1), w.softmax(-1).expand(2, 3),
                                     reduction="batchmean"), (2, 3), (3,)),
    "cosine": (lambda x, w: F.cosine_similarity(x, w, dim=-1), (2, 3), (3,)),
    "normalize": (lambda x, w: F.normalize(x * w, dim=-1), (2, 3), (3,)),
    "sdpa": (lambda x, w: F.scaled_dot_product_attention(x, x * w, x, is_causal=True), (2, 4, 3), (3,)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck(name):
    fn, xs, ws = GRAD_CASES[name]
    rng = np.random.default_rng(1)
    x, w = t64(rng.normal(size=xs), True), t64(rng.normal(size=ws) + 1.5, True)
    assert gradcheck(fn, (x, w), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize(("mode", "kw"), [("nearest", {"scale_factor": 3}),
                                          ("nearest", {"size": (7, 5)}),
                                          ("bilinear", {"scale_factor": 2}),
                                          ("bilinear", {"size": (4, 9), "align_corners": True})])  # fmt: skip
def test_interpolate_gradients_and_second_derivatives(mode, kw):
    """Values and gradients against torch (whole-factor nearest is a broadcast copy with a
    box-sum gradient; the last dim is resized through the leading one); second derivatives
    by finite differences."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(8).normal(size=(2, 3, 4, 5))
    sx, tx = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    s_out = F.interpolate(sx, mode=mode, **kw)
    t_out = torch.nn.functional.interpolate(tx, mode=mode, **kw)
    assert s_out.is_contiguous()
    np.testing.assert_allclose(s_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    w = np.random.default_rng(9).normal(size=tuple(t_out.shape))
    (s_out * sdk.tensor(w)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(sx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    x = sdk.tensor(a[:1, :1], requires_grad=True)
    assert sdk.autograd.gradgradcheck(lambda t: F.interpolate(t, mode=mode, **kw), (x,))
