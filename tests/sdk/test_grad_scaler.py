"""sdk.amp.GradScaler against torch.amp.GradScaler("cpu"): the same scale trajectory, skipped
steps and parameters over a small training loop with injected infs and NaNs; its state, its
settings and its misuse errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import sdk
import sdk.amp
import sdk.cuda.amp

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
X, Y = RNG.standard_normal((16, 4)), RNG.standard_normal((16, 1))
W0, B0 = RNG.standard_normal((1, 4)), RNG.standard_normal(1)
POISON = {2: float("inf"), 3: float("nan"), 7: float("-inf"), 8: float("inf")}  # step -> value


def _train(lib, scaler_cls, opt_cls, steps=14, explicit_unscale=False, **scaler_kw):
    """Linear regression steps; on POISON's steps one gradient entry is overwritten."""
    w = lib.tensor(W0.copy(), requires_grad=True)
    b = lib.tensor(B0.copy(), requires_grad=True)
    opt = opt_cls([w, b], lr=0.05)
    scaler = scaler_cls("cpu", **scaler_kw)
    x, y = lib.tensor(X), lib.tensor(Y)
    scales, results = [], []
    for i in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b - y) ** 2).mean()
        scaler.scale(loss).backward()
        if i in POISON:
            w.grad[0, 1] = POISON[i]
        if explicit_unscale:
            scaler.unscale_(opt)
        before = w.detach().numpy().copy()
        scaler.step(opt)
        results.append(bool((w.detach().numpy() != before).any()))  # the step was taken
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, results, w.detach().numpy(), b.detach().numpy(), scaler


@pytest.mark.parametrize("explicit_unscale", [False, True])
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_training_loop_matches_torch(opt, explicit_unscale):
    kw = {"init_scale": 1024.0, "growth_interval": 3, "growth_factor": 4.0, "backoff_factor": 0.25}
    s = _train(sdk, sdk.amp.GradScaler, getattr(sdk.optim, opt), explicit_unscale=explicit_unscale,
               **kw)  # fmt: skip
    t = _train(torch, torch.amp.GradScaler, getattr(torch.optim, opt),
               explicit_unscale=explicit_unscale, **kw)  # fmt: skip
    assert s[0] == t[0]  # the scale after every update
    assert s[1] == t[1]  # which steps were taken
    assert any(s[1]) and not all(s[1])
    np.testing.assert_allclose(s[2], t[2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s[3], t[3], rtol=1e-12, atol=1e-12)
    assert s[4].state_dict() == t[4].state_dict()


def test_growth_stops_at_an_infinite_scale_like_torch():
    kw = {"init_scale": 2.0**127, "growth_interval": 1, "growth_factor": 2.0}
    s = _train(sdk, sdk.amp.GradScaler, sdk.optim.SGD, steps=2, **kw)
    t = _train(torch, torch.amp.GradScaler, torch.optim.SGD, steps=2, **kw)
    assert s[0] == t[0] == [2.0**127, 2.0**127]


def test_scale_keeps_structure_and_dtype():
    scaler = sdk.amp.GradScaler("cpu", init_scale=8.0)
    a, b = sdk.ones(2), sdk.ones(3, dtype=sdk.float64)
    out = scaler.scale([a, (b, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[0].tolist() == [8.0, 8.0] and out[1][0].dtype == sdk.float64
    assert [t.tolist() for t in scaler.scale(iter([a]))] == [[8.0, 8.0]]
    with pytest.raises(ValueError, match="iterable of Tensors"):
        scaler.scale(3.0)


def test_state_dict_round_trip_and_pickle():
    scaler = sdk.amp.GradScaler("cpu", init_scale=16.0, growth_interval=5)
    _, _, _, _, trained = _train(sdk, sdk.amp.GradScaler, sdk.optim.SGD, steps=4,
                                 init_scale=16.0, growth_interval=5)  # fmt: skip
    state = trained.state_dict()
    assert state["scale"] != 16.0 and set(state) == {"scale", "growth_factor", "backoff_factor",
                                                     "growth_interval", "_growth_tracker"}  # fmt: skip
    scaler.load_state_dict(state)
    assert scaler.state_dict() == state
    clone = pickle.loads(pickle.dumps(trained))
    assert clone.state_dict() == state
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        scaler.load_state_dict({})


def test_settings_and_disabled_scaler():
    scaler = sdk.amp.GradScaler("cpu", growth_factor=3.0, backoff_factor=0.1, growth_interval=7)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor()) == (3.0, 0.1)
    assert scaler.get_growth_interval() == 7 and scaler.is_enabled()
    scaler.set_growth_interval(9)
    assert scaler.get_growth_interval() == 9
    off = sdk.amp.GradScaler("cpu", enabled=False)
    x = sdk.ones(2)
    assert off.scale(x) is x and off.get_scale() == 1.0 and off.state_dict() == {}
    w = sdk.ones(2, requires_grad=True)
    opt = sdk.optim.SGD([w], lr=1.0)
    w.grad = sdk.full((2,), float("inf"))
    off.step(opt)  # disabled: the step runs whatever the gradients hold
    assert not np.isfinite(w.detach().numpy()).any()


def test_cuda_scaler_without_cuda_is_disabled_with_a_warning():
    if sdk.cuda.is_available():
        pytest.skip("CUDA is available here")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = sdk.cuda.amp.GradScaler()
    assert not scaler.is_enabled()
    assert any("CUDA is not available" in str(w.message) for w in caught)


def test_misuse_raises_clear_errors():
    with pytest.raises(ValueError, match="growth factor must be > 1.0"):
        sdk.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(ValueError, match="backoff factor must be < 1.0"):
        sdk.amp.GradScaler("cpu", backoff_factor=1.5)
    w = sdk.ones(2, requires_grad=True)
    opt = sdk.optim.SGD([w], lr=0.1)
    scaler = sdk.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="did not use scaler.scale"):
        scaler.step(opt)
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0.0)
    scaler.update()
    with pytest.raises(RuntimeError, match="No inf checks were recorded prior to update"):
        scaler.update()
    with pytest.raises(ValueError, match="new_scale should be a float"):
        scaler.update(sdk.ones(2))
    scaler.update(4.0)
    assert scaler.get_scale() == 4.0
    half = sdk.ones(2, dtype=sdk.float16, requires_grad=True)
    opt16 = sdk.optim.SGD([half], lr=0.1)
    half.grad = sdk.ones(2, dtype=sdk.float16)
    with pytest.raises(ValueError, match="unscale FP16 gradients"):
        scaler.unscale_(opt16)
