"""tensor_split and diff (sdk._ops_shape) against numpy and, when installed, torch; their
gradients by finite differences; set_printoptions against torch's repr."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk.autograd import gradcheck


@pytest.mark.parametrize("arg", [3, 4, 1, 7, [2, 5], [-3, 8], [7, 3], [12], [0, 0]])
def test_tensor_split_matches_numpy_array_split(arg):
    a = np.arange(60.0).reshape(6, 10)
    parts = sdk.tensor_split(sdk.tensor(a), arg, dim=1)
    ref = np.array_split(a, arg, axis=1)
    assert len(parts) == len(ref)
    for p, r in zip(parts, ref):
        np.testing.assert_array_equal(p.numpy(), r)


def test_tensor_split_tensor_argument_and_method():
    x = sdk.arange(10)
    assert [p.tolist() for p in x.tensor_split(sdk.tensor([2, 5]))] == [
        [0, 1],
        [2, 3, 4],
        list(range(5, 10)),
    ]
    assert [p.numel() for p in sdk.tensor_split(x, sdk.tensor(3))] == [4, 3, 3]


def test_tensor_split_bad_arguments():
    x = sdk.arange(10)
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        sdk.tensor_split(x, 0)
    with pytest.raises(ValueError, match="mostly empty"):
        sdk.tensor_split(x, 2**62)  # refused, not a hang building 2**62 views
    assert len(sdk.tensor_split(x, 12)) == 12  # more sections than elements: empty tail
    with pytest.raises(TypeError, match="indices must be ints"):
        sdk.tensor_split(x, [1.5])
    with pytest.raises(TypeError, match="tensor_split"):
        sdk.tensor_split(x, sdk.tensor([1.0]))
    with pytest.raises(IndexError):
        sdk.tensor_split(x, 2, dim=1)


def test_tensor_split_gradient():
    x = sdk.randn(3, 7, dtype=sdk.float64, requires_grad=True)
    assert gradcheck(
        lambda t: tuple(p * (i + 1) for i, p in enumerate(sdk.tensor_split(t, [2, 2, 5], 1))), (x,)
    )


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_diff_matches_numpy(n):
    a = np.random.default_rng(0).standard_normal((4, 5))
    for dim in (0, 1, -1):
        np.testing.assert_allclose(
            sdk.diff(sdk.tensor(a), n=n, dim=dim).numpy(), np.diff(a, n=n, axis=dim)
        )


def test_diff_prepend_append_bool_and_errors():
    a = np.array([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]])
    pre, app = np.zeros((2, 1)), np.ones((2, 2))
    out = sdk.tensor(a).diff(prepend=sdk.tensor(pre), append=sdk.tensor(app))
    np.testing.assert_allclose(out.numpy(), np.diff(a, prepend=pre, append=app))
    assert sdk.diff(sdk.tensor([True, False, False])).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        sdk.diff(sdk.tensor(a), n=-1)
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        sdk.diff(sdk.tensor(1.0))


def test_diff_gradient():
    x = sdk.randn(4, 6, dtype=sdk.float64, requires_grad=True)
    p = sdk.randn(4, 1, dtype=sdk.float64, requires_grad=True)
    assert gradcheck(lambda t, q: sdk.diff(t, n=2, dim=1, prepend=q), (x, p))


def test_against_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((5, 9))
    for arg in (2, 4, [1, 1, 6], [-2, 3]):
        for p, q in zip(
            sdk.tensor_split(sdk.tensor(a), arg, 1), torch.tensor_split(torch.tensor(a), arg, 1)
        ):
            np.testing.assert_array_equal(p.numpy(), q.numpy())
    np.testing.assert_allclose(
        sdk.diff(sdk.tensor(a), 2, 0).numpy(), torch.diff(torch.tensor(a), 2, 0).numpy()
    )


@pytest.fixture
def restore_printoptions():
    yield
    sdk.set_printoptions(profile="default")


def test_set_printoptions_changes_repr(restore_printoptions):
    sdk.set_printoptions(precision=2)
    assert repr(sdk.tensor([1.23456, 2.5])) == "tensor([1.23, 2.50])"
    sdk.set_printoptions(threshold=5, edgeitems=1)
    assert repr(sdk.arange(10)) == "tensor([0,  ..., 9])"  # torch pads the ellipsis too
    sdk.set_printoptions(profile="default", sci_mode=True)
    assert repr(sdk.tensor([1.5])) == "tensor([1.5000e+00])"
    sdk.set_printoptions(profile="default")
    assert repr(sdk.tensor([1.5])) == "tensor([1.5000])"
    with pytest.raises(ValueError, match="profile must be one of"):
        sdk.set_printoptions(profile="long")
    with pytest.raises(ValueError, match="precision must be a non-negative number"):
        sdk.set_printoptions(precision=-1)


@pytest.mark.parametrize(
    "opts",
    [dict(precision=2), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
     dict(profile="short"), dict(threshold=10, edgeitems=2), dict(linewidth=30)],
)  # fmt: skip
def test_set_printoptions_against_torch(opts, restore_printoptions):
    torch = pytest.importorskip("torch")
    a = np.array([[0.000123, 1.5, -2.25, 1e3], [7.0, 8.125, 9.0, 10.0], [1, 2, 3, 4.5]] * 4)
    sdk.set_printoptions(**opts)
    torch.set_printoptions(**opts)
    try:
        assert repr(sdk.tensor(a, dtype=sdk.float32)) == repr(torch.tensor(a, dtype=torch.float32))
    finally:
        torch.set_printoptions(profile="default")


def test_lists_that_are_not_shapes_may_have_large_products():
    # split sizes, strides and shifts are not multiplied together: only a shape's product must
    # fit in int64 (split raised "the number of elements overflows int64" here)
    sizes = [75, 86, 316, 1184, 1648, 1829, 148, 714]
    x = sdk.arange(sum(sizes))
    pieces = x.split(sizes)
    assert [p.numel() for p in pieces] == sizes
    assert pieces[-1][0].item() == sum(sizes) - 714
    big = 1 << 40
    v = sdk.zeros(4).as_strided((1, 1, 1), (big, big, 1))
    assert v.stride() == (big, big, 1)
    assert (
        sdk.roll(sdk.arange(6), (big, big), (0, 0))[0].item() == np.roll(np.arange(6), 2 * big)[0]
    )
    with pytest.raises(sdk.InvalidArgumentError, match="overflows int64"):
        sdk.empty((1 << 32, 1 << 32))
