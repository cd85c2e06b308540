"""torch's names that the sdk adds, checked without torch: special functions against exact
values and finite differences, the state queries and process settings, the refusals and the
bad-input errors (test_torch_names_*.py compare the rest against torch)."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import sdk
from sdk import _toplevel

X64 = np.array([0.1, 0.5, 1.0, 2.5, 7.3, 30.0, -0.7, -2.5])
ZETA3 = 1.2020569031595942


def _t(values, dtype=sdk.float64):
    return sdk.tensor(values, dtype=dtype)


# ------------------------------------------------------------------------------ special


def test_lgamma_and_digamma_exact_values():
    got = sdk.lgamma(_t(X64)).numpy()
    np.testing.assert_allclose(got, [math.lgamma(v) for v in X64], rtol=1e-15)
    euler = 0.5772156649015329
    np.testing.assert_allclose(sdk.digamma(_t([1.0, 0.5, 2.0])).numpy(),
                               [-euler, -euler - 2 * math.log(2), 1 - euler], rtol=1e-14)  # fmt: skip
    assert sdk.lgamma(_t([0.0, -3.0])).tolist() == [math.inf, math.inf]
    d = sdk.digamma(_t([0.0, -2.0])).tolist()
    assert d[0] == -math.inf and math.isnan(d[1])


def test_polygamma_exact_values():
    pi2 = math.pi**2
    got = sdk.polygamma(1, _t([1.0, 0.5, 2.0])).numpy()
    np.testing.assert_allclose(got, [pi2 / 6, pi2 / 2, pi2 / 6 - 1], rtol=1e-14)
    np.testing.assert_allclose(sdk.polygamma(2, _t([1.0])).item(), -2 * ZETA3, rtol=1e-14)
    np.testing.assert_allclose(sdk.polygamma(3, _t([1.0])).item(), math.pi**4 / 15, rtol=1e-14)


@pytest.mark.parametrize(
    "fn, deriv",
    [
        (sdk.lgamma, sdk.digamma),
        (sdk.digamma, lambda t: sdk.polygamma(1, t)),
        (lambda t: sdk.polygamma(1, t), lambda t: sdk.polygamma(2, t)),
        (sdk.i0, None),
    ],
)
def test_special_gradients_are_finite_differences(fn, deriv):
    x = _t(X64[:6]).requires_grad_()
    fn(x).sum().backward()
    h = 1e-6
    base = X64[:6]
    numeric = (fn(_t(base + h)) - fn(_t(base - h))).numpy() / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6)
    if deriv is not None:
        np.testing.assert_allclose(x.grad.numpy(), deriv(_t(base)).numpy(), rtol=1e-13)


def test_i0_matches_numpy_and_keeps_float32():
    x = np.linspace(-20, 20, 41)
    np.testing.assert_allclose(sdk.i0(_t(x)).numpy(), np.i0(x), rtol=1e-14)
    assert sdk.i0(sdk.ones(3)).dtype == sdk.float32
    assert sdk.lgamma(sdk.tensor([1, 2, 3])).dtype == sdk.get_default_dtype()


def test_frexp_reassembles_and_nextafter_steps_one_ulp():
    x = np.array([0.0, -3.5, 1e-310, 1e300, 5.0])
    m, e = sdk.frexp(_t(x))
    assert e.dtype == sdk.int32
    np.testing.assert_array_equal(np.ldexp(m.numpy(), e.numpy()), x)
    up = sdk.nextafter(_t([1.0]), _t([2.0])).item()
    assert up == np.nextafter(1.0, 2.0)


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: sdk.polygamma(-1, sdk.ones(2)), RuntimeError, "negative n"),
        (lambda: sdk.mvlgamma(sdk.ones(2), 3), RuntimeError, "greater than"),
        (lambda: sdk.igamma(sdk.ones(2), sdk.ones(2)), NotImplementedError, "scipy"),
        (lambda: sdk.frexp(sdk.tensor([1, 2])), RuntimeError, "floating-point"),
        (lambda: sdk.nextafter(sdk.ones(2), _t([1.0, 1.0])), RuntimeError, "one dtype"),
        (lambda: sdk.gcd(sdk.ones(2), sdk.ones(2)), RuntimeError, "not implemented"),
        (lambda: sdk.heaviside(sdk.ones(2), _t([1.0])), RuntimeError, "different dtypes"),
        (lambda: sdk.ones(2).float_power_(2), RuntimeError, "float64"),
        (lambda: sdk.tensor([1, 2]).deg2rad_(), RuntimeError, "can't be cast"),
        (lambda: sdk.renorm(sdk.ones(3), 2, 0, 1.0), RuntimeError, "at least 2 dimensions"),
        (lambda: sdk.quantile(sdk.ones(3), 1.5), RuntimeError, r"range \[0, 1\]"),
        (lambda: sdk.quantile(sdk.ones(3), 0.5, interpolation="cubic"), RuntimeError, "linear"),
        (lambda: sdk.nanmean(sdk.tensor([1, 2])), RuntimeError, "floating point"),
        (lambda: sdk.cov(sdk.ones(2, 2, 2)), RuntimeError, "two or fewer"),
        (lambda: sdk.trace(sdk.ones(3)), RuntimeError, "expected a matrix"),
        (lambda: sdk.aminmax(sdk.ones(0)), RuntimeError, "empty"),
        (lambda: sdk.hsplit(sdk.ones(5, 5), 2), RuntimeError, "not divisible"),
        (lambda: sdk.dsplit(sdk.ones(5, 5), 1), RuntimeError, "at least 3"),
        (lambda: sdk.rot90(sdk.ones(2, 2), 1, [0, 0]), RuntimeError, "different"),
        (lambda: sdk.block_diag(sdk.ones(1, 1, 1)), RuntimeError, "2 or fewer"),
        (lambda: sdk.combinations(sdk.ones(2, 2)), RuntimeError, "1D vector"),
        (lambda: sdk.unravel_index(_t([1.0]), (2, 2)), TypeError, "integer dtype"),
        (lambda: sdk.tensordot(sdk.ones(2, 3), sdk.ones(2, 3), 1), RuntimeError, "match"),
        (lambda: sdk.select_scatter(sdk.ones(2, 3), sdk.ones(2), 0, 0), RuntimeError, "src"),
        (lambda: sdk.ones(2, 3).sum_to_size(4), RuntimeError, "not expandable"),
        (lambda: sdk.ones(4).resize(3), RuntimeError, "preserving the number"),
        (lambda: sdk.ones(2).is_nonzero(), RuntimeError, "ambiguous"),
        (lambda: sdk.hann_window(-1), RuntimeError, "non-negative"),
        (lambda: sdk.hann_window(4, dtype=sdk.int64), RuntimeError, "floating point"),
        (lambda: sdk.vander(sdk.ones(2, 2)), RuntimeError, "one-dimensional"),
        (lambda: sdk.ones(2).share_memory_(), NotImplementedError, "shared"),
        (lambda: sdk.ones(2).set_(sdk.ones(3, dtype=sdk.int32)), TypeError, "dtype float32"),
        (lambda: sdk.set_default_device("cuda"), NotImplementedError, "device="),
        (lambda: sdk.set_anomaly_enabled(True), NotImplementedError, "anomaly"),
        (lambda: sdk.set_float32_matmul_precision("low"), RuntimeError, "highest"),
        (lambda: sdk.set_num_interop_threads(0), RuntimeError, "positive"),
        (lambda: sdk.set_num_interop_threads(2**40), ValueError, r"'num' .* below 2\*\*31"),
        (lambda: sdk.set_deterministic_debug_mode("loud"), RuntimeError, "debug_mode"),
        (lambda: sdk.frombuffer(b"abc", dtype=sdk.int32), ValueError, "multiple"),
        (lambda: sdk.frombuffer(3, dtype=sdk.int32), TypeError, "buffer protocol"),
        (lambda: sdk.kl_div(sdk.ones(2), sdk.ones(2), 5), ValueError, "reduction"),
        (lambda: sdk.channel_shuffle(sdk.ones(1, 5, 2), 2), RuntimeError, "divisible"),
        (lambda: sdk.pdist(sdk.ones(3)), RuntimeError, "2D"),
    ],
)
def test_bad_input_raises_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------------------ state


def test_state_queries():
    t = sdk.ones(2, 3)
    assert t.layout is sdk.strided and repr(sdk.strided) == "sdk.strided"
    for name in ("is_sparse", "is_quantized", "is_meta", "is_nested", "is_mkldnn", "is_xla"):
        assert getattr(t, name) is False, name
    for name in ("is_conj", "is_neg", "is_inference", "is_pinned", "is_shared"):
        assert getattr(t, name)() is False, name
    assert t.is_signed() and not sdk.ones(2, dtype=sdk.uint8).is_signed()
    assert not sdk.ones(2, dtype=sdk.bool).is_signed()
    assert t.pin_memory() is t
    assert t.char().dtype == sdk.int8
    assert t.const_data_ptr() == t.data_ptr()
    assert t.is_set_to(t) and not t.is_set_to(t.clone()) and not t.is_set_to(t.t())
    assert tuple(t.resize(3, 2).shape) == (3, 2)
    assert tuple(t.resize_as(sdk.ones(6)).shape) == (6,)
    assert sdk.is_nonzero(sdk.tensor([0.5])) and not sdk.tensor([0]).is_nonzero()


def test_output_nr_names_the_output_of_its_node():
    x = sdk.ones(4, 2, requires_grad=True)
    parts = (x * 2).split(2)
    assert [p.output_nr for p in parts] == [0, 1]
    assert x.output_nr == 0


def test_process_settings_round_trip():
    sdk.set_num_interop_threads(3)
    assert sdk.get_num_interop_threads() == 3
    before = sdk.get_float32_matmul_precision()
    sdk.set_float32_matmul_precision("high")
    assert sdk.get_float32_matmul_precision() == "high"
    sdk.set_float32_matmul_precision(before)
    sdk.set_warn_always(True)
    assert sdk.is_warn_always_enabled()
    sdk.set_warn_always(False)
    assert not sdk.is_anomaly_enabled()
    sdk.set_anomaly_enabled(False)
    assert sdk.get_default_device() == sdk.device("cpu")
    sdk.set_default_device("cpu")
    assert sdk.set_flush_denormal(True) is False
    assert sdk.compiled_with_cxx11_abi() is True
    assert not sdk.is_storage(sdk.ones(1)) and not sdk.is_vulkan_available()
    assert sdk.is_storage(sdk.ones(1).untyped_storage())


def test_deterministic_debug_mode_is_use_deterministic_algorithms():
    try:
        sdk.set_deterministic_debug_mode("warn")
        assert sdk.get_deterministic_debug_mode() == 1
        assert sdk.is_deterministic_algorithms_warn_only_enabled()
        sdk.set_deterministic_debug_mode(2)
        assert sdk.get_deterministic_debug_mode() == 2
        assert sdk.are_deterministic_algorithms_enabled()
    finally:
        sdk.set_deterministic_debug_mode(0)
    assert not sdk.are_deterministic_algorithms_enabled()


def test_seed_and_initial_seed():
    sdk.manual_seed(1234)
    assert sdk.initial_seed() == 1234
    a = sdk.rand(3)
    s = sdk.seed()
    assert sdk.initial_seed() == s and 0 <= s < 2**63
    sdk.manual_seed(1234)
    assert sdk.rand(3).tolist() == a.tolist()


def test_can_cast_follows_the_kinds():
    assert sdk.can_cast(sdk.int8, sdk.uint8) and sdk.can_cast(sdk.bool, sdk.float32)
    assert sdk.can_cast(sdk.float64, sdk.float16) and sdk.can_cast(sdk.int64, sdk.float32)
    assert not sdk.can_cast(sdk.float64, sdk.int64) and not sdk.can_cast(sdk.int32, sdk.bool)
    assert not sdk.can_cast(sdk.complex64, sdk.float64) and sdk.can_cast(sdk.float64, sdk.complex64)
    with pytest.raises(TypeError, match="must be sdk.dtype, not Tensor"):
        sdk.can_cast(sdk.ones(2), sdk.float32)


def test_typename_and_frombuffer():
    assert sdk.typename(sdk.ones(2)) == sdk.ones(2).type() == "sdk.FloatTensor"
    assert sdk.typename(1) == "int" and sdk.typename(np.ones(1)) == "numpy.ndarray"
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    t = sdk.frombuffer(buf, dtype=sdk.int32, count=2, offset=4)
    assert t.tolist() == [1, 2]
    t[0] = 9
    assert np.frombuffer(buf, dtype=np.int32)[1] == 9  # shared, not copied


def test_module_level_inplace_functions_are_the_methods():
    for name in ("exp_", "sqrt_", "clamp_", "zero_", "fill_", "detach_", "negative_", "relu_"):
        assert getattr(sdk, name).__doc__ == getattr(sdk.Tensor, name).__doc__, name
        with pytest.raises(TypeError, match="must be Tensor, not str"):
            getattr(sdk, name)("x")
    x = sdk.tensor([1.0, 4.0])
    assert sdk.sqrt_(x) is x and x.tolist() == [1.0, 2.0]


def test_toplevel_names_are_the_modules_functions():
    """sdk._TOPLEVEL_NAMES (what the namespace routes to sdk._toplevel) lists exactly the
    module's public functions, and each resolves through the namespace."""
    public = {
        n for n, v in vars(_toplevel).items()
        if not n.startswith("_") and callable(v) and not inspect.isclass(v)
        and not inspect.ismodule(v) and n != "Any"
    }  # fmt: skip
    assert public == set(sdk._TOPLEVEL_NAMES)
    for name in sdk._TOPLEVEL_NAMES:
        assert getattr(sdk, name) is getattr(_toplevel, name)


