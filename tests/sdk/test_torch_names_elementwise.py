"""torch's elementwise, special and statistics functions that the sdk composes (sdk/
_ops_elementwise.py, _ops_special.py, _ops_stats.py): values and gradients against torch on
the same inputs (skipped without torch); exact values and errors without it in
test_torch_names_reference.py."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import sdk
from tests.sdk._torch_compare import assert_same, compare

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4))
POS = np.abs(X) + 0.2
PROB = 1 / (1 + np.exp(-X))
NAN = X.copy()
NAN[0, 1] = NAN[2, 2] = np.nan
NAN[1, :] = np.nan
INT_A = np.array([12, -18, 0, 7, 9, 0])
INT_B = np.array([8, 6, 0, 21, -6, 5])
SPECIAL = np.array([-3.7, -2.5, -0.3, 1e-3, 0.5, 1.0, 2.5, 7.3, 15.0, 120.0])

# (id, f(module, *tensors), inputs): f runs once with sdk and once with torch.
CASES = [
    ("deg2rad", lambda m, x: m.deg2rad(x), [X]),
    ("rad2deg_method", lambda m, x: x.rad2deg(), [X]),
    ("deg2rad_int", lambda m, x: m.deg2rad(x), [INT_A]),
    ("signbit", lambda m, x: m.signbit(x), [np.array([-1.0, -0.0, 0.0, 2.0, -np.inf])]),
    ("signbit_int", lambda m, x: m.signbit(x), [INT_A]),
    ("sinc", lambda m, x: m.sinc(x), [np.array([-2.5, -1e-3, 0.0, 0.3, 1.7])]),
    ("logaddexp2", lambda m, x, y: m.logaddexp2(x, y), [X * 40, Y]),
    (
        "heaviside",
        lambda m, x, v: m.heaviside(x, v),
        [np.array([-1.0, 0.0, 2.0, 0.0]), np.array([0.5, 0.25, 0.5, 0.75])],
        {"grad": False},
    ),
    ("float_power", lambda m, x, y: m.float_power(x, y), [POS, Y]),
    ("float_power_scalar", lambda m, x: m.float_power(x, 3), [X.astype(np.float32)]),
    ("float_power_base", lambda m, y: m.float_power(2, y), [Y]),
    ("ldexp", lambda m, x, e: m.ldexp(x, e), [X, np.array([1, 2, 3, 0])]),
    ("gcd", lambda m, a, b: m.gcd(a, b), [INT_A, INT_B]),
    ("lcm", lambda m, a, b: m.lcm(a, b), [INT_A, INT_B]),
    ("fmax", lambda m, a, b: a.fmax(b), [NAN, X]),
    ("fmin", lambda m, a, b: m.fmin(a, b), [NAN, Y]),
    ("logit_eps", lambda m, p: p.logit(1e-3), [PROB]),
    ("hardshrink", lambda m, x: m.hardshrink(x, 0.6), [X]),
    (
        "prelu",
        lambda m, x, w: x.prelu(w),
        [RNG.standard_normal((2, 3, 4)), np.array([0.1, 0.2, 0.3])],
    ),
    ("isreal", lambda m, x: m.isreal(x), [X]),
    ("lgamma", lambda m, x: m.lgamma(x), [SPECIAL]),
    ("digamma", lambda m, x: x.digamma(), [SPECIAL]),
    ("polygamma2", lambda m, x: m.polygamma(2, x), [SPECIAL]),
    ("polygamma3_method", lambda m, x: x.polygamma(3), [SPECIAL]),
    ("mvlgamma", lambda m, x: m.mvlgamma(x, 3), [POS + 1.1]),
    ("i0", lambda m, x: m.i0(x), [X * 5]),
    ("frexp", lambda m, x: m.frexp(x), [np.array([0.0, -3.5, 1e-310, 1e300, 5.0])]),
    ("nextafter", lambda m, a, b: m.nextafter(a, b), [X, Y], {"grad": False}),
    ("addmv_method", lambda m, a, b, c: a.addmv(b, c, beta=0.5, alpha=2), [X[:, 0], X, Y[0]]),
    ("addr", lambda m, a, b, c: m.addr(a, b, c, alpha=3), [X, Y[:, 0], Y[0]]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(case):
    _, fn, arrays, *kw = case
    compare(torch, functools.partial(fn, sdk), functools.partial(fn, torch), *arrays, rtol=1e-9,
            **(kw[0] if kw else {}))  # fmt: skip


def test_polygamma_one_matches_torch_to_its_own_accuracy():
    """torch's trigamma is good to ~1e-9 relative; the sdk's is exact to a few ulps (the
    reference tests check pi^2/6 and pi^2/2)."""
    x = SPECIAL[SPECIAL > 0]
    assert_same(sdk.polygamma(1, sdk.tensor(x)), torch.polygamma(1, torch.tensor(x)), rtol=1e-8)


INPLACE = [
    ("deg2rad_", lambda t: t.deg2rad_(), X),
    ("rad2deg_", lambda t: t.rad2deg_(), X),
    ("sinc_", lambda t: t.sinc_(), X),
    ("logit_", lambda t: t.logit_(), PROB),
    ("ldexp_", lambda t: t.ldexp_(t.new_tensor([1.0, 2.0, 3.0, 4.0])), X),
    ("float_power_", lambda t: t.float_power_(2), X),
    ("heaviside_", lambda t: t.heaviside_(t.new_tensor([0.5])), X),
    ("lgamma_", lambda t: t.lgamma_(), POS),
    ("digamma_", lambda t: t.digamma_(), POS),
    ("polygamma_", lambda t: t.polygamma_(1), POS),
    ("i0_", lambda t: t.i0_(), X),
    ("nextafter_", lambda t: t.nextafter_(t * 0), X),
    ("renorm_", lambda t: t.renorm_(2, 0, 1.0), X),
    ("absolute_", lambda t: t.absolute_(), X),
    ("negative_", lambda t: t.negative_(), X),
    ("subtract_", lambda t: t.subtract_(t * 3, alpha=2), X),
    ("multiply_", lambda t: t.multiply_(t), X),
    ("divide_", lambda t: t.divide_(3.0), X),
    ("greater_", lambda t: t.greater_(0.1), X),
    ("less_equal_", lambda t: t.less_equal_(0.1), X),
    ("not_equal_", lambda t: t.not_equal_(0.0), X),
    ("arctan2_", lambda t: t.arctan2_(t + 1), X),
    ("addmm_", lambda t: t.addmm_(t.clone(), t.t().clone(), beta=2), X[:3, :3]),
    ("addr_", lambda t: t.addr_(t[0].clone(), t[1].clone()), X[:3, :3]),
    ("fill_diagonal_", lambda t: t.fill_diagonal_(5.0, True), np.zeros((7, 3))),
]


@pytest.mark.parametrize("case", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_forms_write_what_torch_writes(case):
    _, fn, array = case
    s, t = sdk.tensor(array), torch.tensor(array)
    assert fn(s) is s
    fn(t)
    assert_same(s, t, rtol=1e-9)


@pytest.mark.parametrize("name", ["exp_", "sqrt_", "neg_", "clamp_", "relu_", "zero_", "xlogy_"])
def test_module_level_inplace_functions(name):
    args = {"clamp_": (-0.5, 0.5), "xlogy_": (2.0,)}.get(name, ())
    s, t = sdk.tensor(POS), torch.tensor(POS)
    assert getattr(sdk, name)(s, *args) is s
    getattr(torch, name)(t, *args)
    assert_same(s, t)


# ------------------------------------------------------------------------------ statistics

STATS = [
    ("gradient", lambda m, x: m.gradient(x), [X]),
    ("gradient_int", lambda m, x: m.gradient(x), [INT_A]),
    ("gradient_spacing", lambda m, x: m.gradient(x, spacing=2.0, dim=1, edge_order=2), [X]),
    (
        "gradient_coords",
        lambda m, x, c0, c1: m.gradient(x, spacing=[c0, c1], edge_order=2),
        [X, np.array([0.0, 0.5, 2.0]), np.array([0.0, 1.0, 1.5, 3.0])],
        {"grad": (True, False, False)},
    ),
    ("nansum", lambda m, x: m.nansum(x, 1), [NAN]),
    ("nansum_all", lambda m, x: x.nansum(), [NAN]),
    ("nanmean", lambda m, x: m.nanmean(x, 0, True), [NAN]),
    ("nanmedian_all", lambda m, x: m.nanmedian(x), [NAN]),
    ("nanmedian_dim", lambda m, x: tuple(m.nanmedian(x[[0, 2]], 1)), [NAN]),
    ("aminmax", lambda m, x: tuple(m.aminmax(x, dim=0, keepdim=True)), [X]),
    ("aminmax_all", lambda m, x: tuple(x.aminmax()), [X]),
    ("quantile_vec", lambda m, x: m.quantile(x, x.new_tensor([0.0, 0.3, 1.0]), 1), [X]),
    ("quantile_all", lambda m, x: x.quantile(0.25), [X]),
    ("quantile_nan", lambda m, x: m.quantile(x, 0.5, 0), [NAN]),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.4, 1, keepdim=True), [NAN]),
    ("cov", lambda m, x: m.cov(x), [X]),
    ("cov_1d", lambda m, x: m.cov(x[0], correction=0), [X]),
    ("corrcoef", lambda m, x: x.corrcoef(), [X]),
    ("trapezoid", lambda m, y: m.trapezoid(y), [X]),
    ("trapezoid_x", lambda m, y, x: m.trapezoid(y, x), [X, np.array([0.0, 0.5, 0.7, 2.0])]),
    ("trapezoid_dx", lambda m, y: m.trapezoid(y, dx=0.3, dim=0), [X]),
    ("trapz", lambda m, y, x: m.trapz(y, x), [X, np.array([0.0, 0.5, 0.7, 2.0])]),
    ("cumulative_trapezoid", lambda m, y: m.cumulative_trapezoid(y, dx=2.0), [X]),
    (
        "logcumsumexp",
        lambda m, x: m.logcumsumexp(x, 1),
        [np.array([[-1000.0, 0.0, 1.0, 700.0, 2.0]])],
    ),
    ("logcumsumexp_method", lambda m, x: x.logcumsumexp(0), [X]),
    ("dist", lambda m, a, b: m.dist(a, b), [X, Y]),
    ("dist_p", lambda m, a, b: a.dist(b, 3), [X, Y]),
    ("trace", lambda m, x: m.trace(x), [X]),
    ("renorm", lambda m, x: m.renorm(x, 2, 0, 1.2), [X]),
]


@pytest.mark.parametrize("case", STATS, ids=[c[0] for c in STATS])
def test_statistics_match_torch(case):
    _, fn, arrays, *kw = case
    compare(torch, functools.partial(fn, sdk), functools.partial(fn, torch), *arrays, rtol=1e-9,
            **(kw[0] if kw else {}))  # fmt: skip


@pytest.mark.parametrize("mode", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_interpolations(mode):
    x = RNG.standard_normal((4, 7))
    got = sdk.quantile(sdk.tensor(x), 0.37, 1, interpolation=mode)
    assert_same(got, torch.quantile(torch.tensor(x), 0.37, 1, interpolation=mode))


def test_cov_weights_match_torch():
    fw, aw = np.array([1, 2, 1, 3]), RNG.random(4)
    got = sdk.cov(sdk.tensor(X), correction=0, fweights=sdk.tensor(fw), aweights=sdk.tensor(aw))
    want = torch.cov(torch.tensor(X), correction=0, fweights=torch.tensor(fw),
                     aweights=torch.tensor(aw))  # fmt: skip
    assert_same(got, want)


def test_logcumsumexp_keeps_the_small_terms():
    """log(e^-1000 + ...) prefixes stay exact: the scan never subtracts a global max."""
    got = sdk.logcumsumexp(sdk.tensor([-1000.0, -1001.0, 0.0], dtype=sdk.float64), 0)
    assert got[0].item() == -1000.0
    assert math.isclose(got[1].item(), -1000 + math.log1p(math.exp(-1)), rel_tol=1e-15)
