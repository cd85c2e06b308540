"""Accuracy of the core's vectorized float32 math (exp, tanh, sigmoid, elu, log, log1p, expm1,
erf, GELU) and pow fast paths."""

import math

import numpy as np
import pytest

import sdk


def _ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of the float32 ulp at the reference (float64)."""
    ref32 = np.abs(ref).astype(np.float32)
    ulp = np.spacing(np.maximum(ref32, np.float32(np.finfo(np.float32).tiny))).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / ulp


def _samples() -> np.ndarray:
    rng = np.random.default_rng(1234)
    parts = [
        rng.uniform(-1e-3, 1e-3, 20000),
        rng.uniform(-1, 1, 20000),
        rng.uniform(-12, 12, 40000),
        rng.uniform(-90, 90, 20000),
        np.array([0.0, -0.0, 1e-30, -1e-30, 1e-40, -1e-40, 0.5, -0.5, 0.34, -0.35, 9.0, -9.0]),
    ]
    return np.concatenate(parts).astype(np.float32)


def _sigmoid64(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


@pytest.mark.parametrize(
    "name,fn,ref,bound",
    [
        ("exp", lambda t: t.exp(), np.exp, 2.0),
        ("tanh", lambda t: t.tanh(), np.tanh, 3.0),
        ("sigmoid", lambda t: t.sigmoid(), _sigmoid64, 3.0),
        ("elu", lambda t: sdk.elu(t), lambda x: np.where(x > 0, x, np.expm1(x)), 2.0),
    ],
)
def test_float32_math_ulp(name, fn, ref, bound):
    x = _samples()
    if name == "exp":
        x = x[x < 88.0]
    got = fn(sdk.from_numpy(x.copy())).numpy()
    want = ref(x.astype(np.float64))
    err = _ulp_error(got, want)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, f"{name}({x[worst]!r}) = {got[worst]!r}, want {want[worst]!r}"


def test_float32_math_specials():
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)
    t = sdk.from_numpy(x.copy())
    np.testing.assert_array_equal(t.tanh().numpy(), [1, -1, np.nan, 0, -0.0])
    np.testing.assert_array_equal(t.sigmoid().numpy(), [1, 0, np.nan, 0.5, 0.5])
    np.testing.assert_array_equal(sdk.elu(t).numpy(), [np.inf, -1, np.nan, 0, 0])
    assert np.signbit(sdk.elu(t).numpy()[4])  # elu(-0) is -0, like x for x >= 0
    np.testing.assert_array_equal(t.exp().numpy(), [np.inf, 0, np.nan, 1, 1])


def test_elu_alpha_and_strided():
    x = np.random.default_rng(0).uniform(-4, 4, (64, 48)).astype(np.float32)
    t = sdk.from_numpy(x.copy())[:, ::3]
    got = sdk.elu(t, alpha=0.7).numpy()
    xs = x[:, ::3].astype(np.float64)
    np.testing.assert_allclose(got, np.where(xs > 0, xs, 0.7 * np.expm1(xs)), rtol=3e-7, atol=0)


@pytest.mark.parametrize("e", [2, 3, 0.5, -1, -2, 1, 0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_pow_special_exponents_float(e, dtype):
    x = np.random.default_rng(5).uniform(0.05, 4, (33, 17)).astype(dtype)
    x[0, :4] = [0.25, 1, 2, 0.5]
    got = (sdk.from_numpy(x.copy()) ** e).numpy()
    assert got.dtype == np.dtype(dtype)
    want = np.power(x.astype(np.float64), e)
    tiny = np.finfo(dtype).tiny
    ulp = np.spacing(np.maximum(np.abs(want).astype(dtype), tiny)).astype(np.float64)
    # float32/float16: one rounding of the exact value; float64 x*x*x, 1/(x*x): two roundings.
    bound = 2.0 if dtype == "float64" and e in (3, -2) else 1.0
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound * ulp)


@pytest.mark.parametrize("e", [2, 3, 1, 0])
@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint8", "int16"])
def test_pow_special_exponents_int(e, dtype):
    x = np.arange(-20, 20).astype(dtype).reshape(4, 10)
    got = (sdk.from_numpy(x.copy()) ** e).numpy()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.power(x, e, dtype=dtype))


def test_pow_special_edge_values():
    x = np.array([-0.0, -np.inf, np.inf, np.nan, -2.0, 0.0], np.float32)
    t = sdk.from_numpy(x.copy())
    for e in (2, 3, 0.5, -1, -2, 1, 0):
        got = (t**e).numpy()
        want = np.power(x.astype(np.float64), e).astype(np.float32)
        np.testing.assert_array_equal(got, want, err_msg=f"exponent {e}")
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=f"exponent {e}")


def test_pow_special_strided_and_inplace():
    x = np.random.default_rng(2).uniform(-3, 3, (20, 30)).astype(np.float32)
    t = sdk.from_numpy(x.copy())
    np.testing.assert_allclose((t.t() ** 2).numpy(), x.T.astype(np.float64) ** 2, rtol=1e-7)
    t **= 3
    np.testing.assert_allclose(t.numpy(), x.astype(np.float64) ** 3, rtol=1e-7)
    b = sdk.from_numpy(np.array([True, False]))
    assert (b**2).numpy().tolist() == [1, 0]


def _float32_range(step: int = 4099) -> np.ndarray:
    """Every `step`-th float32 bit pattern (both signs, subnormals, huge values, infinities,
    NaNs) and the edges: +-0, the smallest subnormal, the smallest normal."""
    bits = np.arange(0, 1 << 32, step, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0.0, -0.0, 1e-45, -1e-45, 1.1754944e-38, -1.1754944e-38], np.float32)
    return np.concatenate([bits.view(np.float32), edges])


@pytest.mark.parametrize(
    "name,fn,ref,bound",
    [
        ("tanh", lambda t: t.tanh(), np.tanh, 3.0),
        ("exp", lambda t: t.exp(), np.exp, 2.0),
        ("sigmoid", lambda t: t.sigmoid(), _sigmoid64, 3.0),
    ],
)
def test_float32_math_ulp_over_the_whole_range(name, fn, ref, bound):
    x = _float32_range()
    got = fn(sdk.from_numpy(x.copy())).numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref(x.astype(np.float64))
        finite = np.isfinite(x) & (np.abs(want) <= np.finfo(np.float32).max)
    err = _ulp_error(got[finite], want[finite])
    worst = int(np.argmax(err))
    assert err[worst] <= bound, f"{name}({x[finite][worst]!r}) = {got[finite][worst]!r}"
    # Overflow to inf (exp), NaN in NaN out, the infinities' limits, the sign of zero.
    assert np.isnan(got[np.isnan(x)]).all()
    with np.errstate(over="ignore"):
        big = np.isfinite(x) & ~finite
    assert (got[big] == np.inf).all()
    inf = np.array([np.inf, -np.inf, 0.0, -0.0], np.float32)
    out = fn(sdk.from_numpy(inf)).numpy()
    np.testing.assert_array_equal(out, ref(inf.astype(np.float64)).astype(np.float32))
    if name == "tanh":
        assert np.signbit(out[3]) and not np.signbit(out[2])


def _erf64(x: np.ndarray) -> np.ndarray:
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


def _gelu64(x: np.ndarray) -> np.ndarray:
    """x (1 + erf(x / sqrt 2)) / 2 through erfc, so the negative tail is exact too."""
    return 0.5 * x * np.frompyfunc(math.erfc, 1, 1)(-x / math.sqrt(2)).astype(np.float64)


@pytest.mark.parametrize(
    "name,fn,ref,bound",
    [
        ("log", lambda t: t.log(), np.log, 1.0),
        ("log1p", lambda t: t.log1p(), np.log1p, 2.0),
        ("expm1", lambda t: t.expm1(), np.expm1, 2.0),
        ("erf", lambda t: t.erf(), _erf64, 3.0),
        ("gelu", lambda t: sdk.nn.functional.gelu(t), _gelu64, 7.0),
        ("sin", lambda t: t.sin(), np.sin, 2.0),
        ("cos", lambda t: t.cos(), np.cos, 2.0),
    ],
)
def test_float32_log_erf_gelu_over_the_whole_range(name, fn, ref, bound):
    """vec_math.h's branch-free forms (libm's loop before; sin and cos past 2^18 still libm's) on
    every 4099th float32 bit pattern:
    within `bound` ulp of the float64 result where that is a finite float32, and elsewhere the
    same NaN or infinity; -0 keeps its sign where the function keeps it."""
    x = _float32_range()
    got = fn(sdk.from_numpy(x.copy())).numpy()
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
        ok = np.isfinite(x) & np.isfinite(want) & (np.abs(want) <= np.finfo(np.float32).max)
        rounded = want[~ok].astype(np.float32)
    err = _ulp_error(got[ok], want[ok])
    worst = int(np.argmax(err))
    assert err[worst] <= bound, f"{name}({x[ok][worst]!r}) = {got[ok][worst]!r}: {err[worst]:.2f}"
    np.testing.assert_array_equal(got[~ok], rounded)
    zeros = np.array([0.0, -0.0], np.float32)
    out = fn(sdk.from_numpy(zeros)).numpy()
    if name == "log":
        assert (out == -np.inf).all()
    elif name == "cos":
        assert (out == 1).all()
    else:
        assert (out == 0).all() and np.signbit(out[1]) and not np.signbit(out[0])


@pytest.mark.parametrize("name", ["tanh", "exp", "sigmoid", "log", "erf", "gelu", "sin"])
def test_float32_math_same_whatever_the_layout(name):
    # Strided runs (a transpose, a step) give the values of the contiguous run, bit for bit.
    x = np.random.default_rng(7).uniform(-20, 20, (300, 257)).astype(np.float32)
    t = sdk.from_numpy(x.copy())
    fn = getattr(sdk, name)
    whole = fn(t).numpy()
    np.testing.assert_array_equal(fn(t.t()).numpy(), whole.T)
    np.testing.assert_array_equal(fn(t[:, ::3]).numpy(), whole[:, ::3])


def test_float32_tanh_within_2_5_ulp_densely():
    """tanh's loop on this CPU (vec_simd.h's tanh512 with AVX-512; SDK_CPU_CAPABILITY=default
    runs the portable one) stays within 2.5 ulp:
    every 257th float32 bit pattern with |x| <= 11 (where tanh is not yet 1 or x), both signs,
    and the values on either side of the clamp at 9.1 and the range reduction's steps."""
    bits = np.arange(0, 0x41300001, 257, dtype=np.uint32)  # +0 up to 11.0
    x = bits.view(np.float32)
    steps = np.float32(np.log(2) / 2) * np.arange(1, 27, dtype=np.float32)
    edges = np.array([9.1, np.nextafter(9.1, 0), np.nextafter(9.1, 20)], np.float32)
    x = np.concatenate([x, steps, np.nextafter(steps, 0), np.nextafter(steps, 20), edges])
    x = np.concatenate([x, -x])
    got = sdk.from_numpy(x.copy()).tanh().numpy()
    err = _ulp_error(got, np.tanh(x.astype(np.float64)))
    worst = int(np.argmax(err))
    assert err[worst] <= 2.5, f"tanh({x[worst]!r}) = {got[worst]!r}: {err[worst]:.3f} ulp"
    assert np.all(np.abs(got) <= 1)
    assert np.array_equal(np.signbit(got), np.signbit(x))


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_float32_sin_cos_past_the_vector_range(name):
    """Past 2^18 (kTrigMax), and for inf and NaN, sin and cos take libm's float32 result, whether
    the run is contiguous, strided or in place, and the in-range values beside them do not move."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-100, 100, 3000).astype(np.float32)
    x[::7] = rng.uniform(2.0**18, 1e30, x[::7].size).astype(np.float32)
    x[5], x[11] = np.inf, np.nan
    want = getattr(np, name)(x.astype(np.float64))
    for t in (sdk.from_numpy(x.copy()), sdk.from_numpy(np.stack([x, x], 1)).t()[0]):
        got = getattr(t, name)().numpy()
        ok = np.isfinite(x)
        assert np.all(_ulp_error(got[ok], want[ok]) <= 2.0)
        assert np.isnan(got[~ok]).all()
    inplace = sdk.from_numpy(x.copy())
    getattr(inplace, name + "_")()
    np.testing.assert_array_equal(
        inplace.numpy(), getattr(sdk.from_numpy(x.copy()), name)().numpy()
    )
