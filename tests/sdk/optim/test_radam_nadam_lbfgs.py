"""sdk.optim.RAdam, NAdam and LBFGS: numpy transcriptions of the update rules, LBFGS's
convergence (fixed step and strong-Wolfe line search), argument checks, and torch on the
same problems when torch is installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk
from sdk import nn, optim
from tests.sdk.optim.steps import run_steps

GRADS = [np.array([0.5, -1.0, 2.0]) * (k + 1) for k in range(12)]
X0 = np.array([1.0, 2.0, -3.0])


def _run(make, grads=GRADS):
    return run_steps(make, grads, X0)


def _np_radam(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, decoupled=False):
    x, m, v = X0.copy(), np.zeros(3), np.zeros(3)
    rho_inf = 2 / (1 - b2) - 1
    for t, g in enumerate(GRADS, 1):
        if decoupled:
            x = x * (1 - lr * wd)
        else:
            g = g + wd * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1**t)
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho > 5:
            r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            x = x - lr * mhat * r * math.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
        else:
            x = x - lr * mhat
    return x


def _np_nadam(lr=2e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, psi=4e-3, decoupled=False):
    x, m, v, prod = X0.copy(), np.zeros(3), np.zeros(3), 1.0
    for t, g in enumerate(GRADS, 1):
        if decoupled:
            x = x * (1 - lr * wd)
        else:
            g = g + wd * x
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        prod *= mu
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        den = np.sqrt(v / (1 - b2**t)) + eps
        x = x - lr * (1 - mu) / (1 - prod) * g / den - lr * mu1 / (1 - prod * mu1) * m / den
    return x


@pytest.mark.parametrize(
    "kw", [{}, {"weight_decay": 0.1}, {"weight_decay": 0.1, "decoupled": True}]
)
def test_radam_and_nadam_match_their_update_rules(kw):
    dec = kw.pop("decoupled", False)
    wd = kw.get("weight_decay", 0.0)
    got = _run(lambda p: optim.RAdam(p, lr=0.1, weight_decay=wd, decoupled_weight_decay=dec))
    np.testing.assert_allclose(got, _np_radam(lr=0.1, wd=wd, decoupled=dec), rtol=1e-12)
    got = _run(lambda p: optim.NAdam(p, lr=0.1, weight_decay=wd, decoupled_weight_decay=dec))
    np.testing.assert_allclose(got, _np_nadam(lr=0.1, wd=wd, decoupled=dec), rtol=1e-12)


def test_maximize_and_argument_checks():
    up = _run(lambda p: optim.RAdam(p, lr=0.1, maximize=True), grads=[-g for g in GRADS])
    np.testing.assert_allclose(up, _np_radam(lr=0.1), rtol=1e-12)
    p = [nn.Parameter(sdk.zeros(2))]
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.NAdam(p, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid momentum_decay"):
        optim.NAdam(p, momentum_decay=-1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.RAdam(p, lr=-1)
    with pytest.raises(ValueError, match="strong_wolfe"):
        optim.LBFGS(p, line_search_fn="backtracking")
    with pytest.raises(ValueError, match="parameter groups"):
        optim.LBFGS([{"params": p[:1]}, {"params": [nn.Parameter(sdk.zeros(1))]}])
    with pytest.raises(RuntimeError, match="requires a closure"):
        optim.LBFGS(p).step(None)


def _quadratic():
    rng = np.random.default_rng(3)
    m = rng.standard_normal((5, 5))
    return m @ m.T + 5 * np.eye(5), rng.standard_normal(5)


@pytest.mark.parametrize("ls", [None, "strong_wolfe"])
def test_lbfgs_solves_a_quadratic(ls):
    A, b = _quadratic()
    x = nn.Parameter(sdk.zeros(5, dtype=sdk.float64))
    At, bt = sdk.tensor(A), sdk.tensor(b)
    opt = optim.LBFGS([x], max_iter=100, line_search_fn=ls)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (At @ x)) - bt @ x
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    # Both stop on tolerance_change (the loss moving < 1e-9); the line search gets closer.
    atol = 1e-6 if ls else 1e-4
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(A, b), atol=atol)
    assert opt.state[x]["func_evals"] >= opt.state[x]["n_iter"]


def _rosenbrock_run(lib, Param, line_search_fn, steps):
    xy = Param(lib.tensor([-1.5, 2.0], dtype=lib.float64))
    opt = lib.optim.LBFGS([xy], lr=1, max_iter=20, history_size=10, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(steps)]
    return xy.detach().numpy().copy(), losses, opt.state[xy]


def test_lbfgs_strong_wolfe_minimizes_rosenbrock():
    xy, losses, state = _rosenbrock_run(sdk, nn.Parameter, "strong_wolfe", 10)
    np.testing.assert_allclose(xy, [1.0, 1.0], atol=1e-4)  # the minimum, to tolerance_change
    assert losses[0] > 1 and losses[-1] < 1e-8


@pytest.mark.parametrize("ls,steps", [(None, 1), ("strong_wolfe", 2)])
def test_lbfgs_against_torch(ls, steps):
    torch = pytest.importorskip("torch")
    mine = _rosenbrock_run(sdk, nn.Parameter, ls, steps)
    theirs = _rosenbrock_run(torch, torch.nn.Parameter, ls, steps)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-9)
    assert (mine[2]["func_evals"], mine[2]["n_iter"]) == (
        theirs[2]["func_evals"],
        theirs[2]["n_iter"],
    )


@pytest.mark.parametrize("name,kw", [
    ("RAdam", {}), ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {}), ("NAdam", {"weight_decay": 0.1, "momentum_decay": 0.01}),
])  # fmt: skip
def test_radam_nadam_against_torch(name, kw):
    torch = pytest.importorskip("torch")
    ref = torch.nn.Parameter(torch.tensor(X0.copy()))
    opt = getattr(torch.optim, name)([ref], lr=0.05, **kw)
    for g in GRADS:
        ref.grad = torch.tensor(g)
        opt.step()
    got = _run(lambda p: getattr(optim, name)(p, lr=0.05, **kw))
    # torch keeps NAdam's mu_product as a float32 scalar tensor: agreement to ~1e-9 only.
    np.testing.assert_allclose(got, ref.detach().numpy(), rtol=1e-12 if name == "RAdam" else 1e-8)
