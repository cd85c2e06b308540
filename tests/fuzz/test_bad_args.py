"""Fuzzing bad arguments: out-of-range dims, negative and absurd sizes (whose products
overflow int64), mismatched shapes, wrong dtypes, out-of-range indices and non-tensor
arguments must each raise a Python exception -- never crash, hang, or return something."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz.conftest import examples
from tests.fuzz.strategies import FLOATS, INTS, SDK_DTYPES, tensors

# Sensible answers to bad input. OverflowError is Python's own for an int past int64.
ALLOWED = (ValueError, TypeError, IndexError, RuntimeError, MemoryError, NotImplementedError,
           OverflowError)  # fmt: skip

JUNK = st.sampled_from([None, "abc", b"x", 1.5, math.nan, object(), {}, [1, "a"], [[1], [2, 3]]])
HUGE = st.one_of(
    st.integers(2**62, 2**63 - 1),
    st.integers(-(2**63), -(2**62)),
    st.integers(2**63, 2**80),
    st.integers(-(2**80), -(2**63) - 1),
)


@st.composite
def bad_sizes(draw):
    """A size tuple that can't be allocated: a negative entry, an entry past int64, or a
    product past int64 / past any memory."""
    n = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["negative", "huge", "product"]))
    i = draw(st.integers(0, n - 1))
    if kind == "negative":
        sizes[i] = draw(st.integers(-(2**63), -1))
    elif kind == "huge":
        sizes[i] = draw(st.integers(2**63, 2**70))
    else:
        sizes = [draw(st.integers(2**21, 2**40)) for _ in range(max(n, 3))]
    return tuple(sizes)


CREATE = {
    "empty": lambda s: sdk.empty(*s),
    "zeros": lambda s: sdk.zeros(s),
    "ones": lambda s: sdk.ones(*s, dtype=sdk.float64),
    "full": lambda s: sdk.full(s, 2.0),
    "rand": lambda s: sdk.rand(*s),
    "randn": lambda s: sdk.randn(s),
    "randint": lambda s: sdk.randint(0, 5, s),
    "new_zeros": lambda s: sdk.ones(2).new_zeros(s),
    "reshape": lambda s: sdk.ones(2).reshape(s),
    "view": lambda s: sdk.ones(2).view(*s),
    "expand": lambda s: sdk.ones(1).expand(*s),
}


@examples(100)
@given(op=st.sampled_from(sorted(CREATE)), sizes=bad_sizes())
def test_bad_sizes(op, sizes):
    if op in ("expand", "reshape", "view"):
        sizes = tuple(-2 if s == -1 else s for s in sizes)  # -1 means "keep" / "infer" there
    if op == "expand" and all(s >= 0 for s in sizes) and max(sizes) < 2**63:
        total = math.prod(sizes)
        if total < 2**63:
            return  # a huge *expanded* view is legal: stride 0 costs no memory
    with pytest.raises(ALLOWED):
        CREATE[op](sizes)


@examples(80)
@given(op=st.sampled_from(sorted(CREATE)), junk=JUNK)
def test_sizes_of_the_wrong_type(op, junk):
    with pytest.raises(ALLOWED):
        CREATE[op]((junk,) if op in ("empty", "view", "ones", "rand", "expand") else junk)


DIM_OPS = {
    "sum": lambda t, d: t.sum(d),
    "mean": lambda t, d: t.mean(d),
    "amax": lambda t, d: t.amax(d),
    "max": lambda t, d: t.max(d),
    "argmin": lambda t, d: t.argmin(d),
    "all": lambda t, d: t.all(d),
    "var": lambda t, d: t.var(d),
    "softmax": lambda t, d: t.softmax(d),
    "log_softmax": lambda t, d: sdk.log_softmax(t, d),
    "logsumexp": lambda t, d: t.logsumexp(d),
    "transpose": lambda t, d: t.transpose(0 if t.ndim else d, d),
    "select": lambda t, d: t.select(d, 0),
    "narrow": lambda t, d: t.narrow(d, 0, 0),
    "unsqueeze": lambda t, d: t.unsqueeze(d + (1 if d >= 0 else -1) if isinstance(d, int) else d),
    "squeeze": lambda t, d: t.squeeze(d),
    "flatten": lambda t, d: t.flatten(d),
    "chunk": lambda t, d: t.chunk(2, d),
    "split": lambda t, d: t.split(1, d),
    "cat": lambda t, d: sdk.cat([t, t], d),
    "stack": lambda t, d: sdk.stack([t, t], d + (1 if d >= 0 else -1) if isinstance(d, int) else d),
    "index_select": lambda t, d: t.index_select(d, sdk.tensor([0])),
    "gather": lambda t, d: t.gather(d, sdk.zeros(t.shape, dtype=sdk.int64)),
    "movedim": lambda t, d: t.movedim(d, 0),
    "permute": lambda t, d: t.permute(*([d] + list(range(1, t.ndim)))),
    "flip": lambda t, d: t.flip(d),
    "unbind": lambda t, d: t.unbind(d),
}


@examples(200)
@given(
    op=st.sampled_from(sorted(DIM_OPS)),
    x=tensors(dtypes=("float32", "float64"), layouts=("contiguous", "permuted")),
    data=st.data(),
)
def test_dims_out_of_range_or_of_the_wrong_type(op, x, data):
    n = max(x.t.ndim, 1)
    bad = data.draw(
        st.one_of(
            st.integers(n, n + 3),
            st.integers(-n - 3, -n - 1),
            HUGE,
            st.sampled_from([1.0, "0", None, sdk.tensor(0.5), [0.5]]),
        ),
        label="dim",
    )
    if bad is None and op in (
        "sum",
        "mean",
        "amax",
        "all",
        "var",
        "squeeze",
        "max",
        "argmin",
        "logsumexp",
    ):
        return  # dim=None is "all dims" there
    if op == "permute" and x.t.ndim == 0:
        return
    if op == "max" and hasattr(bad, "shape"):
        return  # max(input, other): the elementwise maximum
    if op == "cat" and x.t.shape == (0,):
        return  # cat skips 1-D empty tensors (torch's legacy rule), dim included
    with pytest.raises(ALLOWED):
        DIM_OPS[op](x.t, bad)


@st.composite
def mismatched_pairs(draw):
    """Two shapes that do not broadcast together."""
    a = draw(st.lists(st.integers(2, 4), min_size=1, max_size=3))
    b = list(a)
    i = draw(st.integers(0, len(a) - 1))
    b[i] = a[i] + draw(st.integers(1, 3))
    lead = draw(st.lists(st.integers(1, 3), max_size=2))
    return tuple(a), tuple(lead + b)


SHAPE_OPS = {
    "add": lambda x, y: x + y,
    "mul_": lambda x, y: x.mul_(y),
    "maximum": lambda x, y: sdk.maximum(x, y),
    "eq": lambda x, y: x == y,
    "where": lambda x, y: sdk.where(x > 0, x, y),
    "masked_fill": lambda x, y: x.masked_fill(y > 0, 1.0),
    "copy_": lambda x, y: x.copy_(y),
    "mm": lambda x, y: sdk.mm(x.reshape(-1, x.shape[-1]), y.reshape(y.shape[-1], -1)),
    "matmul": lambda x, y: x @ y,
    "cat": lambda x, y: (
        sdk.cat([x, y.reshape(y.shape[-1], -1)], 0) if x.ndim == 1 else sdk.cat([x, y], 0)
    ),
    "stack": lambda x, y: sdk.stack([x, y]),
    "setitem": lambda x, y: x.__setitem__(Ellipsis, y),
    "expand_as": lambda x, y: y.expand_as(x),
    "view_as": lambda x, y: x.view_as(y) if x.numel() != y.numel() else x.view(-1, 7),
    "dot": lambda x, y: sdk.dot(x.reshape(-1), y.reshape(-1)),
    "add_out": lambda x, y: sdk.add(x, x, out=y),
}


@examples(150)
@given(op=st.sampled_from(sorted(SHAPE_OPS)), shapes=mismatched_pairs(), swap=st.booleans())
def test_mismatched_shapes(op, shapes, swap):
    sa, sb = shapes[::-1] if swap else shapes
    x, y = sdk.randn(*sa), sdk.randn(*sb)
    if op in ("matmul", "mm") and (sa[-1] == sb[-2 if len(sb) > 1 else -1]):
        return
    if op == "mm" and sa[-1] == sb[-1]:
        return
    if op == "expand_as" and len(sa) >= len(sb):
        return  # y may expand into x
    if op == "cat" and len(sa) == len(sb) and sa[1:] == sb[1:]:
        return  # joinable along dim 0
    if op == "dot" and x.numel() == y.numel():
        return
    if op == "setitem" and len(sb) < len(sa):
        return
    with pytest.raises(ALLOWED):
        SHAPE_OPS[op](x, y)


DTYPE_OPS = {
    "bitwise_and": (FLOATS, lambda t: t & t),
    "bitwise_not": (FLOATS, lambda t: ~t),
    "sub bool": (("bool",), lambda t: t - t),
    "neg bool": (("bool",), lambda t: -t),
    "mean int": (("bool",) + INTS, lambda t: t.mean()),
    "var int": (INTS, lambda t: t.var()),
    "softmax int": (INTS, lambda t: t.softmax(0)),
    "floor_divide bool": (("bool",), lambda t: t // t),
    "where cond": (INTS + FLOATS, lambda t: sdk.where(t, t, t)),
    "masked_fill mask": (INTS + FLOATS, lambda t: t.masked_fill(t, 0)),
    "index float": (FLOATS, lambda t: t[t]),
    "index_select float": (FLOATS, lambda t: t.index_select(0, t.reshape(-1))),
    "gather float": (FLOATS, lambda t: t.gather(0, t)),
    "mm mixed": (INTS + FLOATS, lambda t: sdk.mm(t.reshape(1, -1), t.double().reshape(-1, 1))),
    "requires_grad int": (("bool",) + INTS, lambda t: t.requires_grad_()),
    "add_ int<-float": (("bool",) + INTS, lambda t: t.add_(0.5)),
    "div_ int": (INTS, lambda t: t.div_(t)),
    "out bool<-float": (FLOATS, lambda t: sdk.add(t, t, out=sdk.empty(t.shape, dtype=sdk.bool))),
    "pow negative int": (INTS[1:], lambda t: t**-2),
    "int div by 0": (INTS, lambda t: t // 0),
    "int mod by 0": (INTS, lambda t: t % sdk.zeros_like(t)),
}


@examples(120)
@given(op=st.sampled_from(sorted(DTYPE_OPS)), data=st.data())
def test_wrong_dtypes(op, data):
    dtypes, fn = DTYPE_OPS[op]
    dt = data.draw(st.sampled_from(dtypes), label="dtype")
    x = data.draw(tensors(dtypes=dt, shape=st.sampled_from([(2,), (1, 3), (2, 2)])))
    if op == "mm mixed" and dt == "float64":
        return
    with pytest.raises(ALLOWED):
        fn(x.t)


NON_TENSOR = {
    "add": lambda j: sdk.add(j, sdk.ones(2)),
    "add r": lambda j: sdk.ones(2) + j,
    "mul": lambda j: sdk.mul(sdk.ones(2), j),
    "exp": lambda j: sdk.exp(j),
    "sum": lambda j: sdk.sum(j),
    "softmax": lambda j: sdk.softmax(j, 0),
    "matmul": lambda j: sdk.matmul(sdk.ones(2, 2), j),
    "mm": lambda j: sdk.mm(j, sdk.ones(2, 2)),
    "cat": lambda j: sdk.cat([sdk.ones(2), j]),
    "cat all": lambda j: sdk.cat(j),
    "stack": lambda j: sdk.stack([j, sdk.ones(2)]),
    "where": lambda j: sdk.where(j, sdk.ones(2), sdk.zeros(2)),
    "masked_fill": lambda j: sdk.ones(2).masked_fill(j, 0.0),
    "masked_fill value": lambda j: sdk.ones(2).masked_fill(sdk.ones(2, dtype=sdk.bool), j),
    "clamp": lambda j: sdk.clamp(sdk.ones(2), j, j),
    "index_select": lambda j: sdk.ones(2).index_select(0, j),
    "gather": lambda j: sdk.ones(2).gather(0, j),
    "getitem": lambda j: sdk.ones(2, 2)[j],
    "setitem": lambda j: sdk.ones(2, 2).__setitem__(0, j),
    "copy_": lambda j: sdk.ones(2).copy_(j),
    "reshape": lambda j: sdk.ones(2).reshape(j),
    "permute": lambda j: sdk.ones(2, 2).permute(j),
    "to": lambda j: sdk.ones(2).to(j),
    "fill_": lambda j: sdk.ones(2).fill_(j),
    "dot": lambda j: sdk.dot(sdk.ones(2), j),
    "tensor": lambda j: sdk.tensor(j),
}


@examples(120)
@given(op=st.sampled_from(sorted(NON_TENSOR)), junk=JUNK)
def test_non_tensor_arguments(op, junk):
    if op == "tensor" and isinstance(junk, float):
        return  # tensor(1.5) is a 0-dim tensor
    numbers_ok = ("add", "add r", "mul", "clamp", "fill_", "masked_fill value", "setitem", "copy_")
    if op in numbers_ok and isinstance(junk, float):
        return  # numbers are fine there
    if op in ("getitem", "to", "clamp") and junk is None:
        return  # x[None] adds a dim; to(None) keeps the tensor; clamp needs one bound
    with pytest.raises(ALLOWED):
        NON_TENSOR[op](junk)


INDEX_OPS = {
    "getitem int": lambda t, i: t[i],
    "getitem list": lambda t, i: t[[0, i]],
    "getitem tensor": lambda t, i: t[sdk.tensor([i, 0])],
    "getitem 2 dims": lambda t, i: t[sdk.tensor([[i]]), ...],
    "setitem int": lambda t, i: t.__setitem__(i, 1),
    "setitem tensor": lambda t, i: t.__setitem__(sdk.tensor([i]), 1),
    "index_select": lambda t, i: t.index_select(0, sdk.tensor([i])),
    "gather": lambda t, i: t.gather(0, sdk.full(t.shape, i, dtype=sdk.int64)),
    "scatter_add": lambda t, i: t.scatter_add(0, sdk.full(t.shape, i, dtype=sdk.int64), t),
    "index_add": lambda t, i: t.index_add(0, sdk.tensor([i]), t[:1]),
    "index_put_": lambda t, i: t.index_put_((sdk.tensor([i]),), sdk.tensor(1.0)),
    "select": lambda t, i: t.select(0, i),
    "narrow": lambda t, i: t.narrow(0, i, 1),
}


@examples(120)
@given(
    op=st.sampled_from(sorted(INDEX_OPS)),
    x=tensors(dtypes=("float32",), shape=st.sampled_from([(3,), (2, 3), (4, 1, 2)])),
    data=st.data(),
)
def test_indices_out_of_range(op, x, data):
    n = x.t.shape[0]
    i = data.draw(st.one_of(st.integers(n, n + 5), st.integers(-n - 5, -n - 1), HUGE))
    with pytest.raises(ALLOWED):
        INDEX_OPS[op](x.t, i)


@examples(50)
@given(dt=st.sampled_from(sorted(SDK_DTYPES)), junk=st.one_of(JUNK, st.integers(-5, 100)))
def test_unknown_dtypes(dt, junk):
    if junk is not None:  # dtype=None: the default
        with pytest.raises(ALLOWED):
            sdk.ones(2, dtype=junk)
    with pytest.raises(ALLOWED):
        sdk.ones(2, dtype=SDK_DTYPES[dt]).to(junk if junk is not None else "float99")
