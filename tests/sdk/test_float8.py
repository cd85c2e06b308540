"""The 8-bit float dtypes (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz): every
code's value, rounding from float32 against an independent reference, torch's small set of ops
on them, and clear errors for the rest."""

from __future__ import annotations

import ctypes
import io
import pickle

import numpy as np
import pytest

import sdk
from tests.sdk.method_walker import walk_methods

# name: (mantissa bits, exponent bias, kind); kind as sdk/float8.h's: "ieee" (inf and NaN in the
# top exponent), "fn" (S.1111.111 is NaN, no inf, overflow saturates as torch does), "fnuz"
# (0x80 the one NaN, no inf, no -0, overflow gives NaN).
FORMATS = {
    "float8_e4m3fn": (3, 7, "fn"),
    "float8_e5m2": (2, 15, "ieee"),
    "float8_e4m3fnuz": (3, 8, "fnuz"),
    "float8_e5m2fnuz": (2, 16, "fnuz"),
}
NAMES = list(FORMATS)


def decode(name: str) -> np.ndarray:
    """The float64 value of each of the 256 codes, from the format's definition."""
    m, bias, kind = FORMATS[name]
    out = np.empty(256)
    for code in range(256):
        sign, exp, man = code >> 7, (code >> m) & ((1 << (7 - m)) - 1), code & ((1 << m) - 1)
        top = exp == (1 << (7 - m)) - 1
        if kind == "fnuz" and code == 0x80:
            v = np.nan
        elif kind == "fn" and (code & 0x7F) == 0x7F:
            v = np.nan
        elif kind == "ieee" and top:
            v = np.inf if man == 0 else np.nan
        elif exp == 0:
            v = man * 2.0 ** (1 - bias - m)
        else:
            v = (1 + man / 2**m) * 2.0 ** (exp - bias)
        out[code] = -v if sign else v
    return out


def encode(name: str, x: np.ndarray) -> np.ndarray:
    """The code of each float, by nearest representable value, ties to the even code; values
    past the largest finite follow the format's overflow rule."""
    m, bias, kind = FORMATS[name]
    values = decode(name)[:128]
    finite = np.nonzero(np.isfinite(values))[0]
    max_code = int(finite[-1])
    top = float(values[max_code])
    # One step past the largest finite value, where rounding upward leaves the format.
    grid = np.append(values[finite], top + 2.0 ** (np.floor(np.log2(top)) - m))
    codes = np.append(finite, max_code + 1)
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    i = np.clip(np.searchsorted(grid, a), 1, len(grid) - 1)
    lo, hi = grid[i - 1], grid[i]
    up = (a - lo > hi - a) | ((a - lo == hi - a) & (codes[i] % 2 == 0))
    c = np.where(up, codes[i], codes[i - 1])
    c = np.where(a > grid[-1], max_code + 1, c)  # inf and beyond
    over = c > max_code
    if kind == "ieee":
        c = np.where(over, max_code + 1, c)
    elif kind == "fn":
        c = np.where(over, max_code, c)
    sign = np.signbit(x).astype(np.int64) << 7
    out = (c | sign).astype(np.int64)
    if kind == "fnuz":
        out = np.where(over | np.isnan(x), 0x80, np.where(c == 0, 0, out))
    else:
        out = np.where(np.isnan(x), sign | 0x7F, out)
    return out.astype(np.uint8)


def probe_floats(name: str) -> np.ndarray:
    """Boundaries, every value, every halfway point and its neighbours, subnormals, specials and
    random bit patterns, as float32."""
    v = decode(name)
    v = np.unique(v[np.isfinite(v)])
    mids = ((v[:-1] + v[1:]) / 2).astype(np.float32)
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    parts = [
        v.astype(np.float32),
        mids,
        np.nextafter(mids, np.float32(np.inf)),
        np.nextafter(mids, np.float32(-np.inf)),
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, 1e-30], np.float32),
        bits[~np.isnan(bits)],  # NaN payloads aside: the specials hold NaN
        (rng.standard_normal(20000) * 10.0 ** rng.integers(-6, 6, 20000)).astype(np.float32),
    ]
    return np.concatenate(parts)


