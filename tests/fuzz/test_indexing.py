"""Fuzzing indexing and index assignment against numpy: ints (in and out of range),
slices with steps, None, Ellipsis, bool masks, int tensors and lists, 0-dim int tensors,
mixed basic/advanced indices (adjacent or separated), on every layout and dtype."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz.conftest import examples
from tests.fuzz.strategies import cast, expect, is_float, shapes, tensors

ERRORS = (TypeError, ValueError, IndexError, RuntimeError)
WRITABLE = ("contiguous", "permuted", "stepped", "numpy_view")


def _int(draw, size: int) -> int:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([size, -size - 1, size + 3]))  # out of range
    return draw(st.integers(-size, size - 1)) if size else 0


@st.composite
def entry(draw, size: int, size2, allow_adv: bool):
    """(sdk index, numpy index, dims consumed, is advanced) for the dim(s) at hand."""
    kinds = ["int", "slice", "slice", "tensor0"]
    if allow_adv:
        kinds += ["intarr", "list"] + (["mask2"] if size2 is not None else []) + ["mask"]
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        i = _int(draw, size)
        return i, i, 1, False
    if kind == "tensor0":  # a 0-dim integer tensor acts as an int (as in torch)
        i = _int(draw, size) if size else 0
        return sdk.tensor(i), i, 1, False
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-size - 2, size + 2))
        step = draw(st.sampled_from([None, 1, 2, 3, None, 1, 2, 0, -1]))
        s = slice(draw(bound), draw(bound), step)
        return s, s, 1, False
    if kind in ("intarr", "list"):
        ishape = draw(st.sampled_from([(), (0,), (1,), (2,), (3,), (2, 2), (1, 3)]))
        vals = np.array([_int(draw, size) if size else 0 for _ in range(int(np.prod(ishape)))])
        vals = vals.reshape(ishape).astype(np.int64)
        if kind == "list" and vals.ndim == 1:
            return vals.tolist(), vals, 1, True
        dt = draw(st.sampled_from([sdk.int64, sdk.int32]))
        return sdk.tensor(vals).to(dt), vals, 1, True
    dims = (size,) if kind == "mask" else (size, size2)
    if draw(st.integers(0, 9)) == 0:
        dims = dims[:-1] + (dims[-1] + 1,)  # a mask of the wrong shape
    m = np.random.default_rng(draw(st.integers(0, 2**16))).random(dims) < 0.5
    return sdk.tensor(m), m, len(dims), True


@st.composite
def index_exprs(draw, shape: tuple):
    """(sdk index, numpy index): a tuple of entries, maybe with an Ellipsis and Nones."""
    n = len(shape)
    allow_adv = draw(st.integers(0, 2)) > 0
    front = draw(st.integers(0, n + 1 if draw(st.integers(0, 9)) == 0 else n))
    use_ellipsis = draw(st.integers(0, 3)) == 0
    back = draw(st.integers(0, max(n - front, 0))) if use_ellipsis else 0
    sdk_idx, np_idx = [], []
    d = 0
    while d < front:
        size = shape[d] if d < n else 1
        size2 = shape[d + 1] if d + 1 < min(n, front) else None
        si, ni, used, _ = draw(entry(size, size2, allow_adv))
        sdk_idx.append(si)
        np_idx.append(ni)
        d += used
    if use_ellipsis:
        sdk_idx.append(Ellipsis)
        np_idx.append(Ellipsis)
        for k in range(back):
            size = shape[n - back + k]
            si, ni, _, _ = draw(entry(size, None, False))
            sdk_idx.append(si)
            np_idx.append(ni)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(sdk_idx)))
        flag = None if allow_adv or draw(st.booleans()) else draw(st.booleans())
        sdk_idx.insert(at, flag)  # None, or (without advanced indices) a bool scalar
        np_idx.insert(at, flag)
    if len(sdk_idx) == 1 and draw(st.booleans()):
        return sdk_idx[0], np_idx[0]  # not wrapped in a tuple
    return tuple(sdk_idx), tuple(np_idx)


def _items(np_idx) -> tuple:
    return np_idx if isinstance(np_idx, tuple) else (np_idx,)


def _is_basic(np_idx) -> bool:
    return all(
        i is None or i is Ellipsis or (isinstance(i, (int, slice)) and not isinstance(i, bool))
        for i in _items(np_idx)
    )


def torch_index(a: np.ndarray, np_idx) -> tuple:
    """(view, rest): view[rest] is a[np_idx] with torch's rules, through numpy: ints (and 0-dim int tensors) select as
    basic indices first, bool scalars are a new dim indexed by [0] or [], and what is left
    (arrays, masks) is numpy advanced indexing on the basic result -- so x[0, :, [0, 1]] has
    shape (n1, 2) as in torch, not numpy's (2, n1). Slice steps must be positive."""
    items = _items(np_idx)
    if sum(i is Ellipsis for i in items) > 1:
        raise IndexError("an index can only have a single ellipsis")
    basic, second = [], []  # the basic index; what each output dim of it gets next
    for i in items:
        if isinstance(i, slice):
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
            basic.append(i)
            second.append(slice(None))
        elif i is None or isinstance(i, bool):
            basic.append(None)
            second.append(slice(None) if i is None else np.arange(1 if i else 0))
        elif isinstance(i, int):
            basic.append(i)
        elif i is Ellipsis:
            basic.append(Ellipsis)
            second.append(Ellipsis)
        else:
            arr = np.asarray(i)
            k = arr.ndim if arr.dtype == bool else 1
            basic.extend([slice(None)] * k)
            second.append(arr)
    if Ellipsis not in basic:
        basic.append(Ellipsis)
        second.append(Ellipsis)
    view = a[tuple(basic)]
    # Spell the Ellipsis out: torch decides adjacency of advanced indices by the dims they
    # index, while numpy counts any Ellipsis between them as a separator, even an empty one.
    used = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype == bool else 1 for i in second)
    at = next(k for k, i in enumerate(second) if i is Ellipsis)
    second[at : at + 1] = [slice(None)] * (view.ndim - (used - 1))
    return view, tuple(second)


