"""The porting corpus's complex case (corpus_dtypes/complex/): an extension in torch's idiom
(c10::complex<T> through data_ptr and accessors, AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES,
AT_DISPATCH_V2 over AT_COMPLEX_TYPES, at::isComplexType, c10::toRealValueType/toComplexType)
ported with `python -m cpp_extension port`, built with load(), and checked against numpy; the
original is built with torch too when it is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.port.corpus_kit import Framework, build_cache, build_case, corpus_fixtures  # noqa: F401

CORPUS = Path(__file__).resolve().parent / "corpus_dtypes"
RNG = np.random.default_rng(5)

ported, fw = corpus_fixtures(CORPUS, "dtypes")


def build(fw: Framework) -> Any:
    return build_case(fw, "dtypes", "complex", "complex_ops.cpp")


def _random(shape, npt) -> np.ndarray:
    if not np.issubdtype(npt, np.complexfloating):
        return RNG.standard_normal(shape).astype(npt)
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(npt)


def test_the_porter_maps_every_complex_name(ported):
    out, report = ported
    assert [(m.path, m.line, m.name) for m in report.missing if "complex" in m.path] == []
    lines = (out / "complex" / "complex_ops.cpp").read_text().splitlines()
    text = "\n".join(line for line in lines if not line.lstrip().startswith("//"))  # code only
    assert "sdk::complex<float>" in text and "c10::" not in text and "at::" not in text
    assert "SDK_DISPATCH_FLOATING_AND_COMPLEX_TYPES" in text and "SDK_COMPLEX_TYPES" in text
    assert "#include <sdk/complex.h>" in text or '#include "sdk/complex.h"' in text


@pytest.mark.parametrize("npt", [np.complex64, np.complex128, np.float32, np.float64])
def test_multiply_accumulate(fw, npt):
    ext = build(fw)
    acc, a, b = _random(37, npt), _random(37, npt), _random(37, npt)
    t = fw.tensor(acc.copy())
    r = ext.mac_(t, fw.tensor(a), fw.tensor(b))
    tol = 1e-6 if npt in (np.complex64, np.float32) else 1e-14
    np.testing.assert_allclose(r.numpy(), acc + a * b, rtol=tol, atol=tol)
    np.testing.assert_allclose(t.numpy(), acc + a * b, rtol=tol, atol=tol)  # in place
    with pytest.raises(RuntimeError, match="mac_: the three tensors must have one dtype"):
        ext.mac_(fw.tensor(acc), fw.tensor(a.astype(np.complex128 if npt is np.complex64 else np.complex64)), fw.tensor(b))  # fmt: skip


def test_energy_through_an_accessor(fw):
    ext = build(fw)
    z = _random((5, 6), np.complex64)
    t = fw.tensor(z).t()  # any strides
    assert ext.energy(t) == pytest.approx(
        float((np.abs(z.astype(np.complex128)) ** 2).sum()), rel=1e-6
    )
    with pytest.raises(RuntimeError, match="energy: expected a 2-d complex64 tensor"):
        ext.energy(fw.tensor(z.astype(np.complex128)))


@pytest.mark.parametrize("npt", [np.complex64, np.complex128])
def test_polar_and_rotation(fw, npt):
    ext = build(fw)
    z = _random(11, npt)
    polar = ext.to_polar(fw.tensor(z)).numpy()
    assert polar.dtype == z.real.dtype
    tol = 1e-6 if npt is np.complex64 else 1e-14
    np.testing.assert_allclose(polar[:, 0], np.abs(z), rtol=tol)
    np.testing.assert_allclose(polar[:, 1], np.angle(z), rtol=tol, atol=tol)
    turned = ext.rotate(fw.tensor(z), 0.75).numpy()
    np.testing.assert_allclose(turned, z * np.exp(0.75j), rtol=10 * tol, atol=10 * tol)
    real = np.array([1.0, -2.0, 0.5])
    r = ext.rotate(fw.tensor(real), np.pi / 2).numpy()  # float64: complex128 of its width
    assert r.dtype == np.complex128
    np.testing.assert_allclose(r, real * 1j, atol=1e-15)
    with pytest.raises(RuntimeError, match="to_polar: expected a complex tensor"):
        ext.to_polar(fw.tensor(real))


@pytest.mark.parametrize("npt", [np.int32, np.float64, np.complex64, np.complex128])
def test_dispatch_over_all_types_and_complex(fw, npt):
    ext = build(fw)
    x = _random(7, npt) if np.issubdtype(npt, np.complexfloating) else np.arange(7).astype(npt)
    np.testing.assert_array_equal(ext.twice(fw.tensor(x)).numpy(), x + x)
    with pytest.raises((RuntimeError, TypeError), match="twice"):  # TypeError: sdk's dispatch
        ext.twice(fw.tensor(np.ones(3, np.float16)))
