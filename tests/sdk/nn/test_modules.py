"""sdk.nn modules added for training: norms with running stats, pooling, containers, losses,
MultiheadAttention, RNN/LSTM/GRU (numpy step-by-step references), Module hooks, Module
utilities, init.trunc_normal_/orthogonal_, inference_mode, finfo/iinfo."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk import nn
from sdk.autograd import gradcheck

RNG = np.random.default_rng(0)


def t64(a, grad=False):
    return sdk.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def npy(t):
    return t.detach().numpy()


def sig(x):
    return 1 / (1 + np.exp(-x))


# ---- norms ------------------------------------------------------------------------------


def test_batchnorm_train_eval_and_state_dict():
    bn = nn.BatchNorm2d(3).double()
    x = RNG.normal(size=(4, 3, 2, 2)) * 2 + 1
    bn(t64(x))
    np.testing.assert_allclose(npy(bn.running_mean), 0.1 * x.mean((0, 2, 3)), rtol=1e-10)
    np.testing.assert_allclose(
        npy(bn.running_var), 0.9 + 0.1 * x.var((0, 2, 3), ddof=1), rtol=1e-10
    )
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    out = bn(t64(x))
    ref = (x - npy(bn.running_mean)[:, None, None]) / np.sqrt(
        npy(bn.running_var)[:, None, None] + 1e-5
    )
    np.testing.assert_allclose(npy(out), ref, rtol=1e-10)
    assert bn.num_batches_tracked.item() == 1  # eval does not count
    assert sorted(bn.state_dict()) == ["bias", "num_batches_tracked", "running_mean", "running_var",
                                       "weight"]  # fmt: skip
    with pytest.raises(ValueError, match="expected 4D input"):
        bn(t64(x[0]))
    with pytest.raises(ValueError, match="channels"):
        nn.BatchNorm1d(5)(t64(RNG.normal(size=(4, 3))))


def test_batchnorm_cumulative_average_and_no_tracking():
    bn = nn.BatchNorm1d(2, momentum=None).double()
    a, b = RNG.normal(size=(5, 2)), RNG.normal(size=(5, 2))
    bn(t64(a))
    bn(t64(b))
    np.testing.assert_allclose(npy(bn.running_mean), (a.mean(0) + b.mean(0)) / 2, rtol=1e-10)
    free = nn.BatchNorm1d(2, track_running_stats=False, affine=False).double().eval()
    out = free(t64(a))  # batch statistics even in eval
    np.testing.assert_allclose(npy(out), (a - a.mean(0)) / np.sqrt(a.var(0) + 1e-5), rtol=1e-10)
    assert free.running_mean is None and list(free.parameters()) == []


def test_group_norm_and_rms_norm_modules():
    gn = nn.GroupNorm(2, 4)
    assert [tuple(p.shape) for p in gn.parameters()] == [(4,), (4,)]
    assert tuple(gn(sdk.randn(2, 4, 3)).shape) == (2, 4, 3)
    rms = nn.RMSNorm([2, 3], eps=1e-6)
    x = RNG.normal(size=(4, 2, 3))
    np.testing.assert_allclose(npy(rms.double()(t64(x))),
                               x / np.sqrt((x**2).mean((1, 2), keepdims=True) + 1e-6), rtol=1e-10)  # fmt: skip
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)


# ---- pooling, reshaping, containers -----------------------------------------------------


def test_pool_modules_shapes_and_repr():
    x = sdk.randn(2, 3, 9, 8)
    assert tuple(nn.MaxPool2d(2)(x).shape) == (2, 3, 4, 4)
    assert tuple(nn.MaxPool2d(3, stride=2, padding=1)(x).shape) == (2, 3, 5, 4)
    assert tuple(nn.AvgPool2d(2, stride=1)(x).shape) == (2, 3, 8, 7)
    assert tuple(nn.AdaptiveAvgPool2d((1, 1))(x).shape) == (2, 3, 1, 1)
    assert tuple(nn.AdaptiveMaxPool2d(2)(x).shape) == (2, 3, 2, 2)
    assert tuple(nn.MaxPool1d(2)(x[0]).shape) == (3, 9, 4)
    assert tuple(nn.AvgPool1d(3)(x[0]).shape) == (3, 9, 2)
    assert "kernel_size=2" in repr(nn.MaxPool2d(2))


def test_flatten_unflatten():
    x = sdk.randn(2, 3, 4, 5)
    assert tuple(nn.Flatten()(x).shape) == (2, 60)
    assert tuple(nn.Flatten(0, 1)(x).shape) == (6, 4, 5)
    assert tuple(nn.Unflatten(1, (3, -1))(sdk.randn(2, 12)).shape) == (2, 3, 4)
    assert tuple(nn.Unflatten(-1, (2, 2))(sdk.randn(3, 4)).shape) == (3, 2, 2)
    with pytest.raises(TypeError, match="unflattened_size"):
        nn.Unflatten(1, 3)


def test_module_dict():
    d = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    d["c"] = nn.Linear(2, 1)
    assert list(d) == ["a", "b", "c"] and len(d) == 3 and "b" in d
    assert sorted(n for n, _ in d.named_parameters()) == [
        "a.bias",
        "a.weight",
        "c.bias",
        "c.weight",
    ]
    d.pop("a")
    assert list(d.keys()) == ["b", "c"]
    with pytest.raises(TypeError):
        d["x"] = 3


def test_parameter_list_and_dict():
    pl = nn.ParameterList([sdk.zeros(2), nn.Parameter(sdk.ones(3))])
    pl.append(sdk.zeros(1))
    assert len(pl) == 3 and all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert tuple(pl[-2].shape) == (3,)
    with pytest.raises(IndexError):
        pl[3]
    pd = nn.ParameterDict({"w": sdk.zeros(2)})
    pd["b"] = nn.Parameter(sdk.ones(1))
    assert list(pd) == ["w", "b"] and isinstance(pd["w"], nn.Parameter)
    m = nn.Module()
    m.params = pd
    assert sorted(m.state_dict()) == ["params.b", "params.w"]
    del pd["w"]
    assert list(pd.keys()) == ["b"]


# ---- losses (modules) -------------------------------------------------------------------


def test_loss_modules():
    x, y = t64(RNG.normal(size=(3, 2)), True), t64(RNG.normal(size=(3, 2)))
    assert nn.L1Loss()(x, y).item() == pytest.approx(np.abs(npy(x) - npy(y)).mean())
    assert nn.L1Loss(reduction="sum")(x, y).item() == pytest.approx(np.abs(npy(x) - npy(y)).sum())
    assert nn.L1Loss(size_average=False)(x, y).item() == pytest.approx(
        np.abs(npy(x) - npy(y)).sum()
    )
    assert tuple(nn.SmoothL1Loss(reduction="none")(x, y).shape) == (3, 2)
    assert nn.HuberLoss(delta=10.0)(x, y).item() == pytest.approx(
        0.5 * ((npy(x) - npy(y)) ** 2).mean()
    )
    p = x.sigmoid()
    t = t64((RNG.uniform(size=(3, 2)) > 0.5) * 1.0)
    a = nn.BCELoss()(p, t)
    b = nn.BCEWithLogitsLoss()(x, t)
    assert a.item() == pytest.approx(b.item(), rel=1e-10)
    b.backward()
    np.testing.assert_allclose(npy(x.grad), (sig(npy(x)) - npy(t)) / 6, rtol=1e-10)
    kl = nn.KLDivLoss(reduction="batchmean", log_target=True)
    assert kl(x, x).item() == pytest.approx(0.0)
    with pytest.raises(ValueError, match="reduction"):
        nn.L1Loss(reduction="batchmean")


# ---- attention and recurrent layers -----------------------------------------------------


def _np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _np_mha(m, q, k, v, mask=None, kpm=None):
    """q (N, L, E) etc. -> output (N, L, E), weights averaged over heads."""
    E, H = m.embed_dim, m.num_heads
    d = E // H
    W, b = npy(m.in_proj_weight), npy(m.in_proj_bias)
    Q, K, V = q @ W[:E].T + b[:E], k @ W[E : 2 * E].T + b[E : 2 * E], v @ W[2 * E :].T + b[2 * E :]
    N, L, S = q.shape[0], q.shape[1], k.shape[1]
    split = lambda x, n: x.reshape(N, n, H, d).transpose(0, 2, 1, 3)  # noqa: E731
    s = split(Q, L) @ split(K, S).transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    if kpm is not None:
        s = np.where(kpm[:, None, None, :], -np.inf, s)
    w = _np_softmax(s)
    out = (w @ split(V, S)).transpose(0, 2, 1, 3).reshape(N, L, E)
    return out @ npy(m.out_proj.weight).T + npy(m.out_proj.bias), w.mean(1)


def test_multihead_attention_matches_numpy():
    m = nn.MultiheadAttention(8, 2, batch_first=True).double()
    with sdk.no_grad():
        m.in_proj_bias.normal_()
        m.out_proj.bias.normal_()
    q, k = RNG.normal(size=(2, 4, 8)), RNG.normal(size=(2, 5, 8))
    mask = RNG.uniform(size=(4, 5)) > 0.7
    mask[:, 0] = False
    kpm = np.zeros((2, 5), bool)
    kpm[1, 4] = True
    out, w = m(t64(q), t64(k), t64(k), attn_mask=sdk.tensor(mask), key_padding_mask=sdk.tensor(kpm))
    ref_out, ref_w = _np_mha(m, q, k, k, mask, kpm)
    np.testing.assert_allclose(npy(out), ref_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(npy(w), ref_w, rtol=1e-9, atol=1e-12)
    seq_first, _ = nn.MultiheadAttention(8, 2).double()(t64(q[0][:, None]), t64(k[0][:, None]),
                                                        t64(k[0][:, None]))  # fmt: skip
    assert tuple(seq_first.shape) == (4, 1, 8)
    unb, uw = m(t64(q[0]), t64(k[0]), t64(k[0]), need_weights=True, average_attn_weights=False)
    assert tuple(unb.shape) == (4, 8) and tuple(uw.shape) == (2, 4, 5)
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(7, 2)


def _np_lstm_layer(x, h, c, w_ih, w_hh, b):
    outs = []
    for t in range(x.shape[0]):
        g = x[t] @ w_ih.T + h @ w_hh.T + b
        i, f, gg, o = np.split(g, 4, -1)
        c = sig(f) * c + sig(i) * np.tanh(gg)
        h = sig(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs), h, c


def _np_gru_layer(x, h, w_ih, w_hh, b_ih, b_hh):
    outs = []
    for t in range(x.shape[0]):
        ir, iz, in_ = np.split(x[t] @ w_ih.T + b_ih, 3, -1)
        hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, -1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(in_ + r * hn)
        h = (1 - z) * n + z * h
        outs.append(h)
    return np.stack(outs), h


def _p(m, name):
    return npy(getattr(m, name))


def test_lstm_stacked_batch_first_matches_numpy():
    m = nn.LSTM(3, 4, num_layers=2, batch_first=True).double()
    x = RNG.normal(size=(2, 5, 3))
    out, (h, c) = m(t64(x))
    seq = x.transpose(1, 0, 2)
    hs, cs = [], []
    for layer in range(2):
        b = _p(m, f"bias_ih_l{layer}") + _p(m, f"bias_hh_l{layer}")
        seq, hl, cl = _np_lstm_layer(seq, np.zeros((2, 4)), np.zeros((2, 4)),
                                     _p(m, f"weight_ih_l{layer}"), _p(m, f"weight_hh_l{layer}"), b)  # fmt: skip
        hs.append(hl)
        cs.append(cl)
    np.testing.assert_allclose(npy(out), seq.transpose(1, 0, 2), rtol=1e-10)
    np.testing.assert_allclose(npy(h), np.stack(hs), rtol=1e-10)
    np.testing.assert_allclose(npy(c), np.stack(cs), rtol=1e-10)


def test_gru_bidirectional_with_initial_state_matches_numpy():
    m = nn.GRU(3, 4, bidirectional=True).double()
    x, h0 = RNG.normal(size=(6, 2, 3)), RNG.normal(size=(2, 2, 4))
    out, h = m(t64(x), t64(h0))
    fwd, hf = _np_gru_layer(x, h0[0], *(_p(m, n) for n in ("weight_ih_l0", "weight_hh_l0",
                                                             "bias_ih_l0", "bias_hh_l0")))  # fmt: skip
    bwd, hb = _np_gru_layer(x[::-1], h0[1], *(_p(m, n + "_l0_reverse") for n in
                                             ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))  # fmt: skip
    np.testing.assert_allclose(npy(out), np.concatenate([fwd, bwd[::-1]], -1), rtol=1e-10)
    np.testing.assert_allclose(npy(h), np.stack([hf, hb]), rtol=1e-10)


def test_rnn_shapes_unbatched_params_and_errors():
    m = nn.RNN(3, 5, 2, nonlinearity="relu")
    out, h = m(sdk.randn(7, 3))
    assert tuple(out.shape) == (7, 5) and tuple(h.shape) == (2, 5)
    assert [n for n, _ in nn.LSTM(2, 3).named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]  # fmt: skip
    assert tuple(nn.GRU(2, 3).weight_ih_l0.shape) == (9, 2)
    with pytest.raises(ValueError, match="input_size"):
        m(sdk.randn(7, 2, 4))
    with pytest.raises(ValueError, match="hidden size"):
        m(sdk.randn(7, 2, 3), sdk.zeros(1, 2, 5))
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(3, 5, nonlinearity="gelu")
    with pytest.raises(TypeError, match="hx"):
        nn.LSTM(3, 4)(sdk.randn(2, 1, 3), sdk.zeros(1, 1, 4))


def test_recurrent_and_attention_gradients():
    lstm = nn.LSTM(2, 3).double()
    x = t64(RNG.normal(size=(4, 1, 2)), True)
    assert gradcheck(lambda x: lstm(x)[0], (x,), eps=1e-6, atol=1e-6)
    gru = nn.GRU(2, 2, batch_first=True).double()
    assert gradcheck(lambda x: gru(x)[1], (x,), eps=1e-6, atol=1e-6)
    mha = nn.MultiheadAttention(4, 2).double()
    q = t64(RNG.normal(size=(3, 1, 4)), True)
    assert gradcheck(lambda q: mha(q, q, q)[0], (q,), eps=1e-6, atol=1e-6)


# ---- hooks ------------------------------------------------------------------------------


def test_forward_hooks_can_change_args_and_output_and_be_removed():
    m = nn.Linear(2, 2)
    calls = []
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    post = m.register_forward_hook(
        lambda mod, args, out: calls.append(args[0].sum().item()) or out + 1
    )
    out = m(sdk.ones(1, 2))
    np.testing.assert_allclose(npy(out), npy(m.bias)[None] + 1, rtol=1e-6)
    assert calls == [0.0]
    pre.remove()
    post.remove()
    np.testing.assert_allclose(npy(m(sdk.zeros(1, 2))), npy(m.bias)[None], rtol=1e-6)


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    class Scale(nn.Module):
        def forward(self, x, k=1.0):
            if k == 0:
                raise ValueError("k is 0")
            return x * k

    m = Scale()
    order = []
    m.register_forward_pre_hook(lambda mod, a, kw: (a, {"k": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, a, out: order.append("second"))
    m.register_forward_hook(lambda mod, a, out: order.append("first"), prepend=True)
    assert m(sdk.ones(1), k=2.0).item() == 3.0
    assert order == ["first", "second"]
    seen = []
    m2 = Scale()
    m2.register_forward_hook(lambda mod, a, kw, out: seen.append(out), with_kwargs=True,
                             always_call=True)  # fmt: skip
    with pytest.raises(ValueError, match="k is 0"):
        m2(sdk.ones(1), k=0)
    assert seen == [None]
    with pytest.raises(TypeError, match="callable"):
        m2.register_forward_hook(3)


def test_full_backward_hooks_see_and_replace_gradients():
    m = nn.Linear(3, 2).double()
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["in"] = npy(grad_input[0]).copy()
        seen["out"] = npy(grad_output[0]).copy()
        return (grad_input[0] * 2,)

    m.register_full_backward_pre_hook(lambda mod, go: seen.update(pre=len(go)))
    h = m.register_full_backward_hook(hook)
    x = t64(RNG.normal(size=(4, 3)), True)
    (m(x) * 3).sum().backward()
    np.testing.assert_allclose(seen["out"], np.full((4, 2), 3.0))
    np.testing.assert_allclose(seen["in"], np.full((4, 2), 3.0) @ npy(m.weight))
    np.testing.assert_allclose(npy(x.grad), 2 * seen["in"])
    assert seen["pre"] == 1
    np.testing.assert_allclose(
        npy(m.weight.grad), np.full((2, 4), 3.0) @ npy(x)
    )  # params unchanged
    h.remove()
    seen.clear()
    x.grad = None
    m(x).sum().backward()
    assert "in" not in seen and seen["pre"] == 1
    m.register_full_backward_pre_hook(lambda mod, go: 5)
    with pytest.raises(TypeError, match="backward pre-hook must return None"):
        m(x).sum().backward()


def test_backward_hook_grad_input_is_none_when_inputs_need_no_grad():
    m = nn.Linear(3, 2)
    got = []
    m.register_full_backward_hook(lambda mod, gi, go: got.append(gi))
    m(sdk.ones(1, 3)).sum().backward()
    assert got == [(None,)]


# ---- Module utilities -------------------------------------------------------------------


def test_module_apply_to_double_half_and_named_modules():
    net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    assert [n for n, _ in net.named_modules()] == ["", "0", "1", "1.0", "1.1"]
    net.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, nn.Linear) else None)
    assert all(float(abs(p).sum().item()) == 0 for n, p in net.named_parameters() if "bias" in n)
    assert net.double()[0].weight.dtype == sdk.float64
    assert net.to(sdk.float32)[1][1].weight.dtype == sdk.float32
    assert net.half()[0].weight.dtype == sdk.float16


def test_module_cuda_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="only the cpu device"):
        nn.Linear(2, 2).cuda()
    assert nn.Linear(2, 2).cpu() is not None


def test_register_buffer_persistent():
    m = nn.Module()
    m.register_buffer("kept", sdk.zeros(1))
    m.register_buffer("scratch", sdk.zeros(1), persistent=False)
    assert list(m.state_dict()) == ["kept"]
    assert [n for n, _ in m.named_buffers()] == ["kept", "scratch"]


# ---- init, inference_mode, finfo --------------------------------------------------------


def test_trunc_normal_and_orthogonal():
    t = sdk.empty(20000)
    nn.init.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=2.0, generator=sdk.Generator(0))
    v = t.numpy()
    assert v.min() >= -1.0 and v.max() <= 2.0
    assert abs(v.mean() - 0.5766) < 0.02  # the mean of N(1, 4) truncated to [-1, 2]
    w = sdk.empty(3, 5)
    nn.init.orthogonal_(w, gain=2.0)
    np.testing.assert_allclose(w.numpy() @ w.numpy().T, 4 * np.eye(3), atol=1e-5)
    tall = sdk.empty(6, 2, 2)
    nn.init.orthogonal_(tall)
    f = tall.numpy().reshape(6, 4)
    np.testing.assert_allclose(f.T @ f, np.eye(4), atol=1e-5)
    with pytest.raises(ValueError, match="2 or more"):
        nn.init.orthogonal_(sdk.empty(3))


def test_inference_mode():
    x = sdk.ones(2, requires_grad=True)
    with sdk.inference_mode():
        assert sdk.is_inference_mode_enabled() and not sdk.is_grad_enabled()
        assert (x * 2).grad_fn is None
        with sdk.inference_mode(False):
            assert not sdk.is_inference_mode_enabled()
    assert sdk.is_grad_enabled() and not sdk.is_inference_mode_enabled()

    @sdk.inference_mode()
    def f(t):
        return t * 2

    @sdk.inference_mode
    def g(t):
        return t * 2

    assert f(x).grad_fn is None and g(x).grad_fn is None and (x * 2).grad_fn is not None
    with pytest.raises(TypeError, match="mode"):
        sdk.inference_mode(mode="yes")


def test_finfo_iinfo():
    f = sdk.finfo(sdk.float32)
    assert f.eps == np.finfo(np.float32).eps and f.max == float(np.finfo(np.float32).max)
    assert f.bits == 32 and f.tiny == f.smallest_normal and f.resolution == 1e-06
    assert sdk.finfo(sdk.float16).max == 65504.0
    assert sdk.finfo(sdk.bfloat16).eps == 2**-7 and sdk.finfo().dtype == "float32"
    i = sdk.iinfo(sdk.int16)
    assert (i.min, i.max, i.bits) == (-32768, 32767, 16)
    with pytest.raises(TypeError, match="floating"):
        sdk.finfo(sdk.int32)
    with pytest.raises(TypeError, match="integer"):
        sdk.iinfo(sdk.float32)
    with pytest.raises(TypeError, match="type"):
        sdk.finfo("float32")
