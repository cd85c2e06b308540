"""sdk.linalg's norms, solve, svd/svdvals, qr and eigh against numpy, finite-difference
gradients and (when installed) torch.linalg on the same inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk
import sdk.linalg as LA
from sdk.autograd import gradcheck


def t64(a, grad=False):
    return sdk.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf, -math.inf, 0])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)])
def test_vector_norm_values(rng, ord, dim):
    a = rng.standard_normal((2, 3, 4))
    ax = None if dim is None else dim
    flat = a if ax is not None else a.reshape(-1)
    ref = np.linalg.norm(flat, ord, axis=ax) if isinstance(ax, int) or ax is None else None
    if ref is None:  # numpy takes vector norms over one axis only
        ref = np.linalg.norm(np.moveaxis(a, (0, 2), (-2, -1)).reshape(3, -1), ord, axis=-1)
    np.testing.assert_allclose(LA.vector_norm(t64(a), ord, dim).numpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("ord", [2, 1, 3, math.inf])
def test_vector_norm_gradient_and_zero_norm(rng, ord):
    x = t64(rng.standard_normal((3, 4)), grad=True)
    assert gradcheck(lambda t: LA.vector_norm(t, ord, dim=1), (x,))
    z = t64(np.zeros(3), grad=True)
    LA.vector_norm(z, ord).backward()
    assert z.grad.tolist() == [0.0, 0.0, 0.0]  # torch's subgradient, not nan


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm_values_and_gradients(rng, ord):
    a = rng.standard_normal((2, 4, 3))
    ref = np.linalg.norm(a, ord, axis=(-2, -1))
    np.testing.assert_allclose(LA.matrix_norm(t64(a), ord).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(
        LA.norm(t64(a[0]), ord).item(), np.linalg.norm(a[0], ord), rtol=1e-10
    )
    x = t64(a, grad=True)
    assert gradcheck(lambda t: LA.matrix_norm(t, ord, dim=(0, 2)), (x,))


def test_norm_dispatch_and_errors(rng):
    a = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(LA.norm(t64(a)).item(), np.linalg.norm(a.reshape(-1)))
    np.testing.assert_allclose(LA.norm(t64(a), dim=(1, 2), keepdim=True).numpy(),
                               np.linalg.norm(a, axis=(1, 2), keepdims=True))  # fmt: skip
    with pytest.raises(RuntimeError, match="must be 1D or 2D. Got 3D"):
        LA.norm(t64(a), 1)
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        LA.matrix_norm(t64(a), 3)
    with pytest.raises(TypeError, match="float32 or float64"):
        LA.vector_norm(sdk.arange(3))


def test_solve_values_vectors_broadcast_and_left_false(rng):
    A = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    B = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(LA.solve(t64(A), t64(B)).numpy(), np.linalg.solve(A, B), rtol=1e-10)
    b = rng.standard_normal((2, 3))
    np.testing.assert_allclose(LA.solve(t64(A), t64(b)).numpy(),
                               np.linalg.solve(A, b[..., None])[..., 0], rtol=1e-10)  # fmt: skip
    X = LA.solve(t64(A[0]), t64(B))  # A broadcast over B's batch
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(A[0], B), rtol=1e-10)
    C = rng.standard_normal((4, 3))
    Xr = LA.solve(t64(A[0]), t64(C), left=False)
    np.testing.assert_allclose(Xr.numpy() @ A[0], C, atol=1e-10)


def test_solve_gradients(rng):
    A = t64(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), grad=True)
    A1 = t64(rng.standard_normal((3, 3)) + 3 * np.eye(3), grad=True)
    B = t64(rng.standard_normal((2, 3, 2)), grad=True)
    b = t64(rng.standard_normal(3), grad=True)
    assert gradcheck(lambda a, x: LA.solve(a, x), (A, B))
    assert gradcheck(lambda a, x: LA.solve(a, x), (A1, B))  # A broadcast: its grad is summed
    assert gradcheck(lambda a, x: LA.solve(a, x), (A1, b))
    assert gradcheck(
        lambda a, x: LA.solve(a, x, left=False),
        (A1, t64(rng.standard_normal((2, 2, 3)), grad=True)),
    )


def test_solve_errors():
    with pytest.raises(RuntimeError, match="singular"):
        LA.solve(t64(np.zeros((2, 2))), t64(np.ones(2)))
    with pytest.raises(RuntimeError, match="square"):
        LA.solve(t64(np.ones((2, 3))), t64(np.ones(2)))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        LA.solve(t64(np.eye(2)), t64(np.ones((3, 1))))
    with pytest.raises(RuntimeError, match="same dtype"):
        LA.solve(t64(np.eye(2)), sdk.ones(2))


def test_decompositions_reconstruct(rng):
    a = rng.standard_normal((2, 4, 3))
    Q, R = LA.qr(t64(a))
    np.testing.assert_allclose((Q @ R).numpy(), a, atol=1e-12)
    assert tuple(LA.qr(t64(a), mode="complete").Q.shape) == (2, 4, 4)
    U, S, Vh = LA.svd(t64(a), full_matrices=False)
    np.testing.assert_allclose((U * S.unsqueeze(-2) @ Vh).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(LA.svdvals(t64(a)).numpy(), np.linalg.svd(a, compute_uv=False))
    s = a @ np.swapaxes(a, -1, -2)
    w, V = LA.eigh(t64(s))
    np.testing.assert_allclose((V * w.unsqueeze(-2) @ V.mT).numpy(), s, atol=1e-12)
    assert gradcheck(LA.svdvals, (t64(a, grad=True),))


def test_forward_only_ones_refuse_gradients(rng):
    x = t64(rng.standard_normal((3, 3)), grad=True)
    for fn in (LA.qr, LA.svd, LA.eigh):
        with pytest.raises(NotImplementedError, match="forward only"):
            fn(x)
        with sdk.no_grad():
            fn(x)
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        LA.qr(x.detach(), mode="full")


def test_against_torch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((2, 4, 3))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    sa, sb = t64(a, grad=True), t64(b, grad=True)
    pairs = [
        (torch.linalg.solve(ta, tb), LA.solve(sa, sb)),
        (torch.linalg.vector_norm(ta, 3, dim=(1, 2)), LA.vector_norm(sa, 3, dim=(1, 2))),
        (torch.linalg.matrix_norm(ta, "nuc"), LA.matrix_norm(sa, "nuc")),
        (torch.linalg.matrix_norm(tb, -math.inf), LA.matrix_norm(sb, -math.inf)),
        (torch.linalg.norm(ta[0], 2), LA.norm(sa[0], 2)),
        (torch.linalg.svdvals(tb), LA.svdvals(sb)),
    ]
    for t_out, s_out in pairs:
        np.testing.assert_allclose(s_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10)
        w = rng.standard_normal(tuple(t_out.shape))
        (t_out * torch.tensor(w)).sum().backward()
        (s_out * t64(w)).sum().backward()
    np.testing.assert_allclose(sa.grad.numpy(), ta.grad.numpy(), rtol=1e-8)
    np.testing.assert_allclose(sb.grad.numpy(), tb.grad.numpy(), rtol=1e-8)
    sym = a + np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(LA.eigh(t64(sym), UPLO="U").eigenvalues.numpy(),
                               torch.linalg.eigh(torch.tensor(sym), UPLO="U").eigenvalues.numpy())  # fmt: skip
    np.testing.assert_allclose(
        LA.svd(t64(b)).S.numpy(), torch.linalg.svd(torch.tensor(b)).S.numpy()
    )
    np.testing.assert_allclose(
        np.abs(LA.qr(t64(b)).R.numpy()),
        np.abs(torch.linalg.qr(torch.tensor(b)).R.numpy()),
        atol=1e-12,
    )