def codes_of(t: sdk.Tensor) -> np.ndarray:
    return t.view(sdk.uint8).numpy()


def from_codes(name: str, codes) -> sdk.Tensor:
    return sdk.tensor(np.asarray(codes, np.uint8)).view(getattr(sdk, name))


@pytest.mark.parametrize("name", NAMES)
def test_every_code_converts_to_its_value(name):
    got = from_codes(name, np.arange(256)).float().numpy().astype(np.float64)
    np.testing.assert_array_equal(got, decode(name))
    zero_sign = np.signbit(got[0x80])  # -0 in the formats that have it
    assert zero_sign == (FORMATS[name][2] != "fnuz")


@pytest.mark.parametrize("name", NAMES)
def test_floats_round_to_nearest_even_with_torchs_overflow_rules(name):
    x = probe_floats(name)
    got = codes_of(sdk.tensor(x).to(getattr(sdk, name)))
    want = encode(name, x)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, f"{name}: {x[bad[:5]]} gave {got[bad[:5]]}, want {want[bad[:5]]}"


def test_overflow_rules():
    x = sdk.tensor([1e6, -1e6, float("inf"), float("nan")])
    assert codes_of(x.to(sdk.float8_e4m3fn)).tolist() == [0x7E, 0xFE, 0x7E, 0x7F]  # saturates
    assert codes_of(x.to(sdk.float8_e5m2)).tolist() == [0x7C, 0xFC, 0x7C, 0x7F]  # inf
    assert codes_of(x.to(sdk.float8_e4m3fnuz)).tolist() == [0x80] * 4  # the one NaN
    assert codes_of(sdk.tensor([-0.0, -1e-30]).to(sdk.float8_e5m2fnuz)).tolist() == [0, 0]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                   "bfloat16", "float32", "float64"])  # fmt: skip
def test_to_and_from_every_dtype_goes_through_float(name, other):
    d8, do = getattr(sdk, name), getattr(sdk, other)
    vals = np.array([0, 1, -2, 3.5, 100, -7.25, 0.3, 1000], np.float32)
    src = sdk.tensor(vals).to(do)
    as_float = src.float().numpy()
    # other -> float8 is other -> float32 -> float8
    np.testing.assert_array_equal(codes_of(src.to(d8)), encode(name, as_float))
    # float8 -> other is float8 -> float32 -> other
    f8 = from_codes(name, encode(name, vals))
    want = sdk.tensor(decode(name)[encode(name, vals)].astype(np.float32)).to(do)
    got = f8.to(do)
    assert got.dtype == do
    np.testing.assert_array_equal(got.to(sdk.float64).numpy(), want.to(sdk.float64).numpy())


@pytest.mark.parametrize("name", NAMES)
def test_creation_fill_views_indexing_cat_clone(name):
    d = getattr(sdk, name)
    assert codes_of(sdk.zeros(3, dtype=d)).tolist() == [0, 0, 0]
    assert sdk.ones(2, dtype=d).float().tolist() == [1.0, 1.0]
    assert sdk.full((2, 2), -1.5, dtype=d).float().tolist() == [[-1.5, -1.5], [-1.5, -1.5]]
    assert sdk.empty(4, dtype=d).dtype == d and sdk.empty(4, dtype=d).element_size() == 1
    x = sdk.arange(12, dtype=sdk.float32).reshape(3, 4).to(d)
    ref = x.float().numpy()
    np.testing.assert_array_equal(x.t().contiguous().float().numpy(), ref.T)
    np.testing.assert_array_equal(x[1:, ::2].float().numpy(), ref[1:, ::2])
    np.testing.assert_array_equal(x[sdk.tensor([2, 0])].float().numpy(), ref[[2, 0]])
    np.testing.assert_array_equal(sdk.cat([x, x], 0).float().numpy(), np.concatenate([ref, ref]))
    c = x.clone()
    assert c.dtype == d and codes_of(c).tolist() == codes_of(x).tolist()
    y = x.clone()
    y[0] = 5.0
    y[:, 1].fill_(-0.5)
    assert y[0].float().tolist() == [5.0, -0.5, 5.0, 5.0] and x[0, 1].item() == 1.0
    assert isinstance(x[2, 3].item(), float) and x.tolist() == ref.tolist()


