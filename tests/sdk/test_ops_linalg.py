"""The core's products (mm, bmm, matmul, mv, dot, addmm and the @ operator) against numpy,
and the @ operator's autograd path. (einsum, outer and baddbmm: test_einsum.py; the C++ API's
extras cross, cdist, det, ...: test_ops_data_linalg.py.)"""

from __future__ import annotations

import numpy as np

import sdk


def test_matmul_family(rng, close):
    a = rng.standard_normal((5, 3))
    b = rng.standard_normal((3, 4))
    for dtype in ["float32", "float64"]:
        ta, tb = sdk.tensor(a.astype(dtype)), sdk.tensor(b.astype(dtype))
        tol = 1e-5 if dtype == "float32" else 1e-12
        close(sdk.mm(ta, tb), a @ b, rtol=tol, atol=tol, check_dtype=False)
        close(ta @ tb, a @ b, rtol=tol, atol=tol, check_dtype=False)
        close(ta.t().t() @ tb.t().t(), a @ b, rtol=tol, atol=tol, check_dtype=False)
        close(sdk.matmul(ta, tb[:, 0]), a @ b[:, 0], rtol=tol, atol=tol, check_dtype=False)
        close(sdk.mv(ta, tb[:, 1]), a @ b[:, 1], rtol=tol, atol=tol, check_dtype=False)
        close(sdk.dot(tb[:, 0], tb[:, 1]), b[:, 0] @ b[:, 1], rtol=tol, atol=tol, check_dtype=False)
        bias = sdk.tensor(np.ones(4, dtype))
        close(
            sdk.addmm(bias, ta, tb, beta=0.5, alpha=2),
            0.5 + 2 * (a @ b),
            rtol=tol,
            atol=tol,
            check_dtype=False,
        )
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3, 4)).astype(np.float32)
    close(sdk.bmm(sdk.tensor(x), sdk.tensor(y)), x @ y, rtol=1e-5, atol=1e-5)
    close(sdk.tensor(x) @ sdk.tensor(y[0]), x @ y[0], rtol=1e-5, atol=1e-5)
    out = sdk.empty(5, 4)
    assert (
        sdk.mm(sdk.tensor(a.astype(np.float32)), sdk.tensor(b.astype(np.float32)), out=out) is out
    )


def test_matmul_operator_takes_the_autograd_path_when_an_operand_needs_grad(rng):
    a = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal((2, 4)).astype(np.float32)
    x = sdk.tensor(a, requires_grad=True)
    y = x @ b.tolist()  # a list operand: the slot hands it to sdk._ops_linalg.FALLBACKS
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 4), np.float32) @ b.T, rtol=1e-6)
