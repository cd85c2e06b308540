"""CosineAnnealingWarmRestarts and CyclicLR: their lrs (and CyclicLR's momentum) against the
closed forms, fractional epochs, argument checks, and torch's values when torch is installed."""

from __future__ import annotations

import math

import pytest

import sdk
from sdk import nn, optim
from sdk.optim import lr_scheduler as S


def _opt(lr=0.1, cls=optim.SGD, **kw):
    return cls([nn.Parameter(sdk.zeros(2))], lr=lr, **kw)


def _run(opt, sched, steps, epochs=None):
    out = [opt.param_groups[0]["lr"]]
    for i in range(steps):
        opt.step()
        sched.step() if epochs is None else sched.step(epochs[i])
        out.append(opt.param_groups[0]["lr"])
    return out


def _cos(base, lo, t, T):
    return lo + (base - lo) * (1 + math.cos(math.pi * t / T)) / 2


def test_warm_restarts_periods_grow_by_t_mult():
    opt = _opt(0.1)
    got = _run(opt, S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01), 13)
    # periods 2, 4, 8 starting at steps 0, 2, 6
    want = [_cos(0.1, 0.01, t, 2) for t in range(2)]
    want += [_cos(0.1, 0.01, t, 4) for t in range(4)] + [_cos(0.1, 0.01, t, 8) for t in range(8)]
    assert got == pytest.approx(want, rel=1e-12)


def test_warm_restarts_fractional_epochs():
    opt = _opt(0.1)
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=3)
    sched.step(4.5)  # 1.5 into the second period of 3
    assert opt.param_groups[0]["lr"] == pytest.approx(_cos(0.1, 0.0, 1.5, 3))
    assert sched.last_epoch == 4
    with pytest.raises(ValueError, match="non-negative epoch"):
        sched.step(-1)


def test_cyclic_triangular_lr_and_momentum():
    opt = _opt(0.1, momentum=0.9)
    sched = S.CyclicLR(opt, base_lr=0.01, max_lr=0.05, step_size_up=4, step_size_down=2)
    lrs, moms = [opt.param_groups[0]["lr"]], [opt.param_groups[0]["momentum"]]
    for _ in range(12):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
    frac = [0, 0.25, 0.5, 0.75, 1, 0.5] * 2 + [0]
    assert lrs == pytest.approx([0.01 + 0.04 * f for f in frac], rel=1e-12)
    assert moms == pytest.approx([0.9 - 0.1 * f for f in frac], rel=1e-12)


def test_cyclic_triangular2_halves_each_cycle_and_adam_beta1():
    opt = _opt(0.1, cls=optim.Adam)
    sched = S.CyclicLR(opt, 0.0, 1.0, step_size_up=1, mode="triangular2")
    lrs = _run(opt, sched, 6)
    assert lrs == pytest.approx([0, 1, 0, 0.5, 0, 0.25, 0])
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.9)


@pytest.mark.parametrize(
    "make, exc, match",
    [
        (lambda o: S.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "T_0"),
        (lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5), TypeError, "T_mult"),
        (lambda o: S.CyclicLR(o, 0.1, 1.0, mode="zigzag"), ValueError, "mode is invalid"),
        (lambda o: S.CyclicLR(o, [0.1, 0.2], 1.0), ValueError, "expected 1 values for base_lr"),
        (lambda o: S.CyclicLR(_opt(cls=optim.Adagrad), 0.1, 1.0), ValueError, "momentum"),
        (lambda o: S.CyclicLR(o, 0.1, 1.0, step_size_up=0), ValueError, "step sizes"),
    ],
)
def test_bad_arguments_raise(make, exc, match):
    with pytest.raises(exc, match=match):
        make(_opt(momentum=0.9))


CASES = {
    "warm_restarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, 3, 2, eta_min=0.001),
    "triangular": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5),
    "triangular2": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 2, mode="triangular2"),
    "exp_range": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range", gamma=0.9),
    "scale_fn": lambda S, o: S.CyclicLR(
        o, 0.01, 0.1, 2, scale_fn=lambda x: 0.8**x, scale_mode="iterations"
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    t_opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1, momentum=0.9)
    s_opt = _opt(momentum=0.9)
    t, s = CASES[name](torch.optim.lr_scheduler, t_opt), CASES[name](S, s_opt)
    for _ in range(20):
        t_opt.step()
        s_opt.step()
        t.step()
        s.step()
        for key in ("lr", "momentum"):
            assert s_opt.param_groups[0][key] == pytest.approx(t_opt.param_groups[0][key], 1e-12)
    t.step(7.25)
    s.step(7.25) if name == "warm_restarts" else s.step()
    if name == "warm_restarts":
        assert s_opt.param_groups[0]["lr"] == pytest.approx(t_opt.param_groups[0]["lr"], 1e-12)
