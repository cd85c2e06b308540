"""The composite activations (logsigmoid ... rrelu) against torch: values and gradients on
the same inputs, the module forms, and clear errors on bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(1)


def _inputs(shape=(3, 4, 6), scale=3.0):
    a = RNG.normal(size=shape) * scale
    return sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(s_out, t_out, s_in, t_in, tol=1e-10, grad_tol=1e-10):
    np.testing.assert_allclose(s_out.detach().numpy(), t_out.detach().numpy(), rtol=tol, atol=tol)
    w = RNG.normal(size=tuple(t_out.shape))  # a non-uniform upstream gradient
    (s_out * sdk.tensor(w)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(s_in.grad.numpy(), t_in.grad.numpy(), rtol=grad_tol, atol=grad_tol)
    return w


# torch's hardsigmoid backward scales by a float32 1/6 (off by ~3e-8 relative in float64);
# test_hardsigmoid_gradient_is_exact checks ours against the formula instead.
GRAD_TOL = {"hardsigmoid": 1e-7, "Hardsigmoid": 1e-7}


CASES = {
    "logsigmoid": (lambda m: m.logsigmoid, ()),
    "selu": (lambda m: m.selu, ()),
    "celu": (lambda m: m.celu, (0.5,)),  # torch rounds 1/alpha to float32 in backward
    "hardswish": (lambda m: m.hardswish, ()),
    "hardsigmoid": (lambda m: m.hardsigmoid, ()),
    "glu": (lambda m: m.glu, (1,)),
    "glu_last": (lambda m: m.glu, ()),
    "softsign": (lambda m: m.softsign, ()),
    "tanhshrink": (lambda m: m.tanhshrink, ()),
    "threshold": (lambda m: m.threshold, (0.5, -2.0)),
    "rrelu_eval": (lambda m: m.rrelu, (0.1, 0.3, False)),
}


@pytest.mark.parametrize("name", CASES)
def test_functional_matches_torch(name):
    get, args = CASES[name]
    s, t = _inputs()
    _check(get(F)(s, *args), get(TF)(t, *args), s, t, grad_tol=GRAD_TOL.get(name, 1e-10))


def test_hardsigmoid_gradient_is_exact():
    s, t = _inputs()
    w = _check(F.hardsigmoid(s), TF.hardsigmoid(t), s, t, grad_tol=1e-7)
    a = t.detach().numpy()
    np.testing.assert_array_equal(s.grad.numpy(), np.where(np.abs(a) < 3, w / 6, 0.0))


@pytest.mark.parametrize("name", CASES)
def test_gradients_at_the_kinks_match_torch(name):
    get, args = CASES[name]
    a = np.array([-4.0, -3.0, -2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0]).repeat(2).reshape(5, 4)
    s, t = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    _check(get(F)(s, *args), get(TF)(t, *args), s, t, grad_tol=GRAD_TOL.get(name, 1e-10))


def test_inplace_forms_keep_gradients():
    for fn, args in ((F.selu, ()), (F.celu, (2.0,)), (F.hardswish, ()), (F.hardsigmoid, ()),
                     (F.threshold, (0.0, 1.5)), (F.rrelu, (0.1, 0.2, False))):  # fmt: skip
        s, t = _inputs((3, 4))
        s_mid, t_mid = s * 1.0, t * 1.0  # in place on a non-leaf, as in a model's forward
        s_out = fn(s_mid, *args, inplace=True)
        assert s_out is s_mid
        _check(s_out, getattr(TF, fn.__name__)(t_mid, *args, inplace=True), s, t, grad_tol=1e-7)


def test_logsigmoid_stays_finite_for_large_inputs():
    a = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    big, tbig = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    assert np.isfinite(F.logsigmoid(big).detach().numpy()).all()
    _check(F.logsigmoid(big), TF.logsigmoid(tbig), big, tbig)


MODULES = {
    "LogSigmoid": (),
    "SELU": (),
    "CELU": (1.25,),
    "Hardswish": (),
    "Hardsigmoid": (),
    "GLU": (0,),
    "Softsign": (),
    "Tanhshrink": (),
    "Threshold": (0.1, 20.0),
    "RReLU": (0.2, 0.4),
}


@pytest.mark.parametrize("name", MODULES)
def test_module_matches_torch_in_eval(name):
    args = MODULES[name]
    sm, tm = getattr(nn, name)(*args).eval(), getattr(torch.nn, name)(*args).eval()
    s, t = _inputs((4, 5))
    _check(sm(s), tm(t), s, t, grad_tol=GRAD_TOL.get(name, 1e-10))


def test_inplace_forms_write_into_input():
    for fn, args in ((F.selu, ()), (F.celu, (2.0,)), (F.hardswish, ()), (F.hardsigmoid, ()),
                     (F.threshold, (0.0, 1.5)), (F.rrelu, (0.1, 0.2, False))):  # fmt: skip
        a = RNG.normal(size=(3, 5))
        s, t = sdk.tensor(a), torch.tensor(a)
        out = fn(s, *args, inplace=True)
        assert out is s
        np.testing.assert_allclose(s.numpy(), getattr(TF, fn.__name__)(t, *args).numpy())


def test_rrelu_training_draws_slopes_within_bounds():
    lower, upper = 0.1, 0.4
    x = sdk.tensor(-np.abs(RNG.normal(size=2000)) - 0.5, requires_grad=True)
    out = F.rrelu(x, lower, upper, training=True)
    slope = (out / x).detach().numpy()
    assert slope.min() >= lower and slope.max() <= upper
    assert slope.std() > 0.05  # drawn per element, not one shared slope
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slope)  # the gradient is the drawn slope
    pos = sdk.tensor(np.abs(RNG.normal(size=50)))
    np.testing.assert_array_equal(F.rrelu(pos, lower, upper, True).numpy(), pos.numpy())
    m = nn.RReLU(lower, upper)
    assert m.training
    np.testing.assert_allclose(m.eval()(sdk.tensor([-2.0])).numpy(), [-2.0 * 0.25])


def test_bad_arguments_name_the_argument():
    x = sdk.randn(3, 4)
    with pytest.raises(ValueError, match="halving dimension must be even"):
        F.glu(x, 0)
    with pytest.raises(IndexError, match="'dim'"):
        F.glu(x, 2)
    with pytest.raises(ValueError, match="0-d"):
        F.glu(sdk.tensor(1.0))
    with pytest.raises(ValueError, match="'alpha'"):
        F.celu(x, 0.0)
    with pytest.raises(TypeError, match="'alpha'"):
        F.celu(x, "1")
    with pytest.raises(ValueError, match="'lower'"):
        F.rrelu(x, 0.5, 0.1)
    with pytest.raises(TypeError, match="'threshold'"):
        F.threshold(x, None, 0.0)
    with pytest.raises(TypeError, match="'input'"):
        F.softsign([1.0, 2.0])