def test_equality_casts_the_other_operand_to_float8_first():
    x = sdk.tensor([1.0, 448.0, float("nan")]).to(sdk.float8_e4m3fn)
    assert (x == 1.01).tolist() == [True, False, False]  # 1.01 is 1.0 in e4m3fn
    assert (x == 1000.0).tolist() == [False, True, False]  # and 1000 saturates to 448
    assert (x != x).tolist() == [False, False, True]
    assert (x == sdk.tensor(1.01)).tolist() == [True, False, False]  # a 0-dim tensor too
    assert sdk.eq(x, x).tolist() == [True, True, False]


def test_promotion_and_other_ops_raise_naming_the_dtype():
    x = sdk.ones(2, dtype=sdk.float8_e4m3fn)
    with pytest.raises(TypeError, match="Promotion for Float8 Types is not supported"):
        sdk.promote_types(sdk.float8_e4m3fn, sdk.float32)
    with pytest.raises(TypeError, match="float8_e4m3fn and float8_e5m2"):
        sdk.eq(x, sdk.ones(2, dtype=sdk.float8_e5m2))
    with pytest.raises(TypeError, match="float8"):
        x + sdk.ones(2)
    assert sdk.promote_types(sdk.float8_e5m2, sdk.float8_e5m2) == sdk.float8_e5m2
    for op in (lambda t: t + t, lambda t: t * 2, lambda t: t < t, lambda t: t.sum(),
               lambda t: t.exp(), lambda t: -t, lambda t: t.max(), sdk.sort):  # fmt: skip
        with pytest.raises((TypeError, NotImplementedError, RuntimeError), match="float8_e4m3fn"):
            op(x)


def test_fill_value_must_fit():
    with pytest.raises((RuntimeError, ValueError, OverflowError), match="float8_e4m3fn"):
        sdk.full((2,), 449.0, dtype=sdk.float8_e4m3fn)
    with pytest.raises((RuntimeError, ValueError, OverflowError), match="float8_e4m3fnuz"):
        sdk.full((2,), float("inf"), dtype=sdk.float8_e4m3fnuz)
    assert sdk.full((1,), float("inf"), dtype=sdk.float8_e5m2).item() == float("inf")
    assert sdk.full((1,), 240.0, dtype=sdk.float8_e4m3fnuz).item() == 240.0


@pytest.mark.parametrize("name", NAMES)
def test_dtype_object_finfo_numpy_pickle_dlpack(name):
    d = getattr(sdk, name)
    assert repr(d) == f"sdk.{name}" and d.itemsize == 1 and d.is_floating_point and d.is_signed
    m, bias, kind = FORMATS[name]
    values = decode(name)
    fi = sdk.finfo(d)
    assert fi.max == np.nanmax(values[np.isfinite(values)]) and fi.min == -fi.max and fi.bits == 8
    assert fi.tiny == 2.0 ** (1 - bias)
    x = sdk.tensor([0.5, -2.0, 3.0]).to(d)
    assert f"dtype=sdk.{name}" in repr(x) or f"dtype={name}" in repr(x)
    with pytest.raises(TypeError, match=name):
        x.numpy()
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype == d and codes_of(y).tolist() == codes_of(x).tolist()
    buf = io.BytesIO()
    sdk.save({"w": x.t() if x.ndim > 1 else x[::2]}, buf)
    buf.seek(0)
    w = sdk.load(buf)["w"]
    assert w.dtype == d and codes_of(w).tolist() == codes_of(x[::2].contiguous()).tolist()
    z = sdk.from_dlpack(x)
    assert z.dtype == d and codes_of(z).tolist() == codes_of(x).tolist()
    # DLPack 1.1's type codes: kDLFloat8_e4m3fn = 10 ... kDLFloat8_e5m2fnuz = 13, 8 bits.
    kinds = {"float8_e4m3fn": 10, "float8_e4m3fnuz": 11, "float8_e5m2": 12, "float8_e5m2fnuz": 13}
    assert dlpack_dtype(x) == (kinds[name], 8, 1)


