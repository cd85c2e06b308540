"""Fuzzing view and shape ops against numpy: reshape/view, permute, transpose, narrow,
select, chunk, split, squeeze/unsqueeze, expand, flatten, movedim, flip, contiguous -- valid
and out-of-range arguments, 0-size and 0-dim inputs, non-contiguous layouts. View results
must alias their input: writing through one shows in the other."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz.conftest import examples
from tests.fuzz.strategies import expect, tensors

ERRORS = (TypeError, ValueError, IndexError, RuntimeError)
SENTINEL = 7


def wrap(d: int, n: int) -> int:
    """torch's dim wrapping (a 0-dim tensor takes 0 and -1); IndexError when out of range."""
    m = max(n, 1)
    if not -m <= d < m:
        raise IndexError(d)
    return d % m


def _chunk_sizes(size: int, chunks: int) -> list:
    if chunks <= 0:
        raise ValueError(chunks)
    if size == 0:
        return [0] * chunks  # torch keeps the number of (empty) chunks
    step = -(-size // chunks)
    return [step] * (size // step) + ([size % step] if size % step else [])


def _split_sizes(size: int, step: int) -> list:
    if step < 0 or (step == 0 and size):
        raise ValueError(step)
    if size == 0:
        return [0]
    return [step] * (size // step) + ([size % step] if size % step else [])


def _pieces(a, sizes, d):
    out, start = [], 0
    for s in sizes:
        out.append(a[(slice(None),) * d + (slice(start, start + s),)])
        start += s
    return out


def _squeeze(a, dims):
    shape = a.shape
    if dims is None:
        return a.reshape([s for s in shape if s != 1])
    ds = {wrap(d, a.ndim) for d in (dims if isinstance(dims, tuple) else (dims,))}
    if a.ndim == 0:
        return a
    return a.reshape([s for i, s in enumerate(shape) if not (i in ds and s == 1)])


def _expand(a, sizes):
    n = len(sizes)
    if n < a.ndim:
        raise ValueError(sizes)
    lead = n - a.ndim
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise ValueError(sizes)
            out.append(s)
        else:
            cur = a.shape[i - lead]
            if s == -1:
                s = cur
            if s < 0 or (cur != 1 and s != cur):
                raise ValueError(sizes)
            out.append(s)
    return np.broadcast_to(a, out)


def _flatten(a, start, end):
    if a.ndim == 0:
        wrap(start, 0), wrap(end, 0)
        return a.reshape(1)
    s, e = wrap(start, a.ndim), wrap(end, a.ndim)
    if s > e:
        raise ValueError((start, end))
    return a.reshape(a.shape[:s] + (int(np.prod(a.shape[s : e + 1])),) + a.shape[e + 1 :])


def _narrow(a, dim, start, length):
    d = wrap(dim, a.ndim)
    if a.ndim == 0:
        raise IndexError("narrow of a 0-dim tensor")
    size = a.shape[d]
    if not -size <= start <= size:
        raise IndexError(start)
    start += size if start < 0 else 0
    if length < 0 or start + length > size:
        raise IndexError(length)
    return a[(slice(None),) * d + (slice(start, start + length),)]


def _select(a, dim, index):
    d = wrap(dim, a.ndim)
    if a.ndim == 0:
        raise IndexError("select of a 0-dim tensor")
    if not -a.shape[d] <= index < a.shape[d]:
        raise IndexError(index)
    return a[(slice(None),) * d + (index, Ellipsis)]  # a 0-dim view, not a scalar


def _permute(a, dims):
    if len(dims) != a.ndim:
        raise ValueError(dims)
    w = [wrap(d, a.ndim) for d in dims]
    if len(set(w)) != len(w):
        raise ValueError(dims)
    return a.transpose(w)


def _movedim(a, src, dst):
    s, d = wrap(src, a.ndim), wrap(dst, a.ndim)
    return np.moveaxis(a, s, d) if a.ndim else a


@st.composite
def view_calls(draw, n: int, shape: tuple):
    """(op name, args) with arguments in range most of the time, out of range sometimes."""
    m = max(n, 1)
    dim = st.integers(-m - 1, m)  # one beyond each end: errors
    small = st.integers(-2, 5)
    ops = {
        "permute": lambda: (draw(st.permutations(range(n))) if draw(st.booleans())
                            else draw(st.lists(dim, max_size=n + 1)),),
        "transpose": lambda: (draw(dim), draw(dim)),
        "narrow": lambda: (draw(dim), draw(small), draw(small)),
        "select": lambda: (draw(dim), draw(small)),
        "chunk": lambda: (draw(st.integers(-1, 5)), draw(dim)),
        "split": lambda: (draw(st.integers(-1, 5)), draw(dim)),
        "squeeze": lambda: (draw(st.one_of(st.none(), dim, st.lists(
            st.integers(-m, m - 1), max_size=m, unique=True).map(tuple))),),
        "unsqueeze": lambda: (draw(st.integers(-n - 2, n + 1)),),
        "expand": lambda: (tuple(draw(st.lists(st.integers(-1, 3), max_size=2)))
                           + tuple(draw(st.sampled_from([s, -1, 1, 2, 0])) for s in shape),),
        "flatten": lambda: (draw(dim), draw(dim)),
        "movedim": lambda: (draw(dim), draw(dim)),
        "flip": lambda: (draw(st.lists(st.integers(-m, m - 1), max_size=m, unique=True)),),
        "t": lambda: (),
        "contiguous": lambda: (),
    }  # fmt: skip
    name = draw(st.sampled_from(sorted(ops)))
    return name, ops[name]()


def view_reference(a, name, args):
    """numpy result (a view of `a` where the op is a view) or a tuple of them."""
    if name == "permute":
        return _permute(a, args[0])
    if name == "transpose":
        d0, d1 = wrap(args[0], a.ndim), wrap(args[1], a.ndim)
        return np.swapaxes(a, d0, d1) if a.ndim else a
    if name == "narrow":
        return _narrow(a, *args)
    if name == "select":
        return _select(a, *args)
    if name in ("chunk", "split"):
        if a.ndim == 0:
            raise IndexError("0-dim")
        d = wrap(args[1], a.ndim)
        sizes = (_chunk_sizes if name == "chunk" else _split_sizes)(a.shape[d], args[0])
        return tuple(_pieces(a, sizes, d))
    if name == "squeeze":
        return _squeeze(a, args[0])
    if name == "unsqueeze":
        return np.expand_dims(a, wrap(args[0], a.ndim + 1))
    if name == "expand":
        return _expand(a, args[0])
    if name == "flatten":
        return _flatten(a, *args)
    if name == "movedim":
        return _movedim(a, *args)
    if name == "flip":
        return np.flip(a, [wrap(d, a.ndim) for d in args[0]]) if a.ndim else a
    if name == "t":
        if a.ndim > 2:
            raise ValueError("t() expects a tensor with <= 2 dimensions")
        return a.T
    return a


@examples(300)
@given(x=tensors(), data=st.data(), how=st.sampled_from(["method", "function"]))
def test_view_ops(x, data, how):
    name, args = data.draw(view_calls(x.t.ndim, tuple(x.t.shape)), label="call")
    base = x.a.copy()
    fn = getattr(x.t, name) if how == "method" or not hasattr(sdk, name) else None
    call = (lambda: fn(*args)) if fn else (lambda: getattr(sdk, name)(x.t, *args))
    try:
        ref = view_reference(base, name, args)
    except (ValueError, IndexError):
        with pytest.raises(ERRORS):
            call()
        return
    got = call()
    msg = f"{x}.{name}{args}"
    refs, gots = (ref, got) if isinstance(ref, tuple) else ((ref,), (got,))
    assert isinstance(gots, tuple) and len(gots) == len(refs), f"{msg}: {len(gots)} pieces"
    for g, r in zip(gots, refs):
        expect(g, r, x.t.dtype.name, msg=msg)
    if name == "contiguous":
        assert got.is_contiguous()
        if x.t.is_contiguous():
            assert got.data_ptr() == x.t.data_ptr()
        return
    if name in ("flatten", "flip", "expand") or x.layout == "expanded":
        return  # flatten may copy, flip copies; expanded results can't be written
    # Views alias the input: a write through the first non-empty piece shows in x.
    for g, r in zip(gots, refs):
        if g.numel():
            g.fill_(SENTINEL)
            r[...] = SENTINEL
            expect(x.t, base, x.t.dtype.name, msg=msg + " written through")
            break


def _factor_shape(draw, numel: int):
    """A shape with this many elements (sides drawn from numel's divisors), maybe with -1."""
    shape = []
    left = numel
    for _ in range(draw(st.integers(0, 4))):
        divs = [d for d in range(1, 7) if left % d == 0] if left else [0, 1, 2, 3]
        s = draw(st.sampled_from(divs))
        shape.append(s)
        left = left // s if s else left
    if left != 1 or numel == 0:
        shape.append(left if numel else draw(st.sampled_from([0, 1, 2])))
    if shape and draw(st.integers(0, 3)) == 0:
        shape[draw(st.integers(0, len(shape) - 1))] = -1
    return tuple(shape)


@examples(200)
@given(
    x=tensors(),
    data=st.data(),
    op=st.sampled_from(["reshape", "view", "sdk.reshape"]),
    bad=st.integers(0, 6),
)
def test_reshape_and_view(x, data, op, bad):
    """reshape copies only when it must; view refuses exactly where numpy would copy."""
    n = x.t.numel()
    shape = _factor_shape(data.draw, n)
    if bad == 0:
        shape = shape + (data.draw(st.sampled_from([2, 3, -1, -2, 0])),)
    call = {
        "reshape": lambda: x.t.reshape(*shape),
        "view": lambda: x.t.view(shape),
        "sdk.reshape": lambda: sdk.reshape(x.t, shape),
    }[op]
    try:
        if any(s < -1 for s in shape):
            raise ValueError(f"invalid size in {shape}")  # numpy takes any negative as -1
        ref = x.a.reshape(shape)
    except ValueError:
        with pytest.raises(ERRORS):
            call()
        return
    if op == "view":
        # numpy decides from shape and strides alone whether a view is possible; the
        # 1-byte dummy's data is never read.
        strided = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), x.a.shape, x.t.stride())
        try:
            np.reshape(strided, shape, copy=False)
        except ValueError:
            with pytest.raises(ERRORS):
                call()
            return
    got = call()
    expect(got, ref, x.t.dtype.name, msg=f"{x}.{op}{shape}")
    if op == "view" and got.numel():
        assert got.data_ptr() == x.t.data_ptr()
