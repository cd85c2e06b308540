"""sdk.optim.lr_scheduler: each scheduler's lrs against its closed form (numpy / math),
state_dict round trips, argument checks, and the same lrs as torch's when torch is installed."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import sdk
from sdk import nn, optim
from sdk.optim import lr_scheduler as S


def _opt(lr=0.1, cls=optim.SGD, **kw):
    return cls([nn.Parameter(sdk.zeros(2))], lr=lr, **kw)


def _lrs(opt, sched, steps, metric=None):
    out = [opt.param_groups[0]["lr"]]
    for i in range(steps):
        opt.step()
        sched.step() if metric is None else sched.step(metric(i))
        out.append(opt.param_groups[0]["lr"])
    return np.array(out)


T = np.arange(13)


def test_step_lr():
    opt = _opt()
    np.testing.assert_allclose(_lrs(opt, S.StepLR(opt, 3, gamma=0.5), 12), 0.1 * 0.5 ** (T // 3))


def test_multistep_lr():
    opt = _opt()
    got = _lrs(opt, S.MultiStepLR(opt, [2, 5, 5, 9], gamma=0.1), 12)
    np.testing.assert_allclose(got, 0.1 * 0.1 ** np.searchsorted([2, 5, 5, 9], T, side="right"))


def test_exponential_lr():
    opt = _opt()
    np.testing.assert_allclose(_lrs(opt, S.ExponentialLR(opt, 0.9), 12), 0.1 * 0.9**T)


def test_cosine_annealing_lr_within_and_past_t_max():
    opt = _opt()
    got = _lrs(opt, S.CosineAnnealingLR(opt, T_max=6, eta_min=0.01), 12)
    ref = 0.01 + (0.1 - 0.01) * (1 + np.cos(np.pi * T / 6)) / 2
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


def test_lambda_lr_per_group():
    p, q = nn.Parameter(sdk.zeros(1)), nn.Parameter(sdk.zeros(1))
    opt = optim.SGD([{"params": [p]}, {"params": [q], "lr": 1.0}], lr=0.1)
    sched = S.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5**e])
    for _ in range(4):
        sched.step()
    assert sched.get_last_lr() == pytest.approx([0.1 / 5, 0.5**4])


def test_linear_lr():
    opt = _opt()
    got = _lrs(opt, S.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=4), 8)
    ref = 0.1 * (0.25 + 0.75 * np.minimum(np.arange(9), 4) / 4)
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_constant_lr():
    opt = _opt()
    got = _lrs(opt, S.ConstantLR(opt, factor=0.5, total_iters=3), 6)
    np.testing.assert_allclose(got, [0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.1])


def test_sequential_lr_warmup_then_cosine():
    opt = _opt()
    warm = S.LinearLR(opt, start_factor=0.1, total_iters=3)
    cos = S.CosineAnnealingLR(opt, T_max=5)
    got = _lrs(opt, S.SequentialLR(opt, [warm, cos], milestones=[3]), 8)
    ref = [0.1 * (0.1 + 0.9 * t / 3) for t in range(3)]
    ref += [0.1 * (1 + math.cos(math.pi * t / 5)) / 2 for t in range(6)]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


def _np_one_cycle(max_lr, total, pct=0.3, div=25.0, final_div=1e4, cos=True, three=False):
    lo, hi = max_lr / div, max_lr / div / final_div

    def anneal(a, b, f):
        return b + (a - b) / 2 * (math.cos(math.pi * f) + 1) if cos else a + (b - a) * f

    if three:
        phases = [(pct * total - 1, lo, max_lr), (2 * pct * total - 2, max_lr, lo),
                  (total - 1, lo, hi)]  # fmt: skip
    else:
        phases = [(pct * total - 1, lo, max_lr), (total - 1, max_lr, hi)]
    out = []
    for t in range(total):
        start = 0.0
        for i, (end, a, b) in enumerate(phases):
            if t <= end or i == len(phases) - 1:
                out.append(anneal(a, b, (t - start) / (end - start)))
                break
            start = end
    return np.array(out)


@pytest.mark.parametrize("kw", [{}, {"anneal_strategy": "linear"}, {"three_phase": True}])
def test_one_cycle_lr_and_momentum(kw):
    opt = _opt(cls=optim.SGD, momentum=0.9)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=20, **kw)
    got = _lrs(opt, sched, 19)
    ref = _np_one_cycle(1.0, 20, cos=kw.get("anneal_strategy", "cos") == "cos",
                        three=kw.get("three_phase", False))  # fmt: skip
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)  # back at max at the end
    with pytest.raises(ValueError, match="total steps"):
        sched.step()
        sched.step()


def test_one_cycle_cycles_adam_beta1():
    opt = _opt(cls=optim.AdamW)
    S.OneCycleLR(opt, max_lr=0.01, epochs=2, steps_per_epoch=5)
    assert opt.param_groups[0]["betas"] == (0.95, 0.999)
    with pytest.raises(ValueError, match="momentum"):
        S.OneCycleLR(_opt(cls=optim.Adagrad), max_lr=0.1, total_steps=5)


def test_reduce_lr_on_plateau():
    opt = _opt(lr=1.0)
    sched = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, cooldown=1, min_lr=0.2)
    metrics = [5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
    got = _lrs(opt, sched, len(metrics), metric=lambda i: metrics[i])
    # bad epochs counted from step 3; > patience at step 5 -> 0.5; cooldown 1 step, then
    # 3 more bad steps -> 0.25 at step 9; the floor stops it at 0.2 at step 13.
    np.testing.assert_allclose(got, [1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25])
    sched = S.ReduceLROnPlateau(_opt(), mode="max", threshold=0.1, threshold_mode="abs")
    assert sched.is_better(1.2, 1.0) and not sched.is_better(1.05, 1.0)
    sched.step(sdk.tensor(0.5))
    assert sched.best == 0.5
    with pytest.raises(TypeError, match="metrics"):
        sched.step("bad")


MAKERS = {
    "StepLR": lambda o: S.StepLR(o, 2, 0.5),
    "MultiStepLR": lambda o: S.MultiStepLR(o, [1, 3]),
    "ExponentialLR": lambda o: S.ExponentialLR(o, 0.8),
    "CosineAnnealingLR": lambda o: S.CosineAnnealingLR(o, 4, 0.001),
    "LinearLR": lambda o: S.LinearLR(o, 0.5, 1.0, 4),
    "OneCycleLR": lambda o: S.OneCycleLR(o, 0.5, total_steps=12),
    "SequentialLR": lambda o: S.SequentialLR(
        o, [S.LinearLR(o, 0.2, total_iters=2), S.ExponentialLR(o, 0.9)], [2]
    ),
    "ReduceLROnPlateau": lambda o: S.ReduceLROnPlateau(o, patience=0),
}


def _advance(sched, n):
    for _ in range(n):
        if isinstance(sched, S.ReduceLROnPlateau):
            sched.step(1.0)
        else:
            sched.step()


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_dict_round_trip(name):
    opt_a = _opt(momentum=0.9)
    a = MAKERS[name](opt_a)
    _advance(a, 3)
    state = pickle.loads(pickle.dumps(a.state_dict()))  # it must survive a save
    assert "optimizer" not in state
    opt_b = _opt(momentum=0.9)  # resume as a training script does: build, then load both
    b = MAKERS[name](opt_b)
    opt_b.load_state_dict(opt_a.state_dict())
    b.load_state_dict(state)
    _advance(a, 4)
    _advance(b, 4)
    assert b.get_last_lr() == pytest.approx(a.get_last_lr(), rel=1e-12)
    assert b.last_epoch == a.last_epoch


def test_lambda_lr_state_dict_skips_functions_keeps_objects():
    class Halve:
        def __init__(self):
            self.k = 0.5

        def __call__(self, e):
            return self.k**e

    opt = _opt()
    f = Halve()
    sched = S.LambdaLR(opt, f)
    f.k = 0.25
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"k": 0.25}]
    g = Halve()
    S.LambdaLR(_opt(), g).load_state_dict(state)
    assert g.k == 0.25
    assert S.LambdaLR(_opt(), lambda e: 1.0).state_dict()["lr_lambdas"] == [None]


@pytest.mark.parametrize(
    "make, exc, match",
    [
        (lambda o: S.StepLR("opt", 2), TypeError, "optimizer"),
        (lambda o: S.StepLR(o, 0), ValueError, "step_size"),
        (lambda o: S.StepLR(o, 2.5), TypeError, "step_size"),
        (lambda o: S.ExponentialLR(o, "x"), TypeError, "gamma"),
        (lambda o: S.MultiStepLR(o, 3), TypeError, "milestones"),
        (lambda o: S.LinearLR(o, start_factor=0), ValueError, "start_factor"),
        (lambda o: S.CosineAnnealingLR(o, T_max=0), ValueError, "T_max"),
        (lambda o: S.OneCycleLR(o, 0.1), ValueError, "total_steps"),
        (lambda o: S.OneCycleLR(o, 0.1, total_steps=5, anneal_strategy="x"), ValueError, "anneal"),
        (lambda o: S.SequentialLR(o, [S.StepLR(o, 2)], [1]), ValueError, "milestone"),
        (lambda o: S.SequentialLR(o, [S.StepLR(_opt(), 2)], []), ValueError, "optimizer"),
        (lambda o: S.ReduceLROnPlateau(o, factor=1.5), ValueError, "Factor"),
        (lambda o: S.ReduceLROnPlateau(o, mode="up"), ValueError, "mode"),
        (lambda o: S.LambdaLR(o, 3), TypeError, "callable"),
        (lambda o: S.StepLR(o, 2, last_epoch=4), KeyError, "initial_lr"),
    ],
)
def test_bad_arguments_raise(make, exc, match):
    with pytest.raises(exc, match=match):
        make(_opt(momentum=0.9))


TORCH_CASES = {
    "StepLR": ("StepLR", (3,), {"gamma": 0.5}),
    "MultiStepLR": ("MultiStepLR", ([2, 4, 4],), {"gamma": 0.3}),
    "ExponentialLR": ("ExponentialLR", (0.9,), {}),
    "CosineAnnealingLR": ("CosineAnnealingLR", (4,), {"eta_min": 0.01}),
    "LinearLR": ("LinearLR", (), {"start_factor": 0.2, "total_iters": 5}),
    "ConstantLR": ("ConstantLR", (), {"factor": 0.5, "total_iters": 3}),
    "OneCycleLR": ("OneCycleLR", (0.3,), {"total_steps": 16, "three_phase": True}),
}


@pytest.mark.parametrize("name", sorted(TORCH_CASES) + ["SequentialLR", "ReduceLROnPlateau"])
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    tp = torch.nn.Parameter(torch.zeros(2))
    t_opt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    s_opt = _opt(momentum=0.9)
    if name == "SequentialLR":
        ts = torch.optim.lr_scheduler
        t = ts.SequentialLR(t_opt, [ts.ConstantLR(t_opt, 0.5, 2), ts.StepLR(t_opt, 2)], [3])
        s = S.SequentialLR(s_opt, [S.ConstantLR(s_opt, 0.5, 2), S.StepLR(s_opt, 2)], [3])
    elif name == "ReduceLROnPlateau":
        t = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, patience=1, cooldown=1)
        s = S.ReduceLROnPlateau(s_opt, patience=1, cooldown=1)
    else:
        cls, args, kw = TORCH_CASES[name]
        t = getattr(torch.optim.lr_scheduler, cls)(t_opt, *args, **kw)
        s = getattr(S, cls)(s_opt, *args, **kw)
    metrics = [3.0, 2.0, 2.0, 2.0, 2.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5]
    for m in metrics:
        t_opt.step()
        s_opt.step()
        if name == "ReduceLROnPlateau":
            t.step(m)
            s.step(m)
        else:
            t.step()
            s.step()
        assert s_opt.param_groups[0]["lr"] == pytest.approx(t_opt.param_groups[0]["lr"], 1e-12)
        assert s_opt.param_groups[0]["momentum"] == pytest.approx(
            t_opt.param_groups[0]["momentum"], 1e-12
        )