@examples(250)
@given(x=tensors(shape=shapes(max_dims=4)), data=st.data())
def test_getitem(x, data):
    sdk_idx, np_idx = data.draw(index_exprs(tuple(x.t.shape)), label="index")
    base = x.a.copy()
    try:
        view, rest = torch_index(base, np_idx)
        ref = view[rest]
    except (IndexError, ValueError, TypeError):
        with pytest.raises(ERRORS):
            x.t[sdk_idx]
        return
    got = x.t[sdk_idx]
    msg = f"{x}[{np_idx!r}]"
    expect(got, ref, x.t.dtype.name, msg=msg)
    if _is_basic(np_idx) and got.numel() and x.layout != "expanded":
        got.fill_(1)  # a view: the write shows in x
        base[np_idx] = 1
        expect(x.t, base, x.t.dtype.name, msg=msg + " written through")


@st.composite
def values_for(draw, dt: str, shape: tuple):
    """A Python number or a tensor broadcastable to shape (sometimes not)."""
    if draw(st.booleans()):
        if dt == "bool":
            return draw(st.booleans())
        if is_float(dt):
            return draw(st.one_of(st.integers(-8, 8), st.floats(-8, 8)))
        return draw(st.integers(-8, 8) if dt != "uint8" else st.integers(0, 200))
    vshape = list(shape[len(shape) - draw(st.integers(0, len(shape))) :])
    vshape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in vshape)
    if draw(st.integers(0, 9)) == 0:
        vshape = vshape + (3,)  # does not broadcast (mostly)
    vdt = dt if draw(st.integers(0, 2)) else draw(st.sampled_from(["float32", "int64", "bool"]))
    return draw(tensors(dtypes=vdt, shape=vshape, kinds=("small",)))


@examples(220)
@given(x=tensors(shape=shapes(max_dims=4), layouts=WRITABLE, kinds=("small",)), data=st.data())
def test_setitem(x, data):
    dt = x.t.dtype.name
    sdk_idx, np_idx = data.draw(index_exprs(tuple(x.t.shape)), label="index")
    base = x.a.copy()
    try:
        view, rest = torch_index(base, np_idx)
        target = view[rest]
    except (IndexError, ValueError, TypeError):
        with pytest.raises(ERRORS):
            x.t[sdk_idx] = 1
        return
    v = data.draw(values_for(dt, target.shape), label="value")
    sv, nv = (v.t, v.a) if hasattr(v, "t") else (v, v)
    try:
        np.broadcast_to(np.asarray(nv), target.shape)
    except ValueError:
        with pytest.raises(ERRORS):
            x.t[sdk_idx] = sv
        return
    # Duplicate positions with different values have no defined winner (as in torch).
    where, rest = torch_index(np.arange(base.size).reshape(base.shape), np_idx)
    pos = where[rest]
    ambiguous = pos.size != np.unique(pos).size and np.asarray(nv).size > 1
    with np.errstate(all="ignore"):
        view[rest] = cast(np.asarray(nv), dt) if not is_float(dt) else np.asarray(nv)
    x.t[sdk_idx] = sv
    if not ambiguous:
        expect(x.t, base, dt, msg=f"{x}[{np_idx!r}] = {sv!r}")
