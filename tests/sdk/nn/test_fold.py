"""nn.functional.unfold/fold and nn.Unfold/Fold: the adjoint identity, non-overlapping
round trips, gradients, bad arguments, and torch's results on the same inputs."""

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk.autograd import gradcheck

# (input shape, kernel_size, dilation, padding, stride)
CASES = [
    ((2, 3, 7, 6), 3, 1, 0, 1),
    ((1, 2, 9, 8), (2, 3), (2, 1), (1, 2), (2, 3)),
    ((1, 1, 5, 5), 2, 1, 0, 2),
    ((2, 2, 6, 7), (3, 2), 1, 1, (1, 2)),
]


@pytest.mark.parametrize("shape,k,d,p,s", CASES)
def test_fold_is_the_adjoint_of_unfold(shape, k, d, p, s):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    cols = F.unfold(sdk.tensor(x), k, d, p, s)
    y = rng.standard_normal(tuple(cols.shape))
    back = F.fold(sdk.tensor(y), shape[2:], k, d, p, s)
    assert back.shape == shape
    np.testing.assert_allclose((cols.numpy() * y).sum(), (x * back.numpy()).sum(), rtol=1e-12)


def test_non_overlapping_blocks_round_trip_and_columns_are_ordered_as_torch():
    x = sdk.arange(2 * 4 * 6, dtype=sdk.float64).reshape(1, 2, 4, 6)
    cols = F.unfold(x, (2, 3), stride=(2, 3))
    assert cols.shape == (1, 2 * 2 * 3, 4)
    # column 0 is the top-left block; rows run over (channel, kernel row, kernel column)
    assert cols[0, :6, 0].tolist() == [0, 1, 2, 6, 7, 8]
    assert F.fold(cols, (4, 6), (2, 3), stride=(2, 3)).tolist() == x.tolist()
    assert (
        sdk.nn.Fold((4, 6), (2, 3), stride=(2, 3))(sdk.nn.Unfold((2, 3), stride=(2, 3))(x)).tolist()
        == x.tolist()
    )


def test_gradients_check_numerically():
    x = sdk.rand(1, 2, 5, 4, dtype=sdk.float64, requires_grad=True)
    assert gradcheck(lambda t: F.unfold(t, 2, 1, 1, (1, 2)), (x,))
    c = sdk.rand(1, 2 * 4, 2 * 4, dtype=sdk.float64, requires_grad=True)  # 2 x 4 blocks
    assert gradcheck(lambda t: F.fold(t, (4, 5), 2, 1, 0, (2, 1)), (c,))


@pytest.mark.parametrize(
    "call,error,words",
    [
        (lambda: F.unfold(sdk.ones(2, 3, 4), 2), ValueError, "expected 4-D"),
        (lambda: F.unfold(sdk.ones(1, 1, 2, 2), 3), RuntimeError, "does not fit"),
        (lambda: F.unfold(sdk.ones(1, 1, 4, 4), 0), ValueError, "must be positive"),
        (lambda: F.unfold(sdk.ones(1, 1, 4, 4), (1, 2, 3)), TypeError, "tuple of 2 ints"),
        (lambda: F.unfold([1.0], 2), TypeError, "must be Tensor"),
        (lambda: F.fold(sdk.ones(1, 5, 4), (3, 3), 2), RuntimeError, "does not match"),
        (lambda: F.fold(sdk.ones(1, 4, 4), (3, 3), 2, padding=-1), ValueError, "non-negative"),
    ],
)
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


@pytest.mark.parametrize("shape,k,d,p,s", CASES)
def test_same_values_and_gradients_as_torch(shape, k, d, p, s):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape)
    x, tx = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    u, tu = F.unfold(x, k, d, p, s), torch.nn.functional.unfold(tx, k, d, p, s)
    np.testing.assert_allclose(u.detach().numpy(), tu.detach().numpy(), rtol=0, atol=0)
    g = rng.standard_normal(tuple(tu.shape))
    (u * sdk.tensor(g)).sum().backward()
    (tu * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    f = F.fold(sdk.tensor(g), shape[2:], k, d, p, s)
    tf = torch.nn.functional.fold(torch.tensor(g), shape[2:], k, d, p, s)
    np.testing.assert_allclose(f.numpy(), tf.numpy(), rtol=1e-12, atol=1e-12)
