"""Fuzzing reductions against numpy: sum, mean, prod, amax/amin, max/min with indices,
argmax/argmin, all/any, var/std, softmax/log_softmax, logsumexp -- random dims (int, tuple,
None, negative) with keepdim, every dtype, empty and 0-dim inputs, non-contiguous layouts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz.conftest import examples
from tests.fuzz.strategies import FLOATS, SDK_DTYPES, cast, expect, is_float, tensors

ERRORS = (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError)


@st.composite
def dims(draw, ndim: int, multi: bool = True):
    """None, one dim (maybe negative) or, if multi, a tuple of distinct dims."""
    n = max(ndim, 1)  # a 0-dim tensor takes dim 0 / -1
    one = st.integers(-n, n - 1)
    choices = [st.none(), one]
    if multi:
        choices.append(
            st.lists(st.integers(0, n - 1), unique=True, max_size=n).map(
                lambda ds: tuple(d - n if i % 2 else d for i, d in enumerate(ds))
            )
        )
    return draw(st.one_of(*choices))


def _axes(dim, ndim):
    """numpy axis for a dim argument (None and () reduce everything)."""
    if dim is None or dim == ():
        return None
    ds = (dim,) if isinstance(dim, int) else dim
    return tuple(d % max(ndim, 1) for d in ds) if ndim else None


def _np_reduce(fn, a, dim, keepdim, **kw):
    ax = _axes(dim, a.ndim)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # empty slices: nan, as expected
        r = fn(a, axis=ax, keepdims=bool(keepdim), **kw) if a.ndim else fn(a, **kw)
    return np.asarray(r)


SUMLIKE = ("sum", "prod", "mean", "amax", "amin", "all", "any")


def sumlike_expected(op, a, dt, dim, keepdim):
    fl = is_float(dt)
    x = a.astype(np.float64) if fl else a
    if op in ("sum", "prod"):
        rd = dt if fl else "int64"
        fn = np.sum if op == "sum" else np.prod
        return rd, _np_reduce(fn, x, dim, keepdim, dtype=None if fl else np.int64)
    if op == "mean":
        return (dt, _np_reduce(np.mean, x, dim, keepdim)) if fl else None
    if op in ("all", "any"):
        fn = np.all if op == "all" else np.any
        return ("uint8" if dt == "uint8" else "bool"), _np_reduce(fn, a != 0, dim, keepdim)
    if _reduces_empty(a.shape, dim):
        return None  # amax/amin of nothing
    fn = np.max if op == "amax" else np.min
    return dt, _np_reduce(fn, x, dim, keepdim)


def _reduces_empty(shape, dim) -> bool:
    """True if some reduced dim (or the whole tensor, for dim None) has no elements and the
    result has some: an extremum of nothing. (An empty result from an empty dim, as in
    amax(zeros(0, 0), 0), may raise like torch or be empty like numpy: both are accepted.)"""
    ax = _axes(dim, len(shape))
    if ax is None:
        return int(np.prod(shape)) == 0
    kept = [s for d, s in enumerate(shape) if d not in ax]
    return any(shape[d] == 0 for d in ax) and int(np.prod(kept)) > 0


def _raises_or_empty(call, shape, dim, keepdim, dt) -> None:
    try:
        got = call()
    except ERRORS:
        return
    want = _np_reduce(np.sum, np.zeros(shape), dim, keepdim).shape
    for g in got if isinstance(got, tuple) else (got,):
        assert tuple(g.shape) == want, f"{tuple(g.shape)} != {want}"
    if dt is not None and not isinstance(got, tuple):
        assert got.dtype.name == dt


def _empty_from_empty(shape, dim) -> bool:
    ax = _axes(dim, len(shape))
    return ax is not None and any(shape[d] == 0 for d in ax) and not _reduces_empty(shape, dim)


@examples(250)
@given(
    op=st.sampled_from(SUMLIKE),
    x=tensors(),
    data=st.data(),
    keepdim=st.booleans(),
    how=st.sampled_from(["function", "method"]),
)
def test_sum_like(op, x, data, keepdim, how):
    dt = x.t.dtype.name
    dim = data.draw(dims(x.t.ndim), label="dim")
    call = (lambda: getattr(sdk, op)(x.t, dim, keepdim)) if how == "function" else None
    if how == "method":
        call = lambda: getattr(x.t, op)(dim, keepdim)  # noqa: E731
    if dim is None and op in ("amax", "amin"):
        call = lambda: getattr(sdk, op)(x.t, (), keepdim)  # noqa: E731  (amax's "all dims")
    if op in ("amax", "amin") and _empty_from_empty(x.a.shape, dim):
        _raises_or_empty(call, x.a.shape, dim, keepdim, dt)
        return
    want = sumlike_expected(op, x.a, dt, dim, keepdim)
    if want is None:
        with pytest.raises(ERRORS):
            call()
        return
    rd, ref = want
    scale = None
    if op in ("sum", "mean") and is_float(dt):
        scale = _np_reduce(np.sum, np.abs(x.a.astype(np.float64)), dim, keepdim)
        scale = np.where(np.isfinite(scale), scale, 0)
    rtol = None
    if op == "prod" and is_float(dt):
        rtol = {"float16": 2e-2, "bfloat16": 6e-2, "float32": 1e-4}.get(dt)
    expect(call(), ref, rd, scale=scale, rtol=rtol, msg=f"{op}({x}, dim={dim}, keepdim={keepdim})")


@examples(180)
@given(
    op=st.sampled_from(["max", "min", "argmax", "argmin"]),
    x=tensors(),
    data=st.data(),
    keepdim=st.booleans(),
)
def test_extremum_with_indices(op, x, data, keepdim):
    """values and the index of the FIRST extreme (NaN counts as extreme), as in torch."""
    dim = data.draw(dims(x.t.ndim, multi=False), label="dim")
    fn = getattr(sdk, op)
    call = (lambda: fn(x.t)) if dim is None else (lambda: fn(x.t, dim, keepdim))
    a = x.a.astype(np.float64) if is_float(x.t.dtype.name) else x.a
    if _reduces_empty(x.a.shape, dim):
        with pytest.raises(ERRORS):
            call()
        return
    if _empty_from_empty(x.a.shape, dim):
        _raises_or_empty(call, x.a.shape, dim, keepdim, "int64" if op[:3] == "arg" else None)
        return
    arg = np.argmax if op in ("max", "argmax") else np.argmin
    ax = _axes(dim, a.ndim)
    if ax is None:
        idx = np.asarray(arg(a.reshape(-1)))
    else:
        idx = arg(a, axis=ax[0])
        if keepdim:
            idx = np.expand_dims(idx, ax[0])
    got = call()
    msg = f"{op}({x}, dim={dim}, keepdim={keepdim})"
    if op in ("argmax", "argmin"):
        if dim is not None and keepdim and a.ndim == 0:
            idx = idx.reshape(())
        expect(got, idx, "int64", msg=msg)
        return
    vfn = np.max if op == "max" else np.min
    if dim is None:
        expect(got, vfn(a), x.t.dtype.name, msg=msg)
        return
    values, indices = got
    assert got.values is values and got.indices is indices
    expect(values, _np_reduce(vfn, a, dim, keepdim), x.t.dtype.name, msg=msg + " values")
    expect(indices, idx.reshape(values.shape), "int64", msg=msg + " indices")


@examples(150)
@given(
    op=st.sampled_from(["var", "std"]),
    x=tensors(),
    data=st.data(),
    keepdim=st.booleans(),
    correction=st.sampled_from([None, 0, 1, 2, True, False]),
)
def test_var_std(op, x, data, keepdim, correction):
    dt = x.t.dtype.name
    dim = data.draw(dims(x.t.ndim), label="dim")
    if correction is None:
        call, ddof = (lambda: getattr(sdk, op)(x.t, dim, keepdim=keepdim)), 1
    elif isinstance(correction, bool):
        call = lambda: getattr(x.t, op)(dim, correction, keepdim)  # noqa: E731 (unbiased)
        ddof = int(correction)
    else:
        call = lambda: getattr(sdk, op)(x.t, dim, keepdim=keepdim, correction=correction)  # noqa: E731
        ddof = correction
    if not is_float(dt):
        with pytest.raises(ERRORS):
            call()
        return
    a = x.a.astype(np.float64)
    fn = np.var if op == "var" else np.std
    ref = _np_reduce(fn, a, dim, keepdim, ddof=ddof)
    sq = _np_reduce(np.max, np.abs(a), None, False, initial=0.0) if a.size else np.zeros(())
    scale = np.where(np.isfinite(sq), sq * sq if op == "var" else sq, 0.0)
    rtol = {"float32": 1e-4}.get(dt)
    expect(call(), ref, dt, scale=scale, rtol=rtol, msg=f"{op}({x}, {dim}, ddof={ddof})")


def _np_logsumexp(a, axis):
    """log(sum(exp(a))) along axis, shifted by the (finite) max; -inf when empty."""
    if a.shape[axis] == 0:
        return np.full(np.delete(a.shape, axis), -np.inf)
    with np.errstate(all="ignore"):
        m = np.max(a, axis=axis, keepdims=True)
        m = np.where(np.isinf(m), 0, m)
        return np.squeeze(m, axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def _np_log_softmax(a, axis):
    with np.errstate(all="ignore"):
        m = np.max(a, axis=axis, keepdims=True) if a.size else a
        z = a - m
        return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


@examples(150)
@given(
    op=st.sampled_from(["softmax", "log_softmax", "logsumexp"]),
    x=tensors(),
    data=st.data(),
    cast_to=st.sampled_from([None, "float32", "float64"]),
)
def test_softmax_family(op, x, data, cast_to):
    dt = x.t.dtype.name
    n = max(x.t.ndim, 1)
    dim = data.draw(st.integers(-n, n - 1), label="dim")
    if op == "logsumexp":
        cast_to = None
    kw = {"dtype": SDK_DTYPES[cast_to]} if cast_to else {}
    call = lambda: getattr(sdk, op)(x.t, dim, **kw)  # noqa: E731
    rd = cast_to or (dt if is_float(dt) else None)
    if op == "logsumexp" and rd is None:
        rd = "float32"
    if rd is None:
        with pytest.raises(ERRORS):
            call()
        return
    a = cast(x.a, rd).astype(np.float64)
    ax = dim % n if x.t.ndim else None
    if a.ndim == 0:
        a = a.reshape(1)
        ax = 0
    if op == "logsumexp":
        ref = _np_logsumexp(a, ax).reshape(() if x.t.ndim == 0 else -1)
        ref = ref.reshape(np.delete(x.a.shape, ax)) if x.t.ndim else ref
    else:
        ls = _np_log_softmax(a, ax)
        with np.errstate(all="ignore"):
            ref = (np.exp(ls) if op == "softmax" else ls).reshape(x.a.shape)
    expect(call(), ref, rd, atol=1e-2 if rd in FLOATS[:2] else None, msg=f"{op}({x}, {dim})")
