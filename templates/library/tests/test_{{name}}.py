"""Tests of {{name}}: values against numpy, the operator against its schema (opcheck), and
gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import sdk
import sdk.library

from {{name}} import Mish, mish


def numpy_mish(x: np.ndarray) -> np.ndarray:
    return x * np.tanh(np.logaddexp(0.0, x))


@pytest.mark.parametrize("dtype", [sdk.float32, sdk.float64])
def test_forward_matches_numpy(dtype):
    x = np.random.default_rng(0).standard_normal((7, 13)) * 5
    x[0, :3] = [-30.0, 0.0, 30.0]
    got = mish(sdk.tensor(x, dtype=dtype)).numpy()
    rtol = 1e-5 if dtype == sdk.float32 else 1e-12
    np.testing.assert_allclose(got, numpy_mish(x), rtol=rtol, atol=rtol)


def test_module_and_noncontiguous_input():
    x = np.random.default_rng(1).standard_normal((6, 4))
    t = sdk.tensor(x).t()  # a transposed view
    np.testing.assert_allclose(Mish()(t).numpy(), numpy_mish(x.T), rtol=1e-12)


def test_opcheck():
    x = sdk.randn(5, 3, dtype=sdk.float64)
    result = sdk.library.opcheck(sdk.ops.{{name}}.mish, (x,))
    assert result["test_schema"] == "SUCCESS"
    assert result["test_autograd_registration"].startswith("SUCCESS")


def test_gradcheck():
    sdk.manual_seed(0)
    x = sdk.randn(5, 4, dtype=sdk.float64, requires_grad=True)
    assert sdk.autograd.gradcheck(mish, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_bad_input_is_a_clear_error():
    with pytest.raises(RuntimeError, match="floating-point"):
        mish(sdk.tensor([1, 2, 3]))
    with pytest.raises(TypeError, match="argument 'input' must be Tensor"):
        sdk.ops.{{name}}.mish("not a tensor")
