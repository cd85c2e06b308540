"""sdk.optim: update rules against numpy references, MLP regression training, state dicts."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk import nn, optim


def param(values):
    return nn.Parameter(sdk.tensor(np.asarray(values, dtype=np.float64)))


def np_of(t):
    return t.detach().numpy().copy()


def _run(opt_factory, grads, x0):
    p = param(x0)
    opt = opt_factory([p])
    for g in grads:
        p.grad = sdk.tensor(g)
        opt.step()
    return np_of(p)


GRADS = [np.array([0.5, -1.0, 2.0]) * (k + 1) for k in range(4)]
X0 = np.array([1.0, 2.0, -3.0])


def _np_sgd(lr, momentum=0.0, dampening=0.0, wd=0.0, nesterov=False):
    x, buf = X0.copy(), None
    for g in GRADS:
        d = g + wd * x
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        x = x - lr * d
    return x


def _np_adam(lr, b1, b2, eps, wd=0.0, amsgrad=False, decoupled=False):
    x = X0.copy()
    m, v, vmax = np.zeros(3), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, 1):
        if wd and decoupled:
            x = x * (1 - lr * wd)
        elif wd:
            g = g + wd * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        second = vmax if amsgrad else v
        denom = np.sqrt(second) / np.sqrt(1 - b2**t) + eps
        x = x - lr / (1 - b1**t) * m / denom
    return x


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"momentum": 0.9},
        {"momentum": 0.9, "dampening": 0.3},
        {"momentum": 0.8, "nesterov": True},
        {"weight_decay": 0.1},
        {"momentum": 0.5, "weight_decay": 0.05, "nesterov": True},
    ],
)
def test_sgd_matches_reference(kw):
    got = _run(lambda ps: optim.SGD(ps, lr=0.1, **kw), GRADS, X0)
    ref = _np_sgd(
        0.1,
        kw.get("momentum", 0.0),
        kw.get("dampening", 0.0),
        kw.get("weight_decay", 0.0),
        kw.get("nesterov", False),
    )
    np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize(
    "kw", [{}, {"weight_decay": 0.1}, {"amsgrad": True}, {"betas": (0.5, 0.9), "eps": 1e-3}]
)
def test_adam_matches_reference(kw):
    got = _run(lambda ps: optim.Adam(ps, lr=0.01, **kw), GRADS, X0)
    b1, b2 = kw.get("betas", (0.9, 0.999))
    ref = _np_adam(
        0.01, b1, b2, kw.get("eps", 1e-8), kw.get("weight_decay", 0.0), kw.get("amsgrad", False)
    )
    np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_adamw_matches_reference():
    got = _run(lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1), GRADS, X0)
    np.testing.assert_allclose(
        got, _np_adam(0.01, 0.9, 0.999, 1e-8, 0.1, decoupled=True), rtol=1e-10
    )


def test_step_skips_params_without_grad_and_records_nothing():
    a, b = param([1.0]), param([2.0])
    opt = optim.SGD([a, b], lr=1.0)
    a.grad = sdk.tensor([0.5], dtype=sdk.float64)
    opt.step()
    assert np_of(a).tolist() == [0.5] and np_of(b).tolist() == [2.0]
    assert a.grad_fn is None and a.is_leaf


def test_param_groups_and_zero_grad():
    a, b = param([1.0]), param([1.0])
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    a.grad = sdk.ones(1, dtype=sdk.float64)
    b.grad = sdk.ones(1, dtype=sdk.float64)
    opt.step()
    np.testing.assert_allclose([np_of(a)[0], np_of(b)[0]], [0.9, 0.5])
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.Adam([a], lr=-1)


def test_optimizer_state_dict_round_trip():
    a = param([1.0, 2.0])
    opt = optim.Adam([a], lr=0.1)
    a.grad = sdk.tensor([0.1, 0.2], dtype=sdk.float64)
    opt.step()
    sd = opt.state_dict()
    assert sd["state"][0]["step"] == 1 and sd["param_groups"][0]["params"] == [0]
    b = param(np_of(a))
    opt2 = optim.Adam([b], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1
    for o, p in ((opt, a), (opt2, b)):
        p.grad = sdk.tensor([0.3, -0.1], dtype=sdk.float64)
        o.step()
    np.testing.assert_allclose(np_of(a), np_of(b), rtol=1e-14)


def _regression_data(n=128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, size=(n, 2))
    y = np.sin(x[:, :1]) * np.cos(x[:, 1:]) + 0.5 * x[:, :1]
    return sdk.tensor(x, dtype=sdk.float32), sdk.tensor(y, dtype=sdk.float32), float(y.var())


def _train(make_opt, steps):
    sdk.manual_seed(0)
    x, y, var = _regression_data()
    model = nn.Sequential(
        nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
    )
    opt = make_opt(model.parameters())
    loss_fn = nn.MSELoss()
    first = None
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        first = float(loss.item()) if first is None else first
    with sdk.no_grad():
        final = float(loss_fn(model(x), y).item())
    return first, final, var


def test_mlp_learns_regression_with_sgd():
    first, final, var = _train(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), 300)
    assert final < 0.02, (first, final)
    assert final < 0.05 * var


def test_mlp_learns_regression_with_adam():
    first, final, var = _train(lambda ps: optim.Adam(ps, lr=0.01), 300)
    assert final < 0.01, (first, final)
    assert final < 0.05 * var
