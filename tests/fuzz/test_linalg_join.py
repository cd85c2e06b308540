"""Fuzzing linear algebra and joins against numpy: mm, bmm, matmul (1-D promotion, batch
broadcasting), mv, dot; cat, stack, index_select, gather -- every dtype, empty and
non-contiguous operands, mismatched shapes and dtypes, out-of-range dims and indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz.conftest import examples
from tests.fuzz.strategies import INTS, cast, expect, is_float, promote, shapes, tensors

ERRORS = (TypeError, ValueError, IndexError, RuntimeError)
MAT_DTYPES = INTS + ("float16", "bfloat16", "float32", "float64")


@st.composite
def matmul_operands(draw):
    """(op, x, y): shapes that mostly fit the op (sometimes not), same dtype mostly."""
    op = draw(st.sampled_from(["mm", "bmm", "matmul", "mv", "dot", "@"]))
    n, k, m = (draw(st.integers(0, 5)) for _ in range(3))
    k2 = k if draw(st.integers(0, 7)) else draw(st.integers(0, 5))  # sometimes mismatched
    if op == "mm":
        sa, sb = (n, k), (k2, m)
    elif op == "bmm":
        b = draw(st.integers(0, 3))
        b2 = b if draw(st.integers(0, 7)) else draw(st.integers(0, 3))
        sa, sb = (b, n, k), (b2, k2, m)
    elif op == "mv":
        sa, sb = (n, k), (k2,)
    elif op == "dot":
        sa, sb = (k,), (k2,)
    else:
        batch = draw(shapes(max_dims=2, max_side=3))
        batch2 = batch[draw(st.integers(0, len(batch))) :]
        batch2 = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in batch2)
        sa = draw(st.sampled_from([(k,), batch + (n, k)]))
        sb = draw(st.sampled_from([(k2,), batch2 + (k2, m)]))
        if draw(st.booleans()):
            sa, sb = sb, sa  # the batch dims broadcast either way
    dt = draw(st.sampled_from(MAT_DTYPES))
    dt2 = dt if draw(st.integers(0, 9)) else draw(st.sampled_from(MAT_DTYPES))
    x = draw(tensors(dtypes=dt, shape=sa, kinds=("small", "wide")))
    y = draw(tensors(dtypes=dt2, shape=sb, kinds=("small", "wide")))
    return op, x, y


def _np_matmul(op, a, b):
    """numpy's answer, or ValueError where the op's shape rules refuse."""
    need = {"mm": (2, 2), "bmm": (3, 3), "mv": (2, 1), "dot": (1, 1)}.get(op)
    if need and (a.ndim, b.ndim) != need:
        raise ValueError("wrong ndim")
    if op == "bmm" and a.shape[0] != b.shape[0]:
        raise ValueError("batch mismatch")  # bmm does not broadcast
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("0-dim operand")
    return np.matmul(a, b)


@examples(220)
@given(case=matmul_operands())
def test_matmul_family(case):
    op, x, y = case
    dt, dt2 = x.t.dtype.name, y.t.dtype.name
    call = (lambda: x.t @ y.t) if op == "@" else (lambda: getattr(sdk, op)(x.t, y.t))
    fl = is_float(dt)
    a, b = (v.a.astype(np.float64) if fl else v.a.astype(np.int64) for v in (x, y))
    try:
        ref = _np_matmul(op, a, b)
    except ValueError:
        with pytest.raises(ERRORS):
            call()
        return
    if dt != dt2:
        with pytest.raises(ERRORS):
            call()  # no implicit promotion in matrix products (as torch)
        return
    scale = None
    if fl:
        scale = np.abs(_np_matmul(op, np.abs(a), np.abs(b)))
        scale = np.where(np.isfinite(scale), scale, 0)
    rtol = {"float32": 1e-5, "float16": 1e-2, "bfloat16": 3e-2}.get(dt)
    expect(call(), ref, dt, scale=scale, rtol=rtol, msg=f"{op}({x}, {y})")


# ------------------------------------------------------------------------------- joins


@st.composite
def join_operands(draw):
    """(op, dim, cases): tensors whose shapes agree except (mostly) along dim."""
    op = draw(st.sampled_from(["cat", "stack"]))
    shape = list(draw(shapes(min_dims=0 if op == "stack" else 1, max_dims=3)))
    n = len(shape)
    hi = n + 1 if op == "stack" else max(n, 1)
    dim = draw(st.integers(-hi - 1, hi))  # one beyond each end: errors
    count = draw(st.integers(0, 4))
    dtypes = st.sampled_from(("float32", "int64", "float16", "bool", "uint8", "bfloat16"))
    dt = draw(dtypes)
    cases = []
    for _ in range(count):
        s = list(shape)
        if op == "cat" and -n <= dim < n and draw(st.integers(0, 3)):
            s[dim] = draw(st.integers(0, 3))
        if draw(st.integers(0, 9)) == 0 and s:
            s[draw(st.integers(0, len(s) - 1))] += 1  # a mismatch
        d = dt if draw(st.integers(0, 3)) else draw(dtypes)
        cases.append(draw(tensors(dtypes=d, shape=tuple(s))))
    return op, dim, cases


@examples(150)
@given(case=join_operands(), how=st.sampled_from(["function", "out"]))
def test_cat_stack(case, how):
    op, dim, cases = case
    ts = [c.t for c in cases]
    fn = getattr(sdk, op)
    try:
        if not cases:
            raise ValueError("nothing to join")
        rd = cases[0].t.dtype.name
        for c in cases[1:]:
            rd = promote(rd, c.t.dtype.name)
        arrays = [cast(c.a, rd) for c in cases]
        ref = np.concatenate(arrays, axis=dim) if op == "cat" else np.stack(arrays, axis=dim)
    except (ValueError, np.exceptions.AxisError):
        if op == "cat" and any(c.a.shape == (0,) for c in cases):
            return  # torch's cat skips 1-D empty tensors: whether this joins is its own rule
        with pytest.raises(ERRORS):
            fn(ts, dim)
        return
    if how == "out":
        out = sdk.empty(*ref.shape, dtype=getattr(sdk, rd))
        got = fn(ts, dim, out=out)
        assert got is out
    else:
        got = fn(tuple(ts) if len(ts) % 2 else ts, dim)
    expect(got, ref, rd, msg=f"{op}({cases}, {dim})")


@st.composite
def index_operands(draw, op: str):
    x = draw(tensors(shape=shapes(max_dims=3)))
    n = max(x.t.ndim, 1)
    dim = draw(st.integers(-n - 1, n))
    size = x.a.shape[dim % n] if x.t.ndim and -n <= dim < n else 1
    lo, hi = (-size - 1, size) if draw(st.integers(0, 7)) == 0 else (0, size - 1)
    idx_dtype = draw(st.sampled_from(["int64", "int64", "int32", "float32", "bool"]))
    if op == "index_select":
        ishape = draw(st.sampled_from([(), (draw(st.integers(0, 5)),), (1, 2)]))
    else:
        ishape = list(x.a.shape) if x.t.ndim else []
        for i in range(len(ishape)):
            ishape[i] = draw(st.integers(0, ishape[i] + (2 if i == dim % n else 0)))
        ishape = tuple(ishape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vals = rng.integers(lo, max(hi, lo) + 1, size=ishape) if hi >= lo else np.zeros(ishape, int)
    vals = np.asarray(vals)
    idx = sdk.tensor(vals.astype(idx_dtype if idx_dtype != "bool" else "int64"))
    if idx_dtype != "int64":
        idx = idx.to(getattr(sdk, idx_dtype))
    if draw(st.booleans()) and idx.ndim >= 1 and idx_dtype == "int64":
        idx = sdk.tensor(vals[..., None].repeat(2, -1).astype(np.int64))[..., 0]  # strided
    return x, dim, idx, vals, idx_dtype


def _np_index_select(a, dim, vals, idx_dtype):
    if idx_dtype not in ("int64", "int32") or vals.ndim > 1:
        raise TypeError("index must be a 1-D integer tensor")
    n = max(a.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(dim)
    if a.ndim == 0:  # torch: one index (0), and a 0-dim result
        if vals.size != 1 or np.any(vals != 0):
            raise IndexError("out of range")
        return a.copy()
    size = a.shape[dim % n]
    if np.any((vals < 0) | (vals >= size)):
        raise IndexError("out of range")
    return np.take(a, vals.reshape(-1), axis=dim % n)


def _np_gather(a, dim, vals, idx_dtype):
    if idx_dtype not in ("int64", "int32"):
        raise TypeError("gather expects an integer index")  # the core takes int32 too
    n = max(a.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(dim)
    if vals.ndim != a.ndim:
        raise ValueError("index and input must have the same ndim")
    d = dim % n
    if a.ndim == 0:
        if vals != 0:
            raise IndexError("out of range")
        return a.copy()
    for i in range(a.ndim):
        if i != d and vals.shape[i] > a.shape[i]:
            raise ValueError("index larger than input")
    if vals.size and np.any((vals < 0) | (vals >= a.shape[d])):
        raise IndexError("out of range")
    where = list(np.indices(vals.shape, sparse=True))  # out[i] = a[i with i[d] = index[i]]
    where[d] = vals
    return a[tuple(where)]


@examples(200)
@given(data=st.data(), op=st.sampled_from(["index_select", "gather"]))
def test_index_select_and_gather(data, op):
    x, dim, idx, vals, idx_dtype = data.draw(index_operands(op), label="operands")
    ref_fn = _np_index_select if op == "index_select" else _np_gather
    call = lambda: getattr(sdk, op)(x.t, dim, idx)  # noqa: E731
    try:
        ref = ref_fn(x.a, dim, vals, idx_dtype)
    except (TypeError, ValueError, IndexError):
        with pytest.raises(ERRORS):
            call()
        return
    expect(call(), ref, x.t.dtype.name, msg=f"{op}({x}, {dim}, {idx_dtype}{list(vals.shape)})")
