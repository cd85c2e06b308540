"""sdk.testing.assert_close: per-dtype default tolerances, mixed inputs, the failure report."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk.testing import assert_close


def test_close_values_pass_with_dtype_defaults():
    a = sdk.tensor([1.0, 2.0, 3.0])
    assert_close(a, a + 1e-6)  # float32: rtol 1.3e-6, atol 1e-5
    with pytest.raises(AssertionError):
        assert_close(a.to(sdk.float64), a.to(sdk.float64) + 1e-6)  # float64: 1e-7
    h = sdk.tensor([1.0, 2.0]).to(sdk.bfloat16)
    assert_close(h, h)


def test_accepts_numpy_and_scalars():
    assert_close(sdk.tensor([1.0, 2.0], dtype=sdk.float64), np.array([1.0, 2.0]))
    assert_close(1.0, 1.0 + 1e-9)
    assert_close(sdk.tensor(3), 3)
    with pytest.raises(AssertionError):
        assert_close(sdk.tensor([1, 2]), np.array([1, 3]))  # integers: exact


def test_report_names_greatest_differences_and_index():
    a = np.zeros((2, 3))
    b = a.copy()
    b[1, 2] = 0.5
    b[0, 1] = 1e-3
    with pytest.raises(AssertionError) as info:
        assert_close(sdk.tensor(a), sdk.tensor(b))
    msg = str(info.value)
    assert "Mismatched elements: 2 / 6" in msg
    assert "Greatest absolute difference: 0.5 at index (1, 2)" in msg
    assert "Greatest relative difference" in msg


def test_shape_and_dtype_mismatch():
    with pytest.raises(AssertionError, match="shape"):
        assert_close(sdk.zeros(2), sdk.zeros(3))
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(sdk.zeros(2), sdk.zeros(2, dtype=sdk.float64))
    assert_close(sdk.zeros(2), sdk.zeros(2, dtype=sdk.float64), check_dtype=False)


def test_explicit_tolerances_and_nan():
    assert_close(sdk.tensor([1.0]), sdk.tensor([1.1]), rtol=0.0, atol=0.2)
    nan = sdk.tensor([float("nan")])
    with pytest.raises(AssertionError):
        assert_close(nan, nan)
    assert_close(nan, nan, equal_nan=True)
    with pytest.raises(ValueError, match="both"):
        assert_close(1.0, 1.0, rtol=0.1)
