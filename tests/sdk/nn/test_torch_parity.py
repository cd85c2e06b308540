"""The nn additions against torch itself (skipped without torch): same parameters and inputs
give the same outputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(0)


def _pair(shape, positive=False):
    a = RNG.normal(size=shape)
    if positive:
        a = np.abs(a) + 0.1
    return sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(s_out, t_out, s_in, t_in, tol=1e-9):
    np.testing.assert_allclose(s_out.detach().numpy(), t_out.detach().numpy(), rtol=tol, atol=tol)
    s_out.sum().backward() if s_out.ndim else s_out.backward()
    (t_out.sum() if t_out.ndim else t_out).backward()
    for s, t in zip(s_in, t_in):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def _copy_params(s_mod, t_mod):
    t_sd = t_mod.state_dict()
    for name, v in s_mod.state_dict().items():
        t_sd[name].copy_(torch.tensor(v.numpy()))


FUNCS = {
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 3, 2, 1), (2, 2, 7, 6)),
    "max_pool2d_ceil": (lambda m, x: m.max_pool2d(x, 2, 2, ceil_mode=True), (1, 2, 5, 5)),
    "max_pool1d": (lambda m, x: m.max_pool1d(x, 3, 1, 1, dilation=2), (2, 3, 9)),
    "avg_pool2d": (lambda m, x: m.avg_pool2d(x, 3, 2, 1, count_include_pad=False), (2, 2, 7, 6)),
    "avg_pool1d": (lambda m, x: m.avg_pool1d(x, 2), (2, 3, 9)),
    "avg_pool2d_ceil": (lambda m, x: m.avg_pool2d(x, 3, 2, 1, ceil_mode=True), (1, 2, 6, 7)),
    "avg_pool2d_ceil_nopad": (
        lambda m, x: m.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        (1, 2, 6, 7),
    ),  # fmt: skip
    "avg_pool1d_ceil": (lambda m, x: m.avg_pool1d(x, 2, 2, ceil_mode=True), (2, 3, 9)),
    "adaptive_avg_pool2d": (lambda m, x: m.adaptive_avg_pool2d(x, (3, 4)), (2, 2, 7, 6)),
    "adaptive_max_pool2d": (lambda m, x: m.adaptive_max_pool2d(x, (4, 3)), (2, 2, 7, 6)),
    "bilinear": (lambda m, x: m.interpolate(x, size=(9, 4), mode="bilinear"), (1, 2, 5, 6)),
    "bilinear_ac": (
        lambda m, x: m.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True),
        (1, 2, 5, 6),
    ),  # fmt: skip
    "linear_scale": (lambda m, x: m.interpolate(x, scale_factor=2.5, mode="linear"), (2, 2, 5)),
    "nearest": (lambda m, x: m.interpolate(x, size=(7, 3)), (1, 2, 5, 6)),
    "area": (lambda m, x: m.interpolate(x, size=(3, 4), mode="area"), (1, 2, 5, 6)),
    "nearest_exact": (
        lambda m, x: m.interpolate(x, size=(7, 4), mode="nearest-exact"),
        (1, 2, 5, 6),
    ),
    "group_norm": (lambda m, x: m.group_norm(x, 2), (2, 4, 3)),
    "normalize": (lambda m, x: m.normalize(x, p=3, dim=-1), (3, 4)),
    "cosine_similarity": (lambda m, x: m.cosine_similarity(x, x.flip(0), dim=-1), (3, 4)),
    "sdpa_causal": (
        lambda m, x: m.scaled_dot_product_attention(x, x * 0.5, x, is_causal=True),
        (2, 5, 4),
    ),  # fmt: skip
    "smooth_l1": (lambda m, x: m.smooth_l1_loss(x, x.flip(0) * 2, beta=0.3), (4, 3)),
    "huber": (lambda m, x: m.huber_loss(x, x.flip(0) * 2, delta=0.6), (4, 3)),
    "l1": (lambda m, x: m.l1_loss(x, x.flip(1), reduction="sum"), (4, 3)),
    "bce_logits": (
        lambda m, x: m.binary_cross_entropy_with_logits(
            x, (x.flip(0) > 0).double(), pos_weight=x[0].abs().detach()
        ),
        (4, 3),
    ),  # fmt: skip
    "bce": (lambda m, x: m.binary_cross_entropy(x.sigmoid(), x.flip(0).sigmoid()), (4, 3)),
    "kl_div": (
        lambda m, x: m.kl_div(x.log_softmax(-1), x.flip(0).softmax(-1), reduction="batchmean"),
        (4, 3),
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_functional_matches_torch(name):
    fn, shape = FUNCS[name]
    s, t = _pair(shape)
    _check(fn(F, s), fn(TF, t), [s], [t])


def test_rms_norm_and_batch_norm_functional():
    s, t = _pair((4, 3, 5))
    w = RNG.normal(size=5)
    _check(F.rms_norm(s, (5,), sdk.tensor(w)), TF.rms_norm(t, (5,), torch.tensor(w)), [s], [t])
    s, t = _pair((4, 3, 5))
    srm, trm = sdk.zeros(3, dtype=sdk.float64), torch.zeros(3, dtype=torch.float64)
    srv, trv = sdk.ones(3, dtype=sdk.float64), torch.ones(3, dtype=torch.float64)
    _check(F.batch_norm(s, srm, srv, training=True, momentum=0.3),
           TF.batch_norm(t, trm, trv, training=True, momentum=0.3), [s], [t])  # fmt: skip
    np.testing.assert_allclose(srv.numpy(), trv.numpy(), rtol=1e-12)


MODULES = {
    "BatchNorm2d": (lambda m: m.BatchNorm2d(3), (4, 3, 2, 2)),
    "BatchNorm1d": (lambda m: m.BatchNorm1d(3, momentum=None), (4, 3)),
    "GroupNorm": (lambda m: m.GroupNorm(2, 4), (2, 4, 3)),
    "RMSNorm": (lambda m: m.RMSNorm(3), (2, 4, 3)),
    "LSTM": (lambda m: m.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True), (2, 5, 3)),
    "GRU": (lambda m: m.GRU(3, 4, num_layers=2), (5, 2, 3)),
    "RNN": (lambda m: m.RNN(3, 4, nonlinearity="relu", bias=False), (5, 2, 3)),
    "MultiheadAttention": (lambda m: m.MultiheadAttention(8, 4, batch_first=True), (2, 5, 8)),
    "MultiheadAttention_kvdim": (lambda m: m.MultiheadAttention(8, 2, kdim=8, vdim=8), (5, 2, 8)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_matches_torch(name):
    make, shape = MODULES[name]
    sm, tm = make(nn).double(), make(torch.nn).double()
    _copy_params(sm, tm)
    s, t = _pair(shape)
    if name.startswith("Multihead"):
        so, sw = sm(s, s, s)
        to, tw = tm(t, t, t)
        np.testing.assert_allclose(sw.detach().numpy(), tw.detach().numpy(), rtol=1e-9, atol=1e-12)
    else:
        so, to = sm(s), tm(t)
        if isinstance(so, tuple):
            so, to = so[0], to[0]
    _check(so, to, [s, *sm.parameters()], [t, *tm.parameters()])
    for (n, a), (_, b) in zip(sm.state_dict().items(), tm.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, err_msg=n)


def test_module_parameter_names_and_shapes_match_torch():
    for make, _ in MODULES.values():
        s_names = [(n, tuple(p.shape)) for n, p in make(nn).named_parameters()]
        t_names = [(n, tuple(p.shape)) for n, p in make(torch.nn).named_parameters()]
        assert s_names == t_names


def test_lr_and_one_hot_and_finfo_agree_with_torch():
    idx = [[0, 3], [2, 1]]
    np.testing.assert_array_equal(F.one_hot(sdk.tensor(idx)).numpy(),
                                  TF.one_hot(torch.tensor(idx)).numpy())  # fmt: skip
    for name in ("float16", "bfloat16", "float32", "float64"):
        a, b = sdk.finfo(getattr(sdk, name)), torch.finfo(getattr(torch, name))
        assert (a.bits, a.eps, a.max, a.min, a.tiny, a.resolution) == (
            b.bits, b.eps, b.max, b.min, b.tiny, b.resolution)  # fmt: skip
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        a, b = sdk.iinfo(getattr(sdk, name)), torch.iinfo(getattr(torch, name))
        assert (a.bits, a.min, a.max) == (b.bits, b.min, b.max)


@pytest.mark.parametrize(
    "fn, shape, kw",
    [
        ("max_pool2d", (2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
        ("max_pool2d", (2, 3, 7, 6), dict(kernel_size=2, dilation=2, ceil_mode=True)),
        ("max_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ],
)
def test_max_pool_indices_match_torch(fn, shape, kw):
    x = RNG.normal(size=shape)
    s_out, s_idx = getattr(F, fn)(sdk.tensor(x), return_indices=True, **kw)
    t_out, t_idx = getattr(TF, fn)(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(s_idx.numpy(), t_idx.numpy())
    np.testing.assert_allclose(s_out.numpy(), t_out.numpy())