def test_range_is_inclusive():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sdk.range(1, 4).tolist() == [1.0, 2.0, 3.0, 4.0]
        assert sdk.range(1, 4).dtype == sdk.get_default_dtype()


def test_to_dlpack_round_trips():
    t = sdk.tensor([1.0, 2.0])
    back = sdk.from_dlpack(sdk.to_dlpack(t))
    assert back.tolist() == [1.0, 2.0] and back.data_ptr() == t.data_ptr()


def test_set_default_tensor_type_sets_the_default_dtype():
    before = sdk.get_default_dtype()
    try:
        sdk.set_default_tensor_type(sdk.DoubleTensor)
        assert sdk.get_default_dtype() == sdk.float64 and sdk.ones(1).dtype == sdk.float64
        sdk.set_default_tensor_type("torch.FloatTensor")
        assert sdk.get_default_dtype() == sdk.float32
        with pytest.raises(TypeError, match="floating-point"):
            sdk.set_default_tensor_type(sdk.LongTensor)
        with pytest.raises(NotImplementedError, match="device="):
            sdk.set_default_tensor_type("torch.cuda.FloatTensor")
    finally:
        sdk.set_default_dtype(before)


@pytest.mark.parametrize(
    "fill, mean, var",
    [
        (lambda t: t.exponential_(2.0), 0.5, 0.25),
        (lambda t: t.geometric_(0.25), 4.0, 0.75 / 0.0625),
        (lambda t: t.log_normal_(0.0, 0.5), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
    ],
)
def test_random_fills_have_their_distributions_moments(fill, mean, var):
    """Sample moments within 6 standard errors (a fixed seed: deterministic)."""
    sdk.manual_seed(2024)
    x = fill(sdk.empty(200_000, dtype=sdk.float64))
    n = x.numel()
    assert abs(x.mean().item() - mean) < 6 * math.sqrt(var / n)
    assert abs(x.var().item() - var) < 0.05 * var


def test_cauchy_fill_is_reproducible_and_centred():
    sdk.manual_seed(5)
    a = sdk.empty(100_001, dtype=sdk.float64).cauchy_(1.0, 2.0)
    sdk.manual_seed(5)
    b = sdk.empty(100_001, dtype=sdk.float64).cauchy_(1.0, 2.0)
    assert a.tolist() == b.tolist()
    quartiles = sdk.quantile(a, a.new_tensor([0.25, 0.5, 0.75])).tolist()
    np.testing.assert_allclose(quartiles, [-1.0, 1.0, 3.0], atol=0.06)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: sdk.ones(2).exponential_(0), "lambda"),
        (lambda: sdk.ones(2).geometric_(1.5), "p to be in"),
        (lambda: sdk.tensor([1, 2]).cauchy_(), "floating point"),
        (lambda: sdk.ones(3).put(sdk.tensor([3]), sdk.ones(1)), "out of range"),
        (lambda: sdk.ones(3).put(sdk.tensor([0, 1]), sdk.ones(1)), "same number"),
        (lambda: sdk.ones(3).index_reduce(0, sdk.tensor([0]), sdk.ones(1), "sum"), "prod"),
        (lambda: sdk.positive(sdk.ones(2, dtype=sdk.bool)), "bool"),
        (lambda: sdk.empty_permuted((2, 3), (0, 0)), "permutation"),
        (lambda: sdk.nonzero_static(sdk.ones(2), size=-1), "non-negative"),
        (lambda: sdk.histogram(sdk.ones(2), 0), "bins must be > 0"),
    ],
)
def test_more_bad_input(call, match):
    with pytest.raises((RuntimeError, IndexError, TypeError), match=match):
        call()


