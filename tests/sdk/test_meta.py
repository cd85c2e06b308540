"""The meta device (sdk/_ops_meta.py) and shape functions (sdk.library.register_fake,
fake_call, opcheck's test_faketensor): shapes and dtypes checked against the real ops."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import sdk
import sdk.library as L

_ids = itertools.count()


def ns() -> str:
    return f"meta_test_{next(_ids)}"


def meta(*shape, dtype=sdk.float32):
    return sdk.empty(*shape, dtype=dtype, device="meta")


def same(m, real) -> None:
    """A meta result has the shape and dtype the same op gives on real tensors."""
    assert m.device == "meta" and m.is_meta
    assert tuple(m.shape) == tuple(real.shape) and m.dtype == real.dtype, (m, real.shape)


def test_factories_keep_meta():
    a = meta(2, 3)
    assert a.shape == (2, 3) and a.dim() == 2 and a.size(-1) == 3 and a.numel() == 6
    assert str(a.device) == "meta" and a.dtype == sdk.float32
    for b in (sdk.empty_like(a), sdk.zeros_like(a), sdk.ones_like(a), a.new_empty(2, 3)):
        assert b.is_meta and b.shape == (2, 3) and b.dtype == sdk.float32
    assert sdk.zeros_like(a, dtype=sdk.int32).dtype == sdk.int32
    assert sdk.full((4,), 7, device="meta").dtype == sdk.int64
    assert sdk.zeros(5, device=sdk.device("meta")).shape == (5,)
    with pytest.raises(RuntimeError, match="cannot require grad"):
        sdk.empty(2, device="meta", requires_grad=True)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: x + y,
        lambda x, y: x * 2.5,
        lambda x, y: 3 - x,
        lambda x, y: x > y,
        lambda x, y: x.sin(),
        lambda x, y: x.to(sdk.int64) // 2,
        lambda x, y: x.reshape(-1, 2),
        lambda x, y: x.transpose(0, 1).unsqueeze(0),
        lambda x, y: x.expand(4, 3, 4),
        lambda x, y: x.permute(1, 0)[1:, None],
        lambda x, y: x.sum(1, keepdim=True),
        lambda x, y: x.max(dim=0).indices,
        lambda x, y: x @ y.t(),
        lambda x, y: x.softmax(-1),
    ],
)
def test_ops_give_the_real_ops_shapes_and_dtypes(fn):
    xr, yr = sdk.randn(3, 4), sdk.randn(1, 4)
    same(fn(meta(3, 4), meta(1, 4)), fn(xr, yr))


def test_integer_promotion_follows_the_core():
    ints = meta(2, dtype=sdk.int32)
    same(ints + 1.5, sdk.ones(2, dtype=sdk.int32) + 1.5)
    same(ints.sqrt(), sdk.ones(2, dtype=sdk.int32).sqrt())
    same(ints + meta(dtype=sdk.int64), sdk.ones(2, dtype=sdk.int32) + sdk.ones((), dtype=sdk.int64))


def test_views_of_large_meta_tensors_allocate_nothing():
    # a 2**40-element meta tensor: any real allocation of it would fail
    big = meta(2**20, 2**20)
    assert big.t().reshape(-1)[: 2**30].shape == (2**30,)


def test_data_access_and_bad_shapes_raise_clearly():
    a = meta(2, 3)
    for read in (a.item, a.numpy, a.tolist, lambda: float(a), lambda: bool(a), a.data_ptr):
        with pytest.raises(RuntimeError, match="meta device has a shape and a dtype but no data"):
            read()
    with pytest.raises(RuntimeError, match="meta device"):
        np.asarray(a)
    with pytest.raises(NotImplementedError, match="nonzero is not supported on the meta device"):
        a.nonzero()
    with pytest.raises(ValueError, match="invalid for input of size 6"):
        a.reshape(7)
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        a + meta(4)
    with pytest.raises(RuntimeError, match="mixes a meta tensor with a tensor that has data"):
        a + sdk.ones(2, 3)


def _op_with_fake(fake):
    n = ns()

    @L.custom_op(f"{n}::outer", mutates_args=())
    def outer(a: sdk.Tensor, b: sdk.Tensor) -> sdk.Tensor:
        return a[:, None] * b[None, :]

    if fake is not None:
        outer.register_fake(fake)
    return outer


def test_op_on_meta_tensors_runs_its_shape_function():
    op = _op_with_fake(lambda a, b: a.new_empty(a.shape[0], b.shape[0]))
    out = op(meta(3), meta(5))
    assert out.is_meta and out.shape == (3, 5)
    # fake_call takes anything with .shape and .dtype: sdk tensors, numpy arrays
    out = L.fake_call(op, sdk.ones(2), np.ones(4, np.float32))
    assert out.shape == (2, 4) and out.dtype == sdk.float32
    assert L.opcheck(op, (sdk.randn(3), sdk.randn(5)))["test_faketensor"] == "SUCCESS"


def test_opcheck_catches_a_wrong_shape_function():
    op = _op_with_fake(lambda a, b: sdk.empty_like(a))
    with pytest.raises(L.OpCheckError, match=r"shape function says output 0 is \[3\]"):
        L.opcheck(op, (sdk.randn(3), sdk.randn(5)), test_utils="test_faketensor")


def test_missing_or_malformed_shape_functions_raise():
    op = _op_with_fake(None)
    assert not L.has_fake(op)
    with pytest.raises(NotImplementedError, match="no shape function.*register_fake"):
        op(meta(3), meta(5))
    assert L.opcheck(op, (sdk.randn(3), sdk.randn(5)))["test_faketensor"].startswith("SKIPPED")
    bad = _op_with_fake(lambda a, b: 3)
    with pytest.raises(RuntimeError, match="result 0 is int, not a tensor on the meta device"):
        bad(meta(3), meta(5))
    with pytest.raises(TypeError, match="expected a function"):
        L.register_fake(op, 3)