def dlpack_dtype(t: sdk.Tensor) -> tuple[int, int, int]:
    """(code, bits, lanes) of the DLDataType in t's DLPack capsule."""
    cap = t.__dlpack__()
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = api.PyCapsule_GetName(cap)
    ptr = api.PyCapsule_GetPointer(cap, name)
    # DLTensor's dtype follows data (8), device (8) and ndim (4); the versioned struct puts
    # version, manager_ctx, deleter and flags (32 bytes) before its DLTensor.
    offset = (32 if name == b"dltensor_versioned" else 0) + 20
    raw = ctypes.string_at(ptr + offset, 4)
    return raw[0], raw[1], int.from_bytes(raw[2:], "little")


def test_against_ml_dtypes():
    """ml_dtypes agrees code for code, except that it gives NaN where torch (and the SDK)
    saturate e4m3fn's overflow."""
    ml = pytest.importorskip("ml_dtypes")
    for name in NAMES:
        ref_type = getattr(ml, name)
        got = from_codes(name, np.arange(256)).float().numpy()
        want = np.arange(256, dtype=np.uint8).view(ref_type).astype(np.float32)
        np.testing.assert_array_equal(got, want, err_msg=name)
        x = probe_floats(name)
        ours = codes_of(sdk.tensor(x).to(getattr(sdk, name)))
        theirs = x.astype(ref_type).view(np.uint8)
        differ = ours != theirs
        if name == "float8_e4m3fn":
            # Only overflow (|x| past 464, the halfway point above 448, inf) may differ.
            assert np.all(np.abs(x[differ]) >= 464) and np.all(ours[differ] & 0x7F == 0x7E)
        else:
            # NaN's sign bit aside, e5m2 and the fnuz formats agree everywhere.
            assert np.all(np.isnan(x[differ])), f"{name}: {x[differ][:5]}"


def test_against_torch():
    """torch gives the same code for every float probed, the same value for every code, and the
    same finfo."""
    torch = pytest.importorskip("torch")
    for name in NAMES:
        td, d = getattr(torch, name), getattr(sdk, name)
        want = torch.arange(256, dtype=torch.uint8).view(td).float().numpy()
        np.testing.assert_array_equal(from_codes(name, np.arange(256)).float().numpy(), want)
        x = probe_floats(name)
        ref = torch.from_numpy(x).to(td).view(torch.uint8).numpy()
        np.testing.assert_array_equal(codes_of(sdk.tensor(x).to(d)), ref, err_msg=name)
        x64 = x.astype(np.float64) * (1 + 1e-12)  # float64 goes through float32, as torch's
        ref = torch.from_numpy(x64).to(td).view(torch.uint8).numpy()
        np.testing.assert_array_equal(codes_of(sdk.tensor(x64).to(d)), ref, err_msg=name)
        ti, si = torch.finfo(td), sdk.finfo(d)
        assert (si.bits, si.eps, si.max, si.min, si.tiny, si.resolution) == (
            ti.bits, ti.eps, ti.max, ti.min, ti.tiny, ti.resolution)  # fmt: skip
        assert repr(si) == repr(ti)


def test_every_method_moves_the_values_or_names_the_dtype():
    """Each Tensor method callable without arguments either gives, on an e4m3fn tensor, what
    it gives on the same values in float32 (copies, views, conversions), or raises naming
    float8_e4m3fn; never a wrong number."""
    values = [[1.0, -2.0], [0.5, 3.0]]

    def compare(name, got, want):
        if isinstance(want, sdk.Tensor):
            assert got.shape == want.shape, name
            np.testing.assert_array_equal(_f64(got), _f64(want), err_msg=name)
        elif isinstance(want, tuple) and want and isinstance(want[0], sdk.Tensor):
            for a, b in zip(got, want):
                np.testing.assert_array_equal(_f64(a), _f64(b), err_msg=name)
        else:
            assert got == want, name

    named = walk_methods(
        lambda: sdk.tensor(values).to(sdk.float8_e4m3fn),
        lambda name: getattr(sdk.tensor(values), name)(),
        compare,
        "float8_e4m3fn",
    )
    assert named > 50  # the arithmetic, reductions and math functions


def _f64(t: sdk.Tensor) -> np.ndarray:
    return t.detach().to(sdk.float64).numpy()
