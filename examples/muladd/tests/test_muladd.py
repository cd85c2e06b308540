"""muladd_ops against numpy, with opcheck and gradcheck (the built package, or the JIT build
of the sources when it is not built)."""

from __future__ import annotations

import muladd_ops
import numpy as np
import pytest

import sdk
import sdk.library

RNG = np.random.default_rng(0)


def sample(*shape):
    return sdk.tensor(RNG.standard_normal(shape).astype(np.float32))


def devices():
    return ["cpu", "cuda"] if sdk.cuda.is_available() else ["cpu"]


@pytest.mark.parametrize("device", devices())
def test_values(device):
    a, b = sample(3, 4).to(device), sample(3, 4).to(device)
    np.testing.assert_allclose(
        muladd_ops.mymuladd(a, b, 1.5).cpu().numpy(),
        a.cpu().numpy() * b.cpu().numpy() + 1.5,
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        muladd_ops.mymul(a, b).cpu().numpy(), a.cpu().numpy() * b.cpu().numpy(), rtol=1e-6
    )
    out = sdk.empty(3, 4, device=device)
    muladd_ops.myadd_out(a, b, out)
    np.testing.assert_allclose(out.cpu().numpy(), a.cpu().numpy() + b.cpu().numpy(), rtol=1e-6)


@pytest.mark.parametrize("device", devices())
def test_opcheck(device):
    a, b = sample(5).to(device), sample(5).to(device)
    for op, args in [
        (sdk.ops.muladd_ops.mymuladd.default, (a, b, 2.0)),
        (sdk.ops.muladd_ops.mymul.default, (a, b)),
        (sdk.ops.muladd_ops.myadd_out.default, (a, b, sdk.empty(5, device=device))),
    ]:
        result = sdk.library.opcheck(op, args)
        assert result["test_schema"] == "SUCCESS"
        assert result["test_faketensor"] == "SUCCESS"  # the shape functions of ops.py


def test_gradients():
    a = sample(4).requires_grad_(True)
    b = sample(4).requires_grad_(True)
    muladd_ops.mymuladd(a, b, 3.0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy(), rtol=1e-6)
    c = sample(4).requires_grad_(True)
    (muladd_ops.mymul(c, c) * 2).sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), 4 * c.detach().numpy(), rtol=1e-6)


def test_bad_input_is_a_clear_error():
    with pytest.raises(RuntimeError, match="same shape"):
        muladd_ops.mymuladd(sample(3), sample(4), 1.0)
    with pytest.raises(RuntimeError, match="float32"):
        muladd_ops.mymul(sdk.ones(3, dtype=sdk.float64), sdk.ones(3, dtype=sdk.float64))
    with pytest.raises(TypeError, match="argument 'c' must be float"):
        muladd_ops.mymuladd(sample(3), sample(3), "1")
