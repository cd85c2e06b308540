"""sdk.optim.RMSprop and Adagrad against numpy transcriptions of their update rules, their
state_dict round trips and argument checks (torch parity when torch is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk import nn, optim
from tests.sdk.optim.steps import run_steps

GRADS = [np.array([0.5, -1.0, 2.0]) * (k + 1) for k in range(5)]
X0 = np.array([1.0, 2.0, -3.0])


def _run(make, grads=GRADS):
    return run_steps(make, grads, X0)


def _np_rmsprop(lr, alpha=0.99, eps=1e-8, wd=0.0, momentum=0.0, centered=False, maximize=False):
    x = X0.copy()
    v, ga, buf = np.zeros(3), np.zeros(3), np.zeros(3)
    for g in GRADS:
        g = -g if maximize else g
        g = g + wd * x
        v = alpha * v + (1 - alpha) * g * g
        if centered:
            ga = alpha * ga + (1 - alpha) * g
            avg = np.sqrt(v - ga * ga) + eps
        else:
            avg = np.sqrt(v) + eps
        if momentum > 0:
            buf = momentum * buf + g / avg
            x = x - lr * buf
        else:
            x = x - lr * g / avg
    return x


def _np_adagrad(lr, lr_decay=0.0, wd=0.0, init=0.0, eps=1e-10, maximize=False):
    x, s = X0.copy(), np.full(3, init)
    for t, g in enumerate(GRADS, 1):
        g = -g if maximize else g
        g = g + wd * x
        s = s + g * g
        x = x - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    return x


RMS_CASES = [{}, {"momentum": 0.9}, {"centered": True}, {"weight_decay": 0.1, "alpha": 0.9},
             {"centered": True, "momentum": 0.5, "eps": 1e-3}, {"maximize": True}]  # fmt: skip
ADA_CASES = [{}, {"lr_decay": 0.1}, {"weight_decay": 0.2}, {"initial_accumulator_value": 0.5},
             {"eps": 1e-3, "maximize": True}]  # fmt: skip


@pytest.mark.parametrize("kw", RMS_CASES)
def test_rmsprop_matches_reference(kw):
    got = _run(lambda ps: optim.RMSprop(ps, lr=0.01, **kw))
    names = {"weight_decay": "wd"}
    ref = _np_rmsprop(0.01, **{names.get(k, k): v for k, v in kw.items()})
    np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize("kw", ADA_CASES)
def test_adagrad_matches_reference(kw):
    got = _run(lambda ps: optim.Adagrad(ps, lr=0.1, **kw))
    names = {"weight_decay": "wd", "initial_accumulator_value": "init"}
    ref = _np_adagrad(0.1, **{names.get(k, k): v for k, v in kw.items()})
    np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize(
    "cls, kw", [(optim.RMSprop, RMS_CASES[4]), (optim.Adagrad, ADA_CASES[1]), (optim.AdamW, {})]
)
def test_state_dict_round_trip_continues_identically(cls, kw):
    a = nn.Parameter(sdk.tensor(X0.copy()))
    opt = cls([a], lr=0.05, **kw)
    for g in GRADS[:2]:
        a.grad = sdk.tensor(g)
        opt.step()
    b = nn.Parameter(a.detach().clone())
    opt2 = cls([b], lr=0.9, **kw)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.param_groups[0]["lr"] == 0.05
    for g in GRADS[2:]:
        for o, p in ((opt, a), (opt2, b)):
            p.grad = sdk.tensor(g)
            o.step()
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-14)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda ps: optim.RMSprop(ps, lr=-1), "learning rate"),
        (lambda ps: optim.RMSprop(ps, alpha=-0.1), "alpha"),
        (lambda ps: optim.RMSprop(ps, momentum=-1), "momentum"),
        (lambda ps: optim.Adagrad(ps, lr_decay=-1), "lr_decay"),
        (lambda ps: optim.Adagrad(ps, eps=-1), "epsilon"),
        (lambda ps: optim.AdamW(ps, betas=(1.5, 0.9)), "beta"),
    ],
)
def test_bad_hyperparameters_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make([nn.Parameter(sdk.zeros(2))])


@pytest.mark.parametrize("name, kw", [("RMSprop", RMS_CASES[4]), ("Adagrad", ADA_CASES[1]),
                                      ("AdamW", {"weight_decay": 0.1})])  # fmt: skip
def test_matches_torch(name, kw):
    torch = pytest.importorskip("torch")
    tp = torch.nn.Parameter(torch.tensor(X0.copy()))
    topt = getattr(torch.optim, name)([tp], lr=0.05, **kw)
    for g in GRADS:
        tp.grad = torch.tensor(g)
        topt.step()
    got = _run(lambda ps: getattr(optim, name)(ps, lr=0.05, **kw))
    np.testing.assert_allclose(got, tp.detach().numpy(), rtol=1e-10)
