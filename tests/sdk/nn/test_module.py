"""sdk.nn: Module registration and traversal, state_dict, Linear init, losses vs numpy, init."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn


def np_of(t):
    return t.detach().numpy()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(8, 2)
        self.scale = nn.Parameter(sdk.ones(1))
        self.register_buffer("running", sdk.zeros(2))
        self.register_buffer("tmp", sdk.zeros(1), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale + self.running


def test_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())
    assert [type(m).__name__ for m in net.children()] == ["Linear", "Tanh", "Linear"]
    assert len(list(net.modules())) == 4
    assert [n for n, _ in net.named_buffers()] == ["running", "tmp"]
    assert net.fc1 is net._modules["fc1"]


def test_shared_parameter_listed_once():
    net = nn.Sequential(nn.Linear(2, 2))
    net.add_module("again", net[0])
    assert len(list(net.parameters())) == 2


def test_forward_backward_and_zero_grad():
    net = Net()
    out = net(sdk.randn(5, 4))
    assert tuple(out.shape) == (5, 2)
    out.sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum().item()) == 0.0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_eval_flags():
    net = Net()
    assert net.training and net.fc1.training
    net.eval()
    assert not net.training and not net.fc1.training
    net.train()
    assert net.fc2.training


def test_state_dict_round_trip():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert list(sd) == ["scale", "running", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert "tmp" not in sd
    assert all(t.grad_fn is None and not t.requires_grad for t in sd.values())
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = sdk.randn(3, 4)
    sdk.testing.assert_close(a(x), b(x))
    # The copy is a copy: changing b leaves a alone.
    with sdk.no_grad():
        b.fc1.weight.add_(1.0)
    assert not np.allclose(np_of(a.fc1.weight), np_of(b.fc1.weight))


def test_load_state_dict_errors():
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"]
    sd["extra"] = sdk.zeros(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    msg = str(info.value)
    assert 'Missing key(s) in state_dict: "fc1.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    res = net.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc1.bias"] and res.unexpected_keys == ["extra"]
    bad = net.state_dict()
    bad["fc2.weight"] = sdk.zeros(3, 3)
    with pytest.raises(
        RuntimeError, match=r"size mismatch for fc2.weight: copying a param with shape \[3, 3\]"
    ):
        net.load_state_dict(bad)


def test_to_dtype_casts_parameters_and_buffers():
    net = Net().to(sdk.float64)
    assert all(p.dtype == sdk.float64 for p in net.parameters())
    assert net.running.dtype == sdk.float64
    assert isinstance(net.fc1.weight, nn.Parameter)
    out = net(sdk.randn(2, 4, dtype=sdk.float64))
    assert out.dtype == sdk.float64


def test_repr_is_readable():
    text = repr(nn.Sequential(nn.Linear(3, 4), nn.ReLU()))
    assert "Sequential(" in text
    assert "(0): Linear(in_features=3, out_features=4, bias=True)" in text
    assert "(1): ReLU()" in text
    assert repr(nn.Parameter(sdk.zeros(2))).startswith("Parameter containing:")


def test_module_list_and_sequential_indexing():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    seq = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1))
    assert isinstance(seq[-1], nn.Linear)
    assert len(seq[:2]) == 2
    assert tuple(seq(sdk.randn(4, 2)).shape) == (4, 1)


def test_assigning_a_tensor_over_a_parameter_is_refused():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="parameter 'weight'"):
        lin.weight = sdk.zeros(2, 2)


def test_linear_default_init_bounds():
    sdk.manual_seed(0)
    lin = nn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    w, b = np_of(lin.weight), np_of(lin.bias)
    assert w.shape == (40, 50) and b.shape == (40,)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.8 * bound  # uniform over the whole range
    x = sdk.randn(3, 50)
    sdk.testing.assert_close(lin(x), x @ lin.weight.t() + lin.bias)


def test_init_functions():
    t = sdk.empty(30, 20)
    nn.init.constant_(t, 0.5)
    assert np.all(np_of(t) == 0.5)
    nn.init.zeros_(t)
    assert np.all(np_of(t) == 0.0)
    nn.init.ones_(t)
    assert np.all(np_of(t) == 1.0)
    nn.init.xavier_uniform_(t)
    assert np.abs(np_of(t)).max() <= math.sqrt(6 / 50)
    nn.init.kaiming_uniform_(t, nonlinearity="relu")
    assert np.abs(np_of(t)).max() <= math.sqrt(6 / 20)
    nn.init.normal_(t, 2.0, 0.01)
    assert abs(np_of(t).mean() - 2.0) < 0.01
    nn.init.uniform_(t, -3, -2)
    assert np_of(t).min() >= -3 and np_of(t).max() < -2
    p = nn.Parameter(sdk.zeros(3, 3))
    nn.init.uniform_(p)  # works on leaves that require grad (no recording)
    assert p.grad_fn is None
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)


# ----------------------------------------------------------------------------- functional vs numpy


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_activations_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5))
    x = sdk.tensor(a)
    from math import erf

    np.testing.assert_allclose(np_of(F.relu(x)), np.maximum(a, 0))
    np.testing.assert_allclose(np_of(F.sigmoid(x)), 1 / (1 + np.exp(-a)), rtol=1e-6)
    np.testing.assert_allclose(np_of(F.tanh(x)), np.tanh(a), rtol=1e-6)
    np.testing.assert_allclose(
        np_of(F.elu(x, 0.5)), np.where(a > 0, a, 0.5 * (np.exp(a) - 1)), rtol=1e-6
    )
    gelu = a * 0.5 * (1 + np.vectorize(erf)(a / math.sqrt(2)))
    np.testing.assert_allclose(np_of(F.gelu(x)), gelu, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np_of(F.softmax(x, 1)), _softmax(a, 1), rtol=1e-5)
    np.testing.assert_allclose(np_of(F.log_softmax(x, 0)), np.log(_softmax(a, 0)), rtol=1e-5)


def test_mse_loss_reductions():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x, y = sdk.tensor(a), sdk.tensor(b)
    assert float(nn.MSELoss()(x, y).item()) == pytest.approx(((a - b) ** 2).mean(), rel=1e-5)
    assert float(F.mse_loss(x, y, reduction="sum").item()) == pytest.approx(
        ((a - b) ** 2).sum(), rel=1e-5
    )
    np.testing.assert_allclose(np_of(F.mse_loss(x, y, reduction="none")), (a - b) ** 2, rtol=1e-5)


def _np_ce(logits, target, weight=None, ignore_index=-100):
    logp = np.log(_softmax(logits, 1))
    w = np.ones(logits.shape[1]) if weight is None else weight
    losses, ws = [], []
    for i, t in enumerate(target):
        if t == ignore_index:
            losses.append(0.0)
            ws.append(0.0)
            continue
        losses.append(-logp[i, t] * w[t])
        ws.append(w[t])
    return np.array(losses), np.array(ws)


def test_cross_entropy_matches_numpy_and_gradcheck():
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((5, 4))
    target = np.array([0, 3, 1, 1, 2])
    x = sdk.tensor(logits, requires_grad=True)
    t = sdk.tensor(target)
    losses, ws = _np_ce(logits, target)
    assert float(nn.CrossEntropyLoss()(x, t).item()) == pytest.approx(losses.mean(), rel=1e-7)
    assert float(F.cross_entropy(x, t, reduction="sum").item()) == pytest.approx(
        losses.sum(), rel=1e-7
    )
    np.testing.assert_allclose(np_of(F.cross_entropy(x, t, reduction="none")), losses, rtol=1e-7)
    assert sdk.autograd.gradcheck(lambda z: F.cross_entropy(z, t), [x])


def test_cross_entropy_weight_and_ignore_index():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((6, 3))
    target = np.array([0, 2, -100, 1, 2, 0])
    weight = np.array([0.2, 1.0, 3.0])
    x = sdk.tensor(logits, requires_grad=True)
    t, w = sdk.tensor(target), sdk.tensor(weight)
    losses, ws = _np_ce(logits, target, weight)
    loss = nn.CrossEntropyLoss(weight=w)(x, t)
    assert float(loss.item()) == pytest.approx(losses.sum() / ws.sum(), rel=1e-7)
    assert sdk.autograd.gradcheck(lambda z: F.cross_entropy(z, t, weight=w), [x])


def test_cross_entropy_bad_targets():
    x = sdk.randn(3, 4)
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, sdk.tensor([0, 4, 1]))
    with pytest.raises(ValueError, match="target shape"):
        F.cross_entropy(x, sdk.tensor([0, 1]))


def test_nll_loss_matches_gather():
    rng = np.random.default_rng(4)
    logp = np.log(_softmax(rng.standard_normal((4, 3)), 1))
    target = np.array([2, 0, 1, 1])
    loss = nn.NLLLoss()(sdk.tensor(logp), sdk.tensor(target))
    assert float(loss.item()) == pytest.approx(-logp[np.arange(4), target].mean(), rel=1e-7)
