"""The elementwise ops added with ABI 1.3 (trigonometric, hyperbolic, logarithms, value tests,
silu/mish, erfc/erfinv, fmod, hypot, copysign, logaddexp, xlogy) against numpy: dtype rules,
broadcasting, non-contiguous and empty inputs, NaN and infinities, out= and in place."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
INF, NAN = math.inf, math.nan


def _softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _erfinv(y):
    """Bisection on math.erf (in double precision): an independent reference for erfinv."""
    out = np.empty_like(y)
    for i, v in np.ndenumerate(y):
        v = float(v)
        if abs(v) >= 1:
            out[i] = math.copysign(INF, v) if abs(v) == 1 else NAN
            continue
        lo, hi = -6.0, 6.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
        out[i] = 0.5 * (lo + hi)
    return out


# name -> (numpy reference on float64, input domain: (low, high))
UNARY = {
    "tan": (np.tan, (-1.4, 1.4)),
    "asin": (np.arcsin, (-0.99, 0.99)),
    "acos": (np.arccos, (-0.99, 0.99)),
    "atan": (np.arctan, (-5, 5)),
    "sinh": (np.sinh, (-4, 4)),
    "cosh": (np.cosh, (-4, 4)),
    "asinh": (np.arcsinh, (-5, 5)),
    "acosh": (np.arccosh, (1.01, 6)),
    "atanh": (np.arctanh, (-0.99, 0.99)),
    "log2": (np.log2, (0.05, 9)),
    "log10": (np.log10, (0.05, 9)),
    "exp2": (np.exp2, (-6, 6)),
    "trunc": (np.trunc, (-7, 7)),
    "frac": (lambda x: x - np.trunc(x), (-7, 7)),
    "silu": (lambda x: x / (1 + np.exp(-x)), (-8, 8)),
    "mish": (lambda x: x * np.tanh(_softplus(x)), (-8, 8)),
    "erfc": (np.vectorize(math.erfc), (-3, 3)),
    "erfinv": (_erfinv, (-0.99, 0.99)),
}


def _ref_dtype(dtype):
    return np.float32 if dtype == "bfloat16" else np.dtype(dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_matches_numpy(name, dtype, rng, close, to_sdk):
    fn, (lo, hi) = UNARY[name]
    x = rng.uniform(lo, hi, (3, 5))
    t = to_sdk(x, dtype)
    xr = t.to(sdk.float64).numpy()  # the values the tensor actually holds
    ref = fn(xr).astype(_ref_dtype(dtype))
    got = getattr(sdk, name)(t)
    assert got.dtype == t.dtype
    rtol = {"float16": 4e-3, "bfloat16": 2e-2, "float32": 2e-6, "float64": 1e-12}[dtype]
    close(got, ref, rtol=rtol, atol=rtol, check_dtype=False)
    close(getattr(t, name)(), ref, rtol=rtol, atol=rtol, check_dtype=False)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_non_contiguous_empty_and_0dim(name, rng, close):
    fn, (lo, hi) = UNARY[name]
    base = rng.uniform(lo, hi, (6, 8))
    t = sdk.tensor(base)
    close(getattr(sdk, name)(t.t()), fn(base.T), rtol=1e-12, atol=1e-12)
    close(getattr(sdk, name)(t[::2, 1::3]), fn(base[::2, 1::3]), rtol=1e-12, atol=1e-12)
    assert tuple(getattr(sdk, name)(sdk.empty(0, 3)).shape) == (0, 3)
    with np.errstate(invalid="ignore"):  # acosh(0.5) is NaN
        close(getattr(sdk, name)(sdk.tensor(0.5, dtype=sdk.float64)), fn(np.float64(0.5)))


FLOAT_MATH = sorted(set(UNARY) - {"trunc", "frac"})


@pytest.mark.parametrize("name", FLOAT_MATH)
@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_integer_inputs_give_float32(name, dtype, close):
    x = np.array([0, 1, 1, 0] if dtype == "bool" else [0, 1, 2, 3], dtype=dtype)
    got = getattr(sdk, name)(sdk.tensor(x))
    assert got.dtype == sdk.float32
    with np.errstate(all="ignore"):
        ref = UNARY[name][0](x.astype(np.float64)).astype(np.float32)
    close(got, ref, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_trunc_keeps_integer_dtypes_and_frac_refuses_them(dtype):
    x = np.array([0, 1, 1, 0] if dtype == "bool" else [0, 1, 5, 3], dtype=dtype)
    got = sdk.trunc(sdk.tensor(x))
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), x)
    np.testing.assert_array_equal(sdk.fix(sdk.tensor(x)).numpy(), x)
    with pytest.raises(TypeError, match="frac: only floating point"):
        sdk.frac(sdk.tensor(x))


def test_unary_special_values(close):
    x = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.0, -2.5, 1e-300])
    t = sdk.tensor(x)
    with np.errstate(all="ignore"):
        for name in ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                     "log2", "log10", "exp2", "trunc", "silu", "erfc"):  # fmt: skip
            close(getattr(sdk, name)(t), UNARY[name][0](x), rtol=1e-12, atol=0)
        close(sdk.frac(t), x - np.trunc(x))  # torch's x - trunc(x): NaN for infinities
        close(sdk.mish(t), UNARY["mish"][0](x), rtol=1e-12, atol=0)  # mish(-inf) = -inf * 0
    # erfinv: the ends and beyond
    e = sdk.erfinv(sdk.tensor([1.0, -1.0, 1.5, -2.0, NAN, 0.0, -0.0]))
    got = e.numpy()
    assert got[0] == INF and got[1] == -INF and np.isnan(got[2:5]).all()
    assert got[5] == 0 and not np.signbit(got[5]) and np.signbit(got[6])
    # signs of zero survive trunc
    tz = sdk.trunc(sdk.tensor([-0.4, 0.4]))
    assert np.signbit(tz.numpy()[0]) and not np.signbit(tz.numpy()[1])


def test_erfinv_inverts_erf_to_the_last_bits():
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 401), [1 - 2**-52, 1e-300, 0.5]])
    x = sdk.erfinv(sdk.tensor(y)).numpy()
    # in the tail erfc pins the answer (1 - y is exact there); elsewhere erf does
    tail = np.abs(y) > 0.5
    back = np.array([math.erfc(abs(v)) for v in x])
    np.testing.assert_allclose(back[tail], 1 - np.abs(y[tail]), rtol=1e-13)
    np.testing.assert_allclose([math.erf(v) for v in x[~tail]], y[~tail], rtol=1e-15, atol=1e-300)
    f = sdk.erfinv(sdk.tensor(y[:401], dtype=sdk.float32)).numpy()
    np.testing.assert_allclose(f, _erfinv(y[:401].astype(np.float32)), rtol=3e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", FLOATS + INTS + ["bool"])
def test_value_tests(dtype):
    if dtype in FLOATS:
        x = np.array([NAN, INF, -INF, 0.0, -1.5, 3.0], dtype=np.float32)
    elif dtype == "bool":
        x = np.array([True, False])
    else:
        x = np.array([0, 1, 7], dtype=dtype)
    t = sdk.tensor(x).to(getattr(sdk, dtype)) if dtype == "bfloat16" else sdk.tensor(x)
    refs = {
        "isnan": np.isnan,
        "isinf": np.isinf,
        "isfinite": np.isfinite,
        "isposinf": np.isposinf,
        "isneginf": np.isneginf,
    }
    for name, fn in refs.items():
        got = getattr(sdk, name)(t)
        assert got.dtype == sdk.bool, name
        np.testing.assert_array_equal(got.numpy(), fn(x), err_msg=name)
        np.testing.assert_array_equal(getattr(t, name)().numpy(), fn(x), err_msg=name)
        assert not hasattr(sdk.Tensor, name + "_")  # torch has no in-place form either


def test_value_tests_on_views_and_empty():
    x = np.array([[NAN, 1.0, INF], [-INF, 2.0, NAN]])
    t = sdk.tensor(x)
    np.testing.assert_array_equal(sdk.isnan(t.t()).numpy(), np.isnan(x.T))
    np.testing.assert_array_equal(sdk.isfinite(t[:, ::2]).numpy(), np.isfinite(x[:, ::2]))
    assert sdk.isinf(sdk.empty(0)).dtype == sdk.bool


@pytest.mark.parametrize("name", ["tan", "trunc", "frac", "erfinv", "log2", "atanh"])
def test_unary_out_and_in_place(name, rng, close):
    fn, (lo, hi) = UNARY[name]
    x = rng.uniform(lo, hi, (4, 3))
    t = sdk.tensor(x)
    out = sdk.empty(4, 3, dtype=sdk.float64)
    r = getattr(sdk, name)(t, out=out)
    assert r is out
    close(out, fn(x), rtol=1e-12, atol=1e-12)
    u = sdk.tensor(x)
    assert getattr(u, name + "_")() is u
    close(u, fn(x), rtol=1e-12, atol=1e-12)
    # in place into a strided view writes through to its base, and only there
    expected = np.tile(x, (1, 2))
    base = sdk.tensor(expected)
    getattr(base[:, ::2], name + "_")()
    expected[:, ::2] = fn(expected[:, ::2])
    close(base, expected, rtol=1e-12, atol=1e-12)


def test_in_place_float_math_on_integers_is_refused():
    t = sdk.tensor([1, 2, 3])
    with pytest.raises(TypeError, match="can't be cast"):
        t.tan_()
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3])  # untouched


def test_aliases_are_the_same_ops(rng):
    x = sdk.tensor(rng.uniform(-0.9, 0.9, 7))
    pairs = [("sgn", "sign"), ("fix", "trunc"), ("arcsin", "asin"), ("arccos", "acos"),
             ("arctan", "atan"), ("arcsinh", "asinh"), ("arctanh", "atanh")]  # fmt: skip
    for alias, name in pairs:
        np.testing.assert_array_equal(getattr(sdk, alias)(x).numpy(), getattr(sdk, name)(x).numpy())
        np.testing.assert_array_equal(getattr(x, alias)().numpy(), getattr(x, name)().numpy())
    y = sdk.tensor([1.5, 2.0])
    np.testing.assert_array_equal(sdk.arccosh(y).numpy(), sdk.acosh(y).numpy())
    np.testing.assert_array_equal(sdk.arctan2(x, x + 2).numpy(), sdk.atan2(x, x + 2).numpy())


# ------------------------------------------------------------------------------ binary

_xlogy = np.vectorize(lambda a, b: b if b != b else (0.0 if a == 0 else a * math.log(b)))

BINARY = {
    "fmod": (np.fmod, (-9, 9), (0.5, 4)),
    "hypot": (np.hypot, (-9, 9), (-9, 9)),
    "copysign": (np.copysign, (-9, 9), (-9, 9)),
    "logaddexp": (np.logaddexp, (-30, 30), (-30, 30)),
    "xlogy": (_xlogy, (-3, 3), (0.1, 5)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,))])
def test_binary_matches_numpy(name, dtype, shapes, rng, close, to_sdk):
    fn, da, db = BINARY[name]
    a, b = rng.uniform(*da, shapes[0]), rng.uniform(*db, shapes[1])
    if name == "fmod":
        b = b * np.where(rng.random(shapes[1]) < 0.5, -1, 1)
    ta, tb = to_sdk(a, dtype), to_sdk(b, dtype)
    ra, rb = (t.to(sdk.float64).numpy() for t in (ta, tb))
    ref = fn(ra, rb).astype(_ref_dtype(dtype))
    got = getattr(sdk, name)(ta, tb)
    assert got.dtype == ta.dtype
    rtol = {"float16": 4e-3, "bfloat16": 2e-2, "float32": 2e-6, "float64": 1e-13}[dtype]
    close(got, ref, rtol=rtol, atol=rtol, check_dtype=False)
    close(getattr(ta, name)(tb), ref, rtol=rtol, atol=rtol, check_dtype=False)


def test_fmod_takes_the_sign_of_the_dividend(close):
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, INF, 3.0, NAN])
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, INF, 1.0])
    with np.errstate(invalid="ignore"):
        close(sdk.fmod(sdk.tensor(a), sdk.tensor(b)), np.fmod(a, b))
    assert np.signbit(sdk.fmod(sdk.tensor([-0.0]), 2.0).numpy()[0])
    close(sdk.fmod(sdk.tensor(a), 0.0), np.full(a.shape, NAN))  # float division by 0: NaN
    # remainder keeps Python's convention (the divisor's sign)
    close(sdk.remainder(sdk.tensor([-7.5]), 2.0), np.array([0.5], np.float32))
    close(sdk.fmod(sdk.tensor([-7.5]), 2.0), np.array([-1.5], np.float32))


@pytest.mark.parametrize("dtype", INTS)
def test_fmod_integers(dtype, rng):
    lo = 0 if dtype == "uint8" else -20
    a = rng.integers(lo, 21, (5, 6)).astype(dtype)
    b = rng.integers(1, 7, (6,)).astype(dtype)
    if dtype != "uint8":
        b = (b * np.where(rng.random(6) < 0.5, -1, 1)).astype(dtype)
    got = sdk.fmod(sdk.tensor(a), sdk.tensor(b))
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), np.fmod(a, b))
    np.testing.assert_array_equal(
        sdk.fmod(sdk.tensor(a), 3).numpy(), np.fmod(a, np.array(3, dtype))
    )
    assert sdk.fmod(sdk.tensor(a), 2.5).dtype == sdk.float32  # a float scalar lifts the category
    with pytest.raises(RuntimeError, match="fmod: integer division by zero"):
        sdk.fmod(sdk.tensor(a), sdk.tensor(np.zeros(6, dtype)))
    with pytest.raises(RuntimeError, match="fmod: integer division by zero"):
        sdk.fmod(sdk.tensor(a), 0)


def test_fmod_int_min_by_minus_one_does_not_trap():
    t = sdk.tensor(np.array([np.iinfo(np.int64).min, 7], dtype=np.int64))
    np.testing.assert_array_equal(sdk.fmod(t, -1).numpy(), [0, 0])


def test_fmod_refuses_bool():
    with pytest.raises(TypeError, match="fmod: not supported for bool"):
        sdk.fmod(sdk.tensor([True]), sdk.tensor([True]))


@pytest.mark.parametrize("name", ["hypot", "copysign", "logaddexp", "xlogy"])
def test_float_binaries_promote_integers(name, close):
    a, b = np.array([0, 1, -2, 3]), np.array([1, 2, 3, 4])
    got = getattr(sdk, name)(sdk.tensor(a), sdk.tensor(b))
    assert got.dtype == sdk.float32
    close(got, BINARY[name][0](a.astype(np.float64), b.astype(np.float64)).astype(np.float32))
    # a float64 tensor next to an int one decides; a 0-dim float64 does not beat float32
    assert getattr(sdk, name)(sdk.tensor(a), sdk.tensor(b, dtype=sdk.float64)).dtype == sdk.float64
    f32 = sdk.tensor([1.0, 2.0])
    assert getattr(sdk, name)(f32, sdk.tensor(2.0, dtype=sdk.float64)).dtype == sdk.float32


def test_binary_special_values(close):
    a = np.array([INF, -INF, -INF, INF, NAN, 1.0, 0.0, -0.0, 3.0])
    b = np.array([INF, -INF, INF, 1.0, 1.0, NAN, -0.0, 5.0, -4.0])
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    with np.errstate(invalid="ignore"):
        close(sdk.logaddexp(ta, tb), np.logaddexp(a, b))
    close(sdk.hypot(ta, tb), np.hypot(a, b))
    got = sdk.copysign(ta, tb).numpy()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.copysign(a, b)))
    close(sdk.copysign(ta, tb), np.copysign(a, b))
    # xlogy: 0 * log(0) and 0 * log(inf) are 0, NaN in y is NaN even for x == 0
    x = sdk.tensor([0.0, 0.0, 0.0, 2.0, NAN, 1.0], dtype=sdk.float64)
    y = sdk.tensor([0.0, INF, NAN, 0.0, 1.0, -1.0], dtype=sdk.float64)
    close(sdk.xlogy(x, y), np.array([0.0, 0.0, NAN, -INF, NAN, NAN]))


def test_binary_scalars_views_and_empty(rng, close):
    a = rng.uniform(-5, 5, (4, 6))
    t = sdk.tensor(a)
    close(sdk.fmod(t.t(), 1.5), np.fmod(a.T, 1.5))
    close(sdk.hypot(t[:, ::2], t[:, 1::2]), np.hypot(a[:, ::2], a[:, 1::2]))
    close(sdk.xlogy(2.0, t.abs()), 2.0 * np.log(np.abs(a)))  # a number first
    close(sdk.logaddexp(t, 0.5), np.logaddexp(a, 0.5))
    close(t.copysign(-1.0), -np.abs(a))
    assert tuple(sdk.hypot(sdk.empty(0, 2), sdk.empty(3, 1, 1)).shape) == (3, 0, 2)


def test_binary_out_and_in_place(rng, close):
    a, b = rng.uniform(1, 5, (3, 4)), rng.uniform(1, 5, (4,))
    for name in ("fmod", "hypot", "copysign", "xlogy"):
        fn = BINARY[name][0]
        out = sdk.empty(3, 4, dtype=sdk.float64)
        assert getattr(sdk, name)(sdk.tensor(a), sdk.tensor(b), out=out) is out
        close(out, fn(a, b))
        t = sdk.tensor(a)
        assert getattr(t, name + "_")(sdk.tensor(b)) is t
        close(t, fn(a, b))


def test_binary_shape_mismatch_names_the_op():
    with pytest.raises(ValueError, match=r"hypot: shapes \[3\] and \[4\] cannot be broadcast"):
        sdk.hypot(sdk.zeros(3), sdk.zeros(4))
