"""einsum (one core implementation for Python and C++), outer and baddbmm against numpy, with
gradients."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk.autograd import gradcheck

RNG = np.random.default_rng(0)

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),  # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),  # trace
    ("ij->ji", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 3, 4), (3, 4, 5)]),  # broadcast batch dims
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 6)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij,ij->ij", [(3, 4), (1, 4)]),  # a size-1 dim broadcasts
    ("iij->ji", [(3, 3, 2)]),
    ("...", [(2, 3)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij,kl->", [(2, 3), (4, 5)]),  # independent sums
    ("A b, b C -> A C", [(2, 3), (3, 4)]),  # upper case and spaces
]


@pytest.mark.parametrize("eq,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy_and_differentiates(eq, shapes):
    arrs = [RNG.standard_normal(s) for s in shapes]
    r = sdk.einsum(eq, *[sdk.tensor(a) for a in arrs])
    ref = np.einsum(eq.replace(" ", ""), *arrs)
    assert tuple(r.shape) == ref.shape
    np.testing.assert_allclose(r.numpy(), ref, rtol=1e-10, atol=1e-10)
    if not any(len(t) != len(set(t)) for t in eq.split("->")[0].split(",")):
        ts = tuple(sdk.tensor(a, requires_grad=True) for a in arrs)
        assert gradcheck(lambda *x: sdk.einsum(eq, *x), ts)


def test_einsum_list_form_float32_and_errors():
    a, b = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    r = sdk.einsum("ij,j->i", [sdk.tensor(a), sdk.tensor(b)])
    assert r.dtype == sdk.float32
    np.testing.assert_allclose(r.numpy(), a @ b, rtol=1e-5)
    with pytest.raises(ValueError, match="sizes 4 and 5"):
        sdk.einsum("ij,jk->ik", sdk.ones(3, 4), sdk.ones(5, 5))
    with pytest.raises(ValueError, match="does not appear"):
        sdk.einsum("ij->iz", sdk.ones(3, 4))
    with pytest.raises(ValueError, match="operand 0 has 1 dims"):
        sdk.einsum("ij", sdk.ones(3))
    with pytest.raises(ValueError, match="invalid subscript"):
        sdk.einsum("i2", sdk.ones(3, 3))
    with pytest.raises(ValueError, match="2 operand subscripts but 1"):
        sdk.einsum("i,i", sdk.ones(3))
    x = sdk.ones(3, 3, requires_grad=True)
    with pytest.raises(NotImplementedError, match="repeated subscript"):
        sdk.einsum("ii->i", x).sum().backward()


def test_outer_and_baddbmm():
    u, v = RNG.standard_normal(3), RNG.standard_normal(4)
    np.testing.assert_allclose(sdk.outer(sdk.tensor(u), sdk.tensor(v)).numpy(), np.outer(u, v))
    np.testing.assert_allclose(sdk.tensor(u).ger(sdk.tensor(v)).numpy(), np.outer(u, v))
    with pytest.raises(ValueError, match="1-D"):
        sdk.outer(sdk.ones(2, 2), sdk.ones(2))
    c = RNG.standard_normal((2, 3, 5))
    b1, b2 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
    r = sdk.baddbmm(sdk.tensor(c), sdk.tensor(b1), sdk.tensor(b2), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(r.numpy(), 0.5 * c + 2.0 * (b1 @ b2), rtol=1e-12)
    nan = sdk.full((2, 3, 5), float("nan"), dtype=sdk.float64)
    r0 = nan.baddbmm(sdk.tensor(b1), sdk.tensor(b2), beta=0)  # beta=0 ignores input, NaNs too
    np.testing.assert_allclose(r0.numpy(), b1 @ b2, rtol=1e-12)
    ts = tuple(sdk.tensor(a, requires_grad=True) for a in (c, b1, b2))
    assert gradcheck(lambda x, y, z: sdk.baddbmm(x, y, z, beta=0.5, alpha=-1.5), ts)