def test_compile_runs_eagerly_and_fork_waits():
    def f(x):
        return x * 2

    assert sdk.compile(f) is f
    assert sdk.compile(mode="max-autotune")(f) is f
    with pytest.raises(RuntimeError, match="callable"):
        sdk.compile(3)
    assert sdk.wait(sdk.fork(f, sdk.ones(2))).tolist() == [2.0, 2.0]


def test_poisson_and_binomial_samplers():
    sdk.manual_seed(9)
    rates = sdk.full((100_000,), 3.5, dtype=sdk.float64)
    x = sdk.poisson(rates)
    assert x.dtype == sdk.float64 and bool((x == x.round()).all())
    assert abs(x.mean().item() - 3.5) < 6 * math.sqrt(3.5 / x.numel())
    sdk.manual_seed(9)
    assert sdk.poisson(rates).tolist() == x.tolist()  # the sdk generator's seed drives it
    b = sdk.binomial(sdk.full((100_000,), 10.0), sdk.full((100_000,), 0.3))
    assert b.dtype == sdk.float32 and 0 <= b.min().item() and b.max().item() <= 10
    assert abs(b.mean().item() - 3.0) < 6 * math.sqrt(2.1 / b.numel())
    with pytest.raises(RuntimeError, match="non-negative"):
        sdk.poisson(sdk.tensor([-1.0]))
    with pytest.raises(RuntimeError, match="prob"):
        sdk.binomial(sdk.tensor([3.0]), sdk.tensor([1.5]))


# ------------------------------------------------------------------------------ transposes


def test_conjugate_transposes_are_transposes_of_real_tensors():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = sdk.from_numpy(a)
    np.testing.assert_array_equal(x.mH.numpy(), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(x.adjoint().numpy(), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(x[0].H.numpy(), a[0].T)
    with pytest.raises(RuntimeError, match="only supported on matrices"):
        _ = x.H
    assert x.to_dense() is x and x.to_dense(sdk.float32).dtype == sdk.float32


def test_softshrink_values_gradient_and_bad_lambda():
    a = np.linspace(-2, 2, 9)
    x = sdk.tensor(a, requires_grad=True)
    y = sdk.nn.functional.softshrink(x, 0.7)
    np.testing.assert_allclose(y.detach().numpy(), np.sign(a) * np.maximum(np.abs(a) - 0.7, 0))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (np.abs(a) > 0.7).astype(float))
    with pytest.raises(RuntimeError, match="greater or equal to 0"):
        sdk.nn.functional.softshrink(x, -1.0)
