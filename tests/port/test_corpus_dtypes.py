"""The porting corpus of the 8-bit float dtypes (corpus_dtypes/): an extension in torch's idiom
(at::kFloat8_e4m3fn, data_ptr<c10::Float8_e4m3fn>(), AT_DISPATCH_V2 over AT_FLOAT8_TYPES)
ported with `python -m cpp_extension port`, built, and checked against numpy's reference of the
formats (tests/sdk/test_float8.py); the original is built with torch too when it is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.port.corpus_kit import Framework, build_cache, build_case, corpus_fixtures  # noqa: F401
from tests.sdk.test_float8 import decode, encode

CORPUS = Path(__file__).resolve().parent / "corpus_dtypes"
RNG = np.random.default_rng(11)

ported, fw = corpus_fixtures(CORPUS, "dtypes")


def build(fw: Framework) -> Any:
    return build_case(fw, "dtypes", "float8", "float8_ops.cpp")


def test_the_porter_finds_every_name(ported):
    _, report = ported
    assert [(m.path, m.line, m.name) for m in report.missing] == []
    assert report.changed and len(report.changed) == len(report.files)


def test_quantize_and_dequantize(fw):
    ext = build(fw)
    x = (RNG.standard_normal(257) * 3).astype(np.float32)
    q, inv = ext.quantize_e4m3(fw.tensor(x))
    scale = np.float32(448) / np.abs(x).max()
    codes = encode("float8_e4m3fn", x * scale)
    np.testing.assert_array_equal(q.float().numpy(), decode("float8_e4m3fn")[codes])
    assert inv == pytest.approx(1 / float(scale), rel=1e-7)
    back = ext.dequantize(q, inv).numpy()
    np.testing.assert_allclose(back, decode("float8_e4m3fn")[codes] * np.float32(inv), rtol=1e-6)
    np.testing.assert_allclose(back, x, rtol=2**-4, atol=1e-6 * np.abs(x).max())
    with pytest.raises(RuntimeError, match="dequantize: expected a contiguous float8 tensor"):
        ext.dequantize(fw.tensor(x), 1.0)


@pytest.mark.parametrize("name", ["float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"])
def test_dequantize_dispatches_over_every_float8(fw, name):
    ext = build(fw)
    x = np.array([0.5, -3.0, 96.0, 1e-3], np.float32)
    q = fw.tensor(x).to(_dtype(fw, name))
    np.testing.assert_array_equal(ext.dequantize(q, 2.0).numpy(), 2 * decode(name)[encode(name, x)])


def test_nan_count_and_round_trip(fw):
    ext = build(fw)
    x = np.array([1.0, np.nan, 70000.0, -np.inf, 0.1, np.nan], np.float32)
    assert ext.count_nan_e5m2(fw.tensor(x).to(_dtype(fw, "float8_e5m2"))) == 2
    got = ext.round_trip_e5m2(fw.tensor(x.astype(np.float64))).numpy()
    np.testing.assert_array_equal(got, decode("float8_e5m2")[encode("float8_e5m2", x)])
    with pytest.raises(RuntimeError, match="count_nan_e5m2: expected float8_e5m2"):
        ext.count_nan_e5m2(fw.tensor(x))


def _dtype(fw: Framework, name: str) -> Any:
    if fw.name == "sdk":
        import sdk

        return getattr(sdk, name)
    import torch

    return getattr(torch, name)
