"""The elementwise ops added with ABI 1.3 on CUDA tensors against the CPU and numpy: the table
ops, div's rounding modes, ops with parameters, ternary ops and isclose. Runs on a real GPU,
and on the host-memory test backend through test_fake_backend.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from tests.cuda.conftest import requires_gpu

pytestmark = requires_gpu

RNG = np.random.default_rng(7)
INF, NAN = math.inf, math.nan

UNARY_DOMAINS = {
    "tan": (-1.4, 1.4), "asin": (-0.99, 0.99), "acos": (-0.99, 0.99), "atan": (-5, 5),
    "sinh": (-4, 4), "cosh": (-4, 4), "asinh": (-5, 5), "acosh": (1.01, 6),
    "atanh": (-0.99, 0.99), "log2": (0.05, 9), "log10": (0.05, 9), "exp2": (-6, 6),
    "trunc": (-7, 7), "frac": (-7, 7), "silu": (-25, 25), "mish": (-25, 25),
    "erfc": (-3, 3), "erfinv": (-0.999, 0.999),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(UNARY_DOMAINS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_unary_matches_the_cpu(name, dtype):
    x = RNG.uniform(*UNARY_DOMAINS[name], (5, 7))
    t = sdk.tensor(x).to(getattr(sdk, dtype))
    ref = getattr(sdk, name)(t).float().numpy()
    got = getattr(sdk, name)(t.cuda().t()).cpu().t().float().numpy()  # strided on the device
    tol = {"float32": 3e-6, "float64": 1e-12, "float16": 2e-3}[dtype]
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_unary_special_values_and_integer_inputs():
    x = sdk.tensor([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.0])
    for name in [*UNARY_DOMAINS, "isnan", "isinf", "isfinite", "isposinf", "isneginf"]:
        ref = getattr(sdk, name)(x)
        got = getattr(sdk, name)(x.cuda())
        assert got.dtype == ref.dtype and got.is_cuda, name
        g, r = got.cpu().numpy(), ref.numpy()
        # NaN, the infinities and the zeros exactly; the finite values to the device library's
        # few ulps (CUDA's tanf is not the host's tanf, nor is torch's)
        np.testing.assert_array_equal(g[:5], r[:5], err_msg=name)
        np.testing.assert_allclose(g[5:], r[5:], rtol=1e-6, atol=0, err_msg=name)
    i = sdk.tensor([0, 3, -4], dtype=sdk.int32)
    for name in ("trunc", "isnan", "isfinite", "log2", "silu"):
        ref, got = getattr(sdk, name)(i), getattr(sdk, name)(i.cuda())
        assert got.dtype == ref.dtype, name
        np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["fmod", "hypot", "copysign", "logaddexp", "xlogy"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_matches_the_cpu(name, dtype):
    a = RNG.uniform(-9, 9, (4, 1, 3)).astype(dtype)
    b = RNG.uniform(0.5, 5, (5, 3)).astype(dtype) * np.where(RNG.random((5, 3)) < 0.5, -1, 1)
    b = b.astype(dtype)
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    ref = getattr(sdk, name)(ta, tb).numpy()
    got = getattr(sdk, name)(ta.cuda(), tb.cuda()).cpu().numpy()
    np.testing.assert_allclose(got, ref, rtol=3e-6 if dtype == "float32" else 1e-13)
    got = getattr(sdk, name)(ta.cuda(), 1.5).cpu().numpy()
    np.testing.assert_allclose(got, getattr(sdk, name)(ta, 1.5).numpy(), rtol=3e-6)


def test_integer_fmod_and_rounding_division():
    a = sdk.tensor([7, -7, 7, -7, 2**40 + 1])
    b = sdk.tensor([2, 2, -2, -2, 3])
    for got, ref in (
        (sdk.fmod(a.cuda(), b.cuda()), sdk.fmod(a, b)),
        (sdk.div(a.cuda(), b.cuda(), rounding_mode="trunc"), sdk.div(a, b, rounding_mode="trunc")),
        (sdk.div(a.cuda(), b.cuda(), rounding_mode="floor"), sdk.div(a, b, rounding_mode="floor")),
        (sdk.div(a.cuda(), 3, rounding_mode="trunc"), sdk.div(a, 3, rounding_mode="trunc")),
    ):
        assert got.dtype == sdk.int64 and got.is_cuda
        assert got.cpu().numpy().tolist() == ref.numpy().tolist()
    with pytest.raises(RuntimeError, match="integer division by zero"):
        sdk.div(a.cuda(), sdk.zeros_like(b).cuda(), rounding_mode="trunc")
    f = sdk.tensor([7.5, -7.5, -0.5])
    got = sdk.div(f.cuda(), 2.0, rounding_mode="trunc").cpu().numpy()
    np.testing.assert_array_equal(got, [3.0, -3.0, -0.0])
    assert np.signbit(got[2])


def test_ops_with_parameters():
    x = sdk.tensor(np.concatenate([RNG.uniform(-30, 30, 20), [NAN, INF, -INF]]))
    c = x.cuda()
    pairs = [
        (F.softplus(c, 2.0, 5.0), F.softplus(x, 2.0, 5.0)),
        (F.leaky_relu(c, 0.2), F.leaky_relu(x, 0.2)),
        (F.hardtanh(c, -2.0, 3.0), F.hardtanh(x, -2.0, 3.0)),
        (sdk.nan_to_num(c), sdk.nan_to_num(x)),
        (sdk.nan_to_num(c, 1.0, 2.0, -3.0), sdk.nan_to_num(x, 1.0, 2.0, -3.0)),
        (sdk.nan_to_num(c.half()), sdk.nan_to_num(x.half())),
    ]
    for got, ref in pairs:
        assert got.is_cuda and got.dtype == ref.dtype
        np.testing.assert_allclose(got.cpu().float().numpy(), ref.float().numpy(), rtol=1e-12)
    i = sdk.tensor([1, 2]).cuda()
    assert sdk.nan_to_num(i).cpu().numpy().tolist() == [1, 2]


def test_ternary_ops():
    a = sdk.tensor(RNG.standard_normal((3, 4)))
    b = sdk.tensor(RNG.standard_normal((4,)))
    w = sdk.tensor(RNG.uniform(-0.5, 1.5, (3, 1)))
    t2 = sdk.tensor(RNG.uniform(1, 2, (3, 1)))
    ca, cb, cw, ct2 = a.cuda(), b.cuda(), w.cuda(), t2.cuda()
    pairs = [
        (sdk.lerp(ca, cb, 0.3), sdk.lerp(a, b, 0.3)),
        (sdk.lerp(ca, cb, cw), sdk.lerp(a, b, w)),
        (sdk.addcmul(ca, cb, ct2, value=-2), sdk.addcmul(a, b, t2, value=-2)),
        (sdk.addcdiv(ca, cb, ct2, value=0.5), sdk.addcdiv(a, b, t2, value=0.5)),
        (sdk.clamp(ca, cb, ct2), sdk.clamp(a, b, t2)),
        (sdk.clamp(ca, min=cb), sdk.clamp(a, min=b)),
        (sdk.clamp(ca.t(), max=cw.t()), sdk.clamp(a.t(), max=w.t())),
    ]
    for got, ref in pairs:
        assert got.is_cuda and got.dtype == ref.dtype
        np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-13, atol=1e-15)
    i = sdk.tensor([1, 2, 3])
    got = sdk.addcmul(i.cuda(), i.cuda(), i.cuda(), value=2)
    assert got.dtype == sdk.int64 and got.cpu().numpy().tolist() == [3, 10, 21]
    got = sdk.clamp(i.cuda(), max=sdk.tensor(2).cuda())
    assert got.cpu().numpy().tolist() == [1, 2, 2]
    nan = sdk.clamp(sdk.tensor([NAN, 1.0]).cuda(), sdk.tensor([0.0, NAN]).cuda())
    assert np.isnan(nan.cpu().numpy()).all()
    u = a.clone().cuda()
    u.addcmul_(cb, ct2)
    np.testing.assert_allclose(u.cpu().numpy(), sdk.addcmul(a, b, t2).numpy(), rtol=1e-13)


def test_isclose():
    a = sdk.tensor([1.0, INF, NAN, 1.0, 0.0, 100.0])
    b = sdk.tensor([1.0 + 1e-9, INF, NAN, 1.1, 1e-9, 100.001])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.2}):
        got = sdk.isclose(a.cuda(), b.cuda(), **kw)
        assert got.is_cuda and got.dtype == sdk.bool
        assert got.cpu().numpy().tolist() == sdk.isclose(a, b, **kw).numpy().tolist()
    assert sdk.allclose(a.cuda()[:2], b.cuda()[:2])
    i = sdk.tensor([1, 100]).cuda()
    assert sdk.isclose(i, sdk.tensor([1, 101]).cuda(), rtol=0.02).cpu().numpy().tolist() == [
        True,
        True,
    ]


def test_new_factories_follow_the_device():
    t = sdk.zeros(2, dtype=sdk.float64).cuda()
    for r in (t.new_zeros(3), t.new_ones(3), t.new_empty(3), t.new_full((3,), 2.0)):
        assert r.is_cuda and r.dtype == sdk.float64 and r.shape == (3,)
    assert t.new_ones(2).cpu().numpy().tolist() == [1.0, 1.0]
    assert not t.new_zeros(2, device="cpu").is_cuda
