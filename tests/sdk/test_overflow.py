"""Integer +, -, *, ** and matmul wrap around like numpy's; counts past int64 stay errors or ints.

The kernels run the wrapping in unsigned types: signed overflow is undefined behaviour in
C++, which the sanitized run of these tests (tests/sanitizers) reports.
"""

from __future__ import annotations

import numpy as np
import pytest

import sdk

INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


def _operands(dtype: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=64, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=64, dtype=dtype, endpoint=True)
    edge = [info.max, info.min, info.max, info.min, info.max]
    a[:5] = edge
    b[:5] = [info.max, info.min, 1, info.max, info.min]
    return a, b


def _wrap_int64(x: int) -> int:
    return (x + 2**63) % 2**64 - 2**63


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_add_sub_mul_wrap_like_numpy(dtype: str, rng) -> None:
    a, b = _operands(dtype, rng)
    ta, tb = sdk.tensor(a), sdk.tensor(b)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal((ta + tb).numpy(), a + b)
        np.testing.assert_array_equal((ta - tb).numpy(), a - b)
        np.testing.assert_array_equal((ta * tb).numpy(), a * b)
        big = int(np.iinfo(dtype).max)
        np.testing.assert_array_equal((ta + big).numpy(), a + np.array(big, dtype))
        np.testing.assert_array_equal((ta * 3).numpy(), a * np.array(3, dtype))
        alpha = np.array(3, dtype)
        np.testing.assert_array_equal(sdk.add(ta, tb, alpha=3).numpy(), a + b * alpha)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_pow_wraps_like_numpy(dtype: str, rng) -> None:
    a, _ = _operands(dtype, rng)
    e = rng.integers(0, 12, size=a.shape).astype(dtype)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal((sdk.tensor(a) ** sdk.tensor(e)).numpy(), np.power(a, e))


def test_int64_matmul_wraps() -> None:
    a = np.array([[2**62, 3, -(2**62)], [2**63 - 1, 2**63 - 1, 1]], dtype=np.int64)
    b = np.array([[4, -7], [5, 2**62], [2**61, 9]], dtype=np.int64)
    c = np.array([[7, 2**62], [-(2**63), 1]], dtype=np.int64)
    exact = [
        [sum(int(a[i, p]) * int(b[p, j]) for p in range(3)) for j in range(2)] for i in range(2)
    ]
    want = [[_wrap_int64(v) for v in row] for row in exact]
    np.testing.assert_array_equal(sdk.mm(sdk.tensor(a), sdk.tensor(b)).numpy(), want)
    r = sdk.addmm(sdk.tensor(c), sdk.tensor(a), sdk.tensor(b), beta=3, alpha=5)
    want = [[_wrap_int64(3 * int(c[i, j]) + 5 * exact[i][j]) for j in range(2)] for i in range(2)]
    np.testing.assert_array_equal(r.numpy(), want)


def test_cat_of_huge_expanded_views_is_refused() -> None:
    x = sdk.zeros(1).expand(2**62)
    with pytest.raises(ValueError, match="overflows int64"):
        sdk.cat([x, x])


def test_nbytes_past_int64_is_exact() -> None:
    assert sdk.zeros(1, dtype=sdk.float64).expand(2**62).nbytes == 2**65


def test_numpy_sees_valid_strides_for_empty_view_with_huge_stride() -> None:
    v = sdk.empty(0).reshape(1, 2**62, 0)  # strides (2**62, 1, 1): 2**64 bytes
    assert v.stride() == (2**62, 1, 1)
    # numpy refuses the shape itself (its byte count ignores the 0); the interface was valid
    with pytest.raises(ValueError, match="too big"):
        np.asarray(v)


def test_ints_past_int64_name_the_op_and_the_value() -> None:
    big = 2**70
    with pytest.raises(OverflowError, match=rf"full\(\): argument 'fill_value': the int {big}"):
        sdk.full((2,), big)
    with pytest.raises(OverflowError, match=rf"fill_\(\): argument 'value': the int {2**64}"):
        sdk.ones(3, dtype=sdk.int64).fill_(2**64)
    with pytest.raises(OverflowError, match=rf"the int {big} does not fit in int64"):
        sdk.ones(3) + big  # an operator: the line in the traceback names the op


# fill_, full, *_like and masked_fill refuse a value that the dtype cannot hold (torch raises
# "value cannot be converted to type ... without overflow"); arithmetic still wraps.
@pytest.mark.parametrize(
    "dtype,value",
    [("uint8", 256), ("int8", 128), ("int8", -129), ("int16", 40000),
     ("int32", 2**31), ("int64", float("nan")), ("int32", float("inf")), ("int64", 9.3e18),
     ("uint8", 255.5), ("uint8", -256), ("int8", 127.5), ("float16", 1e5), ("bfloat16", 1e39), ("float32", 1e39)],
)  # fmt: skip
def test_fill_values_that_do_not_fit_raise(dtype: str, value) -> None:
    d = getattr(sdk, dtype)
    for call in (
        lambda: sdk.zeros(3, dtype=d).fill_(value),
        lambda: sdk.full((3,), value, dtype=d),
        lambda: sdk.full_like(sdk.zeros(3, dtype=d), value),
        lambda: sdk.zeros(3, dtype=d).masked_fill(sdk.tensor([True, False, True]), value),
    ):
        with pytest.raises(RuntimeError, match=f"cannot be converted to {dtype} without overflow"):
            call()


@pytest.mark.parametrize(
    "dtype,value,expect",
    [("uint8", 255, 255), ("int8", -128.0, -128), ("int8", 126.9, 126), ("uint8", -3, 253), ("int64", -(2**63), -(2**63)),
     ("float16", 65504.0, 65504.0), ("float16", float("inf"), float("inf")), ("bool", 7, True),
     ("int32", 1.5, 1)],
)  # fmt: skip
def test_fill_values_at_the_edges_are_kept(dtype: str, value, expect) -> None:
    t = sdk.full((2,), value, dtype=getattr(sdk, dtype))
    assert t.tolist() == [expect, expect]
    assert sdk.zeros(2, dtype=getattr(sdk, dtype)).fill_(value).tolist() == [expect, expect]
