"""The complex dtypes (complex64, complex128): creation, conversions with every dtype, views of
the parts, the arithmetic the core computes on them against numpy, torch's promotion rules,
interop (numpy, DLPack, pickle, save), and a clear error from every other op."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import sdk
from tests.sdk.method_walker import walk_methods

CDTYPES = [("complex64", np.complex64), ("complex128", np.complex128)]
VALUES = np.array([[1 + 2j, 2 - 0.5j], [0 + 1j, 3 + 0j]])  # 1j: real part 0, imaginary not


def _c(name: str, values=VALUES) -> sdk.Tensor:
    return sdk.tensor(np.asarray(values, dict(CDTYPES)[name]))


def test_dtype_objects():
    c64, c128 = sdk.complex64, sdk.complex128
    assert sdk.cfloat is c64 and sdk.cdouble is c128
    for d, size, part in ((c64, 8, sdk.float32), (c128, 16, sdk.float64)):
        assert d.is_complex and not d.is_floating_point and d.is_signed
        assert d.itemsize == size and d.to_real() is part and part.to_complex() is d
        assert np.dtype(d) == np.dtype(d.name)
    assert sdk.float16.to_complex() is c64 and not sdk.float32.is_complex
    assert sdk.finfo(c128).eps == sdk.finfo(sdk.float64).eps and sdk.finfo(c64).bits == 32
    with pytest.raises(TypeError, match="not a floating point dtype"):
        sdk.int32.to_complex()


@pytest.mark.parametrize("name,npt", CDTYPES)
def test_creation(name, npt):
    d = getattr(sdk, name)
    assert sdk.zeros(2, 3, dtype=d).numpy().tolist() == [[0j] * 3] * 2
    np.testing.assert_array_equal(sdk.ones(2, dtype=d).numpy(), np.ones(2, npt))
    assert sdk.empty(4, dtype=d).dtype is d
    full = sdk.full((2, 2), 1.5 - 2j, dtype=d)
    assert full.dtype is d and full.numpy().tolist() == [[1.5 - 2j] * 2] * 2
    assert sdk.full((2,), 3.0, dtype=d).numpy().tolist() == [3 + 0j, 3 + 0j]
    x = sdk.zeros(3, dtype=d)
    x.fill_(2 + 1j)
    assert x.tolist() == [2 + 1j] * 3
    assert x.is_complex() and sdk.is_complex(x) and not x.is_floating_point()


def test_defaults_follow_torch():
    assert sdk.full((1,), 1j).dtype is sdk.complex64  # the default complex dtype
    assert sdk.tensor([1, 2j]).dtype is sdk.complex64
    assert sdk.tensor([1, 2j]).tolist() == [1 + 0j, 2j]
    assert sdk.tensor([1j], dtype=sdk.complex128).dtype is sdk.complex128
    assert sdk.tensor(np.array([1j])).dtype is sdk.complex128  # numpy's dtype is kept
    with pytest.raises(TypeError, match="complex"):
        sdk.zeros(2).fill_(1j)


@pytest.mark.parametrize("name,npt", CDTYPES)
def test_numpy_round_trip_is_zero_copy(name, npt):
    a = (np.arange(6) + 1j * np.arange(6, 12)).astype(npt)
    t = sdk.from_numpy(a)
    assert t.dtype is getattr(sdk, name)
    a[0] = 7 - 7j
    assert t[0].item() == 7 - 7j  # shared memory
    back = t.numpy()
    assert back.dtype == npt and np.shares_memory(back, a)
    assert isinstance(t[1].item(), complex)


OTHERS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]  # fmt: skip


@pytest.mark.parametrize("name,npt", CDTYPES)
@pytest.mark.parametrize("other", OTHERS)
def test_conversions_both_ways(name, npt, other):
    """complex -> real keeps the real part (torch's .to()), -> bool is "either part non-zero";
    real -> complex has imaginary part 0. Checked against numpy's casts (bfloat16 through
    float32, which numpy lacks)."""
    src = np.array([1.5 + 2j, 0 + 1j, 0j, 3 - 4j, 100 + 0.25j], npt)
    t = sdk.tensor(src).to(getattr(sdk, other))
    if other == "bool":
        want = src != 0
    elif other.startswith("complex"):
        want = src.astype(other)
    elif other == "bfloat16":
        want = src.real.astype(np.float32)  # exactly representable in bfloat16
    else:
        want = src.real.astype(other)
    np.testing.assert_array_equal(t.to(sdk.float64 if other == "bfloat16" else t.dtype).numpy()
                                  if other == "bfloat16" else t.numpy(), want)  # fmt: skip
    real = np.array([1, 0, 5, 7], np.float64).astype(np.float32 if other == "bfloat16" else other)
    back = sdk.tensor(real).to(getattr(sdk, other)).to(getattr(sdk, name))
    np.testing.assert_array_equal(back.numpy(), real.astype(npt))


@pytest.mark.parametrize("name,npt", CDTYPES)
def test_views_indexing_cat_clone(name, npt):
    x = _c(name)
    ref = VALUES.astype(npt)
    np.testing.assert_array_equal(x.t().numpy(), ref.T)
    np.testing.assert_array_equal(x[1].numpy(), ref[1])
    np.testing.assert_array_equal(x[:, 1:].numpy(), ref[:, 1:])
    np.testing.assert_array_equal(x.reshape(4).numpy(), ref.reshape(4))
    np.testing.assert_array_equal(x.t().contiguous().numpy(), ref.T)
    np.testing.assert_array_equal(sdk.cat([x, x], 1).numpy(), np.concatenate([ref, ref], 1))
    np.testing.assert_array_equal(sdk.stack([x, x]).numpy(), np.stack([ref, ref]))
    c = x.clone()
    c[0, 0] = 5 - 5j
    c[1] = sdk.tensor([9j, 8 + 0j], dtype=x.dtype)
    assert c.tolist() == [[5 - 5j, ref[0, 1]], [9j, 8 + 0j]] and x[0, 0].item() == ref[0, 0]
    assert x.eq(x.clone()).all().item() and not x.ne(x).any().item()
    np.testing.assert_array_equal((x == c).numpy(), ref == c.numpy())
    np.testing.assert_array_equal((x != 1 + 2j).numpy(), ref != 1 + 2j)


@pytest.mark.parametrize("name,npt", CDTYPES)
def test_view_as_real_and_complex_share_memory(name, npt):
    x = _c(name)
    r = sdk.view_as_real(x)
    assert r.dtype is x.dtype.to_real() and r.shape == (2, 2, 2) and r.stride() == (4, 2, 1)
    np.testing.assert_array_equal(r.numpy(), np.stack([VALUES.real, VALUES.imag], -1))
    np.testing.assert_array_equal(x.imag.numpy(), VALUES.imag.astype(r.numpy().dtype))
    r[0, 0, 1] = 9.0
    assert x[0, 0].item() == 1 + 9j
    back = sdk.view_as_complex(r)
    assert back.dtype is x.dtype and back.data_ptr() == x.data_ptr()
    xt = sdk.view_as_real(x.t())  # strides double
    assert xt.stride() == (2, 4, 1) and xt[1, 0, 1].item() == VALUES[0, 1].imag
    assert x.real.data_ptr() == x.data_ptr() and x.imag.stride() == (4, 2)
    x.imag = sdk.zeros(2, 2)
    x.real[0, 0] = -1.0
    assert x.tolist() == [[-1 + 0j, 2 + 0j], [0j, 3 + 0j]]
    conj = sdk.conj(_c(name))
    np.testing.assert_array_equal(conj.numpy(), np.conj(VALUES).astype(npt))
    assert conj.data_ptr() != x.data_ptr()  # materialized, not a lazy view


def test_view_errors_name_what_is_wrong():
    f = sdk.zeros(3, 2)
    with pytest.raises(TypeError, match="only complex tensors"):
        sdk.view_as_real(f)
    with pytest.raises(ValueError, match="last dim must have size 2"):
        sdk.view_as_complex(sdk.zeros(3, 3))
    with pytest.raises(ValueError, match="stride 1"):
        sdk.view_as_complex(sdk.zeros(2, 3).t())
    with pytest.raises(ValueError, match="storage offset must be even"):
        sdk.view_as_complex(sdk.zeros(5)[1:].reshape(2, 2))
    with pytest.raises(TypeError, match="float32 and float64"):
        sdk.view_as_complex(sdk.zeros(3, 2, dtype=sdk.float16))
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        _ = f.imag
    assert f.real is f


@pytest.mark.parametrize("name,npt", CDTYPES)
def test_arithmetic_against_numpy(name, npt):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(npt)
    b = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(npt)
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    tol = dict(rtol=2e-6 if npt is np.complex64 else 1e-14)
    for got, want in (
        (ta + tb, a + b), (ta - tb, a - b), (ta * tb, a * b), (ta / tb, a / b), (-ta, -a),
        (ta * 2, a * 2), (ta + 1.5, a + 1.5), (ta * 2j, a * 2j), (1j - ta, 1j - a),
        (3 / ta, 3 / a), (ta.abs(), np.abs(a)), (sdk.abs(ta), np.abs(a)),
        (ta.sum(), a.sum()), (ta.sum(0), a.sum(0)), (ta.sum(1, keepdim=True), a.sum(1, keepdims=True)),
        (ta.mean(), a.mean()), (ta.mean(-1), a.mean(-1)),
    ):  # fmt: skip
        assert got.dtype.name == np.asarray(want).dtype.name, (got.dtype, want)
        np.testing.assert_allclose(got.numpy(), want, **tol)
    c = ta.clone()
    c += tb
    c *= 1j
    np.testing.assert_allclose(c.numpy(), (a + b) * 1j, **tol)
    assert sdk.tensor(np.array(3 + 4j, npt)).abs().item() == 5.0


def test_division_keeps_range():
    """Scaled division: |c| near the top of the range neither overflows nor flushes."""
    a = np.array([1e30 + 1e30j, 1 + 1j, 1e-30j], np.complex64)
    b = np.array([2e30 + 1e30j, 1e30 - 1e30j, 1e-30 + 0j], np.complex64)
    got = (sdk.tensor(a) / sdk.tensor(b)).numpy()
    want = (a.astype(np.complex128) / b.astype(np.complex128)).astype(np.complex64)
    np.testing.assert_allclose(got, want, rtol=1e-6)


PROMOTIONS = [  # torch's promote_types
    ("complex64", "float64", "complex128"), ("complex64", "float32", "complex64"),
    ("complex64", "float16", "complex64"), ("complex64", "int64", "complex64"),
    ("complex64", "bool", "complex64"), ("complex64", "complex128", "complex128"),
    ("complex128", "float32", "complex128"), ("complex128", "uint8", "complex128"),
]  # fmt: skip


@pytest.mark.parametrize("a,b,want", PROMOTIONS)
def test_promotion(a, b, want):
    da, db = getattr(sdk, a), getattr(sdk, b)
    assert sdk.promote_types(da, db) is getattr(sdk, want)
    assert sdk.promote_types(db, da) is getattr(sdk, want)
    assert (sdk.ones(2, dtype=da) + sdk.ones(2, dtype=db)).dtype is getattr(sdk, want)


def test_zero_dim_and_scalar_promotion():
    """A 0-dim complex operand keeps a floating tensor's width (torch's combine_categories)."""
    c64_0d, c128_0d = sdk.tensor(1j, dtype=sdk.complex64), sdk.tensor(1j, dtype=sdk.complex128)
    assert (sdk.ones(2, dtype=sdk.float64) * c64_0d).dtype is sdk.complex128
    assert (sdk.ones(2) * c128_0d).dtype is sdk.complex64
    assert (sdk.ones(2, dtype=sdk.int32) * c128_0d).dtype is sdk.complex128
    assert (sdk.ones(2, dtype=sdk.complex64) * sdk.tensor(2.0, dtype=sdk.float64)).dtype is (
        sdk.complex64)  # fmt: skip
    assert (sdk.ones(2) * 1j).dtype is sdk.complex64
    assert (sdk.ones(2, dtype=sdk.float64) * 1j).dtype is sdk.complex128
    assert (sdk.ones(2, dtype=sdk.int64) + 1j).dtype is sdk.complex64
    assert (sdk.ones(2, dtype=sdk.complex64) * 2.5).dtype is sdk.complex64
    x = sdk.ones(2, dtype=sdk.float64) * (0.1 + 0.2j)
    assert x[0].item() == 0.1 + 0.2j  # the Python complex exactly, not through complex64


def test_other_ops_and_out_casts_raise_naming_the_dtype():
    x = _c("complex64")
    for f in (lambda: x < x, lambda: x.exp(), lambda: sdk.maximum(x, x), lambda: x.max(),
              lambda: x.sort(), lambda: x.matmul(x), lambda: x.sigmoid(), lambda: x.floor()):  # fmt: skip
        with pytest.raises(Exception, match="complex64"):
            f()
    with pytest.raises(TypeError, match="complex64"):
        sdk.add(x, x, out=sdk.zeros(2, 2))  # a complex result can't be cast to float


def test_walk_every_method_matches_numpy_or_names_the_dtype():
    """Each Tensor method callable without arguments, on a complex128 tensor, either gives
    what numpy gives or raises naming complex128. The reference of an op that is linear over
    the reals (views, copies, sums, negation) is the op on the real and imaginary parts
    apart; the others are numpy's own."""
    x = VALUES.astype(np.complex128)
    casts = {"float": np.float32, "double": np.float64, "half": np.float16, "int": np.int32,
             "long": np.int64, "short": np.int16, "char": np.int8, "byte": np.uint8}  # fmt: skip
    explicit = {
        "abs": lambda: np.abs(x), "absolute": lambda: np.abs(x), "conj": lambda: np.conj(x),
        "conj_physical": lambda: np.conj(x), "bool": lambda: x != 0,
        "is_complex": lambda: True, "is_floating_point": lambda: False,
        "count_nonzero": lambda: np.count_nonzero(x),
        "tolist": lambda: x.tolist(), "numpy": lambda: x, "new_ones": lambda: np.array(1 + 0j),
        **{k: (lambda t=t: x.real.astype(t)) for k, t in casts.items()},
    }  # fmt: skip

    def reference(name):
        if name in explicit:
            return explicit[name]()
        re, im = sdk.tensor(x.real.copy()), sdk.tensor(x.imag.copy())  # fresh: some write
        r, i = getattr(re, name)(), getattr(im, name)()
        if isinstance(r, sdk.Tensor):
            if not r.dtype.is_floating_point:
                return r  # dims, shapes: the same for the parts
            with np.errstate(invalid="ignore"):  # inf parts (log of 0): inf * 1j
                return r.numpy() + 1j * i.numpy()
        if isinstance(r, tuple) and r and isinstance(r[0], sdk.Tensor):
            return tuple(a.numpy() + 1j * b.numpy() for a, b in zip(r, i))
        return r

    def compare(name, got, want):
        if isinstance(got, tuple) and got and isinstance(got[0], sdk.Tensor):
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a.numpy(), b, err_msg=name)
        elif isinstance(got, sdk.Tensor):
            w = want.numpy() if isinstance(want, sdk.Tensor) else np.asarray(want)
            assert tuple(got.shape) == w.shape, name
            np.testing.assert_array_equal(got.numpy(), w, err_msg=name)
        elif isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            assert got == want, name

    named = walk_methods(
        lambda: sdk.tensor(x), reference, compare, "complex128", skip=frozenset({"bfloat16"})
    )
    assert named > 50  # the comparisons, math functions and most reductions


