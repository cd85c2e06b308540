"""sdk.bitwise_left_shift / bitwise_right_shift (and << >>) against numpy for every integer
dtype, out-of-range shift amounts included (torch's rules: a left shift or an unsigned right
shift by < 0 or >= the bit width gives 0, a signed right shift gives the sign), and torch
itself when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

DTYPES = [np.uint8, np.int8, np.int16, np.int32, np.int64]


def _reference(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    bits = a.dtype.itemsize * 8
    ok = (b >= 0) & (b < bits)
    s = np.where(ok, b, 0).astype(a.dtype)
    with np.errstate(all="ignore"):
        if left:
            return np.where(ok, np.left_shift(a, s), 0).astype(a.dtype)
        sign = np.right_shift(a, bits - 1) if np.issubdtype(a.dtype, np.signedinteger) else 0
        return np.where(ok, np.right_shift(a, s), sign).astype(a.dtype)


def _operands(dtype, n=500):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    bits = np.dtype(dtype).itemsize * 8
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    low = 0 if dtype is np.uint8 else -3
    b = rng.integers(low, bits + 3, n).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
def test_shifts_match_numpy_with_out_of_range_amounts(dtype, left):
    a, b = _operands(dtype)
    fn = sdk.bitwise_left_shift if left else sdk.bitwise_right_shift
    got = fn(sdk.tensor(a), sdk.tensor(b))
    assert got.dtype == sdk.tensor(a).dtype
    np.testing.assert_array_equal(got.numpy(), _reference(a, b, left))
    op = (lambda x, y: x << y) if left else (lambda x, y: x >> y)
    np.testing.assert_array_equal(op(sdk.tensor(a), sdk.tensor(b)).numpy(), _reference(a, b, left))


def test_python_int_amount_broadcasting_and_promotion():
    x = sdk.tensor([[1, -8, 5]], dtype=sdk.int16)
    assert (x << 2).dtype == sdk.int16  # a Python int takes the tensor's dtype
    np.testing.assert_array_equal(x.bitwise_right_shift(1).numpy(), [[0, -4, 2]])
    y = sdk.bitwise_left_shift(x, sdk.tensor([[1], [2]], dtype=sdk.int64))
    assert y.dtype == sdk.int64 and tuple(y.shape) == (2, 3)
    np.testing.assert_array_equal(y.numpy(), [[2, -16, 10], [4, -32, 20]])


@pytest.mark.parametrize("bad", [sdk.tensor([1.5]), sdk.tensor([True])])
def test_non_integer_operands_are_type_errors(bad):
    with pytest.raises(TypeError, match="bitwise_left_shift\\(\\): only integer tensors"):
        sdk.bitwise_left_shift(bad, 1)
    with pytest.raises(TypeError, match="shift amount must be an integer"):
        sdk.bitwise_right_shift(sdk.tensor([1]), 1.5)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_shifts_match_torch(dtype):
    torch = pytest.importorskip("torch")
    a, b = _operands(dtype)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for fn, tfn in [(sdk.bitwise_left_shift, torch.bitwise_left_shift),
                    (sdk.bitwise_right_shift, torch.bitwise_right_shift)]:  # fmt: skip
        np.testing.assert_array_equal(fn(sdk.tensor(a), sdk.tensor(b)).numpy(), tfn(ta, tb).numpy())
