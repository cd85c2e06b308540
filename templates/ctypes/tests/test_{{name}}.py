"""Tests of {{name}}: values against numpy, gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import sdk

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


def test_gradcheck():
    sdk.manual_seed(0)
    x = sdk.randn(5, 4, dtype=sdk.float64, requires_grad=True)
    assert sdk.autograd.gradcheck(mish, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_backward_matches_numpy_derivative():
    x = np.random.default_rng(2).standard_normal(50) * 3
    t = sdk.tensor(x, requires_grad=True)
    mish(t).sum().backward()
    sp = np.logaddexp(0.0, x)
    want = np.tanh(sp) + x * (1 - np.tanh(sp) ** 2) / (1 + np.exp(-x))
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-10)


def test_integer_input_is_refused():
    with pytest.raises((TypeError, RuntimeError, ValueError), match="floating"):
        mish(sdk.tensor([1, 2, 3]))
{{#cuda}}


@pytest.mark.skipif(
    not getattr(getattr(sdk, "cuda", None), "is_available", lambda: False)(),
    reason="no CUDA device",
)
def test_cuda_matches_cpu():
    x = sdk.randn(1000, dtype=sdk.float32)
    got = mish(x.to("cuda")).to("cpu").numpy()
    np.testing.assert_allclose(got, numpy_mish(x.numpy()), rtol=1e-5, atol=1e-6)
{{/cuda}}
