"""sdk/_ops_elementwise.py and div's rounding modes against numpy: nan_to_num, lerp, addcmul,
addcdiv, clamp with tensor bounds, isclose/allclose, softplus, leaky_relu, hardtanh, relu6,
silu/mish through nn.functional and nn modules, new_* and is_same_size."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F

INF, NAN = math.inf, math.nan
INTS = ["uint8", "int8", "int16", "int32", "int64"]


# ------------------------------------------------------------------------------ div rounding


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_div_rounding_floats(dtype, rng, close):
    a = rng.uniform(-10, 10, (4, 5)).astype(dtype)
    b = rng.uniform(0.5, 3, (5,)).astype(dtype) * np.where(rng.random(5) < 0.5, -1, 1)
    b = b.astype(dtype)
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    close(sdk.div(ta, tb, rounding_mode="trunc"), np.trunc(a / b))
    close(sdk.div(ta, tb, rounding_mode="floor"), np.floor_divide(a, b))
    close(sdk.div(ta, tb, rounding_mode=None), a / b)
    close(ta.div(2.5, rounding_mode="trunc"), np.trunc(a / np.array(2.5, dtype)))
    close(sdk.div(7.0, tb, rounding_mode="trunc"), np.trunc(np.array(7.0, dtype) / b))
    close(sdk.divide(ta.t(), tb[:4], rounding_mode="trunc"), np.trunc(a.T / b[:4]))


def test_div_rounding_special_values(close):
    a = sdk.tensor([1.0, -1.0, 0.0, INF, -7.0, NAN])
    b = sdk.tensor([0.0, 0.0, 0.0, 2.0, INF, 1.0])
    with np.errstate(all="ignore"):
        an, bn = a.numpy(), b.numpy()
        close(sdk.div(a, b, rounding_mode="trunc"), np.trunc(an / bn))
    got = sdk.div(sdk.tensor([-0.5]), 1.0, rounding_mode="trunc").numpy()
    assert got[0] == 0 and np.signbit(got[0])  # -0.0, as trunc(-0.5)


@pytest.mark.parametrize("dtype", INTS)
def test_div_rounding_integers_stay_integers(dtype, rng):
    lo = 0 if dtype == "uint8" else -100
    a = rng.integers(lo, 101, (6, 7)).astype(dtype)
    b = rng.integers(1, 9, (7,)).astype(dtype)
    if dtype != "uint8":
        b = (b * np.where(rng.random(7) < 0.5, -1, 1)).astype(dtype)
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    trunc_ref = (np.sign(a) * np.sign(b) * (np.abs(a.astype(np.int64)) // np.abs(b))).astype(dtype)
    got = sdk.div(ta, tb, rounding_mode="trunc")
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), trunc_ref)
    got = sdk.div(ta, tb, rounding_mode="floor")
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), np.floor_divide(a, b))
    assert sdk.div(ta, tb).dtype == sdk.float32  # true division
    with pytest.raises(RuntimeError, match="div: integer division by zero"):
        sdk.div(ta, 0, rounding_mode="trunc")
    with pytest.raises(RuntimeError, match="integer division by zero"):
        sdk.div(ta, sdk.zeros_like(tb), rounding_mode="floor")


def test_div_trunc_is_exact_for_large_int64():
    """Rounded integer division never goes through float32 (2**40 + 1 is not a float32)."""
    a = sdk.tensor([2**40 + 1, -(2**62) - 3, np.iinfo(np.int64).min])
    b = sdk.tensor([1, 7, -1])
    got = sdk.div(a, b, rounding_mode="trunc").numpy()
    assert got.tolist() == [2**40 + 1, -((2**62 + 3) // 7), np.iinfo(np.int64).min]


def test_div_rounding_in_place_out_and_errors(rng, close):
    a = rng.uniform(-9, 9, (3, 4))
    t = sdk.tensor(a)
    assert t.div_(2.0, rounding_mode="floor") is t
    close(t, np.floor(a / 2.0))
    out = sdk.empty(3, 4, dtype=sdk.float64)
    assert sdk.div(sdk.tensor(a), 3.0, rounding_mode="trunc", out=out) is out
    close(out, np.trunc(a / 3.0))
    i = sdk.tensor([7, -7])
    i.div_(2, rounding_mode="trunc")
    np.testing.assert_array_equal(i.numpy(), [3, -3])
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        sdk.div(t, 2, rounding_mode="round")
    with pytest.raises(TypeError, match="can't be cast"):
        sdk.tensor([7, 8]).div_(2)  # true division of integers in place
    assert sdk.true_divide(sdk.tensor([3]), 2).dtype == sdk.float32


# ------------------------------------------------------------------------------ nan_to_num


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_to_num_defaults_are_the_dtype_extremes(dtype):
    t = sdk.tensor([NAN, INF, -INF, 1.5, -0.0]).to(getattr(sdk, dtype))
    got = sdk.nan_to_num(t)
    assert got.dtype == t.dtype
    big = {
        "float16": 65504.0,
        "bfloat16": 3.3895313892515355e38,
        "float32": float(np.finfo(np.float32).max),
        "float64": float(np.finfo(np.float64).max),
    }[dtype]
    np.testing.assert_array_equal(got.to(sdk.float64).numpy(), [0.0, big, -big, 1.5, -0.0])


def test_nan_to_num_values_views_in_place_and_ints(rng, close):
    x = np.array([[NAN, 1.0, INF], [-INF, 2.0, NAN]])
    ref = np.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0)
    t = sdk.tensor(x)
    close(sdk.nan_to_num(t, nan=-1.0, posinf=9.0, neginf=-9.0), ref)
    close(t.t().nan_to_num(-1.0, 9.0, -9.0), ref.T)
    close(sdk.nan_to_num(t, posinf=1e300), np.nan_to_num(x, posinf=1e300))
    assert t.nan_to_num_(nan=0.5) is t
    close(t, np.nan_to_num(x, nan=0.5))
    i = sdk.tensor([1, 2, 3])
    r = sdk.nan_to_num(i)
    assert r.dtype == sdk.int64 and r.data_ptr() != i.data_ptr()  # a copy, as torch
    np.testing.assert_array_equal(r.numpy(), [1, 2, 3])
    assert sdk.nan_to_num(sdk.empty(0)).shape == (0,)
    with pytest.raises(TypeError, match="nan_to_num\\(\\): argument 'nan' must be a number"):
        sdk.nan_to_num(t, nan="x")


# ------------------------------------------------------------------------------ lerp


def test_lerp_scalar_and_tensor_weights(rng, close):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    w = rng.uniform(-0.5, 1.5, (3, 1))
    ta, tb, tw = sdk.tensor(a), sdk.tensor(b), sdk.tensor(w)
    close(sdk.lerp(ta, tb, 0.3), a + 0.3 * (b - a), rtol=1e-14, atol=1e-14)
    close(sdk.lerp(ta, tb, tw), a + w * (b - a), rtol=1e-14, atol=1e-14)
    close(ta.lerp(tb, 1.0), np.broadcast_to(b, a.shape))  # exact at weight 1
    close(ta.t().lerp(ta.t(), 0.7), a.T)
    f32 = sdk.tensor(a, dtype=sdk.float32)
    close(sdk.lerp(f32, f32 * 2, 0.25), (a * 1.25).astype(np.float32), rtol=1e-6)
    t = sdk.tensor(a)
    assert t.lerp_(tb, tw) is t
    close(t, a + w * (b - a), rtol=1e-14, atol=1e-14)


def test_lerp_dtype_rules_and_shapes():
    f, d = sdk.zeros(3), sdk.zeros(3, dtype=sdk.float64)
    with pytest.raises(
        TypeError, match="lerp: expected dtype float32 for `end` but got dtype float64"
    ):
        sdk.lerp(f, d, 0.5)
    with pytest.raises(TypeError, match="for `weight` but got dtype float64"):
        sdk.lerp(f, f, d)
    with pytest.raises(TypeError, match="lerp: only floating point"):
        sdk.lerp(sdk.tensor([1, 2]), sdk.tensor([3, 4]), 0.5)
    with pytest.raises(ValueError, match="lerp: out has shape"):
        sdk.zeros(3).lerp_(sdk.zeros(2, 3), 0.5)  # the result would be bigger than self
    with pytest.raises(ValueError, match="lerp: shapes"):
        sdk.lerp(sdk.zeros(3), sdk.zeros(4), 0.5)
    assert sdk.lerp(sdk.empty(0, 2), sdk.empty(2), 0.5).shape == (0, 2)


# ------------------------------------------------------------------------------ addcmul / addcdiv


def test_addcmul_addcdiv_against_numpy(rng, close):
    s, t1, t2 = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 1)), rng.uniform(1, 2, (4,))
    ts, tt1, tt2 = sdk.tensor(s), sdk.tensor(t1), sdk.tensor(t2)
    close(sdk.addcmul(ts, tt1, tt2), s + t1 * t2)
    close(sdk.addcmul(ts, tt1, tt2, value=-0.5), s - 0.5 * t1 * t2)
    close(sdk.addcdiv(ts, tt1, tt2, value=2), s + 2 * t1 / t2)
    close(ts.addcdiv(tt1, tt2), s + t1 / t2)
    u = sdk.tensor(s)
    assert u.addcmul_(tt1, tt2, value=3) is u
    close(u, s + 3 * t1 * t2)
    v = sdk.tensor(s)
    v.addcdiv_(tt1, tt2, value=0.25)
    close(v, s + 0.25 * t1 / t2)


def test_addc_promotion_and_integer_rules(close):
    i = sdk.tensor([1, 2, 3])
    r = sdk.addcmul(i, i, i, value=2)
    assert r.dtype == sdk.int64
    np.testing.assert_array_equal(r.numpy(), [3, 10, 21])
    assert sdk.addcmul(i, i, sdk.tensor([0.5, 0.5, 0.5])).dtype == sdk.float32
    f16 = sdk.ones(3, dtype=sdk.float16)
    assert sdk.addcmul(f16, f16, sdk.tensor(2.0, dtype=sdk.float64)).dtype == sdk.float16
    close(sdk.addcdiv(i, i, sdk.tensor([2.0, 4.0, 8.0])), np.array([1.5, 2.5, 3.375], np.float32))
    with pytest.raises(TypeError, match="argument value must not be a floating point"):
        sdk.addcmul(i, i, i, value=0.5)
    with pytest.raises(RuntimeError, match="addcdiv: integer division with addcdiv"):
        sdk.addcdiv(sdk.zeros(3), i, i)
    with pytest.raises(ValueError, match="addcmul: shapes"):
        sdk.addcmul(sdk.zeros(2), sdk.zeros(3), sdk.zeros(3))


# ------------------------------------------------------------------------------ clamp with tensors


def test_clamp_tensor_bounds(rng, close):
    x = rng.standard_normal((4, 5))
    lo, hi = rng.uniform(-1, 0, (5,)), rng.uniform(0, 1, (4, 1))
    tx, tlo, thi = sdk.tensor(x), sdk.tensor(lo), sdk.tensor(hi)
    close(sdk.clamp(tx, tlo, thi), np.minimum(np.maximum(x, lo), hi))
    close(sdk.clamp(tx, min=tlo), np.maximum(x, lo))
    close(sdk.clamp(tx, max=thi), np.minimum(x, hi))
    close(tx.clamp_min(tlo), np.maximum(x, lo))
    close(tx.clamp_max(thi), np.minimum(x, hi))
    close(sdk.clamp(tx, tlo, 0.5), np.minimum(np.maximum(x, lo), 0.5))  # a number next to a tensor
    close(sdk.clip(tx.t(), tlo[:4], thi.t()), np.clip(x.T, lo[:4], hi.T))
    u = sdk.tensor(x)
    assert u.clamp_(tlo, thi) is u
    close(u, np.minimum(np.maximum(x, lo), hi))
    w = sdk.tensor(x)
    w.clamp_min_(0.0)
    close(w, np.maximum(x, 0))
    w.clamp_max_(sdk.tensor(0.1, dtype=sdk.float64))
    close(w, np.minimum(np.maximum(x, 0), 0.1))


def test_clamp_tensor_nan_dtypes_and_crossed_bounds(close):
    x = sdk.tensor([NAN, 1.0, 5.0, -5.0])
    lo, hi = sdk.tensor([0.0, NAN, 0.0, 0.0]), sdk.tensor([1.0, 2.0, NAN, 1.0])
    close(sdk.clamp(x, lo, hi), np.array([NAN, NAN, NAN, 0.0], np.float32))
    crossed = sdk.clamp(sdk.tensor([0.0, 5.0]), sdk.tensor(3.0), sdk.tensor(1.0))
    close(crossed, np.array([1.0, 1.0], np.float32))  # min > max gives max, as torch
    i = sdk.tensor([-5, 0, 5], dtype=sdk.int32)
    r = sdk.clamp(i, sdk.tensor([-1, -1, -1], dtype=sdk.int32))
    assert r.dtype == sdk.int32 and r.numpy().tolist() == [-1, 0, 5]
    assert sdk.clamp(i, sdk.tensor([0.5, 0.5, 0.5])).dtype == sdk.float32
    assert (
        sdk.clamp(sdk.tensor([1.0], dtype=sdk.float32), sdk.tensor(0.0, dtype=sdk.float64)).dtype
        == sdk.float32
    )
    u8 = sdk.tensor(np.array([0, 100, 255], np.uint8))
    np.testing.assert_array_equal(
        sdk.clamp(u8, max=sdk.tensor(np.array(200, np.uint8))).numpy(), [0, 100, 200]
    )
    with pytest.raises(ValueError, match="clamp: shapes"):
        sdk.clamp(sdk.zeros(3), sdk.zeros(4))


# ------------------------------------------------------------------------------ isclose / allclose


def test_isclose_against_numpy(rng):
    a = rng.standard_normal((5, 6))
    b = a + rng.standard_normal((5, 6)) * np.array([0, 1e-9, 1e-7, 1e-5, 1e-3, 1])
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    for rtol, atol in ((1e-5, 1e-8), (0.0, 1e-6), (1e-3, 0.0), (0.0, 0.0)):
        got = sdk.isclose(ta, tb, rtol=rtol, atol=atol)
        assert got.dtype == sdk.bool
        np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, rtol=rtol, atol=atol))
        assert sdk.allclose(ta, tb, rtol, atol) == np.allclose(a, b, rtol=rtol, atol=atol)
    np.testing.assert_array_equal(ta.t().isclose(tb.t()).numpy(), np.isclose(a.T, b.T))
    np.testing.assert_array_equal(sdk.isclose(ta, tb[0]).numpy(), np.isclose(a, b[0]))


def test_isclose_special_values_and_dtypes():
    a = sdk.tensor([INF, -INF, INF, NAN, NAN, 1.0])
    b = sdk.tensor([INF, -INF, -INF, NAN, 1.0, INF])
    an, bn = a.numpy(), b.numpy()
    np.testing.assert_array_equal(sdk.isclose(a, b).numpy(), np.isclose(an, bn))
    np.testing.assert_array_equal(
        sdk.isclose(a, b, equal_nan=True).numpy(), np.isclose(an, bn, equal_nan=True)
    )
    i, j = sdk.tensor([1, 100, 1000]), sdk.tensor([1, 101, 1001])
    np.testing.assert_array_equal(sdk.isclose(i, j, rtol=0.005).numpy(), [True, False, True])
    assert sdk.allclose(sdk.tensor([True]), sdk.tensor([True]))
    assert sdk.isclose(sdk.tensor([1.0]), 1.0).numpy().tolist() == [True]
    assert sdk.isclose(sdk.tensor([1, 2]), 1.5, atol=0.6).numpy().tolist() == [True, True]
    with pytest.raises(TypeError, match="isclose: expected input and other to have the same dtype"):
        sdk.isclose(sdk.zeros(2), sdk.zeros(2, dtype=sdk.float64))
    with pytest.raises(ValueError, match="rtol must be greater than or equal to zero"):
        sdk.isclose(sdk.zeros(2), sdk.zeros(2), rtol=-1.0)
    with pytest.raises(ValueError, match="atol must be greater than or equal to zero"):
        sdk.allclose(sdk.zeros(2), sdk.zeros(2), atol=-1.0)
    f16 = sdk.tensor([1.0, 2.0], dtype=sdk.float16)
    assert sdk.allclose(f16, f16 + 0.0009765625, rtol=0, atol=1e-3)
    assert not sdk.allclose(sdk.zeros(2), sdk.ones(2))


# ------------------------------------------------------------------------------ activations


def test_softplus(rng, close):
    x = rng.uniform(-30, 30, (7, 9))
    t = sdk.tensor(x)
    ref = np.where(x > 20, x, np.log1p(np.exp(x)))
    close(F.softplus(t), ref, rtol=1e-13)
    ref2 = np.where(2 * x > 5, x, np.log1p(np.exp(2 * x)) / 2)
    close(F.softplus(t, beta=2, threshold=5), ref2, rtol=1e-13)
    close(F.softplus(t.t()), ref.T, rtol=1e-13)
    assert F.softplus(sdk.tensor([1, 2])).dtype == sdk.float32
    close(F.softplus(sdk.tensor([NAN, -INF, INF])), np.array([NAN, 0.0, INF], np.float32))
    close(sdk.nn.Softplus(beta=0.5)(t), np.where(0.5 * x > 20, x, np.log1p(np.exp(0.5 * x)) / 0.5))
    with pytest.raises(ValueError, match="softplus: beta must be nonzero"):
        F.softplus(t, beta=0)


def test_leaky_relu_hardtanh_relu6(rng, close):
    x = rng.uniform(-9, 9, (5, 6))
    t = sdk.tensor(x)
    close(F.leaky_relu(t), np.where(x > 0, x, 0.01 * x))
    close(F.leaky_relu(t, 0.2), np.where(x > 0, x, 0.2 * x))
    close(F.hardtanh(t), np.clip(x, -1, 1))
    close(F.hardtanh(t, -2.5, 3.0), np.clip(x, -2.5, 3.0))
    close(F.relu6(t), np.clip(x, 0, 6))
    close(sdk.nn.ReLU6()(t), np.clip(x, 0, 6))
    close(sdk.nn.LeakyReLU(0.1)(t), np.where(x > 0, x, 0.1 * x))
    close(sdk.nn.Hardtanh(-3, 3)(t), np.clip(x, -3, 3))
    i = sdk.tensor([-9, 3, 9])
    assert F.relu6(i).dtype == sdk.int64 and F.relu6(i).numpy().tolist() == [0, 3, 6]
    assert F.leaky_relu(i).dtype == sdk.float32
    u = sdk.tensor(x)
    assert F.leaky_relu(u, 0.3, inplace=True) is u
    close(u, np.where(x > 0, x, 0.3 * x))
    v = sdk.tensor(x)
    assert F.hardtanh(v, inplace=True) is v
    close(v, np.clip(x, -1, 1))
    close(F.leaky_relu(sdk.tensor([NAN, -0.0])), np.array([NAN, -0.0], np.float32))
    e = sdk.tensor(x)
    assert F.elu(e, 0.5, inplace=True) is e  # was ignored before
    close(e, np.where(x > 0, x, 0.5 * np.expm1(x)))
    with pytest.raises(TypeError, match="hardtanh\\(\\): bool tensors"):
        F.hardtanh(sdk.tensor([True]))
    with pytest.raises(ValueError, match="min_val .* cannot be greater than max_val"):
        F.hardtanh(t, 2.0, 1.0)


def test_silu_mish_functional_modules_and_in_place(rng, close):
    x = rng.uniform(-10, 10, (4, 5))
    t = sdk.tensor(x)
    silu = x / (1 + np.exp(-x))
    mish = x * np.tanh(np.log1p(np.exp(x)))
    close(F.silu(t), silu, rtol=1e-13)
    close(F.mish(t), mish, rtol=1e-13)
    close(sdk.nn.SiLU()(t), silu, rtol=1e-13)
    close(sdk.nn.Mish()(t), mish, rtol=1e-13)
    u = sdk.tensor(x)
    assert F.silu(u, inplace=True) is u
    close(u, silu, rtol=1e-13)
    v = sdk.tensor(x)
    F.mish(v, inplace=True)
    close(v, mish, rtol=1e-13)
    f = sdk.tensor(x, dtype=sdk.float32)
    close(F.silu(f), silu.astype(np.float32), rtol=2e-6, atol=1e-6)
    close(F.mish(f), mish.astype(np.float32), rtol=2e-6, atol=1e-6)


# ------------------------------------------------------------------------------ new_* and sizes


def test_new_factories_keep_dtype_and_take_overrides():
    t = sdk.zeros(2, dtype=sdk.float64)
    for make, fill in ((t.new_zeros, 0), (t.new_ones, 1)):
        r = make(3, 4)
        assert r.dtype == sdk.float64 and r.shape == (3, 4) and (r.numpy() == fill).all()
        assert make((2,), dtype=sdk.int32).dtype == sdk.int32
    e = t.new_empty((5,))
    assert e.dtype == sdk.float64 and e.shape == (5,)
    f = t.new_full((2, 2), 7)
    assert f.dtype == sdk.float64 and f.numpy().tolist() == [[7, 7], [7, 7]]
    assert sdk.tensor([1, 2]).new_full((1,), 3).dtype == sdk.int64
    assert t.new_zeros(2, requires_grad=True).requires_grad


def test_is_same_size():
    a = sdk.zeros(2, 3)
    assert a.is_same_size(sdk.ones(2, 3, dtype=sdk.int64))
    assert not a.is_same_size(a.t())
    assert not a.is_same_size(sdk.zeros(6))
    with pytest.raises(TypeError, match="is_same_size\\(\\): argument 'other' must be Tensor"):
        a.is_same_size([2, 3])


@pytest.mark.parametrize(
    "name, ref",
    [
        ("iand", np.bitwise_and),
        ("ior", np.bitwise_or),
        ("ixor", np.bitwise_xor),
        ("ilshift", np.left_shift),
        ("irshift", np.right_shift),
    ],
)
@pytest.mark.parametrize("other", ["int", "tensor"])
def test_in_place_bitwise_operators_write_into_the_tensor_and_its_views(name, ref, other):
    import operator

    values = np.array([5, -7, 12, 0, -1], dtype=np.int64)
    amounts = np.array([3, 1, 2, 7, 4], dtype=np.int64)
    a = sdk.tensor(values)
    view = a[1:3]
    b = 2 if other == "int" else sdk.tensor(amounts)
    got = getattr(operator, name)(a, b)
    want = ref(values, 2 if other == "int" else amounts)
    assert got is a  # in place, as torch: a name bound to the tensor sees the change
    np.testing.assert_array_equal(a.numpy(), want)
    np.testing.assert_array_equal(view.numpy(), want[1:3])


def test_reflected_shifts_and_in_place_bitwise_errors():
    a = sdk.tensor([1, 2, 3], dtype=sdk.int32)
    np.testing.assert_array_equal((1 << a).numpy(), np.array([2, 4, 8], dtype=np.int32))
    np.testing.assert_array_equal((64 >> a).numpy(), np.array([32, 16, 8], dtype=np.int32))
    assert (1 << a).dtype == sdk.int32
    with pytest.raises(TypeError, match="shift"):
        1.5 << a
    flags = sdk.tensor([True, False])
    with pytest.raises(TypeError, match="can't be cast"):
        flags &= sdk.tensor([1, 2])
    np.testing.assert_array_equal(flags.numpy(), [True, False])  # unchanged by the refusal