@pytest.mark.parametrize("name,npt", CDTYPES)
def test_dlpack_pickle_save_repr(name, npt, tmp_path):
    x = _c(name)
    a = np.from_dlpack(x)
    assert a.dtype == npt and np.shares_memory(a, x.numpy())
    y = sdk.from_dlpack(np.ascontiguousarray(VALUES.astype(npt)))
    assert y.dtype is x.dtype and y.tolist() == x.tolist()
    z = pickle.loads(pickle.dumps(x))
    assert z.dtype is x.dtype and z.tolist() == x.tolist()
    buf = io.BytesIO()
    sdk.save({"x": x}, buf)
    buf.seek(0)
    w = sdk.load(buf)["x"]
    assert w.dtype is x.dtype and w.tolist() == x.tolist()
    text = repr(sdk.tensor(np.array([1.5 + 2j, -1 - 0.25j], npt)))
    assert text.startswith("tensor([ 1.5000+2.0000j, -1.0000-0.2500j]")
    assert ("dtype=sdk.complex128" in text) == (name == "complex128")


def test_against_torch():
    torch = pytest.importorskip("torch")
    x = VALUES.astype(np.complex64)
    tx, sx = torch.from_numpy(x.copy()), sdk.tensor(x)
    for other in ("bool", "int32", "float32", "float64"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns that .to() drops the imaginary part
            want = tx.to(getattr(torch, other)).numpy()
        np.testing.assert_array_equal(sx.to(getattr(sdk, other)).numpy(), want, err_msg=other)
    for a, b, _ in PROMOTIONS:
        want = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1]
        assert sdk.promote_types(getattr(sdk, a), getattr(sdk, b)).name == want
    for zero in ("complex64", "complex128"):
        for dims in ("float32", "float64", "int32", "complex64"):
            t0 = torch.ones(2, dtype=getattr(torch, dims)) * torch.tensor(
                1j, dtype=getattr(torch, zero)
            )
            s0 = sdk.ones(2, dtype=getattr(sdk, dims)) * sdk.tensor(1j, dtype=getattr(sdk, zero))
            assert str(t0.dtype).split(".")[1] == s0.dtype.name, (dims, zero)
    np.testing.assert_allclose((sx / sx.t()).numpy(), (tx / tx.t()).numpy(), rtol=1e-6)
    assert repr(sx).replace("sdk.", "torch.") == repr(tx)
